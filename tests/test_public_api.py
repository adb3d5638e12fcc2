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


# names a chapter may call with a leading underscore: namedtuple's own public methods, and the
# standard library's (os._exit, sys._getframe), which are not simcore's
_TUPLE_METHODS = {"_replace", "_asdict", "_fields", "_make"}
_STDLIB_OWNERS = {"os", "sys"}


def _private_calls(text: str) -> list[str]:
    import re

    return [name for owner, name in re.findall(r"\b([A-Za-z]\w*)\.(_[a-z]\w*)\b", text)
            if name not in _TUPLE_METHODS and owner not in _STDLIB_OWNERS]


def test_chapters_and_labs_use_only_public_names():
    """The book and the labs are what readers copy from: they call public names only (code
    review: chapters called exp._streams_workload and exp._windows)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = {}
    for md in sorted((root / "book").glob("*.md")):
        if hits := _private_calls(md.read_text(encoding="utf-8")):
            found[str(md.relative_to(root))] = hits
    for nb in sorted((root / "labs").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        src = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        if hits := _private_calls(src):
            found[str(nb.relative_to(root))] = hits
    assert not found, f"private names used: {found}"


def test_the_private_name_check_can_fail():
    assert _private_calls("x = exp._windows(False); r._replace(a=1); os._exit(1)") == \
        ["_windows"]
