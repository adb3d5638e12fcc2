"""How good is the model? DiskSim 4.0's validation suite, replayed.

For five real drives DiskSim ships a model DIXtrac extracted from the drive and a trace of the
service times measured on it (``data/validation``). Each trace is replayed closed-loop on the
imported model with the drive's whole firmware, and the measured and simulated distributions of
per-request service time are compared by the demerit figure (Ruemmler & Wilkes 1994: the RMS
horizontal distance between the two CDFs, computed as DiskSim does over quantile steps of 0.0001).
The targets are DiskSim's own demerits on the same data (DiskSim 4.0 built from source; table in
``data/validation/README.md``): a simulator that claims to be validated should do at least as well
as the reference simulator on the reference data.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..metrics import DISKSIM_BUCKET_GROW_PCT
from .targets import Source, Target, between, evaluate

NAME = "validation"
DESCRIPTION = "DiskSim 4.0 validation traces of five real drives: demerit against DiskSim's"

DATA = Path(__file__).resolve().parents[2] / "data" / "validation"
#: DiskSim's table, relative to the notes folder (shared/notes): shared/validation/README.md
VALIDATION_README = "../validation/README.md"

# DiskSim 4.0's own results on the same traces (data/validation/README.md)
DISKSIM = {
    "ibm18es": {"demerit_ms": 0.136, "mean_ms": 5.236, "measured_mean_ms": 5.261},
    "hp_c2247a": {"demerit_ms": 0.089, "mean_ms": 15.312, "measured_mean_ms": 15.298},
    "hp_c2490a": {"demerit_ms": 0.254, "mean_ms": 12.563, "measured_mean_ms": 12.550},
    "hp_c3323a": {"demerit_ms": 0.305, "mean_ms": 15.573, "measured_mean_ms": 15.765},
    "dec_rz26": {"demerit_ms": 0.341, "mean_ms": 15.691, "measured_mean_ms": 15.809},
}
DRIVES = {"ibm18es": "IBM Ultrastar 18ES", "hp_c2247a": "HP C2247", "hp_c2490a": "HP C2490",
          "hp_c3323a": "HP C3323", "dec_rz26": "DEC RZ26"}
PAPER = {d: v["demerit_ms"] for d, v in DISKSIM.items()}
PAPER["source"] = "DiskSim 4.0 on its own validation suite (data/validation/README.md)"
_README_LINE = {"ibm18es": 44, "hp_c2247a": 45, "hp_c2490a": 46, "hp_c3323a": 47,
                "dec_rz26": 48}
_MISSED = {
    "ibm18es": "{drives.ibm18es.demerit_ms:.4f} ms against DiskSim's figure as published "
               "(three decimals); scored the way DiskSim scores its own runs (its rms tool "
               "over the two printed distributions, buckets about "
               "{disksim_bucket_grow_pct} % wide) the replay gives "
               "{drives.ibm18es.demerit_bucketed_ms:.4f} ms. The model follows DiskSim 4.0's "
               "rules on this drive (the read-ahead runs its maximum past the request and the "
               "segment ring pushes the request out, a destage holds the head, the wait for a "
               "stopped read-ahead is added to the command overhead) and its mean is "
               "{drives.ibm18es.simulated_mean_ms:.3f} ms against DiskSim's "
               "{drives.ibm18es.disksim_mean_ms:.3f} ms. Two errors of those rules partly "
               "cancel: re-reads of sectors the read before had just read are served from the "
               "drive's buffer but go to the platter in the model "
               "({drives.ibm18es.cases.rereads.requests} reads: "
               "{drives.ibm18es.cases.rereads.measured_mean_ms:.2f} ms on the drive, "
               "{drives.ibm18es.cases.rereads.simulated_mean_ms:.2f} ms in the model), and "
               "reads the model serves without moving the arm, or after the extracted head "
               "switch, are slower on the drive by about a one-cylinder seek "
               "({drives.ibm18es.cases.near.requests:,} reads: "
               "{drives.ibm18es.cases.near.measured_mean_ms:.2f} ms on the drive, "
               "{drives.ibm18es.cases.near.simulated_mean_ms:.2f} ms in the model)",
    "hp_c2490a": "{drives.hp_c2490a.demerit_ms:.4f} ms, above DiskSim's figure since the "
                 "model adds the wait for a stopped read-ahead to the command overhead, as "
                 "DiskSim 4.0's disk_check_hda does (the model was under DiskSim's figure while "
                 "it took the larger of the two); scored the way DiskSim scores its own runs "
                 "(its rms tool over the printed distributions) the same replay gives "
                 "{drives.hp_c2490a.demerit_bucketed_ms:.4f} ms. Per case, reads the model "
                 "makes wait almost a whole revolution are served at once by the drive and "
                 "writes after writes the other way round: the extracted set-up of a read "
                 "after a read is longer than the drive's. The extracted write settling delay "
                 "is negative ({drives.hp_c2490a.write_settle.extracted_ms:.3f} ms: writes "
                 "start sooner after a seek than reads); at zero the writes fit better (their "
                 "demerit {drives.hp_c2490a.writes.demerit_ms:.3f} ms becomes "
                 "{drives.hp_c2490a.write_settle.writes_demerit_ms:.3f} ms) and the whole "
                 "distribution worse ({drives.hp_c2490a.write_settle.demerit_ms:.3f} ms), so "
                 "it is not the gap either",
    "hp_c2247a": "with DiskSim's write batch rule (the head writes a request's first sector "
                 "once min(n, 10) of its sectors are buffered), its bus handshakes (data "
                 "preparation before every transfer, a read miss's disconnect and reselection "
                 "at the water mark, a write-through write's disconnect and reselection "
                 "before it completes) and its partial hits modelled, the simulated mean is "
                 "{drives.hp_c2247a.simulated_mean_ms:.3f} ms against DiskSim's "
                 "{drives.hp_c2247a.disksim_mean_ms:.3f} ms, but "
                 "{drives.hp_c2247a.cases.sequential_writes.lost} of the "
                 "{drives.hp_c2247a.cases.sequential_writes.requests:,} writes that continue "
                 "the write before still lose a revolution on the drive and not in the model "
                 "(the drive takes at least half a revolution longer; "
                 "{drives.hp_c2247a.no_handshakes.cases.sequential_writes.lost} without the "
                 "handshakes); no mechanism of DiskSim's or of a drive manual found so far "
                 "explains them (tools/lost_revolutions.py lists them). Read misses come out "
                 "{drives.hp_c2247a.cases.read_misses.model_minus_drive_mean_ms:+.2f} ms "
                 "against the drive on average (model minus drive; median "
                 "{drives.hp_c2247a.cases.read_misses.model_minus_drive_median_ms:+.2f} ms) "
                 "and "
                 "{drives.hp_c2247a.no_handshakes.cases.read_misses.model_minus_drive_mean_ms:+.2f} "
                 "ms without the handshakes: DiskSim's handshakes make them that slow. Scored "
                 "as DiskSim's own rms tool scores a run (the physical access time "
                 "distribution in the buckets of DiskSim's statdefs, about "
                 "{disksim_bucket_grow_pct} % wide), this replay gives "
                 "{drives.hp_c2247a.demerit_bucketed_ms:.4f} ms",
    "dec_rz26": "writes take {drives.dec_rz26.writes.simulated_mean_ms:.2f} ms in the model "
                "on average against {drives.dec_rz26.writes.measured_mean_ms:.2f} ms on the "
                "drive, and the write path is not where DiskSim differs: DiskSim 4.0's "
                "write-through write (seek from the end of the command overhead, data sent at "
                "the bus rate from then on, a sector written only if it is buffered when its "
                "pass begins, a bus held or never released changing no time with this model's "
                "zero handshakes) is what the model does. The drive loses a revolution (takes "
                "at least half a revolution longer than the model) on most random writes "
                "whose seek spans a few hundred cylinders when the model's rotational wait is "
                "under half a revolution "
                "({drives.dec_rz26.cases.writes_by_distance.band.lost} of "
                "{drives.dec_rz26.cases.writes_by_distance.band.requests} at "
                "{drives.dec_rz26.cases.writes_by_distance.band_from_cylinders} to "
                "{drives.dec_rz26.cases.writes_by_distance.band_to_cylinders} cylinders, "
                "{drives.dec_rz26.cases.writes_by_distance.outside.lost} of "
                "{drives.dec_rz26.cases.writes_by_distance.outside.requests} below "
                "{drives.dec_rz26.cases.writes_by_distance.short_below_cylinders} or from "
                "{drives.dec_rz26.cases.writes_by_distance.long_from_cylinders:,} on); reads "
                "over the same distances do not "
                "({drives.dec_rz26.cases.writes_by_distance.band_reads.lost} of "
                "{drives.dec_rz26.cases.writes_by_distance.band_reads.requests}), and no "
                "DiskSim parameter describes it. With the extracted overheads as DiskSim uses "
                "them, the model's median minus the drive's is "
                "{drives.dec_rz26.cases.writes_after_reads.model_minus_drive_median_ms:+.2f} "
                "ms for random writes after reads and "
                "{drives.dec_rz26.cases.reads_after_writes.model_minus_drive_median_ms:+.2f} "
                "ms for random reads after writes. DiskSim's own figures on this trace (mean "
                "{drives.dec_rz26.disksim_mean_ms:.3f} ms, demerit "
                "{drives.dec_rz26.disksim_demerit_ms:.3f} ms) are what the model gives with "
                "zero-latency reads switched off (mean "
                "{drives.dec_rz26.zero_latency_off.simulated_mean_ms:.3f} ms, demerit "
                "{drives.dec_rz26.zero_latency_off.demerit_ms:.4f} ms, "
                "{drives.dec_rz26.zero_latency_off.demerit_bucketed_ms:.4f} ms scored by "
                "DiskSim's rms tool), and that is how DiskSim 4.0 runs this model: its "
                "g1_access_block (diskmodel/mech_g1.c) takes the DM_OK that g1_convert_atop "
                "returns for a failure (dm.h numbers it -3; the test is rv < 0) and starts "
                "every read at its first sector, so the model's 'Immediate buffer read = 1' "
                "changes nothing in DiskSim. The drive does read on arrival (on the "
                "{drives.dec_rz26.zero_latency_off.random_reads_after_reads.requests} random "
                "reads after a read whose time it changes, the demerit is "
                "{drives.dec_rz26.zero_latency_off.random_reads_after_reads.demerit_on_ms:.2f} "
                "ms with it and "
                "{drives.dec_rz26.zero_latency_off.random_reads_after_reads.demerit_off_ms:.2f}"
                " ms without), so the model keeps it. Without it the reads fit worse (their "
                "demerit {drives.dec_rz26.reads.demerit_ms:.4f} ms becomes "
                "{drives.dec_rz26.zero_latency_off.reads_demerit_ms:.4f} ms) and the whole "
                "distribution better: the slower reads fill in for the writes the model "
                "serves too fast. "
                "Reads that follow a read sequentially take "
                "{drives.dec_rz26.cases.sequential_reads.model_minus_drive_mean_ms:.2f} ms "
                "longer in the model on average (read-ahead stops at the track's end, as "
                "DiskSim's scheme 1 does; the drive reads on). The extracted write settling "
                "delay is negative ({drives.dec_rz26.write_settle.extracted_ms:.3f} ms); at "
                "zero the writes fit better (their demerit "
                "{drives.dec_rz26.writes.demerit_ms:.3f} ms becomes "
                "{drives.dec_rz26.write_settle.writes_demerit_ms:.3f} ms, the whole "
                "distribution's {drives.dec_rz26.write_settle.demerit_ms:.3f} ms, still above "
                "DiskSim's), but the lost revolutions stay "
                "({drives.dec_rz26.write_settle.band.lost} of "
                "{drives.dec_rz26.write_settle.band.requests} in the same band)",
}
# one-sided: the demerit may be anything up to DiskSim's own on the same data
TARGETS: tuple[Target, ...] = tuple(
    Target(key=f"drives.{d}.demerit_ms", what=f"{DRIVES[d]}: demerit of the replayed trace",
           paper=v["demerit_ms"], bound=between(0.0, v["demerit_ms"]),
           source=Source("DiskSim", "4.0 validation suite, own results", VALIDATION_README,
                         _README_LINE[d], f"| {d} |"),
           note_bound=between(0.0, v["demerit_ms"]), known_deviation=_MISSED.get(d),
           units="ms")
    for d, v in DISKSIM.items())


def model_path(drive: str) -> Path:
    return DATA / "models" / f"{drive}.parv"


def trace_path(drive: str) -> Path:
    """The drive's measured validation trace (one of the five in ``data/validation/traces``)."""
    return DATA / "traces" / f"{drive}.trace"


