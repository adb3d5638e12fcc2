"""A bus shared by the drives on it: an IDE channel, a SCSI bus.

Seed: Gray 2000 §2.8: "each IDE controller has a single data channel that
supports a single pending request"; SCSI lets a drive disconnect while it
seeks. Two drives on one parallel ATA cable (master and slave) therefore
never transfer at once, and under Linux's IDE driver never even overlap their
commands. A :class:`Channel` is a SimPy resource of capacity one; each drive's
:class:`~simcore.drive.interface.Port` says whether it holds the channel for a whole
command (``hold="command"``) or only while its data moves
(``hold="transfer"``).
"""

from __future__ import annotations

import simpy

__all__ = ["Channel"]


class Channel:
    """One bus: a SimPy resource of capacity 1 plus accounting.

    ``held_ms`` is the time the channel was owned (by anyone), and
    ``data_ms`` the part of it during which data actually moved. ``trace``,
    when a list, receives ``(drive, kind, start_ms, end_ms)``.
    """

    def __init__(self, env: simpy.Environment, name: str = "ide0", trace: list | None = None):
        self.env = env
        self.name = name
        self.resource = simpy.Resource(env, capacity=1)
        self.held_ms = 0.0
        self.data_ms = 0.0
        self.trace = trace

    def request(self):
        """A SimPy request event (use with ``with channel.request() as r: yield r``)."""
        return self.resource.request()

    def note(self, who: str, kind: str, start_ms: float, end_ms: float) -> None:
        if end_ms <= start_ms:
            return
        if kind == "held":
            self.held_ms += end_ms - start_ms
        else:
            self.data_ms += end_ms - start_ms
        if self.trace is not None:
            self.trace.append((who, kind, start_ms, end_ms))

    @property
    def busy(self) -> bool:
        return self.resource.count > 0
