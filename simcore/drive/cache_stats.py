"""The drive cache's counters: hits, misses, read-ahead and destage work, lost revolutions.

:class:`CacheStats` (mixed into :class:`~simcore.drive.cache.SegmentCache`) gives
``cache.stats``, a :class:`~collections.Counter` keyed by what was counted (``hits``,
``misses``, ``read_ahead_sectors``, ``destages``, ``lost_revolutions``,
``read_ahead_held_revolutions``...). The cache's code counts into a plain dict on the hot
path; :attr:`CacheStats.stats` folds it into the Counter when asked.
"""

from __future__ import annotations

from collections import Counter, defaultdict

__all__ = ["CacheStats"]


class CacheStats:
    """What a :class:`~simcore.drive.cache.SegmentCache` counted (a mixin)."""

    def _init_stats(self) -> None:
        self._stats: Counter = Counter()
        # what the cache counts goes here first: a Counter's item assignment is slow (its
        # ``__delitem__``, written in Python, takes the slot item assignment shares, so every
        # ``+=`` calls back into Python) and a read makes several counts; :attr:`stats` adds
        # them up, in the order they were first made, so it holds the same Counter
        self._counts: defaultdict[str, int] = defaultdict(int)

    @property
    def stats(self) -> Counter:
        """What the cache counted (hits, misses, read-ahead and destage work, lost
        revolutions...): a Counter, which callers may add to."""
        counts = self._counts
        if counts:
            stats = self._stats
            for key, n in counts.items():
                stats[key] += n
            counts.clear()
        return self._stats
