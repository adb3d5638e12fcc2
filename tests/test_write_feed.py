"""The feed of a write far larger than its segment: work linear in its length.

No timing: the test counts the elements NumPy goes through on the write's media times (the
plan's ``done_ms``, an array that counts the elements of every ufunc and NumPy function it
takes part in, and passes the counting on to the arrays made from it; a shift in place of
the sectors after a lost revolution is not counted: those are as many as the revolutions
lost, each costing the write a revolution). A feed that looks again at every sector written
so far on each burst of the host's data does work quadratic in the write's length (twice
the sectors, four times the elements and more); a linear one does twice the work.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore import HeadState, Mechanism, load_disk
from simcore.drive.write_feed import WriteFeed, feed_write


class _Counted(np.ndarray):
    """An array counting (class-wide) the elements of the ufuncs and NumPy functions it is an
    input of; what they make of it counts too."""

    work = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" not in kwargs:  # (a shift in place of sectors after a lost revolution)
            _Counted.work += sum(x.size for x in inputs if isinstance(x, np.ndarray))
        plain = tuple(x.view(np.ndarray) if isinstance(x, _Counted) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, _Counted) else o
                                  for o in kwargs["out"])
        out = getattr(ufunc, method)(*plain, **kwargs)
        return out.view(_Counted) if isinstance(out, np.ndarray) and out.ndim else out

    def __array_function__(self, func, types, args, kwargs):
        _Counted.work += sum(_sizes(args))  # (np.concatenate, np.sort, ...)
        out = func._implementation(*_plain(args), **kwargs)
        return out.view(_Counted) if isinstance(out, np.ndarray) and out.ndim else out


def _sizes(args):
    for a in args:
        if isinstance(a, np.ndarray):
            yield a.size
        elif isinstance(a, list | tuple):
            yield from _sizes(a)


def _plain(args):
    return tuple(a.view(np.ndarray) if isinstance(a, _Counted) else
                 _plain(a) if isinstance(a, list | tuple) else a for a in args)


def _feed(sectors: int, cap: int = 64, hold_bus: bool = True) -> tuple[int, np.ndarray]:
    """Element work of feeding one write of ``sectors`` into an empty ``cap``-sector segment
    (the host's bus much faster than the media), and the sectors' arrival times."""
    mech = Mechanism(load_disk("atlas10k"))
    plan = mech.plan(1000, sectors, True, 0.0, HeadState(0, 0))
    plan = plan._replace(done_ms=plan.done_ms.view(_Counted))
    feed = WriteFeed(0.0, 0.001, np.zeros(sectors), hold_bus, 0.5, 0.01, 0.02)
    _Counted.work = 0
    arrive = feed_write(plan, 0, np.empty(0), np.empty(0), sectors, cap, feed, 1,
                        mech.rev_ms)
    return _Counted.work, np.asarray(arrive)


@pytest.mark.parametrize("hold_bus", [True, False])
def test_feed_write_work_is_linear_in_the_write(hold_bus):
    small, arrive_small = _feed(4096, hold_bus=hold_bus)
    large, arrive_large = _feed(8192, hold_bus=hold_bus)
    # the segment was full: most sectors came in as the media made room, long after the
    # first segment's worth crossed the bus
    assert arrive_small[-1] > 100 * arrive_small[63]
    assert arrive_large[-1] > 1.5 * arrive_small[-1]
    # linear: about twice the work (2.1 here); the quadratic feed did 4.6 to 5.1 times
    assert large < 3 * small, (small, large)
