"""Sequential-stream detection in the drive, and the adaptive segmentation it drives.

Every command is noted (its first LBA and length); a command starting where an earlier one
ended continues that stream. :class:`SequentialStreams` (mixed into
:class:`~simcore.drive.cache.SegmentCache`) counts the distinct streams among the last
``CacheConfig.stream_window`` commands and, with ``CacheConfig.adaptive``, splits the buffer
into that many segments (at most ``max_segments``). Seed: Panagiotakis 2006 §2.1.1 and Ch. 3
as extracted in ``notes/004_multistream.md`` §5 (segments as private caches of sequential
streams, adaptive segmentation).
"""

from __future__ import annotations

from collections import deque

from .cache_config import CacheConfig, segment_cap

__all__ = ["SequentialStreams"]


class SequentialStreams:
    """Stream detection of a :class:`~simcore.drive.cache.SegmentCache` (a mixin: it keeps its
    state on the cache, and sets its ``n_segments`` and ``cap``)."""

    def _init_streams(self, config: CacheConfig) -> None:
        self._next_lba: dict[int, int] = {}  # one past a stream's last LBA: the stream
        self._recent: deque[int] = deque(maxlen=config.stream_window)
        self._new_stream = 0
        # commands whose streams are still to follow: at once with adaptive segments (they
        # decide the segments); else nothing asks as the drive runs, so only the commands of
        # the last four windows are kept (as many as the stream table remembers, 4 *
        # stream_window), and streams_seen follows them when asked
        self._unnoted: list[tuple[int, int]] | deque[tuple[int, int]]
        if config.adaptive:
            self._unnoted, self._note_every = [], 1
        else:
            self._unnoted = deque(maxlen=4 * config.stream_window)
            self._note_every = 1 << 62  # (never: the deque drops the oldest itself)

    def _note_stream(self, lba: int, n: int) -> None:
        """Note a command of ``n`` sectors from ``lba`` for stream detection
        (:meth:`_follow_streams`, when due)."""
        unnoted = self._unnoted
        unnoted.append((lba, n))
        if len(unnoted) >= self._note_every:
            self._follow_streams()

    def _follow_streams(self) -> None:
        """Sequential-stream detection (for adaptive segments), over the commands noted
        since the last call (``_unnoted``, in order)."""
        nxt, recent, window = self._next_lba, self._recent, self.config.stream_window
        for lba, n in self._unnoted:
            sid = nxt.pop(lba, None)
            if sid is None:
                self._new_stream += 1
                sid = self._new_stream
            nxt[lba + n] = sid
            if len(nxt) > 4 * window:
                for key in list(nxt)[: len(nxt) // 2]:
                    del nxt[key]
            recent.append(sid)
        self._unnoted.clear()
        if self.config.adaptive:
            want = max(1, min(self.config.max_segments, len(set(recent))))
            if want != self.n_segments:
                self.n_segments = want
                self.cap = segment_cap(self.config.size_kib, want, self._block)
                self._counts["resegmented"] += 1

    def streams_seen(self) -> int:
        """Distinct sequential streams among the last ``stream_window`` commands (without
        adaptive segments, a stream is followed back through the last four windows'
        commands, as far as the stream table remembers one)."""
        self._follow_streams()
        return len(set(self._recent))
