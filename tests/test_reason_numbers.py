"""No simulated number is typed by hand in a target's reason for a miss.

A target the model misses carries its reason (``known_deviation``), which the status page and
``reproduce`` print. Like the chapters' prose (tests/test_prose_numbers.py, whose scanner this
reuses), a reason may quote a paper or a note, but a number the model produced must be filled
in from the run (``{dotted.key:fmt}`` placeholders, ``targets.fill_from_result``), so it cannot
go stale when the model changes. A sentence that names its source (a seed's section, table or
figure, a note, "the paper", "the thesis", DiskSim's published figure) counts as cited.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from test_prose_numbers import scan

import simcore.experiments as experiments

#: a sentence quoting a source, as reasons write it
_SOURCE = re.compile(r"§\s?\d|\bTables? \d|\bFig(?:ure|\.)s? ?\d|\bseed \d{3}\b|\bnote \d{3}\b"
                     r"|\bthe (?:thesis|paper)\b|DiskSim's (?:figure|own|published)")
#: a value filled in from the run
_PLACEHOLDER = re.compile(r"\{[\w.]+(?::[^{}]*)?\}")


def reasons() -> list[tuple[str, str]]:
    out = []
    for info in pkgutil.iter_modules(experiments.__path__):
        module = importlib.import_module(f"{experiments.__name__}.{info.name}")
        for target in getattr(module, "TARGETS", None) or ():
            if target.known_deviation:
                out.append((f"{info.name}:{target.key}", target.known_deviation))
    return out


def typed_numbers(reason: str, name: str = "<reason>") -> list[str]:
    """The numbers with units a reason types by hand outside a cited sentence."""
    text = _PLACEHOLDER.sub("N", reason)
    text = _SOURCE.sub(lambda m: m.group(0) + " {cite:p}`source`", text)
    return [h.text for h in scan(text, name)]


def test_the_scan_can_fail():
    assert typed_numbers("the model reads 41.5 MB/s") == ["41.5 MB/s"]
    assert typed_numbers("the model reads {x.rate:.1f} MB/s") == []
    assert typed_numbers("the thesis gives 50 MB/s (§6.2); the model 42 MB/s") == ["42 MB/s"]


def test_finds_the_reasons():
    names = {n.split(":")[0] for n, _ in reasons()}
    assert {"validation", "traxtents", "placement", "multistream"} <= names


@pytest.mark.parametrize("name,reason", reasons(), ids=[n for n, _ in reasons()])
def test_no_hand_typed_numbers_in_reasons(name, reason):
    assert typed_numbers(reason, name) == [], (
        f"{name}: fill these from the run with {{dotted.key:fmt}} placeholders, or cite "
        f"their source in the same sentence")
