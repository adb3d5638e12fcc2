"""ALIS run clustering (Hsu et al. 2003) and its multi-zone form ALIZ (seed 003).

Seed 003 §3.5 (note 003 §3.5). Let X_i be the unit referenced by the i-th read.
For each X_n add an edge of weight ``tau - j + 1`` from X_{n-j} to X_n for every
``j <= tau`` (graduated edge weights: the weight falls with the number of
references in between). Runs are built greedily:

1. take the heaviest edge joining two unmarked vertices; R = that edge; mark both;
2. repeat: the unmarked u maximizing headweight = sum_{i<=min(tau,|R|)} W(u, R[i])
   and the unmarked v maximizing tailweight = sum_{i<=min(tau,|R|)} W(R[-i], v);
   if headweight > tailweight prepend u, else append v.

Gaps and the choices made (note 003 §3.5 [G]): a run ends when neither end
has an unmarked neighbour; a new run starts from the next heaviest edge; the
lightest ``prune`` fraction of edges (10%, seed 003 Ch. 4) is dropped first;
runs are placed in descending order of their accumulated weight; the heat-
clustered zone of Hsu's ALIS is not modelled (units outside any run stay home).
With ``granularity="extent"`` (default) a vertex is a request's extent (its
first unit and length) rather than one unit: the graph is many times smaller,
as seed 003's future work proposes ("combine packed extents with ALIS to cut
the number of edges"); ``"unit"`` is the per-block graph of the seed.
``reads_only`` (default True, as the seed defines X_i over reads) can be
switched off, since seed 003's "email" trace had almost no reads (note 003 §4.3).

ALIZ (seed 003 §3.6): the same runs, placed in hot zones. The thesis relocates
each block "to the closest hot zone to the original location"; with
``anchor="segment"`` (default) a run is cut where its units' nearest zone
changes and each piece goes to that zone, in run order. ``anchor="first"`` or
``"median"`` keeps each run whole in the zone nearest its first or median unit
(note 003 §3.6 [G]); a run of reads that hops between distant tables then
drags units far from home.

Worked example (note 003 §3.5 [D], an exact unit test): A,B,C,A,B,C with
tau = 2 gives A->B = B->C = 4, A->C = C->A = 2, B->A = C->B = 1 and one run
[A, B, C].
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Hashable

import numpy as np

from .refs import References
from .remap import BlockMap, PlanContext
from .zones import Zones, centred_start, lay_out, place_groups


def edge_weights(stream, tau: int) -> dict[tuple[Hashable, Hashable], int]:
    """Graduated edge weights of a reference stream, as a dict (small inputs, teaching).

    The blocks may be integers or any other labels: ``edge_weights("ABCABC", 2)`` keys its
    edges by the letters, ``("A", "B")`` and so on.
    """
    items = list(stream)
    if all(isinstance(x, (int, np.integer)) for x in items):
        src, dst, w = edge_arrays(np.asarray(items, np.int64), tau)
        return {(int(a), int(b)): int(c) for a, b, c in zip(src, dst, w, strict=True)}
    labels = list(dict.fromkeys(items))
    index = {label: i for i, label in enumerate(labels)}
    src, dst, w = edge_arrays(np.asarray([index[x] for x in items], np.int64), tau)
    return {(labels[a], labels[b]): int(c) for a, b, c in zip(src, dst, w, strict=True)}


def edge_arrays(stream: np.ndarray, tau: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, weight) of the aggregated graph; self-loops are dropped."""
    if tau < 1:
        raise ValueError(f"tau must be at least 1 (got {tau})")
    s = np.asarray(stream, np.int64)
    srcs, dsts, ws = [], [], []
    for j in range(1, tau + 1):
        if len(s) <= j:
            break
        a, b = s[:-j], s[j:]
        keep = a != b
        srcs.append(a[keep])
        dsts.append(b[keep])
        ws.append(np.full(int(keep.sum()), tau - j + 1, np.int64))
    if not srcs:
        e = np.zeros(0, np.int64)
        return e, e, e
    src, dst, w = np.concatenate(srcs), np.concatenate(dsts), np.concatenate(ws)
    if len(src) == 0:
        return src, dst, w
    base = int(max(src.max(), dst.max())) + 1
    key = src * base + dst
    uk, inv = np.unique(key, return_inverse=True)
    tot = np.bincount(inv, weights=w).astype(np.int64)
    return uk // base, uk % base, tot


