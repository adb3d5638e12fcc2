"""The storage path as one composable description: a :class:`Stack`.

From the platter up: the drive (its mechanism, its queue and policy, and its
firmware: command overheads, segmented cache with read-ahead and write-back,
interface), optionally an array of such drives (RAID-0/5), and host layers
above (the block layer with a Linux elevator, a controller cache, read-ahead,
a dispatch set), each built on the device below it. :func:`simcore.engine.run`
turns any stack and any workload into one SimPy environment and one
:class:`~simcore.results.RunResult`; nothing else builds an environment.

As in DiskSim, a drive profile's firmware is part of the drive and is on
unless the caller turns it off (``firmware=False``). The engine serves a
drive on its arithmetic fast path when the stack allows it (no buffer and an
ideal interface, or the firmware off); callers never choose paths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import simpy

from .disk.access import Mechanism, as_mechanism
from .disk.profile import DiskProfile
from .drive.drive import Drive
from .records import Completed

Layer = Callable[[simpy.Environment, Any], Any]
"""A host layer: called with the environment and the device below, returns the new top."""


@dataclass(frozen=True)
class Stack:
    """What a request crosses on its way to the platter, bottom to top.

    ``disk``: a bundled id, a profile path, a :class:`~simcore.disk.profile.DiskProfile` or a
    :class:`~simcore.disk.access.Mechanism`. ``scheduler``: the drive queue's policy.
    ``firmware``: the profile's cache and interface (on by default, as in DiskSim).
    ``cache``/``interface``: overrides (a :class:`~simcore.drive.cache.CacheConfig` or ``False``
    for none; a :class:`~simcore.drive.interface.Port` or a mode name). ``service``: a per-request
    service function on the fast path (``fn(request, start_ms, head)``), or with ``array`` a
    factory called with each member's mechanism. ``array``: ``{"drives": n, "level": 0 or
    5, "stripe_kib": 64}``, optionally ``"link_mb_s"`` (the host link's rate).
    ``host``: layers, bottom to top (see :data:`Layer`).
    ``channel``: the name of the bus (cable) the drive sits on; drives of one run naming the
    same channel share it (an IDE master and slave). ``cpu``: ``True`` to charge the
    interface's work to the run's host CPU (PIO and DMA costs; Gray 2000 §2.8), shared by
    every drive of the run. ``events``: the drive's rare firmware events (a
    :class:`~simcore.drive.firmware_events.FirmwareEvents`: error recovery, recalibration, media
    scans; none by default). Several stacks run together as one system when
    :func:`simcore.engine.run` is given a list of them.
    """

    disk: Any
    scheduler: Any = "fcfs"
    firmware: bool = True
    cache: Any = None
    interface: Any = None
    service: Any = None
    array: dict | None = None
    host: tuple[Layer, ...] = ()
    channel: Any = None
    cpu: Any = None
    events: Any = None
    trace: list | None = field(default=None, compare=False)
    name: str = "disk0"

    def with_(self, **changes) -> Stack:
        return replace(self, **changes)

    @property
    def mechanism(self) -> Mechanism:
        return as_mechanism(self.disk)

    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary (for results' ``meta``)."""
        sched = self.scheduler
        return {"disk": self.mechanism.profile.id, "firmware": self.firmware,
                "buffered": not fast_path(self),
                "scheduler": sched if isinstance(sched, str) else getattr(
                    sched, "name", type(sched).__name__),
                "array": dict(self.array) if self.array else None,
                "host_layers": len(self.host)}


def stack(disk: Any, **options: Any) -> Stack:
    """A :class:`Stack` over ``disk``; keyword options as the class documents."""
    return Stack(disk, **options)


_MECHANISMS: dict[int, Mechanism] = {}


def _cache_of(stk: Stack, prof: DiskProfile) -> Any:
    if stk.cache is False:
        return None
    if stk.cache is not None:
        return stk.cache
    if stk.firmware and prof.cache.size_kib > 0:
        return True  # the profile's own buffer
    return None


def _interface_of(stk: Stack, prof: DiskProfile) -> Any:
    if stk.interface is not None:
        return stk.interface
    if stk.firmware and prof.interface_mb_s > 0:
        return None if _cache_of(stk, prof) is not None else "profile"
    return None


def fast_path(stk: Stack) -> bool:
    """True when the drive can be served arithmetically: no buffer and an ideal interface."""
    prof = stk.mechanism.profile
    return (_cache_of(stk, prof) is None and _interface_of(stk, prof) is None
            and stk.channel is None and stk.cpu is None)


