"""A throwaway QEMU guest whose disk is the served simulated drive.

The guest (QEMU under TCG: no KVM is needed, or available, on this machine
kind) boots a Debian kernel with a small busybox initramfs, mounts the host's
root read-only over 9p and runs a script there, so the host's own fio and
hdparm measure the emulated disk through a real kernel: its block layer, its
schedulers (none, mq-deadline, bfq, kyber) and its IDE or AHCI driver. The
disk is QEMU's NBD client talking to ``simcore serve``. Facts and pitfalls:
../shared/notes/emulation.md.

Nothing is downloaded when a guest runs. ``setup()`` (``python -m simcore vm
--setup``) fetches the kernel package with ``apt-get download`` and extracts it
under the user's cache directory; ``run()`` refuses with that line when the
kernel or QEMU is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..disk.profile import DiskProfile
from . import initramfs

KERNEL_PACKAGE = "linux-image-amd64"
QEMU = "qemu-system-x86_64"
INSTALL_QEMU = "apt-get install -y qemu-system-x86 busybox-static"
SETUP_LINE = "python -m simcore vm --setup"


class VmUnavailable(RuntimeError):
    """The guest cannot run here (no QEMU, no kernel); the message says how to fix it."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "disklab" / "vm"


def _kernel(root: Path) -> tuple[Path, Path] | None:
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    if not kernels:
        return None
    ver = kernels[-1].name[len("vmlinuz-"):]
    mods = root / "lib" / "modules" / ver
    return (kernels[-1], mods) if mods.is_dir() else None


def _busybox() -> Path | None:
    for p in ("/bin/busybox", "/usr/bin/busybox"):
        if os.path.exists(p):
            return Path(p)
    return None


def setup(verbose: bool = True) -> Path:
    """Download and extract the kernel package, then build the initramfs (idempotent)."""
    try:
        return _setup(verbose)
    except subprocess.CalledProcessError as exc:
        err = (exc.stderr or "").strip() if isinstance(exc.stderr, str) else ""
        why = f": {err}" if err else ""
        raise VmUnavailable(f"'{' '.join(exc.cmd)}' failed (exit {exc.returncode}){why}; "
                            "as root, run 'apt-get update' first") from None


def _setup(verbose: bool) -> Path:
    root = cache_dir() / "root"
    if _kernel(root) is None:
        if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
            raise VmUnavailable("setting up the guest needs apt-get and dpkg-deb (Debian/Ubuntu)")
        deb = cache_dir() / "deb"
        deb.mkdir(parents=True, exist_ok=True)
        dep = subprocess.run(["apt-cache", "depends", KERNEL_PACKAGE], capture_output=True,
                             text=True, check=True).stdout
        names = [ln.split(":", 1)[1].strip() for ln in dep.splitlines()
                 if ln.strip().startswith("Depends:") and "linux-image-" in ln]
        if not names:
            raise VmUnavailable(f"apt-cache knows no kernel behind {KERNEL_PACKAGE}; "
                                "run apt-get update")
        if verbose:
            print(f"vm: apt-get download {names[0]}", file=sys.stderr)
        subprocess.run(["apt-get", "download", names[0]], cwd=deb, check=True,
                       capture_output=not verbose)
        pkg = sorted(deb.glob(f"{names[0]}_*.deb"))[-1]
        tmp = Path(tempfile.mkdtemp(dir=cache_dir()))
        try:
            subprocess.run(["dpkg-deb", "-x", str(pkg), str(tmp)], check=True)
            _keep_only_what_boots(tmp)
            if root.exists():
                shutil.rmtree(root)
            tmp.rename(root)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp)
        pkg.unlink()
    return initrd_path(build=True)


def _keep_only_what_boots(tree: Path) -> None:
    """Drop every module the initramfs does not carry (400 MB extracted, about 5 MB kept)."""
    found = _kernel(tree)
    if found is None:
        raise VmUnavailable(f"the kernel package holds no boot/vmlinuz-* and modules ({tree})")
    _, mods = found
    keep = {p.resolve() for p in initramfs.load_order(mods)}
    for ko in mods.rglob("*.ko*"):
        if ko.resolve() not in keep:
            ko.unlink()
    for extra in ("usr", "boot/System.map-" + mods.name):
        target = tree / extra
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def initrd_path(build: bool = False) -> Path:
    """The cached initramfs, built from busybox and the extracted modules when needed."""
    found = _kernel(cache_dir() / "root")
    if found is None:
        raise VmUnavailable(f"no guest kernel in {cache_dir()}; run: {SETUP_LINE}")
    _, mods = found
    out = cache_dir() / f"initrd-{mods.name}.gz"
    bb = _busybox()
    if bb is None:
        raise VmUnavailable(f"busybox is not installed; run: {INSTALL_QEMU}")
    stale = out.exists() and out.stat().st_mtime < Path(initramfs.__file__).stat().st_mtime
    if not out.exists() or stale or build:
        initramfs.build(bb, mods, out)
    return out


