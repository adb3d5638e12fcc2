"""Load and validate disk profiles (TOML files in ``data/disks/``) into the records of
:mod:`simcore.disk.profile` (this module was ``simcore.disk.profiles``; a shim keeps that name).

Validation happens once, here, at the boundary: every error names the file
and the field, says what is wrong and what would be right. Unknown keys are
errors too, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Any

from ..errors import ProfileError
from .profile import CacheSpec, DiskProfile, Overheads, SeekSpec, SmrSpec, Zone

_TOP = {"id", "name", "year", "source", "assumed", "notes", "geometry", "mechanics",
        "firmware", "interface", "initial", "time_unit"}
_GEOMETRY = {"rpm", "revolution_ms", "surfaces", "mapping", "zones", "zoning",
             "logical_sector_bytes", "physical_sector_bytes", "lowest_aligned_lba"}
_ZONE = {"first_cylinder", "last_cylinder", "sectors_per_track", "track_skew",
         "cylinder_skew", "first_offset", "spares", "slips", "spare_group", "empty_front",
         "remaps"}
_ZONING = {"count", "cylinders", "outer_spt", "inner_spt", "spares_per_zone"}
_MECH = {"head_switch_ms", "write_settle_ms", "seek"}
_SEEK = {"model", "single_ms", "average_ms", "full_ms", "settle_ms", "accel_cyl_per_ms2",
         "max_speed_cyl_per_ms", "base_ms", "per_cylinder_ms", "table", "sqrt_ms",
         "knee_cylinders"}
_FIRMWARE = {"zero_latency_reads", "zero_latency_writes", "overheads", "cache", "smr"}
_SMR = {"kind", "media_cache_mib", "band_mib", "idle_clean_ms", "zone_mib", "conventional_zones"}
SMR_KINDS = ("drive-managed", "host-managed")
SECTOR_SIZES = (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
_OVERHEADS = {"read_miss_ms", "read_hit_ms", "write_ms", "completion_ms"}
_OVERHEADS_OPTIONAL = {"read_miss_after_write_ms", "read_hit_after_write_ms",
                       "write_after_read_ms", "write_completion_ms", "random_write_setup_ms",
                       "random_write_data_ms", "min_write_seek_ms", "data_prep_ms",
                       "reselect_ms", "reselect_other_ms", "read_disconnect_ms",
                       "read_disconnect_after_write_ms", "write_disconnect_ms",
                       "random_write_disconnect_ms"}
_CACHE = {"size_kib", "segments", "read_ahead", "max_read_ahead_kib", "write_back",
          "min_read_ahead_kib", "adaptive", "read_hits_on_write_data", "size_sectors",
          "max_read_ahead_sectors", "min_read_ahead_sectors", "read_any_free",
          "read_ahead_over_requested", "read_ahead_on_hit", "write_fill_sectors",
          "write_fill_large_from", "write_fill_large_sectors", "write_prebuffering",
          "preempt_destage", "separate_write_segment", "stop_in_sector",
          "stop_adds_to_overhead", "stop_read_ahead_unless_hit"}

_INTERFACE = {"name", "rate_mb_s", "write_rate_mb_s", "read_watermark", "hold_bus_writes",
              "write_watermark"}
_INITIAL = {"cylinder", "angle"}
READ_AHEAD_POLICIES = {"none", "track", "cylinder", "segment", "on-arrival", "zero",
                       "track-ahead"}


def data_dir() -> Path:
    """The project's data folder (``DISKLAB_DATA`` overrides it)."""
    env = os.environ.get("DISKLAB_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "data"


def disk_dir() -> Path:
    return data_dir() / "disks"


def list_disks() -> list[str]:
    """Ids of the bundled profiles."""
    return sorted(p.stem for p in disk_dir().glob("*.toml"))


def load_disk(name_or_path: str | Path) -> DiskProfile:
    """A validated profile from a bundled id (``atlas10k``) or a TOML file path."""
    p = Path(name_or_path)
    if not p.suffix and not p.exists():
        p = disk_dir() / f"{name_or_path}.toml"
        if not p.exists():
            raise ProfileError(str(name_or_path), "id",
                               f"no such disk; bundled disks are: {', '.join(list_disks())}")
    if not p.exists():
        raise ProfileError(str(p), "(file)", "file not found")
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(str(p), "(syntax)", f"not valid TOML: {exc}") from None
    return profile_from_dict(data, str(p))


def profile_from_dict(data: dict[str, Any], path: str = "<profile>") -> DiskProfile:
    """Validate a parsed profile and build the frozen record."""
    v = _Validator(path)
    v.keys(data, _TOP, "")
    geo = v.table(data, "geometry", _GEOMETRY)
    mech = v.table(data, "mechanics", _MECH)
    fw = v.table(data, "firmware", _FIRMWARE, required=False)
    iface = v.table(data, "interface", _INTERFACE, required=False)
    init = v.table(data, "initial", _INITIAL, required=False)

    rpm = _rpm(v, geo)
    surfaces = v.integer(geo, "surfaces", "geometry", minimum=1)
    mapping = geo.get("mapping", "conventional")
    if mapping not in ("conventional", "serpentine"):
        raise ProfileError(path, "geometry.mapping",
                           f"'{mapping}' is not a mapping; use 'conventional' or 'serpentine'")

    head_switch = v.number(mech, "head_switch_ms", "mechanics", minimum=0.0)
    # DiskSim allows a negative write settle (a write seek shorter than a read seek);
    # the mechanics never lets a move take less than zero time.
    settle = v.number(mech, "write_settle_ms", "mechanics", minimum=-1000.0, default=0.0)
    seek_raw = v.table(mech, "seek", _SEEK, prefix="mechanics.")
    seek = _seek(v, seek_raw)

    logical, physical, aligned = _sector_format(v, geo)
    v.ratio = physical // 512

    rev_ms = 60_000.0 / rpm
    move1 = seek.single_ms if seek.model in ("three-point", "four-phase", "two-regime") else (
        seek.base_ms + seek.per_cylinder_ms if seek.model == "linear" else
        (seek.table[0][1] if seek.table else head_switch))
    zones = _zones(v, geo, rev_ms, head_switch, max(move1, head_switch))
    span = zones[-1].last_cylinder
    if seek.model == "two-regime" and not seek.knee_cylinders < span:
        raise ProfileError(path, "mechanics.seek.knee_cylinders",
                           f"{seek.knee_cylinders} must be below the full stroke, {span} cylinders")

    ov_raw = fw.get("overheads", {})
    overheads = Overheads(
        **{k: v.number(ov_raw, k, "firmware.overheads", minimum=0.0, default=0.0)
           for k in _OVERHEADS},
        **{k: v.number(ov_raw, k, "firmware.overheads", minimum=0.0)
           for k in _OVERHEADS_OPTIONAL if k in ov_raw})
    if "overheads" in fw:
        v.keys(fw["overheads"], _OVERHEADS | _OVERHEADS_OPTIONAL, "firmware.overheads")
    cache = _cache(v, fw["cache"]) if "cache" in fw else CacheSpec()
    smr = _smr(v, fw["smr"]) if "smr" in fw else None
    cylinders = zones[-1].last_cylinder + 1
    init_cyl = v.integer(init, "cylinder", "initial", minimum=0, default=0)
    if init_cyl >= cylinders:
        raise ProfileError(path, "initial.cylinder",
                           f"{init_cyl} is beyond the last cylinder {cylinders - 1}")
    angle = v.number(init, "angle", "initial", minimum=0.0, default=0.0)
    if angle >= 1.0:
        raise ProfileError(path, "initial.angle",
                           f"{angle} must be a fraction of a revolution in [0, 1)")
    assumed = data.get("assumed", [])
    if not isinstance(assumed, list) or not all(isinstance(a, str) for a in assumed):
        raise ProfileError(path, "assumed", "must be a list of strings")
    for key in ("id", "name"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ProfileError(path, key, "is required and must be a non-empty string")
    return DiskProfile(
        id=data["id"], name=data["name"], rpm=rpm, surfaces=surfaces, zones=tuple(zones),
        seek=seek, head_switch_ms=head_switch, write_settle_ms=settle, mapping=mapping,
        zero_latency_reads=bool(fw.get("zero_latency_reads", False)),
        zero_latency_writes=bool(fw.get("zero_latency_writes", False)),
        interface=str(iface.get("name", "ideal")),
        interface_mb_s=v.number(iface, "rate_mb_s", "interface", minimum=0.0, default=0.0),
        interface_write_mb_s=v.number(iface, "write_rate_mb_s", "interface", minimum=0.0,
                                      default=0.0),
        read_watermark=_fraction(v, iface, "read_watermark", "interface"),
        hold_bus_writes=_flag(path, iface, "hold_bus_writes", "interface", True),
        write_watermark=_fraction(v, iface, "write_watermark", "interface"),
        overheads=overheads, cache=cache, logical_sector_bytes=logical,
        physical_sector_bytes=physical, lowest_aligned_lba=aligned, smr=smr,
        initial_cylinder=init_cyl, initial_angle=angle,
        time_unit=str(data.get("time_unit", "ms")), year=data.get("year"),
        source=str(data.get("source", "")), assumed=tuple(assumed),
        notes=str(data.get("notes", "")), path=path,
    )


def _rpm(v: _Validator, geo: dict[str, Any]) -> float:
    """The spindle speed, from ``rpm`` or ``revolution_ms`` (one of them)."""
    if "rpm" in geo and "revolution_ms" in geo:
        raise ProfileError(v.path, "geometry.rpm", "give rpm or revolution_ms, not both")
    if "revolution_ms" in geo:
        return 60_000.0 / v.number(geo, "revolution_ms", "geometry", positive=True)
    return v.number(geo, "rpm", "geometry", positive=True)


def _cache(v: _Validator, c: dict[str, Any]) -> CacheSpec:
    """The ``[firmware.cache]`` table, checked."""
    v.keys(c, _CACHE, "firmware.cache")
    ra = c.get("read_ahead", "none")
    if ra not in READ_AHEAD_POLICIES:
        raise ProfileError(v.path, "firmware.cache.read_ahead",
                           f"'{ra}' is not a policy; use one of {sorted(READ_AHEAD_POLICIES)}")
    for flag in ("write_back", "adaptive", "read_hits_on_write_data",
                 "read_ahead_over_requested", "read_ahead_on_hit", "read_any_free",
                 "write_prebuffering", "preempt_destage", "separate_write_segment",
                 "stop_in_sector", "stop_adds_to_overhead", "stop_read_ahead_unless_hit"):

        if not isinstance(c.get(flag, False), bool):
            raise ProfileError(v.path, f"firmware.cache.{flag}",
                               f"{c[flag]!r} is not true or false")
    size_kib, max_ra, min_ra = (_kib_or_sectors(v, c, name) for name in (
        "size", "max_read_ahead", "min_read_ahead"))
    if max_ra and min_ra > max_ra:
        raise ProfileError(v.path, "firmware.cache.min_read_ahead_kib",
                           f"{min_ra:g} KiB exceeds max_read_ahead_kib {max_ra:g}")
    cache = CacheSpec(
        size_kib=size_kib,
        segments=v.integer(c, "segments", "firmware.cache", minimum=1, default=1),
        read_ahead=ra,
        max_read_ahead_kib=max_ra,
        write_back=bool(c.get("write_back", False)),
        min_read_ahead_kib=min_ra,
        adaptive=bool(c.get("adaptive", False)),
        read_hits_on_write_data=bool(c.get("read_hits_on_write_data", True)),
        read_ahead_over_requested=bool(c.get("read_ahead_over_requested", False)),
        read_ahead_on_hit=bool(c.get("read_ahead_on_hit", False)),
        read_any_free=bool(c.get("read_any_free", False)),
        stop_in_sector=bool(c.get("stop_in_sector", True)),
        stop_adds_to_overhead=bool(c.get("stop_adds_to_overhead", False)),
        stop_read_ahead_unless_hit=bool(c.get("stop_read_ahead_unless_hit", False)),
        write_fill_sectors=v.integer(c, "write_fill_sectors", "firmware.cache", minimum=0,
                                     default=0),
        write_fill_large_from=v.integer(c, "write_fill_large_from", "firmware.cache",
                                        minimum=0, default=0),
        write_fill_large_sectors=v.integer(c, "write_fill_large_sectors", "firmware.cache",
                                           minimum=0, default=0),
        write_prebuffering=bool(c.get("write_prebuffering", True)),
        preempt_destage=bool(c.get("preempt_destage", True)),
        separate_write_segment=bool(c.get("separate_write_segment", False)),
    )
    if cache.separate_write_segment and cache.segments < 2:
        raise ProfileError(v.path, "firmware.cache.separate_write_segment",
                           f"needs at least 2 segments (firmware.cache.segments is "
                           f"{cache.segments}): one for writes, the rest for reads")
    if cache.separate_write_segment and cache.adaptive:
        raise ProfileError(v.path, "firmware.cache.separate_write_segment",
                           "cannot be combined with adaptive = true")
    if cache.write_fill_large_from and not cache.write_fill_large_sectors:
        raise ProfileError(v.path, "firmware.cache.write_fill_large_sectors",
                           "is required (at least 1) when write_fill_large_from is set")
    return cache


def _sector_format(v: _Validator, geo: dict[str, Any]) -> tuple[int, int, int]:
    """The logical and physical sector sizes (IDEMA Advanced Format: 512n, 512e, 4Kn)."""
    sizes = {}
    for key in ("logical_sector_bytes", "physical_sector_bytes"):
        val = geo.get(key, 512)
        if isinstance(val, bool) or not isinstance(val, int) or val not in SECTOR_SIZES:
            raise ProfileError(v.path, f"geometry.{key}",
                               f"{val!r} is not a sector size; use 512 or 4096 (a power of two "
                               "from 512 to 65536 bytes)")
        sizes[key] = val
    logical, physical = sizes["logical_sector_bytes"], sizes["physical_sector_bytes"]
    if physical < logical:
        raise ProfileError(v.path, "geometry.physical_sector_bytes",
                           f"{physical} is smaller than logical_sector_bytes {logical}: a "
                           "logical block never spans physical sectors (512e is 512 logical on "
                           "4096 physical, 4Kn is 4096 on 4096)")
    if logical not in (512, physical):
        raise ProfileError(v.path, "geometry.logical_sector_bytes",
                           f"{logical} must be 512 (512n, 512e) or equal to "
                           f"physical_sector_bytes {physical} (4Kn)")
    ratio = physical // 512
    aligned = v.integer(geo, "lowest_aligned_lba", "geometry", minimum=0, default=0)
    if aligned and (logical != 512 or aligned >= ratio):
        raise ProfileError(v.path, "geometry.lowest_aligned_lba",
                           f"{aligned} must be below {physical} / {logical} = {ratio} "
                           "(the 512-byte LBAs of one physical sector) on a 512e drive, and 0 "
                           "otherwise")
    return logical, physical, aligned


def _kib_or_sectors(v, c: dict, name: str) -> float:
    """``[firmware.cache]`` ``{name}_kib`` (whole KiB) or ``{name}_sectors`` (exact, in 512-byte
    sectors, as a DiskSim model gives them: 7 segments of 511 blocks are 1788.5 KiB), in KiB;
    a profile gives one or the other, never both."""
    kib_key, sec_key = f"{name}_kib", f"{name}_sectors"
    if kib_key in c and sec_key in c:
        raise ProfileError(v.path, f"firmware.cache.{sec_key}",
                           f"give {kib_key} or {sec_key}, not both")
    if sec_key in c:
        return v.integer(c, sec_key, "firmware.cache", minimum=0) / 2
    return v.integer(c, kib_key, "firmware.cache", minimum=0, default=0)


def _smr(v: _Validator, raw: Any) -> SmrSpec:
    """The ``[firmware.smr]`` table: drive-managed (media cache, bands) or host-managed (zones)."""
    f = "firmware.smr"
    v.keys(raw, _SMR, f)
    kind = raw.get("kind")
    if kind not in SMR_KINDS:
        raise ProfileError(v.path, f"{f}.kind",
                           f"{kind!r} is not a kind of shingled drive; use 'drive-managed' or "
                           "'host-managed'")
    if kind == "drive-managed":
        for key in ("zone_mib", "conventional_zones"):
            if key in raw:
                raise ProfileError(v.path, f"{f}.{key}",
                                   "belongs to a host-managed drive; a drive-managed one has "
                                   "media_cache_mib, band_mib and idle_clean_ms")
        cache = v.number(raw, "media_cache_mib", f, positive=True)
        band = v.number(raw, "band_mib", f, positive=True)
        if band > cache:
            raise ProfileError(v.path, f"{f}.band_mib",
                               f"{band} MiB exceeds media_cache_mib {cache}: the media cache "
                               "must hold at least one band's worth of writes")
        return SmrSpec(kind, media_cache_mib=cache, band_mib=band,
                       idle_clean_ms=v.number(raw, "idle_clean_ms", f, minimum=0.0))
    for key in ("media_cache_mib", "band_mib", "idle_clean_ms"):
        if key in raw:
            raise ProfileError(v.path, f"{f}.{key}",
                               "belongs to a drive-managed drive; a host-managed one has "
                               "zone_mib and conventional_zones")
    zone = v.number(raw, "zone_mib", f, positive=True)
    if (zone * 2048) != int(zone * 2048) or int(zone * 2048) % v.ratio:
        raise ProfileError(v.path, f"{f}.zone_mib",
                           f"{zone} MiB is not a whole number of physical sectors")
    return SmrSpec(kind, zone_mib=zone,
                   conventional_zones=v.integer(raw, "conventional_zones", f, minimum=0,
                                                default=0))


def _seek(v: _Validator, raw: dict[str, Any]) -> SeekSpec:
    f = "mechanics.seek"
    model = raw.get("model")
    if model not in ("four-phase", "three-point", "two-regime", "table", "linear"):
        raise ProfileError(v.path, f"{f}.model", f"'{model}' is not a seek model; use "
                           "'four-phase', 'three-point', 'two-regime', 'table' or 'linear'")
    if model == "two-regime":
        single = v.number(raw, "single_ms", f, positive=True)
        full = v.number(raw, "full_ms", f, positive=True)
        if not single < full:
            raise ProfileError(v.path, f"{f}.full_ms",
                               f"{full} must exceed single_ms {single}")
        b = v.number(raw, "sqrt_ms", f, minimum=0.0)
        knee = v.number(raw, "knee_cylinders", f, minimum=1.0)
        if single + b * (math.sqrt(knee) - 1.0) > full:
            raise ProfileError(v.path, f"{f}.sqrt_ms",
                               f"the square root reaches {single + b * (math.sqrt(knee) - 1):.3f}"
                               f" ms at the knee, beyond full_ms {full}")
        average = v.number(raw, "average_ms", f, positive=True) if "average_ms" in raw else 0.0
        if average and not single < average < full:
            raise ProfileError(v.path, f, "need single_ms < average_ms < full_ms (got "
                               f"{single}, {average}, {full})")
        return SeekSpec(model, single, average, full, sqrt_ms=b, knee_cylinders=knee)
    if model == "linear":
        return SeekSpec(model, base_ms=v.number(raw, "base_ms", f, minimum=0.0, default=0.0),
                        per_cylinder_ms=v.number(raw, "per_cylinder_ms", f, minimum=0.0))
    if model == "table":
        table = raw.get("table")
        if not isinstance(table, list) or len(table) < 2:
            raise ProfileError(v.path, f"{f}.table",
                               "needs at least two [distance, time_ms] pairs")
        pairs = []
        for i, pair in enumerate(table):
            if (not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], int)
                    or pair[0] < 1 or not isinstance(pair[1], int | float) or pair[1] < 0):
                raise ProfileError(v.path, f"{f}.table[{i}]",
                                   f"{pair!r} is not a [distance >= 1, time_ms >= 0] pair")
            pairs.append((int(pair[0]), float(pair[1])))
        return SeekSpec(model, table=tuple(pairs))
    single = v.number(raw, "single_ms", f, positive=True)
    average = v.number(raw, "average_ms", f, positive=True)
    full = v.number(raw, "full_ms", f, positive=True)
    if not single < average < full:
        raise ProfileError(v.path, f,
                           f"need single_ms < average_ms < full_ms (got {single}, {average}, {full})")
    return SeekSpec(model, single, average, full,
                    settle_ms=raw.get("settle_ms"), accel_cyl_per_ms2=raw.get("accel_cyl_per_ms2"),
                    max_speed_cyl_per_ms=raw.get("max_speed_cyl_per_ms"))


