"""No simulated number is typed by hand in the book's prose (issue 19, item 2).

Every number the simulator produces reaches the reader through code executed at build time
(myst_nb ``glue`` + ``{glue:text}``, ``{eval}``, or a cell's output). This test reads every
chapter in ``book/*.md`` as MyST markdown, keeps only the prose (paragraphs, lists, tables,
headings, admonition and figure *captions*, exercise text) and finds every number written with a
unit: a time, a size, a rate, a speed, a percentage, a count of sectors, cylinders or tracks, or a
factor ("3.4x", "7 times"). Each one must be either

* a **quotation of a paper**: it stands in a sentence that carries a ``{cite:t}``/``{cite:p}``
  role, so the reader sees whose number it is; or
* a **definition or unit fact** on the short, commented :data:`ALLOWED` list below (a 512-byte
  sector, 1 MiB = 2,048 sectors, a request size that a chapter's experiment takes as input).

Everything else fails, naming the file, the line and the number. Skipped as not prose: the
front matter, code cells and code blocks, directive option lines, math (``$...$``, ``$$...$$``,
``{math}``), inline code, and the content of roles (``{glue:text}``, ``{eval}``, ``{numref}``,
``{cite:t}`` keys, ...), which is either computed or a label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"

#: Pages with no prose of their own: the bibliography page is generated from references.bib.
NOT_SCANNED = {"references.md"}

# --------------------------------------------------------------------------------------------
# What counts as "a number with a unit"
# --------------------------------------------------------------------------------------------

_BARE = r"[-−~≈±]?\d(?:[\d,]*\d)?(?:\.\d+)?"
_NUM = r"(?<![\w.§])" + _BARE
_UNITS = [
    # rates first, so "MB/s" is not read as "MB"
    r"[KMGT]i?B(?:ytes?)?/s", r"[KMGT]b/s", r"kB/s", r"B/s",
    r"requests?/s", r"req/s", r"IOPS", r"I/Os?/s", r"ops/s", r"(?:requests|I/Os|reads|writes|"
    r"operations) (?:per|a) second",
    # times
    r"ns", r"µs", r"μs", r"us", r"ms", r"s", r"sec(?:onds?)?", r"milliseconds?", r"microseconds?",
    r"seconds?", r"minutes?", r"min", r"hours?",
    # sizes
    r"[KMGTP]i?B", r"kB", r"[KMGT]Bytes?", r"bytes?", r"-byte", r"-KiB", r"-MiB", r"-sector",
    # speeds and frequencies
    r"RPM", r"rpm", r"-RPM", r"[kMG]?Hz",
    # shares and factors
    r"%", r"percent", r"(?:percentage )?points", r"[x×]", r"times", r"-fold",
    # geometry
    r"sectors?", r"cylinders?", r"-cylinder", r"tracks?", r"-track", r"revolutions?",
]
_UNIT = "(?:" + "|".join(_UNITS) + r")(?![\w/])"
_SEP = r"(?:\s|\u00a0|\u2009|\u202f)?"
#: A number (or a range of numbers: "4 to 8 ms", "10-20%") followed by a unit.
NUMBER_WITH_UNIT = re.compile(
    rf"(?P<num>{_NUM}(?:{_SEP}(?:-|–|to|and|or|/){_SEP}{_BARE})*){_SEP}(?P<unit>{_UNIT})")
#: "a factor of 3", "by a factor 2.5": a factor without a unit word after it.
FACTOR = re.compile(rf"factor (?:of )?(?P<num>{_NUM})(?P<unit>)")
#: Units that must be separated from the number by a space (else "1990s", "2x" would read odd).
_SPACED_ONLY = {"s", "us", "min"}

# --------------------------------------------------------------------------------------------
# The allow-list: definitions and unit facts, never a simulated result
# --------------------------------------------------------------------------------------------

#: (pattern, why it is not a simulated number). A pattern is a regular expression matched
#: against the whole hit ("512-byte", "4 KiB"), after non-breaking spaces become spaces.
ALLOWED: list[tuple[str, str]] = [
    (r"512-?byte|512 bytes?|4,?096-?byte|4,?096 bytes?|4 ?KiB sectors?",
     "sector sizes: the 512-byte sector and the 4,096-byte Advanced Format sector are "
     "definitions of the interface, not measurements"),
    (r"2,?048 sectors?|8 sectors?|1 sectors?|one sectors?",
     "unit conversions of sizes: 1 MiB = 2,048 sectors, 4 KiB = 8 sectors, of 512 bytes"),
    (r"(?:0\.5|1|2|4|8|16|32|64|128|256|512) ?-?KiB|(?:1|2|4|8|16|32|64|128|256) ?-?MiB",
     "request and buffer sizes that the chapters' experiments take as *inputs* (powers of two "
     "in KiB or MiB): a workload parameter the reader is told, never an output of the model"),
    (r"100 ?%|100 percent|0 ?%",
     "the ends of a scale (a disk 100% busy, 0% hits): definitions of utilisation and ratio"),
    (r"(?:3,600|4,500|5,400|7,200|10,000|15,000) RPM|(?:3600|4500|5400|7200|10000|15000) ?-?RPM",
     "the standard spindle speeds that name a drive class (a 7,200 RPM drive): a drive's "
     "nominal, datasheet speed and a profile input, not a simulated number"),
    (r"4\.9 ?%|7\.4 ?%",
     "unit facts of the units box: a MiB is 2^20/10^6 - 1 = 4.9% larger than a MB, a GiB "
     "2^30/10^9 - 1 = 7.4% larger than a GB (test_unit_facts checks the arithmetic)"),
    (r"(?:1|one) (?:cylinder|track|sector|revolution)s?|-cylinder|-track|-sector",
     "'one track', 'a one-cylinder seek': units of the geometry, not quantities"),
]
_ALLOWED = [(re.compile(p + r"\Z", re.IGNORECASE), why) for p, why in ALLOWED]


@dataclass(frozen=True)
class Hit:
    file: str
    line: int
    text: str
    sentence: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: '{self.text}' in: {self.sentence.strip()[:160]}"


# --------------------------------------------------------------------------------------------
# MyST prose extraction
# --------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<info>.*)$")
#: Directives whose body is not prose: code, math, raw output, glue of a computed value.
_CODE_DIRECTIVES = {"code-cell", "code", "code-block", "sourcecode", "math", "raw", "glue",
                    "glue:", "glue:any", "glue:math", "bibliography", "literalinclude", "eval"}
_ROLE = re.compile(r"\{(?P<role>[\w:+-]+)\}(?P<tick>`+)(?P<body>.*?)(?P=tick)")
_CODE_SPAN = re.compile(r"(?P<tick>`+)(?:.+?)(?P=tick)")
_MATH_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(?:[^$\n]|\\\$)+?(?<!\\)\$")
_LINK = re.compile(r"\]\((?:[^()]|\([^()]*\))*\)")
_HTML = re.compile(r"<!--.*?-->|<[^>\n]+>", re.DOTALL)
_SUBST = re.compile(r"\{\{.*?\}\}")
_CITE_ROLES = {"cite", "cite:t", "cite:p", "cite:ps", "cite:ts", "cite:ct", "cite:cp",
               "cite:author", "cite:year"}


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every prose line of a MyST page; code, math, options dropped."""
    return _ProseScan(text.splitlines()).run()


