"""Helpers for the many-streams tests: a hand-computable device and sequential clients."""

from __future__ import annotations

from simcore.records import READ, Completed

REQ = 128  # 64 KiB client requests, in sectors


class FixedPort:
    """Serves reads in arrival order, one at a time, ``service_ms`` each (a read port)."""

    def __init__(self, env, service_ms=100.0):
        self.env, self.service_ms = env, service_ms
        self.free_at = 0.0
        self.reads: list[tuple[float, int, int]] = []
        self.busy_ms = 0.0

    def read(self, client, lba, sectors):
        start = max(self.env.now, self.free_at)
        end = self.free_at = start + self.service_ms
        self.reads.append((start, lba, sectors))
        self.busy_ms += self.service_ms
        ev = self.env.event()

        def fire():
            yield self.env.timeout(end - self.env.now)
            ev.succeed(Completed(0, READ, lba, sectors, start, start, end, 0, 0, 0, 0,
                                 end - start, 0, end - start, client))

        self.env.process(fire())
        return ev


def run_clients(host, env, starts, until_ms, rtt_ms=0.0, stop_after=None, from_ms=0.0):
    """Sequential clients of 64 KiB requests, one outstanding; bytes served per client after
    ``from_ms``."""
    got = [0] * len(starts)

    def client(c):
        pos = starts[c]
        k = 0
        while stop_after is None or k < stop_after:
            yield host.read(c, pos, REQ)
            if env.now >= from_ms:
                got[c] += REQ * 512
            pos += REQ
            k += 1
            if rtt_ms:
                yield env.timeout(rtt_ms)

    for c in range(len(starts)):
        env.process(client(c))
    env.run(until=until_ms)
    return got
