"""The red team's attacks on the grader (../shared/reviews/grading.md), one test per class.

Every attack is a Lab 1 submission graded, with the others, in one sandboxed run against the
real key (issue 16, "A red-team test suite"). Each test asserts that the attacked question earns
nothing, that nothing outside the sandbox changed (sentinel files, the package, /tmp), and that
no process of the attack outlived grading. The review's anchors: nbgrader restores checks and
hides tests, otter-grader compares outside the notebook in a fresh resource-limited container,
PrairieLearn runs student code as an unprivileged user behind a JSON boundary.
"""

from __future__ import annotations

import hashlib
import os
import textwrap
from pathlib import Path

import nbformat
import psutil
import pytest
from conftest import require

from simcore.labkit import sandbox
from simcore.labkit.check import variant_seed
from simcore.labkit.grade import Options, grade
from simcore.labkit.report import write_report
from simcore.labkit.student import student_version
from simcore.labkit.variants import answer_sheet, literal_answers

ROOT = Path(__file__).resolve().parent.parent
KEY = ROOT / "instructors" / "labs" / "lab1_time.ipynb"
SECRET = b"red-team-secret-" + b"0" * 32
TOKEN = "disklab-redteam-" + hashlib.sha256(str(os.getpid()).encode()).hexdigest()[:8]
CELL_TIMEOUT = 20.0


def _sub(stu, answers: dict[str, str], *, meta_id: str | None = None,
         declared: str | None = None):
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(stu), as_version=4))
    for cell in nb.cells:
        if cell.get("id") in answers:
            cell.source = answers[cell.id]
        if declared and "parameters" in cell.metadata.get("tags", []):
            cell.source = cell.source.replace('STUDENT_ID = "demo"', f'STUDENT_ID = "{declared}"')
    if meta_id:
        nb.metadata["disklab"]["student_id"] = meta_id
    return nb


