"""A seeded fuzzer of the drive firmware: random profiles, cache options, schedulers and
small mixed workloads, each run on both engine paths, with the invariants every run must
keep (used by ``tests/test_firmware_fuzz.py`` and ``tools/fuzz_firmware.py``).

A case is drawn from one integer seed (numpy's ``default_rng``): a bundled profile, every
:class:`~simcore.drive.cache.CacheConfig` field (some combinations the class rejects on
purpose), a scheduler, and a workload of reads, writes, FUA writes and FLUSHes, sequential
runs, rewrites and random requests of 1 sector to more than a segment, in bursts at one
instant and with idle gaps. :func:`check` runs it through ``simcore.run`` (the event-free
``Drive.serve_open`` where the drive allows it) and through SimPy's event loop, and lists
every invariant broken.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

import simcore
from simcore.drive.cache import FLUSH, POLICIES, CacheConfig, SegmentCache
from simcore.records import Request
from simcore.sched import names as scheduler_names

PROFILES = ("atlas10k", "modern7200", "ultrastar18es", "hpc2247", "hc310_4kn", "toy",
            "maxtor92048u8", "wd800jd", "atlas10k2")
SCHEDULERS = tuple(scheduler_names())
PHASES = ("queue_ms", "overhead_ms", "seek_ms", "rotation_ms", "transfer_ms",
          "interface_ms", "response_ms")
_MECHS: dict[str, simcore.Mechanism] = {}


def mechanism(name: str) -> simcore.Mechanism:
    if name not in _MECHS:
        _MECHS[name] = simcore.Mechanism(simcore.load_disk(name))
    return _MECHS[name]


@dataclass
class Case:
    seed: int
    profile: str
    overrides: dict[str, Any]
    scheduler: str
    requests: list[Request] = field(repr=False)
    interface: Any = None  # a Port (None: the drive's own ideal bus)

    def config(self) -> CacheConfig:
        return CacheConfig.from_profile(mechanism(self.profile).profile, **self.overrides)

    def describe(self) -> str:
        ops = "".join(r.op if not r.fua else "U" for r in self.requests)
        port = "" if self.interface is None else f" interface={self.interface.mode.name}" \
            f"/{self.interface.hold}/{self.interface.mode.transfer_ns:g}ns"
        return (f"seed={self.seed} profile={self.profile} scheduler={self.scheduler}{port} "
                f"overrides={self.overrides} ops={ops}")


def _draw_overrides(rng: np.random.Generator) -> dict[str, Any]:
    """Values for every CacheConfig field, each kept from the profile about a third of
    the time."""
    choices: dict[str, list] = {
        "size_kib": [4.0, 8.0, 16.0, 32.5, 64.0, 256.0, 1788.5],
        "segments": [1, 2, 3, 4, 7, 16],
        "read_ahead": list(POLICIES),
        "min_read_ahead_kib": [0.0, 0.0, 1.0, 8.0, 64.0],
        "max_read_ahead_kib": [0.0, 0.0, 2.0, 16.0, 64.0, 300.0],
        "max_segments": [1, 2, 3, 8, 64],
        "stream_window": [1, 2, 8, 64],
        "destage": ["lru", "sptf"],
        "write_fill_sectors": [0, 0, 1, 10],
        "write_fill_large_from": [0, 0, 8, 45],
        "write_fill_large_sectors": [0, 1, 15],
    }
    out: dict[str, Any] = {}
    for f in fields(CacheConfig):
        if rng.random() < 0.35:
            continue
        if f.name in choices:
            opts = choices[f.name]
            out[f.name] = opts[int(rng.integers(len(opts)))]
        else:  # every other field is a bool
            out[f.name] = bool(rng.random() < 0.5)
    return out


def _draw_requests(rng: np.random.Generator, capacity: int, seg_sectors: int,
                   align: int = 1) -> list[Request]:
    """``align``: the drive's logical block in sectors (8 on a 4Kn drive): every LBA and
    length a multiple of it."""
    n = int(rng.integers(4, 48))
    big = min(4000, max(2, seg_sectors * 2 + 3))
    t, last_lba, last_n = 0.0, int(rng.integers(0, max(1, capacity // 2))), 1
    hot = [int(rng.integers(0, max(1, capacity - 1))) for _ in range(3)]
    rate = float(rng.choice([0.02, 0.3, 2.0, 10.0]))  # mean gap (ms)
    reqs = []
    for i in range(n):
        u = rng.random()
        if u < 0.3:
            pass  # a burst: the same instant as the one before
        elif u < 0.9:
            t += float(rng.exponential(rate))
        else:
            t += float(rng.uniform(20.0, 80.0))  # an idle gap: background work runs
        u = rng.random()
        if u < 0.08:
            reqs.append(Request(i, t, FLUSH, 0, 1))
            continue
        k = int(rng.choice([1, 1, 2, 8, 16, 64, max(1, seg_sectors), big,
                            int(rng.integers(1, big + 1))]))
        # (at most 4096 sectors: a write far larger than a segment is fed burst by burst
        # as the media makes room, about a second for 32 MiB; see write_feed.feed_write)
        k = max(1, min(k, capacity, 4096))
        v = rng.random()
        if v < 0.4:
            lba = last_lba + last_n  # sequential
        elif v < 0.55:
            lba = last_lba + int(rng.integers(-last_n, last_n + 1))  # overlaps the last one
        elif v < 0.7:
            lba = hot[int(rng.integers(3))] + int(rng.integers(0, 16))  # rewrites, rereads
        else:
            lba = int(rng.integers(0, capacity))
        lba = max(0, min(lba, capacity - k))
        if align > 1:
            k = max(align, k - k % align)
            lba = min(lba - lba % align, capacity - k)
        op = "W" if rng.random() < 0.5 else "R"
        fua = op == "W" and rng.random() < 0.15
        reqs.append(Request(i, t, op, lba, k, 0, fua))
        last_lba, last_n = lba, k
    return reqs


def _draw_port(rng: np.random.Generator):
    """The drive's own ideal bus most of the time; else an ideal one of another speed
    (slower than the media too), or a real mode (PIO, DMA, SCSI; only SimPy's loop)."""
    from simcore.drive.interface import MODES, Port

    u = rng.random()
    if u < 0.6:
        return None
    if u < 0.8:
        return Port.ideal(float(rng.choice([2.0, 16.0, 100.0, 3000.0])))
    names = sorted(MODES)
    return Port.of(names[int(rng.integers(len(names)))],
                   multcount=int(rng.choice([1, 8, 16])),
                   hold=str(rng.choice(["command", "transfer"])))


def draw(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    profile = PROFILES[int(rng.integers(len(PROFILES)))]
    overrides = _draw_overrides(rng)
    scheduler = SCHEDULERS[int(rng.integers(len(SCHEDULERS)))]
    port = _draw_port(rng)
    mech = mechanism(profile)
    try:
        seg = CacheConfig.from_profile(mech.profile, **overrides).segment_sectors
    except ValueError:
        seg = 64
    align = mech.profile.logical_sector_bytes // 512
    reqs = _draw_requests(rng, mech.layout.capacity, seg, align)
    return Case(seed, profile, overrides, scheduler, reqs, port)


class Ledger:
    """Which acknowledged sectors are not on the platter yet (as ``_MediaLedger`` in
    ``tests/test_durability.py``), and the most segments any cache held, kept by patching
    :class:`SegmentCache` for the ``with`` block."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.owed: set[int] = set()
        self.owed_at_flush: list[int] = []
        self.segment_excess: list[str] = []
        # which write's data each sector holds: the last acknowledged, the platter's, and
        # each segment's (by id), so that an older copy landing last is seen
        self.version = 0
        self.latest: dict[int, int] = {}
        self.platter: dict[int, int] = {}
        self.held: dict[int, dict[int, int]] = {}

    def stale(self) -> list[int]:
        """Sectors whose platter copy is not the last acknowledged write's."""
        return sorted(k for k, v in self.latest.items() if self.platter.get(k) != v)

    @contextlib.contextmanager
    def patched(self):
        write, destaged_to, flush, allocate = (SegmentCache.write, SegmentCache._destaged_to,
                                               SegmentCache.flush, SegmentCache._allocate)
        ledger = self

        def _write(cache, lba, sectors, *a, **kw):
            svc = write(cache, lba, sectors, *a, **kw)
            span = range(lba, lba + sectors)
            ledger.version += 1
            mine = dict.fromkeys(span, ledger.version)
            ledger.latest.update(mine)
            if svc.media_end_ms is None:
                ledger.owed.update(span)
                seg = next(g for g in cache.segments if g.dirty and g.end == lba + sectors
                           and g.last_used == cache._tick)
                ledger.held.setdefault(id(seg), {}).update(mine)
            else:
                ledger.owed.difference_update(span)
                ledger.platter.update(mine)
            return svc

        def _destaged(cache, seg, lba):
            if seg.dirty:
                span = range(seg.dirty_from, min(lba, seg.end))
                ledger.owed.difference_update(span)
                held = ledger.held.get(id(seg), {})
                ledger.platter.update((k, held.get(k, -1)) for k in span)
            destaged_to(cache, seg, lba)

        def _flush(cache, now, head):
            end = flush(cache, now, head)
            ledger.owed_at_flush.append(len(ledger.owed))
            return end

        def _allocate(cache, *a, **kw):
            seg = allocate(cache, *a, **kw)
            c = cache.config
            limit = c.max_segments if c.adaptive else c.segments
            if len(cache.segments) > limit:
                ledger.segment_excess.append(f"{len(cache.segments)} segments > {limit}")
            return seg

        SegmentCache.write, SegmentCache._destaged_to = _write, _destaged
        SegmentCache.flush, SegmentCache._allocate = _flush, _allocate
        try:
            yield self
        finally:
            SegmentCache.write, SegmentCache._destaged_to = write, destaged_to
            SegmentCache.flush, SegmentCache._allocate = flush, allocate


def _check_records(records, requests, tag: str) -> list[str]:
    bad = []
    ids = [r.id for r in records]
    if sorted(ids) != [r.id for r in requests]:
        missing = {r.id for r in requests} - set(ids)
        dup = {i for i in ids if ids.count(i) > 1}
        bad.append(f"{tag}: completions wrong (missing {sorted(missing)[:5]}, "
                   f"twice {sorted(dup)[:5]})")
    prev = None
    for rec in records:
        if not rec.finish_ms >= rec.arrival_ms or not rec.start_ms >= rec.arrival_ms:
            bad.append(f"{tag}: request {rec.id} ends before it arrives or starts")
        if prev is not None and not rec.start_ms >= prev.finish_ms:
            bad.append(f"{tag}: request {rec.id} starts before request {prev.id} ends")
        prev = rec
        parts = sum(getattr(rec, p) for p in PHASES[:-1])
        if abs(parts - rec.response_ms) > 1e-6:
            bad.append(f"{tag}: request {rec.id}'s phases sum to {parts - rec.response_ms:+g} "
                       f"ms past its response: {rec}")
        neg = [p for p in PHASES if not getattr(rec, p) >= 0.0]
        if neg:
            bad.append(f"{tag}: request {rec.id} has negative {', '.join(neg)}: {rec}")
    return bad


def _one_run(case: Case, cfg: CacheConfig, path: str, ledger: Ledger):
    from simcore.engine import _feed_open, start
    from simcore.stack import stack
    from simcore.workloads import OpenWorkload

    stk = stack(mechanism(case.profile), scheduler=case.scheduler, cache=cfg,
                interface=case.interface)
    wl = OpenWorkload(case.requests)
    if path == "run":
        res = simcore.run(stk, wl)
        return res.meta["built"].drives[0], list(res.records)
    built = start(stk)
    built.env.process(_feed_open(built.env, built.top, wl.requests))
    built.env.run()
    return built.drives[0], list(built.completed)


def check(case: Case) -> list[str]:
    """Every invariant ``case`` breaks (empty when it keeps them all)."""
    try:
        cfg = case.config()
    except ValueError as e:  # a combination rejected on purpose must say which option
        return [] if "CacheConfig" in str(e) else [f"ValueError without the option: {e}"]
    problems: list[str] = []
    results = {}
    ledger = Ledger()
    for path in ("run", "event loop"):
        ledger.reset()
        with ledger.patched():
            try:
                drive, records = _one_run(case, cfg, path, ledger)
            except Exception as e:  # (any crash is a finding)
                problems.append(f"{path}: {type(e).__name__}: {e}")
                continue
        results[path] = (drive, records)
        problems += _check_records(records, case.requests, path)
        if any(ledger.owed_at_flush):
            problems.append(f"{path}: a FLUSH returned owing sectors "
                            f"({max(ledger.owed_at_flush)})")
        dirty = drive.cache.dirty_sectors()
        if dirty or ledger.owed:
            problems.append(f"{path}: ends with {dirty} dirty sectors, "
                            f"{len(ledger.owed)} acknowledged sectors never written")
        problems += [f"{path}: {m}" for m in sorted(set(ledger.segment_excess))]
        stale = ledger.stale()
        if stale and not dirty:
            problems.append(f"{path}: {len(stale)} sectors hold an older write's data on "
                            f"the platter (from LBA {stale[0]})")
    if len(results) == 2:
        (_, a), (_, b) = results["run"], results["event loop"]
        if a != b:
            diff = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                        min(len(a), len(b)))
            problems.append(f"the two paths differ from record {diff}: "
                            f"{a[diff] if diff < len(a) else None} vs "
                            f"{b[diff] if diff < len(b) else None}")
        sa, sb = results["run"][0].cache.stats, results["event loop"][0].cache.stats
        if sa != sb:
            keys = sorted(k for k in set(sa) | set(sb) if sa[k] != sb[k])
            problems.append(f"the two paths' cache stats differ: "
                            f"{ {k: (sa[k], sb[k]) for k in keys} }")
    return problems
