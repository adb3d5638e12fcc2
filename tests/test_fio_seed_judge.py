"""A served lab's random fio job counts only when it read the student's own offsets.

The key's prediction for labs 2, 3 and 5 replays the offsets fio reads for the variant's own
seed (``--randrepeat=0 --randseed``, :func:`simcore.serve.fio.random_offsets`). A report of
another seed, or of fio's default ``randrepeat=1`` (which ignores the seed), read other offsets
than the prediction did, so the judge refuses it, with a reason that names no seed.

The reports are the demo variant's recordings (fio 3.33's JSON, real runs on the served drive),
judged with the key's own judge and the key's own reference expression, evaluated for the demo
variant as the grader evaluates it; only the simulator's prediction is stubbed (the test is about
the job's options, not the model), and the reference's value is set to the measured one.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from simcore.labkit import judges
from simcore.labkit.emulated import recording_path
from simcore.labkit.labformat import inspect_lab
from simcore.serve.fio import seed_options

KEYS = Path(__file__).resolve().parent.parent / "instructors" / "labs"
#: lab -> key, its set-up cells (run for the demo variant), the variant's drive token and fio
#: seed, the judged questions, the random kinds whose seed is edited
CASES = {
    "lab2": ("lab2_interface_cache.ipynb", ["parameters", "setup"],
             lambda ns: (ns["V"].mystery, ns["V"].fio_seed), ["q9"], ["lab2-rand"]),
    "lab3": ("lab3_scheduling.ipynb", ["9b943649", "90744267"],
             lambda ns: (ns["V"].mystery, ns["V"].fio_seed), ["q9"], ["lab3-fcfs", "lab3-pos"]),
    "lab5": ("lab5_traxtents.ipynb", ["44d1eb42", "9d639aae", "served-setup"],
             lambda ns: (ns["V"].token, ns["V"].hw_seed), ["q9", "q10"],
             ["lab5-aligned", "lab5-shifted"]),
}
SEED_REASON = "did not use your own fio seed"


def _stubbed(ns: dict) -> dict:
    """The key's namespace with the simulator's predictions replaced by a constant."""
    out = dict(ns)
    out["served_predict"] = SimpleNamespace(ratio=lambda *a, **k: 1.0)
    out["served_mystery"] = SimpleNamespace(mystery_profile_for_token=lambda tok: None)
    out["predicted"] = lambda shift: SimpleNamespace(read_mb_s=1.0, read_mean_ms=1.0)
    return out


@pytest.fixture(scope="module", params=sorted(CASES))
def lab(request):
    """The key's judged questions (judge, reference for the demo variant) and the recordings."""
    name, cells, ident, questions, random_kinds = CASES[request.param]
    path = KEYS / name
    nb = nbformat.read(str(path), as_version=4)
    src = {c.get("id"): c.source for c in nb.cells}
    ns: dict = {"__name__": "__lab__"}
    for cid in cells:  # the key's own set-up, as the key stands (STUDENT_ID "demo")
        exec(compile(src[cid], f"<{path.stem}:{cid}>", "exec"), ns)
    token, seed = ident(ns)
    checks = {q.question: q for q in inspect_lab(nb, path, require_outputs=False).checks}
    judged = {}
    for q in questions:
        spec = checks[q]
        ref = eval(spec.reference, _stubbed(ns))  # the key's expression (prediction stubbed)
        judged[q] = (spec.judge, ref)
    kinds = {k for spec, _ in judged.values() for k in spec["kinds"]}
    atts = {k: json.loads(recording_path(k, token).read_text())["attachment"] for k in kinds}
    return SimpleNamespace(judged=judged, atts=atts, seed=seed, random_kinds=random_kinds)


def _measured(spec: dict, atts: dict) -> float:
    vals = [judges.read_fio(atts[k]["raw"]).metric(spec.get("metric", "read_mb_s"))
            for k in spec["kinds"]]
    return vals[0] if len(vals) == 1 else vals[0] / vals[1]


def _judge(lab, atts: dict) -> dict[str, tuple[bool, str]]:
    out = {}
    for q, (spec, ref) in lab.judged.items():
        got = _measured(spec, atts)
        out[q] = judges.run(spec, got, {**ref, "value": got}, list(atts.values()))
    return out


def _with_options(att: dict, change) -> dict:
    raw = att["raw"]
    rep = json.loads(raw[raw.index("{"):])
    change(rep["jobs"][0]["job options"])
    return {**att, "raw": json.dumps(rep)}


def test_the_recordings_read_the_demo_variants_own_seed_and_pass(lab):
    for kind in lab.random_kinds:
        opts = judges.read_fio(lab.atts[kind]["raw"]).options
        assert {k: opts.get(k) for k in seed_options(lab.seed)} == seed_options(lab.seed)
    for q, (ok, why) in _judge(lab, lab.atts).items():
        assert ok, (q, why)


@pytest.mark.parametrize("edit", ["another seed", "randrepeat left at fio's default",
                                  "no seed at all", "randrepeat=1"])
def test_a_random_job_of_another_seed_loses_the_point_saying_why(lab, edit):
    change = {
        "another seed": lambda o: o.__setitem__("randseed", str(int(o["randseed"]) + 1)),
        "randrepeat left at fio's default": lambda o: o.pop("randrepeat"),
        "no seed at all": lambda o: [o.pop(k) for k in ("randrepeat", "randseed")],
        "randrepeat=1": lambda o: o.__setitem__("randrepeat", "1"),
    }[edit]
    for kind in lab.random_kinds:
        atts = {**lab.atts, kind: _with_options(lab.atts[kind], change)}
        for q, (ok, why) in _judge(lab, atts).items():
            if kind not in lab.judged[q][0]["kinds"]:
                assert ok, (q, why)
                continue
            assert not ok and SEED_REASON in why, (q, kind, why)
            assert str(lab.seed) not in why and str(lab.seed + 1) not in why


def test_the_seed_may_be_spelt_as_fio_reads_it(lab):
    """fio reads ``0x...`` as hex and ignores leading zeros (the same offsets, checked on fio
    3.33's I/O log): such a report is the student's own seed."""
    kind = lab.random_kinds[0]
    for spelt in (hex(lab.seed), f"00{lab.seed}"):
        atts = {**lab.atts, kind: _with_options(
            lab.atts[kind], lambda o, s=spelt: o.__setitem__("randseed", s))}
        for q, (ok, why) in _judge(lab, atts).items():
            assert ok, (q, spelt, why)


def test_the_seed_options_are_the_ones_random_offsets_gives():
    from simcore.serve.fio import random_offsets

    assert seed_options(12345) == {"randrepeat": "0", "randseed": "12345"}
    assert [f"--{k}={v}" for k, v in seed_options(7).items()] == random_offsets(7)


def test_a_static_requirement_refuses_a_missing_seed_without_naming_one():
    att = json.loads(next(recording_path("lab2-rand", "x").parent.glob("lab2-rand.*.json"))
                     .read_text())["attachment"]
    run = judges.read_fio(att["raw"])
    spec = {"name": "fio", "kinds": ["lab2-rand"], "metric": "read_iops",
            "require": {"randrepeat": 0, "randseed": 4242}}
    ok, why = judges.run(spec, run.read_iops, None, [att])
    assert not ok and SEED_REASON in why and "4242" not in why
    bare = _with_options(att, lambda o: o.pop("randrepeat"))
    spec["require"]["randseed"] = run.options["randseed"]
    assert judges.run(spec, run.read_iops, None, [att]) == (True, "")
    ok, why = judges.run(spec, run.read_iops, None, [bare])
    assert not ok and SEED_REASON in why
