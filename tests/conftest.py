"""Shared test setup.

Under ``CI=true`` a test may not pass by skipping: a skip caused by a missing
tool (chromium, fio, hdparm, root) is turned into a failure, so CI proves the
browser and hardware tests really ran.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, reason: str) -> None:
    """Skip with ``reason`` unless ``condition``; in CI, fail instead of skipping."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI must not skip: {reason}")
    pytest.skip(reason)


def require_tool(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"{name} is not installed (apt-get install {name})")
    return path  # type: ignore[return-value]


def require_root() -> None:
    require(os.geteuid() == 0, "needs root (loop devices, hdparm, scheduler switching)")


@pytest.fixture(scope="session")
def repo_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_QUICK: dict[tuple[str, int], dict] = {}


@pytest.fixture(scope="session")
def quick_result(tmp_path_factory):
    """``quick_result(name, seed=0)``: an experiment's quick-mode result, run once per session.

    The generated target tests and each experiment's own tests share it, so every quick
    experiment runs once however many test files look at it; under pytest-xdist the workers
    share it too (:func:`_once_per_run`).
    """
    from simcore import experiments

    def get(name: str, seed: int = 0) -> dict:
        if (name, seed) not in _QUICK:
            _QUICK[(name, seed)] = _once_per_run(
                tmp_path_factory, f"quick-{name}-s{seed}",
                lambda: experiments.reproduce(name, quick=True, seed=seed))
        return _QUICK[(name, seed)]

    return get


def _once_per_run(tmp_path_factory, name: str, compute):
    """``compute()``, once for the whole run: alone, here; under pytest-xdist, by the first
    worker that asks (an flock on a file in the run's shared temporary directory), and
    unpickled from there by the others."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return compute()
    shared = tmp_path_factory.getbasetemp().parent  # pytest-N/, above every worker's popen-gwK
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done = shared / f"{name}.pickle"
        if done.is_file():
            return pickle.loads(done.read_bytes())
        value = compute()
        tmp = shared / f".{name}.pickle.{os.getpid()}"
        tmp.write_bytes(pickle.dumps(value))
        os.replace(tmp, done)
        return value


@pytest.fixture(scope="session")
def full_result():
    """``full_result(name)``: the full-mode result the book shows, read from the results cache.

    The book build (``tools/build_book.py``) fills the cache for the current code, and ``make
    test`` builds the book first, so CI reads the very numbers the chapters print. Without a
    cache for this code (a unit-test run without the book) the test is skipped; in CI that is
    a failure.
    """
    from simcore.experiments import results

    def get(name: str) -> dict:
        res = results.load(name)
        require(res is not None,
                f"no full-mode result of '{name}' cached for this code in {results.cache_dir()}: "
                "build the book first (make book) or run python -m simcore reproduce --fill-cache")
        return res

    return get


@pytest.fixture(scope="session")
def any_result(quick_result, full_result):
    """``any_result(name, mode)`` with mode "quick" (run now) or "full" (the book's, cached)."""

    def get(name: str, mode: str) -> dict:
        return quick_result(name) if mode == "quick" else full_result(name)

    return get


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module (labharness holds its flags)."""
    from labharness import ARGS, CHROMIUM

    require(os.path.exists(CHROMIUM), "Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()
