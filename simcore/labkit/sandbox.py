"""A sandbox per submission, built from what a Linux box has (no Docker).

The grader's nbval run stays in the grader's process; only the student's
*kernel* is started through this module (``python -I .../sandbox.py CONFIG --
python -c <start ipykernel> -f conn.json``, :func:`launcher_argv` and
:func:`kernel_argv`), which puts it behind these layers before it runs a line
of student code:

- **namespaces** (``unshare``): a new mount namespace where ``/tmp``,
  ``/var/tmp``, ``/dev/shm`` and ``/run/lock`` are fresh, small tmpfs, the
  key, the other submissions, the grader's records, the repository's git
  folders and the instructor's secret and roster are covered (a tmpfs over a
  folder, ``/dev/null`` over a file), and every other mount is read-only
  except the sandbox folder (so whatever user the kernel runs as, it can
  write nothing else); a new
  network namespace with no interface up (no network); a new PID namespace
  whose first process is the kernel, so when it ends the kernel of Linux
  kills everything the notebook started, detached daemons included;
- **an unprivileged user**: as root, one system user per grading slot
  (``disklab-sb0``, ... created on demand with ``useradd``; grading refuses to start
  if that fails, rather than share a user such as ``nobody``), no supplementary
  groups; the sandbox folder is the only place it owns;
- **rlimits**: CPU seconds, address space, process count, file size, open files
  (a kernel stopped by its CPU limit makes the launcher exit with
  :data:`CPU_LIMIT_EXIT`, so the grader can say why it died). Linux counts the
  process limit (``RLIMIT_NPROC``, threads included) per real user, machine-wide,
  or, from Linux 5.14 (commit 21d1c5e386bc, "Reimplement RLIMIT_NPROC on top of
  ucounts"), per user *in each user namespace*; a PID namespace alone bounds
  nothing. So the count is the sandbox's own when the kernel runs as a slot user
  of its own (root) or in a user namespace of its own (no root, Linux 5.14 and
  later); otherwise it is shared with every other process of the kernel's user
  (the grader's own, without root), and the limit is set to what that user runs
  at launch plus the budget: the grader's processes neither eat the budget nor
  lift it, but whatever else that user starts or ends meanwhile (the grader, a
  kernel graded beside it) moves it, and the layers say so (:func:`process_count`,
  :func:`probe_layers`). cgroups
  (``pids.max``) are not used: they need root or a delegated cgroup, and with
  root the slot user already gives an exact count;
- **a clean environment**: a short allow-list; the instructor secret never
  crosses.

Without root, the namespaces come from an unprivileged user namespace when
the kernel allows it, and the kernel runs as the grader's own user: then the
read-only filesystem is what keeps it from the grader's files, and the
launcher refuses to start a kernel without it unless told ``unsafe``
(:func:`confined`). Whatever layer is missing is named by
:func:`probe_layers` and written into the grades and the log. The kernel talks
to nbval over Unix sockets (Jupyter's ``ipc`` transport) in the sandbox folder,
which work across network namespaces. For a grading server with containers,
:func:`container_command` prints the equivalent docker/podman line.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pwd
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, \
    0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = -100, 0x8000, 1
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (Linux 5.12 and later)
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SCRATCH = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]
ENV_KEEP = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "PYTHONHASHSEED", "TZ")
USER_PREFIX = "disklab-sb"
CPU_S_WITHOUT_GRADER = 600  # a kernel's CPU limit when no grader derived one from its key
CPU_LIMIT_EXIT = 128 + signal.SIGXCPU  # the launcher's status when its kernel used up its CPU


@dataclass
class Limits:
    """Resource limits of one sandboxed kernel (CPU time in seconds).

    ``cpu_s=None`` lets the grader derive the CPU limit from the key's own
    measured run (:func:`simcore.labkit.grade.budget`); used alone, the
    sandbox then applies :data:`CPU_S_WITHOUT_GRADER`.
    """

    cpu_s: int | None = None
    memory_mb: int = 2048
    processes: int = 96  # tasks (threads count: a kernel has about a dozen); see process_count
    file_mb: int = 64
    open_files: int = 256
    scratch_mb: int = 64


@dataclass
class Config:
    """What the launcher needs; passed to it as JSON on its command line."""

    workdir: str
    uid: int | None = None
    gid: int | None = None
    hide: list[str] = field(default_factory=list)
    expose: list[str] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    namespaces: bool = True
    unsafe: bool = False  # start a kernel that could write the grader's files (asked for)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Config:
        d = json.loads(text)
        d["limits"] = Limits(**d.get("limits", {}))
        return cls(**d)


_libc = None


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    _check(_c().mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags),
                      enc(data) if data else None), f"mount {target}")


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _read_only(path: str, on: bool, recursive: bool = False) -> None:
    """Make the mount at ``path`` (and every mount below it) read-only, or writable again."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY if on else 0, 0 if on else MOUNT_ATTR_RDONLY, 0, 0)
    _check(_c().syscall(ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_long(AT_FDCWD),
                        ctypes.c_char_p(path.encode()),
                        ctypes.c_long(AT_RECURSIVE if recursive else 0), ctypes.byref(attr),
                        ctypes.c_long(ctypes.sizeof(attr))), f"mount_setattr {path}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _enter_namespaces(cfg: Config) -> list[str]:
    """unshare mount, net and PID namespaces (with a user namespace when not root)."""
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        flags |= CLONE_NEWUSER
    _check(_c().unshare(flags), "unshare")
    if uid != 0:  # the same ids inside: not root there, so the kernel's exec drops every
        # capability the namespace gave, and it cannot undo the mounts below
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    return ["mount-namespace", "network-namespace", "pid-namespace"] + (
        ["user-namespace"] if uid != 0 else [])


def _build_filesystem(cfg: Config, own_user: bool) -> None:
    """Fresh scratch folders, the sandbox folder kept, everything in ``hide`` covered, the rest
    read-only.

    Only the sandbox folder and the fresh scratch folders stay writable. If the
    filesystem cannot be made read-only, that is an error when the kernel runs
    as the grader's own user (``own_user``), unless the configuration says
    ``unsafe``; a kernel with a user of its own is still kept out by file modes.
    """
    work = os.path.realpath(cfg.workdir)
    keep = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
    # what the kernel needs (the venv, simcore's source) may itself live under a scratch
    # folder (a clone in /tmp): hold it open before the fresh tmpfs hides it, bind it back after
    needed = {}
    for path in sorted({os.path.realpath(p) for p in cfg.expose}):
        if os.path.isdir(path) and any(path == d or path.startswith(d + "/") for d in SCRATCH):
            needed[path] = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    size = f"size={cfg.limits.scratch_mb}m"
    scratch = [d for d in SCRATCH if os.path.isdir(d) and not os.path.islink(d)]
    for d in scratch:
        _mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, f"{size},mode=1777")
    os.makedirs(work, exist_ok=True)  # gone if it was under a scratch folder: put it back
    _mount(f"/proc/self/fd/{keep}", work, None, MS_BIND | MS_REC)  # a mount of its own
    os.close(keep)
    for path, fd in needed.items():  # read-only; the paths to hide are covered below
        os.makedirs(path, mode=0o755, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        _mount(None, path, None, MS_BIND | MS_REC | MS_REMOUNT | MS_RDONLY)
        os.close(fd)
    _expose(cfg)
    for p in cfg.hide:
        if not os.path.lexists(p) or os.path.realpath(p) == work:
            continue
        if os.path.isdir(p):
            _mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
        else:
            _mount("/dev/null", p, None, MS_BIND)
    try:
        _read_only("/", True, recursive=True)
    except OSError as exc:
        if own_user and not cfg.unsafe:
            raise OSError(exc.errno, f"the filesystem cannot be made read-only ({exc}); "
                          "the kernel would run as the grader's own user and could write "
                          "the grader's files") from exc
    else:
        for d in [*scratch, work]:  # no mount below them is writable (needed: read-only)
            _read_only(d, False)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def blocked_ancestor(path: str) -> str | None:
    """The first folder above ``path`` that other users cannot enter (``/root`` often)."""
    p = Path(path).resolve()
    for a in [*reversed(p.parents), p]:
        try:
            mode = a.stat().st_mode
        except OSError:
            return None
        if not mode & 0o001:
            return str(a)
    return None


def _expose(cfg: Config) -> None:
    """Make folders the kernel needs (the Python install) reachable, read-only.

    When Python lives under a folder only root may enter (pyenv in ``/root``),
    that folder is covered by an empty tmpfs the sandbox user can cross, and
    only the needed folder is bound back into it, read-only.
    """
    for path in cfg.expose:
        real = os.path.realpath(path)
        top = blocked_ancestor(real)
        if top is None or top == real:
            continue
        fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
        _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,mode=755")
        os.makedirs(real, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", real, None, MS_BIND | MS_REC)
        _mount(None, real, None, MS_BIND | MS_REC | MS_REMOUNT | MS_RDONLY)
        os.close(fd)


UCOUNTS_NPROC = (5, 14)  # Linux counts RLIMIT_NPROC per user namespace from this release


def _kernel_release() -> tuple[int, int]:
    try:
        major, minor = os.uname().release.split(".")[:2]
        return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)
    except ValueError:
        return 0, 0


def kernel_user(cfg_uid: int | None) -> int:
    """The real user id the kernel will run as (the grader's own without root)."""
    return cfg_uid if cfg_uid is not None and os.getuid() == 0 else os.getuid()


def process_count(cfg_uid: int | None, namespaces: bool) -> str:
    """Whose processes the kernel's process limit counts (``RLIMIT_NPROC``).

    ``"own-user"``: root grading, the kernel runs as a slot user of its own
    (:func:`sandbox_user`), so every process of that user is the sandbox's;
    ``"user-namespace"``: no root, the kernel is in a user namespace of its own
    on Linux 5.14 or later, which counts per user per namespace; ``"shared-user"``:
    the count is machine-wide for a user that runs other processes too (the
    grader's own without a user namespace or on an older Linux); ``"none"``: the kernel runs as root, which
    the limit does not bind.
    """
    uid = kernel_user(cfg_uid)
    if uid == 0:
        return "none"
    if os.getuid() == 0:
        try:
            own = pwd.getpwuid(uid).pw_name.startswith(USER_PREFIX)
        except KeyError:
            own = False
        return "own-user" if own else "shared-user"
    return "user-namespace" if namespaces and _kernel_release() >= UCOUNTS_NPROC \
        else "shared-user"


def user_tasks(uid: int) -> int:
    """Tasks (threads included, zombies too: both count against RLIMIT_NPROC) of a real user,
    machine-wide; read from this process's /proc, so call it before a PID namespace's."""
    n = 0
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            fields = dict(ln.split(":", 1) for ln in (p / "status").read_text().splitlines()
                          if ln.startswith(("Uid:", "Threads:")))
            if int(fields["Uid"].split()[0]) == uid:
                n += int(fields.get("Threads", "1"))
        except (OSError, ValueError, KeyError):
            continue
    return n


def nproc_limit(budget: int, how: str, tasks_before: int) -> int:
    """The RLIMIT_NPROC value that leaves the kernel ``budget`` tasks of its own (the kernel
    included), given how they are counted (:func:`process_count`) and, for a count per user,
    how many tasks that user had when the launcher started (the launcher among them when it
    runs as that user)."""
    if how == "user-namespace":
        return budget + 1  # the launcher entered the namespace too, and is counted there
    return tasks_before + budget


def _limit(cfg: Config, nproc: int) -> None:
    lim = cfg.limits
    mb = 1024 * 1024
    cpu = lim.cpu_s if lim.cpu_s is not None else CPU_S_WITHOUT_GRADER
    for what, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, lim.memory_mb * mb),
                        (resource.RLIMIT_FSIZE, lim.file_mb * mb),
                        (resource.RLIMIT_NOFILE, lim.open_files), (resource.RLIMIT_CORE, 0),
                        (resource.RLIMIT_NPROC, nproc)):
        resource.setrlimit(what, (value, value))


