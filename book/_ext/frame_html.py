"""Tidy the HTML of a glued DataFrame for the book's numbered tables.

pandas writes a named index as a second header row of its own (the index's name under an empty
corner, empty cells beside it), numbers a frame with no index of its own 0, 1, 2, ..., prints a
missing value as ``NaN`` and right-aligns every header over left-aligned cells. A table in a book
reads better with the index's name in the corner, no row numbers, a dash for "nothing" and
numbers right-aligned under right-aligned headers, text left. :func:`tidy` does this on the HTML
pandas wrote (``DataFrame._repr_html_`` or a ``Styler``), since the glued output keeps only the
HTML, not the frame. Anything it does not recognise it leaves as it is.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

__all__ = ["is_number", "tidy"]

_TABLE = re.compile(r"(<table\b[^>]*>)(.*?)(</table>)", re.S)
_SECTION = re.compile(r"<(thead|tbody)\b[^>]*>(.*?)</\1>", re.S)
_ROW = re.compile(r"<tr\b([^>]*)>(.*?)</tr>", re.S)
_CELL = re.compile(r"<(th|td)\b([^>]*)>(.*?)</\1>", re.S)
_CLASS = re.compile(r'\bclass="([^"]*)"')
#: A number, optionally signed or bounded and followed by a short unit: 7.23, 19,357, -0.5,
#: ±25%, 3.48 MiB/s, 95.4 %, 2.16x, 1e-06, < 0.05 %.
_NUMBER = re.compile(r"^(?:[-+−±~≈<>]|<=|>=|≤|≥)?\s?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
                     r"(?:\s?(?:%|[xX×]|[A-Za-zµ]{1,4}(?:/[A-Za-z]{1,4})?))?$")
#: What pandas prints for a missing value; shown as a dash.
_MISSING = {"NaN", "nan", "<NA>", "NaT", "None"}
DASH = "—"


@dataclass
class _Cell:
    tag: str
    attrs: str
    inner: str

    @property
    def text(self) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", self.inner)).replace("\xa0", " ").strip()

    @property
    def spans(self) -> bool:
        return "colspan" in self.attrs or "rowspan" in self.attrs

    def add_class(self, name: str) -> None:
        m = _CLASS.search(self.attrs)
        if m:
            self.attrs = self.attrs[:m.end(1)] + f" {name}" + self.attrs[m.end(1):]
        else:
            self.attrs = f' class="{name}"' + self.attrs

    def html(self) -> str:
        return f"<{self.tag}{self.attrs}>{self.inner}</{self.tag}>"


def is_number(text: str) -> bool:
    """Whether a cell's text reads as a number (a unit after it allowed)."""
    return bool(_NUMBER.match(text.strip()))


def _rows(section: str) -> list[list[_Cell]]:
    return [[_Cell(*c) for c in _CELL.findall(body)] for _attrs, body in _ROW.findall(section)]


def _blank(cell: _Cell) -> bool:
    return cell.text == "" and not cell.spans


def _drop_row_numbers(head: list[list[_Cell]], body: list[list[_Cell]]) -> None:
    """An unnamed index 0, 1, ..., n-1 (a frame that has no index of its own): drop it."""
    if not body or not all(head_row and _blank(head_row[0]) for head_row in head):
        return
    for i, row in enumerate(body):
        if sum(c.tag == "th" for c in row) != 1 or row[0].tag != "th" or row[0].spans \
                or row[0].text != str(i):
            return
    for row in (*head, *body):
        del row[0]


def _merge_index_names(head: list[list[_Cell]]) -> None:
    """Move the index's names from their own header row into the corner above the index."""
    if len(head) < 2:
        return
    names = head[-1]
    if all(_blank(c) for c in names):  # an index named "": a row of nothing
        del head[-1]
        return
    k = next((i for i, c in enumerate(names) if c.text == ""), len(names))
    if k == 0 or any(c.text or c.spans for c in names[k:]) or any(c.spans for c in names[:k]):
        return
    if any(len(row) < k or not all(_blank(c) for c in row[:k]) for row in head[:-1]):
        return  # the corner holds the columns' own names: both rows mean something
    for corner, name in zip(head[-2][:k], names[:k], strict=True):
        corner.inner = name.inner
    del head[-1]


def _align(head: list[list[_Cell]], body: list[list[_Cell]]) -> None:
    """Numbers right, text left: a column whose every cell is a number (or a dash) is marked
    ``dl-num``, header included; in a table of two columns or more so is a row of numbers (a
    frame turned on its side, one record a column), and a header over mostly such rows."""
    data = [[c for c in row if c.tag == "td"] for row in body]
    width = len(data[0]) if data else 0
    if not width or any(len(row) != width for row in data):
        return

    def numeric(cells: list[_Cell]) -> bool:
        filled = [c.text for c in cells if c.text not in ("", DASH)]
        return bool(filled) and all(is_number(t) for t in filled)

    columns = [numeric([row[j] for row in data]) for j in range(width)]
    right = [0] * width
    for row in data:
        whole_row = width > 1 and numeric(row)
        for j, cell in enumerate(row):
            if columns[j] or whole_row:
                cell.add_class("dl-num")
                right[j] += 1
    # a header goes right over a column of numbers, or over one mostly right-aligned by its rows
    columns = [c or 2 * n > len(data) for c, n in zip(columns, right, strict=True)]
    # the lowest header row that names the columns (not a row of the index's names under it)
    labels = [row for row in head if len(row) >= width and not any(c.spans for c in row)
              and any(c.text for c in row[len(row) - width:])]
    if labels:
        for j, cell in enumerate(labels[-1][len(labels[-1]) - width:]):
            if columns[j]:
                cell.add_class("dl-num")


def _emit(tag: str, rows: list[list[_Cell]]) -> str:
    inner = "".join("\n    <tr>\n" + "".join(f"      {c.html()}\n" for c in row) + "    </tr>"
                    for row in rows)
    return f"\n  <{tag}>{inner}\n  </{tag}>"


def _tidy_table(m: re.Match) -> str:
    opening, inner, closing = m.groups()
    parts = {name: _rows(section) for name, section in _SECTION.findall(inner)}
    if set(parts) != {"thead", "tbody"} or len(_SECTION.findall(inner)) != 2:
        return m.group(0)  # a shape pandas does not write: leave it
    head, body = parts["thead"], parts["tbody"]
    _drop_row_numbers(head, body)
    _merge_index_names(head)
    for row in body:
        for cell in row:
            if cell.tag == "td" and cell.text in _MISSING:
                cell.inner = DASH
    _align(head, body)
    table = _Cell("table", opening[len("<table"):-1], "")
    table.add_class("dl-frame")
    return f"<table{table.attrs}>{_emit('thead', head)}{_emit('tbody', body)}\n{closing}"


def tidy(text: str) -> str:
    """The HTML of a pandas table, tidied as the module says; other HTML is returned unchanged."""
    return _TABLE.sub(_tidy_table, text)