#: the bus handshakes of a DiskSim model (its .diskspecs' "Data preparation overhead", reselect
#: and disconnect overheads, imported into ``firmware.overheads``); ``replay(handshakes=False)``
#: zeroes them, a diagnostic of how much of a gap they make
HANDSHAKES = ("data_prep_ms", "reselect_ms", "reselect_other_ms", "read_disconnect_ms",
              "read_disconnect_after_write_ms", "write_disconnect_ms",
              "random_write_disconnect_ms")
#: the seek distances the DEC RZ26's reason compares, in cylinders: a band of a few hundred
#: where the drive's random writes lose revolutions, and the short and long seeks outside
#: [SHORT_BELOW, LONG_FROM) where they mostly do not
BAND_CYLINDERS = (300, 500)
SHORT_BELOW, LONG_FROM = 100, 1000


def replay(drive: str, firmware: bool = True, zero_latency_reads: bool | None = None,
           handshakes: bool = True, keep_per_request: bool = False,
           write_settle_ms: float | None = None) -> dict:
    """One drive's replay: the validate report plus both CDFs for a figure.

    ``zero_latency_reads`` overrides the imported model's (a diagnostic: DiskSim 4.0 never
    applies zero latency, see :data:`simcore.disksim.importer.ZERO_LATENCY_NOTE`, and its
    figures on the DEC RZ26 match a replay without it); ``handshakes=False`` zeroes the model's bus
    handshakes (:data:`HANDSHAKES`); ``write_settle_ms`` replaces the model's "Add. write
    settling delay" (a diagnostic too). ``keep_per_request`` adds, under ``"per_request"``, the
    trace's steps and the measured and simulated times in trace order (numpy arrays, for
    comparing two replays; not JSON).
    """
    import tomllib

    from ..disk.layout import Layout
    from ..disk.profile_loader import profile_from_dict
    from ..disksim.importer import import_disksim
    from ..engine import replay_validation
    from ..workloads.traces.disksim import read_validation

    imported = import_disksim(model_path(drive))
    spec = tomllib.loads(imported.toml)
    if zero_latency_reads is not None:
        spec["firmware"]["zero_latency_reads"] = zero_latency_reads
    if write_settle_ms is not None:
        spec["mechanics"]["write_settle_ms"] = write_settle_ms
    if not handshakes:
        overheads = spec["firmware"].get("overheads", {})
        for k in HANDSHAKES:
            if k in overheads:
                overheads[k] = 0.0
    prof = profile_from_dict(spec, str(model_path(drive)))
    trace = read_validation(trace_path(drive))
    out = replay_validation(prof, trace, firmware=firmware, keep_records=True)
    recs = out.pop("records")
    sim = np.array([r.finish_ms - r.start_ms for r in recs])
    meas = np.array([s.measured_ms for s in trace.steps])
    out["cases"] = _cases(trace.steps, recs, meas, sim, prof.head_switch_ms)
    out["cases"].update(_groups(trace.steps, recs, meas, sim, prof.revolution_ms))
    out["cases"]["writes_by_distance"] = _lost_by_distance(
        trace.steps, recs, meas, sim, Layout(prof).cylinder_of, prof.revolution_ms)
    q = np.linspace(0.0, 1.0, 201)
    out["cdf"] = {"p": q.tolist(), "measured_ms": np.quantile(meas, q).tolist(),
                  "simulated_ms": np.quantile(sim, q).tolist()}
    out["warnings"] = len(imported.warnings)
    out["write_settle_ms"] = prof.write_settle_ms  # "Add. write settling delay" (or replaced)
    if keep_per_request:
        out["per_request"] = {"steps": trace.steps, "measured_ms": meas, "simulated_ms": sim}
    return out


