"""Answers across the sandbox wall: strict JSON out of the student's kernel, judged outside.

The grader never asks the student's kernel whether an answer is right. After
each question it runs one *export* cell in the sandbox that calls
:func:`emit`, which prints one line ``DISKLAB-ANSWER {"q": ..., "value": ...}``
holding the answer as strict JSON: ``None``, ``bool``, ``int``, ``float``,
``str``, and ``list``/``dict`` of those (dict keys are text). numpy scalars and
arrays become their plain values; a subclass of a plain type (an ``int`` whose
``==`` says yes to everything, a ``float`` that reads the grader's value) or any
other object is refused with a note that names the type. The line travels on
the kernel's output stream to nbval, which runs in the grader's process, so
nothing the notebook does later can rewrite it.

On the trusted side, :func:`parse` reads that line back (with ``json``, so
only plain data can come out of it whatever the kernel printed) and
:func:`compare` holds it against the key's value for the student's variant,
computed in the grader's own process. Like PrairieLearn's JSON boundary and
otter-grader's out-of-notebook tests (the anchors of
``../shared/reviews/grading.md``), the verdict never depends on an object the
student built.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MARK = "DISKLAB-ANSWER "
MAX_CHARS = 200_000
_PLAIN = (bool, int, float, str)


class NotPlain(TypeError):
    """An answer holds something other than plain JSON data."""


def to_plain(value: Any, where: str = "the answer", depth: int = 0) -> Any:
    """``value`` as plain JSON data, or :class:`NotPlain` naming what is wrong and where."""
    if depth > 20:
        raise NotPlain(f"{where} is nested more than 20 levels deep")
    if value is None or type(value) in _PLAIN:
        if type(value) is float and not math.isfinite(value):
            raise NotPlain(f"{where} is {value!r}, not a finite number")
        return value
    if type(value) is tuple or type(value) is list:
        return [to_plain(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(value)]
    if type(value) is dict:
        out = {}
        for k, x in value.items():
            if type(k) is not str:
                raise NotPlain(f"{where} has a key of type {type(k).__name__}; use text keys")
            out[k] = to_plain(x, f"{where}[{k!r}]", depth + 1)
        return out
    mod = type(value).__module__
    if mod == "numpy":
        import numpy as np

        if isinstance(value, np.ndarray) and type(value) is np.ndarray:
            return to_plain(value.tolist(), where, depth + 1)
        if isinstance(value, np.bool_ | np.integer | np.floating | np.str_):
            return to_plain(value.item(), where, depth + 1)
    for base in (bool, int, float, str, list, tuple, dict):
        if isinstance(value, base):
            raise NotPlain(f"{where} is a {type(value).__name__}, a subclass of {base.__name__}; "
                           f"give a plain {base.__name__}")
    raise NotPlain(f"{where} is a {type(value).__module__}.{type(value).__qualname__}; give a "
                   "number, text, True/False, or a list or dict of those")


def emit(question: str, thunk: Any) -> None:
    """Print the answer to ``question`` as one strict-JSON line (runs in the student's kernel).

    ``thunk`` is a function returning the answer, so a name that was never
    defined becomes "not answered" instead of an error.
    """
    record: dict[str, Any] = {"q": question}
    try:
        value = thunk()
    except NameError as exc:
        record["missing"] = f"{exc}"
    except Exception as exc:  # the export expression itself failed on the student's answer
        record["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    else:
        try:
            record["value"] = to_plain(value)
        except NotPlain as exc:
            record["refused"] = str(exc)
    text = json.dumps(record, allow_nan=False)
    if len(text) > MAX_CHARS:
        text = json.dumps({"q": question, "refused": "the answer is too large "
                           f"({len(text):,} characters as JSON)"})
    print(MARK + text, flush=True)


@dataclass(frozen=True)
class Received:
    """What the grader read back for one question."""

    present: bool
    value: Any = None
    problem: str = ""  # why there is no value: "not answered", a refusal, an error


def parse(stdout: str, question: str) -> Received:
    """The last answer line for ``question`` in a cell's output (parsed on the grader's side)."""
    found: Received | None = None
    for line in stdout.splitlines():
        if not line.startswith(MARK):
            continue
        try:
            rec = json.loads(line[len(MARK):], parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            continue
        if not isinstance(rec, dict) or rec.get("q") != question:
            continue
        if "value" in rec:
            found = (Received(False, problem="not answered (still None)")
                     if rec["value"] is None else Received(True, rec["value"]))
        elif "missing" in rec:
            found = Received(False, problem="not answered: the name is not defined")
        elif "refused" in rec:
            found = Received(False, problem=f"refused: {rec['refused']}")
        elif "error" in rec:
            found = Received(False, problem=f"could not be read: {rec['error']}")
    return found or Received(False, problem="no answer reached the grader (the cells before "
                                            "it stopped the notebook?)")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class Rule:
    """How a question is judged: tolerances for numbers, text matching, accepted alternatives."""

    rel: float = 0.0
    abs: float = 0.0
    one_of: tuple[Any, ...] = ()

    @classmethod
    def from_meta(cls, meta: dict, where: str = "") -> Rule:
        rel, abs_ = meta.get("rel", 0.0), meta.get("abs", 0.0)
        for name, v in (("rel", rel), ("abs", abs_)):
            if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
                raise ValueError(f"{where}: {name} must be a number >= 0 (got {v!r})")
        one_of = meta.get("one_of", [])
        if not isinstance(one_of, list):
            raise ValueError(f"{where}: one_of must be a list")
        return cls(float(rel), float(abs_), tuple(one_of))


def _num(x: Any) -> float | None:
    if type(x) in (int, float):
        return float(x)
    return None


def _norm_text(s: str) -> str:
    return " ".join(s.strip().casefold().split())


def compare(expected: Any, got: Any, rule: Rule) -> tuple[bool, str]:
    """Whether ``got`` (plain data) matches ``expected`` (plain data); a reason when it does not.

    Numbers match within ``max(abs, rel * |expected|)`` (a bool is not a number);
    text matches without case and surrounding blanks; lists match item by item
    and dicts key by key, with the same rule. The reason never contains the
    expected value, nor whether the answer is too high or too low.
    """
    if rule.one_of:
        options = [expected, *rule.one_of]
        return (any(compare(o, got, Rule(rule.rel, rule.abs))[0] for o in options),
                "not one of the accepted answers")
    if isinstance(expected, bool) or isinstance(got, bool):
        return _compare_bool(expected, got)
    e = _num(expected)
    if e is not None:
        return _compare_number(e, got, rule)
    if isinstance(expected, str):
        return _compare_text(expected, got)
    if isinstance(expected, list):
        return _compare_list(expected, got, rule)
    if isinstance(expected, dict):
        return _compare_dict(expected, got, rule)
    if expected is None:
        return got is None, "not right"
    raise TypeError(f"the key's answer is not plain data ({type(expected).__name__})")


def _compare_bool(expected: Any, got: Any) -> tuple[bool, str]:
    """:func:`compare` when either side is True/False (never equal to a number)."""
    if type(expected) is bool and type(got) is bool:
        return got == expected, "not right"
    return False, f"expected True or False, got {_kind(got)}" if isinstance(
        expected, bool) else f"expected {_kind(expected)}, got True/False"


def _compare_number(e: float, got: Any, rule: Rule) -> tuple[bool, str]:
    """:func:`compare` of a number ``e`` (the key's) within the rule's tolerance."""
    g = _num(got)
    if g is None:
        return False, f"expected a number, got {_kind(got)}"
    tol = max(rule.abs, rule.rel * abs(e))
    if tol == 0:
        ok = g == e or math.isclose(g, e, rel_tol=1e-9, abs_tol=1e-12)
    else:
        ok = abs(g - e) <= tol * (1 + 1e-12)
    return ok, "not within the tolerance" if rule.rel or rule.abs else "not right"


def _compare_text(expected: str, got: Any) -> tuple[bool, str]:
    """:func:`compare` of text, without case and surrounding blanks."""
    if not isinstance(got, str):
        return False, f"expected text, got {_kind(got)}"
    return _norm_text(got) == _norm_text(expected), "not right"


def _compare_list(expected: list, got: Any, rule: Rule) -> tuple[bool, str]:
    """:func:`compare` of a list, item by item; the reason names the first wrong item."""
    if not isinstance(got, list):
        return False, f"expected a list, got {_kind(got)}"
    if len(got) != len(expected):
        return False, f"a list of {len(got)} items: not the number of items asked for"
    for i, (x, y) in enumerate(zip(expected, got, strict=True)):
        ok, why = compare(x, y, rule)
        if not ok:
            return False, f"item {i}: {why}"
    return True, ""


def _compare_dict(expected: dict, got: Any, rule: Rule) -> tuple[bool, str]:
    """:func:`compare` of a dict, key by key; the reason names the first wrong key."""
    if not isinstance(got, dict):
        return False, f"expected a dict, got {_kind(got)}"
    if set(got) != set(expected):
        return False, f"expected the keys {sorted(expected)}, got {sorted(got)}"
    for k in expected:
        ok, why = compare(expected[k], got[k], rule)
        if not ok:
            return False, f"{k!r}: {why}"
    return True, ""


def _kind(x: Any) -> str:
    return {bool: "True/False", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "a dict", type(None): "None"}.get(type(x), type(x).__name__)
