"""The recorded served-drive measurements (``data/measurements/served/<disk>.json``).

Written by :mod:`simcore.serve.record`; read here so that the chapter "Measuring real disks"
built without fio still has the emulated figures, labelled as recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..disk.profile_loader import data_dir

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
