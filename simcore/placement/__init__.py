"""Data placement: where blocks live, and moving them to shorten seeks.

One small module per technique, each citing its seed and section:

| policy | module | seed |
|---|---|---|
| organ pipe | :mod:`.organ_pipe` | 000 §4.1, 003 §3.1 |
| heat layout | :mod:`.heat_layout` | 003 §3.2 |
| packed extents | :mod:`.packed_extents` | 003 §3.3 |
| sequential layout (FREQNC) and FREQZ | :mod:`.sequential` | 003 §3.4, §3.6 |
| ALIS and ALIZ | :mod:`.alis` | 003 §3.5, §3.6 |
| cylinder shuffling | :mod:`.cylinder_shuffling` | 000 §4.2 |
| adaptive block rearrangement | :mod:`.abr` | 000 §4.4-4.8 |

:mod:`.remap` is the layer between a workload and the drive: every interval a
policy plans the next window from the last one's references, requests are
rewritten through the plan (and split where needed), and the data that moved
is accounted for. A policy is any object with ``name`` and
``plan(refs, ctx) -> Plan`` (or a plain function with that signature).

```python
from simcore import placement
placed = placement.rewrite(workload, placement.Sequential(spacing=50_000), capacity)
result = simcore.run(disk, placed.workload)          # the drive sees physical addresses
per_request = placement.fold(result.records, placed)  # back to the logical requests
```
"""

from .abr import AdaptiveBlockRearrangement, reserved_area, space_saving
from .alis import ALIS, build_runs, edge_arrays, edge_weights
from .cylinder_shuffling import CylinderShuffling, shuffle_permutation
from .heat_layout import HeatLayout
from .organ_pipe import OrganPipe, organ_pipe_offsets, organ_pipe_slots
from .packed_extents import PackedExtents
from .per_disk import DiskMajor, rewrite_per_disk
from .refs import References, hot_units, unit_counts, unit_references
from .remap import (
    MIGRATION_CLIENT,
    BandPermutation,
    BlockMap,
    HiddenAreas,
    Identity,
    Placed,
    PlanContext,
    fold,
    identity_plan,
    record_columns,
    rewrite,
    seek_distances,
)
from .sequential import Sequential
from .service import boundary_safe, cylinders
from .zones import Zones, place_groups, place_units


def original():
    """The original layout as a policy (nothing ever moves)."""

    def plan(refs, ctx):
        return identity_plan(ctx.home)

    plan.__name__ = "ORIGINAL"
    return plan


__all__ = [
    "ALIS",
    "MIGRATION_CLIENT",
    "AdaptiveBlockRearrangement",
    "BandPermutation",
    "BlockMap",
    "CylinderShuffling",
    "DiskMajor",
    "HeatLayout",
    "HiddenAreas",
    "Identity",
    "OrganPipe",
    "PackedExtents",
    "Placed",
    "PlanContext",
    "References",
    "Sequential",
    "Zones",
    "boundary_safe",
    "build_runs",
    "cylinders",
    "edge_arrays",
    "edge_weights",
    "fold",
    "hot_units",
    "identity_plan",
    "organ_pipe_offsets",
    "organ_pipe_slots",
    "original",
    "place_groups",
    "place_units",
    "record_columns",
    "reserved_area",
    "rewrite",
    "rewrite_per_disk",
    "seek_distances",
    "shuffle_permutation",
    "space_saving",
    "unit_counts",
    "unit_references",
]
