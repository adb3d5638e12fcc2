"""Reproduction targets as data: what the paper says, how close we must come, and where it says so.

Each experiment declares its targets once, as a tuple of :class:`Target` named ``TARGETS``.
A target names a number (or a yes/no property) in the experiment's result by a dotted key,
the paper's value, the tolerance the extraction note gives for it (``bound``), and its
source: the seed, the section, table or figure, and the note file and line where the
number and the tolerance are written down. :func:`evaluate` turns the declarations and a
result into rows (paper value, tolerance, source, simulated value, met or missed) that
``python -m simcore reproduce NAME --json``, the tests, the book's chapters and its status
page all read.

The rule for tolerances: the note's, never a looser one. ``note_bound`` keeps the note's
tolerance as data beside the one applied, transcribed from ``source.quote`` (the exact text of
the note's line); a test fails if ``bound`` accepts anything ``note_bound`` rejects unless
``tolerance_reason`` says why, and fails if a target has no note tolerance and no reason.
A target the model misses stays at the paper's tolerance and is reported as missed, with the
reason in ``known_deviation``.

Two optional conditions make judging stricter, never looser: a :class:`Premise` (the claim
assumes something else of the result, as "zones beat the single zone by 25 points" assumes the
single zone gains; a result that breaks the premise misses the target whatever its value), and
``ci_key`` (the value's 95% confidence half-width: the whole interval must lie inside the
bound, so a difference the run cannot resolve does not count as one).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

#: where the extraction notes live, relative to the repository (CI clones ``../shared`` beside it)
NOTES_DIR = "../shared/notes"


@dataclass(frozen=True)
class Bound:
    """An acceptance interval around the paper's value.

    ``kind`` is one of ``"abs"`` (paper +- a), ``"rel"`` (paper +- a x paper), ``"range"``
    ([a, b], either end ``None`` for no limit; ``strict`` makes the ends exclusive) or
    ``"equal"`` (the simulated value must equal the paper's: yes/no properties).
    """

    kind: str
    a: float | None = None
    b: float | None = None
    strict: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("abs", "rel", "range", "equal"):
            raise ValueError(f"Bound.kind must be abs, rel, range or equal, not {self.kind!r}")
        if self.kind in ("abs", "rel") and (self.a is None or self.a < 0):
            raise ValueError(f"a {self.kind} bound needs a tolerance >= 0, got {self.a!r}")
        if self.kind == "range" and self.a is None and self.b is None:
            raise ValueError("a range bound needs at least one end")
        if self.kind == "range" and None not in (self.a, self.b) and self.a > self.b:
            raise ValueError(f"range bound with lo {self.a} > hi {self.b}")

    def interval(self, paper: Any) -> tuple[float, float]:
        """(lo, hi) accepted, with -inf/inf for a missing end (``equal``: the paper's value)."""
        if self.kind == "abs":
            return float(paper) - self.a, float(paper) + self.a
        if self.kind == "rel":
            return float(paper) * (1 - self.a), float(paper) * (1 + self.a)
        if self.kind == "range":
            return (-math.inf if self.a is None else float(self.a),
                    math.inf if self.b is None else float(self.b))
        return float(paper), float(paper)

    def accepts(self, value: Any, paper: Any) -> bool:
        if self.kind == "equal":
            return value == paper
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            return False
        lo, hi = self.interval(paper)
        if self.strict:
            return lo < value < hi
        return lo <= value <= hi

    def within(self, other: Bound, paper: Any) -> bool:
        """True when everything this bound accepts, ``other`` accepts too (no looser)."""
        if other.kind == "equal" or self.kind == "equal":
            return self.kind == other.kind
        lo, hi = self.interval(paper)
        olo, ohi = other.interval(paper)
        if lo < olo or hi > ohi:
            return False
        if other.strict and not self.strict:  # same ends, but ours includes them
            return lo > olo and hi < ohi
        return True

    def text(self, paper: Any) -> str:
        """The tolerance as a reader sees it: "+-0.02", "+-15%", "6 to 12", ">= 25", "yes"."""
        if self.kind == "abs":
            return f"±{self.a:g}"
        if self.kind == "rel":
            return f"±{100 * self.a:g}%"
        if self.kind == "equal":
            return "exactly" if not isinstance(paper, bool) else ("must hold" if paper
                                                                   else "must not hold")
        lt, gt = ("<", ">") if self.strict else ("<=", ">=")
        if self.a is None:
            return f"{lt} {self.b:g}"
        if self.b is None:
            return f"{gt} {self.a:g}"
        return f"{self.a:g} to {self.b:g}" + (" (exclusive)" if self.strict else "")


def pm(x: float) -> Bound:
    """paper +- x (absolute)."""
    return Bound("abs", x)


def rel(x: float) -> Bound:
    """paper +- x as a fraction of the paper's value (0.15 = +-15%)."""
    return Bound("rel", x)


def between(lo: float | None, hi: float | None, strict: bool = False) -> Bound:
    """lo <= value <= hi (``None``: open on that side; ``strict``: ends excluded)."""
    return Bound("range", lo, hi, strict)


def holds() -> Bound:
    """A yes/no property: the simulated value must equal the paper's."""
    return Bound("equal")


@dataclass(frozen=True)
class Source:
    """Where a target comes from: the seed and its section/table/figure, and the note's line.

    ``quote`` is a short exact excerpt of line ``line`` of ``note`` (under :data:`NOTES_DIR`)
    that states the value or the tolerance; a test reads the note and checks it is there.
    ``issue`` names a project issue when the tolerance comes from the issue, not the note.
    """

    seed: str
    where: str
    note: str
    line: int
    quote: str
    issue: str | None = None

    def text(self) -> str:
        out = f"seed {self.seed} {self.where}; notes/{self.note}:{self.line}"
        return out + (f"; {self.issue}" if self.issue else "")


@dataclass(frozen=True)
class Premise:
    """What a target's claim assumes: the result value ``key`` (dotted) must lie in ``bound``.

    ``what`` says it for a reader ("FREQNC improves on the original"); the paper's own value of
    the premise is the ``paper`` given to ``bound`` (for a range bound it does not matter).
    """

    key: str
    bound: Bound
    what: str
    paper: Any = None


@dataclass(frozen=True)
class Target:
    """One reproduction target (see the module docstring)."""

    key: str
    what: str
    paper: Any
    bound: Bound
    source: Source
    #: the note's tolerance, transcribed from ``source.quote``; None when the note gives none
    note_bound: Bound | None
    #: why ``bound`` differs from ``note_bound`` (required when wider, or when the note has none)
    tolerance_reason: str | None = None
    #: why the model misses this target (shown beside a miss); never a reason to widen.
    #: ``{key}`` or ``{key:.3f}`` in it is filled from the result (a dotted key, as ``key``
    #: above), so a number the reason quotes is the run's own, never typed by hand
    known_deviation: str | None = None
    #: measured only by the full run (quick mode reports it as not run)
    full_only: bool = False
    units: str = ""
    #: what the claim assumes of the rest of the result: broken, the target is missed
    premise: Premise | None = None
    #: dotted key of the value's 95% confidence half-width: the target is met only when the
    #: whole interval (value +- half-width) lies inside ``bound``
    ci_key: str | None = None

    def loosened(self) -> bool:
        """True when ``bound`` accepts more than the note's tolerance (or the note has none)."""
        return self.note_bound is None or not self.bound.within(self.note_bound, self.paper)

    def condition(self) -> str | None:
        """The conditions beyond ``bound``, as a reader sees them (None when there are none)."""
        parts = []
        if self.ci_key is not None:
            parts.append("with its whole 95% CI")
        if self.premise is not None:
            p = self.premise
            parts.append(f"if {p.what} ({p.bound.text(p.paper)})")
        return ", ".join(parts) or None

    def judge(self, result: dict) -> dict[str, Any]:
        """Whether ``result`` meets this target: ``met``, and the premise and interval checked.

        ``bound`` must accept the value; with ``ci_key`` it must accept both ends of the
        value's confidence interval too; with a ``premise`` the premise must hold.
        """
        value = _plain(lookup(result, self.key))
        ok = self.bound.accepts(value, self.paper)
        half = None
        if self.ci_key is not None:
            half = _plain(lookup(result, self.ci_key))
            resolved = (isinstance(half, int | float) and not isinstance(half, bool)
                        and math.isfinite(half)
                        and self.bound.accepts(value - half, self.paper)
                        and self.bound.accepts(value + half, self.paper))
            ok = ok and resolved
        premise = None
        if self.premise is not None:
            p = self.premise
            pv = _plain(lookup(result, p.key))
            holds_ = p.bound.accepts(pv, p.paper)
            premise = {"key": p.key, "what": p.what, "tolerance": p.bound.text(p.paper),
                       "value": pv, "holds": holds_}
            ok = ok and holds_
        return {"simulated": value, "met": ok, "ci95": half, "premise": premise}


def lookup(result: dict, key: str) -> Any:
    """The value a target names: ``"ratio"`` or a dotted path ``"hdparm_mb_s.pio"``."""
    value: Any = result
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"target key '{key}': no '{part}' in the result")
        value = value[part]
    return value


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)(?::([^{}]*))?\}")


