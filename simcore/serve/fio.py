"""Measure a served drive with Debian's fio (its ``nbd`` engine), as a student would.

Each helper serves the drive in a child process on a private socket
(:class:`~simcore.serve.served.ServedDisk`), runs one short fio job against
it and returns fio's number with the server's lateness summary, so a figure
always comes with how faithfully it was emulated.
"""

from __future__ import annotations

import json
import shutil
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


def random_reads(serve_args: list[str], iodepth: int = 1, seconds: float = 4,
                 seed: int = 11) -> Measured:
    """4 KiB random reads over the whole drive, at the offsets ``seed`` draws."""
    return run_fio(serve_args, ["--rw=randread", "--bs=4k", f"--iodepth={iodepth}",
                                f"--runtime={seconds}", "--time_based", *random_offsets(seed)])