def _drop(cfg: Config) -> None:
    if cfg.uid is None or os.getuid() != 0:
        return
    os.setgroups([])
    os.setgid(cfg.gid if cfg.gid is not None else cfg.uid)
    os.setuid(cfg.uid)


def _clean_env(cfg: Config) -> dict[str, str]:
    env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
    env.update(HOME=cfg.workdir, TMPDIR="/tmp", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", MALLOC_ARENA_MAX="2", PYTHONDONTWRITEBYTECODE="1", JUPYTER_PLATFORM_DIRS="1",
               MPLCONFIGDIR=os.path.join(cfg.workdir, ".mpl"), DISKLAB_SANDBOX="1",
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    return env


def launch(cfg: Config, argv: list[str]) -> int:
    """Run ``argv`` inside the sandbox; return its exit status (used by ``__main__``)."""
    layers: list[str] = []
    own_user = cfg.uid is None or os.getuid() != 0  # the kernel runs as the grader's user
    if own_user and not cfg.namespaces and not cfg.unsafe:
        print("disklab sandbox: refusing to start a kernel as the grader's own user without "
              "namespaces (it could write the grader's files)", file=sys.stderr)
        return 121
    # counted on the machine's /proc, before a PID namespace's replaces it
    how = process_count(cfg.uid, cfg.namespaces)
    nproc = nproc_limit(cfg.limits.processes, how,
                        0 if how == "user-namespace" else user_tasks(kernel_user(cfg.uid)))
    if cfg.namespaces:
        layers = _enter_namespaces(cfg)
    for a in argv:  # the connection file the kernel must read is written by the grader
        if a.endswith(".json") and os.path.isfile(a) and cfg.uid is not None and os.getuid() == 0:
            os.chown(a, cfg.uid, cfg.gid if cfg.gid is not None else cfg.uid)
    pid = os.fork()
    if pid == 0:  # PID 1 of the new namespace (or a plain child without namespaces)
        try:
            if layers:
                _build_filesystem(cfg, own_user)
            _limit(cfg, nproc)
            _drop(cfg)
            _check(_c().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
            _c().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            os.chdir(cfg.workdir)
            # Its own process group: Jupyter interrupts a kernel by signalling the launcher's
            # group, and the launcher forwards the signal; a kernel in that group would get
            # every interrupt twice, and the second can land inside the traceback of the first.
            os.setpgid(0, 0)
            os.execve(argv[0], argv, _clean_env(cfg))
        except BaseException as exc:
            with contextlib.suppress(Exception):
                os.write(2, f"disklab sandbox: {exc}\n".encode())
            os._exit(121)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, lambda n, _f: os.kill(pid, n))
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    # Killed at its CPU limit (SIGKILL at the hard limit, SIGXCPU at the soft one): say so with
    # an exit status of our own. The kernel cannot forge it without burning that CPU time.
    cpu = cfg.limits.cpu_s if cfg.limits.cpu_s is not None else CPU_S_WITHOUT_GRADER
    if (os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGKILL, signal.SIGXCPU)
            and usage.ru_utime + usage.ru_stime >= cpu - 0.5):
        return CPU_LIMIT_EXIT
    return os.waitstatus_to_exitcode(status)


