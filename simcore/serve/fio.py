"""Measure a served drive with Debian's fio (its ``nbd`` engine), as a student would.

Each helper serves the drive in a child process on a private socket
(:class:`~simcore.serve.served.ServedDisk`), runs one short fio job against
it and returns fio's number with the server's lateness summary, so a figure
always comes with how faithfully it was emulated.
"""

from __future__ import annotations

import functools
import json
import math
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any

from .served import ServedDisk, run_client


class FioUnavailable(RuntimeError):
    """fio (with its nbd engine) is not installed."""


@dataclass
class Measured:
    """One fio job on a served drive: fio's read section and the server's lateness."""

    read: dict[str, Any]
    lateness: dict[str, Any] = field(default_factory=dict)

    @property
    def mb_s(self) -> float:
        return self.read["bw_bytes"] / 1e6

    @property
    def iops(self) -> float:
        return float(self.read["iops"])

    @property
    def mean_ms(self) -> float:
        return self.read["lat_ns"]["mean"] / 1e6

    @property
    def p99_ms(self) -> float:
        return self.read["lat_ns"].get("percentile", self.read["clat_ns"]["percentile"])[
            "99.000000"] / 1e6


def run_fio(serve_args: list[str], fio_args: list[str], timeout_s: float = 300) -> Measured:
    """Serve with ``serve_args`` (e.g. ``["--disk", "maxtor92048u8"]``) and run one fio job."""
    if shutil.which("fio") is None:
        raise FioUnavailable("fio is not installed (apt-get install fio)")
    with tempfile.TemporaryDirectory(prefix="simcore-fio-") as tmp, \
            ServedDisk(tmp, serve_args) as disk:
        cmd = ["fio", "--ioengine=nbd", f"--uri=nbd+unix:///?socket={disk.sock}",
               "--output-format=json", "--name=job", *fio_args]
        res, _ = run_client(cmd, timeout_s)
    if res.returncode != 0:
        raise RuntimeError(f"fio failed: {res.stderr.strip()[-1500:]}")
    report = json.loads(res.stdout[res.stdout.index("{"):])
    return Measured(report["jobs"][0]["read"], disk.summary)


def sequential(serve_args: list[str], offset_bytes: int = 0, seconds: float = 3,
               bs: str = "128k", iodepth: int = 4) -> Measured:
    """Sequential reads from ``offset_bytes`` (the method the mystery disk's tolerance assumes)."""
    return run_fio(serve_args, ["--rw=read", f"--bs={bs}", f"--iodepth={iodepth}",
                                f"--offset={offset_bytes}", "--size=256m",
                                f"--runtime={seconds}", "--time_based"])


def random_offsets(seed: int) -> list[str]:
    """fio options that let ``seed`` choose a random job's offsets: ``--randrepeat=0 --randseed``.

    With fio's default ``randrepeat=1``, fio 3.33 ignores ``--randseed`` for the
    offsets: every run of a random job, whatever its seed, reads the same
    fractions of its range in the same order (one frozen sample for every run
    and every student). With ``randrepeat=0`` the seed draws them, the same ones
    for the same seed (tests/test_fio_offsets.py). Two jobs given one seed read
    the same offsets, so a ratio of the two is a paired comparison.
    """
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (got {seed!r})")
    return ["--randrepeat=0", f"--randseed={int(seed)}"]


def seed_options(seed: int) -> dict[str, str]:
    """The ``job options`` fio's JSON report holds for :func:`random_offsets` of ``seed``.

    fio 3.33 reports each option as it was given (``{"randrepeat": "0", "randseed":
    "12345"}``), and nothing for one left at its default; a judge's ``require``
    (:mod:`simcore.labkit.judges`) checks a report against this dict.
    """
    return dict(a[2:].split("=", 1) for a in random_offsets(seed))


#: The job options that choose a random job's offsets (the rest: how fast and how long it runs).
_OFFSET_OPTIONS = ("--rw=", "--readwrite=", "--bs=", "--blocksize=", "--offset=", "--size=",
                   "--randrepeat=", "--randseed=", "--random_distribution=", "--norandommap",
                   "--random_generator=")
_READ = re.compile(r" read (\d+) \d+$", re.M)


def job_offsets(fio_args: list[str], size_bytes: int, n: int) -> list[int] | None:
    """The first ``n`` byte offsets fio reads for the job ``fio_args``, in the order fio issues them.

    fio itself draws them (its own generator, never reimplemented here): the job's
    offset options (``--rw --bs --offset --size --randrepeat --randseed``) run on
    fio's ``null`` engine over ``size_bytes`` (the served drive's size, which the
    ``nbd`` engine takes as the file's size), and fio's ``--write_iolog`` lists
    the offsets. The null engine draws the same offsets as a sparse file of that
    size read with ``psync`` (tests/test_fio_offsets.py) and writes no file, so
    it runs under a sandbox's file-size limit; fio issues them in the same order
    whatever its engine and depth. Past one pass over the job's range, fio
    starts another as a ``--time_based`` run does (``--loops``). Returns None when
    fio is not installed or does not run here; cached per (options, size, n).
    """
    if shutil.which("fio") is None:
        return None
    keep = tuple(a for a in fio_args if a.startswith(_OFFSET_OPTIONS))
    if not any(a.startswith("--size=") for a in keep):
        keep += (f"--size={int(size_bytes)}",)
    try:
        got = _offsets(keep, int(n))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return list(got)


@functools.lru_cache(maxsize=64)
def _offsets(keep: tuple[str, ...], n: int) -> tuple[int, ...]:
    got = _fio_log(keep, [f"--number_ios={n}"])
    if 0 < len(got) < n:  # one pass over the range ended: fio's next passes, as time_based runs
        got = _fio_log(keep, [f"--loops={math.ceil(n / len(got)) + 1}"])
    if len(got) < n:
        raise ValueError(f"fio listed {len(got)} offsets, not {n}")
    return tuple(got[:n])


def _fio_log(keep: tuple[str, ...], extra: list[str]) -> list[int]:
    with tempfile.TemporaryDirectory(prefix="simcore-offsets-") as tmp:
        log = f"{tmp}/io.log"
        subprocess.run(["fio", "--name=offsets", "--ioengine=null", "--thread",
                        f"--write_iolog={log}", "--output-format=terse", *keep, *extra],
                       check=True, capture_output=True, text=True, timeout=60)
        with open(log) as fh:
            return [int(m.group(1)) for m in _READ.finditer(fh.read())]


def random_reads(serve_args: list[str], iodepth: int = 1, seconds: float = 4,
                 seed: int = 11) -> Measured:
    """4 KiB random reads over the whole drive, at the offsets ``seed`` draws."""
    return run_fio(serve_args, ["--rw=randread", "--bs=4k", f"--iodepth={iodepth}",
                                f"--runtime={seconds}", "--time_based", *random_offsets(seed)])
