"""Tools for the labs: answer checks, student versions, variants and grading.

In a lab notebook: :func:`check` (and :func:`self_check` beside a hidden
check), :func:`variant_seed`, :func:`variant_rng` and :func:`pick`. The
instructor's side (student versions, grading) lives in
:mod:`simcore.labkit.student` and :mod:`simcore.labkit.grade`, behind
``python -m simcore student`` and ``python -m simcore grade``.
"""

from .check import Verdict, check, self_check, variant_seed
from .variants import pick, variant_rng

__all__ = ["Verdict", "check", "pick", "self_check", "variant_rng", "variant_seed"]

# lab figures drawn by hand get the book's look (plotly's default template becomes "disklab")
from ..viz.theme import use_theme as _use_theme

_use_theme()
