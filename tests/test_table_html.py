"""The book's numbered tables tidy pandas' HTML (``book/_ext/frame_html.py``).

pandas puts a named index's name on a header row of its own, numbers a frame without an index
0, 1, 2, ..., prints ``NaN`` for nothing and right-aligns every header over left-aligned text
(the visual audit of the built book). These tests feed the tidier pandas' real output.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "book" / "_ext"))
from frame_html import is_number, tidy


def _head_rows(html: str) -> list[list[str]]:
    head = re.search(r"<thead>(.*?)</thead>", html, re.S)[1]
    return [re.findall(r"<th[^>]*>(.*?)</th>", row, re.S)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", head, re.S)]


def _cells(html: str) -> list[tuple[str, bool]]:
    """(text, right-aligned) of the body's data cells, row by row."""
    body = re.search(r"<tbody>(.*?)</tbody>", html, re.S)[1]
    return [(text, "dl-num" in attrs) for attrs, text in re.findall(r"<td([^>]*)>(.*?)</td>", body)]


def test_the_index_name_moves_into_the_corner():
    frame = pd.DataFrame({"paper": [7.23, 4.99], "source": ["Table 7", "Table 6"]},
                         index=pd.Index(["read", "write"], name="target"))
    out = tidy(frame._repr_html_())
    assert _head_rows(out) == [["target", "paper", "source"]]
    assert _cells(out) == [("7.23", True), ("Table 7", False), ("4.99", True), ("Table 6", False)]
    assert re.search(r'<th class="dl-num">paper</th>', out) and "<th>source</th>" in out
    assert "dl-frame" in out and "text-align: right" not in out.split("</style>")[-1]


def test_row_numbers_go_and_nan_reads_as_a_dash():
    frame = pd.DataFrame({"student": ["ada", "ben"], "q1": [1, 0], "flags": [None, "late"]})
    out = tidy(frame._repr_html_())
    assert _head_rows(out) == [["student", "q1", "flags"]]
    assert "<th>0</th>" not in out and "NaN" not in out
    assert [t for t, _ in _cells(out)] == ["ada", "1", "—", "ben", "0", "late"]


def test_a_named_range_index_stays():
    frame = pd.DataFrame({"first LBN": [0, 200]}, index=pd.RangeIndex(2, name="track"))
    assert _head_rows(tidy(frame._repr_html_())) == [["track", "first LBN"]]


def test_names_of_the_columns_and_of_the_index_keep_both_rows():
    frame = pd.DataFrame([[0.5, 0.4]], columns=pd.Index(["0.50", "0.90"], name="hot share"),
                         index=pd.MultiIndex.from_tuples([("m", "4 KiB")], names=["disk", "req"]))
    rows = _head_rows(tidy(frame._repr_html_()))
    assert rows == [["", "hot share", "0.50", "0.90"], ["disk", "req", "", ""]]


def test_a_record_a_column_aligns_its_numeric_rows():
    frame = pd.DataFrame({"op": ["R", "W"], "lba": [10617384, 3273000]}).T
    out = tidy(frame._repr_html_())
    assert _cells(out) == [("R", False), ("W", False), ("10617384", True), ("3273000", True)]
    frame = pd.DataFrame({"op": ["R", "W"], "lba": [1, 2], "ms": [0.5, 1.5]}).T  # 2 of 3 rows
    assert re.search(r'<th class="dl-num">0</th>', tidy(frame._repr_html_()))


def test_a_styler_table_is_tidied_too():
    frame = pd.DataFrame({"mean (ms)": [0.119]}, index=pd.Index([1], name="queue depth"))
    out = tidy(frame.style.format("{:.3f}").to_html())
    assert [[c.replace("&nbsp;", "") for c in r] for r in _head_rows(out)] == [
        ["queue depth", "mean (ms)"]]
    assert _cells(out) == [("0.119", True)]


def test_what_is_not_a_pandas_table_is_left_alone():
    text = "<p>no table</p><table><tr><td>1</td></tr></table>"
    assert tidy(text) == text


def test_numbers_with_units_read_as_numbers_and_text_does_not():
    for text in ("7.23", "19,357", "-0.5", "±25%", "3.48 MiB/s", "95.4 %", "2.16x", "1e-06",
                 "< 0.05 %", "−3"):
        assert is_number(text), text
    for text in ("yes", "seed 000 Table 7", ">= 80, if not", "2026-11-27", "0.5 / 0.3", "True"):
        assert not is_number(text), text


def test_the_build_table_says_succeeded_in_words():
    """myst-nb marks a chapter that ran with an emoji, an empty box without an emoji font."""
    import disklab_sphinx
    from myst_nb.ext.execution_tables import make_stat_table

    class _App:
        def connect(self, *args, **kwargs):
            pass

        def add_config_value(self, *args, **kwargs):
            pass

    disklab_sphinx.setup(_App())
    run = {"mtime": 0, "method": "force", "runtime": 1.2, "error": None}
    table = make_stat_table("book/status", {"book/a": {"exec_data": {**run, "succeeded": True}},
                                            "book/b": {"exec_data": {**run, "succeeded": False}}})
    words = table.astext().split()
    assert "succeeded" in words and "failed" in words
    assert not any(ord(ch) > 0x2000 for ch in table.astext())
