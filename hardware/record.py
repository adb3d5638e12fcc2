"""Measurement records: the JSON files in ``data/measurements/`` (format in its README.md).

A record holds one experiment on one device: the job and its parameters,
when it ran, an honest human label of what the device really is, the
machine, the device's settings during the run, the tool's own output
(``raw``) and the numbers read from it (``summary``). Simulated stand-ins
use the same shape with ``"schema": "disklab-simulated/1"`` and
``"simulated": true``, so a figure can take either but never mistake one for
the other.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = [
    "MEASURED",
    "SIMULATED",
    "RecordError",
    "find",
    "is_measured",
    "load",
    "load_recorded",
    "measurements_dir",
    "save",
    "validate",
]

MEASURED = "disklab-measurement/1"
SIMULATED = "disklab-simulated/1"
REQUIRED = ("schema", "job", "params", "recorded_at", "label", "machine", "device", "raw",
            "summary")
DEVICE_REQUIRED = ("path", "model", "rotational", "scheduler", "read_ahead_kb", "size_bytes",
                   "kind")
MACHINE_REQUIRED = ("kernel", "cpu", "fio_version")


class RecordError(ValueError):
    """A record file is malformed (names the file and the field)."""

    def __init__(self, path: str, field: str, message: str):
        self.path, self.field = path, field
        super().__init__(f"{path}: field '{field}': {message}")


def measurements_dir() -> Path:
    """``data/measurements`` of the checkout this package lives in (or of the current directory)."""
    here = Path(__file__).resolve().parents[1] / "data" / "measurements"
    if here.is_dir():
        return here
    return Path.cwd() / "data" / "measurements"


def validate(record: dict, where: str = "<record>") -> dict:
    """Check the shape of a record; return it, or raise :class:`RecordError`."""
    if not isinstance(record, dict):
        raise RecordError(where, "(top)", "a record is a JSON object")
    for key in REQUIRED:
        if key not in record:
            raise RecordError(where, key, "missing (see data/measurements/README.md)")
    _check_schema(record, where)
    if not isinstance(record["label"], str) or len(record["label"].strip()) < 10:
        raise RecordError(where, "label", "needs a sentence saying what the device really is")
    if not isinstance(record["params"], dict):
        raise RecordError(where, "params", "must be an object of parameter values")
    _check_object(record, "device", DEVICE_REQUIRED, where)
    if record["schema"] == MEASURED:
        _check_object(record, "machine", MACHINE_REQUIRED, where)
    if not isinstance(record["summary"], dict):
        raise RecordError(where, "summary", "must be an object")
    return record


def _check_schema(record: dict, where: str) -> None:
    """A known schema, and ``simulated`` true exactly for simulated records."""
    if record["schema"] not in (MEASURED, SIMULATED):
        raise RecordError(where, "schema", f"'{record['schema']}' is not {MEASURED} or "
                          f"{SIMULATED}")
    if record["schema"] == SIMULATED and record.get("simulated") is not True:
        raise RecordError(where, "simulated", "a simulated record must say \"simulated\": true")
    if record["schema"] == MEASURED and record.get("simulated"):
        raise RecordError(where, "simulated", "a measurement cannot be simulated")


def _check_object(record: dict, field: str, required: tuple[str, ...], where: str) -> None:
    """``record[field]`` is an object holding every key of ``required``."""
    obj = record[field]
    if not isinstance(obj, dict):
        raise RecordError(where, field, "must be an object")
    for key in required:
        if key not in obj:
            raise RecordError(where, f"{field}.{key}", "missing (null when not known)")


def load(path: str | os.PathLike) -> dict:
    """Read and check a record file."""
    p = os.fspath(path)
    try:
        text = Path(p).read_text()
    except OSError as exc:
        raise RecordError(p, "(file)", f"cannot read it ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(p, f"(line {exc.lineno})", f"not valid JSON: {exc.msg}") from exc
    return validate(data, p)


def save(record: dict, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write a record as JSON; an existing file is kept unless ``overwrite``."""
    validate(record, os.fspath(path))
    p = Path(path)
    if p.exists() and not overwrite:
        raise FileExistsError(f"{p} exists; choose another name or pass overwrite=True "
                              "(--overwrite) to replace it")
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n")
    os.replace(tmp, p)
    return p


def is_measured(record: dict) -> bool:
    return record.get("schema") == MEASURED and not record.get("simulated")


def find(job: str, directory: str | os.PathLike | None = None) -> list[Path]:
    """Recordings of ``job`` in ``data/measurements``: real drives first, then the rest.

    File names are ``<job>.<kind or source>[.<more>].json``; recordings whose
    device kind is ``hdd`` or ``ssd`` come before loop devices and files.
    """
    d = Path(directory) if directory else measurements_dir()
    found = sorted(d.glob(f"{job}.*.json"))

    def rank(p: Path) -> tuple[int, str]:
        kind = p.name[len(job) + 1:].split(".")[0]
        return (0 if kind in ("hdd", "ssd") else 1, p.name)

    return sorted(found, key=rank)


def load_recorded(job: str, kind: str | None = None,
                  directory: str | os.PathLike | None = None) -> dict:
    """The best recording of ``job`` (of device ``kind`` if given); FileNotFoundError if none."""
    for p in find(job, directory):
        rec = load(p)
        if kind is None or rec["device"].get("kind") == kind:
            rec["_path"] = str(p)
            return rec
    what = f" of a {kind} device" if kind else ""
    raise FileNotFoundError(f"no recording of '{job}'{what} in {directory or measurements_dir()}")
