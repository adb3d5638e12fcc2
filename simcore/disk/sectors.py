"""Advanced Format: 4096-byte physical sectors behind 512-byte (512e) or 4096-byte (4Kn) blocks.

Since 2011 a new desktop or laptop drive platform records 4096-byte physical sectors, each with
one larger error-correcting code, instead of eight 512-byte ones: the IDEMA Long Data Sector
standard, called *Advanced Format* (IDEMA; Western Digital, *Advanced Format White Paper*, 2018).
A drive tells the host both sizes (ATA IDENTIFY DEVICE word 106, SCSI READ CAPACITY(16); Linux
shows them as ``logical_block_size`` and ``physical_block_size``):

``512n``  512-byte logical blocks on 512-byte physical sectors (the drives of the seeds);
``512e``  512-byte logical blocks emulated on 4096-byte physical sectors: any I/O is accepted,
          but a write that covers only part of a physical sector makes the drive *read* that
          sector, merge the new bytes in its buffer and *write* the whole sector back. The
          sector has just passed under the head when it was read, so the write waits for it
          to come round again: a read-modify-write costs about one more revolution;
``4Kn``   4096-byte logical blocks: I/O that does not cover whole 4096-byte blocks is refused.

Reads are unaffected on 512e: the drive reads the whole physical sector and returns the part
asked for, in the same turn of the platter.

simcore keeps its unit, the 512-byte sector, everywhere; a format only decides which groups of
``physical_sector_bytes / 512`` sectors form a physical sector (starting at the profile's
``lowest_aligned_lba``) and what a write that splits one costs. The cost itself is computed by
:meth:`simcore.disk.access.Mechanism.access` (and ``plan``): the partial physical sectors at the
write's ends are read, then the whole span of physical sectors is written, each phase with the
ordinary seek, rotation and transfer arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ..errors import AlignmentError
from .profile import DiskProfile

FormatName = Literal["512n", "512e", "4Kn"]
LOGICAL_SECTOR = 512  # simcore's unit: every LBA and size is in 512-byte sectors


@dataclass(frozen=True)
class SectorFormat:
    """A drive's logical and physical sector sizes and where its physical sectors start."""

    logical_bytes: int = 512
    physical_bytes: int = 512
    lowest_aligned_lba: int = 0

    @classmethod
    def of(cls, profile: DiskProfile) -> SectorFormat:
        return cls(profile.logical_sector_bytes, profile.physical_sector_bytes,
                   profile.lowest_aligned_lba)

    @property
    def ratio(self) -> int:
        """512-byte sectors per physical sector (8 on Advanced Format drives)."""
        return self.physical_bytes // LOGICAL_SECTOR

    @property
    def block(self) -> int:
        """512-byte sectors per logical block (1, or 8 on a 4Kn drive)."""
        return self.logical_bytes // LOGICAL_SECTOR

    @property
    def name(self) -> str:
        if self.physical_bytes == self.logical_bytes:
            return "512n" if self.logical_bytes == 512 else f"{self.logical_bytes // 1024}Kn"
        return "512e" if self.physical_bytes == 4096 else f"512 on {self.physical_bytes}"

    @property
    def plain(self) -> bool:
        """True for 512n: nothing to do."""
        return self.ratio == 1

    def physical_start(self, lba: int) -> int:
        """First LBA of the physical sector holding ``lba``."""
        r, a = self.ratio, self.lowest_aligned_lba
        return max(0, a + (lba - a) // r * r)

    def extent(self, lba: int, sectors: int) -> tuple[int, int]:
        """The whole physical sectors a request touches: ``[first LBA, end LBA)``."""
        r, a = self.ratio, self.lowest_aligned_lba
        end = lba + sectors
        return self.physical_start(lba), a + -((a - end) // r) * r

    def is_aligned(self, lba: int, sectors: int) -> bool:
        """True when the request covers whole physical sectors."""
        p0, p1 = self.extent(lba, sectors)
        return p0 == lba and p1 == lba + sectors

    def partial_reads(self, lba: int, sectors: int) -> list[tuple[int, int]]:
        """The ``(lba, sectors)`` reads a 512e write needs before it can write whole sectors.

        One read per partial physical sector at the write's two ends; one read when both ends
        lie in the same or in adjacent physical sectors; none for an aligned write.
        """
        r = self.ratio
        p0, p1 = self.extent(lba, sectors)
        head, tail = lba != p0, lba + sectors != p1
        if not head and not tail:
            return []
        if p1 - p0 <= 2 * r and head and tail:
            return [(p0, p1 - p0)]
        reads = []
        if head:
            reads.append((p0, r))
        if tail:
            reads.append((p1 - r, r))
        return reads

    def check(self, lba: int, sectors: int, drive: str = "the drive") -> None:
        """Raise :class:`AlignmentError` for I/O a drive with large logical blocks refuses."""
        b = self.block
        if b > 1 and (lba % b or sectors % b):
            raise AlignmentError(
                f"{drive} is a {self.name} drive ({self.logical_bytes}-byte logical blocks): a "
                f"request must start and end on a {self.logical_bytes}-byte boundary, i.e. its "
                f"LBA and length in 512-byte sectors must be multiples of {b}; got LBA {lba}, "
                f"{sectors} sectors (byte offset {lba * LOGICAL_SECTOR}, "
                f"{sectors * LOGICAL_SECTOR} bytes). Align the partition and the I/O size to "
                f"{self.logical_bytes} bytes.")


def with_format(profile: DiskProfile, name: FormatName, lowest_aligned_lba: int = 0
                ) -> DiskProfile:
    """The same drive formatted as ``512n``, ``512e`` or ``4Kn`` (drives are sold in all three).

    Every track must hold whole physical sectors: a profile whose sectors per track are not a
    multiple of 8 cannot become Advanced Format (the error names the zone).
    """
    sizes = {"512n": (512, 512), "512e": (512, 4096), "4Kn": (4096, 4096)}
    if name not in sizes:
        raise ValueError(f"format {name!r} is not one of {', '.join(sizes)}")
    logical, physical = sizes[name]
    ratio = physical // LOGICAL_SECTOR
    if lowest_aligned_lba and (name != "512e" or not 0 <= lowest_aligned_lba < ratio):
        raise ValueError(f"lowest_aligned_lba {lowest_aligned_lba} must be in 0..{ratio - 1} "
                         "and only on a 512e drive")
    for i, z in enumerate(profile.zones):
        if z.sectors_per_track % ratio:
            raise ValueError(f"{profile.id}: geometry.zones[{i}].sectors_per_track "
                             f"{z.sectors_per_track} is not a multiple of {ratio}: its tracks "
                             f"cannot hold whole {physical}-byte sectors")
    return replace(profile, id=f"{profile.id}-{name.lower()}",
                   name=f"{profile.name} ({name})", logical_sector_bytes=logical,
                   physical_sector_bytes=physical, lowest_aligned_lba=lowest_aligned_lba)
