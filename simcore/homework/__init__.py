"""Front ends for instructors who teach from OSTEP's homework simulators.

``python -m simcore homework disk`` takes the options of the disk homework of
*Operating Systems: Three Easy Pieces* (``file-disks/disk.py`` in
remzi-arpacidusseau/ostep-homework) and prints the same request lists, per-request
table and totals. It is our own code: an exact model of that three-track disk
(:mod:`.toy`), its queue and policies (:mod:`.queue`), its random request recipe
(:mod:`.requests`), and the same questions on any simcore drive profile through
simcore's mechanics (:mod:`.mechanism_disk`, ``--disk atlas10k``).

Layer: teaching (it uses the model layers and is used by the command line only).
"""

from .disk import DiskHomework, Solution, report, solve
from .mechanism_disk import MechanismDisk, ostep_profile
from .queue import POLICIES, Row, run_queue
from .toy import Service, ToyDisk, ToyGeometry

__all__ = ["POLICIES", "DiskHomework", "MechanismDisk", "Row", "Service", "Solution",
           "ToyDisk", "ToyGeometry", "ostep_profile", "report", "run_queue", "solve"]
