"""The served drive inside a QEMU guest: the kernel's schedulers and hdparm see the model.

One guest boots on the emulated 2000-era IDE drive (Maxtor 92048U8) and runs
the host's fio and hdparm (issue 18; ../shared/notes/emulation.md): sorting
schedulers must beat ``none`` on 4 KiB random reads at iodepth 32, and
``hdparm -t --offset`` must read faster at the outer zone than the inner one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require, require_tool

REPO = Path(__file__).resolve().parent.parent
SCHEDULERS = ("none", "mq-deadline", "bfq")

SCRIPT = """
for s in {scheds}; do
  echo $s > /sys/block/sda/queue/scheduler
  echo 128 > /sys/block/sda/queue/nr_requests 2>/dev/null  # none keeps the IDE depth
  fio --name=$s --filename=/dev/sda --direct=1 --rw=randread --bs=4k --iodepth=32 \\
      --ioengine=libaio --runtime=3 --time_based --randseed=3 --output-format=json > $s.json
done
hdparm -t --offset 0 /dev/sda > outer.txt
hdparm -t --offset 18 /dev/sda > inner.txt
hdparm -I /dev/sda > identify.txt
"""


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    require_tool("qemu-system-x86_64")
    require_tool("fio")
    require_tool("hdparm")
    from simcore.serve import vm

    try:
        vm.check_available()
    except vm.VmUnavailable as exc:
        require(False, str(exc))
    tmp = tmp_path_factory.mktemp("vm")
    (tmp / "guest.sh").write_text(SCRIPT.format(scheds=" ".join(SCHEDULERS)))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, "-m", "simcore", "vm", "--disk", "maxtor92048u8",
                          "--script", str(tmp / "guest.sh"), "--out", str(tmp / "out")],
                         capture_output=True, text=True, env=env, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return tmp / "out", res.stderr


def test_guest_sees_the_modelled_drive(guest):
    out, log = guest
    ident = (out / "identify.txt").read_text()
    assert "Maxtor DiamondMax Plus 6800" in ident
    assert re.search(r"Nominal Media Rotation Rate:\s*7200", ident)
    assert "vm: maxtor92048u8 on ide" in log


def test_sorting_schedulers_beat_none_at_depth_32(guest):
    out, _ = guest
    iops = {s: json.loads((out / f"{s}.json").read_text())["jobs"][0]["read"]["iops"]
            for s in SCHEDULERS}
    assert iops["none"] > 20, iops
    assert max(iops["mq-deadline"], iops["bfq"]) > 1.2 * iops["none"], iops


def test_hdparm_offset_falls_from_outer_to_inner_zone(guest):
    out, _ = guest

    def mb_s(name: str) -> float:
        m = re.search(r"=\s*([\d.]+) MB/sec", (out / name).read_text())
        assert m, (out / name).read_text()
        return float(m.group(1))

    outer, inner = mb_s("outer.txt"), mb_s("inner.txt")
    assert outer > 1.2 * inner, (outer, inner)
