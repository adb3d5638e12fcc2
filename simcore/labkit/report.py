"""What grading leaves behind: grades, gradebooks for Canvas and Moodle, feedback, a summary.

``write_report`` writes, next to each other and never over existing files
without ``force``:

- ``grades.csv``: one row per submission, points per question, total, max,
  status, late minutes and flags (for the instructor);
- ``<out>_canvas.csv``: Canvas's gradebook import layout (``Student``, ``ID``,
  ``SIS User ID``, ``SIS Login ID``, ``Section``, then the assignment, with a
  ``Points Possible`` row); the student id goes into the SIS columns, which
  Canvas matches on;
- ``<out>_moodle.csv``: one ``ID number`` column (Moodle's import maps it to
  the user field of the same name) and the lab's total, then each question;
- ``<out>_feedback/<id>.md``: per student, what is wrong without the value;
- ``<out>_summary.md``: score histogram, per-question success rate, slowest
  submissions, statuses, flags and the sandbox layers that were present;
- ``<out>_answers.json``: every answer as received, so :func:`regrade` can
  judge one question again under a corrected key without running anything;
- ``<out>_copying.csv``: the wrong answers that fit another student's variant
  (:mod:`simcore.labkit.copying`), one row each, for the instructor only; the
  submissions flagged for it also say so in ``grades.csv``'s flags. The Canvas
  and Moodle gradebooks carry points only.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from . import answers, copying
from .student import safe_name

if TYPE_CHECKING:
    from .grade import Key, Result


SLOWEST = 10  # submissions listed by time in the summary

# Each status (the grades' column, book/instructors.md) in plain words for the student, when
# grading left no more precise headline (Result.headline).
PLAIN = {
    "timeout": "Your notebook ran out of time: the grader stopped it before its end (see the "
               "notes).",
    "kernel-died": "The notebook's Python process (the kernel) stopped while your answers ran; "
                   "the notes below say where.",
    "invalid": "Your file could not be read as a notebook, so nothing in it could be graded "
               "(see the notes).",
    "empty": "Your notebook has no code in it, so there was nothing to grade.",
    "wrong-lab": "This file is the notebook of another lab: was the right file handed in?",
    "error": "The grader itself failed on your notebook, through no fault of yours; your "
             "instructor will grade it again.",
}


def _fmt(x: float) -> str:
    return f"{x:g}"


def siblings(out_csv: Path) -> dict[str, Path]:
    stem = out_csv.with_suffix("")
    return {"canvas": Path(f"{stem}_canvas.csv"), "moodle": Path(f"{stem}_moodle.csv"),
            "summary": Path(f"{stem}_summary.md"), "answers": Path(f"{stem}_answers.json"),
            "copying": Path(f"{stem}_copying.csv")}


def feedback_names(results: Sequence[Result]) -> list[str]:
    """One feedback file name per result (the id, made unique where ids repeat)."""
    names, used = [], set()
    for r in results:
        base = safe_name(r.student_id)
        name = f"{base}.md"
        if name in used:
            name = f"{base}--{safe_name(Path(r.path).stem)}.md"
        k = 2
        while name in used:
            name = f"{base}--{k}.md"
            k += 1
        used.add(name)
        names.append(name)
    return names


def title_of(key: Key) -> str:
    first = key.nb.cells[0].source.splitlines()[0] if key.nb.cells else ""
    return first.lstrip("# ").strip() or key.lab


def feedback_text(key: Key, r: Result) -> str:
    lines = [f"# Feedback: {title_of(key)}", "",
             f"Student: {r.student_id} (from the {r.id_source})",
             f"File: {Path(r.path).name}",
             f"Score: {_fmt(r.total)} / {_fmt(sum(key.max.values()))}", ""]
    if r.status != "graded":  # the status word is for the gradebook; the student gets words
        lines += [r.headline or PLAIN.get(r.status, "Your notebook was not graded in full "
                                                     "(see the notes)."), ""]
    if r.late_minutes > 0:
        lines += [f"Handed in {r.late_minutes:g} minutes after the deadline.", ""]
    lines.append("## Questions")
    lines.append("")
    for q in key.info.questions:
        verdicts = r.lines.get(q, [])
        if len(verdicts) == 1 and verdicts[0].startswith(f"{q} "):  # it names q and its points
            lines.append(f"- {verdicts[0]}")
            continue
        lines.append(f"- {q}: {_fmt(r.scores.get(q, 0.0))} of {_fmt(key.max[q])} points")
        for ln in verdicts:
            lines.append(f"  - {ln}")
    if r.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in r.notes]
    lines.append("")
    text = "\n".join(lines)
    if key.secret:  # the sandbox hides it; should an exception's text carry it all the same
        text = without_secret(text, key.secret.decode(errors="replace"))
    return text


def without_secret(text: str, secret: str, least: int = 12) -> str:
    """``text`` with every run of ``least`` or more characters of ``secret`` (all of it, or a
    part cut off by a shortened message) replaced by ``<secret>``."""
    hit = [False] * len(text)
    for i in range(max(1, len(secret) - least + 1)):
        piece = secret[i:i + least]
        at = text.find(piece) if piece else -1
        while at >= 0:
            hit[at:at + len(piece)] = [True] * len(piece)
            at = text.find(piece, at + 1)
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and hit[j] == hit[i]:
            j += 1
        out.append("<secret>" if hit[i] else text[i:j])
        i = j
    return "".join(out)


def check_writable(out_csv: Path, feedback_dir: Path, names: Sequence[str], force: bool) -> None:
    """Raise before any grading if the outputs would overwrite files (unless ``force``)."""
    if force:
        return
    clash = [p for p in [out_csv, *siblings(out_csv).values(), *(feedback_dir / n
                                                                  for n in names)]
             if p.exists()]
    if clash:
        raise FileExistsError(f"{clash[0]} exists; choose another --out/--feedback or pass "
                              "--force")


def write_report(key: Key, results: Sequence[Result], out_csv: str | Path,
                 feedback_dir: str | Path, *, force: bool = False,
                 layers: dict | None = None) -> list[Path]:
    """Write grades, gradebooks, feedback, summary and the received answers."""
    out_csv, feedback_dir = Path(out_csv), Path(feedback_dir)
    layers = layers if layers is not None else key.layers
    names = feedback_names(results)
    check_writable(out_csv, feedback_dir, names, force)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    questions = key.info.questions
    max_total = sum(key.max.values())
    more = siblings(out_csv)
    with open(out_csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "file", "status", *questions, "total", "max", "late_minutes",
                    "flags", "sandbox"])
        missing = layers.get("missing", []) if layers is not None else ["unknown"]
        box = "all layers" if not missing else "missing: " + ", ".join(missing)
        for r in results:
            w.writerow([r.student_id, r.path, r.status,
                        *[_fmt(r.scores.get(q, 0.0)) for q in questions],
                        _fmt(r.total), _fmt(max_total), _fmt(r.late_minutes),
                        "; ".join(r.flagged), box])
    assignment = title_of(key)
    with open(more["canvas"], "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])
        w.writerow(["    Points Possible", "", "", "", "", _fmt(max_total)])
        for r in results:
            w.writerow([r.student_id, "", r.student_id, r.student_id, "", _fmt(r.total)])
    with open(more["moodle"], "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["ID number", assignment, *[f"{assignment} {q}" for q in questions]])
        for r in results:
            w.writerow([r.student_id, _fmt(r.total),
                        *[_fmt(r.scores.get(q, 0.0)) for q in questions]])
    write_copying(results, more["copying"])
    more["summary"].write_text(summary_text(key, results, layers), encoding="utf-8")
    more["answers"].write_text(json.dumps(record(key, results, layers), indent=1),
                               encoding="utf-8")
    written = [out_csv, *more.values()]
    for r, name in zip(results, names, strict=True):
        p = feedback_dir / name
        p.write_text(feedback_text(key, r), encoding="utf-8")
        written.append(p)
        if r.merged is not None:
            m = feedback_dir / (Path(name).stem + ".merged.ipynb")
            nbformat.write(r.merged, str(m))
            written.append(m)
    return written


def write_copying(results: Sequence[Result], path: Path) -> None:
    """One row per wrong answer that fits other students' variants; ``flagged``: whether it
    counts for a pair the submission is flagged with (:data:`copying.MIN_QUESTIONS`)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "file", "question", "fits_variant_of", "flagged"])
        for r in results:
            pair = copying.flagged_with(r)
            for q, others in r.copy_matches.items():
                hit = any(q in pair.get(o, []) for o in others)
                w.writerow([r.student_id, r.path, q, " ".join(others), "yes" if hit else "no"])