def default_bus(profile: DiskProfile) -> str:
    """IDE (PIIX, depth 1) for a drive of the parallel-ATA era, AHCI with NCQ after."""
    name = f"{profile.name} {profile.interface}".lower()
    if "sata" in name or "serial ata" in name or (profile.year or 2000) >= 2005:
        return "ahci"
    return "ide"


@dataclass
class GuestResult:
    """What a guest run returned: the script's output and exit code, files and timings."""

    stdout: str
    stderr: str
    returncode: int
    files: dict[str, bytes] = field(default_factory=dict)
    console: str = ""
    boot_s: float | None = None
    wall_s: float = 0.0


def qemu_command(sock: str, work: str, profile: DiskProfile, bus: str, kernel: Path,
                 initrd: Path, memory_mb: int = 512) -> list[str]:
    """The QEMU command line: TCG, the kernel, two 9p shares and the NBD disk."""
    machine = "q35" if bus == "ahci" else "pc"
    model = profile.name.split("(")[0].strip()[:40] or profile.id
    disk = (f"file=nbd+unix:///?socket={sock},format=raw,if=none,id=d0,cache=none,"
            f"aio=threads")
    dev = (f"ide-hd,drive=d0,bus=ide.0,unit=0,model={model.replace(',', ' ')},"
           f"serial={profile.id[:20]},rotation_rate={round(profile.rpm)}")
    if bus == "ahci":
        dev = dev.replace(",unit=0", "")
    return [QEMU, "-machine", f"{machine},accel=tcg", "-cpu", "max", "-m", str(memory_mb),
            "-smp", "1", "-nodefaults", "-display", "none", "-no-reboot",
            "-serial", f"file:{work}/console.log",
            "-kernel", str(kernel), "-initrd", str(initrd),
            "-append", "console=ttyS0 quiet panic=-1 rdinit=/init",
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on",
            "-virtfs", f"local,path={work},mount_tag=outdir,security_model=none",
            "-drive", disk, "-device", dev]


def check_available() -> tuple[Path, Path]:
    """The kernel and initramfs to boot, or VmUnavailable naming the install step."""
    if shutil.which(QEMU) is None:
        raise VmUnavailable(f"{QEMU} is not installed; run: {INSTALL_QEMU}")
    found = _kernel(cache_dir() / "root")
    if found is None:
        raise VmUnavailable(f"no guest kernel in {cache_dir()}; run: {SETUP_LINE}")
    return found[0], initrd_path()


def run_guest(sock: str, profile: DiskProfile, script: str, bus: str | None = None,
              timeout_s: float = 600.0, files: dict[str, bytes] | None = None) -> GuestResult:
    """Boot a guest on the disk served at ``sock``, run ``script`` (sh) inside, return results.

    The script runs in the host's root (read-only) with ``/tmp/vm`` writable:
    what it leaves there comes back in ``GuestResult.files``. The disk is
    ``/dev/sda``.
    """
    kernel, initrd = check_available()
    bus = bus or default_bus(profile)
    if bus not in ("ide", "ahci"):
        raise ValueError(f"bus must be 'ide' or 'ahci', not {bus!r}")
    with tempfile.TemporaryDirectory(prefix="simcore-vm-") as work:
        Path(work, "script.sh").write_text(script)
        for name, data in (files or {}).items():
            Path(work, name).write_bytes(data)
        cmd = qemu_command(sock, work, profile, bus, kernel, initrd)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        boot_s = None
        try:
            while proc.poll() is None:
                if boot_s is None and os.path.exists(os.path.join(work, "boot")):
                    boot_s = time.monotonic() - t0
                if time.monotonic() - t0 > timeout_s:
                    proc.kill()
                    raise TimeoutError(f"the guest ran longer than {timeout_s:.0f} s")
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.kill()
            _, qerr = proc.communicate()
        wall = time.monotonic() - t0
        w = Path(work)
        console = (w / "console.log").read_text(errors="replace") if (w / "console.log").exists() \
            else ""
        if not (w / "rc").exists():
            raise RuntimeError(f"the guest did not finish its script (qemu exit "
                               f"{proc.returncode}): {qerr.strip()[-2000:]}\n{console[-3000:]}")
        skip = {"script.sh", "stdout", "stderr", "rc", "boot", "console.log", *(files or {})}
        out = {p.name: p.read_bytes() for p in w.iterdir() if p.is_file() and p.name not in skip}
        return GuestResult((w / "stdout").read_text(errors="replace"),
                           (w / "stderr").read_text(errors="replace"),
                           int((w / "rc").read_text().strip() or 1), out, console, boot_s, wall)
