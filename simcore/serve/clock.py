"""Real time for the served drive: a monotonic clock in ms and precise wake-ups.

Timing-accurate emulation (Griffin et al., FAST 2002) answers each request at
the model's completion time, so the server needs wake-ups far finer than
asyncio's own timers (epoll waits in whole milliseconds). On Linux a
``timerfd`` armed with an absolute CLOCK_MONOTONIC deadline wakes the event
loop to the microsecond; the thread's timer slack is set to 1 ns as the notes
on this machine kind measured (../shared/notes/emulation.md). Elsewhere the
clock falls back to ``loop.call_at``.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import struct
import sys
import time
from collections.abc import Callable

PR_SET_TIMERSLACK = 29
CLOCK_MONOTONIC = 1
TFD_TIMER_ABSTIME = 1
TFD_NONBLOCK = os.O_NONBLOCK
TFD_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def set_timer_slack_ns(ns: int = 1) -> bool:
    """Ask the kernel to wake this thread's timers within ``ns`` (Linux); True on success."""
    if _LIBC is None:
        return False
    return _LIBC.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(ns), 0, 0, 0) == 0


def raise_priority(rt_priority: int = 10, pid: int = 0) -> str:
    """Ask for SCHED_FIFO for process ``pid`` (0: this one; root or CAP_SYS_NICE only); return
    the policy it got.

    A served drive answers late whenever the server waits for a CPU; on a busy
    machine a real-time policy cuts that wait (the server sleeps between
    deadlines, so it takes little CPU). Without the privilege nothing changes.
    """
    try:
        os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(rt_priority))
        return f"SCHED_FIFO {rt_priority}"
    except (AttributeError, PermissionError, OSError):
        return "normal"


class Clock:
    """Milliseconds since the server started, on CLOCK_MONOTONIC."""

    def __init__(self) -> None:
        self.origin_ns = time.monotonic_ns()

    def now_ms(self) -> float:
        return (time.monotonic_ns() - self.origin_ns) / 1e6

    def to_ns(self, ms: float) -> int:
        """The absolute CLOCK_MONOTONIC time (ns) of ``ms`` on this clock."""
        return self.origin_ns + round(ms * 1e6)


class Alarm:
    """One re-armable wake-up at an absolute time, calling ``callback`` in the loop.

    ``arm(ms)`` replaces any earlier deadline; ``arm(None)`` disarms. Uses a
    timerfd where the platform has one (microsecond wake-ups), else
    ``loop.call_at`` (millisecond ones).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, clock: Clock,
                 callback: Callable[[], None]):
        self.loop, self.clock, self.callback = loop, clock, callback
        self.fd = -1
        self._handle: asyncio.TimerHandle | None = None
        if _LIBC is not None:
            fd = _LIBC.timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)
            if fd >= 0:
                self.fd = fd
                loop.add_reader(fd, self._fired)

    @property
    def precise(self) -> bool:
        return self.fd >= 0

    def arm(self, ms: float | None) -> None:
        if self.fd >= 0:
            spec = _Itimerspec()
            if ms is not None:
                ns = max(1, self.clock.to_ns(ms))
                spec.it_value.tv_sec, spec.it_value.tv_nsec = divmod(ns, 1_000_000_000)
            if _LIBC.timerfd_settime(self.fd, TFD_TIMER_ABSTIME, ctypes.byref(spec), None) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"timerfd_settime: {os.strerror(err)}")
            return
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if ms is not None:
            delay = (self.clock.to_ns(ms) - time.monotonic_ns()) / 1e9
            self._handle = self.loop.call_at(self.loop.time() + max(0.0, delay), self.callback)

    def _fired(self) -> None:
        try:
            data = os.read(self.fd, 8)
        except BlockingIOError:
            return
        if len(data) == 8 and struct.unpack("=Q", data)[0] > 0:
            self.callback()

    def close(self) -> None:
        if self.fd >= 0:
            self.loop.remove_reader(self.fd)
            os.close(self.fd)
            self.fd = -1
        elif self._handle is not None:
            self._handle.cancel()
