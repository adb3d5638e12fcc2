"""A mystery disk per student: a drive derived from the instructor's secret, and its grading.

Measuring a disk is only learnt by measuring one whose answer you do not
know. The instructor's secret and a student id give a *token*
(HMAC-SHA256, 16 hex digits); the token seeds a drive drawn from a realistic
family (a 3.5-inch ATA disk of about 1998-2004: 5,400 to 10,000 RPM, 8 to 20
zones, a three-point seek curve, skews that hide the head switch, a
segmented buffer), built in memory through the same validated profile path as
the bundled disks. The student serves it (``python -m simcore serve --mystery
TOKEN``), measures it with fio and hdparm, and reports; :func:`grade`
compares each reported parameter with the truth within the tolerance its
measurement method allows.

The token hides the parameters from a glance, not from a determined reader:
the simulator is open, so anyone holding a token can compute its drive. The
instructor's check that a token belongs to a student needs the secret
(:func:`token`).
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..disk.profile import DiskProfile
from ..disk.profile_loader import profile_from_dict
from ..errors import DisklabError

FAMILY = "3.5-inch ATA disks of about 1998-2004"
DEMO = "demo"

# what each reported parameter is, the unit, and how close a careful measurement gets
TOLERANCES: dict[str, tuple[str, float]] = {
    "rpm": ("spindle speed (RPM), from the revolution time of repeated reads", 0.02),
    "outer_mb_s": ("sequential read rate at the start of the disk (MB/s, 10^6 B/s), fio "
                   "bs=128k iodepth=4", 0.07),
    "inner_mb_s": ("sequential read rate at the end of the disk (MB/s)", 0.07),
    "random_read_ms": ("mean 4 KiB random read time over the whole disk at iodepth 1 (ms)", 0.08),
    "capacity_gb": ("capacity (GB, 10^9 bytes)", 0.01),
}


class MysteryError(DisklabError):
    """A secret file or a report that cannot be used."""


def read_secret(path: str | Path) -> bytes:
    """The instructor's secret: the file's bytes without surrounding white space."""
    data = Path(path).read_bytes().strip()
    if len(data) < 8:
        raise MysteryError(f"{path}: the secret must hold at least 8 characters "
                           f"(it holds {len(data)})")
    return data


def token(secret: bytes, student_id: str) -> str:
    """The student's token: what the instructor hands out (16 hex digits)."""
    if not str(student_id).strip():
        raise MysteryError("a student id must not be empty")
    return hmac.new(secret, str(student_id).strip().encode(), hashlib.sha256).hexdigest()[:16]