def _code(src: str) -> str:
    return textwrap.dedent(src).strip("\n")


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """All attacks graded in one sandboxed run; the world outside checked before and after."""
    layers = sandbox.probe_layers([])
    require(not layers["missing"], f"the sandbox lacks {layers['missing']} on this machine "
            "(needs root or unprivileged user namespaces)")
    key_nb = nbformat.read(str(KEY), as_version=4)
    stu = student_version(key_nb, KEY)
    subs = tmp_path_factory.mktemp("subs")
    outside = tmp_path_factory.mktemp("outside")
    outside.chmod(0o777)  # world-writable on purpose: only the sandbox may keep it safe
    sentinel = outside / "precious.txt"
    sentinel.write_text("do not touch\n")
    sentinel.chmod(0o666)
    pwned = Path("/tmp") / f"{TOKEN}-pwned"
    package = ROOT / "simcore" / "labkit"
    init_before = (package / "__init__.py").read_bytes()
    alice = answer_sheet(key_nb, "alice", KEY, secret=SECRET)

    def save(name, nb):
        nbformat.write(nb, str(subs / f"{name}.ipynb"))

    everywhere = f"{outside}", f"{pwned}", f"{package}"
    # 1. Copy what the visible checks accept: every value passes its self-check, none is right.
    save("copycat", _sub(stu, {"answer-q1": "q1 = 1.0", "answer-q3": "q3 = 0.0",
                               "answer-q6": "q6 = 1.0", "answer-q7": "q7 = 1.0"}))
    # 2. Patch the checkers and print: q1 wrong, every check "passes".
    save("patcher", _sub(stu, {"answer-q1": _code("""
        import builtins, simcore.labkit, simcore.labkit.answers as A
        simcore.labkit.check = simcore.labkit.self_check = lambda *a, **k: print("q1 ✔ correct")
        _print = builtins.print
        builtins.print = lambda *a, **k: _print(*[str(x).replace("✘", "✔") for x in a], **k)
        A.compare = lambda *a, **k: (True, "")
        q1 = 123.0
        """)}))
    # 3. Objects that equal anything, and a float subclass that says yes.
    save("alwayseq", _sub(stu, {"answer-q1": _code("""
        class Yes:
            def __eq__(self, other): return True
            def __float__(self): return 0.0
        q1 = Yes()
        """), "answer-q3": _code("""
        class F(float):
            def __eq__(self, other): return True
            __hash__ = float.__hash__
        q3 = F(0.0)
        """)}))
    # 4. Value spoofing: hunt the stack and the answer module for an expected value, then forge
    #    the JSON line; whatever it finds is wrong, because the expected value is not there.
    save("spoofer", _sub(stu, {"answer-q2": _code("""
        import sys, json, simcore.labkit.answers as A
        def _hunt():
            f = sys._getframe()
            while f:
                for k, v in f.f_locals.items():
                    if k in ("expected", "e", "ref") and isinstance(v, float):
                        return v
                f = f.f_back
            return 0.5
        _orig = A.emit
        A.emit = lambda q, thunk: print(A.MARK + json.dumps({"q": q, "value": _hunt()}))
        q2 = None
        """)}))
    # 5. Read the key (next to the package, or anywhere), the secret, other submissions.
    save("keyreader", _sub(stu, {"answer-q3": _code(f"""
        import json, pathlib, simcore
        q3 = None
        for my_root in (pathlib.Path(simcore.__file__).parents[1], pathlib.Path("/root"),
                        pathlib.Path("/tmp"), pathlib.Path({str(subs)!r})):
            try:
                my_files = list(my_root.rglob("*.ipynb"))
            except OSError:
                my_files = []
            for my_p in my_files:
                try:
                    my_nb = json.loads(my_p.read_text())
                except Exception:
                    continue
                for my_c in my_nb.get("cells", []):
                    my_src = "".join(my_c.get("source", ""))
                    if "BEGIN SOLUTION" in my_src and "q3 =" in my_src:
                        exec(my_src)
        """)}))
    # 6. os.system and file deletion, outside the sandbox.
    save("vandal", _sub(stu, {"answer-q4": _code(f"""
        import os, shutil
        os.system("rm -rf {outside}/* ; touch {pwned} ; touch {package}/pwned.py")
        shutil.rmtree({str(outside)!r}, ignore_errors=True)
        try:
            open({str(package / '__init__.py')!r}, "a").write("# pwned")
        except OSError:
            pass
        q4 = None
        """)}))
    # 7. A detached process that outlives the notebook and rewrites the grader's records.
    save("daemon", _sub(stu, {"answer-q5": _code(f"""
        import os, subprocess, sys
        my_code = '''
import glob, os, time
for _ in range(600):
    for p in glob.glob("/tmp/**/cells.jsonl", recursive=True) + glob.glob("/tmp/*/cells.jsonl"):
        try:
            open(p, "w").write(open(p).read().replace("failed", "passed"))
        except OSError:
            pass
    try:
        open("{pwned}", "w").write("daemon")
    except OSError:
        pass
    time.sleep(0.2)
'''
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", my_code, "{TOKEN}"])
            os._exit(0)
        q5 = "seek"
        """)}))
    # 8. Leak hidden checks through exceptions or files: look for anything grader-side.
    save("leaker", _sub(stu, {"answer-q6": _code("""
        import glob, os
        my_seen = []
        for my_pat in ("*", "../*", "/tmp/*", "/tmp/*/*", os.path.expanduser("~/*")):
            my_seen += glob.glob(my_pat)
        raise RuntimeError("found: " + " | ".join(my_seen)[:3000])
        """)}))
    # 9. A classmate's variant computed the old way (public hash) and typed in.
    save("carol", _sub(stu, {"answer-q3": _code("""
        import simcore
        my_seed = simcore.labkit.variant_seed("carol", "lab1")  # no secret: not carol's variant
        my_v = lab1_variant(my_seed)
        my_cyl = my_v.mech.layout.locate(my_v.q3_lba).cylinder
        q3 = my_v.mech.seek.seek_ms(abs(my_cyl - my_v.q3_from))
        """)}))
    # 10. Self-declared id: mallory hands in alice's numbers, claiming to be alice.
    literal = {"answer-" + q: literal_answers({q: v}) for q, v in alice.items()
               if q[1:].isdigit()}
    save("mallory", _sub(stu, literal, meta_id="alice", declared="alice"))
    # 11. A loop that swallows KeyboardInterrupt (q2), then honest answers.
    solutions = {c.id: c.source for c in key_nb.cells if "answer" in c.metadata.get("tags", [])}
    save("stubborn", _sub(stu, {**solutions, "answer-q2": _code("""
        import time
        while True:
            try:
                time.sleep(0.5)
            except KeyboardInterrupt:
                pass
        """)}))
    # 12. A fork bomb in the last question.
    save("forker", _sub(stu, {"answer-q8": _code(f"""
        import os, time
        my_t = time.time()
        while time.time() - my_t < 60:
            try:
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", "600", "{TOKEN}"])
            except OSError:
                pass
        q8 = 1.0
        """)}))
    # 13. A memory hog.
    save("hog", _sub(stu, {"answer-q7": _code("""
        my_blocks = []
        while True:
            my_blocks.append(bytearray(200_000_000))
        """)}))

    opts = Options(cell_timeout=CELL_TIMEOUT, timeout=240,
                   limits=sandbox.Limits(memory_mb=1536, cpu_s=300, processes=64))
    key, results = grade(KEY, sorted(subs.glob("*.ipynb")), jobs=2, opts=opts, secret=SECRET)
    by_name = {Path(r.path).stem: r for r in results}
    report = tmp_path_factory.mktemp("report")
    write_report(key, results, report / "grades.csv", report / "feedback")
    ours = {r.sandbox_user for r in results} - {""}
    left = [p.info for p in psutil.process_iter(["pid", "username", "cmdline"])
            if p.info["username"] in ours or TOKEN in " ".join(p.info["cmdline"] or [])]
    world = {"sentinel": sentinel.exists() and sentinel.read_text() == "do not touch\n",
             "pwned": pwned.exists(),
             "package": (package / "__init__.py").read_bytes() == init_before
             and not (package / "pwned.py").exists(),
             "left": left}
    return key, by_name, world, report, everywhere


