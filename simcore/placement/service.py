"""A per-request service for replaying rewritten traces: the drive's own, made boundary-safe.

Rewritten traces are full of requests that start on the sector right after
the one the drive just finished (a run that ALIS made contiguous, a request
split in two). The drive then finds that sector exactly under the head. In
absolute simulated time (hundreds of seconds, in ms) the platter angle is
computed with a rounding error of about 1e-9 of a sector, and half the time
the sector counts as *just passed*: a full revolution is charged for nothing
(measured: 99 of 200 back-to-back 64 KiB reads on ``narayan2004``).

:func:`boundary_safe` returns the drive's ordinary mechanical service (same
command overheads, same :meth:`Mechanism.access <simcore.disk.access.Mechanism.access>`)
with the start moved 1e-6 ms earlier, which is far above the rounding error and
far below anything the model resolves. Pass it as ``simcore.run(...,
service=boundary_safe(mech))``. (Reported to the owner of ``access.py``; once
the tolerance is fixed there this wrapper changes nothing.)
"""

from __future__ import annotations

import numpy as np

from ..disk.access import Mechanism
from ..records import WRITE

NUDGE_MS = 1e-6


def boundary_safe(mech: Mechanism, nudge_ms: float = NUDGE_MS):
    ov = mech.profile.overheads
    read_ov, write_ov = ov.read_miss_ms, ov.write_ms
    access = mech.access

    def service(req, start, head):
        is_write = req.op == WRITE
        overhead = write_ov if is_write else read_ov
        return overhead, access(req.lba, req.sectors, is_write, start + overhead - nudge_ms,
                                head), False

    return service


def cylinders(layout, lbas) -> np.ndarray:
    """Cylinder of each LBA, vectorized (layouts without slips, spare groups or empty
    fronts; else one by one)."""
    lbas = np.asarray(lbas, dtype=np.int64)
    prof = layout.profile
    if not layout.simple:
        return np.fromiter((layout.cylinder_of(int(x)) for x in lbas), np.int64, len(lbas))
    starts = np.array([layout.zone_lba_range(z)[0] for z in range(layout.zone_count)])
    per_cyl = np.array([layout.sectors_per_track(z) * layout.surfaces
                        for z in range(layout.zone_count)])
    cyl0 = np.array([z.first_cylinder for z in prof.zones])
    z = np.searchsorted(starts, lbas, side="right") - 1
    return cyl0[z] + (lbas - starts[z]) // per_cyl[z]
