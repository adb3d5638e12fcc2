"""Measuring real disks safely: probe devices, run fio and hdparm, parse and record results.

The modules, from the bottom up:

- :mod:`hardware.probe`: block devices and the machine, read-only
  (``probe_devices``, ``describe``, ``machine``);
- :mod:`hardware.safety`: what a job may touch (``check_target``, ``Refused``);
- :mod:`hardware.tuning`: scheduler and read-ahead for one experiment, always
  restored (``temporarily``);
- :mod:`hardware.jobs`: the fio job files and their parameters (``list_jobs``);
- :mod:`hardware.fio` and :mod:`hardware.hdparm`: running the tools and
  parsing their output;
- :mod:`hardware.runner`: one job end to end (``run_job``), giving a record;
- :mod:`hardware.record`: the record format of ``data/measurements``
  (``load``, ``save``);
- :mod:`hardware.scratch`: a scratch file on a file system you name, refused
  on tmpfs and RAM disks (lab 4); :mod:`hardware.trackscan`: a timing scan
  from LBA 0 with the page cache and the drive's buffer defeated (lab 5);

Comparing a recording with the same experiment simulated is simcore's job:
:mod:`simcore.labkit.compare` (``python -m simcore compare``). This package is a
leaf and never imports simcore (``tests/test_layering.py`` holds it to that).

``python -m hardware`` is the command line (see :mod:`hardware.__main__`).
"""

from .hdparm import parse_I, parse_T, parse_t, parse_W
from .jobs import JobInfo, get_job, list_jobs
from .probe import describe, machine, probe_devices
from .record import load, save
from .runner import run_job
from .safety import Refused
from .tuning import temporarily

__all__ = [
    "JobInfo",
    "Refused",
    "describe",
    "get_job",
    "list_jobs",
    "load",
    "machine",
    "parse_I",
    "parse_T",
    "parse_W",
    "parse_t",
    "probe_devices",
    "run_job",
    "save",
    "temporarily",
]

_MOVED = {"figure", "overlay", "simulate"}


def __getattr__(name: str):
    if name in _MOVED:
        raise ImportError(f"hardware.{name} has moved to simcore.labkit.compare.{name} "
                          f"(hardware never imports simcore): "
                          f"write `from simcore.labkit.compare import {name}`")
    raise AttributeError(f"module 'hardware' has no attribute {name!r}")
