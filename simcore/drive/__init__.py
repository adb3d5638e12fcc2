"""The drive: its firmware process (``drive``), segmented cache, interface and bus, channel, CPU
cost and rare firmware events.

``from simcore.drive import Drive`` keeps working: names not found here come, on first use, from
:mod:`simcore.drive.drive` (imported lazily, so that ``simcore.drive.cache`` and the other
lower-layer modules load without the drive process).
"""


from .._moved import reexport

__getattr__ = reexport(__name__, "drive")
