"""The host: the block layer and Linux scheduler queues (``host``), read-ahead, the dispatch set,
the controller cache, arrays, stream ports and the host-side I/O paths (``io``).

``from simcore.host import BlockLayer`` keeps working: names not found here come, on first use,
from :mod:`simcore.host.host` (imported lazily).
"""


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib

    module = importlib.import_module(f"{__name__}.host")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
