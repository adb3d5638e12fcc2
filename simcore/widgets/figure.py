"""A plotly FigureWidget that does not carry plotly.js in its widget state.

plotly 7's ``go.FigureWidget`` is an anywidget whose ``_esm`` trait holds the whole widget
bundle, plotly.js included (about 5 MB). Every figure sends that string over the websocket
and stores it in the saved notebook, so one two-figure explorer cost about 10 MB and the
explorers notebook over 100 MB (review ``../shared/reviews/jupyterlab.md``, problem 5).

:class:`FigureWidget` keeps everything the kernel side of plotly does (``batch_update``,
restyle and relayout messages, ``data``/``layout`` as usual) and only replaces ``_esm`` with a
loader of a few hundred bytes. The loader imports plotly's own bundle once per page:

1. from the Jupyter server's static files, where ``tools/lab_setup.py`` (run by ``postBuild``
   on Binder and by ``make lab``) points ``ServerApp.extra_static_paths`` at plotly's
   ``package_data``: an ordinary, cacheable HTTP GET, no websocket bytes;
2. failing that (a Jupyter started without that setting, VS Code, ...), from the kernel,
   once per page, as a custom widget message.

It also repairs one plotly habit: inside ``batch_update()``, setting ``title.x`` (the theme) and
``title`` (the explorer's text) sends both keys in one relayout, which plotly.js rejects whole
("cannot set title.x and a parent attribute simultaneously"), leaving a stale title and layout
(review, problem 2). :func:`merge_relayout` sends such a parent as the kernel's final value.

While the bundle loads, the kernel may already have sent restyles the page could not apply, so
after loading, the page asks the kernel for a snapshot of the figure and only then starts
plotly's own model. The figure is therefore always the kernel's figure.
"""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path

import plotly
import plotly.graph_objects as go
import traitlets as t

__all__ = ["BUNDLE", "STATIC_DIR", "FigureWidget", "merge_relayout"]

STATIC_DIR = Path(plotly.__file__).parent / "package_data"
BUNDLE = STATIC_DIR / "widgetbundle.js"

_LOADER = """
// disklab loader: plotly's widget bundle, once per page (simcore/widgets/figure.py)
const KEY = "__disklabPlotlyBundle";
function staticUrl() {
  const el = document.getElementById("jupyter-config-data");
  if (!el) return null;
  let base = "/";
  try { base = JSON.parse(el.textContent).baseUrl || "/"; } catch (e) { return null; }
  if (!base.endsWith("/")) base += "/";
  return new URL(base + "static/widgetbundle.js?v=__VERSION__", window.location.href).href;
}
function ask(model, request, answered) {
  return new Promise((resolve) => {
    answered(resolve);
    model.send({ type: request });
  });
}
function fromKernel(model) {
  return ask(model, "disklab-bundle", (resolve) => {
    const on = (msg) => {
      if (msg && msg.type === "disklab-bundle") { model.off("msg:custom", on); resolve(msg.source); }
    };
    model.on("msg:custom", on);
  }).then((source) => import(URL.createObjectURL(new Blob([source], { type: "text/javascript" }))));
}
function bundle(model) {
  if (!window[KEY]) {
    window[KEY] = (async () => {
      const url = staticUrl();
      if (url) {
        try { return await import(/* webpackIgnore: true */ url); } catch (e) {
          console.info("disklab: plotly bundle not served at " + url + "; asking the kernel");
        }
      }
      return fromKernel(model);
    })();
  }
  return window[KEY];
}
function snapshot(model) {
  return ask(model, "disklab-sync", (resolve) => {
    const on = () => { model.off("change:_disklab_synced", on); resolve(); };
    model.on("change:_disklab_synced", on);
  });
}
export default () => {
  let inner = null;
  let ready = null;
  return {
    initialize({ model }) {
      ready = (async () => {
        const mod = await bundle(model);
        await snapshot(model);
        inner = mod.default();
        inner.initialize({ model });
      })();
      return ready;
    },
    async render({ model, el }) {
      await ready;
      return inner.render({ model, el });
    },
  };
};
""".replace("__VERSION__", plotly.__version__)


def _is_parent(parent: str, key: str) -> bool:
    return key.startswith(parent) and key[len(parent):len(parent) + 1] in (".", "[")


def merge_relayout(layout: go.Layout, data: dict) -> dict:
    """``data`` without keys whose parent is also set: the parent carries the final value.

    plotly.js refuses a relayout holding both ``title`` and ``title.x``; the kernel already
    holds the merged result, so the parent is sent as that and its children are dropped.
    """
    parents = [k for k in data if any(_is_parent(k, other) for other in data)]
    if not parents:
        return data
    out = {k: v for k, v in data.items() if not any(_is_parent(p, k) for p in parents)}
    for p in parents:
        value = layout[p]
        out[p] = value.to_plotly_json() if hasattr(value, "to_plotly_json") else value
    return out


class FigureWidget(go.FigureWidget):
    """``go.FigureWidget`` with a loader instead of the 5 MB bundle in its state."""

    _esm = _LOADER
    _disklab_synced = t.Int(0).tag(sync=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_msg(self._on_page_message)

    def _send_relayout_msg(self, layout_data, source_view_id=None):
        super()._send_relayout_msg(merge_relayout(self.layout, layout_data), source_view_id)

    def _send_update_msg(self, restyle_data, relayout_data, trace_indexes=None,
                         source_view_id=None):
        super()._send_update_msg(restyle_data, merge_relayout(self.layout, relayout_data),
                                 trace_indexes, source_view_id)

    def _on_page_message(self, _widget, content, _buffers) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "disklab-sync":
            # one state message: the figure as the kernel has it, then the counter the page
            # waits for (ipywidgets applies a message's keys together)
            with self.hold_sync():
                self._widget_layout = deepcopy(self._layout_obj._props)
                self._widget_data = deepcopy(self._data)
                self._disklab_synced += 1
        elif kind == "disklab-bundle":
            self.send({"type": "disklab-bundle", "source": BUNDLE.read_text(encoding="utf-8")})
