"""Import a DiskSim 4.0 disk model into a simcore profile (TOML).

DiskSim's validated drive models (extracted from real drives by DIXtrac) are
the field's main public source of drive parameters. This module reads one
(``.parv``, ``.diskspecs`` or ``.model``, with the ``.seek`` file it names)
and writes the TOML profile :func:`simcore.load_disk` reads. The formats are
described in our own words in ``shared/notes/disksim-formats.md``; no DiskSim
code is used.

What maps, and how (see also ``data/disksim/README.md``):

- layout (``dm_layout_g1``): zones with cylinders, sectors per track, offset
  of the first block, track and cylinder skews (sectors, truncated as DiskSim
  does, or revolutions, rounded to whole sectors); mapping scheme 0
  (conventional) and 1 (serpentine restarting in each zone; scheme 2 where it
  is the same map); sparing schemes 0, 1, 3, 7, 8, 9 and 10 with their slips
  and remapped defects (and any other scheme when a model has no spares and no
  slips); empty space at a zone's front becomes slipped sectors there.
- mechanics (``dm_mech_g1``): ``extracted`` seek curves become a ``table``;
  ``hpl``, ``hplplus10`` and ``curve`` are sampled into a table (within 1 us);
  ``linear`` joins single, average and full-stroke times; ``constant`` is a
  flat ``linear`` curve. Head switch, write settle and RPM carry over.
- firmware (``disksim_disk``): overheads (times ``Time scale for
  overheads``), segments and read-ahead (sizes in blocks, exact: ``size_sectors``,
  ``max_read_ahead_sectors``; scheme 4 as ``track-ahead``; "Read any free blocks" as
  ``read_any_free``; "Stop prefetch in sector" = 0 as ``stop_in_sector = false``),
  zero-latency access, write-back; the
  per-block interface time is the largest of the disk's, the buses' and the
  controllers' on the disk's path, turned into a rate in MB/s.

Where simcore and DiskSim 4.0 part, the import warns and the profile's notes say so:
zero-latency access and reading any free blocks, modelled as meant, which DiskSim never
applies (:data:`ZERO_LATENCY_NOTE`, :func:`as_disksim_runs`).
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..disk.layout import Layout
from ..disk.profile import DiskProfile
from ..disk.profile_loader import load_disk, profile_from_dict
from ..errors import ProfileError
from .parse import Block, Document, Param, PList, parse_file, syntax_error

SEEK_TOLERANCE_MS = 0.001
"""Largest difference allowed when an analytic DiskSim seek curve is sampled into a table."""

SPARING_SCHEMES = {
    0: "no spare sectors",
    1: "spare tracks at the end of each zone",
    2: "spare sectors at the end of each cylinder",
    3: "spare sectors at the end of each track",
    4: "spare sectors at the end of each cylinder, slips to the end of the disk",
    5: "spare sectors at the front of each cylinder",
    6: "spare sectors at the front of each cylinder, slips to the end of the disk",
    7: "spare sectors at the end of the disk",
    8: "spare sectors at the end of each range of cylinders",
    9: "spare sectors at the end of each zone",
    10: "spare sectors at the end of each zone, slips to the end of the disk",
}
IMPORTED_SPARING = (0, 1, 3, 7, 8, 9, 10)
WRITE_FILL = (10, 45, 15)
"""DiskSim 4.0's batch rule for drives with the extra write disconnect (HP C2247): the head
writes a request's first sector once min(n, 10) of its n sectors are buffered, 15 when
n >= 45 (``disk_buffer_block_available`` in DiskSim's disk cache; fixed there, not a
parameter of the model)."""
ZERO_LATENCY_NOTE = (
    "Zero-latency access ('Immediate buffer read/write') is modelled as the parameter means it. "
    "DiskSim 4.0 itself never applies it: mech_g1's g1_access_block takes the DM_OK that "
    "g1_convert_atop returns for a failure (dm.h numbers it -3; the test is rv < 0) and starts "
    "every access at its first sector. To run the model as DiskSim 4.0 does, set "
    "firmware.zero_latency_reads (and _writes) to false (validate --as-disksim does).")
"""The note an imported profile carries when its model asks for zero-latency access: DiskSim
4.0's results on such a model are those of an ordinary drive (``g1_access_block`` in
``diskmodel/mech_g1.c``, ``dm_ptol_result_t`` in ``diskmodel/dm.h``)."""
READ_ANY_FREE_NOTE = (
    "'Read any free blocks' is modelled as the parameter means it: a read miss keeps the sectors "
    "of its track that pass under the head before its own. DiskSim 4.0 never applies it either: "
    "disk_buffer_seekdone asks the same g1_access_block for the sector under the head and gets "
    "the request's first sector back. To run the model as DiskSim 4.0 does, set "
    "firmware.cache.read_any_free to false (validate --as-disksim does).")
"""The note an imported profile carries when its model asks to read any free blocks, inert in
DiskSim 4.0 for the reason of :data:`ZERO_LATENCY_NOTE`."""
READ_AHEAD = {0: "none", 1: "track", 2: "cylinder", 3: "segment", 4: "track-ahead"}


def read_ahead_passes_request(contread: int, max_read_ahead: int, keep: int) -> bool:
    """Whether DiskSim's read-ahead after a miss runs its whole length past the request,
    so that the segment (a ring of ``Segment size`` blocks) may push the request's own,
    already sent, blocks out (simcore's ``read_ahead_over_requested``).

    DiskSim 4.0 sets where a read-ahead ends in ``disk_buffer_get_max_readahead``
    (``disksim_diskcache.c``): with ``Buffer continuous read`` = 4, at the end of a
    track, whatever the other knobs say; else, with a ``Maximum read-ahead (blks)``
    above 0, that many blocks past the request's end; only with no maximum does
    ``Read-ahead over requested`` (``keeprequestdata``) count: above 0 the read-ahead
    stops where a segment starting at the request is full (the request is kept), else it
    reads a whole segment past the request's end. The segment keeps the last ``Segment
    size`` blocks it read (``disk_buffer_segment_wrap``). So the request is kept only
    with no maximum read-ahead and ``Read-ahead over requested`` = 1, the opposite of
    what the manual's sentence on that parameter suggests (the code is what DiskSim's
    own validation results come from).

    >>> read_ahead_passes_request(3, 511, 0)   # the Ultrastar 18ES: 511 past the request
    True
    >>> read_ahead_passes_request(3, 0, 1)     # no maximum, keep the request
    False
    """
    if contread == 0:
        return False
    if contread == 4 or max_read_ahead > 0:
        return True
    return keep <= 0
SCHEDULERS = {1: ("FCFS", "fcfs"), 2: ("elevator by LBN", None), 3: ("C-LOOK by LBN", None),
              4: ("SSTF by LBN", "sstf"), 8: ("SPTF", None)}

# Parameters read from each block; anything else in these blocks is reported.
_DM_DISK = {"Block count", "Number of data surfaces", "Number of cylinders", "Mechanical Model",
            "Layout Model"}
_MECH = {"Access time type", "Constant access time", "Seek type", "Average seek time",
         "Constant seek time", "Single cylinder seek time", "Full strobe seek time",
         "Full seek curve", "Add. write settling delay", "Head switch time",
         "Rotation speed (in rpms)", "Percent error in rpms", "First ten seek times",
         "HPL seek equation values"}
_LAYOUT = {"LBN-to-PBN mapping scheme", "Sparing scheme used", "Rangesize for sparing",
           "Skew units", "Zones"}
_ZONE = {"First cylinder number", "Last cylinder number", "Blocks per track",
         "Offset of first block", "Skew units", "Empty space at zone front",
         "Skew for track switch", "Skew for cylinder switch", "Number of spares", "slips",
         "defects"}
_OVERHEADS = ("Read hit over. after read", "Read hit over. after write",
              "Read miss over. after read", "Read miss over. after write",
              "Write hit over. after read", "Write hit over. after write",
              "Write miss over. after read", "Write miss over. after write",
              "Read completion overhead", "Write completion overhead")
_DISK = {"Model", "Scheduler", "Max queue length", "Bulk sector transfer time",
         "Segment size (in blks)", "Number of buffer segments", "Per-request overhead time",
         "Time scale for overheads", "Enable caching in buffer", "Buffer continuous read",
         "Maximum read-ahead (blks)", "Fast write level", "Immediate buffer read",
         "Immediate buffer write", "High (read) water mark", "Set watermark by reqsize",
         "Extra write disconnect", "Extradisc command overhead", "Extradisc disconnect overhead",
         "Extradisc inter-disconnect delay", "Extradisc seek delta", "Minimum seek delay",
         "Allow read hits on write data", "Read-ahead over requested", "Read-ahead on idle hit",
         "Data preparation overhead", "First reselect overhead", "Other reselect overhead",
         "Read disconnect afterread", "Read disconnect afterwrite", "Write disconnect overhead",
         "Extradisc 2nd disconnect overhead", "Immed transfer partial hit",
         "Hold bus entire read xfer", "Hold bus entire write xfer", "Never disconnect",
         "Low (write) water mark", "Read any free blocks", "Read directly to buffer",
         "Allow write prebuffering", "Maximum number of write segments",
         "Use separate write segment", "Combine seq writes", "Write hit stop prefetch",
         "Disconnect write if seek", "Preseeking level", "Stop prefetch in sector",
         *_OVERHEADS}

# DiskSim knobs simcore does not model: reported when set to anything but 0.
_DISK_NOT_MODELLED = {
    "Allow almost read hits",
    "Allow sneaky full read hits", "Allow sneaky partial read hits",
    "Allow sneaky intermediate read hits",
    "Minimum read-ahead (blks)",
}
# Knobs with no effect on a drive's timing: never reported.
_HARMLESS = {"Print stats", "Avg sectors per cylinder", "Calc sector by sector"}


@dataclass
class Imported:
    """The result of an import: the profile (as TOML text and as a dict) and the warnings."""

    disk: str
    profile: dict[str, Any]
    toml: str
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def import_disksim(path: str | Path, disk: str | None = None) -> Imported:
    """Read a DiskSim model and build a simcore profile from it.

    ``disk`` picks one ``disksim_disk`` (by its name or an instance name) when
    the file defines several. Raises :class:`ProfileError` naming the DiskSim
    file, line and parameter on anything it cannot import.
    """
    src = Path(path)
    if not src.exists():
        raise ProfileError(str(src), "(file)", "file not found")
    doc = parse_file(src)
    ctx = _Context(src, doc)
    ctx.warnings.extend(doc.warnings)
    spec, model = _pick_disk(doc, disk, str(src))
    profile = ctx.build(spec, model)
    text = to_toml(profile)
    # the profile must load exactly as simcore will load it
    try:
        prof = profile_from_dict(tomllib.loads(text), str(src))
    except ProfileError as exc:
        raise ProfileError(str(src), exc.field,
                           f"the imported profile is not valid: {exc}") from None
    ctx.check_capacity(prof)
    return Imported(profile["id"], profile, text, ctx.warnings, list(doc.files))


def load_any(disk: str | Path, warnings: list[str] | None = None) -> DiskProfile:
    """A profile from a bundled id, a TOML profile, or a DiskSim model file (``.parv``,
    ``.diskspecs``, ``.model``) imported on the fly and read back as a saved profile would
    be (the commands ``run`` and ``validate`` take all three). An import's warnings are
    appended to ``warnings`` when it is given."""
    if Path(disk).suffix in (".parv", ".diskspecs", ".model"):
        imported = import_disksim(disk)
        if warnings is not None:
            warnings.extend(imported.warnings)
        return profile_from_dict(tomllib.loads(imported.toml), str(disk))
    return load_disk(str(disk))


def as_disksim_runs(profile: DiskProfile) -> DiskProfile:
    """``profile`` with the knobs DiskSim 4.0 reads but never applies switched off: zero-latency
    reads and writes (:data:`ZERO_LATENCY_NOTE`) and reading any free blocks
    (:data:`READ_ANY_FREE_NOTE`). A replay of an imported model on it runs as DiskSim 4.0
    runs that model, for comparing the two simulators (``validate --as-disksim``)."""
    cache = replace(profile.cache, read_any_free=False)
    return replace(profile, zero_latency_reads=False, zero_latency_writes=False, cache=cache)


def write_profile(imported: Imported, out: str | Path, force: bool = False) -> Path:
    """Write the profile; refuses to replace an existing file unless ``force``."""
    out = Path(out)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists; choose another name or pass --force to replace it")
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(imported.toml, encoding="utf-8")
    os.replace(tmp, out)
    return out


# -- picking the disk ------------------------------------------------------------
def _pick_disk(doc: Document, wanted: str | None, path: str) -> tuple[Block | None, Block]:
    """The ``disksim_disk`` block (None for a bare .model) and its ``dm_disk`` model."""
    specs = doc.blocks_of("disksim_disk")
    if not specs:
        models = doc.blocks_of("dm_disk")
        if wanted:
            models = [m for m in models if m.name == wanted]
        if len(models) != 1:
            names = ", ".join(str(m.name) for m in doc.blocks_of("dm_disk")) or "none"
            raise ProfileError(path, "(disk)", "expected one disk model (a 'disksim_disk' or "
                               f"'dm_disk' block); found dm_disk blocks: {names}")
        return None, models[0]
    if wanted:
        target = doc.instances.get(wanted, wanted)
        chosen = [s for s in specs if s.name == target]
        if not chosen:
            raise ProfileError(path, "(disk)", f"no disk called '{wanted}'; the disks here are: "
                               + ", ".join(str(s.name) for s in specs))
    elif len(specs) == 1:
        chosen = specs
    else:
        used = {doc.instances.get(n.name) for t in doc.topology for n in t.walk()
                if n.type == "disksim_disk"}
        chosen = [s for s in specs if s.name in used]
        if len(chosen) != 1:
            raise ProfileError(path, "(disk)", "the file defines several disks ("
                               + ", ".join(str(s.name) for s in specs)
                               + "); pick one with --disk NAME")
    spec = chosen[0]
    p = spec.get("Model")
    if p is None:
        raise syntax_error(spec.path, spec.line, "Model",
                           f"'Model' is required in block '{spec.label}' "
                           "(Model = source NAME.model)")
    model = p.value
    if isinstance(model, str):
        found = doc.find(model)
        if found is None:
            raise syntax_error(p.path, p.line, "Model", f"no model block called '{model}'")
        model = found
    if not isinstance(model, Block) or model.type != "dm_disk":
        raise syntax_error(p.path, p.line, "Model", "must be a dm_disk block "
                           "(Model = source NAME.model, or Model = dm_disk { ... })")
    return spec, model


# -- reading blocks --------------------------------------------------------------
def _short(p: Param | Block) -> str:
    return f"{p.path}:{p.line}"


class _Reader:
    """Typed getters over one block; errors name file, line and parameter."""

    def __init__(self, block: Block, known: set[str], warnings: list[str],
                 not_modelled: set[str] = frozenset()):
        self.b, self.known, self.warnings = block, known, warnings
        self.not_modelled = not_modelled

    def param(self, name: str, required: bool = False) -> Param | None:
        p = self.b.get(name)
        if p is None and required:
            raise syntax_error(self.b.path, self.b.line, name,
                               f"block '{self.b.label}' opened on this line has no "
                               f"'{name}', which is required{self._suggest(name)}")
        return p

    def _suggest(self, name: str) -> str:
        import difflib

        close = difflib.get_close_matches(name, [p.name for p in self.b.params], n=1)
        return f"; did you mean '{close[0]}'?" if close else ""

    def number(self, name: str, default: float | None = None, minimum: float | None = None,
               positive: bool = False) -> float:
        p = self.param(name, required=default is None)
        if p is None:
            return float(default)  # type: ignore[arg-type]
        return _number(p, minimum=minimum, positive=positive)

    def integer(self, name: str, default: int | None = None, minimum: int | None = None) -> int:
        p = self.param(name, required=default is None)
        if p is None:
            return int(default)  # type: ignore[arg-type]
        return _integer(p.value, p, minimum=minimum)

    def string(self, name: str, default: str | None = None) -> str:
        p = self.param(name, required=default is None)
        if p is None:
            return str(default)
        if not isinstance(p.value, str | int | float) or isinstance(p.value, bool):
            raise syntax_error(p.path, p.line, name, "must be a single word")
        return str(p.value)

    def block(self, name: str, type_: str) -> Block:
        p = self.param(name, required=True)
        assert p is not None
        if not isinstance(p.value, Block) or p.value.type != type_:
            raise syntax_error(p.path, p.line, name, f"must be a '{type_} {{ ... }}' block")
        return p.value

    def numbers(self, name: str, count: int) -> list[float]:
        p = self.param(name, required=True)
        assert p is not None
        if not isinstance(p.value, PList) or len(p.value) != count:
            raise syntax_error(p.path, p.line, name, f"must be a list of {count} numbers "
                               "[ a, b, ... ]")
        return [_num_item(v, p, i) for i, v in enumerate(p.value)]

    def integers(self, name: str) -> list[int]:
        p = self.param(name)
        if p is None:
            return []
        if not isinstance(p.value, PList):
            raise syntax_error(p.path, p.line, name, "must be a list [ n, n, ... ]")
        return [_integer(v, p, minimum=0, item=i) for i, v in enumerate(p.value)]

    def finish(self) -> None:
        """Report parameters of this block that were not read."""
        for p in self.b.params:
            if p.name in self.known or p.name in _HARMLESS:
                continue
            if p.name in self.not_modelled:
                if _is_set(p.value):
                    self.warnings.append(f"{_short(p)}: '{p.name} = {_show(p.value)}' has no "
                                         "simcore counterpart; ignored")
            else:
                self.warnings.append(f"{_short(p)}: unknown parameter '{p.name}' in "
                                     f"'{self.b.label}'; ignored")


def _is_set(v: Any) -> bool:
    if isinstance(v, int | float):
        return v != 0
    return not (isinstance(v, PList) and not v)


def _show(v: Any) -> str:
    if isinstance(v, Block):
        return f"{v.type} {{...}}"
    if isinstance(v, PList):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


def _number(p: Param, minimum: float | None = None, positive: bool = False) -> float:
    v = p.value
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise syntax_error(p.path, p.line, p.name, f"'{_show(v)}' is not a number")
    if positive and v <= 0:
        raise syntax_error(p.path, p.line, p.name, f"{v} must be greater than 0")
    if minimum is not None and v < minimum:
        raise syntax_error(p.path, p.line, p.name, f"{v} must be at least {minimum}")
    return float(v)


def _num_item(v: Any, p: Param, i: int) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        line = p.value.lines[i] if isinstance(p.value, PList) else p.line
        raise syntax_error(p.path, line, p.name, f"item {i + 1} '{_show(v)}' is not a number")
    return float(v)


def _integer(v: Any, p: Param, minimum: int | None = None, item: int | None = None) -> int:
    line = p.value.lines[item] if item is not None and isinstance(p.value, PList) else p.line
    what = f"item {item + 1} " if item is not None else ""
    if isinstance(v, bool) or not isinstance(v, int):
        raise syntax_error(p.path, line, p.name, f"{what}'{_show(v)}' is not a whole number")
    if minimum is not None and v < minimum:
        raise syntax_error(p.path, line, p.name, f"{what}{v} must be at least {minimum}")
    return v


# -- the .seek file --------------------------------------------------------------
def read_seek_file(path: str | Path, warnings: list[str] | None = None
                   ) -> list[tuple[int, float]]:
    """Read an extracted seek curve: ``distance, time_ms`` pairs, one per line.

    An optional first line ``Seek distances measured: N`` gives the count. A
    third column (a standard deviation) is ignored; a fourth (a separate
    write seek time) is ignored with a warning. Distance 0 is dropped.
    """
    p = str(path)
    warnings = warnings if warnings is not None else []
    declared: int | None = None
    pairs: list[tuple[int, float]] = []
    fourth = False
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise ProfileError(p, "(file)", f"cannot read the seek curve: {exc.strerror}") from None
    for lineno, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(?i)^seek distances measured\s*:\s*(\S+)\s*$", line)
        if m:
            if declared is not None or pairs:
                raise syntax_error(p, lineno, "Seek distances measured",
                                   "must be the first line, and only once")
            declared = _whole(p, lineno, m.group(1))
            continue
        dist, t, columns = _seek_pair(p, lineno, raw, line)
        fourth = fourth or columns >= 4
        if pairs and dist <= pairs[-1][0]:
            raise syntax_error(p, lineno, "distance",
                               f"{dist} is not larger than the distance on the line before "
                               f"({pairs[-1][0]}); distances must increase")
        if dist == 0 and t != 0:
            warnings.append(f"{p}:{lineno}: the time {t} ms for distance 0 is not used "
                            "(a zero-distance seek takes no time)")
        pairs.append((dist, t) if dist else (0, 0.0))
    pairs = [q for q in pairs if q[0] > 0]
    if declared is not None:
        _check_declared(p, lines, declared, warnings)
    if len(pairs) < 2:
        raise syntax_error(p, max(len(lines), 1), "(file)",
                           "a seek curve needs at least two distances above 0")
    if fourth:
        warnings.append(f"{p}: the separate write seek times (fourth column) are not "
                        "modelled; simcore uses the read seek curve for writes too")
    return pairs


def _whole(p: str, lineno: int, text: str) -> int:
    """The count of a ``Seek distances measured: N`` line."""
    try:
        return int(text)
    except ValueError:
        raise syntax_error(p, lineno, "Seek distances measured",
                           f"'{text}' is not a whole number") from None


def _seek_pair(p: str, lineno: int, raw: str, line: str) -> tuple[int, float, int]:
    """One ``distance, time_ms`` line of a seek curve: (distance, time, number of columns)."""
    fields = [f for f in re.split(r"[,\s]+", line) if f]
    if len(fields) < 2:
        raise syntax_error(p, lineno, "(line)", f"'{raw.strip()}' is not a "
                           "'distance, time_ms' pair")
    try:
        dist = int(fields[0])
    except ValueError:
        raise syntax_error(p, lineno, "distance",
                           f"'{fields[0]}' is not a whole number of cylinders") from None
    try:
        t = float(fields[1])
    except ValueError:
        raise syntax_error(p, lineno, "time_ms", f"'{fields[1]}' is not a number") from None
    if dist < 0:
        raise syntax_error(p, lineno, "distance", f"{dist} must be at least 0")
    if not math.isfinite(t) or t < 0:
        raise syntax_error(p, lineno, "time_ms", f"{fields[1]} must be a time >= 0")
    return dist, t, len(fields)


def _check_declared(p: str, lines: list[str], declared: int, warnings: list[str]) -> None:
    """The declared count of distances against the lines the file holds."""
    count = len([ln for ln in lines if ln.split("#", 1)[0].strip()]) - 1
    if count < declared:
        raise syntax_error(p, len(lines), "Seek distances measured",
                           f"declares {declared} distances but the file holds {count}")
    if count > declared:
        warnings.append(f"{p}: declares {declared} seek distances but holds {count}; "
                        "all are used")


# -- analytic seek curves sampled into tables ----------------------------------
def sampled_table(times: np.ndarray, tol_ms: float = SEEK_TOLERANCE_MS
                  ) -> list[tuple[int, float]]:
    """Fewest (distance, time) points whose linear interpolation stays within ``tol_ms``.

    ``times[k]`` is the seek time for distance ``k + 1``; the first and last
    distances are always kept, so no extrapolation happens.
    """
    t = np.asarray(times, dtype=float)
    n = len(t)
    if n <= 2:
        return [(k + 1, float(t[k])) for k in range(n)]

    def fits(i: int, j: int) -> bool:
        if j - i < 2:
            return True
        k = np.arange(i, j + 1)
        line = t[i] + (t[j] - t[i]) * (k - i) / (j - i)
        return bool(np.max(np.abs(line - t[i:j + 1])) <= tol_ms)

    keep = [0]
    i = 0
    while i < n - 1:
        good, step, bad = i + 1, 1, None
        while True:
            j = min(i + step, n - 1)
            if fits(i, j):
                good = j
                if j == n - 1:
                    break
                step *= 2
            else:
                bad = j
                break
        if bad is not None:
            lo, hi = good, bad
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if fits(i, mid):
                    lo = mid
                else:
                    hi = mid
            good = lo
        keep.append(good)
        i = good
    return [(k + 1, float(t[k])) for k in keep]


def hpl_times(values: list[float], max_distance: int,
              first_ten: list[float] | None = None) -> np.ndarray:
    """Seek times for distances 1..max_distance from the six HPL values.

    ``V1`` is the boundary distance; below it ``V2 + V3 sqrt(d)``, from it on
    ``V4 + V5 d``; ``V6`` is the single-cylinder time (``-1``: use the
    formula). With ``first_ten`` (``hplplus10``) distances 1..10 come from that list.
    """
    v1, v2, v3, v4, v5, v6 = values
    d = np.arange(1, max_distance + 1, dtype=float)
    t = np.where(d < v1, v2 + v3 * np.sqrt(d), v4 + v5 * d)
    if v6 != -1 and max_distance >= 1:
        t[0] = v6
    if first_ten is not None:
        k = min(10, max_distance)
        t[:k] = first_ten[:k]
    return t


def lee_times(single: float, average: float, full: float, cylinders: int) -> np.ndarray:
    """DiskSim's ``curve`` seek (Lee 1993): ``single + a sqrt(d - 1) + b (d - 1)``.

    ``a`` and ``b`` make the full stroke ``full`` and the mean over all pairs
    of distinct cylinders (simcore's datasheet definition) ``average``.
    """
    span = cylinders - 1
    d = np.arange(1, span + 1, dtype=float)
    w = cylinders - d  # distance d occurs 2 (C - d) times among ordered pairs
    s1 = float(np.dot(w, np.sqrt(d - 1)) / w.sum())
    s2 = float(np.dot(w, d - 1) / w.sum())
    m = np.array([[math.sqrt(span - 1), span - 1.0], [s1, s2]])
    rhs = np.array([full - single, average - single])
    if span < 3 or abs(np.linalg.det(m)) < 1e-12:
        return np.interp(d, [1, max(span, 1)], [single, full])
    a, b = np.linalg.solve(m, rhs)
    return single + a * np.sqrt(d - 1) + b * (d - 1)


# -- building the profile -------------------------------------------------------------
def _keep_bus(bus: dict[str, float], overheads: dict[str, float], extra_disc: int) -> None:
    """Copies into ``overheads`` the bus handshakes that cost something (the "other" ones
    only where they differ from the first)."""
    if not extra_disc:
        bus["reselect_other_ms"] = bus["random_write_disconnect_ms"] = 0.0
    if bus["read_disconnect_after_write_ms"] == bus["read_disconnect_ms"]:
        bus["read_disconnect_after_write_ms"] = 0.0
    for key in ("data_prep_ms", "reselect_ms", "read_disconnect_ms", "write_disconnect_ms"):
        if bus[key]:
            overheads[key] = bus[key]
    for key in ("reselect_other_ms", "read_disconnect_after_write_ms",
                "random_write_disconnect_ms"):  # kept only where they differ
        if bus[key]:
            overheads[key] = bus[key]


class _ZoneSpares:
    """One zone's slots, sparing scheme and spares: checks its slips and defects and counts
    the sectors left for data."""

    def __init__(self, zb: Block, label: str, slots: int, spt: int, sparing: int,
                 spares: int):
        self.zb, self.label, self.slots, self.spt = zb, label, slots, spt
        self.sparing, self.spares = sparing, spares
        self.slips_at = zb.get("slips") or zb

    def check_slips(self, slips: list[int]) -> None:
        """Every slip lies inside the zone (whole tracks under scheme 1)."""
        slots, spt, sl = self.slots, self.spt, self.slips_at
        for s_ in slips:
            if s_ >= (slots // spt if self.sparing == 1 else slots):
                raise syntax_error(sl.path, sl.line, "slips",
                                   f"{self.label}: slip {s_} is beyond the zone's "
                                   + (f"{slots // spt} tracks" if self.sparing == 1 else
                                      f"{slots} sectors (slips count physical sectors from the "
                                      "zone's start)"))

    def remaps(self, defects: list[int]) -> list[list[int]]:
        """DiskSim's ``defects`` as (defective slot, spare slot) pairs that move a sector."""
        if not defects:
            return []
        dp = self.zb.get("defects")
        assert dp is not None
        if len(defects) % 2:
            raise syntax_error(dp.path, dp.line, "defects",
                               "must hold pairs (defective location, replacement)")
        pairs = [(defects[k], defects[k + 1]) for k in range(0, len(defects), 2)]
        spt = self.spt
        if self.sparing == 1:  # whole tracks
            pairs = [(a * spt + k, b * spt + k) for a, b in pairs for k in range(spt)]
        for a, b in pairs:
            if not (0 <= a < self.slots and 0 <= b < self.slots):
                raise syntax_error(dp.path, dp.line, "defects",
                                   f"{self.label}: pair ({a}, {b}) is beyond the zone's "
                                   f"{self.slots} sectors")
        return [[a, b] for a, b in pairs if a != b]

    def good_sectors(self, group: int, reserve: int, unique: list[int]) -> tuple[int, int]:
        """(sparing group, 0 for the whole zone; sectors left for data) after the spares
        and the slips; a group with more slips than spares is an error."""
        slots = self.slots
        if not (group and group < slots):
            return 0, slots - max(reserve, len(unique))
        per: dict[int, int] = {}
        for s_ in unique:
            per[s_ // group] = per.get(s_ // group, 0) + 1
        full = slots // group
        over = [g for g, n in per.items() if n > (reserve if g < full else 0)]
        if over:
            sl = self.slips_at
            raise syntax_error(sl.path, sl.line, "slips",
                               f"{self.label}: sparing group {over[0]} has more slips than "
                               "spares to absorb them")
        return group, full * (group - reserve) + slots % group - per.get(full, 0)


class _Context:
    def __init__(self, src: Path, doc: Document):
        self.src, self.doc = src, doc
        self.warnings: list[str] = []
        self.assumed: list[str] = []
        self.notes: list[str] = []
        self.block_count: tuple[int, Param] | None = None
        self.truncated: list[tuple[Param, str]] = []  # fractional sector counts
        self.rounded: list[tuple[Param, str]] = []  # revolutions to whole sectors
        self.gaps: list[tuple[Param, str]] = []  # unused cylinders between zones

    def warn(self, where: Param | Block, text: str) -> None:
        self.warnings.append(f"{_short(where)}: {text}")

    def build(self, spec: Block | None, model: Block) -> dict[str, Any]:
        name = spec.name if spec is not None else model.name
        disk_name = name or Path(self.src).stem
        dm = _Reader(model, _DM_DISK, self.warnings)
        surfaces = dm.integer("Number of data surfaces", minimum=1)
        bc = dm.param("Block count")
        if bc is not None:
            self.block_count = (_integer(bc.value, bc, minimum=0), bc)
        ncyl = dm.param("Number of cylinders")
        mech_block = dm.block("Mechanical Model", "dm_mech_g1")
        layout_block = dm.block("Layout Model", "dm_layout_g1")
        dm.finish()

        geometry = self._layout(layout_block, surfaces)
        for items, what in ((self.truncated, "sector counts with a fraction: the fraction is "
                             "dropped, as DiskSim does"),
                            (self.rounded, "skews or offsets in revolutions that are not whole "
                             "sectors: rounded to the nearest sector (simcore's skews are "
                             "whole sectors)"),
                            (self.gaps, "zones start after unused cylinders, which hold no "
                             "data and which the arm still crosses, as in DiskSim")):
            if items:
                shown = "; ".join(t for _, t in items[:4]) + ("; ..." if len(items) > 4 else "")
                self.warn(items[0][0], f"{len(items)} {what} ({shown})")
        cylinders = geometry["zones"][-1]["last_cylinder"] + 1
        if ncyl is not None:
            n = _integer(ncyl.value, ncyl, minimum=1)
            if n < cylinders:  # DiskSim counts blocks from the zone table: so does simcore
                self.warn(ncyl, f"is {n} but the zones reach cylinder {cylinders - 1}; the zone "
                          f"table wins, as in DiskSim ({cylinders} cylinders)")
            if n > cylinders:
                self.warn(ncyl, f"the zones end at cylinder {cylinders - 1}, so cylinders "
                          f"{cylinders}..{n - 1} hold no data and are left out")
        mechanics, rpm = self._mechanics(mech_block, cylinders)
        geometry = {"rpm": rpm, "surfaces": surfaces, **geometry}

        profile: dict[str, Any] = {
            "id": re.sub(r"[^a-z0-9_-]+", "_", disk_name.lower()).strip("_") or "disksim",
            "name": f"{disk_name} (DiskSim model)",
            "source": f"imported from {self.src.name} by simcore import-disksim",
            "time_unit": "ms",
            "geometry": geometry,
            "mechanics": mechanics,
        }
        if spec is not None:
            profile["firmware"], profile["interface"] = self._firmware(spec)
        else:
            self.assumed += ["firmware", "interface"]
            self.notes.append("Only the mechanical model (.model) was read: no overheads, "
                              "cache or interface time (import the .diskspecs or .parv "
                              "for those).")
        profile["initial"] = {"cylinder": 0, "angle": 0.0}
        self.assumed += ["initial.cylinder", "initial.angle"]
        profile["assumed"] = list(dict.fromkeys(self.assumed))
        files = ", ".join(Path(f).name for f in self.doc.files)
        profile["notes"] = " ".join([f"Read from {files}.", *self.notes])
        # keep the key order readable: scalars first
        order = ["id", "name", "source", "assumed", "notes", "time_unit"]
        return {k: profile[k] for k in order} | {k: v for k, v in profile.items()
                                                 if k not in order}

    # -- layout -----------------------------------------------------------------
    def _layout(self, block: Block, surfaces: int) -> dict[str, Any]:
        lay = _Reader(block, _LAYOUT, self.warnings)
        mp = lay.param("LBN-to-PBN mapping scheme", required=True)
        assert mp is not None
        scheme = _integer(mp.value, mp, minimum=0)
        sp = lay.param("Sparing scheme used", required=True)
        assert sp is not None
        sparing = _integer(sp.value, sp, minimum=0)
        if sparing not in SPARING_SCHEMES:
            raise syntax_error(sp.path, sp.line, sp.name,
                               f"{sparing} is not a DiskSim sparing scheme (0..10)")
        units = lay.string("Skew units", default="sectors")
        self.rangesize = lay.integer("Rangesize for sparing", default=1, minimum=1)
        zp = lay.param("Zones", required=True)
        assert zp is not None
        if not isinstance(zp.value, PList) or not zp.value:
            raise syntax_error(zp.path, zp.line, "Zones",
                               "must be a list of dm_layout_g1_zone { ... } blocks")
        lay.finish()

        zones = []
        expect = 0
        for i, zb in enumerate(zp.value):
            if not isinstance(zb, Block) or zb.type != "dm_layout_g1_zone":
                raise syntax_error(zp.path, zp.value.lines[i], "Zones",
                                   f"item {i + 1} must be a dm_layout_g1_zone {{ ... }} block")
            zones.append(self._zone(zb, i, surfaces, sparing, sp, units, expect))
            expect = zones[-1]["last_cylinder"] + 1

        if sparing not in IMPORTED_SPARING:
            self.warn(sp, f"sparing scheme {sparing} ({SPARING_SCHEMES[sparing]}) has no simcore "
                      "counterpart, but no zone has spares or slips: imported as no sparing")
        if scheme not in (0, 1, 2):
            raise syntax_error(mp.path, mp.line, mp.name,
                               f"{scheme} is not a mapping scheme simcore imports; use 0 "
                               "(conventional), 1 (serpentine) or 2 (serpentine, not restarting "
                               "in each zone)")
        if surfaces == 1 or scheme == 0:  # with one surface every scheme is the same map
            mapping = "conventional"
        elif scheme == 1:
            mapping = "serpentine"
        else:
            odd = [(i, z["first_cylinder"]) for i, z in enumerate(zones)
                   if z["first_cylinder"] % 2]
            if odd:
                i, c = odd[0]
                raise syntax_error(mp.path, mp.line, mp.name,
                                   "scheme 2 (serpentine that does not restart in each "
                                   f"zone) has no simcore counterpart here: zone {i + 1} "
                                   f"starts on odd cylinder {c}, where scheme 2 runs the "
                                   "surfaces downward and simcore's serpentine map upward. "
                                   "(Where every zone starts on an even cylinder the two maps "
                                   "are the same and the import works.)")
            mapping = "serpentine"
            self.warn(mp, "mapping scheme 2: every zone starts on an even cylinder, so "
                      "simcore's serpentine map (restarting in each zone) is the same map")
        return {"mapping": mapping, "zones": zones}

    def _zone(self, zb: Block, i: int, surfaces: int, sparing: int, sp: Param,
              layout_units: str, expect: int) -> dict[str, Any]:
        z = _Reader(zb, _ZONE, self.warnings)
        first = z.integer("First cylinder number", minimum=0)
        self._zone_start(zb, i, first, expect)
        last = z.integer("Last cylinder number", minimum=first)
        spt = z.integer("Blocks per track", minimum=1)
        units = z.string("Skew units", default=layout_units)
        if units not in ("sectors", "revolutions"):
            p = zb.get("Skew units") or zb
            raise syntax_error(p.path, p.line, "Skew units",
                               f"'{units}' must be 'sectors' or 'revolutions'")
        offset = self._zone_sectors(z, "Offset of first block", True, units, spt, i)
        track_skew = self._zone_sectors(z, "Skew for track switch", False, units, spt, i)
        cyl_skew = self._zone_sectors(z, "Skew for cylinder switch", False, units, spt, i)
        dead = z.integer("Empty space at zone front", default=0, minimum=0)
        spares_p = z.param("Number of spares", required=sparing != 0)
        spares = _integer(spares_p.value, spares_p, minimum=0) if spares_p else 0
        slips = z.integers("slips")
        defects = z.integers("defects")
        z.finish()

        zone = _ZoneSpares(zb, f"zone {i + 1} (cylinders {first}-{last})",
                           (last - first + 1) * surfaces * spt, spt, sparing, spares)
        zone.check_slips(slips)
        remaps = zone.remaps(defects)
        group, reserve, slips = self._spare_reserve(zone, slips, surfaces, sp)
        unique = sorted(set(slips))
        if len(unique) != len(slips):
            self.warn(zone.slips_at, f"{zone.label}: a slip is listed twice; counted once")
        group, good = zone.good_sectors(group, reserve, unique)
        if good - dead <= 0:
            raise syntax_error(zb.path, zb.line, "Number of spares",
                               f"{zone.label}: spares, slips and empty space leave no sector "
                               "for data")
        out = {"first_cylinder": first, "last_cylinder": last, "sectors_per_track": spt,
               "track_skew": track_skew, "cylinder_skew": cyl_skew, "first_offset": offset,
               "spares": reserve, "slips": unique}
        if group:
            out["spare_group"] = group
        if dead:
            out["empty_front"] = dead
        if remaps:
            out["remaps"] = remaps
        return out

    def _zone_start(self, zb: Block, i: int, first: int, expect: int) -> None:
        """Zones go outermost first without overlap; a gap before this one is noted."""
        if first == expect:
            return
        fp = zb.get("First cylinder number")
        assert fp is not None
        if first < expect:
            raise syntax_error(fp.path, fp.line, fp.name,
                               f"zone {i + 1} starts at cylinder {first} but the zone before "
                               f"ends at {expect - 1}: zones must not overlap and go outermost "
                               "first")
        unused = f"{expect}" if first - 1 == expect else f"{expect}-{first - 1}"
        self.gaps.append((fp, f"zone {i + 1} at cylinder {first}, unused {unused}"))

    def _zone_sectors(self, z: _Reader, name: str, required: bool, units: str, spt: int,
                      i: int) -> int:
        """A zone's offset or skew in whole sectors (0 when absent), noting any rounding."""
        p = z.param(name, required=required)
        if p is None:
            return 0
        v = _number(p)
        if units == "revolutions":
            s = v * spt
            whole = round(s)
            if abs(s - whole) > 1e-6:
                self.rounded.append((p, f"zone {i + 1} {name} {v} rev = {s:.3f} -> {whole}"))
        else:
            whole = int(v)  # DiskSim drops the fraction of a sector count
            if whole != v:
                self.truncated.append((p, f"zone {i + 1} {name} {v} -> {whole}"))
        return whole % spt

    def _spare_reserve(self, zone: _ZoneSpares, slips: list[int], surfaces: int,
                       sp: Param) -> tuple[int, int, list[int]]:
        """(sparing group in slots, spares reserved per group, slips as sectors) for the
        zone's DiskSim sparing scheme; 0 as the group means the whole zone."""
        sparing, spares, spt, label = zone.sparing, zone.spares, zone.spt, zone.label
        if sparing == 0:
            if slips:
                self.warn(zone.slips_at, f"{label}: sparing scheme 0 keeps no spares, so "
                          "DiskSim does not slip; the slips are ignored")
            return 0, 0, []
        if sparing == 1:  # spare tracks at the zone's end; slips are whole tracks
            return 0, spares * spt, [t * spt + k for t in slips for k in range(spt)]
        if sparing == 3:  # spare sectors at the end of every track
            return spt, spares, slips
        if sparing == 8:  # spare sectors at the end of every range of cylinders
            return self.rangesize * surfaces * spt, spares, slips
        if sparing == 7:  # spares at the end of the disk: each slip shortens the zone
            return 0, len(slips), slips
        if sparing == 9:
            if len(slips) > spares:
                self.warn(zone.slips_at, f"{label}: {len(slips)} slips but only {spares} "
                          "spares; the zone is shortened by the difference")
            return 0, spares, slips
        if sparing == 10:  # slips do not use the zone's spares
            return 0, spares + len(slips), slips
        if spares or slips:
            raise syntax_error(sp.path, sp.line, sp.name,
                               f"sparing scheme {sparing} ({SPARING_SCHEMES[sparing]}) has no "
                               f"simcore counterpart and {label} uses it ({spares} spares, "
                               f"{len(slips)} slips); simcore imports schemes 0, 1, 3, 7, 8, 9 "
                               "and 10 (or any scheme without spares and slips)")
        return 0, 0, slips

    # -- mechanics ---------------------------------------------------------------
    def _mechanics(self, block: Block, cylinders: int) -> tuple[dict[str, Any], float]:
        m = _Reader(block, _MECH, self.warnings)
        access = m.string("Access time type")
        ap = block.get("Access time type")
        assert ap is not None
        if access == "constant":
            raise syntax_error(ap.path, ap.line, ap.name,
                               "'constant' (a fixed access time, no mechanics) has no simcore "
                               "counterpart; simcore models seek and rotation")
        if access == "averageRotation":
            self.warn(ap, "'averageRotation' charges half a revolution per request; simcore "
                      "models the rotational position exactly instead")
            self.assumed.append("mechanics (rotation modelled exactly, not averaged)")
        elif access != "trackSwitchPlusRotation":
            raise syntax_error(ap.path, ap.line, ap.name, f"'{access}' is not an access time "
                               "type; use trackSwitchPlusRotation, averageRotation or constant")
        rpm = m.number("Rotation speed (in rpms)", positive=True)
        err = m.param("Percent error in rpms")
        if err is not None and _number(err, minimum=0.0) != 0:
            self.warn(err, "simcore spins at the nominal speed; the RPM error is ignored")
        head_switch = m.number("Head switch time", minimum=0.0)
        if block.get("Add. write settling delay") is None:
            self.assumed.append("mechanics.write_settle_ms")
        settle = m.number("Add. write settling delay", default=0.0)
        seek = self._seek(m, block, cylinders)
        m.finish()
        return ({"head_switch_ms": head_switch, "write_settle_ms": settle, "seek": seek},
                rpm)

    def _seek(self, m: _Reader, block: Block, cylinders: int) -> dict[str, Any]:
        kind = m.string("Seek type")
        kp = block.get("Seek type")
        assert kp is not None
        span = cylinders - 1
        if span < 1:
            return {"model": "linear", "base_ms": 0.0, "per_cylinder_ms": 0.0}
        if kind == "extracted":
            fp = m.param("Full seek curve", required=True)
            assert fp is not None
            name = str(fp.value)
            target = Path(fp.path).parent / name
            if not target.exists():
                raise syntax_error(fp.path, fp.line, fp.name,
                                   f"seek curve file '{name}' not found (looked for {target}); "
                                   "it is found relative to the file that names it")
            self.doc.files.append(str(target))
            return {"model": "table", "table": read_seek_file(target, self.warnings)}
        if kind in ("hpl", "hplplus10"):
            values = m.numbers("HPL seek equation values", 6)
            first_ten = m.numbers("First ten seek times", 10) if kind == "hplplus10" else None
            table = sampled_table(hpl_times(values, span, first_ten))
            self.notes.append(f"The '{kind}' seek equation is sampled into the table "
                              f"(within {SEEK_TOLERANCE_MS * 1000:g} us).")
            return {"model": "table", "table": table}
        if kind in ("curve", "linear"):
            single = m.number("Single cylinder seek time", positive=True)
            average = m.number("Average seek time", positive=True)
            full = m.number("Full strobe seek time", positive=True)
            if not single <= average <= full:
                raise syntax_error(kp.path, kp.line, kp.name,
                                   "needs Single cylinder seek time <= Average seek time <= "
                                   f"Full strobe seek time (got {single}, {average}, {full})")
            if kind == "curve":
                times = lee_times(single, average, full, cylinders)
                if np.any(times < 0):
                    self.warn(kp, "the fitted 'curve' dips below 0 ms; clipped at 0")
                    times = np.maximum(times, 0.0)
                table = sampled_table(times)
                self.notes.append("The 'curve' seek (Lee 1993) is fitted to the single, "
                                  "average and full-stroke times with simcore's definition "
                                  "of the average (all pairs of distinct cylinders) and "
                                  "sampled into the table.")
            else:
                third = round(cylinders / 3)
                pts = [(1, single)] + ([(third, average)] if 1 < third < span else []) + [
                    (span, full)]
                table = sorted(dict(pts).items()) if span > 1 else [(1, single), (2, full)]
                self.notes.append("The 'linear' seek joins the single-cylinder time, the "
                                  "average at a third of the stroke and the full stroke "
                                  "with straight lines.")
            self.assumed.append("mechanics.seek.table (shape between the published times)")
            return {"model": "table", "table": [(int(d), float(t)) for d, t in table]}
        if kind == "constant":
            t = m.number("Constant seek time", minimum=0.0)
            return {"model": "linear", "base_ms": t, "per_cylinder_ms": 0.0}
        raise syntax_error(kp.path, kp.line, kp.name, f"'{kind}' is not a seek type; use "
                           "extracted, hpl, hplplus10, curve, linear or constant")

    # -- firmware, cache and interface -----------------------------------------------
    def _firmware(self, spec: Block) -> tuple[dict[str, Any], dict[str, Any]]:
        """The profile's ``firmware`` table (overheads, cache, zero latency) and its
        ``interface``, read in DiskSim's parameter order (the order of the warnings and of
        the first error found)."""
        d = _Reader(spec, _DISK, self.warnings, _DISK_NOT_MODELLED)
        overheads, scale, fast, extra_disc = self._overheads(d, spec)
        self._bus_overheads(d, spec, overheads, scale, extra_disc)
        cache, segs, enable, contread, max_ra = self._buffer(d, spec, fast)
        self._fast_writes(d, spec, cache, fast, segs)
        self._read_knobs(d, spec, cache, enable, contread, max_ra)
        self._write_segment(d, spec, cache, segs, enable)
        self._nil_effect_knobs(d, spec)
        self._stop_prefetch(d, spec, cache, enable, contread)
        if extra_disc and not d.integer("Never disconnect", default=0, minimum=0):
            # DiskSim 4.0 lets the head write a request of such a drive only once
            # min(n, 10) of its n sectors (15 from 45-sector requests on) are buffered
            cache.update(write_fill_sectors=WRITE_FILL[0], write_fill_large_from=WRITE_FILL[1],
                         write_fill_large_sectors=WRITE_FILL[2])
        if not enable:
            self.notes.append("DiskSim's buffer is not used as a cache (Enable caching in "
                              "buffer = 0): the cache size is 0.")
        zl_reads, zl_writes = self._zero_latency(d, spec)
        firmware = {
            "zero_latency_reads": zl_reads,
            "zero_latency_writes": zl_writes,
            "overheads": overheads,
            "cache": cache,
        }
        self._scheduler_note(spec)
        interface = self._interface(spec, d)
        d.finish()
        return firmware, interface

    def _overheads(self, d: _Reader, spec: Block) -> tuple[dict[str, float], float, int, int]:
        """(the command overheads, the time scale, the fast write level, the extra write
        disconnect flag)."""
        missing = [n for n in _OVERHEADS if spec.get(n) is None]
        if missing:
            self.warnings.append(f"{_short(spec)}: no {', '.join(repr(n) for n in missing)} "
                                 "in this disk; taken as 0")
            self.assumed.append("firmware.overheads (missing DiskSim overheads taken as 0)")
        ov = {n: d.number(n, default=0.0, minimum=0.0) for n in _OVERHEADS}
        scale = d.number("Time scale for overheads", default=1.0, minimum=0.0)
        per = d.number("Per-request overhead time", default=0.0, minimum=0.0)
        fast = d.integer("Fast write level", default=0, minimum=0)
        wkind = "Write hit" if fast else "Write miss"
        rc, wc = ov["Read completion overhead"], ov["Write completion overhead"]

        def ms(name: str) -> float:
            return scale * (per + ov[name])

        overheads = {
            "read_miss_ms": ms("Read miss over. after read"),
            "read_hit_ms": ms("Read hit over. after read"),
            "write_ms": ms(f"{wkind} over. after write"),
            "completion_ms": scale * rc,
        }
        # the firmware's cost of a change of command type, kept where it differs
        for key, name, base in (("read_miss_after_write_ms", "Read miss over. after write",
                                 "read_miss_ms"),
                                ("read_hit_after_write_ms", "Read hit over. after write",
                                 "read_hit_ms"),
                                ("write_after_read_ms", f"{wkind} over. after read", "write_ms")):
            if ms(name) != overheads[base]:
                overheads[key] = ms(name)
        if wc != rc:
            overheads["write_completion_ms"] = scale * wc
        extra_disc = d.integer("Extra write disconnect", default=0, minimum=0)
        if extra_disc:
            x = {n: d.number(n, default=0.0, minimum=0.0) for n in (
                "Extradisc command overhead", "Extradisc seek delta",
                "Extradisc disconnect overhead", "Extradisc inter-disconnect delay")}
            overheads["random_write_setup_ms"] = scale * (x["Extradisc command overhead"]
                                                          + x["Extradisc seek delta"])
            overheads["random_write_data_ms"] = scale * (
                x["Extradisc command overhead"] + x["Extradisc disconnect overhead"]
                + x["Extradisc inter-disconnect delay"])

        return overheads, scale, fast, extra_disc

    def _bus_overheads(self, d: _Reader, spec: Block, overheads: dict[str, float],
                       scale: float, extra_disc: int) -> None:
        """Adds the bus handshakes and the minimum write seek to ``overheads``."""
        # the drive's bus handshakes: data preparation before every data transfer, and the
        # disconnect / reselect of a read miss and of a write-through write
        bus = {key: scale * d.number(name, default=0.0, minimum=0.0) for key, name in (
            ("data_prep_ms", "Data preparation overhead"),
            ("reselect_ms", "First reselect overhead"),
            ("reselect_other_ms", "Other reselect overhead"),
            ("read_disconnect_ms", "Read disconnect afterread"),
            ("read_disconnect_after_write_ms", "Read disconnect afterwrite"),
            ("write_disconnect_ms", "Write disconnect overhead"),
            ("random_write_disconnect_ms", "Extradisc 2nd disconnect overhead"))}
        if not d.integer("Immed transfer partial hit", default=1, minimum=0):
            p = spec.get("Immed transfer partial hit")
            assert p is not None
            self.warn(p, "partial read hits are sent at once (as with 'Immed transfer "
                      "partial hit' = 1), not held to the read water mark")
        never = d.integer("Never disconnect", default=0, minimum=0)
        if never and any(bus[k] for k in ("reselect_ms", "reselect_other_ms",
                                         "read_disconnect_ms",
                                         "read_disconnect_after_write_ms")):
            p = spec.get("Never disconnect")
            assert p is not None
            self.warn(p, "a drive that never disconnects keeps no reselect or read "
                      "disconnect overheads here (DiskSim still charges them after a "
                      "write-through write's data)")
            for k in ("reselect_ms", "reselect_other_ms", "read_disconnect_ms",
                      "read_disconnect_after_write_ms"):
                bus[k] = 0.0
        _keep_bus(bus, overheads, extra_disc)
        min_seek = d.number("Minimum seek delay", default=0.0, minimum=0.0)
        if min_seek:
            overheads["min_write_seek_ms"] = scale * min_seek

    def _buffer(self, d: _Reader, spec: Block, fast: int
                ) -> tuple[dict[str, Any], int, int, int, int]:
        """(the cache table, segments, caching enabled, read-ahead scheme, maximum
        read-ahead in blocks)."""
        segs = d.integer("Number of buffer segments", default=1, minimum=0)
        seg_blocks = d.integer("Segment size (in blks)", default=0, minimum=0)
        enable = d.integer("Enable caching in buffer", default=1, minimum=0)
        contread = d.integer("Buffer continuous read", default=0, minimum=0)
        max_ra = d.integer("Maximum read-ahead (blks)", default=0, minimum=0)
        if contread not in READ_AHEAD:
            p = spec.get("Buffer continuous read")
            assert p is not None
            raise syntax_error(p.path, p.line, p.name, f"{contread} is not a read-ahead scheme "
                               "(0..4)")
        if spec.get("Number of buffer segments") is None:
            self.assumed.append("firmware.cache")
        # sizes as DiskSim has them, in blocks (sectors): "Segment size (in blks)" times the
        # segments, "Maximum read-ahead (blks)"; scheme 4 is simcore's "track-ahead", which
        # ignores the maximum as DiskSim's disk_buffer_get_max_readahead does (kept in the
        # profile as extracted)
        cache = {
            "size_sectors": segs * seg_blocks if enable else 0,
            "segments": max(segs, 1),
            "read_ahead": READ_AHEAD[contread] if enable else "none",
            "max_read_ahead_sectors": max_ra,
            "write_back": bool(fast),
        }
        return cache, segs, enable, contread, max_ra

    def _fast_writes(self, d: _Reader, spec: Block, cache: dict[str, Any], fast: int,
                     segs: int) -> None:
        """Write prebuffering and the fast write level."""
        prebuffer = d.integer("Allow write prebuffering", default=0, minimum=0)
        write_segs = d.integer("Maximum number of write segments", default=segs, minimum=0)
        if fast:
            if fast > 2:
                p = spec.get("Fast write level")
                assert p is not None
                raise syntax_error(p.path, p.line, p.name, f"{fast} is not a fast write level "
                                   "(0, 1 or 2)")
            # DiskSim 4.0 reports every write of a drive with fast writes (level 1 or 2) done
            # once its data is in the buffer (disk_buffer_transfer_size); its media access
            # holds the head until all of it is written, for any other command
            # (disk_buffer_stopable_access), so the next command waits for the destage
            cache["preempt_destage"] = False
            if not prebuffer:
                cache["write_prebuffering"] = False
            elif 0 < write_segs < segs:
                p = spec.get("Maximum number of write segments")
                assert p is not None
                self.warn(p, f"at most {write_segs} dirty segments: with write prebuffering "
                          "simcore lets writes fill every free segment")
            if fast == 1 and d.integer("Max queue length", default=1, minimum=0) > 1:
                p = spec.get("Fast write level")
                assert p is not None
                self.warn(p, "fast write level 1 is imported as level 2: a write appending to "
                          "data being destaged joins it even when other commands wait at the "
                          "drive (DiskSim then makes it wait for the destage)")
            if fast == 1:
                self.notes.append(
                    "Fast write level 1: DiskSim 4.0 handles it as level 2 (every write "
                    "reported done from the buffer) except that a write appending to the "
                    "data being destaged joins that destage only when no other command "
                    "waits at the drive; with one command at a time (Max queue length 1) "
                    "the two levels are the same.")

    def _read_knobs(self, d: _Reader, spec: Block, cache: dict[str, Any], enable: int,
                    contread: int, max_ra: int) -> None:
        """Read hits on write data, the read-ahead's reach and the buffer's read options."""
        write_hits = d.integer("Allow read hits on write data", default=1, minimum=0)
        if enable and not write_hits:
            cache["read_hits_on_write_data"] = False
        keep = d.integer("Read-ahead over requested", default=0, minimum=-1)
        if keep < 0:
            p = spec.get("Read-ahead over requested")
            assert p is not None
            self.warn(p, "'Read-ahead over requested = -1' (DiskSim drops the request's data "
                      "from the segment once it is sent) is imported as 0")
        if enable and contread and read_ahead_passes_request(contread, max_ra, keep):
            cache["read_ahead_over_requested"] = True
        if enable and contread and d.integer("Read-ahead on idle hit", default=0, minimum=0):
            cache["read_ahead_on_hit"] = True
        if not d.integer("Read directly to buffer", default=1, minimum=0):
            # = 1 (every validated model): DiskSim 4.0's disk_buffer_sector_done asks
            # disk_buffer_block_available about each sector before the head passes it; = 0
            # asks about a read's sector after it has passed. Either way the media is held
            # a segment ahead of the host (simcore: Drive._ring_stall for a read's own
            # sectors, SegmentCache._hold_read_ahead for the read-ahead after them)
            p = spec.get("Read directly to buffer")
            assert p is not None
            self.warn(p, "'Read directly to buffer = 0' (DiskSim checks a read sector's room "
                      "after the head has passed it) is not modelled; taken as 1")
        if enable and d.integer("Read any free blocks", default=0, minimum=0):
            # a read miss keeps the sectors of its track that pass under the head before
            # it (disk_buffer_seekdone / disk_buffer_sector_done; CacheConfig.read_any_free).
            # DiskSim 4.0 means to, but its seekdone finds where to start through
            # g1_access_block, which returns the request's first sector (ZERO_LATENCY_NOTE)
            cache["read_any_free"] = True
            self.notes.append(READ_ANY_FREE_NOTE)
            p = spec.get("Read any free blocks")
            assert p is not None
            self.warn(p, f"'{p.name} = {_show(p.value)}' is modelled, and DiskSim 4.0 never "
                      "applies it (see the profile's notes); validate --as-disksim runs it as "
                      "DiskSim does")

    def _write_segment(self, d: _Reader, spec: Block, cache: dict[str, Any], segs: int,
                       enable: int) -> None:
        """DiskSim's "Use separate write segment"."""
        separate = d.integer("Use separate write segment", default=0, minimum=0)
        if separate:
            p = spec.get("Use separate write segment")
            assert p is not None
            if separate > 1:
                raise syntax_error(p.path, p.line, p.name, f"{separate} is not 0 or 1")
            if segs < 2:
                # DiskSim 4.0 refuses it too (disk_postpass_perdisk)
                raise syntax_error(p.path, p.line, p.name, "needs more than one buffer "
                                   f"segment ('Number of buffer segments' is {segs})")
            if enable:
                # one segment for writes only, the rest for reads (CacheConfig doc)
                cache["separate_write_segment"] = True

    def _stop_prefetch(self, d: _Reader, spec: Block, cache: dict[str, Any], enable: int,
                       contread: int) -> None:
        """How a read-ahead stops for the next command."""
        stop = d.integer("Stop prefetch in sector", default=1, minimum=0)
        if stop > 1:
            p = spec.get("Stop prefetch in sector")
            assert p is not None
            raise syntax_error(p.path, p.line, p.name, f"{stop} must be 0 or 1")
        if enable and not stop:
            # DiskSim 4.0's disk_buffer_stopable_access: a read-ahead stopped by a new
            # command holds the head to the end of the sector under it (disk_seek_stoptime);
            # with 1 it frees the head at once, as simcore does by default
            # (CacheConfig.stop_in_sector)
            cache["stop_in_sector"] = False
        if enable and contread:
            # disk_check_hda starts the next command's seek after its overhead plus what
            # the stop waited (the sum of the two delays, not the larger)
            cache["stop_adds_to_overhead"] = True
            # not set: DiskSim's hit test (CacheConfig.stop_read_ahead_unless_hit). With "Allow
            # almost read hits" = 0, as in all ten models, disk_buffer_select_read_segment
            # makes a read whose first block is being prefetched a miss that stops the
            # read-ahead. Applied to the bundled profiles it takes a queue of back-to-back
            # 256 KiB sequential reads on the Ultrastar 18ES from 20.4 to 12.4 MB/s (4 KiB:
            # 19.6 to 0.5), far below the media rate such drives stream at; on the five
            # traces it changes 15 requests and no target (issue 14 notes, 2026-11-27)

    def _zero_latency(self, d: _Reader, spec: Block) -> tuple[bool, bool]:
        """DiskSim's "Immediate buffer read/write" as (zero-latency reads, writes)."""
        # "Immediate buffer read/write" set DiskSim 4.0's disk.immedread/immedwrite, which
        # disk_check_hda_pending copies into disk.immed for the access it starts; with it,
        # disk_buffer_seekdone asks mech_g1's dm_latency/dm_access_block where on the track
        # to start. The parameter means zero-latency access, and Mechanism models it so. In
        # DiskSim 4.0 it has no effect: g1_access_block reads g1_convert_atop's success,
        # DM_OK, as a failure (dm.h makes DM_OK -3, and the test is ``rv < 0``) and returns
        # the request's first sector, so every access waits for that sector as without it
        # (see ZERO_LATENCY_NOTE). Any nonzero value (0..2 accepted) means the same.
        zl_reads = d.integer("Immediate buffer read", default=0, minimum=0) > 0
        zl_writes = d.integer("Immediate buffer write", default=0, minimum=0) > 0
        if zl_reads or zl_writes:
            self.notes.append(ZERO_LATENCY_NOTE)
            p = spec.get("Immediate buffer read" if zl_reads else "Immediate buffer write")
            assert p is not None
            self.warn(p, f"'{p.name} = {_show(p.value)}' asks for zero-latency access, which "
                      "simcore models and DiskSim 4.0 never applies (see the profile's notes): "
                      "DiskSim's times on this model are an ordinary drive's; validate "
                      "--as-disksim runs it as DiskSim does")
        return zl_reads, zl_writes

    def _scheduler_note(self, spec: Block) -> None:
        """Notes (and warns, unless it is FCFS) which policy DiskSim queues the drive with."""
        sched = spec.get("Scheduler")
        if isinstance(sched, Param) and isinstance(sched.value, Block):
            pol = sched.value.get("Scheduling policy")
            if pol is not None and isinstance(pol.value, int):
                label, ours = SCHEDULERS.get(pol.value, (f"policy {pol.value}", None))
                note = f"DiskSim schedules the drive's queue with {label}"
                if ours == "fcfs":  # simcore's drive queue too, unless the caller picks one
                    note += ", as simcore's drive does by default"
                else:
                    hint = (f"run with --scheduler {ours}" if ours
                            else "pick the closest simcore scheduler with --scheduler")
                    self.warn(pol, f"the drive's queue scheduler ({label}) is not part of a "
                              f"simcore profile; {hint}")
                self.notes.append(note + ".")

    def _nil_effect_knobs(self, d: _Reader, spec: Block) -> None:
        """DiskSim knobs whose effect, for the values its validated models use, is what
        simcore does anyway: read (so never reported) and warned about only for the other
        values, which simcore does not model.

        - "Combine seq writes" = 1 (all ten models): DiskSim 4.0 lets a write take a segment
          whose write data it appends to (``BUFFER_APPEND`` in
          ``disk_buffer_select_write_segment``, ``disksim_diskcache.c``), as simcore's cache
          always does (the write joins the destage or the buffered data). Its other case,
          ``BUFFER_PREPEND``, needs a dirty segment not yet being written while a new write
          arrives; with one command at a time ("Max queue length" = 1 in all ten) the destage
          starts as the write is taken, so it never arises, and without fast writes a
          segment holds no dirty data once the write is reported done. = 0 is not modelled.
        - "Write hit stop prefetch" (= 1 in all ten): a write overlapping a segment whose
          read-ahead runs sets that read-ahead's minimum and maximum to where it is
          (``disk_buffer_stopable_access``, ``disksim_diskctlr.c``), so the write may stop it
          before the minimum read-ahead is done. The minimum read-ahead is the only thing it
          overrides, and the importer does not map "Minimum read-ahead (blks)" (0 in all ten,
          reported when set): simcore's write stops any read-ahead at once, either value.
        - "Disconnect write if seek" (= 0 in all ten): with 0, ``disk_buffer_stopable_access``
          stops a read-ahead at once when a command needs the head, after the seek under way
          (the other case, "Stop prefetch in sector", is read elsewhere), which is
          :meth:`SegmentCache.stop <simcore.drive.cache.SegmentCache.stop>`; with 1 it would
          always finish the sector or seek in progress first: not modelled, reported.
        - "Preseeking level" (= 0 in all ten): with 0 (``NO_PRESEEK``) a new command may
          take the head only once the previous one's completion was received
          (``disk_buffer_stopable_access``; ``disk_request_complete`` checks for a swap
          only with preseeking), which is simcore's one command at a time; 1 and 2 seek for
          the next command before the completion: not modelled, reported.
        """
        rules = (("Combine seq writes", 1, "simcore always lets a write appending to buffered "
                  "write data join it"),
                 ("Disconnect write if seek", 0, "simcore stops a read-ahead at once when a "
                  "command needs the head (after a seek under way)"),
                 ("Preseeking level", 0, "simcore lets a command take the head only once the "
                  "previous one has completed"))
        for name, modelled, what in rules:
            p = spec.get(name)
            if p is None:
                continue
            value = d.integer(name, minimum=0)
            if value != modelled:
                self.warn(p, f"'{name} = {value}' is not modelled ({what}); taken as "
                             f"{modelled}")
        # either value: see the docstring (its only effect is on the minimum read-ahead)
        d.integer("Write hit stop prefetch", default=1, minimum=0)

    def _interface(self, spec: Block, d: _Reader) -> dict[str, Any]:
        # the slowest link on the path sets the rate, reads and writes apart (buses have both)
        disk_time = (d.number("Bulk sector transfer time", default=0.0, minimum=0.0),
                     f"disk {spec.name}")
        reads, writes = [disk_time], [disk_time]
        if spec.get("Bulk sector transfer time") is None:
            self.assumed.append("interface.rate_mb_s")
        for b in self._path_blocks(spec):
            if b.type == "disksim_bus":
                r = _Reader(b, set(), [])
                reads.append((r.number("Read block transfer time", default=0.0, minimum=0.0),
                              f"bus {b.name}"))
                writes.append((r.number("Write block transfer time", default=0.0, minimum=0.0),
                               f"bus {b.name}"))
            else:
                t = (_Reader(b, set(), []).number("Bulk sector transfer time", default=0.0,
                                                  minimum=0.0), f"controller {b.name}")
                reads.append(t)
                writes.append(t)
        per_block, who = max(reads, key=lambda x: x[0])
        per_block_w = max(writes, key=lambda x: x[0])[0]
        mark = d.number("High (read) water mark", default=0.0, minimum=0.0)
        low = d.number("Low (write) water mark", default=0.0, minimum=0.0)
        never = d.integer("Never disconnect", default=0, minimum=0) > 0
        hold_read = never or d.integer("Hold bus entire read xfer", default=0, minimum=0) > 0
        hold_write = never or d.integer("Hold bus entire write xfer", default=0, minimum=0) > 0
        if d.integer("Set watermark by reqsize", default=1, minimum=0) != 1 and (
                mark > 0 or (low > 0 and not hold_write)):
            p = spec.get("Set watermark by reqsize")
            assert p is not None
            self.warn(p, "a water mark set by segment size is taken by request size")
        # A read whose data the bus sends faster than the media brings it: DiskSim's drive
        # holds the bus and waits, or disconnects and reconnects once the read water mark's
        # worth (at least a sector) is buffered, paying the read disconnect, reselect and
        # data preparation (disk_buffer_transfer_size, disk_request_needs_bus). simcore
        # streams: the same times when the water mark is one sector and those handshakes cost
        # nothing (so for all ten validated drives).
        if not hold_read:
            seg = d.integer("Segment size (in blks)", default=0, minimum=0)
            handshakes = [d.number(n, default=0.0, minimum=0.0) for n in (
                "Read disconnect afterread", "Read disconnect afterwrite",
                "First reselect overhead", "Data preparation overhead")]
            if int(seg * min(mark, 1.0) + 1e-9) > 1 or any(handshakes):
                p = spec.get("Hold bus entire read xfer") or spec.get("Never disconnect")
                where = p if p is not None else spec
                self.warn(where, "a read that the bus outruns is sent as the media brings it "
                          "(as if the drive held the bus), not in bursts at the read water "
                          "mark with a reconnection each")
        writes: dict[str, Any] = {}
        if not hold_write:
            # DiskSim's drive gives up the bus when a write's data fills its segment and
            # comes back at the low water mark (disk_buffer_transfer_size,
            # disk_request_needs_bus); see simcore.drive.write_feed.feed_write
            writes["hold_bus_writes"] = False
            if low > 0:
                writes["write_watermark"] = min(1.0, low)
        if per_block <= 0:
            return {"name": "ideal (DiskSim block transfer times are 0)", "rate_mb_s": 0.0,
                    **writes}
        rate = 512 / (per_block * 1000.0)  # MB/s = 10^6 B/s; per_block in ms
        out = {"name": f"DiskSim bulk transfer, {per_block:g} ms per block ({who})",
               "rate_mb_s": rate}
        if per_block_w > 0 and per_block_w != per_block:
            out["write_rate_mb_s"] = 512 / (per_block_w * 1000.0)
        if mark > 0:
            out["read_watermark"] = min(1.0, mark)
        out.update(writes)
        return out

    def _path_blocks(self, spec: Block) -> list[Block]:
        """Bus and controller blocks between the driver and this disk (all, without topology)."""
        doc = self.doc
        kinds = ("disksim_bus", "disksim_ctlr")

        def find_path(node, trail):
            trail = [*trail, node]
            if node.type == "disksim_disk" and doc.instances.get(node.name) == spec.name:
                return trail
            for c in node.children:
                got = find_path(c, trail)
                if got:
                    return got
            return None

        for root in doc.topology:
            trail = find_path(root, [])
            if trail:
                out = []
                for n in trail:
                    if n.type in kinds:
                        b = doc.find(doc.instances.get(n.name, n.name))
                        if b is not None and b.type in kinds:
                            out.append(b)
                return out
        return [b for b in doc.blocks if b.type in kinds]

    def check_capacity(self, prof) -> None:
        if self.block_count is None:
            return
        n, p = self.block_count
        cap = Layout(prof).capacity
        if n != cap:
            self.warn(p, f"Block count is {n} but the zones hold {cap} blocks; simcore uses "
                      f"{cap} (as DiskSim does)")


# -- TOML ----------------------------------------------------------------------------
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"cannot write {v} to TOML")
        return repr(v)
    if isinstance(v, str):
        esc = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{esc}"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def to_toml(data: dict[str, Any]) -> str:
    """A small TOML writer for profile dicts (scalars, lists, tables, arrays of tables)."""
    out: list[str] = []

    def table(d: dict[str, Any], prefix: str) -> None:
        for k, v in d.items():
            if not isinstance(v, dict) and not (isinstance(v, list) and v
                                                and isinstance(v[0], dict)):
                if isinstance(v, list) and len(v) > 8:
                    out.append(f"{k} = [")
                    out.extend(f"  {_toml_value(x)}," for x in v)
                    out.append("]")
                else:
                    out.append(f"{k} = {_toml_value(v)}")
        for k, v in d.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                out.extend(["", f"[{name}]"])
                table(v, name + ".")
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    out.extend(["", f"[[{name}]]"])
                    table(item, name + ".")

    table(data, "")
    return "\n".join(out) + "\n"