def fill_from_result(text: str | None, result: dict, target_key: str = "") -> str | None:
    """``text`` with each ``{dotted.key}`` or ``{dotted.key:spec}`` replaced by that result value.

    A key the result lacks raises ``KeyError`` naming the target, so a reason cannot go on
    quoting a number the experiment no longer computes.
    """
    if text is None:
        return None

    def value(m: re.Match) -> str:
        try:
            v = lookup(result, m.group(1))
        except KeyError as e:
            raise KeyError(f"known_deviation of target '{target_key}': {e.args[0]}") from None
        return format(v, m.group(2) or "")

    return _PLACEHOLDER.sub(value, text)


def _plain(v: Any) -> Any:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int | float):
        return float(v) if not isinstance(v, int) else v
    return float(v) if hasattr(v, "__float__") else v


def evaluate(targets: tuple[Target, ...] | list[Target], result: dict,
             quick: bool = False) -> list[dict]:
    """One JSON-ready row per target: paper value, tolerance, source, simulated value, status.

    ``status`` is ``"met"``, ``"missed"`` or ``"not run"`` (a full-only target in quick mode);
    ``met`` is True, False or None to match (:meth:`Target.judge`: the bound, and the premise
    and the confidence interval where the target has them; ``condition``, ``ci95`` and
    ``premise`` report those). A target not run has no miss to explain: its
    ``known_deviation`` is None (its placeholders name numbers only the full run computes).
    """
    rows = []
    for t in targets:
        lo, hi = t.bound.interval(t.paper) if t.bound.kind != "equal" else (None, None)
        row: dict[str, Any] = {
            "key": t.key, "what": t.what, "paper": t.paper, "units": t.units,
            "tolerance": t.bound.text(t.paper),
            "lo": None if lo is None or math.isinf(lo) else lo,
            "hi": None if hi is None or math.isinf(hi) else hi,
            "note_tolerance": t.note_bound.text(t.paper) if t.note_bound else None,
            "tolerance_reason": t.tolerance_reason,
            "source": {"seed": t.source.seed, "where": t.source.where, "note": t.source.note,
                       "line": t.source.line, "quote": t.source.quote, "issue": t.source.issue,
                       "text": t.source.text()},
            "known_deviation": None, "condition": t.condition(),
        }
        if quick and t.full_only:
            row.update(simulated=None, met=None, status="not run", ci95=None, premise=None)
        else:
            row["known_deviation"] = fill_from_result(t.known_deviation, result, t.key)
            row.update(t.judge(result))
            row["status"] = "met" if row["met"] else "missed"
        rows.append(row)
    return rows


