"""Flash operation times, and what a read or a sustained random write costs an SSD.

Parameters: Agrawal et al., "Design Tradeoffs for SSD Performance", USENIX ATC 2008, Table 2
(a 2008 SLC part): page read to the register 25 us, page program 200 us, block erase 1.5 ms,
serial transfer of a 4 KB page over the flash bus 100 us, blocks of 64 pages of 4 KB
(:data:`AGRAWAL_2008`). Today's TLC parts are slower per operation (program times near a
millisecond) and far more parallel; the contrast with a disk holds either way: no term
depends on where the data is.

The model is one die with one bus, no parallelism and no write buffer:

* a read of ``p`` pages: ``p x (read + transfer)``, whatever the LBA and whatever was read
  before (no seek, no rotation);
* a sustained host write, per host page: its transfer and program, plus for each page that
  garbage collection copies (``WA - 1`` per host page) a read and a program inside the chip
  (copy-back, no bus), plus the erases (``erase / pages_per_block`` per freed page).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AGRAWAL_2008", "FlashTiming"]


@dataclass(frozen=True)
class FlashTiming:
    """Times of one flash die's operations, in microseconds; page size in KiB."""

    read_us: float = 25.0
    program_us: float = 200.0
    erase_us: float = 1500.0
    transfer_us: float = 100.0
    page_kib: float = 4.0
    pages_per_block: int = 64

    def read_ms(self, pages: int = 1) -> float:
        """A read of ``pages`` pages: the same anywhere on the drive."""
        return pages * (self.read_us + self.transfer_us) / 1000.0

    def host_page_write_ms(self, wa: float) -> float:
        """Time per host page written, sustained, at write amplification ``wa``.

        Each freed block took ``pages_per_block x (1 - u)`` host pages, where
        ``u = 1 - 1/wa`` of it was still valid, so erases per host page are
        ``wa / pages_per_block``.
        """
        if wa < 1:
            raise ValueError(f"write amplification is at least 1, got {wa}")
        copy = (wa - 1.0) * (self.read_us + self.program_us)
        erase = wa / self.pages_per_block * self.erase_us
        return (self.transfer_us + self.program_us + copy + erase) / 1000.0

    def random_write_mb_s(self, wa: float) -> float:
        """Sustained write rate (MB/s, 10^6 bytes) of one die at write amplification ``wa``."""
        return self.page_kib * 1024 / (self.host_page_write_ms(wa) * 1000.0)


AGRAWAL_2008 = FlashTiming()
