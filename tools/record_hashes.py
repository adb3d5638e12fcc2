"""Hash every record of many deterministic runs: a bit-for-bit check for speed work.

A change meant to make the simulator faster and change nothing else must leave this
tool's output identical: run it before the change, save the output, run it after and
``diff`` the two. Each case prints its name and a BLAKE2b hash of every field of every
completed record, in completion order (floats as ``float.hex``, so the last bit counts),
plus what the drive's cache counted where the run had one; the last line is a hash of
all the case lines.

The cases cover what the firmware path can take: every bundled profile with its firmware
and on the bare mechanism; every read-ahead policy and the knobs that change how a
read-ahead runs or stops (minimum and maximum, not preemptible, refill, read any free,
read-ahead over the request, crossing boundaries, stopping in a sector, ...); write-back
and write-through writes and mixes; sequential, random, open and closed workloads on
several schedulers; both engine paths (``Drive.serve_open`` and SimPy's event loop); the
five DiskSim validation drives replayed as ``simcore validate`` does; sequential readers
(:mod:`simcore.multistream`); the 4Kn and shingled drives; and seeded random cache
configurations with random mixed workloads.

    PYTHONPATH=$PWD python tools/record_hashes.py [--quick] [--only SUBSTRING]

``--quick`` runs fewer requests per case and a part of each validation trace (well under
two minutes on one core).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simcore.disk.access import Mechanism  # noqa: E402
from simcore.disk.profile_loader import load_disk  # noqa: E402
from simcore.drive.cache import FLUSH, POLICIES, CacheConfig  # noqa: E402
from simcore.engine import replay_validation, run  # noqa: E402
from simcore.records import Request  # noqa: E402
from simcore.stack import stack  # noqa: E402
from simcore.workloads import (  # noqa: E402
    OpenWorkload,
    random_closed,
    random_open,
    sequential_open,
)

Case = tuple[str, Callable[[], Any]]
_MECHS: dict[str, Mechanism] = {}


def mech(disk: str) -> Mechanism:
    """One mechanism per bundled disk, made once (building a layout takes a while)."""
    if disk not in _MECHS:
        _MECHS[disk] = Mechanism(load_disk(disk))
    return _MECHS[disk]


def _value_bytes(v: Any) -> bytes:
    """A field as bytes that tell every value apart (floats by their exact bits)."""
    if isinstance(v, bool | np.bool_):
        return b"T" if v else b"F"
    if isinstance(v, float | np.floating):
        return float(v).hex().encode()
    if isinstance(v, int | np.integer):
        return b"i" + str(int(v)).encode()
    return repr(v).encode()


def digest(records: Any, extra: Any = None) -> str:
    """The hash of ``records`` (each a NamedTuple) field by field, then ``extra`` (a dict of
    counters, hashed in key order)."""
    h = hashlib.blake2b(digest_size=16)
    n = 0
    for rec in records:
        n += 1
        for v in rec:
            h.update(_value_bytes(v))
            h.update(b"|")
        h.update(b"\n")
    if extra:
        for k in sorted(extra):
            h.update(k.encode() + b"=" + _value_bytes(extra[k]) + b";")
    return f"{n:6d} {h.hexdigest()}"


def _cache_counts(res: Any) -> dict | None:
    built = res.meta.get("built")
    drives = getattr(built, "drives", None) or []
    cache = getattr(drives[0], "cache", None) if drives else None
    stats = getattr(cache, "stats", None)
    return {k: v for k, v in dict(stats).items() if isinstance(v, int | float)} if stats else None


def run_case(stk_or_disk: Any, workload: Any, scheduler: Any = None, *, loop: bool = False,
             **kw: Any) -> str:
    """Run and hash. ``loop``: make the engine take SimPy's event loop (an end time far away
    keeps it off ``Drive.serve_open``)."""
    res = run(stk_or_disk, workload, scheduler, until_ms=1e15 if loop else None, **kw)
    return digest(res.records, _cache_counts(res))


def _mixed(capacity: int, n: int, seed: int, align: int = 1, write_share: float = 0.4,
           seq_share: float = 0.4, sizes=(1, 8, 16, 64, 128, 512)) -> OpenWorkload:
    """Reads and writes, some sequential, some random, some re-reads, with bursts and gaps."""
    rng = np.random.default_rng(seed)
    t, last, last_n = 0.0, int(rng.integers(0, capacity // 2)), 8
    reqs = []
    for i in range(n):
        u = rng.random()
        t += 0.0 if u < 0.2 else (float(rng.exponential(3.0)) if u < 0.9
                                  else float(rng.uniform(15.0, 60.0)))
        k = min(int(sizes[int(rng.integers(len(sizes)))]), max(1, capacity // 4))
        v = rng.random()
        if v < seq_share:
            lba = last + last_n
        elif v < seq_share + 0.1:
            lba = last + int(rng.integers(-last_n, last_n + 1))
        else:
            lba = int(rng.integers(0, capacity))
        k = max(align, k - k % align)
        lba = max(0, min(lba - lba % align, capacity - k))
        op = "W" if rng.random() < write_share else "R"
        reqs.append(Request(i, t, op, lba, k))
        last, last_n = lba, k
    return OpenWorkload(reqs, name=f"mixed {seed}")


def _random_overrides(rng: np.random.Generator) -> dict[str, Any]:
    """A random value for about two thirds of CacheConfig's fields."""
    choices: dict[str, list] = {
        "size_kib": [8.0, 32.5, 64.0, 256.0, 1024.0],
        "segments": [1, 2, 3, 4, 8],
        "read_ahead": list(POLICIES),
        "min_read_ahead_kib": [0.0, 0.0, 1.0, 8.0],
        "max_read_ahead_kib": [0.0, 0.0, 4.0, 16.0, 128.0],
        "max_segments": [2, 8, 64],
        "stream_window": [1, 8, 64],
        "destage": ["lru", "sptf"],
        "write_fill_sectors": [0, 0, 1, 10],
        "write_fill_large_from": [0, 0, 8],
        "write_fill_large_sectors": [0, 1, 15],
    }
    out: dict[str, Any] = {}
    for f in fields(CacheConfig):
        if rng.random() < 0.33:
            continue
        if f.name in choices:
            opts = choices[f.name]
            out[f.name] = opts[int(rng.integers(len(opts)))]
        else:
            out[f.name] = bool(rng.random() < 0.5)
    return out


