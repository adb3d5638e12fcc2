"""Where the model stops: a small SSD, for contrast with the disk.

An SSD has no arm and no platter: reading a page costs the same wherever it is, so the
placement rules of the rest of the book (outer zones, organ pipes, short seeks) buy nothing.
What it has instead is flash that cannot be overwritten in place: pages are programmed once
and erased a whole block at a time, so a flash translation layer (FTL) writes every update
somewhere new, and garbage collection copies the still-valid pages out of a block before it
erases it. Those copies are *write amplification*. This package models just enough to show
both: :mod:`.ftl` (page-level mapping, greedy or FIFO garbage collection, over-provisioning)
and :mod:`.timing` (page and block times, and an SSD's service time beside a disk's). It is a
contrast, not an SSD simulator: one die, no channels, no write buffer, no wear levelling.
"""

from .ftl import FlashGeometry, PageFTL, greedy_bound, lrw_write_amplification, steady_state_wa
from .timing import AGRAWAL_2008, FlashTiming

__all__ = ["AGRAWAL_2008", "FlashGeometry", "FlashTiming", "PageFTL", "greedy_bound",
           "lrw_write_amplification", "steady_state_wa"]
