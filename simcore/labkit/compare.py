"""The same experiment in simcore, and measured and simulated results on one figure.

Moved here from ``hardware.compare`` (issue 14 part 2): ``hardware/`` measures real
disks and never imports simcore; putting a recording beside its simulated twin is the
labkit's job, so this module reads hardware's records and runs simcore.

:func:`simulate` runs a job's experiment on a simulated drive (a profile in
``data/disks``) and returns a record shaped like a measurement but marked
``"schema": "disklab-simulated/1"``, ``"simulated": true`` and labelled as
simulated, so labs can fall back to it without ever passing it off as a
measurement. :func:`overlay` draws a recording next to its simulated twin;
:func:`figure` draws any list of records of one job.

What each simulated experiment does:

- ``zone-bandwidth``: one long sequential read at each offset; the rate is the
  bytes over the time from the first sector under the head to the last
  (track and cylinder switches included), beside the zone's raw media rate;
- ``seek-distance``: random reads one at a time in windows of the same sizes,
  binned by distance exactly as the measurement is;
- ``qd-sweep``: closed random reads with ``qd`` outstanding, served by a
  positional scheduler (SSTF by default, standing in for the drive's NCQ);
- ``multistream``: ``streams`` sequential readers with one request each,
  evenly spread; no drive cache unless the profile's service adds one;
- ``bs-sweep``: random reads of each size, aligned or shifted off the boundary.

The simulated drive has no cache model here: its sequential streams pay a
positioning delay per request that a real drive's read-ahead would hide.
"""

from __future__ import annotations

import numpy as np

import simcore
from hardware.record import SIMULATED, is_measured
from hardware.summary import distance_bins
from hardware.units import MB, parse_size
from simcore.disk.access import HeadState, as_mechanism
from simcore.records import READ
from simcore.workloads import ClosedWorkload

__all__ = [
    "SIMULATABLE",
    "figure",
    "multistream",
    "overlay",
    "qd_sweep",
    "seek_distance",
    "simulate",
    "zone_bandwidth",
]

SECTOR = simcore.SECTOR_BYTES
SIMULATABLE = ("zone-bandwidth", "seek-distance", "qd-sweep", "multistream", "bs-sweep")


def _list(value, cast=str) -> list:
    if isinstance(value, list | tuple):
        return [cast(v) for v in value]
    return [cast(v.strip()) for v in str(value).split(",") if v.strip()]