def summary(rows: list[dict]) -> dict[str, int]:
    """Counts of met, missed and not-run targets."""
    out = {"met": 0, "missed": 0, "not run": 0}
    for r in rows:
        out[r["status"]] += 1
    out["total"] = len(rows)
    return out


def accepted(row: dict) -> str:
    """A row's tolerance with its conditions (premise, interval), as a reader sees them."""
    cond = row.get("condition")
    return row["tolerance"] + (f", {cond}" if cond else "")


def table(rows: list[dict], digits: int = 3) -> list[dict]:
    """Rows for a chapter's comparison table (one dict per target, reader-facing columns)."""
    out = []
    for r in rows:
        sim = r["simulated"]
        if isinstance(sim, float):
            sim = float(f"{sim:.{digits}g}")
        paper = r["paper"]
        if isinstance(paper, float):
            paper = float(f"{paper:.{digits}g}")
        if isinstance(paper, bool):
            paper = "yes" if paper else "no"
            sim = "not run" if sim is None else ("yes" if sim else "no")
        out.append({"target": r["what"], "paper": paper, "accepted": accepted(r),
                    "simulated": "not run" if sim is None else sim,
                    "met": {"met": "yes", "missed": "no", "not run": "not run"}[r["status"]],
                    "source": r["source"]["where"]})
    return out
