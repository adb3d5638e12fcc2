"""How many answers two students share: the measure of how much a friend's notebook is worth.

For every pair of students, a question is *shared* when one student's key answer would earn
the points under the other's variant (the same rule the grader applies). A question judged by
a measurement (:mod:`simcore.labkit.judges`) is shared when one student's measurement would
pass under the other's variant: when their references lie within the judge's tolerance of
each other (with no reference, a borrowed measurement passes for anyone: always shared). Reports, over all
pairs, the mean and largest share of points, and per question how often it is shared, so an
instructor sees which questions need more variety (the review found one answer the same for
everyone and a friend's notebook worth 6 of 11 points under the old variants).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from . import answers


def _same_drive(ra, rb, spec: dict) -> bool:
    """Whether a measurement that passes under reference ``ra`` passes under ``rb`` too."""
    if isinstance(ra, dict) and isinstance(rb, dict):
        if ra.get("uri_has", "") != rb.get("uri_has", ""):
            return False  # the report names the drive it measured
        ra, rb = ra.get("value"), rb.get("value")
    if ra is None or rb is None:
        return True  # nothing ties the measurement to a variant
    return answers.compare(rb, ra, answers.Rule(float(spec.get("reference_rel", 0.0)),
                                                float(spec.get("reference_abs", 0.0))))[0]


def shared_answers(key_path: str | Path, ids: Sequence[str], secret: bytes) -> dict:
    """Overlap statistics of the key's answers over ``ids`` (needs the instructor secret)."""
    from .grade import Key, reference_name

    key = Key(key_path, secret)
    try:
        exp = {sid: key.expected(sid) for sid in ids}
    finally:
        key.close()
    pts = key.max
    total = sum(pts.values())
    per_q = {q: 0 for q in pts}
    shares = []
    pairs = 0
    for a, b in itertools.combinations(ids, 2):
        pairs += 1
        got = 0.0
        for q in pts:
            spec = key.spec[q].judge
            if spec:
                ra, rb = exp[a].get(reference_name(q)), exp[b].get(reference_name(q))
                ok = _same_drive(ra, rb, spec)
            else:
                ok, _ = answers.compare(exp[b][q], exp[a][q], key.rules[q])
            if ok:
                per_q[q] += 1
                got += pts[q]
        shares.append(got / total if total else 0.0)
    shares.sort()
    return {
        "lab": key.lab, "students": len(ids), "pairs": pairs, "points": total,
        "mean_shared_fraction": sum(shares) / max(pairs, 1),
        "median_shared_fraction": shares[len(shares) // 2] if shares else 0.0,
        "max_shared_fraction": shares[-1] if shares else 0.0,
        "per_question_shared_fraction": {q: n / max(pairs, 1) for q, n in per_q.items()},
        "distinct_answers": {q: len({repr(exp[s].get(reference_name(q), exp[s][q]))
                                     for s in ids}) for q in pts},
    }
