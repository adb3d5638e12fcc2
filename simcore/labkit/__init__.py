"""Tools for the labs: self-checks, variants, student versions, sandboxed grading.

In a lab notebook: :func:`self_check` (the visible check of an answer's form),
:func:`variant_seed`, :func:`variant_rng` and :func:`pick`. :func:`check` still
compares a value with an expected one, for exercises outside graded labs. The
instructor's side lives in :mod:`simcore.labkit.student` (student versions and
personal handouts), :mod:`simcore.labkit.grade` (nbval in a sandbox,
:mod:`simcore.labkit.sandbox`; answers as strict JSON,
:mod:`simcore.labkit.answers`; judged in the grader's process) and
:mod:`simcore.labkit.report` (gradebooks, feedback, summary, regrade; wrong answers that
fit a classmate's variant flagged for the instructor, :mod:`simcore.labkit.copying`), behind
``python -m simcore student``, ``grade``, ``secret`` and ``variants``.
"""

from .check import Verdict, check, self_check, variant_seed
from .variants import pick, variant_rng

__all__ = ["Verdict", "check", "pick", "self_check", "variant_rng", "variant_seed"]

# lab figures drawn by hand get the book's look (plotly's default template becomes "disklab")
from ..viz.theme import use_theme as _use_theme

_use_theme()
