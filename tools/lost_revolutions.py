"""Where the validation replays lose (or gain) a revolution against the drive, and what
separates those requests from the rest (issue 14, item 4). A diagnostic: it changes nothing.

For each of the five traced drives the trace is replayed as ``reproduce validation`` does.
A request is *lost* when the drive takes at least half a revolution longer than the model,
*gained* when it takes at least half a revolution less. Requests are grouped by their kind,
the kind of the request before and whether they continue it; for every group the best single
threshold on two candidate features is printed with its misclassified count:

- ``rot``: the model's rotational wait (lost iff rot < threshold: the drive needs that much
  more lead before the first sector than the model gives);
- ``slack_last`` (writes only): in the model, the time from the last sector's arrival over
  the bus to its pass under the head, t_w + (n-1) s - (t_d + n b), with t_w the start of
  the media write, t_d the start of the data transfer (both after the model's command
  overheads), b the bus time and s the media time of a sector. Approximate: track switches
  and waits for segment space are ignored.

Then, for the DEC RZ26, random writes and reads by seek distance (cylinders) with the
threshold on ``rot`` per band. Usage: ``python tools/lost_revolutions.py [drive ...]``.
"""
from __future__ import annotations

import itertools
import sys
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from simcore.disk.layout import Layout
from simcore.disk.profile_loader import profile_from_dict
from simcore.disksim.importer import import_disksim
from simcore.engine import replay_validation
from simcore.experiments.validation import DISKSIM, model_path, trace_path
from simcore.workloads.traces.disksim import read_validation

BANDS = (1, 50, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1500, 3000)


def best_threshold(x: np.ndarray, lost: np.ndarray) -> tuple[int, float]:
    """The threshold c for 'lost iff x < c' with the fewest misclassified requests."""
    best = (int(lost.sum()), float("-inf"))
    for c in np.unique(np.round(x, 2)) + 0.005:
        err = int(((x < c) & ~lost).sum() + ((x >= c) & lost).sum())
        if err < best[0]:
            best = (err, float(c))
    return best


def per_request(drive: str) -> dict:
    """Replay one drive; per request: kind, previous kind, continues it, measured minus
    simulated time, the model's rotational wait, seek distance and (writes) slack_last."""
    spec = tomllib.loads(import_disksim(model_path(drive)).toml)
    prof = profile_from_dict(spec, str(model_path(drive)))
    trace = read_validation(trace_path(drive))
    out = replay_validation(prof, trace, keep_records=True)
    recs, steps, lay = out["records"], trace.steps, Layout(prof)
    ov = spec["firmware"].get("overheads", {})
    iface = spec.get("interface", {})
    rate = iface.get("write_rate_mb_s") or iface.get("rate_mb_s")
    bus = 512 / (rate * 1000.0) if rate else None  # ms per sector, as the drive computes it
    rows = []
    for i in range(1, len(steps)):
        s, p, r = steps[i], steps[i - 1], recs[i]
        seq = p.lba + p.sectors == s.lba
        row = {"op": s.op, "prev": p.op, "seq": seq, "hit": r.cache_hit,
               "d": s.measured_ms - (r.finish_ms - r.start_ms), "rot": r.rotation_ms,
               "dist": abs(lay.cylinder_of(s.lba) - lay.cylinder_of(p.lba + p.sectors - 1)),
               "slack_last": np.nan}
        if s.op == "W" and not r.cache_hit and bus:
            command = ov.get("write_after_read_ms", ov.get("write_ms", 0.0)) \
                if p.op == "R" else ov.get("write_ms", 0.0)
            data = command
            if p.op == "W" and not seq and ov.get("random_write_setup_ms") is not None:
                command = ov["random_write_setup_ms"]
                data = ov.get("random_write_data_ms", command) + ov.get("reselect_ms", 0.0)
            data += ov.get("data_prep_ms", 0.0)
            sector = prof.revolution_ms / lay.sectors_per_track(lay.zone_of(s.lba))
            t_w = command + r.seek_ms + r.rotation_ms
            row["slack_last"] = t_w + (s.sectors - 1) * sector - (data + s.sectors * bus)
        rows.append(row)
    return {"rows": rows, "rev_ms": prof.revolution_ms, "demerit_ms": out["demerit_ms"]}


def report(drive: str) -> None:
    res = per_request(drive)
    rows, rev = res["rows"], res["rev_ms"]
    print(f"\n{drive}: demerit {res['demerit_ms']:.4f} ms (DiskSim "
          f"{DISKSIM[drive]['demerit_ms']}), revolution {rev:.3f} ms")
    groups: dict[str, list[dict]] = {}
    for r in rows:
        key = f"{r['op']} after {r['prev']}, {'seq' if r['seq'] else 'rnd'}" \
              f"{', hit' if r['hit'] else ''}"
        groups.setdefault(key, []).append(r)
    print(f"  {'group':24s} {'n':>5s} {'lost':>5s} {'gained':>6s}   rot: c (err)"
          "   slack_last: c (err)")
    for key in sorted(groups):
        g = groups[key]
        d = np.array([r["d"] for r in g])
        lost, gained = d >= rev / 2, d <= -rev / 2
        line = f"  {key:24s} {len(g):5d} {lost.sum():5d} {gained.sum():6d}"
        if lost.sum():
            e, c = best_threshold(np.array([r["rot"] for r in g]), lost)
            line += f"   {c:5.2f} ({e})"
            sl = np.array([r["slack_last"] for r in g])
            if np.isfinite(sl).all():
                e, c = best_threshold(sl, lost)
                line += f"   {c:5.2f} ({e})"
        print(line)
    if drive != "dec_rz26":
        return
    print("  random requests by seek distance (cylinders): n, lost, rot threshold (err)")
    for op in "WR":
        for lo, hi in itertools.pairwise(BANDS):
            g = [r for r in rows if r["op"] == op and not r["seq"] and not r["hit"]
                 and lo <= r["dist"] < hi and r["rot"] < rev * 0.75]
            if not g:
                continue
            lost = np.array([r["d"] >= rev / 2 for r in g])
            e, c = best_threshold(np.array([r["rot"] for r in g]), lost)
            print(f"    {op} {lo:5d}-{hi:<5d} {len(g):4d} {lost.sum():4d}   {c:5.2f} ({e})")


if __name__ == "__main__":
    for name in sys.argv[1:] or list(DISKSIM):
        report(name)
