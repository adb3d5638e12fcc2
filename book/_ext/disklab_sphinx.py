"""Small Sphinx fixes for the offline book.

sphinx-thebe adds its configuration script once per environment read, so an
incremental or multi-pass build emits ``const THEBE_JS_URL`` twice and the
browser reports a redeclaration error. Keep only the first copy of each script.

sphinxcontrib-bibtex's author-year style writes "Gray [2000]"; the book's style is
"Gray (2000)", so a round-bracket variant is registered as ``author_year_round``.

myst-nb's build table (``{nb-exec-table}``, on the status page) marks a chapter that ran with the
emoji U+2705, an empty box on a machine without an emoji font: it says "succeeded" or "failed".
``tools/build_book.py`` executes every chapter afresh, in parallel, into an empty cache that
myst-nb then reads in its ``cache`` mode; that table would call the chapters "cache" and date
them by the cache's UTC clock read as local time. ``disklab_exec_times`` (the build's
``exec_times.json``) gives the table what the build measured: the time each chapter finished,
and "force", since every chapter was executed.
In that mode myst-nb also saves each page's notebook (``jupyter_execute/``, the page's .ipynb
download) without the outputs it shows, having merged them into a copy; the build's outputs are
merged into that file too (glue-only outputs removed, as myst-nb does), so the download is the
executed notebook, as with ``force``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import nbformat
from myst_nb.ext import execution_tables
from myst_nb.ext.glue import extract_glue_data_cell
from myst_nb.sphinx_ import NbMetadataCollector
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle


def _round() -> BracketStyle:
    return BracketStyle(left="(", right=")")


@dataclasses.dataclass
class RoundAuthorYearStyle(AuthorYearReferenceStyle):
    """Author-year citations in round brackets: Gray (2000), (Gray 2000)."""

    bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_textual: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_author: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_label: BracketStyle = dataclasses.field(default_factory=_round)
    bracket_year: BracketStyle = dataclasses.field(default_factory=_round)


register_plugin("sphinxcontrib.bibtex.style.referencing", "author_year_round",
                RoundAuthorYearStyle)


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for js in scripts:
        attrs = getattr(js, "attributes", {}) or {}
        key = (str(getattr(js, "filename", js) or ""), attrs.get("body", ""))
        if key in seen:
            continue
        seen.add(key)
        unique.append(js)
    scripts[:] = unique  # in place: later handlers and the template see the same list


def _outcome(succeeded: object) -> str:
    return "succeeded" if succeeded is True else "failed"


def _fresh_runs(app, env):
    """Label the chapters that ``tools/build_book.py`` executed in this build as it did."""
    if not app.config.disklab_exec_times:
        return
    runs = json.loads(Path(app.config.disklab_exec_times).read_text())
    for docname, data in NbMetadataCollector.get_doc_data(env).items():
        exec_data, run = data.get("exec_data"), runs.get(docname)
        if exec_data and run and exec_data.get("method") == "cache":
            exec_data.update(method="force", mtime=run["mtime"])


def _save_executed(app, doctree):
    """Save the page's notebook with this build's outputs (myst-nb's cache mode saves it bare)."""
    config = app.env.mystnb_config
    if not app.config.disklab_exec_times or config.execution_mode != "cache":
        return
    path = Path(config.output_folder, app.env.docname + ".ipynb")
    if not path.is_file():
        return
    from jupyter_cache import get_cache

    try:
        _, nb = get_cache(config.execution_cache_path).merge_match_into_notebook(
            nbformat.read(path, as_version=4))
    except KeyError:  # not in the cache: myst-nb executed it itself and saved it executed
        return
    for cell in nb.cells:  # as myst-nb does to the notebook it executes: glue-only outputs go
        if cell.cell_type == "code":
            extract_glue_data_cell(cell)
    path.write_text(nbformat.writes(nb), encoding="utf-8")


def setup(app):
    # the table's cells are made by this mapping (myst_nb.ext.execution_tables.make_stat_table)
    execution_tables._key2transform["succeeded"] = _outcome
    # late: the extensions add their page scripts first (filename None or '' for inline ones)
    app.connect("html-page-context", _dedupe_scripts, priority=999)
    app.add_config_value("disklab_exec_times", "", "env")
    app.connect("env-updated", _fresh_runs)
    app.connect("doctree-read", _save_executed)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
