"""Answer checks for lab notebooks: one deterministic line per question.

A check prints a tick or a cross and a hint, or says the question is not
answered yet. It never prints the expected value, so a wrong answer reveals
nothing, and its output is what nbval compares against the key's stored line.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable
from typing import Any

TICK, CROSS, WAIT = "✔", "✘", "…"


def variant_seed(student_id: str, lab: str) -> int:
    """A stable per-student seed: the same id and lab always give the same number."""
    digest = hashlib.sha256(f"{lab}:{student_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _is_blank(value: Any) -> bool:
    return value is None or value is Ellipsis


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def check(
    question: str,
    value: Any,
    expected: Any = None,
    *,
    rel: float | None = None,
    abs_tol: float | None = None,
    one_of: Iterable[Any] | None = None,
    predicate: Callable[[Any], bool] | None = None,
    hint: str = "",
) -> bool:
    """Print one line judging ``value`` and return whether it is right.

    Give exactly one kind of expectation: ``expected`` (exact, or within
    ``rel``/``abs_tol`` for numbers), ``one_of`` (membership) or ``predicate``.
    """
    if _is_blank(value):
        print(f"{question} {WAIT} not answered yet")
        return False
    ok, why = _judge(value, expected, rel, abs_tol, one_of, predicate)
    if ok:
        print(f"{question} {TICK} correct")
    else:
        extra = f" Hint: {hint}" if hint else ""
        print(f"{question} {CROSS} not right yet{why}.{extra}")
    return ok


def _judge(value, expected, rel, abs_tol, one_of, predicate) -> tuple[bool, str]:
    if predicate is not None:
        try:
            return bool(predicate(value)), ""
        except Exception:  # a student's odd value must not crash the check
            return False, " (the answer has the wrong type or shape)"
    if one_of is not None:
        options = list(one_of)
        if isinstance(value, str):
            norm = value.strip().lower()
            return norm in [str(o).strip().lower() for o in options], ""
        return value in options, ""
    if rel is not None or abs_tol is not None:
        x, e = _number(value), _number(expected)
        if x is None:
            return False, " (expected a number)"
        if e is None:
            raise ValueError("a tolerance check needs a numeric expected value")
        tol = max(abs_tol or 0.0, (rel or 0.0) * abs(e))
        if abs(x - e) <= tol:
            return True, ""
        return False, " (too high)" if x > e else " (too low)"
    if isinstance(expected, float) or isinstance(value, float):
        x, e = _number(value), _number(expected)
        if x is None:
            return False, " (expected a number)"
        return math.isclose(x, e, rel_tol=1e-9, abs_tol=1e-12), ""
    if isinstance(expected, str) and isinstance(value, str):
        return value.strip().lower() == expected.strip().lower(), ""
    return value == expected, ""