def derived_skew(switch_ms: float, rev_ms: float, spt: int) -> int:
    """The smallest skew that hides a switch: more sectors than pass under the head during it.

    A skew of exactly ``switch / sector time`` would bring the head back just as
    the next track's first sector starts, so the slightest delay costs a whole
    revolution; one sector more is what drives do.
    """
    return min(spt - 1, math.floor(switch_ms / (rev_ms / spt) + 1e-9) + 1)


def _zones(v: _Validator, geo: dict, rev_ms: float, head_switch: float,
           cyl_switch: float) -> list[Zone]:
    if ("zones" in geo) == ("zoning" in geo):
        raise ProfileError(v.path, "geometry.zones",
                           "give either an explicit [[geometry.zones]] list or a "
                           "[geometry.zoning] summary, exactly one of them")
    if "zoning" in geo:
        raw = _zoning_rows(v, geo)
    else:
        raw = geo["zones"]
        if not isinstance(raw, list) or not raw:
            raise ProfileError(v.path, "geometry.zones", "must be a non-empty list of zones")
    zones: list[Zone] = []
    expect = 0
    for i, z in enumerate(raw):
        zones.append(_zone(v, z, i, expect, rev_ms, head_switch, cyl_switch))
        expect = zones[-1].last_cylinder + 1
    return zones