class Shared:
    """What the stacks of one run share: the host CPU and the named buses."""

    def __init__(self, env: simpy.Environment, cpu_trace: list | None = None,
                 bus_trace: list | None = None):
        self.env = env
        self.cpu_trace, self.bus_trace = cpu_trace, bus_trace
        self._cpu: Any = None
        self.channels: dict[str, Any] = {}

    @property
    def cpu(self) -> Any:
        if self._cpu is None:
            from .drive.cpu import Cpu

            self._cpu = Cpu(self.env, trace=self.cpu_trace)
        return self._cpu

    def channel(self, name: str) -> Any:
        if name not in self.channels:
            from .drive.channel import Channel

            self.channels[name] = Channel(self.env, name, trace=self.bus_trace)
        return self.channels[name]


@dataclass
class Built:
    """A stack made real in one environment: its drives, the device and the top layer.

    For a system of several stacks, ``parts`` holds each stack's own ``Built`` and the
    fields above describe the first.
    """

    env: simpy.Environment
    stack: Stack
    drives: list[Drive]
    device: Any
    top: Any
    listeners: list[Callable[[Completed], None]]
    shared: Shared | None = None
    parts: list[Built] = field(default_factory=list)

    def on_complete(self, fn: Callable[[Completed], None]) -> None:
        """Call ``fn`` with every record the device (drive or array) completes."""
        self.listeners.append(fn)

    @property
    def completed(self) -> list[Completed]:
        return self.device.completed

    @property
    def busy_ms(self) -> float:
        return float(self.device.busy_ms)


def build_system(env: simpy.Environment, stacks: Sequence[Stack],
                 shared: Shared | None = None) -> Built:
    """Wire several stacks into one environment, sharing the CPU and named buses."""
    shared = shared or Shared(env)
    parts = [build(env, s, shared) for s in stacks]
    first = parts[0]
    return Built(env, first.stack, first.drives, first.device, first.top, first.listeners,
                 shared, parts)


def build(env: simpy.Environment, stk: Stack, shared: Shared | None = None) -> Built:
    """Wire ``stk`` into ``env`` (the engine's job; see :func:`simcore.engine.run`)."""
    shared = shared or Shared(env)
    listeners: list[Callable[[Completed], None]] = []

    def notify(rec: Completed) -> None:
        for fn in listeners:
            fn(rec)

    mech = stk.mechanism
    if stk.array:
        from .host.array import build_array

        spec = dict(stk.array)
        device = build_array(env, mech, spec.pop("drives"), level=spec.pop("level", 0),
                             stripe_kib=spec.pop("stripe_kib", 64.0), scheduler=stk.scheduler,
                             service=stk.service, on_complete=notify,
                             link_mb_s=spec.pop("link_mb_s", None))
        if spec:
            raise ValueError(f"unknown array option(s): {', '.join(sorted(spec))}")
        drives = list(device.drives)
    else:
        device = _drive(env, stk, mech, notify, shared)
        drives = [device]
    top = device
    for layer in stk.host:
        top = layer(env, top)
    built = Built(env, stk, drives, device, top, listeners, shared)
    built.parts = [built]
    return built


def _drive(env: simpy.Environment, stk: Stack, mech: Mechanism, notify,
           shared: Shared) -> Drive:
    prof = mech.profile
    if prof.smr is not None and stk.firmware and stk.service is None:
        # a shingled drive's firmware is its translation layer (drive-managed) or its zone
        # rules (host-managed): simcore.smr, served on the fast path
        if stk.cache not in (None, False) or stk.interface is not None or stk.channel \
                is not None or stk.cpu is not None:
            raise ValueError(f"{prof.id} is a shingled drive: its translation layer runs "
                             "without the segmented-cache and bus models (give no cache=, "
                             "interface=, channel= or cpu=), or give firmware=False for the "
                             "bare mechanism")
        from .drive.smr import translation_for

        return Drive(env, mech, stk.scheduler, on_complete=notify,
                     service=translation_for(mech), name=stk.name)
    if fast_path(stk):
        return Drive(env, mech, stk.scheduler, on_complete=notify, service=stk.service,
                     name=stk.name, events=stk.events)
    if stk.service is not None:
        raise ValueError("a service function replaces the drive's firmware: give "
                         "firmware=False (or cache=False) with service=")
    cache = _cache_of(stk, prof)
    iface = _interface_of(stk, prof)
    if iface == "profile":  # the profile's own link, with a speed-matching buffer
        from .drive.interface import Port

        iface = Port.ideal(prof.interface_mb_s)
    channel = shared.channel(stk.channel) if isinstance(stk.channel, str) else stk.channel
    cpu = shared.cpu if stk.cpu is True else (stk.cpu or None)
    return Drive(env, mech, stk.scheduler, on_complete=notify, name=stk.name,
                 cache=cache, interface=iface, channel=channel, cpu=cpu, trace=stk.trace,
                 events=stk.events)


def layers(*factories: Layer) -> tuple[Layer, ...]:
    """Host layers in the order given (bottom first); a readability helper."""
    return tuple(factories)


def drives_of(built: Built) -> Sequence[Drive]:
    return built.drives
