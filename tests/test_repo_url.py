"""The one rule for the repository URL behind the launch buttons and the README badge."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import repo_url  # noqa: E402


@pytest.mark.parametrize("given, expected", [
    ("git@github.com:me/fork.git", "https://github.com/me/fork"),
    ("https://github.com/me/fork.git", "https://github.com/me/fork"),
    ("ssh://git@gitlab.com/course/disk-lab", "https://gitlab.com/course/disk-lab"),
    ("/work/main", None),
    ("../disklab", None),
])
def test_normalize(given, expected):
    assert repo_url.normalize(given) == expected


def _repo(tmp_path: Path, origin: str | None) -> Path:
    require(shutil.which("git") is not None, "git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if origin:
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", origin], check=True)
    return root


def test_precedence_env_then_origin_then_config(tmp_path, monkeypatch):
    monkeypatch.delenv("REPO_URL", raising=False)
    plain = _repo(tmp_path, None)
    default = repo_url.configured(plain)["repository"]["url"]
    assert repo_url.resolve(plain) == (default, "_config.yml repository.url")
    shutil.rmtree(plain)
    forked = _repo(tmp_path, "git@github.com:course/disks.git")
    assert repo_url.resolve(forked)[0] == "https://github.com/course/disks"
    monkeypatch.setenv("REPO_URL", "https://gitlab.com/uni/os-course")
    assert repo_url.resolve(forked) == ("https://gitlab.com/uni/os-course", "REPO_URL")
    monkeypatch.setenv("REPO_URL", "not a url")
    with pytest.raises(SystemExit, match="REPO_URL"):
        repo_url.resolve(forked)


def test_binder_urls_match_the_book_theme():
    assert repo_url.binder_url("https://github.com/a/b", "main", "lab/tree/labs") == (
        "https://mybinder.org/v2/gh/a/b/main?urlpath=lab/tree/labs")
    assert repo_url.binder_url("https://gitlab.com/a/b") == "https://mybinder.org/v2/gl/a%2Fb/main"
    assert repo_url.binder_url("https://git.example.org/a/b").startswith(
        "https://mybinder.org/v2/git/https%3A%2F%2Fgit.example.org%2Fa%2Fb/")


def test_readme_badge_follows_the_url(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text())
    assert repo_url.update_readme("https://github.com/course/disks", "main", readme)
    text = readme.read_text()
    assert "https://mybinder.org/v2/gh/course/disks/main?urlpath=lab/tree/labs" in text
    assert not repo_url.update_readme("https://github.com/course/disks", "main", readme)
    # the README carries the badge for the configured URL (or, once `make book` ran in a fork,
    # for the URL the rule chose)
    default = repo_url.configured(ROOT)["repository"]["url"]
    shipped = (ROOT / "README.md").read_text()
    assert repo_url.badge(default) in shipped or repo_url.badge(repo_url.resolve(ROOT)[0]) in shipped


def test_no_placeholder_hosts():
    config = (ROOT / "_config.yml").read_text()
    assert "example.edu" not in config and "example.com" not in config
    buttons = repo_url.configured(ROOT)["launch_buttons"]
    assert not buttons.get("jupyterhub_url")
