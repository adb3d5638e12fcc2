"""Experiments: one module per seed result, the single source of truth.

Each module in this package defines ``NAME`` (the name on the command line),
``DESCRIPTION``, ``TARGETS`` (its reproduction targets as data, see
:mod:`.targets`) and ``reproduce(quick: bool = False, seed: int = 0) -> dict``,
which returns a JSON-ready dict holding the measured numbers, the paper's
numbers beside them (under ``"paper"``), the evaluated targets (under
``"targets"``) and whatever a figure needs. The book, the labs,
``python -m simcore reproduce NAME`` and the tests all call it.
Modules are found by scanning this package, so adding one needs no registry edit.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "reproduce") and hasattr(mod, "TARGETS"):
            found[mod.NAME] = mod
    return found


def names() -> list[str]:
    """Names of every experiment, sorted."""
    return sorted(_modules())


def get(name: str) -> ModuleType:
    mods = _modules()
    if name not in mods:
        raise KeyError(f"unknown experiment '{name}'; known: {', '.join(sorted(mods)) or 'none'}")
    return mods[name]


def reproduce(name: str, quick: bool = False, seed: int = 0) -> dict:
    """Run one experiment and return its JSON-ready result."""
    return get(name).reproduce(quick=quick, seed=seed)


def measured(result: dict, key: str):
    """The value a target names: ``"cpu_pct"`` or a dotted path ``"cpu_pct.pio"``."""
    from .targets import lookup

    return lookup(result, key)
