"""The repository the book's launch buttons and the README's Binder badge point at.

One rule, used by ``tools/build_book.py`` (``make book REPO_URL=...``) and the tests:

1. ``REPO_URL`` from the environment (the Makefile passes its variable), if set;
2. else the ``origin`` git remote, if it is a hosted URL (https or ``git@host:org/repo``);
3. else ``repository.url`` in ``_config.yml``, the project's own home.

A fork or a course sets it once with ``make book REPO_URL=https://github.com/ORG/REPO``; the
build writes the chosen URL into the config it builds with and into the README's badge block
(between ``<!-- binder-badge -->`` markers), so every button and the badge follow it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import yaml

ROOT = Path(__file__).resolve().parent.parent
BINDER = "https://mybinder.org"
BEGIN, END = "<!-- binder-badge -->", "<!-- /binder-badge -->"


def normalize(url: str) -> str | None:
    """``https://host/org/repo`` for a hosted git URL, None for anything else (a local path)."""
    url = url.strip()
    m = re.fullmatch(r"git@([\w.-]+):([\w.-]+)/([\w.-]+?)(?:\.git)?/?", url)
    if m:
        return f"https://{m[1]}/{m[2]}/{m[3]}"
    m = re.fullmatch(r"(?:https?|ssh|git)://(?:[^@/]+@)?([\w.-]+)(?::\d+)?/([\w.-]+)/([\w.-]+?)"
                     r"(?:\.git)?/?", url)
    if m:
        return f"https://{m[1]}/{m[2]}/{m[3]}"
    return None


def origin(root: Path = ROOT) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return normalize(out.stdout) if out.returncode == 0 else None


def configured(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text())


def resolve(root: Path = ROOT) -> tuple[str, str]:
    """(url, where it came from)."""
    env = os.environ.get("REPO_URL", "").strip()
    if env:
        url = normalize(env)
        if url is None:
            raise SystemExit(f"REPO_URL={env!r} is not a hosted git URL "
                             "(expected https://host/org/repo or git@host:org/repo)")
        return url, "REPO_URL"
    url = origin(root)
    if url:
        return url, "the origin remote"
    url = normalize(configured(root)["repository"]["url"])
    if url is None:
        raise SystemExit(f"{root / '_config.yml'}: repository.url is not a hosted git URL")
    return url, "_config.yml repository.url"


def binder_url(repo: str, branch: str = "main", urlpath: str | None = None) -> str:
    """The mybinder.org launch URL the book theme builds for ``repo`` (GitHub, GitLab, other)."""
    host, org, name = repo.removeprefix("https://").split("/")
    if host == "github.com":
        url = f"{BINDER}/v2/gh/{org}/{name}/{branch}"
    elif host == "gitlab.com":
        url = f"{BINDER}/v2/gl/{org}%2F{name}/{branch}"
    else:
        url = f"{BINDER}/v2/git/{quote(repo, safe='')}/{branch}"
    return f"{url}?urlpath={urlpath}" if urlpath else url


def badge(repo: str, branch: str = "main") -> str:
    """The README's badge block: Binder opening the labs folder in JupyterLab."""
    url = binder_url(repo, branch, "lab/tree/labs")
    return (f"{BEGIN}\n[![Launch the labs on Binder](https://mybinder.org/badge_logo.svg)]({url})"
            f"\n{END}")


def update_readme(repo: str, branch: str = "main", path: Path = ROOT / "README.md") -> bool:
    """Rewrite the badge block of ``path`` for ``repo``; True if the file changed."""
    text = path.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block to update")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + badge(repo, branch) + tail
    if new == text:
        return False
    path.write_text(new)
    return True


def main() -> int:
    url, source = resolve()
    print(f"{url} (from {source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
