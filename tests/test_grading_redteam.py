"""The red team's attacks on the grader (../shared/reviews/grading.md), one test per class.

Every attack is a Lab 1 submission graded, with the others, in one sandboxed run against the
real key (issue 16, "A red-team test suite"). Each test asserts that the attacked question earns
nothing, that nothing outside the sandbox changed (sentinel files, the package, /tmp), and that
no process of the attack outlived grading. The review's anchors: nbgrader restores checks and
hides tests, otter-grader compares outside the notebook in a fresh resource-limited container,
PrairieLearn runs student code as an unprivileged user behind a JSON boundary.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import nbformat
import psutil
import pytest
from conftest import require

import simcore.labkit.grade as grade_module
from simcore.labkit import sandbox
from simcore.labkit.check import variant_seed
from simcore.labkit.grade import Options, Result, SandboxError, grade
from simcore.labkit.report import feedback_text, write_report
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


PROCESSES = 64  # the process budget the red team's submissions are graded with


def fork_bomb(name: str, tries: int = 4 * PROCESSES) -> str:
    """An answer cell that forks until the process limit refuses (children that wait on a pipe,
    then a detached ``sleep`` each), then answers with how many it started: the number shows
    whether the limit stopped it, and at what count, so the test cannot pass by a timeout."""
    return _code(f"""
        import os
        my_r, my_w = os.pipe()
        my_kids = []
        for my_i in range({tries}):
            try:
                my_pid = os.fork()
            except OSError:
                break
            if my_pid == 0:
                os.close(my_w)
                os.read(my_r, 1)
                os._exit(0)
            my_kids.append(my_pid)
        os.close(my_w)
        for my_pid in my_kids:
            os.waitpid(my_pid, 0)
        {name} = float(len(my_kids))
        if os.fork() == 0:  # and one that outlives the cell, to be killed with the sandbox
            os.setsid()
            os.execvp("sleep", ["sleep", "600", "{TOKEN}"])
        """)


def _stopped_within_budget(started: float, budget: int = PROCESSES) -> bool:
    """The limit stopped the bomb: it started at most the budget less the kernel itself, and
    at least half of it (other processes, the grader's, did not use the budget up; a kernel
    has about a dozen threads)."""
    return budget // 2 <= started <= budget - 1


@pytest.fixture(scope="module")
def visible():
    """A new folder the sandbox does not replace (not under /tmp or another scratch folder), so
    the kernel sees it; removed afterwards."""
    base = next((b for b in ("/opt", "/srv", "/var/lib") if os.access(b, os.W_OK)), None)
    require(base is not None, "no folder outside /tmp to write the red team's files in")
    d = Path(tempfile.mkdtemp(prefix="disklab-redteam-", dir=base))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory, visible):
    """All attacks graded in one sandboxed run; the world outside checked before and after."""
    layers = sandbox.probe_layers([])
    require(not layers["missing"], f"the sandbox lacks {layers['missing']} on this machine "
            "(needs root or unprivileged user namespaces)")
    key_nb = nbformat.read(str(KEY), as_version=4)
    stu = student_version(key_nb, KEY)
    subs = tmp_path_factory.mktemp("subs")
    outside = visible / "outside"  # where the kernel can see it (a fresh /tmp hides the rest)
    outside.mkdir()
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
    # 5b. Read the key from the repository's git objects (`git show`, through the `.git` file of
    #     a linked work tree and the main repository it names) or from a sibling work tree.
    rel = KEY.relative_to(ROOT).as_posix()
    save("gitreader", _sub(stu, {"answer-q3": _code(f"""
        import glob, json, pathlib, subprocess
        my_root = pathlib.Path({str(ROOT)!r})
        my_dirs = [my_root / ".git"]
        try:
            my_gitdir = pathlib.Path((my_root / ".git").read_text().split(":", 1)[1].strip())
            my_dirs += [my_gitdir, my_gitdir / (my_gitdir / "commondir").read_text().strip()]
        except (OSError, IndexError):
            pass
        my_texts = []
        for my_args in [["-C", str(my_root)]] + [["--git-dir", str(d)] for d in my_dirs]:
            my_run = subprocess.run(["git", "-c", "safe.directory=*", *my_args, "show",
                                     "HEAD:{rel}"], capture_output=True, text=True)
            my_texts.append(my_run.stdout)
        for my_p in sorted(glob.glob(str(my_root.parent / "*" / "instructors" / "labs" /
                                          {KEY.name!r}))):
            try:
                my_texts.append(open(my_p).read())
            except OSError:
                pass
        q3 = None
        for my_text in my_texts:
            try:
                my_nb = json.loads(my_text)
            except ValueError:
                continue
            for my_c in my_nb.get("cells", []):
                my_src = "".join(my_c.get("source", ""))
                if q3 is None and "BEGIN SOLUTION" in my_src and "q3 =" in my_src:
                    try:
                        exec(my_src)
                    except Exception:
                        pass
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
    save("forker", _sub(stu, {"answer-q8": fork_bomb("q8"), "answer-q9": "q9 = 12.5"}))
    # 13. A memory hog.
    save("hog", _sub(stu, {"answer-q7": _code("""
        my_blocks = []
        while True:
            my_blocks.append(bytearray(200_000_000))
        """)}))

    opts = Options(cell_timeout=CELL_TIMEOUT, timeout=240,
                   limits=sandbox.Limits(memory_mb=1536, cpu_s=300, processes=PROCESSES))
    # When grade() starts closing, every kernel of this run has been started, and none of
    # another run yet: the slots (each a sandbox user) are released only after the closing
    # waits. From then on a grader in another test worker may take the same user, so a process
    # of these users is this run's only if it started before that moment.
    closing: list[float] = []
    close = grade_module.Slots.close

    def timed_close(self):
        closing.append(time.time())
        close(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(grade_module.Slots, "close", timed_close)
        key, results = grade(KEY, sorted(subs.glob("*.ipynb")), jobs=2, opts=opts,
                             secret=SECRET)
    assert len(closing) == 1
    graded_at = closing[0]
    by_name = {Path(r.path).stem: r for r in results}
    report = tmp_path_factory.mktemp("report")
    write_report(key, results, report / "grades.csv", report / "feedback")
    ours = {r.sandbox_user for r in results} - {""}
    left = [p.info for p in psutil.process_iter(["pid", "username", "cmdline", "create_time"])
            if TOKEN in " ".join(p.info["cmdline"] or [])
            or (p.info["username"] in ours and p.info["create_time"] < graded_at)]
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


def test_the_key_cannot_be_read_from_git_or_another_work_tree(attacked):
    r = attacked[1]["gitreader"]
    assert r.scores["q3"] == 0, r.lines["q3"]
    assert any("q3 tried to run a program (subprocess)" in f for f in r.flagged), r.flagged
    _unharmed(attacked[2])


def test_os_system_and_file_deletion_stay_inside(attacked):
    r = attacked[1]["vandal"]
    assert r.scores["q4"] == 0
    # and the attempt is named in the feedback and the flags (simcore.labkit.spawns)
    assert any("q4 tried to run a program (os.system)" in n for n in r.notes), r.notes
    assert any("q4 tried to run a program (os.system)" in f for f in r.flagged), r.flagged
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
    """Stopped by the process limit (not by a timeout: it says how many it started), and the
    kernel went on: the answers after it were still read out."""
    r = attacked[1]["forker"]
    assert r.scores["q8"] == 0, r.lines["q8"]
    started = r.received["q8"]["value"]
    assert isinstance(started, float) and _stopped_within_budget(started), r.received["q8"]
    assert r.status == "graded" and r.received["q9"]["present"], (r.status, r.received["q9"])
    assert "process-limit" in attacked[0].layers["layers"], attacked[0].layers
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


# ---- a grader without root: the kernel runs as the grader's own user ------------------------

NOBODY = 65534


def _unused_uid() -> int:
    """A user id no process runs as and no account names: a grader's user whose process
    count no other run on this machine (another test suite's nobody, say) can move."""
    taken = set()
    for p in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            taken.update(int(line.split()[1]) for line in p.read_text().splitlines()
                         if line.startswith("Uid:"))
    for uid in range(64000, 65000):
        if uid in taken:
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    raise RuntimeError("no unused uid in 64000..64999")


def _as_nobody(argv: list[str], env: dict[str, str], timeout: float, uid: int = NOBODY
               ) -> subprocess.CompletedProcess:
    """Run ``argv`` as nobody (no root, no groups): a grader without root, whose sandbox is an
    unprivileged user namespace. Where nobody cannot enter the Python install (pyenv under
    /root), a private mount namespace covers the closed folder with an open tmpfs and binds the
    install back; nothing else changes."""
    setpriv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    top = sandbox.blocked_ancestor(sys.base_prefix)
    require(sandbox.blocked_ancestor(sys.prefix) in (None, top) and (
        top is None or not Path(sys.prefix).resolve().is_relative_to(top)
        or Path(sys.prefix).resolve().is_relative_to(Path(sys.base_prefix).resolve())),
        "the venv sits where nobody cannot enter it")
    if top is None:
        cmd = [*setpriv, *argv]
    else:
        script = ('d=$(mktemp -d) && mount --bind "$1" "$d" && mount -t tmpfs -o mode=755 '
                  'tmpfs "$2" && mkdir -p "$1" && mount --move "$d" "$1" && rmdir "$d" && '
                  'shift 2 && exec "$@"')
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
               str(Path(sys.base_prefix).resolve()), top, *setpriv, *argv]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def own_user(visible):
    """``python -m simcore grade`` run as nobody, with a key, a secret, a roster, a home and a
    copy of simcore's source that nobody owns (as a grader owns its own), outside /tmp where
    the kernel sees them; two hostile submissions try to change them and to read the secret
    and the roster."""
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None
            and shutil.which("unshare") is not None,
            "needs root, setpriv and unshare to run the grader as another, unprivileged user")
    o = visible / "own"
    repo, home, private, admin = o / "repo", o / "home", o / "private", o / "admin"
    for part in ("simcore", "data"):
        shutil.copytree(ROOT / part, repo / part, ignore=shutil.ignore_patterns("__pycache__"))
    key = repo / "instructors" / "labs" / KEY.name
    key.parent.mkdir(parents=True)
    shutil.copy(KEY, key)
    for d in (home, private, admin, o / "subs", o / "out"):
        d.mkdir(parents=True)
    targets = {"home": home / ".profile", "source": repo / "simcore" / "labkit" / "__init__.py",
               "opt": o / "data.txt"}
    targets["home"].write_text("# the grader's\n")
    targets["opt"].write_text("the grader's data\n")
    secret = private / "secret"
    secret.write_text(hashlib.sha256(TOKEN.encode()).hexdigest() + "\n")
    secret.chmod(0o600)
    roster_id = f"roster-{TOKEN[-8:]}"
    roster = admin / "roster.csv"
    roster.write_text(f"vandal.ipynb,vandal\nsnoop.ipynb,snoop\nghost.ipynb,{roster_id}\n")
    stu = student_version(nbformat.read(str(KEY), as_version=4), KEY)
    paths = [str(p) for p in targets.values()]
    nbformat.write(_sub(stu, {"answer-q4": _code(f"""
        import ctypes, os
        my_libc = ctypes.CDLL(None, use_errno=True)
        for my_line in open("/proc/self/mountinfo"):  # remount every mount read-write
            my_libc.mount(None, my_line.split()[4].encode(), None, 32 | 4096, None)
        my_libc.syscall(ctypes.c_long(442), ctypes.c_long(-100), b"/", ctypes.c_long(0x8000),
                        (ctypes.c_uint64 * 4)(0, 1, 0, 0), ctypes.c_long(32))  # clear RDONLY
        for my_p in {paths!r}:
            os.system(f"echo pwned >> {{my_p}} 2>/dev/null")
            os.system(f"unshare -rm sh -c 'mount -o remount,rw,bind / ; echo pwned >> {{my_p}}'"
                      " 2>/dev/null")
            try:
                open(my_p, "a").write("pwned\\n")
            except OSError:
                pass
        try:
            open({str(repo / "simcore" / "labkit" / "pwned.py")!r}, "w").write("x = 1\\n")
        except OSError:
            pass
        q4 = None
        """)}), str(o / "subs" / "vandal.ipynb"))
    nbformat.write(_sub(stu, {"answer-q6": _code(f"""
        import ctypes
        my_libc = ctypes.CDLL(None, use_errno=True)
        my_found = []
        for my_p in ({str(secret)!r}, {str(roster)!r}):
            my_libc.umount2(my_p.rsplit("/", 1)[0].encode(), 2)  # uncover the folder
            try:
                my_found.append(open(my_p).read()[::-1])  # reversed: past a plain scrub
            except OSError as my_e:
                my_found.append(type(my_e).__name__)
        raise RuntimeError(" | ".join(my_found))
        """)}), str(o / "subs" / "snoop.ipynb"))
    nbformat.write(_sub(stu, {"answer-q8": fork_bomb("q8")}), str(o / "subs" / "bomber.ipynb"))
    before = {k: p.read_bytes() for k, p in targets.items()}
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(o)], check=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "PYTHONPATH": str(repo), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    run = _as_nobody([sys.executable, "-m", "simcore", "grade", "--key", str(key),
                      str(o / "subs"), "--out", str(o / "out" / "grades.csv"), "--secret",
                      str(secret), "--roster", str(roster), "--jobs", "2",
                      "--cell-timeout", str(CELL_TIMEOUT), "--cpu-seconds", "300",
                      "--processes", str(PROCESSES)], env, 900)
    feedback = {p.stem: p.read_text(encoding="utf-8")
                for p in (o / "out" / "grades_feedback").glob("*.md")}
    changed = [k for k, p in targets.items() if p.read_bytes() != before[k]]
    if (repo / "simcore" / "labkit" / "pwned.py").exists():
        changed.append("new file in the source")
    answers_file = o / "out" / "grades_answers.json"
    received = ({Path(r["path"]).stem: r["received"] for r in
                 json.loads(answers_file.read_text())["results"]}
                if answers_file.exists() else {})
    return run, feedback, changed, secret.read_text().strip(), roster_id, received


