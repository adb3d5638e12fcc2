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
import inspect
import os
import pkgutil
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
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


def reproduce(name: str, quick: bool = False, seed: int = 0,
              executor: Executor | None = None) -> dict:
    """Run one experiment and return its JSON-ready result.

    ``executor``: any ``concurrent.futures``-style executor (a process pool, a Dask or Ray
    cluster's) for the experiment's parameter sweep; every point carries its own seed, so the
    numbers do not depend on it. Experiments without a sweep (``interface``, ``validation``)
    take no executor and run here.
    """
    fn = get(name).reproduce
    if executor is None or "executor" not in inspect.signature(fn).parameters:
        return fn(quick=quick, seed=seed)
    return fn(quick=quick, seed=seed, executor=executor)


@contextmanager
def pool_unless_given(executor: Executor | None, n_points: int) -> Iterator[Executor | None]:
    """The caller's executor, or a process pool on this machine's cores (shut down after),
    or none when there is one core or one point."""
    if executor is not None:
        yield executor
        return
    cores = os.cpu_count() or 1
    if cores < 2 or n_points < 2:
        yield None
        return
    with ProcessPoolExecutor(max_workers=min(cores, n_points)) as pool:
        yield pool


def measured(result: dict, key: str):
    """The value a target names: ``"cpu_pct"`` or a dotted path ``"cpu_pct.pio"``."""
    from .targets import lookup

    return lookup(result, key)
