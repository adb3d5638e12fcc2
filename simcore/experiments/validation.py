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
               "over the two printed distributions, buckets about 1 % wide) the replay gives "
               "{drives.ibm18es.demerit_bucketed_ms:.4f} ms. The model follows DiskSim 4.0's rules on this "
               "drive (the read-ahead runs its maximum past the request and the segment ring "
               "pushes the request out, a destage holds the head, the wait for a stopped "
               "read-ahead is added to the command overhead) and its mean matches DiskSim's "
               "to 0.001 ms. Two errors of those rules partly cancel: re-reads of sectors the "
               "read before had just read are served from the drive's buffer but go to the "
               "platter in the model, and reads the model serves without moving the arm, or "
               "after the extracted head switch, are slower on the drive by about a "
               "one-cylinder seek (the chapter gives both groups' counts and means)",
    "hp_c2490a": "{drives.hp_c2490a.demerit_ms:.4f} ms, above DiskSim's figure since the "
                 "model adds the wait for a stopped read-ahead to the command overhead, as "
                 "DiskSim 4.0's disk_check_hda does (the model was under DiskSim's figure while "
                 "it took the larger of the two); scored the way DiskSim scores its own runs "
                 "(its rms tool over the printed distributions) the same replay gives "
                 "{drives.hp_c2490a.demerit_bucketed_ms:.4f} ms. Per case, reads the model "
                 "makes wait almost a whole revolution are served at once by the drive and "
                 "writes after writes the other way round: the extracted set-up of a read "
                 "after a read is longer than the drive's",
    "hp_c2247a": "with DiskSim's write batch rule (the head writes a request's first sector "
                 "once min(n, 10) of its sectors are buffered), its bus handshakes (data "
                 "preparation before every transfer, a read miss's disconnect and reselection "
                 "at the water mark, a write-through write's disconnect and reselection "
                 "before it completes) and its partial hits modelled, the simulated mean is "
                 "DiskSim's (15.32 against 15.31 ms) but 56 of the 1,458 writes that "
                 "continue the write before still lose a revolution on the drive and not in "
                 "the model (77 without the handshakes). Lost and kept revolutions overlap "
                 "in the model's slack (the time between a write's batch being buffered and "
                 "its first sector reaching the head): no single delay separates them. Read "
                 "misses come out 0.12 to 0.20 ms slower than measured, as DiskSim's "
                 "handshakes make them. Scored as DiskSim's own rms tool scores a run (the "
                 "physical access time distribution in the buckets of DiskSim's statdefs, "
                 "about 1 % wide), this replay gives "
                 "{drives.hp_c2247a.demerit_bucketed_ms:.4f} ms",
    "dec_rz26": "writes come out 0.8 ms faster than on the drive on average, and the "
                "write path is not where DiskSim differs: DiskSim 4.0's write-through write "
                "(seek from the end of the command overhead, data sent at the bus rate from "
                "then on, a sector written only if it is buffered when its pass begins, a "
                "bus held or never released changing no time with this model's zero "
                "handshakes) is what the model does. The drive loses a revolution on most "
                "random writes whose seek spans a few hundred cylinders when the model's "
                "rotational wait is under 5 ms (about 9 in 10 at 300 to 500 cylinders, 1 in "
                "10 below 100 or above 1,000); reads over the same distances do not, and no "
                "DiskSim parameter describes it. Writes after reads are 0.5 ms slower in the "
                "model at the median and reads after writes 0.6 ms faster, with the extracted "
                "overheads as DiskSim uses them. DiskSim's own figures on this trace (mean "
                "15.691 ms, demerit 0.341) are what the model gives with zero-latency reads "
                "switched off (mean {drives.dec_rz26.zero_latency_off.simulated_mean_ms:.3f} "
                "ms, demerit {drives.dec_rz26.zero_latency_off.demerit_ms:.4f} ms, "
                "{drives.dec_rz26.zero_latency_off.demerit_bucketed_ms:.4f} ms scored by "
                "DiskSim's rms tool), yet DiskSim's code reads on arrival "
                "and the drive does too (on the 716 random reads it changes, the demerit is "
                "0.62 ms with it and 1.13 without), so that is not adopted. A likely reason "
                "for the match: this model spares the last sector of every track (sparing "
                "scheme 3), and in DiskSim 4.0's published source a zero-latency access whose "
                "head lands in the slot before the spare starts at the spare, which maps to "
                "no block and fails the assertion in disk_buffer_seekdone; our replay makes "
                "79 such accesses, so a run that finished most likely had zero-latency reads "
                "off. Without a DiskSim binary here that is not confirmed. Reads that follow "
                "a read sequentially are 0.47 ms slower in the model (read-ahead stops at the "
                "track's end, as DiskSim's scheme 1 does; the drive reads on)",
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


def replay(drive: str, firmware: bool = True, zero_latency_reads: bool | None = None) -> dict:
    """One drive's replay: the validate report plus both CDFs for a figure.

    ``zero_latency_reads`` overrides the imported model's (a diagnostic: DiskSim's own figures
    on the DEC RZ26 match a replay without them).
    """
    import tomllib

    from ..disk.profiles import profile_from_dict
    from ..disksim.importer import import_disksim
    from ..engine import replay_validation
    from ..workloads.traces.disksim import read_validation

    imported = import_disksim(model_path(drive))
    spec = tomllib.loads(imported.toml)
    if zero_latency_reads is not None:
        spec["firmware"]["zero_latency_reads"] = zero_latency_reads
    prof = profile_from_dict(spec, str(model_path(drive)))
    trace = read_validation(DATA / "traces" / f"{drive}.trace")
    out = replay_validation(prof, trace, firmware=firmware, keep_records=True)
    recs = out.pop("records")
    sim = np.array([r.finish_ms - r.start_ms for r in recs])
    meas = np.array([s.measured_ms for s in trace.steps])
    out["cases"] = _cases(trace.steps, recs, meas, sim, prof.head_switch_ms)
    q = np.linspace(0.0, 1.0, 201)
    out["cdf"] = {"p": q.tolist(), "measured_ms": np.quantile(meas, q).tolist(),
                  "simulated_ms": np.quantile(sim, q).tolist()}
    out["warnings"] = len(imported.warnings)
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


def reproduce(quick: bool = False, seed: int = 0) -> dict:
    """Every traced drive with its firmware, and on the bare mechanism for contrast.

    Deterministic: the traces fix every request and gap, so ``seed`` and ``quick`` change
    nothing (each replay takes about a second).
    """
    drives = {}
    for d in DISKSIM:
        full = replay(d)
        bare = replay(d, firmware=False)
        full["bare_demerit_ms"] = bare["demerit_ms"]
        if d == "dec_rz26":  # the diagnostic its reason quotes
            off = replay(d, zero_latency_reads=False)
            full["zero_latency_off"] = {k: off[k] for k in (
                "demerit_ms", "demerit_bucketed_ms", "simulated_mean_ms")}
        full["disksim_demerit_ms"] = DISKSIM[d]["demerit_ms"]
        full["name"] = DRIVES[d]
        drives[d] = full
    out = {"drives": drives, "paper": PAPER}
    out["targets"] = evaluate(TARGETS, out, quick)
    return out
