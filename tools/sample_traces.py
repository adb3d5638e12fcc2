"""Write the synthetic sample traces of ``data/traces`` (``sample_database.*``).

They are the first 300 requests of ``simcore.workloads.synth.database_like(80_418_240,
duration_s=4, seed=3)`` (an 80 GB disk's worth of LBAs, like the WD800JD's), written in every
format simcore writes. ``python tools/sample_traces.py`` rewrites them;
``tests/test_traces.py`` checks that the files are exactly what this produces, so the samples
cannot drift from the generator the README names.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcore.workloads import OpenWorkload  # noqa: E402
from simcore.workloads.synth import database_like  # noqa: E402
from simcore.workloads.traces import write_trace  # noqa: E402

OUT = ROOT / "data" / "traces"
CAPACITY, DURATION_S, SEED, REQUESTS = 80_418_240, 4, 3, 300
#: file name -> (format, writer options)
FILES = {
    "sample_database.csv": ("csv", {}),
    "sample_database.ascii": ("disksim-ascii", {}),
    "sample_database.blkparse": ("blkparse", {}),
    "sample_database.v2.iolog": ("fio-v2", {"waits": True}),
    "sample_database.v3.iolog": ("fio-v3", {}),
}


def sample() -> OpenWorkload:
    """The requests the sample files hold."""
    wl = database_like(CAPACITY, duration_s=DURATION_S, seed=SEED)
    return OpenWorkload(list(wl.requests[:REQUESTS]), name="sample_database")


def write_all(folder: Path) -> list[Path]:
    """Write every sample file into ``folder`` (replacing what is there)."""
    wl = sample()
    paths = []
    for name, (fmt, options) in FILES.items():
        path = folder / name
        write_trace(wl, path, fmt, overwrite=True, **options)
        paths.append(path)
    return paths


def stale() -> list[str]:
    """The sample files in ``data/traces`` that differ from what :func:`write_all` writes."""
    with tempfile.TemporaryDirectory() as tmp:
        return [p.name for p in write_all(Path(tmp))
                if p.read_bytes() != (OUT / p.name).read_bytes()]


if __name__ == "__main__":
    for p in write_all(OUT):
        print(f"wrote {p.relative_to(ROOT)}")
