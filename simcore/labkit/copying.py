"""Wrong answers that are a classmate's right ones: evidence of copied numbers, for the instructor.

Every student answers their own variant (HMAC of the secret and the id), so a number typed
from a friend's notebook is wrong under the copier's variant but right under the friend's.
After a class is graded, each wrong answer is held against the key's answers of the *other*
students graded in the same run, with the question's own rule (:func:`answers.compare`, the
grader's comparison). A match is a :class:`Match`: the student, the question, the classmates
whose variant the answer fits.

A match counts only when it could hardly be chance:

- the classmate's value must not also fit the student's own key value under the rule: there
  the two variants share the answer (:mod:`simcore.labkit.overlap` measures how often), so a
  number near it says nothing about where it came from;
- the answer must fit the variants of few classmates: at most :data:`MAX_SHARE` of the others
  graded (and at least one). A question with a handful of possible answers (one of four
  words, a small count) makes almost any wrong answer some classmate's right one;
- questions judged by a measurement (:mod:`simcore.labkit.judges`) are left out: their judge
  already refuses a classmate's measurement, and their key value is no typed number.

A student is *flagged* with a classmate only when at least :data:`MIN_QUESTIONS` of the
student's wrong answers fit that same classmate's variant. One match is what an honest slip
can produce: a whole revolution where half of one was asked, at 7,200 RPM, is the right answer
at 3,600 RPM. Two independent slips landing on the same classmate are far less likely, and a
copier who typed in a friend's numbers matches on every question whose variants differ.

The flag goes to the instructor only (``grades.csv``'s flags, ``<out>_copying.csv``, the
summary); a student's feedback never names another student. It is evidence for a conversation,
not proof: a shared mistake, a study group's worked example or a slip on two questions can
produce it too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from . import answers


class Key(Protocol):
    """What this module reads of :class:`simcore.labkit.grade.Key` (a protocol, so that
    grade, which calls this module, is not imported back: no import cycle)."""

    info: Any  # .questions: the lab's question names, in order
    spec: Mapping[str, Any]  # question -> its spec (.judge: judged by a measurement)
    rules: Mapping[str, answers.Rule]


class Result(Protocol):
    """What this module reads and writes of :class:`simcore.labkit.grade.Result`."""

    student_id: str
    path: str
    received: Mapping[str, dict]
    flagged: list[str]
    copy_matches: dict[str, list[str]]

MIN_QUESTIONS = 2  # wrong answers that fit the same classmate's variant before a pair is flagged
MAX_SHARE = 0.02  # a match counts if it fits at most this share of the other students (>= 1)
FLAG = "wrong answers fit the variant of "  # how a flag in Result.flagged starts


@dataclass(frozen=True)
class Match:
    """One wrong answer that fits the variants of other students graded in the same run."""

    student: str
    path: str
    question: str
    others: tuple[str, ...]  # their ids, sorted


def _fits(expected: Any, got: Any, rule: answers.Rule) -> bool:
    try:
        return answers.compare(expected, got, rule)[0]
    except TypeError:  # a key value that is not plain data: nothing to compare
        return False


def _same_answer(a: Any, b: Any, rule: answers.Rule) -> bool:
    """Whether two variants' key answers would earn each other the points (either way)."""
    return _fits(a, b, rule) or _fits(b, a, rule)


def find(key: Key, results: Sequence[Result], expected: Mapping[str, dict]) -> list[Match]:
    """Every counted match of the class (see the module's rules), in the results' order.

    ``expected``: the key's plain answers per student id (casefolded), for the students whose
    variant was computed in this run; the others are neither checked nor named.
    """
    ids = {r.student_id.strip().casefold(): r.student_id for r in results}
    known = {sid: expected[sid] for sid in ids if sid in expected}
    found = []
    for r in results:
        me = r.student_id.strip().casefold()
        own = known.get(me)
        if own is None:
            continue
        others = [s for s in known if s != me]
        most = max(1, math.floor(MAX_SHARE * len(others)))
        for q in key.info.questions:
            got = r.received.get(q, {})
            if (key.spec[q].judge or not got.get("present") or q not in own
                    or _fits(own[q], got.get("value"), key.rules[q])):
                continue  # measured, unanswered or right: no evidence either way
            fit = sorted(ids[s] for s in others if q in known[s]
                         and _fits(known[s][q], got["value"], key.rules[q])
                         and not _same_answer(known[s][q], own[q], key.rules[q]))
            if fit and len(fit) <= most:
                found.append(Match(r.student_id, r.path, q, tuple(fit)))
    return found


def pairs(found: Sequence[Match]) -> dict[tuple[str, str], dict[str, list[str]]]:
    """Per submission (student, path): each classmate with the questions that fit their
    variant, for the pairs with at least :data:`MIN_QUESTIONS` of them."""
    by: dict[tuple[str, str], dict[str, list[str]]] = {}
    for m in found:
        for o in m.others:
            by.setdefault((m.student, m.path), {}).setdefault(o, []).append(m.question)
    return {k: {o: qs for o, qs in v.items() if len(qs) >= MIN_QUESTIONS}
            for k, v in by.items() if any(len(qs) >= MIN_QUESTIONS for qs in v.values())}


def flag_text(other: str, questions: Sequence[str]) -> str:
    """The flag in ``grades.csv`` (no ';': the flags column joins flags with it)."""
    return f"{FLAG}{other} ({', '.join(questions)})"


def mark(key: Key, results: Sequence[Result], expected: Mapping[str, dict]) -> list[Match]:
    """Find the matches, store each submission's on it (``Result.copy_matches``) and flag the
    submissions with a pair (replacing flags an earlier call set); returns the matches."""
    found = find(key, results, expected)
    flagged = pairs(found)
    for r in results:
        r.flagged[:] = [f for f in r.flagged if not f.startswith(FLAG)]
        r.copy_matches = {m.question: list(m.others) for m in found
                          if m.student == r.student_id and m.path == r.path}
        for other, qs in sorted(flagged.get((r.student_id, r.path), {}).items()):
            r.flagged.append(flag_text(other, qs))
    return found


def flagged_with(r: Result) -> dict[str, list[str]]:
    """The classmates a submission is flagged with, and the questions that fit each one."""
    return pairs([Match(r.student_id, r.path, q, tuple(o))
                  for q, o in r.copy_matches.items()]).get((r.student_id, r.path), {})
