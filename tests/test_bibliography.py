"""The book's one bibliography parses, and every work a chapter cites is in it (a broken entry
otherwise shows up only minutes into a book build, as one Sphinx warning among many)."""

from __future__ import annotations

import re
from pathlib import Path

import pybtex.database

BOOK = Path(__file__).resolve().parent.parent / "book"
_CITE = re.compile(r"\{cite:[tp]\}`([^`]+)`")


def _cited_keys() -> dict[str, str]:
    keys = {}
    for md in sorted(BOOK.glob("*.md")):
        for group in _CITE.findall(md.read_text(encoding="utf-8")):
            for key in group.split(","):
                keys.setdefault(key.strip(), md.name)
    return keys


def test_bibliography_parses_and_holds_every_cited_work():
    entries = pybtex.database.parse_file(str(BOOK / "references.bib")).entries
    missing = {k: where for k, where in _cited_keys().items() if k not in entries}
    assert not missing, f"cited but not in book/references.bib: {missing}"


def test_the_citation_scan_finds_keys():
    assert "gray2000" in _cited_keys()


def test_no_field_holds_latex_the_page_would_show_raw():
    """The references page printed ``$10^{12}$`` and ``\\texttt`` as typed: sphinxcontrib-bibtex
    renders only ``\\url`` and escaped characters; write the rest as text (10¹², plain names)."""
    entries = pybtex.database.parse_file(str(BOOK / "references.bib")).entries
    raw = {}
    for key, entry in entries.items():
        for field, value in entry.fields.items():
            commands = set(re.findall(r"\\([A-Za-z]+)", value)) - {"url"}
            if commands or "$" in value:
                raw[f"{key}.{field}"] = sorted(commands) or "$"
    assert not raw, raw
