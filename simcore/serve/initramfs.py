"""A small initramfs for the throwaway guest: busybox, a few modules and an init script.

The guest boots a distribution kernel extracted (without root) from Debian's
``linux-image`` package (../shared/notes/emulation.md); the disk, 9p and
scheduler drivers are modules, so the initramfs carries them together with
their dependencies (each module's ``depends=`` field in ``.modinfo``). The
archive is written here in the cpio "newc" format, so no cpio tool is needed.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
from pathlib import Path

MODULES = ("virtio_pci", "9pnet_virtio", "9p", "ata_piix", "ahci", "sd_mod", "bfq",
           "kyber-iosched")

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.load); do insmod /lib/modules/$m.ko 2>/dev/null; done
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose hostroot /host || echo "vm: no host root" >&2
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mount -t tmpfs tmp /host/tmp
mkdir -p /host/dev/shm /host/tmp/vm
mount -t tmpfs shm /host/dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 outdir /host/tmp/vm
n=0
while [ ! -b /dev/sda ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done
echo "vm: guest up $(cat /proc/uptime)" > /host/tmp/vm/boot
chroot /host /bin/sh -c 'cd /tmp/vm && PATH=/usr/sbin:/usr/bin:/sbin:/bin sh ./script.sh >stdout 2>stderr; echo $? >rc'
sync
poweroff -f
"""


def _norm(name: str) -> str:
    return name.replace("-", "_")


def module_index(modroot: Path) -> dict[str, Path]:
    """Every ``.ko`` under a kernel's module tree, by (normalised) module name."""
    return {_norm(p.name[:-3]): p for p in modroot.rglob("*.ko")}


def _depends(path: Path) -> list[str]:
    m = re.search(rb"(?:^|\x00)depends=([^\x00]*)\x00", path.read_bytes())
    return [d for d in (m.group(1).decode().split(",") if m else []) if d]


def load_order(modroot: Path, wanted: tuple[str, ...] = MODULES) -> list[Path]:
    """The wanted modules and their dependencies, each after what it needs."""
    index = module_index(modroot)
    order: list[Path] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        key = _norm(name)
        if key in seen:
            return
        seen.add(key)
        if key not in index:  # built into the kernel
            return
        for dep in _depends(index[key]):
            visit(dep)
        order.append(index[key])

    for w in wanted:
        visit(w)
    return order


class _Cpio:
    def __init__(self) -> None:
        self.buf = io.BytesIO()
        self.ino = 1

    def add(self, name: str, mode: int, data: bytes = b"") -> None:
        nb = name.encode() + b"\x00"
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0))
        self.ino += 1
        self.buf.write(hdr.encode() + nb)
        self.buf.write(b"\x00" * (-(110 + len(nb)) % 4))
        self.buf.write(data)
        self.buf.write(b"\x00" * (-len(data) % 4))

    def finish(self) -> bytes:
        self.add("TRAILER!!!", 0)
        return self.buf.getvalue()


def build(busybox: Path, modroot: Path, out: Path) -> Path:
    """Write a gzipped newc initramfs with busybox, the modules and the init script."""
    mods = load_order(modroot)
    c = _Cpio()
    for d in ("bin", "dev", "proc", "sys", "lib", "lib/modules", "host", "tmp"):
        c.add(d, stat.S_IFDIR | 0o755)
    c.add("bin/busybox", stat.S_IFREG | 0o755, busybox.read_bytes())
    c.add("init", stat.S_IFREG | 0o755, INIT.encode())
    names = []
    for m in mods:
        stem = _norm(m.name[:-3])
        names.append(stem)
        c.add(f"lib/modules/{stem}.ko", stat.S_IFREG | 0o644, m.read_bytes())
    c.add("modules.load", stat.S_IFREG | 0o644, ("\n".join(names) + "\n").encode())
    tmp = out.with_suffix(".part")
    tmp.write_bytes(gzip.compress(c.finish(), compresslevel=6))
    os.replace(tmp, out)
    return out
