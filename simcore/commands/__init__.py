"""Subcommands of ``python -m simcore``; each module defines ``register(subparsers)``."""
