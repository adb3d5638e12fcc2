"""The homework's questions on a simcore drive profile, through simcore's mechanics.

A request is one 512-byte sector at an LBA; the arm's "track" (for SSTF) is its
cylinder; the estimate SATF ranks by is the whole mechanical service time
(seek, rotational wait, transfer) that :meth:`simcore.disk.access.Mechanism.access`
gives from the head's state now, rounded to
:data:`~simcore.disk.mechanics.TIME_RESOLUTION_MS` so that ties are ties. Like
OSTEP's homework disk, the bare mechanism serves one request at a time with no
firmware overhead and no cache: the questions are about seek and rotation.

:func:`ostep_profile` is the homework's own disk as a simcore profile (the toy
disk with the head starting halfway through sector 6, track skew as ``-o``), so
``--disk ostep`` answers through the same mechanics as ``--disk atlas10k``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ..disk.access import HeadState, Mechanism
from ..disk.mechanics import exact_ms
from ..disk.profile import DiskProfile, SeekSpec
from ..disk.profile_loader import load_disk
from .toy import START_ANGLE_OF_SECTOR_ZERO, TRACK_DISTANCE, Service


def ostep_profile(skew: int = 0, seek_speed: Fraction = Fraction(1),
                  rotate_speed: Fraction = Fraction(1), spacing: int = 30) -> DiskProfile:
    """OSTEP's homework disk as a simcore profile: one tick is one ms.

    Sector ``k``'s centre sits ``180 + spacing x k`` degrees from the head at t = 0,
    so its start is ``180 - spacing / 2`` degrees on: the profile's initial angle
    puts the index mark there. Needs ``spacing`` to divide 360 (simcore's tracks
    hold whole sectors).
    """
    if spacing <= 0 or 360 % spacing:
        raise ValueError(f"-z {spacing}: simcore's layout needs sectors that fill the track "
                         f"(an angle dividing 360) and the same angle on every track")
    toy = load_disk("toy")
    zone = replace(toy.zones[0], sectors_per_track=360 // spacing, cylinder_skew=int(skew))
    rev_ms = Fraction(360) / rotate_speed
    phase = (Fraction(START_ANGLE_OF_SECTOR_ZERO) + Fraction(spacing, 2)) / 360
    return replace(
        toy, id="ostep", name="OSTEP homework disk (3 tracks)", zones=(zone,),
        rpm=float(60_000 / rev_ms), initial_angle=float(phase % 1),
        seek=SeekSpec(model="linear", per_cylinder_ms=float(TRACK_DISTANCE / seek_speed)),
        notes="Built by simcore.homework for `homework disk --disk ostep`.")


class MechanismDisk:
    """A simcore drive as the homework queue's disk model (times in ms)."""

    def __init__(self, profile: DiskProfile):
        self.profile = profile
        self.mech = Mechanism(profile)
        self.head = HeadState(profile.initial_cylinder, 0)
        self.now = 0.0

    @property
    def capacity(self) -> int:
        return self.mech.layout.capacity

    @property
    def track(self) -> int:
        return self.head.cylinder

    def check(self, lba: int) -> None:
        if not 0 <= lba < self.capacity:
            raise ValueError(f"LBA {lba} is not on {self.profile.id} "
                             f"(LBAs are 0..{self.capacity - 1})")

    def track_of(self, lba: int) -> int:
        return self.mech.layout.cylinder_of(lba)

    def estimate(self, lba: int) -> float:
        a = self.mech.access(lba, 1, False, self.now, self.head)
        return exact_ms(a.end_ms - self.now)

    def serve(self, lba: int) -> Service:
        a = self.mech.access(lba, 1, False, self.now, self.head)
        total = a.end_ms - self.now
        self.now = a.end_ms
        self.head = HeadState(a.cylinder, a.surface)
        return Service(a.seek_ms, a.rotation_ms, total - a.seek_ms - a.rotation_ms)