def _zoning_rows(v: _Validator, geo: dict) -> list[dict[str, int]]:
    """A ``[geometry.zoning]`` summary as explicit zone rows: equal bands of cylinders, sectors
    per track falling linearly from the outer zone to the inner one."""
    z = geo["zoning"]
    v.keys(z, _ZONING, "geometry.zoning")
    count = v.integer(z, "count", "geometry.zoning", minimum=1)
    cyls = v.integer(z, "cylinders", "geometry.zoning", minimum=count)
    outer = v.integer(z, "outer_spt", "geometry.zoning", minimum=1)
    inner = v.integer(z, "inner_spt", "geometry.zoning", minimum=1)
    if inner > outer:
        raise ProfileError(v.path, "geometry.zoning.inner_spt",
                           f"{inner} exceeds outer_spt {outer}: outer tracks are longer")
    spares = v.integer(z, "spares_per_zone", "geometry.zoning", minimum=0, default=0)
    base, extra = divmod(cyls, count)
    raw, c0 = [], 0
    for i in range(count):
        n = base + (1 if i < extra else 0)
        spt = round(outer - (outer - inner) * (i / (count - 1) if count > 1 else 0))
        spt = max(v.ratio, spt // v.ratio * v.ratio)  # whole physical sectors per track
        raw.append({"first_cylinder": c0, "last_cylinder": c0 + n - 1,
                    "sectors_per_track": spt, "spares": spares})
        c0 += n
    return raw


def _zone(v: _Validator, z: dict, i: int, expect: int, rev_ms: float, head_switch: float,
          cyl_switch: float) -> Zone:
    """One zone row, checked; ``expect`` is the first cylinder after the zone before."""
    f = f"geometry.zones[{i}]"
    v.keys(z, _ZONE, f)
    first = v.integer(z, "first_cylinder", f, minimum=0)
    last = v.integer(z, "last_cylinder", f, minimum=first)
    if first < expect:
        raise ProfileError(v.path, f"{f}.first_cylinder",
                           f"is {first} but the zone before ends at cylinder {expect - 1}: "
                           "zones must not overlap and go outermost first (unused "
                           "cylinders between zones are allowed)")
    spt = v.integer(z, "sectors_per_track", f, minimum=1)
    if spt % v.ratio:
        raise ProfileError(v.path, f"{f}.sectors_per_track",
                           f"{spt} is not a whole number of {v.ratio * 512}-byte physical "
                           f"sectors (a multiple of {v.ratio} 512-byte sectors)")
    ts = z.get("track_skew", derived_skew(head_switch, rev_ms, spt))
    cs = z.get("cylinder_skew", derived_skew(cyl_switch, rev_ms, spt))
    for name, val in (("track_skew", ts), ("cylinder_skew", cs)):
        if not isinstance(val, int) or not 0 <= val < spt:
            raise ProfileError(v.path, f"{f}.{name}",
                               f"{val!r} must be a whole number of sectors in 0..{spt - 1}")
    offset = v.integer(z, "first_offset", f, minimum=0, default=0)
    spares = v.integer(z, "spares", f, minimum=0, default=0)
    slips = z.get("slips", [])
    slots = (last - first + 1) * v.surfaces_hint * spt
    if not isinstance(slips, list) or not all(isinstance(s, int) and 0 <= s < slots
                                               for s in slips):
        raise ProfileError(v.path, f"{f}.slips",
                           f"must be zone-relative slot numbers in 0..{slots - 1}")
    if len(set(slips)) != len(slips):
        raise ProfileError(v.path, f"{f}.slips", "lists a slot twice")
    group = v.integer(z, "spare_group", f, minimum=0, default=0)
    if group >= slots:
        group = 0
    empty = v.integer(z, "empty_front", f, minimum=0, default=0)
    good = _good_sectors(v, f, slots, spares, slips, group)
    if good - empty <= 0:
        raise ProfileError(v.path, f"{f}.spares",
                           "spares, slips and the empty front leave no data sectors")
    remaps = z.get("remaps", [])
    if not isinstance(remaps, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) and 0 <= x < slots
                                                        for x in p) for p in remaps):
        raise ProfileError(v.path, f"{f}.remaps",
                           f"must be [defective slot, spare slot] pairs in 0..{slots - 1}")
    return Zone(first, last, spt, ts, cs, offset % spt, spares, tuple(slips),
                group, empty, tuple((a, b) for a, b in remaps if a != b))


