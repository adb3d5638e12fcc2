"""The lab check for a mystery-disk measurement (Lab 1, q9).

A student answers with ``{"token": ..., "outer_mb_s": ...}``; the check
compares the number with the token's drive (:mod:`simcore.serve.mystery`)
within the tolerance the measurement allows, and, given the instructor's
secret, refuses a token that is not the student's own.
"""

from __future__ import annotations

from typing import Any

from ..serve.mystery import DEMO, TOLERANCES, token, truth
from .check import check


def check_answer(question: str, answer: Any, key: str = "outer_mb_s",
                 student_id: str | None = None, secret: bytes | None = None):
    """A lab check: ``answer`` is ``{"token": ..., key: value}``; prints one line.

    With the instructor's ``secret`` and the ``student_id``, a token that is
    not the student's own is judged wrong.
    """
    if not isinstance(answer, dict) or "token" not in answer:
        return check(question, answer, predicate=lambda v: False,
                     hint='answer with a dict: {"token": your token, "' + key + '": value}')
    tok = str(answer["token"])
    demo = tok == DEMO and student_id == DEMO  # the stored key's own answer
    if secret is not None and student_id is not None and not demo \
            and tok != token(secret, student_id):
        return check(question, answer, predicate=lambda v: False,
                     hint="that token is not the one your instructor gave you")
    value = answer.get(key)
    return check(question, value, truth(tok)[key], rel=TOLERANCES[key][1],
                 hint=f"measure the {TOLERANCES[key][0]}")
