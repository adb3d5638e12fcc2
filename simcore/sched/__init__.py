"""Scheduling policies for the drive's queue. Each is ``choose(pending, head, now) -> Request``.

A policy is a plain function (or an object with ``choose`` when it keeps state:
a sweep direction, a group, an aging clock) so a student can write one in a
lab cell and pass it in. ``head`` is a :class:`~simcore.drive.HeadView`: the
narrow window a policy gets onto the drive (where the arm is, and positioning
estimates), never the drive itself. A policy may carry ``starvation_free =
True`` when it promises that every request is eventually served however the
others keep arriving; the contract test holds it to that.

The host-side Linux I/O schedulers (noop, deadline, anticipatory, CFQ, and the
modern none, mq-deadline, bfq, kyber) live in :mod:`simcore.sched.linux`:
they work on the operating system's request queue, not on the drive's.

| name | family | module |
|---|---|---|
| ``fcfs`` | arrival order | :mod:`.classic` |
| ``sstf`` (``ssf``) | nearest cylinder | :mod:`.classic` |
| ``scan``, ``look`` | elevator | :mod:`.elevator` |
| ``cscan``, ``clook`` | one-way elevator | :mod:`.elevator` |
| ``vscan`` | V-SCAN(0.2) | :mod:`.elevator` |
| ``sptf`` (``stf``, ``satf``) | shortest positioning time | :mod:`.positional` |
| ``sptf-q32`` | SPTF over a 32-deep tagged queue | :mod:`.positional` |
| ``gstf`` | grouped STF, 50 cylinders | :mod:`.positional` |
| ``gstf-freeze`` | grouped STF with frozen groups | :mod:`.positional` |
| ``wstf`` | weighted STF, M = 1000 ms | :mod:`.positional` |
| ``aged-sptf`` | aged SPTF, w = 0.01 | :mod:`.positional` |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .classic import fcfs, sstf
from .elevator import CLook, CScan, Look, Scan, VScan
from .positional import GSTF, WSTF, AgedSPTF, TaggedSPTF, sptf

Policy = Callable[..., Any]

_REGISTRY: dict[str, Callable[[], Policy]] = {
    "fcfs": lambda: fcfs,
    "sstf": lambda: sstf,
    "scan": Scan,
    "look": Look,
    "cscan": CScan,
    "clook": CLook,
    "vscan": VScan,
    "sptf": lambda: sptf,
    "sptf-q32": lambda: TaggedSPTF(32),
    "gstf": GSTF,
    "gstf-freeze": lambda: GSTF(freeze=True),
    "wstf": WSTF,
    "aged-sptf": AgedSPTF,
}

_ALIASES = {
    "ssf": "sstf", "stf": "sptf", "satf": "sptf", "c-scan": "cscan", "c-look": "clook",
    "v-scan": "vscan", "asptf": "aged-sptf",
}


def register(name: str, factory: Callable[[], Policy]) -> None:
    """Add a policy under ``name``; ``factory()`` returns a fresh policy (state is per run)."""
    _REGISTRY[name.lower()] = factory


def names() -> list[str]:
    """The registered policy names (aliases such as ``stf`` for ``sptf`` not included)."""
    return sorted(_REGISTRY)


def get_scheduler(policy: str | Policy) -> Policy:
    """A fresh policy from a name (or alias), or the given callable/object as it is."""
    if isinstance(policy, str):
        key = policy.lower()
        key = _ALIASES.get(key, key)
        if key not in _REGISTRY:
            raise ValueError(f"unknown scheduler '{policy}'; choose one of: {', '.join(names())}")
        return _REGISTRY[key]()
    return policy


def starvation_free(policy: Policy) -> bool:
    """Whether a policy promises to serve every request eventually (``False`` if it says nothing)."""
    return bool(getattr(policy, "starvation_free", False))


__all__ = [
    "GSTF",
    "WSTF",
    "AgedSPTF",
    "CLook",
    "CScan",
    "Look",
    "Scan",
    "TaggedSPTF",
    "VScan",
    "fcfs",
    "get_scheduler",
    "names",
    "register",
    "sptf",
    "sstf",
    "starvation_free",
]