class _ProseScan:
    """:func:`prose_lines`' walk over a page: the open fences (and whether each body is
    prose), a directive's option lines, display math."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.out: list[tuple[int, str]] = []
        self.i = 0
        self.stack: list[tuple[str, bool]] = []  # (fence, body is prose)
        self.options = False  # at the top of a directive's body: option lines may follow
        self.in_display_math = False

    def _skip_to_dashes(self) -> None:
        """Past the closing ``---`` of a YAML block (front matter, a directive's options)."""
        while self.i < len(self.lines) and self.lines[self.i].strip() != "---":
            self.i += 1
        self.i += 1

    def run(self) -> list[tuple[int, str]]:
        if self.lines and self.lines[0].strip() == "---":  # front matter
            self.i = 1
            self._skip_to_dashes()
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            if self._fence(_FENCE.match(line)) or self._option(line) or self._math(line):
                continue
            stripped = line.strip()
            if stripped == "+++" or (stripped.startswith("(") and stripped.endswith(")=")):
                continue  # a jupytext cell break, a target label
            self.out.append((self.i, line))
        return self.out

    def _fence(self, m: re.Match | None) -> bool:
        """Handles a line inside a non-prose body or opening or closing a fence; True when
        the line is done with."""
        if self.stack:
            fence, prose = self.stack[-1]
            if m and m["fence"][0] == fence[0] and len(m["fence"]) >= len(fence) and not m["info"]:
                self.stack.pop()
                self.options = False
                return True
            if not prose:
                return True
        if m and m["info"] is not None and (m["info"] or not self.stack):
            self._open(m)
            return True
        return False

    def _open(self, m: re.Match) -> None:
        """A fence opens: a directive whose body is prose or not; its argument may be prose."""
        info = m["info"].strip()
        name = info[1:info.index("}")] if info.startswith("{") and "}" in info else None
        prose = name is not None and name not in _CODE_DIRECTIVES
        self.stack.append((m["fence"], prose))
        self.options = prose
        if not prose or name in ("figure", "glue:figure", "image", "include"):
            return  # the argument is a file or a key; the caption follows the options
        # a directive's argument is prose (an admonition's title), an exercise's label not
        if name.endswith("-start") or name.startswith(("exercise", "solution")):
            return
        arg = info[info.index("}") + 1:]
        if arg.strip():
            self.out.append((self.i, arg))

    def _option(self, line: str) -> bool:
        """A directive's option line or YAML option block; True when the line is one."""
        if not self.options:
            return False
        stripped = line.strip()
        if re.match(r"^:[\w-]+:", stripped):
            return True
        if stripped == "---":  # a YAML option block
            self._skip_to_dashes()
            return True
        self.options = False
        return False

    def _math(self, line: str) -> bool:
        """Display math (``$$`` lines and what lies between); True when the line is math."""
        stripped = line.strip()
        if stripped.startswith("$$"):
            rest = stripped[2:]
            if not (rest.endswith("$$") and len(rest) >= 2):
                self.in_display_math = not self.in_display_math
            return True
        if self.in_display_math:
            if stripped.endswith("$$"):
                self.in_display_math = False
            return True
        return False


def _strip_inline(line: str) -> tuple[str, bool]:
    """The line without roles, inline code, inline math, link targets and HTML; and whether
    it held a citation role."""
    cited = False

    def role(m: re.Match) -> str:
        nonlocal cited
        if m["role"] in _CITE_ROLES:
            cited = True
            return " CITATION "
        if m["role"] in ("glue:text", "glue", "glue:any", "eval"):
            return " COMPUTED "
        if m["role"] in ("term", "ref", "doc", "abbr"):  # the visible text of a term or link
            return re.sub(r"<.*?>", "", m["body"])
        return " "

    line = _ROLE.sub(role, line)
    line = _CODE_SPAN.sub(" ", line)
    line = _MATH_INLINE.sub(" ", line)
    line = _LINK.sub("]", line)
    line = _HTML.sub(" ", line)
    line = _SUBST.sub(" COMPUTED ", line)
    return line, cited


_ABBREV = re.compile(r"\b(?:al|e\.g|i\.e|cf|vs|Fig|fig|Eq|eq|ch|Ch|no|No|Vol|vol|pp|p|etc|approx|"
                     r"resp|Dr|Mr|Mrs|Ms|St|Sec|sec|Tab|tab)\.$")


_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[*_\"“0-9{]|CITATION|COMPUTED)|(?<=;)\s+")


def _sentences(par: list[tuple[int, str, bool]]) -> list[tuple[int, str, bool]]:
    """Split one paragraph into sentences: (offset in the joined paragraph, text, cited).

    A citation anywhere in a sentence covers the sentence; a semicolon ends a clause as far as
    citations go, so "the paper gives 45 MB/s {cite}; the model 47 MB/s" does not cover 47.
    """
    text = " ".join(t for _, t, _ in par)
    out = []
    start = 0
    for m in _SPLIT.finditer(text):
        piece = text[start:m.start()]
        if not piece.endswith(";") and _ABBREV.search(piece):
            continue
        out.append((start, piece, "CITATION" in piece))
        start = m.end()
    out.append((start, text[start:], "CITATION" in text[start:]))
    return out


def _paragraphs(lines: list[tuple[int, str]]) -> list[list[tuple[int, str, bool]]]:
    pars: list[list[tuple[int, str, bool]]] = []
    cur: list[tuple[int, str, bool]] = []
    for lineno, raw in lines:
        text, cited = _strip_inline(raw)
        stripped = text.strip()
        table_row = stripped.startswith("|")
        new_item = bool(re.match(r"^([-*+]|\d+[.)]|#+)\s", stripped)) or table_row
        if not stripped or new_item:
            if cur:
                pars.append(cur)
            cur = []
            if not stripped:
                continue
        if new_item:
            stripped = re.sub(r"^([-*+]|\d+[.)]|#+)\s+", "", stripped)
        cur.append((lineno, stripped, cited))
        if table_row:  # a table row is a unit of its own
            pars.append(cur)
            cur = []
    if cur:
        pars.append(cur)
    return pars


def _allowed(hit_text: str, m: re.Match) -> bool:
    """On the allow-list as a whole ("512 bytes"), or every number of a range is ("10,000 and
    15,000 RPM" as two standard spindle speeds)."""
    if any(rx.match(hit_text) for rx, _ in _ALLOWED):
        return True
    nums = re.findall(_BARE, m["num"])
    if len(nums) < 2 or not m["unit"]:
        return False
    return all(any(rx.match(f"{n} {m['unit']}") for rx, _ in _ALLOWED) for n in nums)


def _line_at(par: list[tuple[int, str, bool]], offset: int) -> int:
    """The source line of a character offset in the paragraph joined with single spaces."""
    pos = 0
    for lineno, text, _ in par:
        pos += len(text) + 1
        if offset < pos:
            return lineno
    return par[-1][0]


def scan(text: str, name: str = "<text>") -> list[Hit]:
    """Every number with a unit in the prose of one MyST page that is neither cited nor allowed."""
    hits = []
    for par in _paragraphs(prose_lines(text)):
        for start, sentence, cited in _sentences(par):
            if cited:
                continue
            found = []
            for rx in (NUMBER_WITH_UNIT, FACTOR):
                for m in rx.finditer(sentence):
                    unit = m["unit"]
                    gap = sentence[m.end("num"):m.start("unit")] if unit else ""
                    if unit in _SPACED_ONLY and not gap:
                        continue
                    if unit.lower() in ("x", "×") and gap:
                        continue  # "3 x 4" is arithmetic, "3x" and "3×" are factors
                    found.append(m)
            for m in sorted(found, key=lambda m: m.start()):
                hit_text = re.sub(r"[\u00a0\u2009\u202f]", " ", m.group(0)).strip()
                if _allowed(hit_text, m):
                    continue
                hits.append(Hit(name, _line_at(par, start + m.start("num")), hit_text, sentence))
    return hits


def chapters() -> list[Path]:
    return sorted(p for p in BOOK.glob("*.md") if p.name not in NOT_SCANNED)


# --------------------------------------------------------------------------------------------
# The scanner itself (it must be able to fail)
# --------------------------------------------------------------------------------------------

def test_issue_example_fails():
    """The sentence issue 19 quotes from the positioning chapter is a hand-typed number."""
    hits = scan("Positioning dominates: positioning is about 8 ms whatever the size.\n")
    assert [h.text for h in hits] == ["8 ms"]
    assert hits[0].line == 1


@pytest.mark.parametrize("prose, found", [
    ("The 1 MiB read takes 14.2 ms and moves 71.3 MB/s.", ["14.2 ms", "71.3 MB/s"]),
    ("SPTF wins by 35% over FCFS, a 1.6x gain.", ["35%", "1.6x"]),
    ("Between 4 and 8 ms per seek.", ["4 and 8 ms"]),
    ("From 4 KiB to 300 KiB, at 7,200 and 7,300 RPM.", ["300 KiB", "7,200 and 7,300 RPM"]),
    ("Throughput fell by a factor of 3.", ["factor of 3"]),
    ("The mean is 2,990 sectors from the head, 3 times the average.", ["2,990 sectors", "3 times"]),
    ("It peaks at 55.8 MiB/s with 7 tracks.", ["55.8 MiB/s", "7 tracks"]),
    ("A 12 s run.", ["12 s"]),
])
def test_finds_numbers_with_units(prose, found):
    assert [h.text for h in scan(prose)] == found


@pytest.mark.parametrize("prose", [
    # glued, evaluated or substituted numbers are computed
    "A 4 KiB read spends {glue:text}`pos-share-4k`% of its time positioning.",
    "It takes {glue:text}`t-rand` ms, or {eval}`f'{x:.1f}'` ms.",
    # a paper's number, with the citation in the same sentence
    "The paper reports 45 MB/s at 100 streams ({cite:t}`panagiotakis2006`, §5.2).",
    "{cite:t}`schindler2002` measured a 50% gain,\nover two lines of 4.5 ms.",
    # code, math, inline code, options
    "```{code-cell} ipython3\nx = 8  # 8 ms\n```\n",
    "The rate is $R = 4096/8\\,\\text{ms}$.",
    "$$\nT = 8 ms\n$$\n",
    "Run `fio --bs=4k --runtime=60s` now.",
    "```{figure} a.png\n:width: 80%\n\nA caption.\n```\n",
    # the allow-list
    "Sectors are 512 bytes; a 4 KiB read is 8 sectors, 1 MiB is 2,048 sectors.",
    "A 7,200 RPM drive and a one-cylinder seek, at 10,000 and 15,000 RPM.",
    # no unit, or no number
    "Table 3.1 of §5.2 lists 28 disks in the 1990s; Figure 4 shows the Atlas 10K.",
])
def test_passes(prose):
    assert scan(prose) == []


def test_citation_covers_its_sentence_only():
    text = ("The paper gives 45 MB/s ({cite:p}`panagiotakis2006`). The model gives 47 MB/s.\n"
            "The paper gives 45 MB/s {cite:p}`panagiotakis2006`; the model 47 MB/s.\n")
    assert [(h.line, h.text) for h in scan(text)] == [(1, "47 MB/s"), (2, "47 MB/s")]


def test_captions_and_admonitions_are_prose():
    text = ("```{glue:figure} fig-x\n:name: fig-x\n\nThe 1 MiB read takes 14.2 ms.\n```\n\n"
            ":::{note} At 8 ms\nA seek of 3.1 ms.\n:::\n")
    assert [(h.line, h.text) for h in scan(text)] == [(4, "14.2 ms"), (7, "8 ms"), (8, "3.1 ms")]


def test_unit_facts():
    """The binary/decimal gaps the allow-list admits are what the units box says they are."""
    assert round(100 * (2**20 / 10**6 - 1), 1) == 4.9
    assert round(100 * (2**30 / 10**9 - 1), 1) == 7.4


def test_every_allowed_entry_says_why():
    assert len(ALLOWED) <= 10, "the allow-list is meant to stay short"
    for pattern, why in ALLOWED:
        re.compile(pattern)
        assert len(why) > 30, f"allow-list entry {pattern!r} needs a reason"


# --------------------------------------------------------------------------------------------
# The book
# --------------------------------------------------------------------------------------------

def test_scans_every_chapter():
    names = {p.name for p in chapters()}
    assert {"positioning.md", "placement.md", "glossary.md", "intro.md"} <= names
    assert len(names) >= 13


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.name)
def test_no_hand_typed_numbers(path):
    hits = scan(path.read_text(encoding="utf-8"), f"book/{path.name}")
    assert not hits, (
        f"{len(hits)} number(s) with units typed by hand in {path.name}; glue them from the code "
        "that computes them, cite the paper they quote, or (a definition only) add them to "
        "ALLOWED with a reason:\n" + "\n".join(str(h) for h in hits))
