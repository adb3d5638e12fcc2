"""The instructor's secret: the key of every student's variant (HMAC), kept off the students' side.

One secret per course and term, 32 random bytes written as hex into a file
only its owner can read (``~/.config/disklab/secret`` unless told otherwise,
or the file named by ``DISKLAB_SECRET_FILE``). Handouts carry each student's
public workload seed, a one-way hash of HMAC(secret, lab and id); the grader
recomputes it from the student's id and the secret, so a seed typed into a
notebook counts for nothing, and nobody can compute a classmate's variant from
a name.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

ENV = "DISKLAB_SECRET_FILE"


class SecretError(ValueError):
    """The secret file is missing, unreadable by design only to others, or malformed."""


def default_path() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    return Path.home() / ".config" / "disklab" / "secret"


def create(path: str | Path | None = None) -> Path:
    """Write a new secret (mode 0600); refuse to replace an existing one."""
    p = Path(path) if path else default_path()
    if p.exists():
        raise SecretError(f"{p} already exists; a new secret would change every student's "
                          "variant. Remove it yourself if that is what you want.")
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")
    return p


def load(path: str | Path | None = None) -> bytes:
    """The secret's bytes, with a clear error for a missing, shared or malformed file."""
    p = Path(path) if path else default_path()
    if not p.exists():
        raise SecretError(f"{p}: no instructor secret; create one with "
                          "`python -m simcore secret --init` (or name it with --secret)")
    mode = p.stat().st_mode
    if mode & 0o077:
        raise SecretError(f"{p}: the secret is readable by other users (mode {mode & 0o777:o}); "
                          f"run `chmod 600 {p}`")
    text = p.read_text(encoding="utf-8").strip()
    if len(text) < 32:
        raise SecretError(f"{p}: a secret needs at least 32 characters (found {len(text)})")
    return text.encode()