def _cases(steps, recs, meas: np.ndarray, sim: np.ndarray, head_switch_ms: float) -> dict:
    """Two groups of reads where a model built on DiskSim's rules parts from the drive.

    ``rereads``: reads of a block the read just before had read (in DiskSim a read-ahead as
    long as the segment pushes the request out of the buffer, so these go to the platter).
    ``near``: the other reads the model serves from the platter without moving the arm, or
    after no more than a head switch. Each with its count and measured and simulated means.
    """
    reread = {i for i in range(1, len(steps))
              if steps[i].op == "R" and steps[i - 1].op == "R"
              and steps[i - 1].lba <= steps[i].lba < steps[i - 1].lba + steps[i - 1].sectors}
    near = [i for i, r in enumerate(recs) if steps[i].op == "R" and not r.cache_hit
            and i not in reread and r.seek_ms <= head_switch_ms + 1e-9]
    out = {}
    for label, idx in (("rereads", sorted(reread)), ("near", near)):
        ix = np.array(idx, dtype=int)
        out[label] = {"requests": len(ix),
                      "measured_mean_ms": float(meas[ix].mean()) if len(ix) else None,
                      "simulated_mean_ms": float(sim[ix].mean()) if len(ix) else None}
    return out


def _follows(steps, i: int) -> bool:
    """True when request ``i`` starts at the block after the request before ends."""
    return i > 0 and steps[i - 1].lba + steps[i - 1].sectors == steps[i].lba