def build_runs(src: np.ndarray, dst: np.ndarray, w: np.ndarray, tau: int,
               prune: float = 0.1) -> list[tuple[list[int], int]]:
    """Hsu's greedy run construction; returns (run, accumulated weight), heaviest first."""
    n = len(src)
    if n == 0:
        return []
    order = np.lexsort((dst, src, w))  # ascending weight, ties by (src, dst)
    drop = int(n * prune)
    keep = order[drop:]
    src, dst, w = src[keep], dst[keep], w[keep]
    out_adj: dict[int, dict[int, int]] = {}
    in_adj: dict[int, dict[int, int]] = {}
    for a, b, c in zip(src.tolist(), dst.tolist(), w.tolist(), strict=True):
        out_adj.setdefault(a, {})[b] = c
        in_adj.setdefault(b, {})[a] = c
    seeds = np.lexsort((dst, src, -w))
    marked: set[int] = set()
    runs: list[tuple[list[int], int]] = []
    s_list, d_list, w_list = src.tolist(), dst.tolist(), w.tolist()
    for e in seeds.tolist():
        a, b = s_list[e], d_list[e]
        if a in marked or b in marked:
            continue
        run = [a, b]
        marked.update(run)
        weight = w_list[e]
        while True:
            k = min(tau, len(run))
            hw: dict[int, int] = {}
            for x in run[:k]:
                for u, c in in_adj.get(x, {}).items():
                    if u not in marked:
                        hw[u] = hw.get(u, 0) + c
            tw: dict[int, int] = {}
            for x in run[-k:]:
                for v, c in out_adj.get(x, {}).items():
                    if v not in marked:
                        tw[v] = tw.get(v, 0) + c
            bu = max(hw.items(), key=lambda t: (t[1], -t[0])) if hw else (None, 0)
            bv = max(tw.items(), key=lambda t: (t[1], -t[0])) if tw else (None, 0)
            if bu[1] == 0 and bv[1] == 0:
                break
            if bu[1] > bv[1]:
                run.insert(0, bu[0])
                marked.add(bu[0])
                weight += bu[1]
            else:
                run.append(bv[0])
                marked.add(bv[0])
                weight += bv[1]
        runs.append((run, weight))
    runs.sort(key=lambda r: (-r[1], r[0][0]))
    return runs


_CACHE: OrderedDict = OrderedDict()


def runs_of(stream: np.ndarray, tau: int, prune: float = 0.1) -> list[tuple[list[int], int]]:
    """Runs of a stream, remembered (ALIS and every ALIZ spacing share one window's runs)."""
    key = (hashlib.blake2b(np.ascontiguousarray(stream, np.int64).tobytes(),
                           digest_size=16).hexdigest(), tau, prune)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    runs = build_runs(*edge_arrays(stream, tau), tau, prune)
    _CACHE[key] = runs
    while len(_CACHE) > 64:
        _CACHE.popitem(last=False)
    return runs


def _segments(run: np.ndarray, zones: Zones) -> list[np.ndarray]:
    """Cut a run where the nearest zone of its units changes."""
    k = np.minimum(run // zones.spacing_units, len(zones) - 1)
    cut = np.flatnonzero(np.diff(k) != 0) + 1
    return np.split(run, cut)


class ALIS:
    """ALIS when ``spacing`` is None (one run zone at the centre), ALIZ(spacing) otherwise."""

    def __init__(self, spacing: int | None = None, tau: int = 4, reads_only: bool = True,
                 prune: float = 0.1, anchor: str = "segment", zone_fraction: float = 0.1,
                 budget: int | None = None, granularity: str = "extent",
                 name: str | None = None):
        if granularity not in ("extent", "unit"):
            raise ValueError("granularity must be 'extent' or 'unit'")
        self.granularity = granularity
        if anchor not in ("segment", "first", "median"):
            raise ValueError("anchor must be 'segment', 'first' or 'median'")
        self.spacing, self.tau, self.reads_only, self.prune = spacing, tau, reads_only, prune
        self.anchor, self.zone_fraction, self.budget = anchor, zone_fraction, budget
        self.name = name or ("ALIS" if spacing is None else f"ALIZ({spacing})")

    def runs(self, refs: References) -> list[tuple[list[int], int]]:
        """Runs of units, heaviest first."""
        r = refs.select(refs.is_read) if self.reads_only else refs
        if self.granularity == "unit":
            return runs_of(r.unit, self.tau, self.prune)
        # one vertex per distinct request extent (first unit, unit count)
        if len(r) == 0:
            return []
        first_idx = np.flatnonzero(np.r_[True, r.request[1:] != r.request[:-1]])
        n_units = np.diff(np.r_[first_idx, len(r)])
        first = r.unit[first_idx]
        key = first * 4096 + np.minimum(n_units, 4095)
        uk, stream = np.unique(key, return_inverse=True)
        out, seen = [], set()
        for run, weight in runs_of(stream.astype(np.int64), self.tau, self.prune):
            units = []
            for v in run:
                f, n = int(uk[v] // 4096), int(uk[v] % 4096)
                for u in range(f, f + n):
                    if u not in seen:
                        seen.add(u)
                        units.append(u)
            if units:
                out.append((units, weight))
        return out

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        runs = self.runs(refs)
        if self.budget is not None:
            kept, total = [], 0
            for r, wt in runs:
                if total + len(r) > self.budget:
                    break
                kept.append((r, wt))
                total += len(r)
            runs = kept
        groups = [np.array(r, np.int64) for r, _ in runs]
        if self.spacing is None:
            ordered = np.concatenate(groups) if groups else np.zeros(0, np.int64)
            src, dst = lay_out(ordered, centred_start(ctx.capacity_units, len(ordered)))
        else:
            zones = Zones(ctx.capacity_units, max(1, self.spacing // ctx.unit_sectors),
                          self.zone_fraction)
            if self.anchor == "segment":
                groups = [s for g in groups for s in _segments(g, zones)]
                anchors = [int(g[0]) for g in groups]
            else:
                anchors = [int(g[0]) if self.anchor == "first" else int(np.median(g))
                           for g in groups]
            src, dst, _ = place_groups(groups, anchors, zones)
        return BlockMap(src, dst, ctx.home, {"relocated": len(src), "runs": len(groups)})