# ---- the grader's side ------------------------------------------------------------------


LOCKS = Path("/run/lock") if Path("/run/lock").is_dir() else Path(tempfile.gettempdir())
_held: dict[int, int] = {}  # slot -> open lock file descriptor of this process
_held_lock = threading.Lock()


def claim_slot(max_slots: int = 64) -> int:
    """A slot number no other grading process on this machine holds (an flock per slot).

    Each slot has its own sandbox user, and the grader kills every process of that user when
    a submission ends; two grading runs sharing a user would kill each other's kernels.
    """
    import fcntl

    with _held_lock:
        for slot in range(max_slots):
            if slot in _held:
                continue
            try:  # another user's grader made this slot's lock file: not ours to take
                fd = os.open(LOCKS / f"disklab-sandbox-slot{slot}.lock",
                             os.O_RDWR | os.O_CREAT, 0o600)
            except PermissionError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _held[slot] = fd
            return slot
    raise SandboxUnavailable(f"all {max_slots} sandbox slots are held by other grading runs; "
                             "wait for them to end, or grade with fewer --jobs")


def release_slot(slot: int) -> None:
    with _held_lock:
        fd = _held.pop(slot, None)
    if fd is not None:
        os.close(fd)  # closing drops the flock


class SandboxUnavailable(ValueError):
    """The sandbox cannot be set up as promised (a ValueError, so the command line prints it
    as one line, without a traceback)."""