def _rng(tok: str) -> np.random.Generator:
    digest = hashlib.sha256(b"disklab-mystery\x00" + tok.strip().lower().encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def profile_dict(tok: str) -> dict[str, Any]:
    """The drawn drive as a profile table (the TOML layout of ``data/disks/``)."""
    if not tok or not tok.strip():
        raise MysteryError("a mystery token must not be empty")
    g = _rng(tok)
    rpm = int(g.choice([5400, 7200, 7200, 10000]))
    surfaces = int(g.choice([2, 4, 6, 8]))
    zones = int(g.integers(8, 21))
    cylinders = int(g.integers(12_000, 30_001))
    # linear density falls with spindle speed in the family (the channel's bandwidth is shared)
    outer = int(g.integers(300, 560) * (7200 / rpm) ** 0.3)
    inner = round(float(outer * g.uniform(0.52, 0.66)))
    avg = float(g.uniform(6.5, 9.5)) * (0.8 if rpm >= 10000 else 1.0)
    seek = {"model": "three-point", "single_ms": round(float(g.uniform(0.6, 1.4)), 2),
            "average_ms": round(avg, 2), "full_ms": round(avg * float(g.uniform(1.9, 2.4)), 2)}
    cache_kib = int(g.choice([512, 1024, 2048, 8192]))
    # segments of at least 256 KiB, so the read-ahead keeps up with 128 KiB sequential reads
    segments = int(g.choice([n for n in (1, 2, 4, 8) if cache_kib // n >= 256]))
    return {
        "id": f"mystery-{tok.strip().lower()[:16]}",
        "name": f"Mystery disk {tok.strip().lower()[:8]}",
        "year": int(g.integers(1998, 2005)),
        "source": f"drawn from the token by simcore.serve.mystery ({FAMILY})",
        "assumed": ["everything: a drawn drive, not a product"],
        "geometry": {"rpm": rpm, "surfaces": surfaces,
                     "zoning": {"count": zones, "cylinders": cylinders, "outer_spt": outer,
                                "inner_spt": inner}},
        "mechanics": {"head_switch_ms": round(float(g.uniform(0.5, 1.3)), 2),
                      "write_settle_ms": 0.0, "seek": seek},
        "firmware": {
            "overheads": {"read_miss_ms": round(float(g.uniform(0.1, 0.5)), 2),
                          "read_hit_ms": round(float(g.uniform(0.05, 0.15)), 2),
                          "write_ms": round(float(g.uniform(0.1, 0.5)), 2)},
            "cache": {"size_kib": cache_kib, "segments": segments, "read_ahead": "segment",
                      "max_read_ahead_kib": min(cache_kib // segments, 512),
                      "write_back": bool(g.random() < 0.5)},
        },
        "interface": {"name": "Ultra ATA/100", "rate_mb_s": 100.0},
    }


@lru_cache(maxsize=64)
def mystery_profile_for_token(tok: str) -> DiskProfile:
    return profile_from_dict(profile_dict(tok), path=f"<mystery disk {tok[:8]}>")


def mystery_profile(secret: bytes | None, key: str) -> DiskProfile:
    """The drive to serve: ``key`` is a student id when a secret is given, else a token."""
    return mystery_profile_for_token(token(secret, key) if secret is not None else key)


def zone_stream_mb_s(profile: DiskProfile, zone: int) -> float:
    """A zone's sequential rate: whole tracks, each switch costing its skew in sectors.

    The raw media rate (sectors per track per revolution) is an upper bound:
    every head switch costs ``track_skew`` sector times and every cylinder
    switch ``cylinder_skew`` (Gray 2000 §2.3; Schindler et al. 2002 on skew).
    """
    z = profile.zones[zone]
    spt, s = z.sectors_per_track, profile.surfaces
    sector_ms = profile.revolution_ms / spt
    per_cyl_ms = (s * spt + (s - 1) * z.track_skew + z.cylinder_skew) * sector_ms
    return s * spt * 512 / per_cyl_ms / 1000.0


def mean_random_read_ms(profile: DiskProfile, n: int = 1000, seed: int = 0) -> float:
    """The model's mean 4 KiB random read time at iodepth 1, buffer on (an offline run)."""
    from ..disk.access import Mechanism
    from ..engine import run
    from ..workloads import random_open

    mech = Mechanism(profile)
    wl = random_open(mech.layout.capacity, n=n, rate_per_s=5.0, size_kib=4, seed=seed)
    res = run(mech, wl, cache=True)
    return float(np.mean([r.finish_ms - r.arrival_ms for r in res.records]))


@lru_cache(maxsize=64)
def truth(tok: str) -> dict[str, float]:
    """The measurable parameters of a token's drive, as a careful student would find them."""
    from ..disk.access import Mechanism

    prof = mystery_profile_for_token(tok)
    layout = Mechanism(prof).layout
    return {"rpm": float(prof.rpm), "outer_mb_s": zone_stream_mb_s(prof, 0),
            "inner_mb_s": zone_stream_mb_s(prof, layout.zone_count - 1),
            "random_read_ms": mean_random_read_ms(prof),
            "capacity_gb": layout.capacity * 512 / 1e9}


def grade(report: dict[str, Any], tok: str) -> dict[str, dict[str, Any]]:
    """Judge each reported parameter against the truth (unknown keys are an error)."""
    unknown = set(report) - set(TOLERANCES) - {"token", "student_id"}
    if unknown:
        raise MysteryError(f"the report names unknown parameters {sorted(unknown)}; "
                           f"known: {sorted(TOLERANCES)}")
    t = truth(tok)
    out = {}
    for key, (what, rel) in TOLERANCES.items():
        if key not in report or report[key] is None:
            out[key] = {"ok": False, "reported": None, "what": what, "tolerance": rel}
            continue
        try:
            val = float(report[key])
        except (TypeError, ValueError):
            raise MysteryError(f"report field '{key}': {report[key]!r} is not a number") from None
        ok = bool(abs(val - t[key]) <= rel * abs(t[key]))
        out[key] = {"ok": ok, "reported": val, "truth": t[key], "tolerance": rel, "what": what}
    return out


def grading_secret() -> bytes | None:
    """The instructor's secret when grading (``DISKLAB_MYSTERY_SECRET_FILE``), else None."""
    import os

    f = os.environ.get("DISKLAB_MYSTERY_SECRET_FILE")
    return read_secret(f) if f else None
