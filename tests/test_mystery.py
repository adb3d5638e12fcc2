"""Per-student mystery disks: derivation from the secret, the family's bounds, and grading.

The last test serves the demo mystery disk and measures it with Debian's fio, as
a student would: the measured outer-zone rate must pass the grader.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import require_tool
from helpers_serve import Served, fio

import simcore
from simcore.labkit import mystery_check
from simcore.serve import mystery

SECRET = b"a course secret for tests"


def test_tokens_are_per_student_and_need_the_secret():
    a, b = mystery.token(SECRET, "alice"), mystery.token(SECRET, "bob")
    assert a != b and len(a) == 16 and int(a, 16) >= 0
    assert mystery.token(SECRET, "alice") == a
    assert mystery.token(b"another secret!", "alice") != a
    with pytest.raises(mystery.MysteryError):
        mystery.token(SECRET, "  ")


def test_same_token_same_drive_and_drives_differ():
    p1 = mystery.mystery_profile(SECRET, "alice")
    assert p1 == mystery.mystery_profile_for_token(mystery.token(SECRET, "alice"))
    drawn = {mystery.mystery_profile_for_token(f"{i:016x}").zones for i in range(8)}
    assert len(drawn) == 8


@pytest.mark.parametrize("i", range(10))
def test_every_drawn_drive_is_in_the_family(i):
    prof = mystery.mystery_profile_for_token(f"{i * 7919:016x}")
    mech = simcore.Mechanism(prof)
    assert prof.rpm in (5400, 7200, 10000)
    assert 8 <= mech.layout.zone_count <= 20 and prof.surfaces in (2, 4, 6, 8)
    outer = mystery.zone_stream_mb_s(prof, 0)
    inner = mystery.zone_stream_mb_s(prof, mech.layout.zone_count - 1)
    assert 8 < inner < outer < 45 < prof.interface_mb_s  # the bus never limits a zone
    assert 4 < mech.seek.average_ms() < 10
    z = prof.zones[0]
    sector_ms = prof.revolution_ms / z.sectors_per_track
    assert z.track_skew * sector_ms > prof.head_switch_ms  # the skew hides the switch
    assert prof.cache.size_kib // prof.cache.segments >= 256


def test_secret_file_errors_name_the_file(tmp_path):
    f = tmp_path / "secret.txt"
    f.write_text("short\n")
    with pytest.raises(mystery.MysteryError, match="secret.txt"):
        mystery.read_secret(f)
    f.write_text("  long enough secret \n")
    assert mystery.read_secret(f) == b"long enough secret"


def test_grading_uses_the_tolerances():
    tok = mystery.token(SECRET, "carol")
    t = mystery.truth(tok)
    near = {k: v * (1 + 0.6 * mystery.TOLERANCES[k][1]) for k, v in t.items()}
    assert all(v["ok"] for v in mystery.grade(near, tok).values())
    far = {k: v * (1 + 1.5 * mystery.TOLERANCES[k][1]) for k, v in t.items()}
    assert not any(v["ok"] for v in mystery.grade(far, tok).values())
    assert not mystery.grade({}, tok)["rpm"]["ok"]
    with pytest.raises(mystery.MysteryError, match="unknown"):
        mystery.grade({"rpmm": 7200}, tok)
    with pytest.raises(mystery.MysteryError, match="not a number"):
        mystery.grade({"rpm": "fast"}, tok)


def test_lab_check_refuses_another_students_token(capsys):
    tok = mystery.token(SECRET, "dave")
    good = {"token": tok, "outer_mb_s": mystery.truth(tok)["outer_mb_s"]}
    assert mystery_check.check_answer("q9", good)
    assert mystery_check.check_answer("q9", good, student_id="dave", secret=SECRET)
    assert not mystery_check.check_answer("q9", good, student_id="erin", secret=SECRET)
    assert not mystery_check.check_answer("q9", 21.0)
    assert "✔" in capsys.readouterr().out


def test_cli_tokens_and_grade(tmp_path, repo_root):
    sec = tmp_path / "secret"
    sec.write_bytes(SECRET)
    env = {"PYTHONPATH": repo_root}
    run = [sys.executable, "-m", "simcore", "mystery"]
    out = subprocess.run([*run, "tokens", "--secret-file", str(sec), "frank"], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["frank", mystery.token(SECRET, "frank")]
    rep = tmp_path / "report.json"
    rep.write_text(json.dumps({"rpm": mystery.truth(out.split()[1])["rpm"]}))
    res = subprocess.run([*run, "grade", "--student", "frank", "--secret-file", str(sec),
                                "--report", str(rep)], env=env, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("ok  rpm")
    assert "1/5 parameters" in res.stderr


def test_fio_measures_the_demo_mystery_disk(tmp_path):
    require_tool("fio")
    srv = Served(tmp_path, "--mystery", mystery.DEMO)
    try:
        rep = fio(srv.uri, "--name=seq", "--rw=read", "--bs=128k", "--iodepth=4", "--offset=0",
                  "--size=200m", "--runtime=3", "--time_based")
    finally:
        srv.stop()
    mb_s = rep["jobs"][0]["read"]["bw_bytes"] / 1e6
    verdict = mystery.grade({"outer_mb_s": mb_s}, mystery.DEMO)["outer_mb_s"]
    assert verdict["ok"], verdict
