"""``homework disk``: OSTEP's disk homework, with its options, on simcore.

    python -m simcore homework disk -a 7,30,8 -p SSTF -c
    python -m simcore homework disk -s 3 -A 10,-1,0 -p SATF -w 4 -c
    python -m simcore homework disk -a 7,30,8 -p SATF -c --disk atlas10k
"""

from __future__ import annotations

from ..homework import DiskHomework, report, solve
from ..homework.queue import POLICIES


def register(sub) -> None:
    p = sub.add_parser("homework", help="OSTEP homework front ends (disk)")
    hw = p.add_subparsers(dest="homework", metavar="SIMULATOR")
    hw.required = True
    d = hw.add_parser(
        "disk", help="OSTEP's disk.py homework: seek, rotation and transfer by hand",
        description="The disk homework of Operating Systems: Three Easy Pieces, with its "
                    "options: three tracks of 12 sectors, the head halfway through sector 6, "
                    "times in ticks. --disk NAME asks the same questions of a simcore drive.")
    d.add_argument("-s", "--seed", type=int, default=0, help="random seed (default 0)")
    d.add_argument("-a", "--addr", default="-1",
                   help="requests, comma-separated sectors; -1 draws them as -A says")
    d.add_argument("-A", "--addrDesc", default="5,-1,0",
                   help="N,MAX,MIN of drawn requests (MAX -1: the disk's limit)")
    d.add_argument("-S", "--seekSpeed", default="1", help="arm speed, units a tick (tracks 40 apart)")
    d.add_argument("-R", "--rotSpeed", default="1", help="rotation, degrees a tick")
    d.add_argument("-p", "--policy", default="FIFO", help=f"one of {', '.join(POLICIES)}")
    d.add_argument("-w", "--schedWindow", type=int, default=-1,
                   help="scheduling window (-1: the whole queue)")
    d.add_argument("-o", "--skewOffset", type=int, default=0, help="track skew, in sectors")
    d.add_argument("-z", "--zoning", default="30,30,30",
                   help="degrees between sectors on the outer, middle, inner track")
    d.add_argument("-l", "--lateAddr", default="-1",
                   help="late requests, comma-separated; -1 draws them as -L says")
    d.add_argument("-L", "--lateAddrDesc", default="0,-1,0", help="N,MAX,MIN of late requests")
    d.add_argument("-c", "--compute", action="store_true", help="print the answers")
    d.add_argument("-G", "--graphics", action="store_true",
                   help="not available here (OSTEP's Tk animation); use -c")
    d.add_argument("--disk", default=None,
                   help="a simcore profile (atlas10k, ...) or 'ostep' for the homework disk "
                        "through simcore's mechanics; requests are then LBAs, times ms")
    d.set_defaults(func=main)


def main(args) -> int:
    if args.graphics:
        raise ValueError("-G: the animated window is not part of this front end; "
                         "-c prints the same answers")
    opts = DiskHomework(
        seed=args.seed, addr=args.addr, addr_desc=args.addrDesc, seek_speed=args.seekSpeed,
        rotate_speed=args.rotSpeed, policy=args.policy, window=args.schedWindow,
        skew=args.skewOffset, zoning=args.zoning, late_addr=args.lateAddr,
        late_desc=args.lateAddrDesc, compute=args.compute, disk=args.disk)
    print(report(opts, solve(opts)))
    return 0