def summary_text(key: Key, results: Sequence[Result], layers: dict | None = None) -> str:
    """A page for the instructor: histogram, per-question success, slowest, statuses, flags."""
    max_total = sum(key.max.values()) or 1.0
    n = len(results)
    lines = [f"# Grading summary: {title_of(key)}", "", f"{n} submissions; key {key.path.name}.",
             ""]
    if layers is not None:
        lines += ["Sandbox layers present: " + (", ".join(layers.get("layers", [])) or "none"),
                  "Missing: " + (", ".join(layers.get("missing", [])) or "none"), ""]
    if key.budget is not None:
        lines += [f"Time limits: {key.budget.describe()}.", ""]
    lines += ["## Scores", "", "```"]
    if max_total <= 20 and all(float(x).is_integer() for x in (max_total, *(
            r.total for r in results))):  # whole points: one row per score, highest first
        counts = [sum(1 for r in results if r.total == v) for v in range(int(max_total) + 1)]
        width = max(counts) or 1
        for v in range(int(max_total), -1, -1):
            lines.append(f"{v:>4} {'#' * round(40 * counts[v] / width):<40} {counts[v]}")
    else:
        bins = 10
        counts = [0] * bins
        for r in results:
            counts[min(bins - 1, int(r.total / max_total * bins))] += 1
        width = max(counts) or 1
        for i, c in enumerate(counts):
            lo, hi = i * max_total / bins, (i + 1) * max_total / bins
            bracket = "]" if i == bins - 1 else ")"
            lines.append(f"[{lo:5.1f}, {hi:5.1f}{bracket} {'#' * round(40 * c / width):<40} {c}")
    lines += ["```", ""]
    if n:
        mean = sum(r.total for r in results) / n
        lines += [f"Mean {mean:.2f} of {_fmt(max_total)}.", ""]
    lines += ["## Questions", "", "| question | points | full marks | not answered |",
              "|---|---|---|---|"]
    for q in key.info.questions:
        full = sum(1 for r in results if r.scores.get(q, 0.0) == key.max[q])
        blank = sum(1 for r in results if not r.received.get(q, {}).get("present", False))
        lines.append(f"| {q} | {_fmt(key.max[q])} | {full}/{n} ({100 * full / max(n, 1):.0f}%) "
                     f"| {blank} |")
    status: dict[str, list[str]] = {}
    for r in results:
        status.setdefault(r.status, []).append(r.student_id)
    lines += ["", "## Statuses", ""] + [  # who, for each status that needs a look
        f"- {k}: {len(v)}" + ("" if k == "graded" else f" ({', '.join(v)})")
        for k, v in sorted(status.items())]
    lines += ["", "## Slowest submissions", ""]
    for r in sorted(results, key=lambda r: -r.seconds)[:SLOWEST]:
        lines.append(f"- {r.student_id}: {r.seconds:.1f} s, {r.cpu_seconds:.1f} CPU s "
                     f"({r.status})")
    if n:
        wall, cpu = sum(r.seconds for r in results), sum(r.cpu_seconds for r in results)
        lines += ["", f"All {n}: {wall:.0f} s of grading slots, {cpu:.0f} CPU s "
                  f"(median {sorted(r.seconds for r in results)[n // 2]:.1f} s each)."]
    flagged = [r for r in results if r.flagged]
    late = [r for r in results if r.late_minutes > 0]
    if flagged:
        lines += ["", "## Flagged for a look", ""]
        lines += [f"- {r.student_id} ({Path(r.path).name}): {'; '.join(r.flagged)}"
                  for r in flagged]
    lines += _copying_lines(results)
    if late:
        lines += ["", "## Late", ""]
        lines += [f"- {r.student_id}: {r.late_minutes:g} min" for r in late]
    lines.append("")
    return "\n".join(lines)