def sandbox_user(slot: int) -> tuple[int, int, str] | None:
    """The unprivileged user of a grading slot (as root), created on demand with ``useradd``.

    Each slot has a user of its own, because the grader kills every process of that user
    between two submissions (:func:`reap_user`) and counts the process limit per user. A
    shared fallback such as ``nobody`` would let one slot's cleanup kill another slot's
    kernel, and any daemon of the machine that runs as ``nobody``: so when the user cannot
    be made, grading stops here with what to do instead."""
    if os.getuid() != 0:
        return None
    name = f"{USER_PREFIX}{slot}"
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd")
        made = None
        if useradd:
            made = subprocess.run([useradd, "--system", "--no-create-home", "--home-dir",
                                   "/nonexistent", "--shell", "/usr/sbin/nologin",
                                   "--user-group", name], capture_output=True, text=True,
                                  check=False)
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            why = ("useradd is not installed" if made is None
                   else f"useradd failed: {made.stderr.strip()[-200:] or made.returncode}")
            raise SandboxUnavailable(
                f"cannot create the sandbox user {name!r} ({why}). Install useradd (Debian: "
                f"apt-get install passwd), create the users {USER_PREFIX}0, {USER_PREFIX}1, "
                "... yourself, or grade as an ordinary user (the sandbox then uses a user "
                "namespace)") from None
    return pw.pw_uid, pw.pw_gid, pw.pw_name


