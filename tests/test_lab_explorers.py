"""Issue 17, item 2: each lab's explorer question can be answered with the explorer.

For the demo variant, the explorer is set as the lab tells the student to set it, the number is
read off what it shows (the text a student reads, rounded as shown), and it must pass the
grader's rule against the key's value, which the key computes without the widget.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("ipywidgets")

from simcore.labkit.answers import Rule, compare
from simcore.labkit.check import variant_seed
from simcore.labkit.labformat import disklab_meta, tags
from simcore.labkit.variants import run_key

KEYS = Path(__file__).resolve().parent.parent / "instructors" / "labs"


def key_run(lab: str, names: list[str], question: str = "q10"):
    """The key's value of ``question`` and the named objects, for the demo variant."""
    path = KEYS / f"{lab}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    check = next(c for c in code if disklab_meta(c).get("question") == question)
    at = code.index(check)  # evaluated when the run reaches the check cell
    got = run_key(nb, "demo", variant_seed("demo", lab), path,
                  {at: [(n, n) for n in [question, *names]]})
    rule = Rule.from_meta({k: v for k, v in disklab_meta(check).items()
                           if k in ("rel", "abs", "one_of")}, lab)
    return got, rule


def key_explorer(lab: str, names: dict):
    """The widget the key's cell tagged ``explorer`` builds (its last expression), given ``names``."""
    nb = nbformat.read(str(KEYS / f"{lab}.ipynb"), as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "explorer" in tags(c)]
    body = ast.parse(cell.source).body
    assert isinstance(body[-1], ast.Expr), "the explorer cell ends with the widget"
    ns = dict(names)
    exec(compile(ast.Module(body[:-1], []), "<explorer cell>", "exec"), ns)
    return eval(compile(ast.Expression(body[-1].value), "<explorer cell>", "eval"), ns)


def number(text: str, pattern: str) -> float:
    m = re.search(pattern, text)
    assert m, (pattern, text)
    return float(m.group(1).replace(",", ""))


def assert_graded_right(read: float, expected: float, rule: Rule):
    ok, why = compare(expected, read, rule)
    assert ok, (read, expected, why)


def test_lab1_accelerate_phase_read_off_the_positioning_explorer():
    from simcore.widgets.disk import positioning_explorer

    got, rule = key_run("lab1_time", ["V", "prof"])
    ex = positioning_explorer(got["prof"].id)
    ex.distance.value = got["V"].q10_distance
    read = number(ex.curve.layout.title.text, r"accelerate ([0-9.]+)")
    assert_graded_right(read, got["q10"], rule)


def test_lab2_cpu_time_read_off_the_interface_explorer():
    from simcore.drive.interface import Port

    got, rule = key_run("lab2_interface_cache", ["V"])
    v = got["V"]
    ex = key_explorer("lab2_interface_cache", {"V": v})  # the lab opens it on the variant's port
    assert (ex.mode.value, ex.kib.value, ex.multcount.value, ex.io32.value, ex.op.value) == (
        v.pio, v.kib, v.multcount, v.io32, "R")
    assert ex.port == Port.of(v.pio, multcount=v.multcount, io32=v.io32)
    read = number(ex.info.value, r"and ([0-9.]+) ms of CPU")
    assert_graded_right(read, got["q10"], rule)


def test_lab3_worst_sstf_response_read_off_the_scheduler_race():
    from simcore.widgets.scheduling import scheduler_race

    got, rule = key_run("lab3_scheduling", ["V"])
    ex = scheduler_race()
    ex.rate.value = got["V"].race_rate
    row = re.search(r"<tr><td>sstf</td>(.*?)</tr>", ex.table.value).group(1)
    read = float(re.findall(r"<td>([0-9.]+)</td>", row)[-1])  # the last column: max response
    assert_graded_right(read, got["q10"], rule)


def test_lab4_mean_response_read_off_the_zone_explorer():
    from simcore.widgets.placement import zone_explorer

    got, rule = key_run("lab4_placement", ["V"])
    v = got["V"]
    ex = zone_explorer()
    ex.technique.value = v.ex_layout
    ex.spacing.value = v.ex_spacing
    ex.fraction.value = v.ex_room
    read = number(ex.table.value, r"mean response <b>([0-9.]+) ms")
    assert_graded_right(read, got["q10"], rule)


def test_lab5_aligned_head_time_read_off_the_efficiency_explorer():
    from simcore.widgets.traxtents import efficiency_explorer

    got, rule = key_run("lab5_traxtents", ["V"], "q11")
    v = got["V"]
    ex = efficiency_explorer(v.disk)
    ex.mode.value = v.q11_mode
    ex.size.value = v.q11_sectors  # the slider's option labelled with the size in KB
    read = number(ex.info.value, r"head time <b>([0-9.]+) ms</b> aligned")
    assert_graded_right(read, got["q11"], rule)


def test_lab6_throughput_read_off_the_dispatch_explorer():
    from simcore.widgets.multistream import dispatch_explorer

    got, rule = key_run("lab6_multistream", ["V"], "q9")
    v = got["V"]
    ex = dispatch_explorer()
    ex.scheme.value = "dispatch set"
    ex.streams.value = v.ex_streams
    ex.r.value = v.ex_r_kib
    ex.m.value = v.ex_m_mib
    ex.n.value = 1
    read = number(ex.info.value, r"<b>([0-9.]+) MB/s</b> for all")
    assert_graded_right(read, got["q9"], rule)