def _good_sectors(v: _Validator, f: str, slots: int, spares: int, slips: list[int],
                  group: int) -> int:
    """Slots left for data after the spares and slips (per sparing group when ``group``)."""
    if not group:
        return slots - max(spares, len(slips))
    if spares >= group:
        raise ProfileError(v.path, f"{f}.spares", f"{spares} spares per group of "
                           f"{group} slots leave no data sectors")
    per_group: dict[int, int] = {}
    for s_ in slips:
        per_group[s_ // group] = per_group.get(s_ // group, 0) + 1
    full = slots // group
    over = [g for g, n in per_group.items() if n > (spares if g < full else 0)]
    if over:
        raise ProfileError(v.path, f"{f}.slips",
                           f"sparing group {over[0]} holds more slips than its "
                           f"{spares if over[0] < full else 0} spares")
    return full * (group - spares) + slots % group - per_group.get(full, 0)


def _fraction(v, table: dict, key: str, where: str) -> float:
    x = v.number(table, key, where, minimum=0.0, default=0.0)
    if x > 1.0:
        raise ProfileError(v.path, f"{where}.{key}", f"{x} must be a fraction in 0..1")
    return x


class _Validator:
    """Small typed getters that raise ProfileError with the dotted field name."""

    def __init__(self, path: str):
        self.path = path
        self.surfaces_hint = 1
        self.ratio = 1  # 512-byte sectors per physical sector

    def keys(self, table: Any, allowed: set[str], where: str) -> None:
        if not isinstance(table, dict):
            raise ProfileError(self.path, where or "(top)", "must be a table")
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise ProfileError(self.path, f"{where + '.' if where else ''}{unknown[0]}",
                               f"unknown field; allowed here: {', '.join(sorted(allowed))}")

    def table(self, data: dict, key: str, allowed: set[str], required: bool = True,
              prefix: str = "") -> dict:
        if key not in data:
            if required:
                raise ProfileError(self.path, prefix + key, "is required")
            return {}
        self.keys(data[key], allowed, prefix + key)
        if key == "geometry" and isinstance(data[key].get("surfaces"), int):
            self.surfaces_hint = data[key]["surfaces"]
        return data[key]

    def number(self, table: dict, key: str, where: str, positive: bool = False,
               minimum: float | None = None, default: float | None = None) -> float:
        if key not in table:
            if default is not None:
                return default
            raise ProfileError(self.path, f"{where}.{key}", "is required")
        val = table[key]
        if isinstance(val, bool) or not isinstance(val, int | float) or not math.isfinite(val):
            raise ProfileError(self.path, f"{where}.{key}", f"{val!r} is not a number")
        if positive and val <= 0:
            raise ProfileError(self.path, f"{where}.{key}", f"{val} must be greater than 0")
        if minimum is not None and val < minimum:
            raise ProfileError(self.path, f"{where}.{key}", f"{val} must be at least {minimum}")
        return float(val)

    def integer(self, table: dict, key: str, where: str, minimum: int | None = None,
                default: int | None = None) -> int:
        if key not in table:
            if default is not None:
                return default
            raise ProfileError(self.path, f"{where}.{key}", "is required")
        val = table[key]
        if isinstance(val, bool) or not isinstance(val, int):
            raise ProfileError(self.path, f"{where}.{key}", f"{val!r} is not a whole number")
        if minimum is not None and val < minimum:
            raise ProfileError(self.path, f"{where}.{key}", f"{val} must be at least {minimum}")
        return val


def _flag(path: str, table: dict, key: str, where: str, default: bool) -> bool:
    val = table.get(key, default)
    if not isinstance(val, bool):
        raise ProfileError(path, f"{where}.{key}", f"{val!r} is not true or false")
    return val
