"""The curated public namespace (STYLE.md #14): everything in __all__ exists, nothing stray."""

from __future__ import annotations

import simcore


def test_all_names_exist_and_are_unique():
    assert len(simcore.__all__) == len(set(simcore.__all__))
    for name in simcore.__all__:
        assert hasattr(simcore, name), name


def test_the_verbs_are_public():
    for verb in ("load_disk", "list_disks", "run", "sweep", "random_open", "random_closed",
                 "replay_validation", "Mechanism", "Layout", "RunResult", "Completed"):
        assert verb in simcore.__all__


def test_sweep_keeps_order_with_an_executor():
    from concurrent.futures import ThreadPoolExecutor

    def square(x):
        return x * x

    with ThreadPoolExecutor(2) as ex:
        assert simcore.sweep(square, [{"x": i} for i in range(6)], executor=ex,
                             progress=False) == [0, 1, 4, 9, 16, 25]
    assert simcore.sweep(square, [{"x": 3}], progress=False) == [9]
