"""Numbered, captioned tables of computed results: the ``{glue:table}`` directive.

myst-nb pastes a glued figure with ``{glue:figure}`` (numbered, captioned, a ``{numref}``
target) but has no such directive for a table. A chapter computes its tables as pandas
DataFrames, so this one mirrors ``{glue:figure}``::

    ```{code-cell} ipython3
    glue("tbl-seek-averages", frame, display=False)
    ```

    ```{glue:table} tbl-seek-averages
    :name: tbl-seek-averages

    What the table shows, and what to look at in it.
    ```

The glued output is rendered as myst-nb renders it anywhere else (a DataFrame's own HTML,
tidied by :mod:`frame_html`: the index's name in the corner, numbers right-aligned), inside a
:class:`captioned_table` node whose caption comes first, as a table's does.
The node is registered as an enumerable node of Sphinx's ``table`` type, so it shares the
numbering of Markdown ``{table}`` directives ("Table 3.2", per chapter like figures) and
``{numref}`` resolves to it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives as spec
from frame_html import tidy  # book/_ext is on the path, as Sphinx loads this extension from it
from myst_nb.core.variables import RetrievalError, render_variable_outputs
from myst_nb.ext.glue.utils import glue_warning, retrieve_glue_data
from myst_nb.ext.utils import DirectiveBase


class captioned_table(nodes.General, nodes.Element):
    """A glued table with a caption: numbered as a ``table`` by Sphinx."""


class table_caption(nodes.caption):
    """The caption of a :class:`captioned_table`: a figure-style caption with a table's permalink."""


class PasteTableDirective(DirectiveBase):
    """``{glue:table} key``: paste a glued table (a DataFrame) with a numbered caption."""

    required_arguments = 1  # the glue key
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict] = {"name": spec.unchanged, "class": spec.class_option}

    def run(self) -> list[nodes.Node]:
        key = self.arguments[0]
        if not self.content:
            return [glue_warning(f"glue:table {key!r} has no caption: write one that says what "
                                 "to look at", self.document, self.line)]
        if "name" not in self.options:
            return [glue_warning(f"glue:table {key!r} has no :name: (the label {{numref}} uses)",
                                 self.document, self.line)]
        try:
            data = retrieve_glue_data(self.document, key)
        except RetrievalError as exc:
            return [glue_warning(str(exc), self.document, self.line)]
        table = captioned_table("", classes=["dl-table", *self.options.get("class", [])])
        self.set_source_info(table)
        self.add_name(table)

        parsed = nodes.Element()  # anonymous container for parsing the caption
        self.state.nested_parse(self.content, self.content_offset, parsed)
        if len(parsed) != 1 or not isinstance(parsed[0], nodes.paragraph):
            return [glue_warning(f"glue:table {key!r}: the caption must be one paragraph",
                                 self.document, self.line)]
        para = parsed[0]
        caption = table_caption(para.rawsource, "", *para.children)
        caption.source, caption.line = para.source, para.line
        table += caption
        # cell_output: the theme styles a DataFrame there as it does in a cell's output
        body = nodes.container("", classes=["cell_output", "dl-table-body"])
        if isinstance(data.data.get("text/html"), str):  # a DataFrame's HTML, tidied
            data = dataclasses.replace(data, data={**data.data,
                                                   "text/html": tidy(data.data["text/html"])})
        body += render_variable_outputs([data], self.document, self.line, self.source)
        table += body
        return [table]


def _visit_html(self, node: captioned_table) -> None:
    self.body.append(self.starttag(node, "div"))


def _depart_html(self, node: captioned_table) -> None:
    self.body.append("</div>\n")


def _visit_caption_html(self, node: table_caption) -> None:
    # as Sphinx writes a figure's caption: <p class="caption"><span class="caption-number">...
    self.body.append(self.starttag(node, "p", "", CLASS="caption"))
    self.add_fignumber(node.parent)
    self.body.append('<span class="caption-text">')


def _depart_caption_html(self, node: table_caption) -> None:
    self.body.append("</span>")
    self.add_permalink_ref(node.parent, "Link to this table")
    self.body.append("</p>\n")


def _visit_other(self, node: captioned_table) -> None:
    """Other builders (LaTeX, text): no wrapper of our own; the table inside renders as usual."""


def _depart_other(self, node: captioned_table) -> None:
    """Nothing to close (see :func:`_visit_other`)."""


def setup(app):
    other = (_visit_other, _depart_other)
    app.add_enumerable_node(captioned_table, "table", html=(_visit_html, _depart_html),
                            latex=other, text=other, man=other, texinfo=other)
    app.add_node(table_caption, html=(_visit_caption_html, _depart_caption_html),
                 latex=other, text=other, man=other, texinfo=other)
    app.add_directive_to_domain("glue", "table", PasteTableDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
