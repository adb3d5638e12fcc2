"""The remapping layer: a logical -> physical block map between a workload and the drive.

One trace, any layout. Every reorganization interval (seed 003 §3.5: 15
minutes) a policy looks at the previous window's reference stream and returns
a :class:`Plan`; the next window's requests are rewritten through it before
they reach the drive, exactly as seed 003 §3.5 rewrote its DiskSim traces, and
the data that had to move is accounted for.

- **Home.** Where a unit lives when nothing relocated it. :class:`Identity`
  overlays relocated copies on the disk's own address space (seed 003's trace
  rewriting: zone slots are assumed free). :class:`HiddenAreas` hides reserved
  areas from the logical space, as adaptive block rearrangement's driver does
  ("the disk will appear smaller than it actually is", seed 000 §4.5).
- **Plans.** :class:`BlockMap` sends a sparse set of units to new places
  (copies: the home copy stays valid, seed 000 §4.4 "copy beats move");
  :class:`BandPermutation` permutes whole bands (cylinder shuffling moves data).
- **Splitting.** A request whose units are no longer contiguous becomes several
  physical requests at the same arrival time (note 003 §3.0 [G]: split, and
  count the extra I/Os); its response time is that of its last piece.
- **Migration.** Between two plans, units that must be copied (read the old
  place, write the new), dirty copies that are dropped (written back home) and
  bands that move are coalesced into I/Os of at most ``max_io_sectors``. The
  seed does not charge them (``migration="count"`` reports them); with
  ``migration="simulate"`` they are issued at the window boundary and compete
  with the foreground requests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Protocol

import numpy as np

from ..records import READ, WRITE, Completed, Request
from .refs import References, request_arrays, unit_references

MIGRATION_CLIENT = 1 << 30
"""``client`` of the background copy I/Os the layer adds (they are not foreground)."""


# -- where units live when nothing moved them ---------------------------------------------
class Identity:
    """Logical unit u is physical unit u."""

    reserved_units = 0

    def physical(self, units: np.ndarray) -> np.ndarray:
        return units

    def logical_capacity(self, capacity_units: int) -> int:
        return capacity_units


class HiddenAreas:
    """Reserved areas (physical unit ranges) hidden from the logical address space.

    Logical units fill the disk in order, skipping every reserved area, so the
    logical capacity is the physical one minus the reserved units.
    """

    def __init__(self, areas: Sequence[tuple[int, int]]):
        spans = sorted((int(s), int(n)) for s, n in areas if n > 0)
        for (s0, n0), (s1, _) in pairwise(spans):
            if s0 + n0 > s1:
                raise ValueError(f"reserved areas overlap: [{s0}, {s0 + n0}) and one at {s1}")
        self.areas = spans
        sizes = np.array([n for _, n in spans], dtype=np.int64)
        self._cum = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._logical_starts = np.array([s for s, _ in spans], dtype=np.int64) - self._cum[:-1]
        self.reserved_units = int(sizes.sum())

    def physical(self, units: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self._logical_starts, units, side="right")
        return units + self._cum[k]

    def logical_capacity(self, capacity_units: int) -> int:
        return capacity_units - self.reserved_units


Home = Identity | HiddenAreas


# -- plans -------------------------------------------------------------------------------
class Plan(Protocol):
    """A layout for one window: a vectorized map of logical units to physical units."""

    home: Home

    def physical(self, units: np.ndarray) -> np.ndarray: ...


@dataclass
class BlockMap:
    """A sparse set of relocated units (``src`` logical -> ``dst`` physical); the rest at home."""

    src: np.ndarray
    dst: np.ndarray
    home: Home = field(default_factory=Identity)
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        src = np.asarray(self.src, dtype=np.int64)
        dst = np.asarray(self.dst, dtype=np.int64)
        if src.shape != dst.shape:
            raise ValueError("src and dst must have the same length")
        order = np.argsort(src, kind="stable")
        self.src, self.dst = src[order], dst[order]
        if len(self.src) > 1 and np.any(np.diff(self.src) == 0):
            raise ValueError("a unit is relocated twice in one plan")
        if len(self.dst) > 1 and len(np.unique(self.dst)) != len(self.dst):
            raise ValueError("two units are relocated to the same physical unit")

    @classmethod
    def from_pairs(cls, pairs: dict[int, int], home: Home | None = None, **info) -> BlockMap:
        src = np.fromiter(pairs.keys(), np.int64, len(pairs))
        dst = np.fromiter(pairs.values(), np.int64, len(pairs))
        return cls(src, dst, home or Identity(), dict(info))

    def __len__(self) -> int:
        return len(self.src)

    def lookup(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(physical units, mask of units that are relocated)."""
        units = np.asarray(units, dtype=np.int64)
        if len(self.src) == 0:
            return self.home.physical(units), np.zeros(len(units), bool)
        idx = np.searchsorted(self.src, units)
        idx_c = np.minimum(idx, len(self.src) - 1)
        hit = self.src[idx_c] == units
        return np.where(hit, self.dst[idx_c], self.home.physical(units)), hit

    def physical(self, units: np.ndarray) -> np.ndarray:
        return self.lookup(units)[0]


