"""Errors written for a student: each names the file, line or field, and the fix."""

from __future__ import annotations


class DisklabError(Exception):
    """Base class of every error simcore raises on bad input."""


class ProfileError(DisklabError):
    """A disk profile is malformed or physically impossible."""

    def __init__(self, path: str, field: str, message: str):
        self.path, self.field = path, field
        super().__init__(f"{path}: field '{field}': {message}")


class TraceError(DisklabError):
    """A trace line cannot be read, or asks for something the disk cannot do."""

    def __init__(self, path: str, line: int, message: str, field: str | None = None):
        self.path, self.line, self.field = path, line, field
        where = f"{path}:{line}" + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


class RequestError(DisklabError):
    """A request lies outside the disk or has a nonsensical size."""


class AlignmentError(RequestError):
    """A request a 4Kn drive refuses: it does not cover whole 4096-byte logical blocks."""


class ZoneError(RequestError):
    """A request a host-managed zoned drive refuses (a write off the write pointer, across a
    zone boundary, or a reset of a conventional zone)."""