def _lost(meas: np.ndarray, sim: np.ndarray, rev_ms: float) -> np.ndarray:
    """Requests that lose a revolution on the drive and not in the model: the drive takes at
    least half a revolution longer."""
    return meas - sim >= rev_ms / 2


def _groups(steps, recs, meas: np.ndarray, sim: np.ndarray, rev_ms: float) -> dict:
    """Request groups the reasons quote, each with its count and the model's time minus the
    drive's (mean and median, ms).

    ``sequential_writes``: writes that continue the write before (next block), with how many
    of them lose a revolution on the drive and not in the model (:func:`_lost`) under
    ``lost``. ``sequential_reads``: reads that continue the read before. ``read_misses``:
    reads the model serves from the platter. ``writes_after_reads`` and
    ``reads_after_writes``: requests that do not continue the one before, after one of the
    other kind.
    """
    n = len(steps)
    ops = [s.op for s in steps]
    follows = [_follows(steps, i) for i in range(n)]
    after = [ops[i - 1] if i else "" for i in range(n)]
    idx = {
        "sequential_writes": [i for i in range(n) if ops[i] == "W" and after[i] == "W"
                              and follows[i]],
        "sequential_reads": [i for i in range(n) if ops[i] == "R" and after[i] == "R"
                             and follows[i]],
        "read_misses": [i for i in range(n) if ops[i] == "R" and not recs[i].cache_hit],
        "writes_after_reads": [i for i in range(n) if ops[i] == "W" and after[i] == "R"
                               and not follows[i]],
        "reads_after_writes": [i for i in range(n) if ops[i] == "R" and after[i] == "W"
                               and not follows[i]],
    }
    out = {}
    for label, ix in idx.items():
        ix = np.array(ix, dtype=int)
        d = sim[ix] - meas[ix]
        out[label] = {"requests": len(ix),
                      "model_minus_drive_mean_ms": float(d.mean()) if len(ix) else None,
                      "model_minus_drive_median_ms": float(np.median(d)) if len(ix) else None}
    seq = np.array(idx["sequential_writes"], dtype=int)
    out["sequential_writes"]["lost"] = int(_lost(meas[seq], sim[seq], rev_ms).sum())
    return out


