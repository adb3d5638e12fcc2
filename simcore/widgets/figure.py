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

Its layout is fitted as the book's figures are: after each update the kernel sends, the
explorer's figure gets :func:`simcore.viz.layout.fit_layout` (wrapped title, legend under it, top
margin to content, tidy log ticks), in the same message as the update (:func:`fit_changes`).

It also repairs one plotly habit: inside ``batch_update()``, setting ``title.x`` (the theme) and
``title`` (the explorer's text) sends both keys in one relayout, which plotly.js rejects whole
("cannot set title.x and a parent attribute simultaneously"), leaving a stale title and layout
(review, problem 2). :func:`merge_relayout` sends such a parent as the kernel's final value.

anywidget holds the kernel's messages until a widget's ``initialize`` is done, so a bundle
loaded there misses no update. The kernel route can only run after ``initialize`` (its answer
is a message too), so there the page then asks for a snapshot of the figure before plotly's
model starts. Either way the figure shown is the kernel's figure.
"""

from __future__ import annotations

import functools
import json
from contextlib import contextmanager
from copy import deepcopy
from pathlib import Path

import ipywidgets as w
import plotly
import plotly.graph_objects as go
import plotly.io as pio
from plotly.utils import PlotlyJSONEncoder

from ..viz.layout import fit_layout

__all__ = [
    "BUNDLE",
    "STATIC_DIR",
    "FigureWidget",
    "busy",
    "computing",
    "fit_changes",
    "fit_screen",
    "merge_relayout",
    "set_traces",
]

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
function served() {
  if (!window[KEY]) {
    const url = staticUrl();
    window[KEY] = url ? import(/* webpackIgnore: true */ url).catch((e) => {
      console.info("disklab: plotly bundle not served at " + url + "; the kernel sends it");
      return null;
    }) : Promise.resolve(null);
  }
  return window[KEY];
}
function ask(model, request, reply) {
  return new Promise((resolve) => {
    const on = (msg) => {
      if (msg && msg.type === reply) { model.off("msg:custom", on); resolve(msg); }
    };
    model.on("msg:custom", on);
    model.send({ type: request });
  });
}
export default () => {
  let inner = null;
  let late = null;
  return {
    // anywidget holds the kernel's messages until initialize() is done, so when the bundle is
    // served, plotly's model starts here and misses nothing
    async initialize({ model }) {
      const mod = await served();
      if (mod) { inner = mod.default(); inner.initialize({ model }); }
    },
    // not served: messages flow now, so ask the kernel for the bundle (once per page) and for
    // the figure as it stands (updates sent meanwhile had no listener), then start plotly
    async render({ model, el }) {
      if (!inner) {
        late = late || (async () => {
          const KB = "__disklabPlotlyFromKernel";
          window[KB] = window[KB] || ask(model, "disklab-bundle", "disklab-bundle").then((m) =>
            import(URL.createObjectURL(new Blob([m.source], { type: "text/javascript" }))));
          const mod = await window[KB];
          const now = await ask(model, "disklab-sync", "disklab-synced");
          model.set("_widget_data", now.data);
          model.set("_widget_layout", now.layout);
          const fresh = mod.default();
          fresh.initialize({ model });
          inner = fresh;
        })();
        await late;
      }
      return inner.render({ model, el });
    },
  };
};
""".replace("__VERSION__", plotly.__version__)


def set_traces(fig: go.FigureWidget, traces) -> None:
    """Make ``fig.data`` equal ``traces`` with as few browser redraws as possible.

    Deleting the traces and adding them one by one (the explorers' first way) costs plotly.js
    a redraw per trace: the main reason a control took up to 1.7 s to answer. When the new
    traces have the same kinds as the old ones (the usual case: a slider moved), the old ones
    are restyled in place, which inside ``batch_update()`` becomes one ``Plotly.update``
    together with the layout; otherwise one delete and one add replace them all.
    """
    new = list(traces)
    old = fig.data
    if len(old) == len(new) and all(o.type == n.type for o, n in zip(old, new, strict=True)):
        for o, n in zip(old, new, strict=True):
            props, have = n.to_plotly_json(), o.to_plotly_json()
            stale = {k: None for k in have if k not in props and k not in ("type", "uid")}
            changed = {k: v for k, v in props.items() if k != "type" and not _equal(have.get(k), v)}
            if stale:
                o.update(stale)
            if changed:  # only what differs travels (a moved marker, not the whole platter)
                o.update(changed, overwrite=True)
        return
    fig.data = []
    if new:
        fig.add_traces(new)


def _equal(a, b) -> bool:
    try:
        return pio.to_json(a, validate=False) == pio.to_json(b, validate=False)
    except (TypeError, ValueError):
        return False


def _is_parent(parent: str, key: str) -> bool:
    return key.startswith(parent) and key[len(parent):len(parent) + 1] in (".", "[")


def merge_relayout(layout: go.Layout, data: dict) -> dict:
    """``data`` without keys whose parent is also set: the parent carries the final value.

    plotly.js refuses a relayout holding both ``title`` and ``title.x``; the kernel already
    holds the merged result, so the parent is sent as that and its children are dropped.
    """
    parents = [k for k in data if any(_is_parent(k, other) for other in data)]
    parents = [p for p in parents if not any(_is_parent(q, p) for q in parents)]  # outermost
    if not parents:
        return data
    out = {k: v for k, v in data.items() if not any(_is_parent(p, k) for p in parents)}
    for p in parents:
        value = layout[p]
        out[p] = value.to_plotly_json() if hasattr(value, "to_plotly_json") else value
    return out


def _flat_diff(old: dict, new: dict, prefix: str = "") -> dict:
    """The relayout that turns layout ``old`` into ``new`` (dotted keys; None deletes)."""
    out: dict = {}
    for key in {*old, *new}:
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out.update(_flat_diff(a, b, f"{prefix}{key}."))
        elif not _same(a, b):
            out[prefix + key] = b
    return out


def _same(a, b) -> bool:
    """Equal as JSON (numpy arrays and lists alike; a layout's template holds a "data" key,
    which ``plotly.io.to_json`` would take for a figure)."""
    if a is None or b is None:
        return a is b
    return (json.dumps(a, cls=PlotlyJSONEncoder, sort_keys=True)
            == json.dumps(b, cls=PlotlyJSONEncoder, sort_keys=True))


def fit_changes(fig: go.FigureWidget) -> dict:
    """What :func:`simcore.viz.layout.fit_layout` changes in ``fig``'s layout, as a relayout.

    The fitting runs on a plain copy (inside ``batch_update`` a widget reads back its old
    values), so a live explorer gets exactly the layout its static twin gets from ``show``.
    """
    spec = fig.to_dict()
    spec["layout"].pop("template", None)  # fit_layout does not read it; slow to validate
    fitted = fit_layout(go.Figure(spec)).layout.to_plotly_json()
    now = fig.layout.to_plotly_json()
    for layout in (fitted, now):
        layout.pop("template", None)
    return _flat_diff(now, fitted)


class FigureWidget(go.FigureWidget):
    """``go.FigureWidget`` with a loader instead of the 5 MB bundle in its state, and a layout
    fitted (:func:`fit_changes`) after every update made in the kernel."""

    _esm = _LOADER

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_msg(self._on_page_message)
        self.fit()

    def fit(self) -> dict:
        """Fit the layout now (one relayout message if anything changes); returns the changes."""
        changes = fit_changes(self)
        if changes:
            self.plotly_relayout(changes)
        return changes

    def _fitted(self, layout_data: dict) -> dict:
        """``layout_data`` plus the fitting it calls for, applied to the kernel's layout."""
        self._fit_pending = False
        changes = fit_changes(self)
        if not changes:
            return layout_data
        return {**layout_data, **self._perform_plotly_relayout(changes)}

    @contextmanager
    def batch_update(self):
        """plotly's ``batch_update``; a batch that only added or removed traces (no update
        message to carry the fitting) is fitted after it."""
        outer = not self._in_batch_mode
        if outer:
            self._fit_pending = True
        with super().batch_update():
            yield
        if outer and self._fit_pending:
            self.fit()

    def _send_relayout_msg(self, layout_data, source_view_id=None):
        if source_view_id is None:  # the kernel's change, not the reader's zoom or pan
            layout_data = self._fitted(layout_data)
        super()._send_relayout_msg(merge_relayout(self.layout, layout_data), source_view_id)

    def _send_update_msg(self, restyle_data, relayout_data, trace_indexes=None,
                         source_view_id=None):
        if source_view_id is None:
            relayout_data = self._fitted(relayout_data)
        super()._send_update_msg(restyle_data, merge_relayout(self.layout, relayout_data),
                                 trace_indexes, source_view_id)

    def get_state(self, key=None, drop_defaults=False) -> dict:
        """The widget's state with the figure as it is now. plotly sends its changes as
        messages and leaves ``_widget_data`` and ``_widget_layout`` as they were when the
        widget was made, so a page reloaded while the kernel runs (JupyterLab asks for
        every widget's state again) drew the explorer's first, often empty, figure and
        kept applying changes to it."""
        state = super().get_state(key=key, drop_defaults=drop_defaults)
        if "_layout_obj" not in self.__dict__:  # still being made: nothing changed yet
            return state
        for name, now in (("_widget_data", self._data),
                          ("_widget_layout", self._layout_obj._props)):
            if name in state:
                to_json = self.trait_metadata(name, "to_json", self._trait_to_json)
                state[name] = to_json(deepcopy(now), self)
        return state

    def _on_page_message(self, _widget, content, _buffers) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "disklab-sync":
            # the figure as the kernel has it, inside the reply (a state update could be
            # applied after the reply is handled)
            now = json.loads(pio.to_json({"data": self._data, "layout": self._layout_obj._props},
                                         validate=False))
            self.send({"type": "disklab-synced", "data": now["data"], "layout": now["layout"]})
        elif kind == "disklab-bundle":
            self.send({"type": "disklab-bundle", "source": BUNDLE.read_text(encoding="utf-8")})


BUSY = ('<span style="color:#8a5a00">&#8987; computing&hellip; (the figure below is the '
        'previous one)</span>')


def fit_screen(explorer: w.Box) -> w.HTML:
    """Lay an explorer out for a 1280 px window with JupyterLab's file browser open.

    Rows of controls and of figures wrap instead of overflowing (two figures side by side
    need about 1000 px; the notebook's output area there is about 850 px), and every label is
    as wide as its text ("writes_starved", not "writes_sta..."). Returns the explorer's busy
    indicator, added at the end of its first row, for :func:`busy`.
    """
    def walk(box):
        for child in getattr(box, "children", ()):
            if isinstance(child, w.HBox):
                child.layout.flex_flow = "row wrap"
                child.layout.align_items = "center"
            if isinstance(child, w.DOMWidget) and getattr(child, "description", ""):
                child.style.description_width = "initial"
            walk(child)

    walk(explorer)
    indicator = w.HTML("", layout=w.Layout(min_width="1px"))
    first = explorer.children[0] if explorer.children else None
    if isinstance(first, w.HBox):
        first.children = (*first.children, indicator)
    else:
        explorer.children = (indicator, *explorer.children)
    return indicator


@contextmanager
def busy(indicator: w.HTML | None):
    """Show "computing..." while the block runs; the old figures stay until the new ones come.

    For the explorers whose simulation can take longer than a redraw should (more than about
    0.1 s on a small machine): the kernel sends the indicator before it starts computing.
    """
    if indicator is None:
        yield
        return
    indicator.value = BUSY
    try:
        yield
    finally:
        indicator.value = ""


def computing(method):
    """Decorate an explorer's redraw: its busy indicator shows while it runs."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with busy(getattr(self, "busy", None)):
            return method(self, *args, **kwargs)
    return run
