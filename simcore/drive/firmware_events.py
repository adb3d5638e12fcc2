"""Rare firmware events that make a drive's latency tail: error recovery, recalibration, scans.

A drive's median is mechanics; its tail is firmware. Three kinds of event are modelled, each
seeded and each with its parameters' sources (a value that is an assumed typical one says so):

**Read error recovery.** A read whose data fails the drive's on-the-fly ECC is read again on
the next revolution (a *retry*), and again, until it succeeds; a sector that still fails goes
to *deep recovery* (ECC off-line, re-reads with the head offset, different channel settings),
which takes up to seconds. Datasheets give the rates per bit read: for example the Seagate
Cheetah 10K.7 SCSI product manual (§5.0) specifies recovered data errors at "less than 10
errors in 10^12 bits transferred" and unrecovered data at "less than 1 sector in 10^15 bits"
(:data:`SEAGATE_RECOVERED_PER_BIT`, :data:`SEAGATE_UNRECOVERED_PER_BIT`): upper limits, not
measured rates. Here a read of ``b`` bits needs retries with probability
``1 - (1 - recovered_per_bit)**b``; the number of retries is geometric (each retry fails
again with probability ``retry_again``, an assumed 0.5), one revolution each, at most
``max_retries`` (assumed 8) before deep recovery. A read goes straight to deep recovery with
probability ``1 - (1 - deep_per_bit)**b``; its length is log-uniform between
``deep_ms`` (assumed 0.5 to 120 s: Western Digital's knowledge base says a desktop drive's
deep recovery "can take up to 2 minutes").

**The ERC/TLER limit.** Drives meant for arrays cap a command's recovery: Western Digital's
Time-Limited Error Recovery stops after 7 s ("the hard drive will only spend 7 seconds to
attempt to recover", WD knowledge base), Seagate's Error Recovery Control likewise; on ATA
drives it is SCT Error Recovery Control, set with ``smartctl -l scterc,70,70`` in units of
100 ms (smartmontools' smartctl(8)). ``erc_ms`` (default 7000) is that limit: recovery
stops there and the command ends with an error (the array reads the data elsewhere);
``erc_ms=None`` is a desktop drive that keeps trying.

**Thermal recalibration.** Fujitsu's MPE3xxxAT manual (C141-E077, §4.5) recalibrates "about
every 30 minutes" after power-on, and a command that arrives meanwhile waits "about maximum
100 ms" (``recal_interval_ms``, ``recal_ms``). A recalibration that falls due while a command
is being served starts when it ends. Drives of the 1990s recalibrated every few minutes
(StorageReview's reference guide), the reason "AV" drives postponed it.

**Background media scan (BMS).** Seagate's Cheetah 15K.4 product manual (§7.4): the scan
"will begin after 500ms of idle time", reads in segments of 400 blocks, checks for host
commands after each, and the first command that interrupts it sees "a typical delay of about
4 ms". Here a command that arrives after ``scan_idle_ms`` of idleness waits a time uniform on
``[0, 2 x scan_delay_ms]`` (mean 4 ms; the uniform shape is assumed).

Events are drawn from the drive's own generator (``seed``), one draw sequence per drive, so
the same workload gives the same events. With no event enabled nothing is drawn and the drive
behaves exactly as without this module. Writes are buffered or verified by the drive and are
not given errors here. :meth:`EventState.log` records every event: ``(request id, kind, ms)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SEAGATE_RECOVERED_PER_BIT", "SEAGATE_UNRECOVERED_PER_BIT", "EventState",
           "FirmwareEvents", "affected_probability"]

SEAGATE_RECOVERED_PER_BIT = 10 / 1e12  # Cheetah 10K.7 manual §5.0: < 10 errors in 10^12 bits
SEAGATE_UNRECOVERED_PER_BIT = 1 / 1e15  # < 1 sector in 10^15 bits (desktop class: 10^14)


def affected_probability(per_bit: float, sectors: int) -> float:
    """Probability that a read of ``sectors`` 512-byte sectors meets at least one error."""
    bits = 4096 * int(sectors)
    return -math.expm1(bits * math.log1p(-per_bit)) if per_bit < 1 else 1.0


@dataclass(frozen=True)
class FirmwareEvents:
    """Which events a drive has, and how often (rates per bit read; times in ms)."""

    recovered_per_bit: float = 0.0
    retry_again: float = 0.5
    max_retries: int = 8
    deep_per_bit: float = 0.0
    deep_ms: tuple[float, float] = (500.0, 120_000.0)
    erc_ms: float | None = 7000.0
    recal_interval_ms: float = 0.0
    recal_ms: float = 100.0
    scan_idle_ms: float = 0.0
    scan_delay_ms: float = 4.0
    seed: int = 0

    def __post_init__(self):
        for name in ("recovered_per_bit", "deep_per_bit"):
            v = getattr(self, name)
            if not 0.0 <= v < 1.0:
                raise ValueError(f"FirmwareEvents.{name} is a probability per bit in [0, 1), "
                                 f"got {v}")
        if not 0.0 <= self.retry_again < 1.0:
            raise ValueError(f"FirmwareEvents.retry_again must be in [0, 1), got {self.retry_again}")
        if self.max_retries < 1:
            raise ValueError(f"FirmwareEvents.max_retries must be at least 1, got {self.max_retries}")
        lo, hi = self.deep_ms
        if not 0 < lo <= hi:
            raise ValueError(f"FirmwareEvents.deep_ms must be (low, high) with 0 < low <= high, "
                             f"got {self.deep_ms}")
        if self.erc_ms is not None and self.erc_ms <= 0:
            raise ValueError(f"FirmwareEvents.erc_ms must be > 0 ms or None, got {self.erc_ms}")
        for name in ("recal_interval_ms", "recal_ms", "scan_idle_ms", "scan_delay_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"FirmwareEvents.{name} must be >= 0, got {getattr(self, name)}")

    @property
    def enabled(self) -> bool:
        return bool(self.recovered_per_bit or self.deep_per_bit or self.recal_interval_ms
                    or self.scan_idle_ms)

    def bind(self, rev_ms: float) -> EventState:
        """The per-drive state (its generator, its next recalibration, its log)."""
        return EventState(self, rev_ms)


class EventState:
    """One drive's firmware events as a run goes on (see the module doc)."""

    def __init__(self, config: FirmwareEvents, rev_ms: float):
        self.config = config
        self.rev_ms = float(rev_ms)
        self.rng = np.random.default_rng(config.seed)
        c = config
        self._next_recal = (float(self.rng.uniform(0, c.recal_interval_ms))
                            if c.recal_interval_ms > 0 else math.inf)
        self.log: list[tuple[int, str, float]] = []
        self.errors = 0  # commands ended by the ERC limit

    def delay(self, rid: int, start_ms: float, prev_finish_ms: float, media_read_sectors: int
              ) -> float:
        """Extra ms a command starting at ``start_ms`` spends on firmware events.

        ``prev_finish_ms``: when the drive finished its previous command (idle since then if
        earlier than ``start_ms``). ``media_read_sectors``: sectors the command reads from the
        media (0 for a write, a flush or a buffer hit).
        """
        c = self.config
        extra = 0.0
        if c.scan_idle_ms > 0 and start_ms - prev_finish_ms >= c.scan_idle_ms:
            d = float(self.rng.uniform(0.0, 2.0 * c.scan_delay_ms))
            self.log.append((rid, "scan", d))
            extra += d
        if self._next_recal <= start_ms:
            begin = max(self._next_recal, prev_finish_ms)
            end = begin + c.recal_ms
            wait = max(0.0, end - start_ms)
            if wait > 0:
                self.log.append((rid, "recal", wait))
            extra += wait
            while self._next_recal <= max(end, start_ms):
                self._next_recal += c.recal_interval_ms
        if media_read_sectors > 0 and (c.recovered_per_bit or c.deep_per_bit):
            extra += self._recovery(rid, media_read_sectors)
        return extra

    def _recovery(self, rid: int, sectors: int) -> float:
        c, rng = self.config, self.rng
        deep = c.deep_per_bit and rng.random() < affected_probability(c.deep_per_bit, sectors)
        ms = 0.0
        if not deep and c.recovered_per_bit and rng.random() < affected_probability(
                c.recovered_per_bit, sectors):
            retries = int(rng.geometric(1.0 - c.retry_again))
            if retries > c.max_retries:
                deep = True
                retries = c.max_retries
            ms = retries * self.rev_ms
            if not deep:
                self.log.append((rid, "retry", ms))
                return self._limit(rid, ms)
        if deep:
            lo, hi = c.deep_ms
            ms += float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            self.log.append((rid, "deep", ms))
            return self._limit(rid, ms)
        return 0.0

    def _limit(self, rid: int, ms: float) -> float:
        erc = self.config.erc_ms
        if erc is not None and ms > erc:
            self.errors += 1
            self.log.append((rid, "erc-timeout", erc))
            return erc
        return ms
