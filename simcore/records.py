"""Flat, immutable records: what goes into the simulator and what comes out."""

from __future__ import annotations

from typing import NamedTuple

READ, WRITE = "R", "W"


class Request(NamedTuple):
    """One I/O request. ``lba`` and ``sectors`` are in 512-byte sectors; times in ms.

    ``fua``: Force Unit Access (ATA WRITE FPDMA QUEUED with FUA, SCSI WRITE with FUA=1):
    a write that completes only once its data is on the media, whatever the write cache
    does with other data. ``op`` may also be ``"F"`` (:data:`simcore.drive.cache.FLUSH`): FLUSH
    CACHE, done when every dirty sector is on the media.
    """

    id: int
    arrival_ms: float
    op: str
    lba: int
    sectors: int
    client: int = 0
    fua: bool = False


class Completed(NamedTuple):
    """One served request and where its time went (ms).

    ``response = finish - arrival = queue + overhead + seek + rotation + transfer
    + interface``. ``seek`` includes head switches, ``rotation`` every wait for
    a sector (skew gaps included), ``interface`` the bus time not hidden
    behind the media transfer.
    """

    id: int
    op: str
    lba: int
    sectors: int
    arrival_ms: float
    start_ms: float
    finish_ms: float
    queue_ms: float
    overhead_ms: float
    seek_ms: float
    rotation_ms: float
    transfer_ms: float
    interface_ms: float
    response_ms: float
    client: int = 0
    cache_hit: bool = False


CSV_COLUMNS = (
    "id", "op", "lba", "sectors", "arrival_ms", "start_ms", "finish_ms", "queue_ms",
    "overhead_ms", "seek_ms", "rotation_ms", "transfer_ms", "interface_ms", "response_ms",
)
