"""Lab 6's served readers are predicted for the start order the served drive recorded.

With one request outstanding per reader under FCFS, the drive serves the readers in a fixed
cycle, the order their first requests arrived, and that order alone moves the total rate by a
tenth or more (24 readers of 64 KiB measured 4.1 to 5.3 MB/s run to run while the mean over
random orders is 4.3). The server records each connection's first offset in arrival order
(``--stats`` ``first_offsets``), the measuring cell attaches it with fio's report, and the fio
judge predicts for that order. The stored run of Lab 6's key is the evidence here: its
measurement lies within a few per cent of the prediction for its own order, and the judge
passes it against a reference whose mean over orders it would miss. The order is student data:
anything but a permutation of the streams is ignored, and a faked one moves the reference no
further than ``lo`` .. ``hi``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from simcore.disk.profile_loader import load_disk
from simcore.labkit import attach, judges
from simcore.serve import predict

KEY = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab6_multistream.ipynb"
SPEC = {"name": "fio", "kinds": ["lab6-streams"], "metric": "read_mb_s", "reference_rel": 0.35}
CAP = 156_618_000 * 512  # the served WD800JD's bytes


@pytest.fixture(scope="module")
def stored():
    """The key's attached 'lab6-streams' run, its fio figures and the prediction for its order."""
    nb = nbformat.read(str(KEY), as_version=4)
    att = {a["kind"]: a for a in attach.from_notebook(nb)}["lab6-streams"]
    run = judges.read_fio(att["raw"])
    n, bs = run.numjobs, run.bs
    order = predict.stream_order(att.get("served", {}).get("first_offsets"), n, CAP, bs)
    assert order is not None, "the key's stored run carries no valid start order"
    own = predict.streams(load_disk("wd800jd"), n, bs, start_order=order).read_mb_s
    spec = {"kind": "lab6-streams", "disk": "wd800jd", "streams": n, "bs": bs}
    return att, run, order, own, spec


def test_the_capacity_is_the_served_drives():
    from simcore.serve.adapter import RealtimeDrive

    assert RealtimeDrive(load_disk("wd800jd"), "fcfs", True).capacity_sectors * 512 == CAP


def test_stream_order_takes_a_permutation_of_the_streams_and_nothing_else():
    inc = CAP // 4 // 65536 * 65536
    assert predict.stream_order([2 * inc, 0, 3 * inc, inc], 4, CAP, 65536) == [2, 0, 3, 1]
    for bad in ([0, inc, 2 * inc],                  # too short
                [0, inc, 2 * inc, 3 * inc, 0],      # too long
                [0, 0, 2 * inc, 3 * inc],           # a stream twice
                [0, inc + 512, 2 * inc, 3 * inc],   # not a stream's first offset
                [0, inc, 2 * inc, 4 * inc],         # beyond the last stream
                [0, -inc, 2 * inc, 3 * inc],
                [0, float(inc), 2 * inc, 3 * inc],  # not integers
                [False, inc, 2 * inc, 3 * inc],
                "0,1,2,3", None, {"0": 1}):
        assert predict.stream_order(bad, 4, CAP, 65536) is None, bad


def test_the_measurement_lies_within_a_few_per_cent_of_its_own_orders_prediction(stored):
    _, run, _, own, spec = stored
    assert abs(run.read_mb_s / own - 1) < 0.05, (run.read_mb_s, own)
    mean = predict.streams(load_disk("wd800jd"), spec["streams"], spec["bs"]).read_mb_s
    # and the order matters: the mean over random orders is another number
    assert abs(own / mean - 1) > 0.005


def test_the_judge_predicts_for_the_recorded_order(stored):
    att, run, _, own, spec = stored
    # a reference whose mean over orders the run misses by far, but whose range holds its order
    ref = {"value": own / 1.5, "lo": own / 1.5, "hi": own * 1.5, "streams_order": spec}
    assert predict.reference_for_order(ref, att["served"]) == pytest.approx(own)
    ok, why = judges.run(SPEC, run.read_mb_s, ref, [att])
    assert ok, why  # the old judge compared with ref["value"] and refused it
    assert "reference" in judges.explain(SPEC, run.read_mb_s, ref, [att])
    # without the served drive's record, the mean over orders, as before: refused
    bare = {k: v for k, v in att.items() if k != "served"}
    ok, why = judges.run(SPEC, run.read_mb_s, ref, [bare])
    assert not ok and "not within the tolerance" in why


def test_a_faked_order_moves_the_reference_only_within_lo_and_hi(stored):
    _, _, order, own, spec = stored
    n = spec["streams"]
    inc = CAP // n // spec["bs"] * spec["bs"]
    ref = {"value": own / 1.5, "lo": own / 1.6, "hi": own / 1.4, "streams_order": spec}
    for fake in (list(range(n)), list(range(n))[::-1], order):
        served = {"first_offsets": [j * inc for j in fake]}
        assert own / 1.6 <= predict.reference_for_order(ref, served) <= own / 1.4
    for bad in ({"first_offsets": [0] * n}, {"first_offsets": "x"}, {}, None, [1, 2]):
        assert predict.reference_for_order(ref, bad) == own / 1.5


def test_served_stats_travel_with_the_attachment_and_bad_ones_are_dropped(stored):
    att = stored[0]
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("", id="served-measure"))
    broken = copy.deepcopy(att)
    broken["served"] = ["not", "a", "dict"]
    for a, keeps in ((att, True), (broken, False)):
        attach.put(nb, "served-measure", a)
        (got,) = attach.from_notebook(nb)
        assert got["raw"] == att["raw"] and ("served" in got) is keeps
    attach.restore([att])
    assert attach.latest("lab6-streams")["served"] == att["served"]
    with pytest.raises(attach.AttachmentError):
        attach.make("k", "fio", "{}", served={"x": float("nan")})


def test_a_report_with_one_requests_bytes_counted_at_ramp_end_is_fios_own():
    """fio 3.33 counted one more request's bytes than requests (io_bytes = (total_ios + 1) x bs)
    in 1 of 4 one-reader runs of Lab 6 with ramp_time; the report is fio's own, so it must pass.
    More than a queue's worth is still an edit."""
    nb = nbformat.read(str(KEY), as_version=4)
    att = {a["kind"]: a for a in attach.from_notebook(nb)}["lab6-one"]
    rep = json.loads(att["raw"][att["raw"].index("{"):])
    rd = rep["jobs"][0]["read"]
    bs = int(rep["jobs"][0]["job options"]["bs"])
    assert rd["io_bytes"] == rd["total_ios"] * bs
    for extra, ok in ((1, True), (-1, True), (3, False)):
        r = copy.deepcopy(rep)
        r["jobs"][0]["read"]["io_bytes"] += extra * bs
        if ok:
            judges.read_fio(json.dumps(r))
        else:
            with pytest.raises(judges.MeasurementError, match="not I/Os times the block size"):
                judges.read_fio(json.dumps(r))