@dataclass
class BandPermutation:
    """Whole bands of ``band_units`` units permuted: band b lives at band ``perm[b]``.

    Cylinder shuffling (seed 000 §4.2) permutes cylinders; on a zoned disk
    cylinders differ in size, so bands of equal size stand in for them.
    Units past the last whole band stay where they are.
    """

    perm: np.ndarray
    band_units: int
    home: Home = field(default_factory=Identity)
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        self.perm = np.asarray(self.perm, dtype=np.int64)
        if sorted(self.perm.tolist()) != list(range(len(self.perm))):
            raise ValueError("perm must be a permutation of 0..bands-1")

    def physical(self, units: np.ndarray) -> np.ndarray:
        units = np.asarray(units, dtype=np.int64)
        b = units // self.band_units
        inside = b < len(self.perm)
        out = units.copy()
        out[inside] = self.perm[b[inside]] * self.band_units + units[inside] % self.band_units
        return self.home.physical(out)


def identity_plan(home: Home | None = None) -> BlockMap:
    """The original layout (nothing relocated)."""
    return BlockMap(np.zeros(0, np.int64), np.zeros(0, np.int64), home or Identity())


# -- policies ------------------------------------------------------------------------------
class PlanContext:
    """What a policy may know when it plans the next window."""

    def __init__(self, capacity_units: int, unit_sectors: int, window: int,
                 previous: Plan, home: Home, logical_units: int):
        self.capacity_units = capacity_units
        self.unit_sectors = unit_sectors
        self.window = window
        self.previous = previous
        self.home = home
        self.logical_units = logical_units


PolicyFn = Callable[[References, PlanContext], Plan]


class Policy(Protocol):
    """A placement policy: from the last window's references, the next window's plan."""

    name: str

    def plan(self, refs: References, ctx: PlanContext) -> Plan: ...


# -- rewriting -----------------------------------------------------------------------------
@dataclass
class WindowStats:
    """What happened in one window."""

    window: int
    start_ms: float
    requests: int
    physical_requests: int
    relocated_units: int
    hit_fraction: float  # references served from a relocated place
    migrated_sectors: int  # read + written at the boundary before this window
    migration_ios: int
    written_back_units: int


@dataclass
class Placed:
    """A workload rewritten under a placement policy, ready for ``simcore.run``."""

    workload: Any  # an OpenWorkload of physical requests
    parent: np.ndarray  # per physical request: index of its logical request, -1 for migration
    logical: Any  # the OpenWorkload that was rewritten
    windows: list[WindowStats]
    policy: str
    unit_sectors: int
    interval_ms: float
    migration: str

    @property
    def split_requests(self) -> int:
        """Extra physical I/Os caused by splitting requests."""
        fg = self.parent[self.parent >= 0]
        return int(len(fg) - len(np.unique(fg)))

    def summary(self) -> dict[str, Any]:
        w = self.windows
        return {
            "policy": self.policy,
            "windows": len(w),
            "requests": len(self.logical.requests),
            "physical_requests": int(np.sum(self.parent >= 0)),
            "split_requests": self.split_requests,
            "migration_ios": int(sum(x.migration_ios for x in w)),
            "migrated_sectors": int(sum(x.migrated_sectors for x in w)),
            "mean_relocated_units": float(np.mean([x.relocated_units for x in w[1:]]))
            if len(w) > 1 else 0.0,
            "hit_fraction": float(np.average([x.hit_fraction for x in w[1:]],
                                             weights=[max(x.requests, 1) for x in w[1:]]))
            if len(w) > 1 else 0.0,
        }