def _random_case(seed: int, n: int) -> str:
    rng = np.random.default_rng(10_000 + seed)
    disks = ("atlas10k", "modern7200", "ultrastar18es", "hpc2247", "hc310_4kn", "wd800jd",
             "maxtor92048u8", "atlas10k2", "cheetahx15", "toy")
    disk = disks[int(rng.integers(len(disks)))]
    m = mech(disk)
    sched = ("fcfs", "sstf", "sptf", "clook", "aged-sptf")[int(rng.integers(5))]
    try:
        cfg = CacheConfig.from_profile(m.profile, **_random_overrides(rng))
    except ValueError as e:  # a combination the class rejects: hash the refusal
        return "rejected " + hashlib.blake2b(str(e).encode(), digest_size=8).hexdigest()
    align = m.profile.logical_sector_bytes // 512
    wl = _mixed(m.layout.capacity, n, 20_000 + seed, align,
                write_share=float(rng.choice([0.0, 0.3, 0.7])),
                seq_share=float(rng.choice([0.1, 0.5, 0.8])))
    loop = bool(rng.random() < 0.3)
    return f"{disk} {sched} loop={loop} " + run_case(
        stack(m, scheduler=sched, cache=cfg), wl, loop=loop)


def _room(m: Mechanism) -> int:
    """The LBAs a case may use: all of them, but a shingled drive's host LBAs (drive-managed:
    the media cache is not the host's) or conventional zones (host-managed: random writes
    need them)."""
    cap = m.layout.capacity
    smr = m.profile.smr
    if smr is None:
        return cap
    if smr.kind == "host-managed":
        return int(smr.conventional_zones * smr.zone_mib * 2048)
    return cap - int(smr.media_cache_mib * 2048)


