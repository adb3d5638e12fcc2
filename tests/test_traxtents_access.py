"""In-order bus delivery of a zero-latency read in :meth:`Mechanism.access`.

Schindler et al. 2002 §5.2: zero-latency disks "only send data over the bus
in ascending LBN order". When the head lands ``off`` sectors into a track-
aligned run, sectors ``0..off-1`` are read *last*, at media speed, so the bus
cannot have sent sectors ``off..n-1`` before them. After the media finishes,
at least ``n - off`` sectors (``(n - off) x b`` ms) must still cross the bus.

``Mechanism.access`` computes ``interface = max(b, n b - overlap)`` with
``overlap`` = the time from when the run's first sector comes round to the
media end. That lets the bus move ``overlap / b`` sectors during a window in
which only ``off`` sectors exist in LBA order, so a wrapped read gets a bus tail
of one sector (Atlas 10K II, off = 264: 0.003 ms instead of >= 0.845 ms).

Fix (in access.py, read branch): keep, per track piece, when its sectors are
available in LBA order (a wrapped piece: ``[0, off)`` at the end of the
revolution, ``[off, span)`` earlier) and take
``bus_end = max_i(avail_i + (n - i) b)``, evaluated at the two ends of each
linear run (see ``simcore.traxtents._bus_end``); ``interface = bus_end -
media_end``. The new ``Mechanism.plan`` (work in progress by the interface
developer) already yields ``done_ms`` in LBA order, from which this is one line.
``simcore.traxtents.serve(..., bus="streaming")`` is this fixed model and
``bus="assembled"`` the paper's (the track is sent after it is assembled).
"""

from __future__ import annotations

import pytest

import simcore
from simcore import traxtents as tx
from simcore.disk.access import HeadState


def test_wrapped_zero_latency_read_cannot_beat_in_order_delivery():
    mech = simcore.Mechanism(simcore.load_disk("atlas10k2"))
    start = tx.zone_track_starts(mech.layout, 0)[10]
    a0 = mech.layout.locate(start)
    head = HeadState(a0.cylinder, a0.surface)
    st = mech.rev_ms / 528
    off = 264
    t = (a0.sector + off - 0.5) * st + 100 * mech.rev_ms  # lands mid-track
    acc = mech.access(start, 528, False, t, head)
    b = mech.bus_sector_ms
    assert acc.interface_ms >= (528 - off) * b - 1e-9


def test_traxtents_streaming_model_obeys_in_order_delivery():
    """The same request through ``serve(..., bus="streaming")``: tail = (n - off + 1) b."""
    mech = simcore.Mechanism(simcore.load_disk("atlas10k2"))
    start = tx.zone_track_starts(mech.layout, 0)[10]
    a0 = mech.layout.locate(start)
    head = HeadState(a0.cylinder, a0.surface)
    st = mech.rev_ms / 528
    t = (a0.sector + 264 - 0.5) * st + 100 * mech.rev_ms
    s = tx.serve(mech, start, 528, t, head, bus="streaming")
    assert s.bus_tail_ms == pytest.approx((528 - 264 + 1) * mech.bus_sector_ms)
