"""Scheduling policies. Each is ``choose(pending, head, now) -> Request``.

A policy is a plain function (or an object with ``choose``) so a student can
write one in a lab cell and pass it in. ``head`` is a :class:`HeadView`: the
narrow window a policy gets onto the drive (where the arm is, and positioning
estimates), never the drive itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .classic import fcfs, sstf

Policy = Callable[..., Any]

_REGISTRY: dict[str, Callable[[], Policy]] = {
    "fcfs": lambda: fcfs,
    "sstf": lambda: sstf,
}


def register(name: str, factory: Callable[[], Policy]) -> None:
    """Add a policy under ``name``; ``factory()`` returns a fresh policy (state is per run)."""
    _REGISTRY[name.lower()] = factory


def names() -> list[str]:
    return sorted(_REGISTRY)


def get_scheduler(policy: str | Policy) -> Policy:
    """A fresh policy from a name, or the given callable/object as it is."""
    if isinstance(policy, str):
        key = policy.lower()
        if key not in _REGISTRY:
            raise ValueError(f"unknown scheduler '{policy}'; choose one of: {', '.join(names())}")
        return _REGISTRY[key]()
    return policy


__all__ = ["fcfs", "get_scheduler", "names", "register", "sstf"]
