"""One run of the disk homework: options in, request lists and answer table out.

:func:`solve` picks the disk model (the exact toy in ticks by default, a simcore
profile with ``disk=``), draws or parses the requests, and serves them with the
queue's policy; :func:`report` prints what OSTEP's ``disk.py`` prints: the options,
the request lists, and with ``compute`` the per-request table and its totals in the
same columns (``Block  Seek  Rotate  Transfer  Total``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..disk.profile_loader import load_disk
from .mechanism_disk import MechanismDisk, ostep_profile
from .queue import Row, check_policy, run_queue
from .requests import request_lists
from .toy import ToyDisk, ToyGeometry, parse_speed, parse_zoning

TOY_DEFAULTS = {"seek_speed": "1", "rotate_speed": "1", "skew": 0, "zoning": "30,30,30"}


@dataclass(frozen=True)
class DiskHomework:
    """The options of ``python -m simcore homework disk`` (OSTEP's names in comments)."""

    seed: int = 0                   # -s
    addr: str = "-1"                # -a: sectors, or -1 to draw them
    addr_desc: str = "5,-1,0"       # -A: N,MAX,MIN of the drawn requests
    seek_speed: str = "1"           # -S: units of arm travel a tick (tracks are 40 apart)
    rotate_speed: str = "1"         # -R: degrees a tick
    policy: str = "FIFO"            # -p: FIFO, SSTF, SATF, BSATF
    window: int = -1                # -w: scheduling window, -1 for the whole queue
    skew: int = 0                   # -o: track skew in sectors
    zoning: str = "30,30,30"        # -z: degrees between sectors, outer,middle,inner
    late_addr: str = "-1"           # -l: late sectors, or -1 to draw them
    late_desc: str = "0,-1,0"       # -L: N,MAX,MIN of the drawn late requests
    compute: bool = False           # -c: print the answers
    disk: str | None = None         # --disk: a simcore profile instead of the exact toy


@dataclass
class Solution:
    requests: list[int]
    late: list[int]
    rows: list[Row] = field(default_factory=list)
    unit: str = "ticks"
    disk_name: str = "OSTEP homework disk (exact, in ticks)"


def _model(opts: DiskHomework):
    """The disk model the options ask for, its random-draw limit and a validity check."""
    seek = parse_speed(opts.seek_speed, "-S")
    rotate = parse_speed(opts.rotate_speed, "-R")
    zoning = parse_zoning(opts.zoning)
    if opts.disk is None:
        geometry = ToyGeometry(zoning, opts.skew)
        return ToyDisk(geometry, seek, rotate), geometry.random_limit, geometry.check
    if opts.disk == "ostep":
        if len(set(zoning)) != 1:
            raise ValueError(f"--disk ostep: simcore's layout needs one -z angle on all three "
                             f"tracks, got {opts.zoning}")
        geometry = ToyGeometry(zoning, opts.skew)  # for the sector numbering and draw limit
        ToyDisk(geometry, seek, rotate)  # the same checks on -S as the exact model
        model = MechanismDisk(ostep_profile(opts.skew, seek, rotate, 2 * (zoning[0] // 2)))
        return model, geometry.random_limit, model.check
    changed = [flag for flag, name in (("-S", "seek_speed"), ("-R", "rotate_speed"),
                                       ("-o", "skew"), ("-z", "zoning"))
               if str(getattr(opts, name)) != str(TOY_DEFAULTS[name])]
    if changed:
        raise ValueError(f"--disk {opts.disk}: {', '.join(changed)} only apply to the homework "
                         f"disk; a drive profile fixes its own seek curve, rotation and layout")
    model = MechanismDisk(load_disk(opts.disk))
    return model, model.capacity, model.check


def solve(opts: DiskHomework) -> Solution:
    """Draw or parse the requests and serve them (the rows are empty unless ``compute``)."""
    policy = check_policy(opts.policy)
    model, limit, check = _model(opts)
    requests, late = request_lists(opts.addr, opts.addr_desc, opts.late_addr, opts.late_desc,
                                   opts.seed, limit)
    for sector in (*requests, *late):
        check(sector)
    sol = Solution(requests, late)
    if isinstance(model, MechanismDisk):
        sol.unit, sol.disk_name = "ms", f"{model.profile.name} ({model.profile.id}, times in ms)"
    if opts.compute:
        sol.rows = run_queue(model, requests, late, policy, opts.window)
    return sol


def _options_lines(opts: DiskHomework) -> list[str]:
    pairs = [("seed", opts.seed), ("addr", opts.addr), ("addrDesc", opts.addr_desc),
             ("seekSpeed", opts.seek_speed), ("rotateSpeed", opts.rotate_speed),
             ("skew", opts.skew), ("window", opts.window), ("policy", opts.policy),
             ("compute", opts.compute), ("graphics", False), ("zoning", opts.zoning),
             ("lateAddr", opts.late_addr), ("lateAddrDesc", opts.late_desc)]
    if opts.disk is not None:
        pairs.append(("disk", opts.disk))
    return [f"OPTIONS {name} {value}" for name, value in pairs]


def report(opts: DiskHomework, sol: Solution) -> str:
    """The text the command prints."""
    lines = [*_options_lines(opts), "", f"REQUESTS {sol.requests}", ""]
    if sol.late:
        lines += [f"LATE REQUESTS {sol.late}", ""]
    if not opts.compute:
        lines += ["", "Work out the seek, rotation and transfer time of each request above;",
                  "add -c to print the answers.", ""]
        return "\n".join(lines)
    if sol.unit == "ticks":
        row = "Block: {:3d}  Seek:{:3d}  Rotate:{:3d}  Transfer:{:3d}  Total:{:4d}"
        tot = "TOTALS      Seek:{:3d}  Rotate:{:3d}  Transfer:{:3d}  Total:{:4d}"
    else:
        lines += [sol.disk_name, ""]
        row = "Block: {:9d}  Seek:{:7.3f}  Rotate:{:7.3f}  Transfer:{:6.3f}  Total:{:8.3f}"
        tot = "TOTALS          Seek:{:7.3f}  Rotate:{:7.3f}  Transfer:{:6.3f}  Total:{:8.3f}"
    for r in sol.rows:
        s = r.service
        lines.append(row.format(r.sector, s.seek, s.rotate, s.transfer, s.total))
    seek = sum(r.service.seek for r in sol.rows)
    rotate = sum(r.service.rotate for r in sol.rows)
    transfer = sum(r.service.transfer for r in sol.rows)
    lines += ["", tot.format(seek, rotate, transfer, seek + rotate + transfer), ""]
    return "\n".join(lines)