def _unharmed(world):
    assert world["sentinel"], "a file outside the sandbox was changed or deleted"
    assert not world["pwned"], "a file appeared in the real /tmp"
    assert world["package"], "the installed package was modified"
    assert not world["left"], f"processes outlived grading: {world['left']}"


def test_copying_what_the_visible_checks_accept_earns_nothing(attacked):
    r, world = attacked[1]["copycat"], attacked[2]
    for q in ("q1", "q3", "q6", "q7"):
        assert r.scores[q] == 0, (q, r.lines[q])
    stu = nbformat.read(str(ROOT / "labs" / "lab1_time.ipynb"), as_version=4)
    for cell in stu.cells:  # no visible check computes an expected value any more
        if "check" in cell.metadata.get("tags", []):
            assert "self_check(" in cell.source and ".check(" not in cell.source, cell.source
    _unharmed(world)


def test_a_patched_checker_earns_nothing(attacked):
    r = attacked[1]["patcher"]
    assert r.scores["q1"] == 0 and "✘" in r.lines["q1"][0]
    _unharmed(attacked[2])


def test_always_equal_objects_and_subclasses_are_refused(attacked):
    r = attacked[1]["alwayseq"]
    assert r.scores["q1"] == 0 and "refused" in r.lines["q1"][0]
    assert r.scores["q3"] == 0 and "subclass of float" in r.lines["q3"][0]
    _unharmed(attacked[2])


def test_value_spoofing_finds_no_expected_value_to_copy(attacked):
    r = attacked[1]["spoofer"]
    assert r.scores["q2"] == 0, r.lines["q2"]
    _unharmed(attacked[2])


def test_the_key_and_other_submissions_cannot_be_read(attacked):
    r = attacked[1]["keyreader"]
    assert r.scores["q3"] == 0, r.lines["q3"]
    _unharmed(attacked[2])


def test_os_system_and_file_deletion_stay_inside(attacked):
    r = attacked[1]["vandal"]
    assert r.scores["q4"] == 0
    _unharmed(attacked[2])


def test_a_detached_process_neither_survives_nor_tampers(attacked):
    key, r = attacked[0], attacked[1]["daemon"]
    # Only q5 was answered (and it may be right); every blank question still scores zero.
    assert all(r.scores[q] == 0 for q in key.info.questions if q != "q5"), r.scores
    _unharmed(attacked[2])


