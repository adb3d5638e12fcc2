"""What a measured thing really is, in a sentence: the label every record carries.

A record made on a loop device, a file or a virtual disk must never pass for a
disk's (STYLE: real, not a toy). Used by :mod:`hardware.runner` and :mod:`hardware.hdparm`;
it lives apart from both so that neither has to import the other.
"""

from __future__ import annotations

__all__ = ["honest_label"]

_HONESTY = {
    "hdd": "A rotating hard disk as the kernel reports it.",
    "ssd": "A solid-state drive: no seeks and no zones; flash translation and parallel "
           "channels decide its timing.",
    "virtual-disk": "Not a physical disk: a virtual disk whose timing comes from the "
                    "hypervisor's storage and caches, with no zones or seeks of a known drive.",
    "ram-disk": "Not a disk: memory.",
    "file": "A file on a file system: the page cache, the file system's layout and the device "
            "underneath all sit between fio and any disk.",
    "directory": "A file system: the page cache, the file system and the device underneath "
                 "all sit between fio and any disk.",
}


def honest_label(device: dict) -> str:
    """A sentence or two saying what the measured thing really is."""
    kind = device.get("kind", "unknown")
    if kind.startswith("loop-on-"):
        what = ("Not a disk: a loop device over a file, so the numbers show the file system, "
                "the device under it and the host's storage stack, not zones or seeks.")
    else:
        what = _HONESTY.get(kind, "A device of unknown kind.")
    backing = device.get("backing") or {}
    bkind = backing.get("kind", "")
    if kind in ("file", "directory") and bkind.startswith("loop-on-"):
        what += (" Underneath is not a disk but a loop device over a file, so the numbers show "
                 "the host's storage stack, not zones or seeks.")
    elif kind in ("file", "directory") and bkind in _HONESTY:
        what += f" Underneath: {_HONESTY[bkind][0].lower()}{_HONESTY[bkind][1:]}"
    return f"{device.get('label', device.get('path'))}. {what}"
