"""The host: the block layer and Linux scheduler queues (``host``), read-ahead, the dispatch set,
the controller cache, arrays, stream ports and the host-side I/O paths (``io``).

``from simcore.host import BlockLayer`` keeps working: names not found here come, on first use,
from :mod:`simcore.host.host` (imported lazily).
"""


from .._moved import reexport

__getattr__ = reexport(__name__, "host")
