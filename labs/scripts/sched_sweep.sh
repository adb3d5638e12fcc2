#!/bin/bash
# Lab 3 hardware part: the server profiles under each Linux I/O scheduler.
#
# For each of none, mq-deadline, bfq and kyber that the kernel offers for DEV, switch
# /sys/block/DEV/queue/scheduler, run the FFSB-like fio profiles of Pratt & Heger 2004
# (seed 001, note §6.4) on a scratch directory, and record the result; the original
# scheduler is put back at the end, also on Ctrl-C.
#
# usage: sudo labs/scripts/sched_sweep.sh [-n] DEV DIR [JOB ...]
#   DEV   the disk under DIR, e.g. sdb (its scheduler is switched)
#   DIR   a directory on a SCRATCH file system on DEV: fio creates and deletes files there
#   JOB   server-web server-file server-mail server-metadata (default: server-web server-file)
#   -n    dry run: print what would run, change nothing
#   environment: OPS (operations per thread, default 1000), REPEAT (runs per point, default 3),
#                NDIRS, NFILES (the file set: directories and files in each; default 100 x 400),
#                OUTDIR (where the records go; default: data/measurements, where the lab looks)
#
# With the project's hardware package (python -m hardware) each run becomes a measurement
# record in data/measurements/ (the lab reads them); without it, plain fio runs and the
# wall-clock times go to sched_sweep.<DEV>.<time>/times.txt, three repetitions each, as in
# the paper (mean of 3 runs).
set -euo pipefail

DRY=0
if [[ "${1:-}" == "-n" ]]; then DRY=1; shift; fi
if [[ $# -lt 2 ]]; then
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
DEV=${1#/dev/}; DIR=$2; shift 2
JOBS=("$@"); [[ ${#JOBS[@]} -eq 0 ]] && JOBS=(server-web server-file)
SCHEDULERS=(none mq-deadline bfq kyber)
OPS=${OPS:-1000}; REPEAT=${REPEAT:-3}; NDIRS=${NDIRS:-100}; NFILES=${NFILES:-400}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-$HERE/.venv/bin/python}; [[ -x $PY ]] || PY=python3
Q=/sys/block/$DEV/queue

die() { echo "sched_sweep: $*" >&2; exit 1; }
run() { if [[ $DRY -eq 1 ]]; then echo "would run: $*"; else "$@"; fi; }

[[ -d $Q ]] || die "/sys/block/$DEV does not exist: give the whole disk (sdb), not a partition"
[[ -d $DIR ]] || die "$DIR is not a directory"
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
[[ $DRY -eq 1 || $(id -u) -eq 0 ]] || die "switching schedulers needs root (sudo)"
SRC=$(df --output=source "$DIR" | tail -1)
case "$SRC" in
    /dev/$DEV|/dev/$DEV[0-9]*|/dev/${DEV}p[0-9]*) ;;
    *) die "$DIR lives on $SRC, not on /dev/$DEV: the scheduler you switch must be the one its I/O goes through" ;;
esac

ORIG=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler")
restore() { [[ $DRY -eq 1 ]] || echo "$ORIG" > "$Q/scheduler"; echo "scheduler of $DEV back to $ORIG"; }
trap restore EXIT

available() {
    grep -qw -- "$1" "$Q/scheduler" && return 0
    case $1 in bfq) modprobe bfq 2>/dev/null || true ;; kyber) modprobe kyber-iosched 2>/dev/null || true ;; esac
    grep -qw -- "$1" "$Q/scheduler"
}

if "$PY" -c "import hardware.runner" 2>/dev/null; then
    # the hardware package switches the scheduler itself (and restores it) for each point
    LIST=()
    for S in "${SCHEDULERS[@]}"; do available "$S" && LIST+=("$S") || echo "skip $S: not offered for $DEV"; done
    [[ ${#LIST[@]} -gt 0 ]] || die "none of ${SCHEDULERS[*]} is available for $DEV"
    SWEEP=$(IFS=,; echo "${LIST[*]}")
    for JOB in "${JOBS[@]}"; do
        OUTARG=()
        if [[ -n ${OUTDIR:-} ]]; then
            run mkdir -p "$OUTDIR"
            OUTARG=(--out "$OUTDIR/$JOB.sched-sweep.$(date -u +%Y%m%dT%H%M%SZ).json")
        fi
        run "$PY" -m hardware run "$JOB" --target "$DIR" "${OUTARG[@]}" --param "scheduler=$SWEEP" \
            --param "repeat=$REPEAT" --param "ops=$OPS" --param "ndirs=$NDIRS" \
            --param "nfiles=$NFILES"
    done
    exit 0
fi

# plain fio: random reads of small files (web), 80/20 reads and writes (file server)
OUT=${OUTDIR:-sched_sweep.$DEV.$(date -u +%Y%m%dT%H%M%SZ)}; run mkdir -p "$OUT"
NJ=$((4 * $(nproc)))
WORK=$DIR/sched_sweep.$$
trap 'rm -rf "$WORK"; restore' EXIT
run mkdir -p "$WORK"
FMT='f.$jobnum.$filenum'  # the same files for the layout and for every run
run fio --name=layout --directory="$WORK" --filename_format="$FMT" --nrfiles="$NFILES" \
    --filesize=4k-64k --rw=write --bs=4k --numjobs="$NJ" --create_only=1 --output=/dev/null
for S in "${SCHEDULERS[@]}"; do
    available "$S" || { echo "skip $S: not offered for $DEV"; continue; }
    run sh -c "echo $S > $Q/scheduler"
    for JOB in "${JOBS[@]}"; do
        case $JOB in
            server-web)  MIX=(--rw=randread) ;;
            server-file) MIX=(--rw=randrw --rwmixread=80) ;;
            *) echo "skip $JOB: needs the hardware package"; continue ;;
        esac
        for REP in $(seq "$REPEAT"); do
            run sh -c "sync; echo 3 > /proc/sys/vm/drop_caches"
            T0=$(date +%s.%N)
            run fio --name="$JOB" --directory="$WORK" --filename_format="$FMT" \
                --nrfiles="$NFILES" --filesize=4k-64k \
                --file_service_type=random --bs=4k --direct=1 --ioengine=psync --thread \
                --numjobs="$NJ" --number_ios="$OPS" --group_reporting "${MIX[@]}" \
                --output-format=json --output="$OUT/$JOB.$S.$REP.json"
            T1=$(date +%s.%N)
            [[ $DRY -eq 1 ]] || echo "$JOB $S $REP $(echo "$T1 - $T0" | bc)" | tee -a "$OUT/times.txt"
        done
    done
done