def test_without_root_the_kernel_writes_nothing_outside_its_folder(own_user):
    run, feedback, changed, _, _, _ = own_user
    assert run.returncode == 0, run.stderr[-2000:]
    assert "vandal" in feedback
    assert changed == [], f"the kernel changed the grader's files: {changed}"
    layers = next(ln for ln in run.stderr.splitlines() if ln.startswith("sandbox layers:"))
    assert "read-only-filesystem" in layers and "MISSING: unprivileged-user" in layers, layers


def test_without_root_a_given_secret_and_roster_stay_hidden(own_user):
    run, feedback, _, secret, roster_id, _ = own_user
    assert run.returncode == 0, run.stderr[-2000:]
    text = feedback["snoop"]
    assert "did not run cleanly" in text, text
    for leaked in (secret, secret[::-1], roster_id, roster_id[::-1]):
        assert leaked[:12] not in text, text


def test_without_root_a_fork_bomb_is_stopped_by_its_own_budget(own_user):
    """Graded as nobody (the kernel runs as the grader's own user, in a user namespace), the
    bomb still gets the budget: the grader's own processes neither use it up nor lift it."""
    run, feedback, _, _, _, received = own_user
    assert run.returncode == 0, run.stderr[-2000:]
    started = received["bomber"]["q8"]["value"]
    assert isinstance(started, float) and _stopped_within_budget(started), received["bomber"]
    layers = next(ln for ln in run.stderr.splitlines() if ln.startswith("sandbox layers:"))
    assert "process-limit" in layers.split(";")[0] and "bomber" in feedback, layers


