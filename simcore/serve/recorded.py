"""The recorded served-drive measurements (``data/measurements/served/``), for book and labs.

Written by :mod:`simcore.serve.record`; read here so that a notebook without
fio (or on a build machine) still has the emulated figures, labelled as
recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..disk.profiles import data_dir

DISK = "maxtor92048u8"


def path(disk: str = DISK) -> Path:
    return data_dir() / "measurements" / "served" / f"{disk}.json"


def load(disk: str = DISK) -> dict[str, Any]:
    """The recording of ``disk`` (FileNotFoundError names the re-record command)."""
    p = path(disk)
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing; record it with python -m simcore.serve.record "
                                f"--disk {disk} --out {p}")
    return json.loads(p.read_text())


def mystery_outer_mb_s(token: str) -> float | None:
    """The recorded outer-zone rate of a mystery disk, or None (only the demo one is recorded)."""
    try:
        rec = load()
    except FileNotFoundError:
        return None
    demo = rec.get("mystery_demo", {})
    if demo.get("token") == token and token:
        print(f"RECORDED earlier, not measured here: mystery disk '{token}' served by "
              f"`python -m simcore serve` and read with fio ({demo['method']}) on "
              f"{rec['recorded_at'][:10]}: {demo['outer_mb_s']:.2f} MB/s.")
        return float(demo["outer_mb_s"])
    print(f"No recording of mystery disk '{token}': set MEASURE = True above (needs fio), or "
          "measure it with the commands in the text.")
    return None
