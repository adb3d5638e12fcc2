"""Measured answers judged by the student's own fio report (issue 16, item 6), without a kernel.

The report is the one stored in Lab 1's key: fio 3.33's JSON of 128 KiB sequential reads at
depth 4 on the demo variant's served mystery disk. Each edit a student might make to it (the
bandwidth alone, the job's options, the answer beside it) must be refused, with a reason that
names no expected value; the untouched report passes. Little's law (bandwidth = depth x block /
mean latency) is the check that needs no knowledge of the drive.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from simcore.labkit import attach, judges
from simcore.labkit.grade import Key
from simcore.labkit.labformat import LabFormatError, inspect_lab

LAB1 = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab1_time.ipynb"
SPEC = {"name": "fio", "kinds": ["lab1-mystery"], "metric": "read_mb_s",
        "require": {"ioengine": "nbd", "rw": "read", "bs": "128k", "iodepth": "4", "offset": "0"},
        "range": [1, 100], "reference_rel": 0.07}


@pytest.fixture(scope="module")
def saved():
    nb = nbformat.read(str(LAB1), as_version=4)
    return {a["kind"]: a for a in attach.from_notebook(nb)}["lab1-mystery"]


def edited(att, change) -> list[dict]:
    raw = att["raw"]
    rep = json.loads(raw[raw.index("{"):])
    change(rep)
    return [{**att, "raw": json.dumps(rep)}]


def test_the_untouched_report_passes_and_follows_littles_law(saved):
    run = judges.read_fio(saved["raw"])
    assert run.iodepth == 4 and run.bs == 128 * 1024
    assert run.read_mb_s == pytest.approx(4 * run.bs / (run.read_mean_ms / 1e3) / 1e6, rel=0.05)
    ok, why = judges.run(SPEC, run.read_mb_s, run.read_mb_s * 1.03, [saved])
    assert ok, why


def test_an_answer_that_does_not_follow_from_the_report_fails(saved):
    run = judges.read_fio(saved["raw"])
    ok, why = judges.run(SPEC, run.read_mb_s * 1.05, run.read_mb_s, [saved])
    assert not ok and "does not follow from your attached measurement" in why
    assert f"{run.read_mb_s:.1f}" not in why


def test_a_measurement_of_another_drive_fails_on_the_reference(saved):
    run = judges.read_fio(saved["raw"])
    ok, why = judges.run(SPEC, run.read_mb_s, run.read_mb_s * 1.10, [saved])
    assert not ok and "not within the tolerance" in why


@pytest.mark.parametrize("change, reason", [
    (lambda r: r["jobs"][0]["read"].__setitem__("bw_bytes", r["jobs"][0]["read"]["bw_bytes"] * 1.2),
     "contradict"),
    (lambda r: r["jobs"][0]["read"].update(
        bw_bytes=r["jobs"][0]["read"]["bw_bytes"] * 1.2, bw=r["jobs"][0]["read"]["bw"] * 1.2,
        io_bytes=r["jobs"][0]["read"]["io_bytes"] * 1.2), "contradict"),
    (lambda r: r["jobs"][0]["job options"].__setitem__("bs", "1m"), "contradict"),
    (lambda r: r["jobs"][0]["job options"].__setitem__("offset", "100g"), "offset"),
    (lambda r: r["global options"].__setitem__("ioengine", "libaio"), "ioengine"),
    (lambda r: r.pop("fio version"), "fio version"),
    (lambda r: r["jobs"].append(copy.deepcopy(r["jobs"][0])), "exactly one job"),
])
def test_an_edited_report_is_refused(saved, change, reason):
    run = judges.read_fio(saved["raw"])
    ok, why = judges.run(SPEC, run.read_mb_s, run.read_mb_s, edited(saved, change))
    assert not ok and reason in why, why


def test_a_report_of_another_drive_fails_even_when_its_rate_fits(saved):
    """The served drive's socket carries the mystery token (fio_served(tag=...)), and fio's
    report keeps the socket in its uri: a classmate's report names the classmate's drive."""
    from simcore.labkit import variant_seed
    from simcore.labkit.variants import mystery_token

    run = judges.read_fio(saved["raw"])
    mine = mystery_token(variant_seed("demo", "lab1"))
    assert mine in run.options["uri"]
    ok, why = judges.run(SPEC, run.read_mb_s, {"value": run.read_mb_s, "uri_has": mine}, [saved])
    assert ok, why
    ok, why = judges.run(SPEC, run.read_mb_s, {"value": run.read_mb_s,
                                                "uri_has": "0123456789abcdef"}, [saved])
    assert not ok and "not of the drive you were given" in why


def test_missing_or_foreign_attachments_are_named(saved):
    ok, why = judges.run(SPEC, 17.0, 17.0, [])
    assert not ok and "no lab1-mystery measurement is attached" in why
    ok, why = judges.run(SPEC, 17.0, 17.0, [{**saved, "tool": "hdparm"}])
    assert not ok and "not fio output" in why
    ok, why = judges.run(SPEC, 17.0, 17.0, [{**saved, "raw": "17 MB/s, trust me"}])
    assert not ok and "not fio's JSON report" in why


def test_implausible_values_are_refused(saved):
    run = judges.read_fio(saved["raw"])
    ok, why = judges.run({**SPEC, "range": [50, 100]}, run.read_mb_s, None, [saved])
    assert not ok and "not physically plausible" in why


def test_sizes_in_fio_notation():
    assert judges.size_bytes("128k") == 131072 and judges.size_bytes("4096") == 4096
    assert judges.size_bytes("1m") == judges.size_bytes("1024k")
    with pytest.raises(judges.MeasurementError):
        judges.size_bytes("lots")


def test_a_bad_judge_in_a_key_names_the_field():
    nb = nbformat.read(str(LAB1), as_version=4)
    cell = next(c for c in nb.cells if c.get("id") == "check-q9")
    cell.metadata["disklab"]["judge"] = {**SPEC, "metric": "speed"}
    with pytest.raises(LabFormatError, match="judge metric"):
        inspect_lab(nb, "lab1_time.ipynb")
    cell.metadata["disklab"]["judge"] = {**SPEC, "kinds": ["a", "b"]}
    with pytest.raises(LabFormatError, match="combine"):
        inspect_lab(nb, "lab1_time.ipynb")


def test_the_grader_restores_a_submissions_measurement_before_the_answers():
    from simcore.labkit.grade import splice

    nb = nbformat.read(str(LAB1), as_version=4)
    key = Key(LAB1, b"judges-test-secret-" + b"3" * 32)
    try:
        merged, _, _ = splice(key, nb, "carol")
    finally:
        key.close()
    ids = [c.get("id") for c in merged.cells]
    restore = ids.index("disklab-restore-measurements")
    assert restore == ids.index("parameters") + 1 < ids.index("answer-q9")
    ns: dict = {}
    exec(merged.cells[restore].source, ns)
    assert attach.latest("lab1-mystery") == {a["kind"]: a for a in
                                              attach.from_notebook(nb)}["lab1-mystery"]


def _fake_runs(monkeypatch, saved, late_ms: list[float]):
    """Make fio_served see one saved fio report per attempt, the server late by ``late_ms``."""
    import shutil

    from simcore.labkit import emulated

    calls = iter(late_ms)
    monkeypatch.setattr(shutil, "which", lambda _: "/usr/bin/fio")
    monkeypatch.setattr(emulated, "_fio_once", lambda *a, **k: (
        saved["raw"], "fio ...", {"requests": 100, "mean_ms": next(calls)}))
    return emulated


def test_a_run_the_busy_server_answered_late_is_taken_again(monkeypatch, saved):
    """On a busy machine the served drive answers late and fio measures a slower drive: the
    measurement is repeated, and the least late run is what the student attaches."""
    mean = judges.read_fio(saved["raw"]).read_mean_ms
    late, fine = 0.2 * mean, 0.001 * mean
    emulated = _fake_runs(monkeypatch, saved, [late, fine, late])
    emulated.fio_served("lab1-mystery", ["--mystery", "x"], [])
    assert attach.latest("lab1-mystery")["raw"] == saved["raw"]
    emulated._fio_once()  # the third run was never taken: the second was on time
    with pytest.raises(StopIteration):
        emulated._fio_once()


def test_a_run_whose_fio_sent_its_requests_late_is_taken_again(monkeypatch, saved):
    """A fio kept waiting for a CPU sends its next request late and measures a slower drive
    while the server's replies are punctual (lab 1's q9 lost 3.5 % so, with the server 0.17 ms
    late on average): the time fio takes beyond the allowance counts as lateness too."""
    import shutil

    from simcore.labkit import emulated

    run = judges.read_fio(saved["raw"])
    slow_fio = {"requests": 100, "mean_ms": 0.0,
                "client_mean_ms": emulated.CLIENT_ALLOWANCE_MS + 0.1 * run.read_mean_ms}
    idle = {"requests": 100, "mean_ms": 0.0, "client_mean_ms": 0.2}
    assert emulated.late_share(slow_fio, run) == pytest.approx(0.1)
    assert emulated.late_share(idle, run) == 0.0  # an idle machine's round trip: not late
    calls = iter([slow_fio, idle, slow_fio])
    monkeypatch.setattr(shutil, "which", lambda _: "/usr/bin/fio")
    monkeypatch.setattr(emulated, "_fio_once", lambda *a, **k: (saved["raw"], "fio ...",
                                                                next(calls)))
    emulated.fio_served("lab1-mystery", ["--mystery", "x"], [])
    assert next(calls) is slow_fio  # taken twice: the second run was on time


def test_a_measurement_late_every_time_is_attached_with_a_warning(monkeypatch, saved, capsys):
    mean = judges.read_fio(saved["raw"]).read_mean_ms
    emulated = _fake_runs(monkeypatch, saved, [0.3 * mean, 0.1 * mean, 0.2 * mean])
    shown = {}
    monkeypatch.setattr(attach, "attach", lambda *a, **k: shown.update(k))
    emulated.fio_served("lab1-mystery", ["--mystery", "x"], [])
    assert "ran late (by 10 %" in shown["summary"]  # the least late of the three
    assert emulated.late_share({"requests": 0}, judges.read_fio(saved["raw"])) == 0.0


def test_a_lost_point_is_explained_with_the_values_judged(saved):
    """For the instructor (and a failing test's message): what was received, what the key
    computed (or the measurement and its reference), and the tolerance; none of it in the
    feedback line."""
    from simcore.labkit import answers
    from simcore.labkit.grade import judge, lost_detail, reference_name

    key = Key(LAB1)
    expected = {"q3": 4.5629044405498735,
                reference_name("q9"): {"value": 30.0, "uri_has": "nothing-of-this"}}
    got = answers.Received(True, 4.7)
    ok, line = judge(key, "q3", got, expected)
    why = lost_detail(key, "q3", got, expected)
    assert not ok and "4.56" not in line
    assert why == "received 4.7; the key's 4.5629044405498735; tolerance rel 0.01, abs 0"
    run = judges.read_fio(saved["raw"])
    got = answers.Received(True, run.read_mb_s)
    ok, line = judge(key, "q9", got, expected, [saved])
    why = lost_detail(key, "q9", got, expected, [saved])
    assert not ok and "30" not in line
    assert f"read_mb_s {run.read_mb_s!r}" in why and "reference 30.0 (reference_rel 0.07" in why
    assert "uri must hold 'nothing-of-this'" in why
    assert lost_detail(key, "q1", answers.Received(False, problem="not answered (still None)"),
                       expected) == "nothing judged: not answered (still None)"
