"""Not a command: the check shared by ``grade`` and ``student`` that the notebook tools exist."""

from __future__ import annotations

import importlib.util

NEEDED = ("nbformat", "nbval", "pytest", "ipykernel")


def require_notebook_tools() -> None:
    """Say plainly which notebook tools are missing, before any work starts."""
    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(f"this command needs {', '.join(missing)}: install the test extras "
                         "(pip install -e '.[test,book]') or run `make setup`")


def register(subparsers) -> None:
    """No subcommand of its own (the command loader calls this on every module here)."""