# A grader without root that starts a fork bomb through the launcher, holds the bomb's
# processes, starts one of its own meanwhile and reports {"bomb": ..., "grader": ...}.
_HOLD_BOMB = r"""
import json, subprocess, sys
bomb = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
started = bomb.stdout.readline().strip()
grader = subprocess.run(["/bin/sh", "-c", "echo ok"], capture_output=True, text=True).stdout
bomb.stdin.close()
bomb.wait()
print(json.dumps({"bomb": started, "grader": grader.strip(), "status": bomb.returncode}))
"""
_BOMB = r"""
import os, sys
kids = []
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        sys.stdin.read()  # until the grader lets go
        os._exit(0)
    kids.append(pid)
print(len(kids), flush=True)
sys.stdin.read()
for k in kids:
    os.waitpid(k, 0)
"""


@pytest.mark.parametrize("namespaces", [True, False], ids=["user-namespace", "no-namespace"])
def test_without_root_the_process_limit_counts_neither_the_grader_nor_others(namespaces):
    """The launcher run by a grader without root, with 24 processes of the grader's own user
    and 24 of another user already running: a fork bomb inside gets its budget (less itself),
    neither more (the machine's other processes do not lift it: the limit used to be the
    budget plus every process on the machine) nor less, and the grader can still start a
    process while the bomb holds all of its own."""
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None
            and shutil.which("unshare") is not None, "needs root, setpriv and unshare")
    budget = 16
    grader = _unused_uid()  # not nobody: other runs' nobody processes would move the count
    work = Path(tempfile.mkdtemp(prefix="disklab-bomb-"))
    others: list[subprocess.Popen] = []
    try:
        work.chmod(0o777)
        own = ["setpriv", f"--reuid={grader}", f"--regid={grader}", "--clear-groups", "--"]
        others = [subprocess.Popen([*pre, "sleep", "120"]) for pre in ([], own)
                  for _ in range(24)]
        cfg = sandbox.make_config(work, None, None, [], sandbox.Limits(processes=budget),
                                  namespaces=namespaces, unsafe=True)
        run = _as_nobody([sys.executable, "-c", _HOLD_BOMB, *sandbox.launcher_argv(cfg),
                          sys.executable, "-c", _BOMB, str(4 * budget)],
                         {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, 120, uid=grader)
    finally:
        for p in others:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-1000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["status"] == 0 and got["grader"] == "ok", got
    assert budget // 2 <= int(got["bomb"]) <= budget - 1, got


def test_the_probe_says_when_the_process_limit_does_not_hold(tmp_path):
    """A kernel run as root is bound by no process limit: the probe's fork bomb goes past its
    budget, and the layer is named missing (the grader says so rather than trust a limit)."""
    require(os.geteuid() == 0, "needs root (a kernel that no process limit binds)")
    for forks, holds in ((None, False), (0, False), (3, False), (7, True), (15, True),
                         (16, False), (sandbox.PROBE_FORK_TRIES, False)):
        assert sandbox.process_limit_holds(forks) is holds, forks
    work = sandbox.make_workdir(None, None)
    try:
        cfg = sandbox.make_config(work, None, None, [],
                                  sandbox.Limits(processes=sandbox.PROBE_PROCESSES),
                                  namespaces=True, unsafe=True)
        run = subprocess.run([*sandbox.launcher_argv(cfg), sys.executable, "-c",
                              sandbox.probe_code()], capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-500:]
    forks = json.loads(run.stdout.strip().splitlines()[-1])["forks"]
    assert forks == sandbox.PROBE_FORK_TRIES and not sandbox.process_limit_holds(forks)
    assert sandbox.process_count(None, True) == "none"


def test_grading_refuses_where_the_kernel_could_write_the_graders_files(monkeypatch, tmp_path):
    """No user of its own and no read-only filesystem: grading stops before it starts, naming
    what is missing, unless the instructor asked for it (and the summary then says so)."""
    bare = {"layers": ["mount-namespace", "rlimits"],
            "missing": ["unprivileged-user", "read-only-filesystem"], "details": {}}
    monkeypatch.setattr(sandbox, "probe_layers", lambda *a, **k: bare)
    with pytest.raises(SandboxError, match="read-only-filesystem.*--unsafe-sandbox"):
        grade(KEY, [tmp_path / "x.ipynb"], opts=Options(cell_timeout=5, timeout=5))
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None, "needs root and setpriv")
    work = Path(tempfile.mkdtemp(prefix="disklab-refuse-"))
    try:  # the launcher itself will not start a kernel as its grader without namespaces
        work.chmod(0o777)
        cfg = sandbox.make_config(work, None, None, [], namespaces=False)
        run = _as_nobody([*sandbox.launcher_argv(cfg), "/bin/true"],
                         {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, 60)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode != 0 and "refusing" in run.stderr, (run.returncode, run.stderr)


def test_feedback_never_shows_the_secret(tmp_path):
    """Should an exception's text carry the secret (the sandbox hides its file), whole or cut
    short, the feedback shows ``<secret>`` instead."""
    from simcore.labkit.grade import Key

    key = Key(KEY, SECRET)
    text = SECRET.decode()
    r = Result(str(tmp_path / "eve.ipynb"), "eve", "file name",
               notes=[f"Your answer cell raised RuntimeError: {text}",
                      f"it raised RuntimeError: {'x' * 150}{text[:40]} ..."])
    out = feedback_text(key, r)
    assert text[:12] not in out and text[-12:] not in out and "<secret>" in out, out