def make_workdir(uid: int | None, gid: int | None) -> Path:
    """A fresh folder only the sandbox user can enter."""
    d = Path(tempfile.mkdtemp(prefix="disklab-sb-"))
    if uid is not None and os.getuid() == 0:
        os.chown(d, uid, gid if gid is not None else uid)
    d.chmod(0o700)
    return d


def reap_user(uid: int) -> None:
    """Kill every process of a sandbox user (belt and braces beside the PID namespace)."""
    if os.getuid() != 0 or uid == 0:
        return
    # kill(-1) as that user reaches every process of the user and nothing else; /bin/sh, not
    # Python, because the user may not be able to enter the folder Python lives in.
    with contextlib.suppress(Exception):
        subprocess.run(["/bin/sh", "-c", "kill -9 -1"], user=uid,
                       group=pwd.getpwuid(uid).pw_gid, extra_groups=[],
                       cwd="/", timeout=30, capture_output=True, check=False)


def default_expose() -> list[str]:
    """Folders the kernel must reach: the Python install, the venv and simcore's source."""
    here = Path(__file__).resolve().parents[2]
    return sorted({str(Path(p).resolve()) for p in (sys.base_prefix, sys.prefix, here)})


def make_config(workdir: str | Path, uid: int | None, gid: int | None, hide: list[str],
                limits: Limits | None = None, namespaces: bool = True,
                unsafe: bool = False) -> Config:
    """A launcher configuration; namespaces only where the machine has them."""
    return Config(str(workdir), uid, gid, list(hide), default_expose(), limits or Limits(),
                  namespaces, unsafe)


