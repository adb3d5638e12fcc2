"""Moved: this module is now :mod:`simcore.labkit.compare` (issue 14 part 2).

``hardware/`` measures real disks and never imports simcore, so comparing a recording
with its simulated twin lives in simcore's labkit. Importing the old name fails with
a message that says where to go, rather than quietly pulling simcore in.
"""

raise ImportError(
    "hardware.compare has moved to simcore.labkit.compare (hardware never imports "
    "simcore): write `from simcore.labkit import compare`, and run "
    "`python -m simcore compare RECORD --disk PROFILE` instead of `python -m hardware compare`"
)
