"""The NBD wire format: the fixed newstyle handshake and simple replies.

Written from the protocol description (the NBD project's ``proto.md``): the
server greets with ``NBDMAGIC IHAVEOPT``, the client picks an export with
``NBD_OPT_GO`` (libnbd, QEMU) or ``NBD_OPT_EXPORT_NAME`` (older clients);
every other option is refused with ``NBD_REP_ERR_UNSUP`` so the client falls
back to simple replies. In transmission each request carries a handle, so
replies may go out in any order and many requests can be in flight.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
OPT_REPLY_MAGIC = 0x0003E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698

FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES = 1, 2
FLAG_C_FIXED_NEWSTYLE, FLAG_C_NO_ZEROES = 1, 2

OPT_EXPORT_NAME, OPT_ABORT, OPT_LIST, OPT_INFO, OPT_GO = 1, 2, 3, 6, 7
REP_ACK, REP_SERVER, REP_INFO = 1, 2, 3
REP_ERR_UNSUP, REP_ERR_INVALID = (1 << 31) + 1, (1 << 31) + 3
INFO_EXPORT, INFO_BLOCK_SIZE = 0, 3

TF_HAS_FLAGS, TF_SEND_FLUSH, TF_SEND_FUA, TF_ROTATIONAL = 1, 4, 8, 16
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
CMD_FLAG_FUA = 1
EIO, EINVAL, ENOSPC, ESHUTDOWN = 5, 22, 28, 108

REQUEST = struct.Struct(">IHHQQI")
REPLY = struct.Struct(">IIQ")
MAX_REQUEST = 32 * 1024 * 1024  # the largest payload a request may carry


class ProtocolError(Exception):
    """The client broke the protocol; the connection is closed."""


@dataclass(frozen=True)
class Export:
    """What the handshake advertises: size in bytes and the transmission flags."""

    name: str
    size: int
    flags: int
    block: int = 512


@dataclass(frozen=True)
class Command:
    """One transmission-phase request."""

    flags: int
    kind: int
    handle: int
    offset: int
    length: int


def _opt_reply(opt: int, rtype: int, data: bytes = b"") -> bytes:
    return struct.pack(">QIII", OPT_REPLY_MAGIC, opt, rtype, len(data)) + data


def _info_export(export: Export) -> bytes:
    return struct.pack(">HQH", INFO_EXPORT, export.size, export.flags)


def _info_block(export: Export) -> bytes:
    return struct.pack(">HIII", INFO_BLOCK_SIZE, export.block, 4096, MAX_REQUEST)


async def handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    export: Export) -> bool:
    """Negotiate one connection; True when it enters transmission, False if it aborted."""
    writer.write(struct.pack(">QQH", NBDMAGIC, IHAVEOPT, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
    await writer.drain()
    (cflags,) = struct.unpack(">I", await reader.readexactly(4))
    if not cflags & FLAG_C_FIXED_NEWSTYLE:
        raise ProtocolError("client does not speak the fixed newstyle handshake")
    no_zeroes = bool(cflags & FLAG_C_NO_ZEROES)
    while True:
        magic, opt, length = struct.unpack(">QII", await reader.readexactly(16))
        if magic != IHAVEOPT:
            raise ProtocolError(f"bad option magic {magic:#x}")
        if length > 65536:
            raise ProtocolError(f"option {opt} carries {length} bytes")
        await reader.readexactly(length)  # the export name: there is only one export
        if opt == OPT_EXPORT_NAME:
            writer.write(struct.pack(">QH", export.size, export.flags)
                         + (b"" if no_zeroes else bytes(124)))
            await writer.drain()
            return True
        if opt == OPT_ABORT:
            writer.write(_opt_reply(opt, REP_ACK))
            await writer.drain()
            return False
        if opt == OPT_LIST:
            name = export.name.encode()
            writer.write(_opt_reply(opt, REP_SERVER, struct.pack(">I", len(name)) + name)
                         + _opt_reply(opt, REP_ACK))
        elif opt in (OPT_INFO, OPT_GO):
            if length < 6:
                writer.write(_opt_reply(opt, REP_ERR_INVALID))
                await writer.drain()
                continue
            writer.write(_opt_reply(opt, REP_INFO, _info_export(export))
                         + _opt_reply(opt, REP_INFO, _info_block(export))
                         + _opt_reply(opt, REP_ACK))
            await writer.drain()
            if opt == OPT_GO:
                return True
            continue
        else:
            writer.write(_opt_reply(opt, REP_ERR_UNSUP))
        await writer.drain()


async def read_command(reader: asyncio.StreamReader) -> Command:
    """The next request header (the payload of a WRITE follows it on the stream)."""
    magic, flags, kind, handle, offset, length = REQUEST.unpack(
        await reader.readexactly(REQUEST.size))
    if magic != REQUEST_MAGIC:
        raise ProtocolError(f"bad request magic {magic:#x}")
    return Command(flags, kind, handle, offset, length)


def reply(handle: int, error: int = 0) -> bytes:
    """A simple reply header (a READ's data follows it)."""
    return REPLY.pack(SIMPLE_REPLY_MAGIC, error, handle)
