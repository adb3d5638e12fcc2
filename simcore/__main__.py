"""``python -m simcore``: the command line.

Each subcommand lives in its own module in :mod:`simcore.commands` and
registers itself, so a new command needs no edit here. Errors on bad input
print one line naming the file, line or field, and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands
from .errors import DisklabError


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the one module ``only`` (a command's module name)."""
    parser = argparse.ArgumentParser(prog="python -m simcore",
                                     description="A validated SimPy disk simulator.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or (only is not None and info.name != only):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """Only the named command's module is imported when its name is its module's (``run``,
    ``bench``, ...): a short command does not wait on the imports of all the others."""
    cmd = next((a for a in argv if not a.startswith("-")), None)
    if cmd is not None and argv and not argv[0].startswith("-"):
        name = cmd.replace("-", "_")
        if any(i.name == name for i in pkgutil.iter_modules(commands.__path__)):
            parser = build_parser(only=name)
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            if cmd in sub.choices:
                return parser
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser_for(argv).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (DisklabError, ValueError, KeyError, FileNotFoundError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {msg}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