def _lost_by_distance(steps, recs, meas: np.ndarray, sim: np.ndarray, cylinder_of,
                      rev_ms: float) -> dict:
    """Random requests (not continuing the one before) the model serves after a rotational
    wait under half a revolution, by the seek's distance in cylinders: how many lose a
    revolution on the drive and not in the model (:func:`_lost`).

    The distance runs from the cylinder of the previous request's last block to that of the
    request's first (``cylinder_of`` maps a block to its cylinder). ``band``: writes whose
    distance is in :data:`BAND_CYLINDERS` (from, to); ``outside``: writes shorter than
    :data:`SHORT_BELOW` or from :data:`LONG_FROM` on; ``band_reads``: reads in the band.
    Each is ``{"requests", "lost"}``; the edges are in the result too.
    """
    lost = _lost(meas, sim, rev_ms)
    lo, hi = BAND_CYLINDERS
    out = {"band_from_cylinders": lo, "band_to_cylinders": hi, "short_below_cylinders":
           SHORT_BELOW, "long_from_cylinders": LONG_FROM, "rotation_under_ms": rev_ms / 2}
    groups = {"band": [], "outside": [], "band_reads": []}
    for i in range(1, len(steps)):
        if _follows(steps, i) or recs[i].rotation_ms >= rev_ms / 2:
            continue
        prev = steps[i - 1]
        dist = abs(cylinder_of(steps[i].lba) - cylinder_of(prev.lba + prev.sectors - 1))
        in_band = lo <= dist < hi
        if steps[i].op == "R":
            if in_band:
                groups["band_reads"].append(i)
        elif in_band:
            groups["band"].append(i)
        elif dist < SHORT_BELOW or dist >= LONG_FROM:
            groups["outside"].append(i)
    for label, ix in groups.items():
        out[label] = {"requests": len(ix), "lost": int(lost[ix].sum()) if ix else 0}
    return out


