"""Answer checks for lab notebooks: one deterministic line per question.

A check prints a tick or a cross and a hint, or says the question is not
answered yet. It never prints the expected value, so a wrong answer reveals
nothing, and its output is what nbval compares against the key's stored line:

    q1 ✔ correct
    q1 ✘ not right yet (too high). Hint: half a revolution.
    q1 … not answered yet

A student's odd value (a list, a string, NaN, an object whose ``==`` raises)
gives a cross, never a traceback. A mistake of the lab's author (no
expectation given, a tolerance on a non-number) raises, so the key fails.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Iterable
from typing import Any

TICK, CROSS, WAIT = "✔", "✘", "…"


def variant_root(student_id: str, lab: str, secret: bytes | str | None = None) -> bytes:
    """The root of a student's variant (32 bytes): kept by the grader, never handed out.

    With the instructor's ``secret`` it is HMAC-SHA256(secret, "lab:id"), so
    nobody without the secret can compute it. Without a secret (the public
    ``demo`` variant, practice at home) it is SHA-256 of "lab:id", which anyone
    can compute. The id is compared without surrounding blanks and case
    (``" Alice"`` and ``"alice"`` get the same variant), so a file name and a
    typed id agree.
    """
    sid = str(student_id).strip().casefold()
    message = f"{lab}:{sid}".encode()
    if secret is None:
        return hashlib.sha256(message).digest()
    key = secret.encode() if isinstance(secret, str) else bytes(secret)
    if not key:
        raise ValueError("the instructor secret is empty")
    return hmac.new(key, message, hashlib.sha256).digest()


PUBLIC_SEED = b"disklab public workload seed\x00"


def variant_seed(student_id: str, lab: str, secret: bytes | str | None = None) -> int:
    """A student's public workload seed: all the student needs, and one-way from the root.

    Every public parameter of the variant (the disk, the numbers of every
    question, the mystery disk's token) is drawn from this seed by the lab's own
    code, and the personal handout carries exactly this number. With a secret it
    is a domain-separated hash of the HMAC root (:func:`variant_root`), so the
    handout reveals neither the root nor anything a grader derives from the root
    by another route; the seed of a classmate cannot be computed from a name. The
    public ``demo`` variant keeps the plain SHA-256 of "lab:id" (its root is
    public anyway), so the stored keys run the same variant they always did.
    """
    root = variant_root(student_id, lab, secret)
    if secret is None:
        return int.from_bytes(root[:4], "big")
    return int.from_bytes(hashlib.sha256(PUBLIC_SEED + root).digest()[:4], "big")


class Verdict:
    """The result of a check: true when the answer is right.

    It behaves as a bool (``if check(...)``, ``assert check(...)``,
    ``check(...) == True``) but shows nothing when it is the last expression
    of a cell, so a check cell's output is exactly the one printed line.
    """

    __slots__ = ("ok", "question")

    def __init__(self, question: str, ok: bool):
        self.question, self.ok = question, bool(ok)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Verdict):
            return self.ok == other.ok
        if isinstance(other, bool):
            return self.ok == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return f"Verdict({self.question!r}, {'correct' if self.ok else 'not correct'})"

    def _ipython_display_(self) -> None:  # the printed line is the whole output
        return None


def _is_blank(value: Any) -> bool:
    return value is None or value is Ellipsis


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def _truth(thunk: Callable[[], Any]) -> bool:
    """``bool(thunk())``, with any error (arrays, odd ``__eq__``) counted as false."""
    try:
        return bool(thunk())
    except Exception:
        return False


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
) -> Verdict:
    """Print one line judging ``value`` and return whether it is right.

    Give exactly one kind of expectation: ``expected`` (exact, or within
    ``rel``/``abs_tol`` for numbers), ``one_of`` (membership) or ``predicate``.
    Strings are compared without surrounding blanks and case.
    """
    kinds = sum(x is not None for x in (expected, one_of, predicate))
    if kinds != 1:
        raise ValueError(
            f"check({question!r}): give exactly one of expected=, one_of= or predicate= "
            f"(got {kinds})"
        )
    if (rel is not None or abs_tol is not None) and expected is None:
        raise ValueError(f"check({question!r}): rel=/abs_tol= need a numeric expected=")
    if _is_blank(value):
        print(f"{question} {WAIT} not answered yet", flush=True)
        return Verdict(question, False)
    ok, why = _judge(question, value, expected, rel, abs_tol, one_of, predicate)
    if ok:
        print(f"{question} {TICK} correct", flush=True)
    else:
        extra = f" Hint: {hint}" if hint else ""
        print(f"{question} {CROSS} not right yet{why}.{extra}", flush=True)
    return Verdict(question, ok)


def _judge(question, value, expected, rel, abs_tol, one_of, predicate) -> tuple[bool, str]:
    if predicate is not None:
        try:
            return bool(predicate(value)), ""
        except Exception:  # a student's odd value must not crash the check
            return False, " (the answer has the wrong type or shape)"
    if one_of is not None:
        options = list(one_of)
        if isinstance(value, str):
            norm = value.strip().casefold()
            return norm in [str(o).strip().casefold() for o in options], ""
        return any(_truth(lambda o=o: value == o) for o in options), ""
    if rel is not None or abs_tol is not None:
        e = _number(expected)
        if e is None:
            raise ValueError(f"check({question!r}): a tolerance check needs a numeric expected value")
        x = _number(value)
        if x is None:
            return False, " (expected a finite number)"
        tol = max(abs_tol or 0.0, (rel or 0.0) * abs(e))
        if abs(x - e) <= tol:
            return True, ""
        return False, " (too high)" if x > e else " (too low)"
    if isinstance(expected, float) or (isinstance(value, float) and _number(expected) is not None):
        x, e = _number(value), _number(expected)
        if x is None:
            return False, " (expected a finite number)"
        if e is None:
            raise ValueError(f"check({question!r}): expected is not a finite number")
        return math.isclose(x, e, rel_tol=1e-9, abs_tol=1e-12), ""
    if isinstance(expected, str):
        if not isinstance(value, str):
            return False, " (expected text)"
        return value.strip().casefold() == expected.strip().casefold(), ""
    return _truth(lambda: value == expected), ""


def self_check(question: str, value: Any, predicate: Callable[[Any], bool], *,
               hint: str = "") -> Verdict:
    """A visible check that only tests the form of an answer (its value is graded in secret).

    Prints ``q7 ✔ has the right form (the grader checks the value)``, a cross
    with the hint, or ``not answered yet``. Use it beside a hidden check cell.
    """
    if _is_blank(value):
        print(f"{question} {WAIT} not answered yet", flush=True)
        return Verdict(question, False)
    try:
        ok = bool(predicate(value))
    except Exception:
        ok = False
    if ok:
        print(f"{question} {TICK} has the right form (the grader checks the value)", flush=True)
    else:
        extra = f" Hint: {hint}" if hint else ""
        print(f"{question} {CROSS} does not have the right form yet.{extra}", flush=True)
    return Verdict(question, ok)
