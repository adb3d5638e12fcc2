"""Linux I/O schedulers for the host's request queue (seed 001: Pratt & Heger 2004).

The 2.6-era four, with the defaults of the kernel the paper ran (note 001 §2):
``noop``, ``deadline``, ``anticipatory`` (``as``) and ``cfq``; and their modern
blk-mq descendants (note §6.1): ``none``, ``mq-deadline``, ``bfq`` and
``kyber``. Each is an :class:`~simcore.sched.linux.base.Elevator` driven by
:class:`simcore.host.BlockLayer`; tunables are keyword arguments named as in
``/sys/block/DEV/queue/iosched/`` (times in ms).

| 2004 | today | what carried over |
|---|---|---|
| noop | none | FIFO plus merging |
| deadline | mq-deadline | sorted lists, FIFO expiry, ``fifo_batch``; same defaults |
| anticipatory | bfq | idling after a synchronous request (``slice_idle``) |
| cfq | bfq | per-process queues, fair shares |
| - | kyber | latency targets throttle the device queue depth |
"""

from __future__ import annotations

from collections.abc import Callable

from .anticipatory import Anticipatory
from .base import Elevator, Rq, SortedRqs
from .bfq import BFQ
from .cfq import CFQ
from .deadline import Deadline, MqDeadline
from .kyber import Kyber
from .noop import NoneSched, Noop

_REGISTRY: dict[str, Callable[..., Elevator]] = {
    "noop": Noop,
    "deadline": Deadline,
    "anticipatory": Anticipatory,
    "cfq": CFQ,
    "none": NoneSched,
    "mq-deadline": MqDeadline,
    "bfq": BFQ,
    "kyber": Kyber,
}
_ALIASES = {"as": "anticipatory", "mq_deadline": "mq-deadline", "dl": "deadline"}

LEGACY = ("noop", "deadline", "anticipatory", "cfq")
MODERN = ("none", "mq-deadline", "bfq", "kyber")


def names() -> list[str]:
    """Every elevator name (the 2.6-era four, then the blk-mq four)."""
    return list(LEGACY + MODERN)


def get_elevator(elevator: str | Elevator, **tunables) -> Elevator:
    """A fresh elevator by name with sysfs-style tunables, or the given object as it is."""
    if isinstance(elevator, Elevator):
        if tunables:
            raise ValueError("tunables go with an elevator name, not an elevator object")
        return elevator
    key = str(elevator).lower()
    key = _ALIASES.get(key, key)
    if key not in _REGISTRY:
        raise ValueError(f"unknown I/O scheduler '{elevator}'; choose one of: "
                         f"{', '.join(names())}")
    try:
        return _REGISTRY[key](**tunables)
    except TypeError as exc:
        raise ValueError(f"{key}: unknown tunable ({exc}); it has: "
                         f"{', '.join(_REGISTRY[key]().tunables())}") from None


__all__ = [
    "BFQ",
    "CFQ",
    "LEGACY",
    "MODERN",
    "Anticipatory",
    "Deadline",
    "Elevator",
    "Kyber",
    "MqDeadline",
    "NoneSched",
    "Noop",
    "Rq",
    "SortedRqs",
    "get_elevator",
    "names",
]
