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

from simcore.serve.fio import random_offsets

REPO = Path(__file__).resolve().parent.parent
SCHEDULERS = ("none", "mq-deadline", "bfq")

SCRIPT = """
for s in {scheds}; do
  echo $s > /sys/block/sda/queue/scheduler
  echo 128 > /sys/block/sda/queue/nr_requests 2>/dev/null  # none keeps the IDE depth
  fio --name=$s --filename=/dev/sda --direct=1 --rw=randread --bs=4k --iodepth=32 \\
      --ioengine=libaio --runtime=3 --time_based {offsets} --output-format=json > $s.json
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
    (tmp / "guest.sh").write_text(SCRIPT.format(scheds=" ".join(SCHEDULERS),
                                                offsets=" ".join(random_offsets(3))))
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


# -- without QEMU: the refusal, the initramfs and the module order ----------------------------
def test_vm_refuses_with_the_setup_line_when_the_kernel_is_missing(tmp_path, repo_root):
    env = dict(os.environ, PYTHONPATH=repo_root, XDG_CACHE_HOME=str(tmp_path))
    res = subprocess.run([sys.executable, "-m", "simcore", "vm", "--run", "true"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 3
    assert ("python -m simcore vm --setup" in res.stderr
            or "apt-get install -y qemu-system-x86" in res.stderr), res.stderr


def test_module_order_puts_dependencies_first(tmp_path):
    from simcore.serve import initramfs

    mods = tmp_path / "kernel"
    mods.mkdir()
    for name, deps in {"ahci": "libahci,libata", "libahci": "libata", "libata": "scsi_mod",
                       "scsi_mod": "", "kyber-iosched": "", "unused": "libata"}.items():
        (mods / f"{name}.ko").write_bytes(b"\x7fELF junk\x00license=GPL\x00depends=" +
                                          deps.encode() + b"\x00name=" + name.encode() + b"\x00")
    order = [p.name for p in initramfs.load_order(mods, ("ahci", "kyber_iosched", "builtin"))]
    assert order == ["scsi_mod.ko", "libata.ko", "libahci.ko", "ahci.ko", "kyber-iosched.ko"]


def test_initramfs_is_a_newc_archive_with_init_and_modules(tmp_path):
    import gzip

    from simcore.serve import initramfs

    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "sd_mod.ko").write_bytes(b"\x00depends=\x00")
    bb = tmp_path / "busybox"
    bb.write_bytes(b"#!fake busybox")
    out = initramfs.build(bb, mods, tmp_path / "initrd.gz")
    data = gzip.decompress(out.read_bytes())
    names, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701"
        size = int(data[pos + 54:pos + 62], 16)
        nlen = int(data[pos + 94:pos + 102], 16)
        name = data[pos + 110:pos + 110 + nlen - 1].decode()
        pos += 110 + nlen
        pos += -pos % 4
        if name == "TRAILER!!!":
            break
        names.append(name)
        body = data[pos:pos + size]
        if name == "modules.load":
            assert body == b"sd_mod\n"
        pos += size + (-size % 4)
    assert {"init", "bin/busybox", "lib/modules/sd_mod.ko", "modules.load"} <= set(names)
