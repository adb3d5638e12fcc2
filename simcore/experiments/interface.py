"""Gray 2000, Tables 6, 7 and 9: PIO mode 4 against bus-mastering DMA on a Maxtor 92048U8.

The thesis ran Bonnie (block write, block read) and ``hdparm -t`` on a
Celeron 450 under Linux 2.2.12 with its IDE disk first in PIO mode 4, then in
"DMA multiword 3" (Ultra DMA mode 2, UDMA/33). This experiment runs the same
three programs on the simulated drive (:mod:`simcore.host_io`) under both
modes and sets the thesis's numbers beside them. The targets, with their
tolerances and sources, are :data:`TARGETS` (issue 6's tolerances: the note
gives none).

Units as the tools print them: Bonnie's "KB/sec" is KiB/s, hdparm's "MB/sec"
MiB/s. The thesis's 1024 MB Bonnie file is scaled down (the rates are steady
state after the first few MiB); hdparm reads its 64 MB in full.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..drive.interface import CELERON_450, Port, mode
from ..host.io import FileSystemCosts, bonnie_read, bonnie_write, hdparm_t
from .targets import Source, Target, between, evaluate, rel

if TYPE_CHECKING:
    from ..workloads import ClosedWorkload

NAME = "interface"
DESCRIPTION = "Gray 2000 Tables 6, 7, 9: Bonnie and hdparm under PIO mode 4 and bus-master DMA"

DISK = "maxtor92048u8"
PIO, DMA = "pio4", "udma2"

PAPER = {
    "block_read_kb_s": {"pio": 2797, "dma": 20214},
    "cpu_pct_read": {"pio": 95.40, "dma": 11.4},
    "block_write_kb_s": {"pio": 3627, "dma": 18104},
    "cpu_pct_write": {"pio": 73.86, "dma": 19.58},
    "hdparm_mb_s": {"pio": 3.48, "dma": 20.48},
    "hdparm_s": {"pio": 18.3, "dma": 3.11},
    "block_read_ratio": 20214 / 2797,
    "block_write_ratio": 18104 / 3627,
    "hdparm_ratio": 20.48 / 3.48,
    "tables": "Gray 2000, Table 6 (block write), Table 7 (block read), Table 9 (hdparm)",
}

CALIBRATED = {
    "HostCosts.io_read_us": "CPU per data-register read beyond the cable cycle (Tables 7, 9)",
    "HostCosts.io_write_us": "CPU per data-register write beyond the cable cycle (Table 6)",
    "Port.drq_write_us": "drive's turnaround between PIO write blocks (Table 6's 73.86% CPU)",
    "HostCosts.irq_us, command_us, dma_setup_us, prd_entry_us, syscall_us":
        "per-event CPU of the 2.2 kernel on a 450 MHz Celeron (DMA rows' CPU per KiB)",
    "HostCosts.memcpy_mb_s, fs_read_us_per_kib, fs_write_us_per_kib":
        "copy to/from user space and file-system CPU per KiB (DMA rows of Tables 6 and 7)",
    "drive zone table, overheads, segments": "assumed (data/disks/maxtor92048u8.toml)",
}

PHYSICS = {
    "mode cycle times": "PIO 4: 120 ns per 16-bit word; UDMA 2: 60 ns per word (33.3 MB/s)",
    "words per sector": "256 16-bit words per 512-byte sector",
    "interrupts": "PIO: one per DRQ block (one sector, multcount off); DMA: one per command",
    "drive": "7,200 RPM, 9.0 ms average seek, 1 MB buffer, 20.4 GB (Gray, Figure 16)",
    "media rate": "sectors per track x 512 B per revolution, with head and cylinder skews",
}

_ISSUE6 = ("the note gives the ratios to check (§5.7) but no tolerance; the tolerance is issue 6's, "
           "which the book has used since")
_T = Source  # short alias for the declarations below
TARGETS = (
    Target("block_read_ratio", "Bonnie block read, DMA over PIO 4 throughput", 20214 / 2797,
           rel(0.25), _T("000", "Table 7", "000_gray_dma.md", 678, "(**×7.23**)",
                         issue="issue 6: ratio 7.2 within ±25%"),
           note_bound=None, tolerance_reason=_ISSUE6),
    Target("block_write_ratio", "Bonnie block write, DMA over PIO 4 throughput", 18104 / 3627,
           rel(0.25), _T("000", "Table 6", "000_gray_dma.md", 679, "×4.99 throughput",
                         issue="issue 6: ratio 5.0 within ±25%"),
           note_bound=None, tolerance_reason=_ISSUE6),
    Target("hdparm_mb_s.pio", "hdparm -t under PIO 4", 3.48, rel(0.20),
           _T("000", "Table 9", "000_gray_dma.md", 382, "| PIO Mode 4 | 3.48 | 18.3 |",
              issue="issue 6: within ±20%"),
           note_bound=None, tolerance_reason=_ISSUE6, units="MiB/s"),
    Target("hdparm_mb_s.dma", "hdparm -t under UDMA 2 (the thesis's 'DMA multiword 3')", 20.48,
           rel(0.20), _T("000", "Table 9", "000_gray_dma.md", 383,
                         "| DMA Multiword 3 | 20.48 | 3.11 |", issue="issue 6: within ±20%"),
           note_bound=None, tolerance_reason=_ISSUE6, units="MiB/s"),
    Target("hdparm_ratio", "hdparm -t, DMA over PIO 4", 20.48 / 3.48, rel(0.25),
           _T("000", "Table 9", "000_gray_dma.md", 398, "×5.89"),
           note_bound=None, tolerance_reason=("§5.7 lists ×5.89 among the ratios to check, with "
                                              "no tolerance; ±25% as for issue 6's two ratios")),
    Target("cpu_pct_read.pio", "Bonnie block read CPU under PIO 4", 95.40, between(80, None),
           _T("000", "Table 7", "000_gray_dma.md", 368, "| PIO Mode 4 | 2797 | 95.40 |",
              issue="issue 6: at least 80%"),
           note_bound=None, tolerance_reason=_ISSUE6, units="%"),
    Target("cpu_pct_read.dma", "Bonnie block read CPU under DMA", 11.4, between(None, 20),
           _T("000", "Table 7", "000_gray_dma.md", 678, "95.40% vs 11.4%",
              issue="issue 6: at most 20%"),
           note_bound=None, tolerance_reason=_ISSUE6, units="%"),
)


def _run(port: Port, quick: bool, hog: bool = False, cache=None) -> dict:
    size = 16 if quick else 64
    hd = hdparm_t(DISK, port, cache=cache, size_mib=16 if quick else 64)
    rd = bonnie_read(DISK, port, cache=cache, file_mib=size, hog=hog)
    wr = bonnie_write(DISK, port, cache=cache, file_mib=size)
    return {"hdparm": hd, "read": rd, "write": wr}


def by_mode(quick: bool = True, names: list[str] | None = None, multcount: int = 1,
            io32: bool = False) -> dict[str, dict[str, float]]:
    """hdparm -t's rate and CPU use in every ATA mode (for the chapter's figure)."""
    names = names or ["pio0", "pio1", "pio2", "pio3", "pio4", "mwdma0", "mwdma1", "mwdma2",
                      "udma0", "udma1", "udma2", "udma4", "udma5"]
    out = {}
    for n in names:
        port = Port(mode(n), multcount=multcount, io32=io32, costs=CELERON_450)
        r = hdparm_t(DISK, port, size_mib=4 if quick else 16)
        out[n] = {"mib_s": r.mib_s, "cpu_pct": r.cpu_pct, "rate_mb_s": port.mode.rate_mb_s,
                  "pio": port.is_pio}
    return out


def reproduce(quick: bool = False, seed: int = 0) -> dict:
    """Run the thesis's three programs under PIO 4 and UDMA 2 and compare with Tables 6, 7, 9.

    The simulation is deterministic (no random choices), so ``seed`` changes nothing.
    """
    ports = {"pio": Port.of(PIO), "dma": Port.of(DMA)}
    runs = {k: _run(p, quick) for k, p in ports.items()}
    res: dict = {
        "disk": DISK,
        "modes": {"pio": PIO, "dma": DMA},
        "block_read_kb_s": {k: r["read"].kib_s for k, r in runs.items()},
        "cpu_pct_read": {k: r["read"].cpu_pct for k, r in runs.items()},
        "block_write_kb_s": {k: r["write"].kib_s for k, r in runs.items()},
        "cpu_pct_write": {k: r["write"].cpu_pct for k, r in runs.items()},
        "hdparm_mb_s": {k: r["hdparm"].mib_s for k, r in runs.items()},
        "hdparm_s": {k: 64 / r["hdparm"].mib_s for k, r in runs.items()},
        "interrupts_per_mib_read": {k: r["read"].interrupts / (r["read"].bytes / 2**20)
                                    for k, r in runs.items()},
        # what the drive's buffer did for the block read (for the chapter's account of PIO)
        "block_read_cache": {k: {c: int(r["read"].cache.get(c, 0)) for c in (
            "reads", "misses", "partial_hits", "hits", "stream_hits",
            "read_ahead_held_revolutions")} for k, r in runs.items()},
    }
    res["block_read_ratio"] = res["block_read_kb_s"]["dma"] / res["block_read_kb_s"]["pio"]
    res["block_write_ratio"] = res["block_write_kb_s"]["dma"] / res["block_write_kb_s"]["pio"]
    res["hdparm_ratio"] = res["hdparm_mb_s"]["dma"] / res["hdparm_mb_s"]["pio"]
    # What a CPU-bound bystander gets during the block read (the multi-user cost).
    size = 8 if quick else 32
    res["bystander_cpu_pct"] = {k: bonnie_read(DISK, p, file_mib=size, hog=True).hog_pct
                                for k, p in ports.items()}
    # The thesis says the write cache was off: what that would have given.
    from ..disk.profile_loader import load_disk
    from ..drive.cache import CacheConfig

    wt = CacheConfig.from_profile(load_disk(DISK), write_back=False)
    res["write_through_kb_s"] = {k: bonnie_write(DISK, p, cache=wt, file_mib=size).kib_s
                                 for k, p in ports.items()}
    res["targets"] = evaluate(TARGETS, res, quick)
    res["calibrated"] = CALIBRATED
    res["physics"] = PHYSICS
    res["file_mib"] = 16 if quick else 64
    res["file_system"] = FileSystemCosts().__dict__
    res["paper"] = PAPER
    return res


# -- helpers for the cache chapter: read-ahead against streams, segments and policies ------

def streams_workload(cap: int, k: int, per: int, kib: int, think_ms: float = 0.0) -> ClosedWorkload:
    """``k`` sequential readers spread evenly over a disk of ``cap`` sectors, each reading
    ``per`` requests of ``kib`` KiB back to back (after ``think_ms``): the cache chapter's
    streams (a ``ClosedWorkload``)."""
    from ..workloads import ClosedWorkload

    n = kib * 2

    def make(c, i, rng):
        return "R", c * (cap // k) + i * n, n

    return ClosedWorkload(k, per, make, think_ms=think_ms, name=f"{k} sequential streams")


def read_ahead_hit_rates(streams=(1, 2, 4, 8), segments=(1, 2, 4, 8, 16, 32),
                         sizes_kib=(32, 128, 512), request_kib: int = 16, per: int = 24,
                         disk: str = DISK) -> dict:
    """Hit rate of ``k`` interleaved sequential streams against segment count and size.

    Each miss reads a whole segment (``min_read_ahead`` = the segment), so a stream hits
    until its segment is reclaimed; LRU reclaims it before its next turn once the streams
    outnumber the segments (Panagiotakis 2006, Fig. 3.5; in Fig. 3.3 the same collapse
    appears as larger requests leave fewer segments in a fixed cache).
    """
    from ..disk.access import Mechanism
    from ..disk.profile_loader import load_disk
    from ..drive.cache import CacheConfig
    from ..engine import run

    mech = Mechanism(load_disk(disk))
    out: dict = {"streams": list(streams), "segments": list(segments),
                 "sizes_kib": list(sizes_kib), "hit_rate": {}, "mb_s": {}}
    for k in streams:
        wl = streams_workload(mech.layout.capacity, k, per, request_kib)
        for size in sizes_kib:
            hr, mb = [], []
            for nseg in segments:
                cfg = CacheConfig(size * nseg, nseg, read_ahead="segment",
                                  min_read_ahead_kib=max(0, size - request_kib))
                res = run(mech, wl, cache=cfg)
                hr.append(sum(r.cache_hit for r in res.records) / len(res.records))
                mb.append(res.summary()["throughput_mb_s"])
            out["hit_rate"][f"{k}/{size}"] = hr
            out["mb_s"][f"{k}/{size}"] = mb
    return out


def read_ahead_policies(disk: str = DISK, n: int = 240, seed: int = 0) -> dict:
    """Each read-ahead policy under a sequential, a local random and a mixed workload.

    The buffer is the profile's (1 MB in 4 segments) behind an ideal bus. Every workload
    is closed (a program waits for each read, then thinks), so response time is service
    time: ``sequential`` reads 16 KiB at a time with 1 ms between reads; ``random (local)``
    reads 4 KiB anywhere in a 2 MiB region, 2 ms apart; ``mixed`` runs one of each, and
    once more with the first 128 KiB of every read-ahead protected from preemption.
    """
    import numpy as np

    from ..disk.access import Mechanism
    from ..disk.profile_loader import load_disk
    from ..drive.cache import POLICIES, CacheConfig
    from ..engine import run
    from ..workloads import ClosedWorkload

    mech = Mechanism(load_disk(disk))
    region = 2 * 2048
    base = 1_000_000

    def sequential(c, i, rng):
        return "R", 200_000 + i * 32, 32

    def random_local(c, i, rng):
        return "R", base + int(rng.integers(0, region // 8)) * 8, 8

    def mixed(c, i, rng):
        return sequential(c, i, rng) if c == 0 else random_local(c, i, rng)

    mixed_wl = ClosedWorkload(2, n // 2, mixed, think_ms=2.0, seed=seed)
    loads = {
        "sequential": (ClosedWorkload(1, n, sequential, think_ms=1.0, seed=seed), 0),
        "random (local)": (ClosedWorkload(1, n, random_local, think_ms=2.0, seed=seed), 0),
        "mixed": (mixed_wl, 0),
        "mixed, protected": (mixed_wl, 128),
    }
    out: dict = {"policies": list(POLICIES), "workloads": list(loads), "hit_rate": {},
                 "mean_ms": {}, "mb_s": {}}
    for name, (wl, protect) in loads.items():
        hr, ms, mb = [], [], []
        for pol in POLICIES:
            res = run(mech, wl, cache=CacheConfig(1024, 4, read_ahead=pol,
                                                  min_read_ahead_kib=protect))
            hr.append(sum(r.cache_hit for r in res.records) / len(res.records))
            ms.append(float(np.mean([r.finish_ms - r.start_ms for r in res.records])))
            mb.append(res.summary()["throughput_mb_s"])
        out["hit_rate"][name], out["mean_ms"][name], out["mb_s"][name] = hr, ms, mb
    return out
