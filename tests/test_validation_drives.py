"""DiskSim 4.0's validated drives (../shared/validation): every model imports, and the
measured traces replay with the drive's firmware on (Ruemmler & Wilkes's demerit)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import require

from simcore.disk.layout import Layout
from simcore.disksim.importer import load_any
from simcore.engine import replay_validation
from simcore.workloads.traces.disksim import read_validation

SHARED = Path(__file__).resolve().parents[2] / "shared" / "validation"
MODELS = ["atlas10k", "atlas_III", "barracuda", "cheetah4LP", "cheetah9LP", "dec_rz26",
          "hp_c2247a", "hp_c2490a", "hp_c3323a", "ibm18es"]
TRACED = ["dec_rz26", "hp_c2247a", "hp_c2490a", "hp_c3323a", "ibm18es"]


def parv(name: str) -> Path:
    require(SHARED.is_dir(), f"{SHARED} is missing (shared/ sits beside the repository)")
    return SHARED / "models" / f"{name}.parv"


@pytest.mark.parametrize("name", MODELS)
def test_every_validated_model_imports(name):
    prof = load_any(str(parv(name)))
    layout = Layout(prof)
    assert layout.capacity > 1_000_000
    # every LBA maps to a physical sector that maps back (spot check across the disk)
    for lba in np.linspace(0, layout.capacity - 1, 257).astype(int):
        a = layout.locate(int(lba))
        assert layout.lba_at(a.cylinder, a.surface, a.sector) == lba


@pytest.mark.parametrize("name", TRACED)
def test_firmware_brings_the_replay_closer_to_the_measured_drive(name):
    prof = load_any(str(parv(name)))
    trace = read_validation(SHARED / "traces" / f"{name}.trace")
    full = replay_validation(prof, trace)
    bare = replay_validation(prof, trace, firmware=False)
    assert full["requests"] == len(trace.steps)
    assert full["demerit_ms"] < bare["demerit_ms"]
    # the measured mean is reproduced within 3% (DiskSim's own is within 1.3%)
    assert full["simulated_mean_ms"] == pytest.approx(full["measured_mean_ms"], rel=0.03)