def _copying_lines(results: Sequence[Result]) -> list[str]:
    """The summary's section on wrong answers that fit a classmate's variant (none: none)."""
    copied = [(r, copying.flagged_with(r)) for r in results if copying.flagged_with(r)]
    single = sum(len(r.copy_matches) for r in results) - sum(
        len({q for qs in pair.values() for q in qs}) for _, pair in copied)
    if not copied and not single:
        return []
    lines = ["", "## Wrong answers that fit a classmate's variant", "",
             f"Flagged: at least {copying.MIN_QUESTIONS} wrong answers fit the same classmate's "
             "variant. Evidence for a conversation, not proof; never in the feedback.", ""]
    lines += [f"- {r.student_id} ({Path(r.path).name}): "
              + "; ".join(f"{o} on {', '.join(qs)}" for o, qs in sorted(pair.items()))
              for r, pair in copied]
    if single:
        lines += ["", f"{single} other wrong answer(s) fit a classmate's variant on one question "
                  "per classmate, which a slip can do: not flagged (see the copying CSV)."]
    return lines


def record(key: Key, results: Sequence[Result], layers: dict | None = None) -> dict:
    return {
        "lab": key.lab, "key": str(key.path), "points": key.max, "layers": layers,
        "budget": dataclasses.asdict(key.budget) if key.budget is not None else None,
        "results": [{"path": r.path, "student_id": r.student_id, "id_source": r.id_source,
                     "status": r.status, "headline": r.headline, "scores": r.scores,
                     "lines": r.lines, "notes": r.notes,
                     "flagged": r.flagged, "copy_matches": r.copy_matches,
                     "received": r.received, "losses": r.losses, "seconds": r.seconds,
                     "cpu_seconds": r.cpu_seconds,
                     "late_minutes": r.late_minutes, "attachments": r.attachments}
                    for r in results],
    }


