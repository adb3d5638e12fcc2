"""Tools for the labs: answer checks, student versions, variants and grading."""

from .check import check, variant_seed

__all__ = ["check", "variant_seed"]
