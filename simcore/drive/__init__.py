"""The drive: its firmware process (``drive``), segmented cache, interface and bus, channel, CPU
cost and rare firmware events.

``from simcore.drive import Drive`` keeps working: names not found here come, on first use, from
:mod:`simcore.drive.drive` (imported lazily, so that ``simcore.drive.cache`` and the other
lower-layer modules load without the drive process).
"""


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib

    module = importlib.import_module(f"{__name__}.drive")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