def rewrite(
    workload,
    policy: Policy | PolicyFn,
    capacity: int,
    unit_sectors: int = 8,
    interval_ms: float = 15 * 60 * 1000.0,
    migration: str = "count",
    home: Home | None = None,
    max_io_sectors: int = 256,
    name: str | None = None,
) -> Placed:
    """Rewrite ``workload`` (an OpenWorkload) window by window under ``policy``'s plans.

    ``capacity`` is the disk's capacity in sectors. Window 0 runs on the
    original layout (``home``); the plan for window ``w`` is computed from
    window ``w-1``'s references (note 003 §3.0 [G]).
    """
    if migration not in ("none", "count", "simulate"):
        raise ValueError(f"migration must be 'none', 'count' or 'simulate' (got '{migration}')")
    if interval_ms <= 0:
        raise ValueError(f"interval_ms must be > 0 (got {interval_ms})")
    home = home or Identity()
    cap_units = capacity // unit_sectors
    logical_units = home.logical_capacity(cap_units)
    reqs = list(workload.requests)
    ra = request_arrays(reqs)
    if len(reqs) and int((ra.lba + ra.sectors).max()) > logical_units * unit_sectors:
        raise ValueError(
            f"{workload.name}: the workload reaches sector {int((ra.lba + ra.sectors).max())}, "
            f"beyond the {logical_units * unit_sectors} sectors left for data once "
            f"{home.reserved_units * unit_sectors} are reserved")
    refs = unit_references(ra, unit_sectors)
    choose = policy.plan if hasattr(policy, "plan") else policy
    pname = name or getattr(policy, "name", getattr(policy, "__name__", "policy"))

    n_windows = int(ra.arrival_ms[-1] // interval_ms) + 1 if len(reqs) else 0
    ref_window = (refs.time_ms // interval_ms).astype(np.int64)
    req_window = (ra.arrival_ms // interval_ms).astype(np.int64)
    ref_bounds = np.searchsorted(ref_window, np.arange(n_windows + 1))
    req_bounds = np.searchsorted(req_window, np.arange(n_windows + 1))

    plan: Plan = identity_plan(home)
    dirty: set[int] = set()
    pieces: list[tuple[np.ndarray, ...]] = []
    mig: list[tuple[np.ndarray, ...]] = []
    stats: list[WindowStats] = []
    for w in range(n_windows):
        r0, r1 = ref_bounds[w], ref_bounds[w + 1]
        migrated = ios = wb = 0
        if w > 0:
            prev_refs = refs.select(slice(ref_bounds[w - 1], r0))
            ctx = PlanContext(cap_units, unit_sectors, w, plan, home, logical_units)
            new_plan = choose(prev_refs, ctx)
            if migration != "none":
                moves, wb = _migration(plan, new_plan, dirty, cap_units)
                extents = _coalesce(moves, unit_sectors, max_io_sectors)
                ios = len(extents[0])
                migrated = int(extents[2].sum())
                if migration == "simulate" and ios:
                    mig.append((np.full(ios, w * interval_ms), extents[0], extents[1],
                                extents[2]))
            dirty = _carry_dirty(plan, new_plan, dirty)
            plan = new_plan
        wrefs = refs.select(slice(r0, r1))
        phys, hit = _physical(plan, wrefs.unit)
        if isinstance(plan, BlockMap):
            written = wrefs.unit[hit & ~wrefs.is_read]
            dirty.update(written.tolist())
        sub = _pieces(wrefs, phys)
        pieces.append(sub)
        stats.append(WindowStats(
            w, w * interval_ms, int(req_bounds[w + 1] - req_bounds[w]), len(sub[0]),
            len(plan) if isinstance(plan, BlockMap) else _moved_units(plan),
            float(hit.mean()) if len(hit) else 0.0, migrated, ios, wb))

    out, parent = _assemble(reqs, pieces, mig)
    phys_wl = type(workload)(out, name=f"{workload.name} under {pname}")
    return Placed(phys_wl, parent, workload, stats, pname, unit_sectors, interval_ms, migration)


def _physical(plan: Plan, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(plan, BlockMap):
        return plan.lookup(units)
    phys = plan.physical(units)
    return phys, phys != plan.home.physical(units)


def _moved_units(plan: Plan) -> int:
    if isinstance(plan, BandPermutation):
        return int(np.sum(plan.perm != np.arange(len(plan.perm)))) * plan.band_units
    return 0


def _pieces(refs: References, phys_units: np.ndarray) -> tuple[np.ndarray, ...]:
    """Merge each request's unit pieces into physically contiguous sub-requests."""
    if len(refs) == 0:
        e = np.zeros(0, np.int64)
        return e, e, e
    u = refs.unit_sectors
    start = phys_units * u + (refs.piece_start - refs.unit * u)
    length = refs.piece_sectors
    brk = np.ones(len(start), bool)
    brk[1:] = (refs.request[1:] != refs.request[:-1]) | (start[1:] != start[:-1] + length[:-1])
    idx = np.flatnonzero(brk)
    sizes = np.add.reduceat(length, idx)
    return refs.request[idx], start[idx], sizes


def _assemble(reqs: list[Request], pieces, mig):
    n_req = len(reqs)
    ra_t = np.fromiter((r.arrival_ms for r in reqs), float, n_req)
    ra_w = np.fromiter((r.op == WRITE for r in reqs), bool, n_req)
    ra_c = np.fromiter((r.client for r in reqs), np.int64, n_req)
    if pieces:
        parent = np.concatenate([p[0] for p in pieces])
        lba = np.concatenate([p[1] for p in pieces])
        sec = np.concatenate([p[2] for p in pieces])
    else:
        parent = lba = sec = np.zeros(0, np.int64)
    t = ra_t[parent]
    w = ra_w[parent]
    cl = ra_c[parent]
    kind = np.ones(len(parent), np.int8)  # foreground after migration at equal times
    if mig:
        mt = np.concatenate([m[0] for m in mig])
        src = np.concatenate([m[1] for m in mig])
        dst = np.concatenate([m[2] for m in mig])
        msec = np.concatenate([m[3] for m in mig])
        # each migrated extent is a read of the old place and a write of the new one
        n = len(mt)
        t = np.concatenate([t, mt, mt])
        lba = np.concatenate([lba, src, dst])
        sec = np.concatenate([sec, msec, msec])
        parent = np.concatenate([parent, np.full(2 * n, -1)])
        kind = np.concatenate([kind, np.zeros(2 * n, np.int8)])
        w = np.concatenate([w, np.zeros(n, bool), np.ones(n, bool)])
        cl = np.concatenate([cl, np.full(2 * n, MIGRATION_CLIENT)])
    order = np.lexsort((np.arange(len(t)), kind, t))
    ops = np.where(w[order], WRITE, READ).tolist()
    out = [Request(i, a, o, b, c, d) for i, (a, o, b, c, d) in enumerate(zip(
        t[order].tolist(), ops, lba[order].tolist(), sec[order].tolist(), cl[order].tolist(),
        strict=True))]
    return out, parent[order]


def _carry_dirty(old: Plan, new: Plan, dirty: set[int]) -> set[int]:
    """A dirty copy that stays relocated (here or copied to a new place) stays dirty: the home
    copy is still stale. Dropped copies were written back and are clean."""
    if not dirty or not isinstance(old, BlockMap) or not isinstance(new, BlockMap):
        return set()
    d = np.fromiter(dirty, np.int64, len(dirty))
    _, nh = new.lookup(d)
    return set(d[nh].tolist())


def _migration(old: Plan, new: Plan, dirty: set[int], cap_units: int):
    """Extents ``(src_unit, dst_unit, units)`` that have to move, and the write-back count."""
    if isinstance(old, BlockMap) and isinstance(new, BlockMap):
        # copies to make: in the new plan, not already at that place
        cur, _ = old.lookup(new.src)
        make = cur != new.dst
        src, dst = [cur[make]], [new.dst[make]]
        wb = 0
        if len(old.src):  # copies to drop: dirty ones are written home first
            _, still = new.lookup(old.src)
            gone = ~still
            d = np.fromiter((u in dirty for u in old.src[gone].tolist()), bool,
                            int(gone.sum()))
            src.append(old.dst[gone][d])
            dst.append(old.home.physical(old.src[gone][d]))
            wb = int(d.sum())
        return _unit_extents(np.concatenate(src), np.concatenate(dst)), wb
    # permutations of whole bands: a band whose place changes moves entirely
    a, b = _as_perm(old, new), _as_perm(new, old)
    if a is None or b is None:
        raise ValueError("cannot migrate between these two kinds of plan")
    (pa, band), (pb, _) = a, b
    moved = np.flatnonzero(pa != pb)
    home = new.home
    src = home.physical(pa[moved] * band)
    dst = home.physical(pb[moved] * band)
    return (src, dst, np.full(len(moved), band, np.int64)), 0


def _as_perm(plan: Plan, other: Plan):
    if isinstance(plan, BandPermutation):
        return plan.perm, plan.band_units
    if isinstance(plan, BlockMap) and len(plan) == 0 and isinstance(other, BandPermutation):
        return np.arange(len(other.perm)), other.band_units
    return None


def _unit_extents(src: np.ndarray, dst: np.ndarray):
    """Unit moves grouped into extents contiguous at both ends."""
    if len(src) == 0:
        e = np.zeros(0, np.int64)
        return e, e, e
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    brk = np.ones(len(src), bool)
    brk[1:] = (src[1:] != src[:-1] + 1) | (dst[1:] != dst[:-1] + 1)
    idx = np.flatnonzero(brk)
    return src[idx], dst[idx], np.diff(np.append(idx, len(src)))


def _coalesce(extents, unit_sectors: int, max_io_sectors: int):
    """Extents in units -> I/Os in sectors of at most ``max_io_sectors`` each."""
    src, dst, n = extents
    if len(src) == 0:
        e = np.zeros(0, np.int64)
        return e, e, e
    per = max(1, max_io_sectors // unit_sectors)
    pieces = -(-n // per)
    rep = np.repeat(np.arange(len(src)), pieces)
    k = np.arange(int(pieces.sum())) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    off = k * per
    size = np.minimum(per, n[rep] - off)
    return ((src[rep] + off) * unit_sectors, (dst[rep] + off) * unit_sectors,
            size * unit_sectors)


# -- reading the results back --------------------------------------------------------------
def record_columns(records: Sequence[Completed]) -> dict[str, np.ndarray]:
    """The records as columns, one pass (ids, times, parts, lba, sectors, client)."""
    if not records:
        return {name: np.zeros(0) for name in Completed._fields}
    cols = list(zip(*records, strict=True))
    return {name: np.asarray(cols[i]) for i, name in enumerate(Completed._fields)
            if name not in ("op", "cache_hit")}


def fold(records: Sequence[Completed] | dict, placed: Placed) -> dict[str, np.ndarray]:
    """Per logical request: arrival, finish (last piece), response and summed service parts.

    ``records`` may be a run's records or :func:`record_columns` of them.
    Records of migration I/Os are left out (they are reported by ``placed.windows``).
    """
    cols = records if isinstance(records, dict) else record_columns(records)
    n = len(placed.logical.requests)
    if len(cols["id"]) != len(placed.parent):
        raise ValueError("the records do not belong to this placed workload "
                         f"({len(cols['id'])} records, {len(placed.parent)} physical requests)")
    order = np.argsort(cols["id"], kind="stable")
    parent = placed.parent[cols["id"][order]]
    fg = parent >= 0
    p = parent[fg]
    arrival = np.full(n, np.nan)
    finish = np.full(n, -np.inf)
    np.maximum.at(finish, p, cols["finish_ms"][order][fg])
    arrival[p] = cols["arrival_ms"][order][fg]
    out = {"arrival_ms": arrival, "finish_ms": finish, "response_ms": finish - arrival}
    for part in ("seek_ms", "rotation_ms", "transfer_ms", "queue_ms"):
        acc = np.zeros(n)
        np.add.at(acc, p, cols[part][order][fg])
        out[part] = acc
    return out


def seek_distances(records: Sequence[Completed], cylinder_of: Callable[[int], int],
                   start_cylinder: int = 0) -> np.ndarray:
    """Cylinders crossed before each physical request, in service order (thesis metric)."""
    recs = sorted(records, key=lambda r: r.start_ms)
    out = np.empty(len(recs), np.int64)
    cyl = start_cylinder
    for i, r in enumerate(recs):
        c0 = cylinder_of(r.lba)
        out[i] = abs(c0 - cyl)
        cyl = cylinder_of(r.lba + r.sectors - 1)
    return out


__all__ = [
    "MIGRATION_CLIENT",
    "BandPermutation",
    "BlockMap",
    "HiddenAreas",
    "Identity",
    "Placed",
    "Plan",
    "PlanContext",
    "Policy",
    "WindowStats",
    "fold",
    "identity_plan",
    "record_columns",
    "rewrite",
    "seek_distances",
]