def _dead(proc: Path) -> bool:
    """A zombie all of whose threads have ended: it runs nothing, and waits only to be reaped.

    (A process whose main thread alone has exited also shows as a zombie while its
    other threads run on; those count as alive.)
    """
    try:
        return all((t / "stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
                   for t in (proc / "task").iterdir())
    except (OSError, IndexError):
        return False


def user_processes(uid: int, zombies: bool = True) -> list[int]:
    """Process ids owned (real uid) by ``uid``, read from /proc; without dead zombies if asked."""
    pids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            for line in (p / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid and (zombies or not _dead(p)):
                        pids.append(int(p.name))
                    break
        except (OSError, ValueError, IndexError):
            continue
    return pids


def wait_user_gone(uid: int, timeout: float = 60.0, zombies: bool = True) -> list[int]:
    """Kill and wait until a sandbox user runs nothing; return what is still there (nothing).

    With ``zombies=False`` a dead zombie does not count: the kernel, first process of
    its PID namespace, is a child of the launcher that Jupyter killed, so it is reaped by
    the machine's init, which some (a VM's minimal init) do only every second or two.
    A zombie runs no code and holds no file; between two submissions of one slot the
    grader does not wait for it, and at the end of grading it waits for all of them
    (:meth:`simcore.labkit.grade.Slots.close`).
    """
    deadline = time.monotonic() + timeout
    left = user_processes(uid, zombies)
    while left and time.monotonic() < deadline:
        if not zombies or user_processes(uid, zombies=False):  # something still runs: kill it
            reap_user(uid)
        time.sleep(0.1)
        left = user_processes(uid, zombies)
    return left


def launcher_argv(cfg: Config) -> list[str]:
    """The launcher's command: this file run by path, isolated (``-I``).

    By path, so starting it does not import the ``simcore`` package (numpy,
    simpy, plotly's theme: most of a second of CPU per submission) when it
    needs only the standard library; isolated, so no ``PYTHONPATH`` or current
    folder reaches the process that runs as root until it drops privileges.
    """
    return [sys.executable, "-I", str(Path(__file__).resolve()), cfg.to_json(), "--"]


# The kernel's start inside the sandbox: ipykernel_launcher's own lines, after marking
# rfc3987_syntax absent. jsonschema imports it (for the "iri" string format, which no lab
# validates) when plotly's first figure imports nbformat, and it builds a grammar at import that
# costs a second of CPU in every kernel.
_KERNEL_MAIN = ("import sys\nsys.modules.setdefault('rfc3987_syntax', None)\n"
                "if sys.path and sys.path[0] == '':\n    del sys.path[0]\n"
                "from ipykernel import kernelapp\nkernelapp.launch_new_instance()")


def kernel_argv() -> list[str]:
    """The sandboxed kernel's command (after :func:`launcher_argv`); Jupyter fills the file."""
    return [sys.executable, "-c", _KERNEL_MAIN, "-f", "{connection_file}"]


PROBE_PROCESSES = 16  # the probe's own process budget: enough to see how the limit counts
PROBE_FORK_TRIES = 3 * PROBE_PROCESSES  # forks the probe tries before it gives up on a limit

# Run inside the sandbox by probe_layers, after two lines that set SCRATCH (the folders the
# sandbox makes fresh, from this module) and TRIES.
_PROBE_CODE = r"""
import json, os, socket, sys
out = {"uid": os.getuid(), "pid": os.getpid()}
out["interfaces"] = sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else []
try:
    s = socket.socket(); s.settimeout(2); s.connect(("1.1.1.1", 53)); out["network"] = True
except OSError:
    out["network"] = False
out["hidden_readable"] = [p for p in sys.argv[1:] if os.access(p, os.R_OK) and
                          (os.path.isfile(p) and open(p, "rb").read(1) or
                           os.path.isdir(p) and os.listdir(p))]
try:
    open("/tmp/.disklab-probe", "w").write("x"); out["tmp_private"] = True
except OSError:
    out["tmp_private"] = False
allowed = [os.getcwd(), "/proc", *SCRATCH]
out["writable_mounts"] = []
for line in open("/proc/self/mountinfo"):
    f = line.split()
    point = f[4].encode().decode("unicode_escape")
    if "rw" in f[5].split(",") and not any(point == a or point.startswith(a + "/")
                                           for a in allowed):
        out["writable_mounts"].append(point)
out["cap_eff"] = next(int(ln.split()[1], 16) for ln in open("/proc/self/status")
                      if ln.startswith("CapEff:"))
import resource
out["nproc"] = resource.getrlimit(resource.RLIMIT_NPROC)[0]
out["as_mb"] = resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20
# a small fork bomb: children that wait on a pipe, until the process limit refuses one
r, w = os.pipe()
kids = []
for _ in range(TRIES):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os._exit(0)
    kids.append(pid)
os.close(w)
for k in kids:
    os.waitpid(k, 0)
out["forks"] = len(kids)
print(json.dumps(out))
"""


def probe_code() -> str:
    """The probe's program, with the scratch folders taken from :data:`SCRATCH`."""
    return f"SCRATCH = {SCRATCH!r}\nTRIES = {PROBE_FORK_TRIES}\n" + _PROBE_CODE


def process_limit_holds(forks: int | None, budget: int = PROBE_PROCESSES) -> bool:
    """Whether a fork bomb was stopped within its budget without the budget being eaten by
    other processes: the probe (one task) could start at least half the rest, and not more."""
    return forks is not None and (budget - 1) // 2 <= forks <= budget - 1

_layers_cache: dict[str, dict] = {}
_layers_lock = threading.Lock()
SHARED_COUNT = ("process-limit of its own (it counts every process of the kernel's user, "
                "set to what that user ran at launch plus the budget)")


def probe_layers(hide: list[str] | None = None, limits: Limits | None = None) -> dict:
    """Start one sandbox with a tiny program and report which layers really hold.

    Returns ``{"layers": [...], "missing": [...], "details": {...}}``. Cached per hidden
    paths and limits (the CPU limit aside). The probe ends with a small fork bomb under a
    budget of :data:`PROBE_PROCESSES`: ``process-limit`` is present only if the limit
    stopped it within that budget and other processes had not used the budget up
    (:func:`process_limit_holds`), and, if the count is shared with other processes of
    the kernel's user (:func:`process_count`), that is named among the missing layers.
    """
    import dataclasses

    hide = sorted(hide or [])
    limits = limits or Limits()
    key = json.dumps([hide, asdict(dataclasses.replace(limits, cpu_s=None))])
    probe_limits = dataclasses.replace(limits, processes=PROBE_PROCESSES)
    with _layers_lock:
        if key in _layers_cache:
            return _layers_cache[key]
        slot = claim_slot()
        user = sandbox_user(slot)
        details: dict = {}
        for ns, drop in ((True, True), (False, True), (False, False)):
            uid, gid = (user[0], user[1]) if user and drop else (None, None)
            work = make_workdir(uid, gid)
            cfg = make_config(work, uid, gid, hide, probe_limits, namespaces=ns, unsafe=True)
            try:
                run = subprocess.run([*launcher_argv(cfg), sys.executable, "-c", probe_code(),
                                      *hide], capture_output=True, text=True, timeout=120)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            if run.returncode == 0:
                details = json.loads(run.stdout.strip().splitlines()[-1])
                details.update(namespaces=ns, drop=drop, process_count=process_count(uid, ns))
                break
            details.setdefault("errors", []).append(run.stderr.strip()[-300:])
        if user:
            wait_user_gone(user[0])
        release_slot(slot)
        layers, missing = [], []
        ns = details.get("namespaces", False)
        (layers if ns else missing).extend(["mount-namespace", "pid-namespace"])
        (layers if ns and not details.get("network", True) else missing).append(
            "network-namespace")
        unpriv = details.get("uid", 0) != 0 and details.get("uid") != os.getuid()
        (layers if unpriv else missing).append("unprivileged-user")
        (layers if "uid" in details else missing).append("rlimits")
        (layers if ns and details.get("writable_mounts") == [] and details.get("cap_eff") == 0
         else missing).append("read-only-filesystem")
        (layers if ns and not details.get("hidden_readable") else missing).append("hidden-paths")
        if not process_limit_holds(details.get("forks")):
            missing.append("process-limit")
        elif details.get("process_count") == "shared-user":
            missing.append(SHARED_COUNT)
        else:
            layers.append("process-limit")
        result = {"layers": layers, "missing": missing, "details": details,
                  "user": user[2] if user else None}
        _layers_cache[key] = result
        return result


def confined(layers: dict) -> bool:
    """Whether a kernel can write nothing of the grader's: it runs as a user of its own, or
    sees a read-only filesystem it cannot make writable again."""
    return bool({"unprivileged-user", "read-only-filesystem"} & set(layers.get("layers", [])))


def unconfined_error(layers: dict) -> str:
    """Why grading refuses to start where :func:`confined` is false, and what to do."""
    errors = "; ".join(e for e in layers.get("details", {}).get("errors", []) if e)
    return ("the sandbox cannot keep student code from writing your files on this machine: "
            "its kernel would run as you (no root for a user of its own) on a filesystem it can "
            "write or make writable (no read-only mount namespace: that needs unprivileged user "
            "namespaces and Linux 5.12 or later); missing: " + ", ".join(layers.get("missing", []))
            + (f" ({errors})" if errors else "") + ". Grade as root or in a container "
            "(--container), or pass --unsafe-sandbox to grade anyway: student code could then "
            "change any file you can, your home and simcore's source included.")


def container_command(key: str | Path, submissions: str | Path, out: str | Path,
                      engine: str = "podman", image: str = "disklab-grader",
                      secret: str | Path | None = None, public_variants: bool = False,
                      roster: str | Path | None = None,
                      options: Sequence[str] = ()) -> str:
    """A docker/podman command line that grades inside a throwaway container (not required).

    The container adds an outer wall (no network, a process limit, a read-only image, the key,
    the submissions, the roster and the secret mounted read-only); inside it the grader's own
    layers are present only where the engine grants namespaces, and the summary says which.
    ``public_variants`` grades without a secret (nothing of it is mounted); ``options`` are
    more of ``grade``'s options, passed on as they are (they name no file). Build the image
    once from the repository: a ``python:3.11-slim`` base, ``pip install -r
    requirements.txt`` and ``pip install -e .`` (the first lines printed say so).
    """
    import shlex

    from . import secret as sec

    build = (f"# once: printf 'FROM python:3.11-slim\\nCOPY . /disklab\\nWORKDIR /disklab\\n"
             f"RUN pip install -r requirements.txt && pip install --no-deps -e .\\n' | "
             f"{engine} build -t {image} -f - .")
    mounts = [f"-v {Path(key).resolve().parent}:/key:ro",
              f"-v {Path(submissions).resolve()}:/subs:ro"]
    args = [f"--key /key/{Path(key).name}", "/subs", f"--out /out/{Path(out).name}"]
    if public_variants:
        args.append("--public-variants")
    else:
        secret_path = Path(secret) if secret else sec.default_path()
        mounts.append(f"-v {secret_path.resolve().parent}:/secret:ro")
        args.append(f"--secret /secret/{secret_path.name}")
    if roster:
        mounts.append(f"-v {Path(roster).resolve().parent}:/roster:ro")
        args.append(f"--roster /roster/{Path(roster).name}")
    mounts.append(f"-v {Path(out).resolve().parent}:/out")
    args += [shlex.quote(o) for o in options]
    run = (f"{engine} run --rm --network=none --pids-limit=512 --memory=4g --cpus=2 "
           f"--read-only --tmpfs /tmp:rw,size=512m {' '.join(mounts)} {image} "
           f"python -m simcore grade {' '.join(args)}")
    return build + "\n" + run


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m simcore.labkit.sandbox CONFIG_JSON -- COMMAND ...",
              file=sys.stderr)
        return 2
    return launch(Config.from_json(argv[0]), argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
