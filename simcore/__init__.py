"""simcore: a small, validated SimPy disk simulator.

The verbs: :func:`load_disk`, a workload maker (:func:`random_open`,
:func:`random_closed`, ...), :func:`run`, :func:`sweep`; results come back as
flat records (:class:`Completed`) in a :class:`RunResult`.
"""

from . import _moved  # first: old module names (simcore.cache, ...) keep importing
from .disk.access import Access, HeadState, Mechanism
from .disk.layout import SECTOR_BYTES, Layout, PhysicalAddress, TrackPiece
from .disk.mechanics import (
    FourPhaseSeek,
    LinearSeek,
    SeekCurve,
    SeekPhases,
    TableSeek,
    ThreePointSeek,
    TwoRegimeSeek,
    mean_rotational_latency_ms,
    rotational_latency_ms,
)
from .disk.profile import DiskProfile, SeekSpec, Zone
from .disk.profile_loader import list_disks, load_disk
from .drive.cache import FLUSH, CacheConfig, SegmentCache
from .drive.drive import Drive, HeadView
from .drive.interface import Port, mode
from .engine import replay_validation, run, sweep
from .errors import DisklabError, ProfileError, RequestError, TraceError
from .metrics import cdf, demerit
from .records import READ, WRITE, Completed, Request
from .results import RunResult
from .stack import Stack, stack
from .workloads import (
    ClosedWorkload,
    OpenWorkload,
    Processes,
    ValidationWorkload,
    from_tuples,
    random_closed,
    random_open,
    sequential_open,
)

__version__ = "0.1.0"

__all__ = [
    "FLUSH",
    "READ",
    "SECTOR_BYTES",
    "WRITE",
    "Access",
    "CacheConfig",
    "ClosedWorkload",
    "Completed",
    "DiskProfile",
    "DisklabError",
    "Drive",
    "FourPhaseSeek",
    "HeadState",
    "HeadView",
    "Layout",
    "LinearSeek",
    "Mechanism",
    "OpenWorkload",
    "PhysicalAddress",
    "Port",
    "Processes",
    "ProfileError",
    "Request",
    "RequestError",
    "RunResult",
    "SeekCurve",
    "SeekPhases",
    "SeekSpec",
    "SegmentCache",
    "Stack",
    "TableSeek",
    "ThreePointSeek",
    "TraceError",
    "TrackPiece",
    "TwoRegimeSeek",
    "ValidationWorkload",
    "Zone",
    "cdf",
    "demerit",
    "from_tuples",
    "list_disks",
    "load_disk",
    "mean_rotational_latency_ms",
    "mode",
    "random_closed",
    "random_open",
    "replay_validation",
    "rotational_latency_ms",
    "run",
    "sequential_open",
    "stack",
    "sweep",
]


def __getattr__(name: str):
    """``simcore.cache``, ``simcore.host_io``, ... as attributes: the moved modules, lazily."""
    if f"simcore.{name}" in _moved.MOVED:
        import importlib

        return importlib.import_module(f"simcore.{name}")
    raise AttributeError(f"module 'simcore' has no attribute {name!r}")