def zone_bandwidth(disk="modern7200", offsets_pct=(0, 25, 50, 75, 95),
                   span_bytes: int = 32 << 20) -> list[dict]:
    """Sustained sequential read rate (MB/s) at each offset, and the zone's media rate."""
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    n = max(1, min(cap, span_bytes // SECTOR))
    rows = []
    for pct in offsets_pct:
        lba = min(int(cap * float(pct) / 100), cap - n)
        addr = mech.layout.locate(lba)
        head = HeadState(addr.cylinder, addr.surface)
        pos = mech.positioning_ms(lba, False, 0.0, head)
        acc = mech.access(lba, n, False, 0.0, head)
        busy = acc.end_ms - pos
        zone = mech.layout.zone_of(lba)
        rows.append({"offset_pct": float(pct), "offset_bytes": lba * SECTOR, "zone": zone,
                     "read_mb_s": n * SECTOR / MB / (busy / 1000.0),
                     "media_mb_s": mech.layout.media_rate_mb_s(zone)})
    return rows


def _window_bytes(window: str, cap_bytes: int) -> int:
    return min(parse_size(window, cap_bytes), cap_bytes)


def seek_distance(disk="modern7200", windows=("1m", "16m", "256m", "4g", "100%"),
                  ios: int = 400, bs: int = 4096, seed: int = 1,
                  scheduler: str = "fcfs") -> dict:
    """Random reads one at a time within each window; latency binned by distance.

    Returns ``{"points": [...], "bins": [...]}`` like a measured summary.
    """
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    cap_bytes = cap * SECTOR
    sec = max(1, bs // SECTOR)
    rng = np.random.default_rng(seed)
    points, offs, lats = [], [], []
    for w in windows:
        wb = max(bs, _window_bytes(str(w), cap_bytes) // bs * bs)
        wsec = wb // SECTOR
        start = int(rng.integers(0, max(1, (cap - wsec) // sec + 1))) * sec
        slots = max(1, wsec // sec)
        n = int(min(ios, slots))
        picks = rng.permutation(slots)[:n] if slots <= 10 * n else rng.integers(0, slots, n)
        lbas = [start + int(p) * sec for p in picks]

        def make(c, k, _rng, lbas=lbas):
            return READ, lbas[k], sec

        res = simcore.run(mech, ClosedWorkload(1, n, make, name=f"window {w}"), scheduler)
        recs = sorted(res.records, key=lambda r: r.id)
        resp = np.array([r.response_ms for r in recs])
        offs.append([r.lba * SECTOR for r in recs])
        lats.append([float(x) * 1000 for x in resp])
        points.append({"window": str(w), "window_bytes": wb, "read_ios": n,
                       "read_lat_mean_ms": float(resp.mean()),
                       "read_iops": 1000.0 * n / (recs[-1].finish_ms - recs[0].arrival_ms)})
    return {"points": points, "bins": distance_bins(offs, lats)}


def qd_sweep(disk="modern7200", qds=(1, 2, 4, 8, 16, 32), bs: int = 4096, requests: int = 2000,
             scheduler: str = "sstf", seed: int = 1) -> list[dict]:
    """Random reads with ``qd`` outstanding: IOPS and mean response time per queue depth."""
    mech = as_mechanism(disk)
    rows = []
    for qd in qds:
        qd = int(qd)
        wl = simcore.random_closed(mech.layout.capacity, clients=qd,
                                   per_client=max(20, requests // qd), size_kib=bs / 1024,
                                   seed=seed)
        res = simcore.run(mech, wl, scheduler)
        resp = res.column("response_ms")
        span = res.column("finish_ms").max() - res.column("arrival_ms").min()
        rows.append({"qd": qd, "read_iops": 1000.0 * len(resp) / span,
                     "read_lat_mean_ms": float(resp.mean()),
                     "read_mb_s": len(resp) * bs / MB / (span / 1000.0)})
    return rows


def multistream(disk="modern7200", streams=(1, 2, 4, 8, 16), bs: int = 64 << 10,
                requests_per_stream: int = 60, scheduler: str = "fcfs") -> list[dict]:
    """``streams`` sequential readers, one outstanding request each, evenly spread."""
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    sec = max(1, bs // SECTOR)
    rows = []
    for s in streams:
        s = int(s)
        spacing = cap // s // sec * sec

        def make(c, k, _rng, spacing=spacing):
            return READ, c * spacing + k * sec, sec

        res = simcore.run(mech, ClosedWorkload(s, requests_per_stream, make,
                                               name=f"{s} streams"), scheduler)
        span = res.column("finish_ms").max() - res.column("arrival_ms").min()
        mb_s = len(res) * bs / MB / (span / 1000.0)
        rows.append({"streams": s, "read_mb_s": mb_s, "per_stream_mb_s": mb_s / s,
                     "read_lat_mean_ms": float(res.column("response_ms").mean())})
    return rows


def bs_sweep(disk="modern7200", sizes=(4096, 16384, 65536, 262144, 1 << 20),
             boundary: int = 4096, misalign: int = 512, aligns=("aligned", "unaligned"),
             requests: int = 300, qd: int = 1, seed: int = 1) -> list[dict]:
    """Random reads of each size, every one aligned to ``boundary`` or ``misalign`` past it."""
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    rows = []
    for size in sizes:
        for align in aligns:
            sec = max(1, int(size) // SECTOR)
            unit = max(1, boundary // SECTOR)
            shift = misalign // SECTOR if align == "unaligned" else 0
            slots = (cap - sec - shift) // unit

            def make(c, k, rng, sec=sec, unit=unit, shift=shift, slots=slots):
                return READ, int(rng.integers(0, slots)) * unit + shift, sec

            res = simcore.run(mech, ClosedWorkload(qd, max(20, requests // qd), make, seed=seed),
                              "sstf" if qd > 1 else "fcfs")
            resp = res.column("response_ms")
            span = res.column("finish_ms").max() - res.column("arrival_ms").min()
            rows.append({"bs": str(size), "bs_bytes": int(size), "align": align,
                         "read_lat_mean_ms": float(resp.mean()),
                         "read_mb_s": len(resp) * size / MB / (span / 1000.0)})
    return rows


def simulate(job: str, disk: str = "modern7200", params: dict | None = None,
             seed: int = 1) -> dict:
    """A clearly labelled simulated record of ``job`` on the simulated drive ``disk``.

    ``params`` uses the job's own parameter names (as in a measurement's
    ``params``); sizes in percent refer to the simulated drive.
    """
    params = dict(params or {})
    mech = as_mechanism(disk)
    prof = mech.profile
    cap_bytes = mech.layout.capacity * SECTOR
    if job == "zone-bandwidth":
        offs = _list(params.get("offset_pct", "0,5,10,15,20,25,30,35,40,45,50,55,60,65,70,75,"
                                "80,85,90,95"), float)
        span = parse_size(params.get("span", "32m"))
        summary: dict = {"points": zone_bandwidth(mech, offs, span)}
        rates = [p["read_mb_s"] for p in summary["points"]]
        summary.update(outer_mb_s=rates[0], inner_mb_s=rates[-1],
                       inner_to_outer=rates[-1] / rates[0])
    elif job == "seek-distance":
        summary = seek_distance(mech, _list(params.get("window", "1m,16m,256m,4g,100%")),
                                ios=int(params.get("ios", 400)),
                                bs=parse_size(params.get("bs", "4k")), seed=seed)
    elif job == "qd-sweep":
        summary = {"points": qd_sweep(mech, _list(params.get("qd", "1,2,4,8,16,32"), int),
                                      bs=parse_size(params.get("bs", "4k")), seed=seed)}
    elif job == "multistream":
        summary = {"points": multistream(mech, _list(params.get("streams", "1,2,4,8,16"), int),
                                         bs=parse_size(params.get("bs", "64k")))}
    elif job == "bs-sweep":
        mis = params.get("misalign", "lbs")
        summary = {"points": bs_sweep(
            mech, [parse_size(s) for s in _list(params.get("bs", "4k,16k,64k,256k,1m"))],
            boundary=parse_size(params.get("boundary", "4k")),
            misalign=512 if mis == "lbs" else parse_size(mis),
            aligns=_list(params.get("align", "aligned,unaligned")),
            qd=int(params.get("qd", 1)), seed=seed)}
    else:
        raise ValueError(f"no simulated counterpart for '{job}'; simulated jobs: "
                         + ", ".join(SIMULATABLE))
    return {
        "schema": SIMULATED,
        "simulated": True,
        "job": job,
        "params": {k: str(v) for k, v in params.items()},
        "recorded_at": None,
        "label": f"SIMULATED with simcore on the profile '{prof.id}' ({prof.name}); "
                 "not a measurement.",
        "machine": {"simcore": simcore.__version__},
        "device": {"path": None, "model": prof.name, "rotational": True, "scheduler": None,
                   "read_ahead_kb": None, "size_bytes": cap_bytes, "kind": "simulated",
                   "profile": prof.id, "source": prof.source},
        "raw": None,
        "summary": summary,
    }


# -- figures ---------------------------------------------------------------------------------

_AXES = {
    "zone-bandwidth": ("offset_pct", "read_mb_s", "offset into the device (% of its size)",
                       "sequential read (MB/s)"),
    "hdparm-offsets": ("offset_pct", "read_mb_s", "offset into the device (% of its size)",
                       "hdparm -t (MB/s)"),
    "qd-sweep": ("qd", "read_iops", "outstanding requests (queue depth)", "random reads per second"),
    "multistream": ("streams", "read_mb_s", "concurrent sequential streams", "total read (MB/s)"),
}


def _name(rec: dict) -> str:
    if rec.get("simulated"):
        return f"simulated: {rec['device'].get('profile') or rec['device'].get('model')}"
    kind = rec["device"].get("kind", "?")
    return f"measured: {kind}"


def figure(records: list[dict], normalize: bool = False, title: str | None = None):
    """Measured and simulated records of one job on one plotly figure.

    ``normalize`` divides each series by its median, so shapes can be
    compared across devices whose speeds differ by orders of magnitude.
    Simulated series are dashed and named "simulated: ...".
    """
    import plotly.graph_objects as go

    if not records:
        raise ValueError("no records to draw")
    job = records[0]["job"]
    fig = go.Figure()
    for rec in records:
        dash = "dash" if rec.get("simulated") else "solid"
        name = _name(rec)
        s = rec["summary"]
        if job in _AXES or job == "hdparm-offsets":
            xk, yk, xt, yt = _AXES[job]
            pts = [p for p in s["points"] if p.get(yk) is not None]
            x = [float(p[xk]) for p in pts]
            y = np.array([p[yk] for p in pts], dtype=float)
            if normalize and len(y):
                y = y / np.median(y)
            fig.add_trace(go.Scatter(x=x, y=y, name=name, mode="lines+markers",
                                     line=dict(dash=dash)))
            if rec.get("simulated") and job == "zone-bandwidth" and not normalize:
                fig.add_trace(go.Scatter(x=x, y=[p["media_mb_s"] for p in pts], mode="lines",
                                         name=name + " (media rate of the zone)",
                                         line=dict(dash="dot", width=1)))
            fig.update_xaxes(title=xt)
            fig.update_yaxes(title=("relative to the series' median" if normalize else yt))
        elif job == "seek-distance":
            bins = [b for b in s.get("bins", []) if b["distance_bytes"] > 0 and b["n"] >= 3]
            fig.add_trace(go.Scatter(x=[b["distance_bytes"] for b in bins],
                                     y=[b["mean_ms"] for b in bins], name=name,
                                     mode="lines+markers", line=dict(dash=dash)))
            fig.update_xaxes(title="distance from the previous request (bytes)", type="log")
            fig.update_yaxes(title="mean response time (ms)", type="log")
        elif job == "bs-sweep":
            for align in ("aligned", "unaligned"):
                pts = [p for p in s["points"] if p.get("align") == align]
                if pts:
                    fig.add_trace(go.Scatter(
                        x=[parse_size(p["bs"]) for p in pts],
                        y=[p["read_lat_mean_ms"] for p in pts], name=f"{name}, {align}",
                        mode="lines+markers", line=dict(dash=dash if align == "aligned" else "dot")))
            fig.update_xaxes(title="request size (bytes)", type="log")
            fig.update_yaxes(title="mean response time (ms)", type="log")
        elif job == "cpu-engines":
            pts = s["points"]
            fig.add_trace(go.Bar(
                x=[f"{p['engine']} {'direct' if p['direct'] == '1' else 'buffered'}" for p in pts],
                y=[p.get("cpu_us_per_mb") for p in pts], name=name))
            fig.update_yaxes(title="CPU time per MB read (µs)")
        else:
            pts = s["points"]
            key = "wall_s" if job.startswith("server-") else (
                "write_mb_s" if job == "seq-write" else "read_mb_s")
            fig.add_trace(go.Bar(x=[str(i + 1) for i in range(len(pts))],
                                 y=[p.get(key) for p in pts], name=name))
            fig.update_yaxes(title=key)
    fig.update_layout(title=title or job, legend=dict(orientation="h"))
    return fig


def overlay(record: dict, disk: str = "modern7200", normalize: bool | None = None,
            title: str | None = None):
    """A recording and the same experiment simulated on ``disk``, on one figure.

    By default zone-bandwidth and multistream curves are normalized to their
    medians (a loop device and a disk differ by orders of magnitude);
    seek and queue curves are drawn on their own scales.
    """
    if record.get("job") not in SIMULATABLE:
        raise ValueError(f"no simulated counterpart for '{record.get('job')}'")
    params = {k: v for k, v in record.get("params", {}).items()
              if k not in ("size", "runtime", "ramp", "repeat", "scheduler", "read_ahead_kb",
                           "nr_requests")}
    sim = simulate(record["job"], disk, params)
    if normalize is None:
        normalize = record["job"] in ("zone-bandwidth", "multistream")
    kind = "measured" if is_measured(record) else "simulated"
    return figure([record, sim], normalize=normalize,
                  title=title or f"{record['job']}: {kind} vs simulated ({disk})")
