"""Every table a chapter shows is numbered, captioned and labelled (issue 15).

A computed table is glued in a code cell and placed with ``{glue:table}`` (the directive of
``book/_ext/disklab_tables.py``); a written one is a Markdown table inside a ``{table}``
directive. Both need a ``:name:`` (the label ``{numref}`` uses, and what makes Sphinx number
them) and a caption that says what to look at. This test reads the MyST sources, so it needs no
build; ``tests/test_browser.py`` checks the built pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
#: Pages that are not chapters: the generated bibliography and the glossary's definitions.
NOT_CHAPTERS = {"references.md", "glossary.md"}
CHAPTERS = sorted(p for p in BOOK.glob("*.md") if p.name not in NOT_CHAPTERS)

_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>glue:table|table|glue:figure)\}\s*(?P<arg>.*)$")
_NAME = re.compile(r"^:name:\s*(\S+)\s*$")
_GLUED = re.compile(r"""glue\(\s*f?["'](?P<key>[^"']+)["']""")


def _directives(text: str):
    """(line, directive, argument, options, body) of every glue:table / table / glue:figure."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence = i + 1, m["fence"]
        i += 1
        options, body = {}, []
        while i < len(lines) and lines[i].startswith(":") and not lines[i].startswith(fence):
            key, _, value = lines[i][1:].partition(":")
            options[key.strip()] = value.strip()
            i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        yield start, m["name"], m["arg"].strip(), options, "\n".join(body).strip()


def _all():
    for path in CHAPTERS:
        for d in _directives(path.read_text(encoding="utf-8")):
            yield path, *d


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_table_is_named_and_captioned(path):
    text = path.read_text(encoding="utf-8")
    glued = {m["key"] for m in _GLUED.finditer(text)}
    for line, name, arg, options, body in _directives(text):
        where = f"{path.name}:{line}"
        if name == "glue:figure":
            # a table pasted as a figure would be numbered "Fig." among the figures
            assert not options.get("name", "").startswith("tab-"), (
                f"{where}: {options['name']} is a table; place it with {{glue:table}}")
            continue
        assert options.get("name"), f"{where}: {{{name}}} has no :name: (its numref label)"
        caption = body if name == "glue:table" else arg
        if name == "table":
            assert "|" in body, f"{where}: {{table}} holds no Markdown table"
        words = re.sub(r"\{[^}]+\}`[^`]*`|`[^`]*`", "x", caption).split()
        assert len(words) >= 6, f"{where}: the caption {caption!r} does not say what to look at"
        if name == "glue:table":
            # the key is glued in this chapter (f-string keys are matched by their prefix)
            assert arg in glued or any(k.endswith("{name}") and arg.startswith(k[:-6])
                                       for k in glued), f"{where}: nothing glues {arg!r}"


def test_table_labels_are_unique_across_the_book():
    seen: dict[str, str] = {}
    for path, line, _name, _arg, options, _body in _all():
        label = options.get("name")
        if label:
            assert label not in seen, f"{path.name}:{line}: label {label} is also {seen[label]}"
            seen[label] = f"{path.name}:{line}"


def test_no_chapter_leaves_a_markdown_table_bare():
    """A pipe table outside a {table} directive would show with no number and no caption."""
    for path in CHAPTERS:
        inside, fence = False, None
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = re.match(r"^(`{3,}|:{3,}|~{3,})(.*)$", line)
            if m and not inside:
                inside, fence = True, m[1]
                continue
            if inside and line.rstrip() == fence:
                inside = False
                continue
            if not inside and re.match(r"^\|.*\|\s*$", line) and re.match(r"^\|[\s:|-]+\|\s*$",
                                                                      _next(path, n)):
                pytest.fail(f"{path.name}:{n}: a Markdown table outside a {{table}} directive")


def _next(path: Path, n: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[n] if n < len(lines) else ""


def test_a_caption_with_code_is_not_in_a_backtick_fence():
    """CommonMark ends a backtick fence's info string at a backtick: a ```{table} whose caption
    holds `code` is not a directive at all, and the cells after it are lost (write :::{table})."""
    for path in CHAPTERS:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"^`{3,}\{[\w:-]+\}.*`", line):
                pytest.fail(f"{path.name}:{n}: a backtick in a backtick fence's directive line")


def test_every_chapter_with_code_declares_its_jupytext_format():
    """JupyterLab's jupytext opens a chapter as a notebook only with the full header (the
    queueing, status and validation chapters lacked `extension: .md` and opened with no code
    cells from their launch buttons)."""
    missing = []
    for path in sorted(BOOK.glob("*.md")):
        text = path.read_text()
        if "{code-cell}" not in text:
            continue
        header = text.split("\n---\n", 1)[0]
        if not ("extension: .md" in header and "format_name: myst" in header
                and "kernelspec:" in header):
            missing.append(path.name)
    assert not missing, missing


def test_every_page_opens_in_jupyterlab_as_myst():
    """JupyterLab opens book/*.md through jupytext: a page without a header is guessed, and a
    ':::' fence made the intro look like Pandoc Markdown (which needs pandoc, absent here)."""
    import jupytext

    failed = []
    for path in sorted(BOOK.glob("*.md")):
        try:
            jupytext.read(path)
        except Exception as exc:
            failed.append(f"{path.name}: {exc}")
    assert not failed, failed