def profile_cases(n: int) -> Iterator[Case]:
    """Every bundled profile, firmware on and off: random and sequential reads and a mix."""
    for d in sorted(p.stem for p in (ROOT / "data" / "disks").glob("*.toml")):
        m = mech(d)
        cap = _room(m)
        align = m.profile.logical_sector_bytes // 512
        size = 4.0 * align if align > 1 else 4.0
        rnd = random_open(cap, n, rate_per_s=60.0, size_kib=size, seed=1)
        seq_kib = max(size, 16.0)
        seq = sequential_open(0, min(n // 2, int(cap // (seq_kib * 2))), size_kib=seq_kib,
                              gap_ms=0.4)
        mix = _mixed(cap, n, 3, align)
        for fw in (True, False):
            yield f"profile {d} firmware={fw} random-reads", \
                (lambda m=m, w=rnd, fw=fw: run_case(m, w, firmware=fw))
            yield f"profile {d} firmware={fw} sequential-reads", \
                (lambda m=m, w=seq, fw=fw: run_case(m, w, firmware=fw))
            yield f"profile {d} firmware={fw} mixed", \
                (lambda m=m, w=mix, fw=fw: run_case(m, w, firmware=fw))
        if m.profile.smr is not None:
            # host-managed: from the first zone that takes writes only at its write pointer
            first = cap if m.profile.smr.kind == "host-managed" else 0
            sw = sequential_open(first, n // 2, 64.0, gap_ms=0.2, op="W")
            yield f"profile {d} shingled sequential-writes", \
                (lambda m=m, w=sw: run_case(m, w))


#: the knobs that change how a read-ahead runs or stops, one case each
KNOBS: list[dict[str, Any]] = [
    {}, {"min_read_ahead_kib": 16.0}, {"max_read_ahead_kib": 24.0},
    {"min_read_ahead_kib": 8.0, "max_read_ahead_kib": 64.0}, {"preemptible": False},
    {"refill": True}, {"read_any_free": True}, {"read_ahead_over_requested": True},
    {"cross_boundaries": False}, {"stop_in_sector": False},
    {"stop_adds_to_overhead": True}, {"stop_read_ahead_unless_hit": True},
    {"read_ahead_on_hit": True}, {"adaptive": True}, {"segments": 1},
    {"read_ahead_over_requested": True, "read_any_free": True, "stop_in_sector": False,
     "stop_adds_to_overhead": True, "min_read_ahead_kib": 2.0},
]


def read_ahead_cases(n: int) -> Iterator[Case]:
    """Every read-ahead policy with every knob of :data:`KNOBS`, random reads and a mix."""
    for d in ("atlas10k", "modern7200", "hc310_4kn"):
        m = mech(d)
        cap = m.layout.capacity
        align = m.profile.logical_sector_bytes // 512
        rnd = random_open(cap, n, rate_per_s=70.0, size_kib=4.0 * align, seed=5)
        mix = _mixed(cap, n, 7, align, write_share=0.25, seq_share=0.6)
        for pol in POLICIES:
            for k in KNOBS:
                if d != "atlas10k" and len(k) > 1:
                    continue
                try:
                    cfg = CacheConfig.from_profile(m.profile, read_ahead=pol, **k)
                except ValueError:
                    continue
                tag = ",".join(f"{a}={b}" for a, b in k.items()) or "default"
                stk = stack(m, cache=cfg)
                yield f"read-ahead {d} {pol} {tag} random", \
                    (lambda s=stk, w=rnd: run_case(s, w))
                yield f"read-ahead {d} {pol} {tag} mixed", \
                    (lambda s=stk, w=mix: run_case(s, w))
            yield f"read-ahead {d} {pol} mixed event-loop", \
                (lambda m=m, w=mix, p=pol: run_case(
                    stack(m, cache=CacheConfig.from_profile(m.profile, read_ahead=p)), w,
                    loop=True))


def write_cases(n: int) -> Iterator[Case]:
    """Write-back (fast write) and write-through, both destage orders, writes and mixes;
    FLUSH and FUA among them."""
    for d in ("atlas10k", "modern7200", "ultrastar18es"):
        m = mech(d)
        cap = m.layout.capacity
        wr = random_open(cap, n, rate_per_s=80.0, size_kib=8.0, read_fraction=0.0, seed=11)
        rw = random_open(cap, n, rate_per_s=80.0, size_kib=8.0, read_fraction=0.6, seed=12)
        sw = sequential_open(1000, n // 2, 32.0, gap_ms=0.3, op="W")
        for wb in (True, False):
            for destage in ("lru", "sptf"):
                cfg = CacheConfig.from_profile(m.profile, write_back=wb, destage=destage)
                stk = stack(m, cache=cfg)
                for name, w in (("random-writes", wr), ("random-mix", rw),
                                ("sequential-writes", sw)):
                    yield f"writes {d} write_back={wb} destage={destage} {name}", \
                        (lambda s=stk, w=w: run_case(s, w))

    def flushes() -> str:
        m = mech("modern7200")
        rng = np.random.default_rng(4)
        reqs, t = [], 0.0
        for i in range(n):
            t += float(rng.exponential(2.0))
            u = rng.random()
            if u < 0.05:
                reqs.append(Request(i, t, FLUSH, 0, 1))
            else:
                lba = int(rng.integers(0, m.layout.capacity - 64))
                reqs.append(Request(i, t, "W" if u < 0.6 else "R", lba, 16, 0, u < 0.15))
        cfg = CacheConfig.from_profile(m.profile, write_back=True)
        return run_case(stack(m, cache=cfg), OpenWorkload(reqs))

    yield "flush-fua modern7200", flushes


def scheduler_cases(n: int) -> Iterator[Case]:
    """Closed workloads on several schedulers, firmware on and off; overloaded open ones on
    both engine paths; the bench's scenarios 2 and 3 (fewer requests)."""
    for d in ("atlas10k", "modern7200"):
        m = mech(d)
        cap = m.layout.capacity
        for sched in ("fcfs", "sstf", "sptf", "sptf-q32", "clook", "look", "aged-sptf",
                      "gstf"):
            cl = random_closed(cap, 8, max(2, n // 16), size_kib=4.0, read_fraction=0.7,
                               seed=3)
            for fw in (True, False):
                yield f"closed {d} {sched} firmware={fw}", \
                    (lambda m=m, w=cl, s=sched, fw=fw: run_case(m, w, s, firmware=fw))
        for sched in ("fcfs", "sptf", "clook"):
            w = random_open(cap, n, rate_per_s=150.0, size_kib=4.0, seed=8)
            yield f"open-overloaded {d} {sched}", \
                (lambda m=m, w=w, s=sched: run_case(m, w, s))
            yield f"open-overloaded {d} {sched} event-loop", \
                (lambda m=m, w=w, s=sched: run_case(m, w, s, loop=True))
    a = mech("atlas10k")
    b = random_open(a.layout.capacity, 4 * n, rate_per_s=70.0, size_kib=4, seed=1)
    no_ra = CacheConfig.from_profile(a.profile, read_ahead="none")
    yield "bench scenario 2", (lambda: run_case(stack(a, scheduler="fcfs"), b))
    yield "bench scenario 3", (lambda: run_case(stack(a, scheduler="fcfs", cache=no_ra), b))
    yield "bench scenario 2 event-loop", \
        (lambda: run_case(stack(a, scheduler="fcfs"), b, loop=True))


def validation_cases(quick: bool) -> Iterator[Case]:
    """The five DiskSim validation drives, replayed as ``simcore validate`` does (quick: the
    first 3,000 requests of each trace)."""
    from simcore.disksim.importer import load_any
    from simcore.experiments.validation import DISKSIM, model_path, trace_path
    from simcore.workloads.traces.disksim import read_validation

    def replay(drive: str) -> str:
        prof = load_any(str(model_path(drive)), [])
        wl = read_validation(trace_path(drive))
        if quick:
            wl = replace(wl, steps=wl.steps[:3000], meta={})
        rep = replay_validation(prof, wl, keep_records=True)
        extra = {k: v for k, v in rep.items() if isinstance(v, float | int)}
        extra.update({f"lost_{k}": v for k, v in rep["lost_revolutions"].items()})
        return digest(rep["records"], extra)

    for drive in DISKSIM:
        yield f"validation {drive}", (lambda d=drive: replay(d))


def multistream_cases(quick: bool) -> Iterator[Case]:
    """Sequential readers on one drive (:func:`simcore.multistream.run_streams`)."""
    from simcore.multistream import run_streams

    def one(streams: int, kib: int, disk: str) -> str:
        r = run_streams(disk, streams=streams, request_kib=kib,
                        duration_ms=1000.0 if quick else 3000.0, warmup_ms=50.0, seed=2,
                        trace=True)
        extra = {k: v for k, v in r.summary().items() if isinstance(v, float | int)}
        extra.update({f"cache_{k}": v for k, v in r.drive_cache.items()
                      if isinstance(v, float | int)})
        return digest(r.disk_log, extra)

    for streams, kib, disk in ((4, 64, "wd800jd"), (16, 16, "wd800jd"), (8, 128, "atlas10k")):
        yield f"multistream {disk} {streams}x{kib}KiB", \
            (lambda s=streams, k=kib, d=disk: one(s, k, d))


def cases(quick: bool) -> Iterator[Case]:
    n = 600 if quick else 2000
    yield from profile_cases(n)
    yield from read_ahead_cases(n)
    yield from write_cases(n)
    yield from scheduler_cases(n)
    yield from validation_cases(quick)
    yield from multistream_cases(quick)
    for seed in range(40 if quick else 150):  # seeded random cache configurations
        yield f"random-config {seed:03d}", (lambda s=seed: _random_case(s, n // 3))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer requests, shorter traces")
    ap.add_argument("--only", default="", help="run only the cases whose name holds this")
    args = ap.parse_args(argv)
    total = hashlib.blake2b(digest_size=16)
    count = 0
    for name, fn in cases(args.quick):
        if args.only not in name:
            continue
        try:
            out = fn()
        except Exception as e:  # an error is a result too: its type and message
            out = f"error {type(e).__name__}: {e}"
        line = f"{name}: {out}"
        print(line, flush=True)
        total.update(line.encode() + b"\n")
        count += 1
    print(f"TOTAL {count} cases {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
