"""Old module names, kept working after simcore's modules moved into layer packages.

Issue 14 (item 2) moved the flat modules into packages that show the stack (``disk/``,
``drive/``, ``host/``, ``workloads/``, ``disksim/``, ``traxtents/``). Notebooks, labs and
readers' scripts written against the old names (``simcore.cache``, ``simcore.host_io``,
``simcore.traces.disksim``, ...) still import: a finder maps each old name to the module's new
home and hands back that very module, so both names share one module object (state,
monkeypatching and ``isinstance`` behave as one). New code imports the new names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "simcore.profile": "simcore.disk.profile",
    "simcore.profiles": "simcore.disk.profile_loader",
    "simcore.layout": "simcore.disk.layout",
    "simcore.mechanics": "simcore.disk.mechanics",
    "simcore.access": "simcore.disk.access",
    "simcore.cache": "simcore.drive.cache",
    "simcore.interface": "simcore.drive.interface",
    "simcore.channel": "simcore.drive.channel",
    "simcore.cpu": "simcore.drive.cpu",
    "simcore.firmware_events": "simcore.drive.firmware_events",
    "simcore.host_readahead": "simcore.host.readahead",
    "simcore.dispatch": "simcore.host.dispatch",
    "simcore.controller_cache": "simcore.host.controller_cache",
    "simcore.array": "simcore.host.array",
    "simcore.stream_port": "simcore.host.stream_port",
    "simcore.host_io": "simcore.host.io",
    "simcore.workloads_synth": "simcore.workloads.synth",
    "simcore.workloads_server": "simcore.workloads.server",
    "simcore.traces": "simcore.workloads.traces",
    "simcore.trace_stats": "simcore.workloads.stats",
    "simcore.disksim_parse": "simcore.disksim.parse",
    "simcore.disksim_import": "simcore.disksim.importer",
    "simcore.traxtent_uses": "simcore.traxtents.uses",
    "simcore.sectors": "simcore.disk.sectors",
    "simcore.smr": "simcore.drive.smr",
}


def new_home(name: str) -> str | None:
    """The module's new name, for an old name or a submodule of an old package name."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


class _OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if new_home(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module(new_home(spec.name))

    def exec_module(self, module):
        """The module is already the new one, executed by its own import."""


def reexport(package: str, module: str):
    """A module ``__getattr__`` for ``package`` that finds names in ``package.module``, imported
    on first use (``from simcore.drive import Drive`` after drive.py became drive/drive.py)."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(importlib.import_module(f"{package}.{module}"), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__


def install() -> None:
    if not any(isinstance(f, _OldNames) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldNames())


install()
