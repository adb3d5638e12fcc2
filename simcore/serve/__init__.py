"""The simulated drive served as a block device (NBD), in real time.

``python -m simcore serve`` exports any profile over the NBD protocol so that
fio (its ``nbd`` engine), QEMU and a guest kernel measure the model as they
would a real disk (timing-accurate emulation: Griffin et al., FAST 2002).
The package: :mod:`.protocol` (the wire format), :mod:`.clock` (precise
wake-ups), :mod:`.adapter` (the only coupling to the drive model),
:mod:`.store` (the bytes), :mod:`.server` (the asyncio server).
"""

from .server import DiskServer, lateness_summary, read_log

__all__ = ["DiskServer", "lateness_summary", "read_log"]