def regrade(key: Key, out_csv: str | Path, feedback_dir: str | Path,
            question: str) -> tuple[list[Result], list[str]]:
    """Judge one question again, from the answers kept at grading time, under ``key``.

    Nothing is run: the stored answers are compared with the (corrected) key's
    values. Rewrites the grades, gradebooks, summary and feedback; returns the
    results and one line per student whose points changed.
    """
    from .grade import Budget, Result, judge, lost_detail

    out_csv = Path(out_csv)
    if question not in key.info.questions:
        raise ValueError(f"{question!r} is not a question of {key.path.name} "
                         f"({', '.join(key.info.questions)})")
    rec_path = siblings(out_csv)["answers"]
    if not rec_path.exists():
        raise FileNotFoundError(f"{rec_path}: no stored answers; grade first")
    rec = json.loads(rec_path.read_text(encoding="utf-8"))
    if rec.get("lab") != key.lab:
        raise ValueError(f"{rec_path} holds {rec.get('lab')!r}, not {key.lab!r}")
    if rec.get("budget") and key.budget is None:  # the limits it was graded with, for the summary
        key.budget = Budget(**{**rec["budget"], "derived": tuple(rec["budget"]["derived"])})
    results, changes = [], []
    for d in rec["results"]:
        r = Result(d["path"], d["student_id"], d["id_source"], d["status"], d["scores"],
                   d["lines"], d["notes"], d["flagged"], d["received"], d["seconds"],
                   cpu_seconds=d.get("cpu_seconds", 0.0), late_minutes=d.get("late_minutes", 0.0),
                   attachments=d.get("attachments", []), headline=d.get("headline", ""),
                   copy_matches=d.get("copy_matches", {}), losses=d.get("losses", {}))
        got = r.received.get(question)
        if got is not None and r.status not in ("invalid", "empty", "error"):
            before = r.scores.get(question, 0.0)
            received = answers.Received(got["present"], got["value"], got["problem"])
            expected = key.expected(r.student_id)
            ok, line = judge(key, question, received, expected, r.attachments)
            pts = key.max[question]
            r.scores[question] = pts if ok else 0.0
            r.losses.pop(question, None)
            if not ok:
                r.losses[question] = lost_detail(key, question, received, expected,
                                                 r.attachments)
            r.lines[question] = [f"{line} [{_fmt(r.scores[question])}/{_fmt(pts)}] (regraded)"]
            if r.scores[question] != before:
                changes.append(f"{r.student_id}: {question} {_fmt(before)} -> "
                               f"{_fmt(r.scores[question])}")
        results.append(r)
    # a regraded answer may now be right (or wrong): the copying check again, on the variants
    # of the students whose notebooks were run (those with answers received)
    copying.mark(key, results, {r.student_id.strip().casefold(): key.expected(r.student_id)
                                for r in results if r.received})
    write_report(key, results, out_csv, feedback_dir, force=True, layers=rec.get("layers"))
    return results, changes