def test_exceptions_and_files_leak_no_expected_value(attacked):
    key, r, report = attacked[0], attacked[1]["leaker"], attacked[3]
    assert r.scores["q6"] == 0
    text = (report / "feedback" / "leaker.md").read_text(encoding="utf-8")
    expected = key.expected("leaker")
    for q, v in expected.items():
        values = v.values() if isinstance(v, dict) else [v]
        for x in values:
            if isinstance(x, float) and abs(x) >= 0.01:
                for form in (f"{x:.4f}", repr(x)):
                    assert form not in text, (q, form)
    assert "/tmp/disklab-grade-" not in text and "cells.jsonl" not in text
    _unharmed(attacked[2])


def test_a_classmates_variant_cannot_be_computed_without_the_secret(attacked):
    r = attacked[1]["carol"]
    assert variant_seed("carol", "lab1") != variant_seed("carol", "lab1", SECRET)
    assert r.scores["q3"] == 0, r.lines["q3"]
    _unharmed(attacked[2])


def test_a_self_declared_id_is_flagged_and_graded_as_the_file_says(attacked):
    r = attacked[1]["mallory"]
    assert r.student_id == "mallory" and r.id_source == "file name"
    assert any("alice" in f for f in r.flagged), r.flagged
    # alice's numbers do not fit mallory's variant: every answer that differs between the two
    # variants scores nothing (one that coincides, e.g. q1 when both drew the same disk, may)
    key_nb = nbformat.read(str(KEY), as_version=4)
    a = answer_sheet(key_nb, "alice", KEY, secret=SECRET)
    m = answer_sheet(key_nb, "mallory", KEY, secret=SECRET)
    differ = [q for q in ("q1", "q2", "q3", "q4", "q7") if a[q] != m[q]]
    assert len(differ) >= 3, (a, m)
    assert sum(r.scores[q] for q in differ) == 0, r.lines
    _unharmed(attacked[2])


def test_a_loop_swallowing_keyboard_interrupt_costs_its_question(attacked):
    key, r = attacked[0], attacked[1]["stubborn"]
    assert r.scores["q2"] == 0
    assert r.status in ("kernel-died", "graded")
    assert "q2" in " ".join(r.notes)
    # the rest of the notebook is run again without the loop: the other answers still count
    # (q9 needs a measurement of the student's own mystery disk, which this one never made)
    assert all(r.scores[q] == key.max[q] for q in key.info.questions
               if q not in ("q2", "q9")), r.lines
    _unharmed(attacked[2])


def test_a_fork_bomb_is_contained(attacked):
    r = attacked[1]["forker"]
    assert r.scores["q8"] == 0, r.lines["q8"]
    _unharmed(attacked[2])


def test_a_memory_hog_is_contained(attacked):
    r = attacked[1]["hog"]
    assert r.scores["q7"] == 0
    assert "q7" in " ".join(r.notes)
    _unharmed(attacked[2])



def test_a_folder_under_tmp_that_the_kernel_needs_stays_reachable(tmp_path):
    """The sandbox gives the kernel a fresh /tmp; a clone and its venv under /tmp (where CI may
    clone) must be bound back, read-only, or the kernel cannot even start."""
    import dataclasses
    import subprocess
    import sys

    from simcore.labkit import sandbox as sb

    layers = sb.probe_layers([])
    require("mount-namespace" in layers["layers"], f"no mount namespace here: {layers['missing']}")
    needed = tmp_path / "clone"
    needed.mkdir()
    (needed / "marker.txt").write_text("reachable")
    work = sb.make_workdir(None, None)
    try:
        cfg = sb.make_config(work, None, None, [], namespaces=True)
        cfg = dataclasses.replace(cfg, expose=[*cfg.expose, str(needed)])
        code = (f"import pathlib; p = pathlib.Path({str(needed / 'marker.txt')!r}); "
                "print(p.read_text());\ntry:\n    p.write_text('x')\nexcept OSError:\n"
                "    print('read-only')")
        run = subprocess.run([*sb.launcher_argv(cfg), sys.executable, "-c", code],
                             capture_output=True, text=True, timeout=120)
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-500:]
    assert run.stdout.split() == ["reachable", "read-only"]
    assert (needed / "marker.txt").read_text() == "reachable"