def _zero_latency_change(steps, meas: np.ndarray, on: np.ndarray, off: np.ndarray) -> dict:
    """Random reads after a read (not continuing it) whose simulated time changes when
    zero-latency reads are switched off: how many, and the demerit of their simulated times
    against the measured ones with zero-latency reads (``demerit_on_ms``) and without
    (``demerit_off_ms``)."""
    from ..metrics import demerit

    ix = [i for i in range(1, len(steps)) if steps[i].op == "R" and steps[i - 1].op == "R"
          and not _follows(steps, i) and abs(on[i] - off[i]) > 1e-9]
    if not ix:
        return {"requests": 0, "demerit_on_ms": None, "demerit_off_ms": None}
    return {"requests": len(ix), "demerit_on_ms": demerit(meas[ix], on[ix]),
            "demerit_off_ms": demerit(meas[ix], off[ix])}


def reproduce(quick: bool = False, seed: int = 0) -> dict:
    """Every traced drive with its firmware, and on the bare mechanism for contrast.

    Diagnostic replays more feed the reasons for a miss: the DEC RZ26 with zero-latency
    reads off, the HP C2247 with its bus handshakes zeroed, and each drive whose extracted
    write settling delay is negative with that delay at zero.

    Deterministic: the traces fix every request and gap, so ``seed`` and ``quick`` change
    nothing (each replay takes about a second).
    """
    drives = {}
    for d in DISKSIM:
        full = replay(d, keep_per_request=d == "dec_rz26")
        bare = replay(d, firmware=False)
        full["bare_demerit_ms"] = bare["demerit_ms"]
        if d == "dec_rz26":  # the diagnostics its reason quotes
            on = full.pop("per_request")
            off = replay(d, zero_latency_reads=False, keep_per_request=True)
            full["zero_latency_off"] = {k: off[k] for k in (
                "demerit_ms", "demerit_bucketed_ms", "simulated_mean_ms")}
            full["zero_latency_off"]["reads_demerit_ms"] = off["reads"]["demerit_ms"]
            full["zero_latency_off"]["random_reads_after_reads"] = _zero_latency_change(
                on["steps"], on["measured_ms"], on["simulated_ms"],
                off["per_request"]["simulated_ms"])
        settle = full.pop("write_settle_ms")  # the model's, as imported (replay)
        if settle < 0.0:  # writes that settle sooner than reads: the same replay without that
            flat = replay(d, write_settle_ms=0.0)
            full["write_settle"] = {
                "extracted_ms": settle, "demerit_ms": flat["demerit_ms"],
                "writes_demerit_ms": flat["writes"]["demerit_ms"],
                "band": flat["cases"]["writes_by_distance"]["band"]}
        if d == "hp_c2247a":
            plain = replay(d, handshakes=False)
            full["no_handshakes"] = {k: plain[k] for k in ("demerit_ms", "simulated_mean_ms")}
            full["no_handshakes"]["cases"] = {k: plain["cases"][k] for k in (
                "sequential_writes", "read_misses")}
        full["disksim_demerit_ms"] = DISKSIM[d]["demerit_ms"]
        full["disksim_mean_ms"] = DISKSIM[d]["mean_ms"]
        full["name"] = DRIVES[d]
        drives[d] = full
    out = {"drives": drives, "paper": PAPER, "disksim_bucket_grow_pct": DISKSIM_BUCKET_GROW_PCT}
    out["targets"] = evaluate(TARGETS, out, quick)
    return out
