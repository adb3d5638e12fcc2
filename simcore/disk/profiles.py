"""Moved: the profile loader is now :mod:`simcore.disk.profile_loader`.

The two names ``profile`` and ``profiles`` differed by one letter and hid their jobs
(code review §4): :mod:`simcore.disk.profile` holds the records (``DiskProfile``, ``Zone``,
...), :mod:`simcore.disk.profile_loader` reads and validates the TOML files into them. This
shim keeps ``simcore.disk.profiles`` importing for notebooks and scripts written against it
(STYLE item 14): the old name is bound to the new module itself, so both names share one
module object (monkeypatching and module state behave as one). New code imports
:mod:`simcore.disk.profile_loader`.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("simcore.disk.profile_loader")
