"""The bytes behind the served disk: a sparse file, so writes read back.

The model decides *when* a request finishes; this module holds *what* it
reads. A sparse file costs only the blocks written, so a 20 GB drive serves
from a few megabytes of real storage. Without a path the file is a temporary
one, removed on close.
"""

from __future__ import annotations

import os
import tempfile


class SparseStore:
    """Byte-addressed storage of ``size`` bytes in a (sparse) file."""

    def __init__(self, size: int, path: str | None = None):
        self.size = size
        self._temp = path is None
        if path is None:
            fd, path = tempfile.mkstemp(prefix="simcore-serve-", suffix=".img")
        else:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self.path = path
        self.fd = fd
        if os.fstat(fd).st_size < size:
            os.ftruncate(fd, size)

    def read(self, offset: int, length: int) -> bytes:
        data = os.pread(self.fd, length, offset)
        return data if len(data) == length else data + bytes(length - len(data))

    def reply(self, header: bytes, offset: int, length: int) -> bytearray:
        """``header`` followed by ``length`` bytes from ``offset``, in one buffer."""
        buf = bytearray(len(header) + length)
        buf[:len(header)] = header
        view = memoryview(buf)[len(header):]
        while view:
            n = os.preadv(self.fd, [view], offset)
            if n <= 0:
                break  # past the end of the file: the rest stays zero
            view, offset = view[n:], offset + n
        return buf

    def write(self, offset: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.pwrite(self.fd, view, offset)
            view, offset = view[n:], offset + n

    def sync(self) -> None:
        if not self._temp:
            os.fsync(self.fd)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            if self._temp:
                os.unlink(self.path)
