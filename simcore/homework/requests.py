"""Request lists as OSTEP's disk homework takes them: given, or drawn from a seed.

``-a 10,11,12`` lists sector numbers. ``-a -1`` (the default) draws them instead as
``-A N,MAX,MIN`` says: ``N`` numbers, each ``int(u x MAX) + MIN`` for ``u`` the next
value of Python's :mod:`random` (Mersenne Twister) seeded with ``-s``; a ``MAX`` of
-1 means the disk's own limit. The main list is drawn first and the late list
(``-l`` / ``-L``) goes on from the same stream, so for a given seed every instructor
and student gets the same numbers as OSTEP's simulator gives them.

This is the one place in simcore where a random choice does not come from a
numpy Generator: the homework's answers are defined by :mod:`random`'s sequence.
"""

from __future__ import annotations

import random


def parse_list(text: str, option: str) -> list[int]:
    try:
        return [int(p) for p in str(text).split(",") if p.strip() != ""]
    except ValueError:
        raise ValueError(f"{option} takes sector numbers separated by commas, "
                         f"got {text!r}") from None


def parse_description(text: str, option: str) -> tuple[int, int, int]:
    """``N,MAX,MIN`` of ``-A`` / ``-L``."""
    parts = str(text).split(",")
    try:
        n, high, low = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{option} takes three whole numbers N,MAX,MIN (how many requests, "
                         f"the bound they are drawn below, -1 for the whole disk, and the "
                         f"least), got {text!r}") from None
    if n < 0:
        raise ValueError(f"{option}: the number of requests cannot be negative, got {n}")
    return n, high, low


def draw(description: tuple[int, int, int], rng: random.Random, disk_limit: int) -> list[int]:
    """Draw ``N`` sectors by the recipe in the module docstring."""
    n, high, low = description
    if high == -1:
        high = disk_limit
    return [int(rng.random() * high) + low for _ in range(n)]


def request_lists(addr: str, addr_desc: str, late_addr: str, late_desc: str, seed: int,
                  disk_limit: int) -> tuple[list[int], list[int]]:
    """The main and the late request lists of one run."""
    rng = random.Random(seed)
    main = (draw(parse_description(addr_desc, "-A"), rng, disk_limit) if str(addr) == "-1"
            else parse_list(addr, "-a"))
    late = (draw(parse_description(late_desc, "-L"), rng, disk_limit) if str(late_addr) == "-1"
            else parse_list(late_addr, "-l"))
    return main, late
