/* Figures on a narrow screen (a phone): smaller text, titles re-wrapped to the width, the top
   legend moved under the wrapped title, a bottom legend given the room its extra rows need,
   side-by-side subplots stacked one above the other (the figure grows taller), each slider's
   current value shown above it (plotly drops step labels that would collide).
   The figures' own layout (simcore.viz.layout.fit_layout) is for the book's 1280 px view; this
   only adapts it below NARROW px and restores it when the figure is wide again. */
(function () {
  "use strict";
  var NARROW = 560, PAD = 10, LINE = 1.3, GAP = 6;
  var CELL_MIN = 200, CELL_MAX = 300, CELL_GAP = 100;  /* px: a stacked subplot, the room under it */

  /* break text into lines of at most n characters; keep: keep the breaks it already has */
  function wrap(text, n, keep) {
    if (keep) return String(text || "").split(/<br\s*\/?>/i).map(function (t) { return wrap(t, n); }).join("<br>");
    var words = String(text || "").replace(/<br\s*\/?>/gi, " ").split(/\s+/), lines = [], cur = "";
    words.forEach(function (w) {
      if (cur && (cur + " " + w).length > n) { lines.push(cur); cur = w; } else { cur = cur ? cur + " " + w : w; }
    });
    if (cur) lines.push(cur);
    return lines.join("<br>");
  }

  function lines(text) { return text ? String(text).split(/<br\s*\/?>/i).length : 0; }

  function titleOf(lay) { var t = lay.title; return t && typeof t === "object" ? t.text : t; }

  function axes(lay) {
    return Object.keys(lay).filter(function (k) { return /^[xy]axis\d*$/.test(k); });
  }

  /* the cells of a grid of subplots with two or more columns, top row first, left to right;
     [] for any other figure (one plot, a second y axis overlaying the first, ...) */
  function cells(lay) {
    var out = [], cols = {};
    axes(lay).forEach(function (xa) {
      if (xa[0] !== "x") return;
      var x = lay[xa], ya = "yaxis" + String(x.anchor || "y").slice(1), y = lay[ya];
      if (!y || x.overlaying || y.overlaying) return;
      out.push({ x: xa, y: ya, xd: (x.domain || [0, 1]).slice(), yd: (y.domain || [0, 1]).slice() });
      cols[out[out.length - 1].xd.join()] = true;
    });
    if (out.length < 2 || Object.keys(cols).length < 2) return [];
    out.sort(function (a, b) { return (b.yd[1] - a.yd[1]) || (a.xd[0] - b.xd[0]); });
    return out;
  }

  /* the cell a subplot title (an annotation on a cell's top edge) belongs to, or -1 */
  function cellOf(grid, an) {
    for (var i = 0; i < grid.length; i++) {
      var c = grid[i];
      if (Math.abs(an.x - (c.xd[0] + c.xd[1]) / 2) < 0.02 && Math.abs(an.y - c.yd[1]) < 0.02) return i;
    }
    return -1;
  }

  function save(gd) {
    var lay = gd.layout, m = lay.margin || {}, leg = lay.legend || {}, s = {};
    s["font.size"] = (lay.font && lay.font.size) || 13;
    s["title.text"] = titleOf(lay);
    s["title.font.size"] = (lay.title && lay.title.font && lay.title.font.size) || 17;
    s["title.y"] = lay.title && lay.title.y;
    s["legend.y"] = leg.y;
    s["legend.font.size"] = (leg.font && leg.font.size) || null;
    if (leg.entrywidth != null) {
      s["legend.entrywidth"] = leg.entrywidth;
      s["legend.entrywidthmode"] = leg.entrywidthmode || "pixels";
    }
    ["t", "b", "l", "r"].forEach(function (k) { s["margin." + k] = m[k]; });
    axes(lay).forEach(function (a) {
      var t = lay[a].title;
      if (t && t.text) { s[a + ".title.text"] = t.text; s[a + ".title.font.size"] = (t.font && t.font.size) || null; }
    });
    (lay.annotations || []).forEach(function (an, i) {
      s["annotations[" + i + "].font.size"] = (an.font && an.font.size) || null;
    });
    Object.keys(s).forEach(function (k) { if (s[k] === undefined) delete s[k]; });
    var grid = cells(lay);
    if (grid.length) {
      s["height"] = lay.height || null;
      grid.forEach(function (c) {
        s[c.x + ".domain"] = c.xd; s[c.y + ".domain"] = c.yd;
        s[c.x + ".showticklabels"] = lay[c.x].showticklabels !== false;
        s[c.y + ".showticklabels"] = lay[c.y].showticklabels !== false;
      });
      (lay.annotations || []).forEach(function (an, i) {
        if (an.yref === "paper" && cellOf(grid, an) >= 0) { s["annotations[" + i + "].x"] = an.x; s["annotations[" + i + "].y"] = an.y; }
      });
    }
    (lay.sliders || []).forEach(function (sl, i) {
      s["sliders[" + i + "].x"] = sl.x == null ? 0 : sl.x;
      s["sliders[" + i + "].len"] = sl.len == null ? 1 : sl.len;
      s["sliders[" + i + "].font.size"] = (sl.font && sl.font.size) || null;
      s["sliders[" + i + "].currentvalue.visible"] = !(sl.currentvalue && sl.currentvalue.visible === false);
      s["sliders[" + i + "].currentvalue.font.size"] = (sl.currentvalue && sl.currentvalue.font && sl.currentvalue.font.size) || null;
    });
    return s;
  }

  function narrowLayout(gd, s) {
    var lay = gd.layout, w = gd.offsetWidth, h = lay.height || gd.offsetHeight || 420;
    var leg = lay.legend || {}, u = {}, size = 14;
    u["font.size"] = 11;
    u["margin.l"] = Math.min(s["margin.l"] == null ? 80 : s["margin.l"], 48);
    u["margin.r"] = Math.min(s["margin.r"] == null ? 80 : s["margin.r"], 12);
    var text = s["title.text"], oldPx = 0, newPx = 0;
    if (text) {
      var wrapped = wrap(text, Math.max(20, Math.floor((w - 16) / 7.4)));
      oldPx = PAD + LINE * s["title.font.size"] * lines(text);
      newPx = PAD + LINE * size * lines(wrapped);
      u["title.text"] = wrapped;
      u["title.font.size"] = size;
    }
    /* title and top legend in container units, for the height the figure ends with */
    function placeTop(height) {
      if (text) u["title.y"] = 1 - (PAD + (newPx - PAD) / 2) / height;
      if (leg.yref === "container" && leg.yanchor === "top") u["legend.y"] = 1 - ((text ? newPx + GAP : 8)) / height;
    }
    placeTop(h);
    u["legend.font.size"] = 10;
    if (leg.entrywidth != null) {  /* columns of a set width are too narrow here: size by text */
      u["legend.entrywidth"] = 0;
      u["legend.entrywidthmode"] = "pixels";
    }
    if (s["margin.t"] != null) u["margin.t"] = Math.max(16, s["margin.t"] - oldPx + newPx);
    axes(lay).forEach(function (a) {
      var t = s[a + ".title.text"];
      if (!t) return;
      var span = a[0] === "x" ? w * ((lay[a].domain || [0, 1])[1] - (lay[a].domain || [0, 1])[0]) : h * 0.6;
      u[a + ".title.text"] = wrap(t, Math.max(14, Math.floor(span / 6.6)));
      u[a + ".title.font.size"] = 11;
    });
    /* side-by-side subplots: one above the other, each as wide as the figure */
    var grid = cells(lay), stacked = grid.length > 0;
    /* subplot titles sit on the plot's top edge: wrap them to their column, room above */
    var anns = lay.annotations || [], tops = anns.filter(function (an) {
      return an.yref === "paper" && an.y >= 1 && an.yanchor === "bottom";
    }), extra = 0, titled = anns.filter(function (an) {
      return stacked && an.yref === "paper" && an.yanchor === "bottom" && cellOf(grid, an) >= 0;
    });
    anns.forEach(function (an, i) {
      u["annotations[" + i + "].font.size"] = 11;
      if ((tops.indexOf(an) < 0 && titled.indexOf(an) < 0) || !an.text) return;
      var col = (w - u["margin.l"] - u["margin.r"]) / (stacked ? 1 : tops.length), t = wrap(an.text, Math.max(12, Math.floor(col / 6.2)), true);
      s["annotations[" + i + "].text"] = s["annotations[" + i + "].text"] || an.text;
      u["annotations[" + i + "].text"] = t;
      extra = Math.max(extra, 14 * (lines(t) - 1));
    });
    if (u["margin.t"] != null) u["margin.t"] += extra;
    if (stacked) {
      var top = u["margin.t"] != null ? u["margin.t"] : (s["margin.t"] == null ? 100 : s["margin.t"]);
      var bottom = s["margin.b"] == null ? 80 : s["margin.b"], n = grid.length;
      var cell = Math.max(CELL_MIN, Math.min(CELL_MAX, ((s["height"] || h) - top - bottom) * (grid[0].yd[1] - grid[0].yd[0])));
      var gap = CELL_GAP + (titled.length ? 16 + extra : 0), plot = n * cell + (n - 1) * gap;
      u["height"] = Math.round(plot + top + bottom);
      placeTop(u["height"]);
      grid.forEach(function (c, k) {
        var hi = 1 - k * (cell + gap) / plot;
        u[c.x + ".domain"] = [0, 1];
        u[c.y + ".domain"] = [Math.max(0, hi - cell / plot), hi];
        u[c.x + ".showticklabels"] = true;
        u[c.y + ".showticklabels"] = true;
      });
      titled.forEach(function (an) {
        var i = anns.indexOf(an);
        u["annotations[" + i + "].x"] = 0.5;
        u["annotations[" + i + "].y"] = u[grid[cellOf(grid, an)].y + ".domain"][1];
      });
    }
    /* slider end labels: centred on the end steps, they must not run off a narrow figure */
    var plotW = Math.max(100, w - u["margin.l"] - u["margin.r"]);
    (lay.sliders || []).forEach(function (sl, i) {
      var steps = sl.steps || [], x0 = s["sliders[" + i + "].x"], x1 = x0 + s["sliders[" + i + "].len"];
      if (!steps.length) return;
      var half = function (st) { return 3.2 * String(st.label || "").length; };
      var left = Math.max(0, half(steps[0]) - 15 - u["margin.l"] + 6) / plotW;
      var right = Math.max(0, half(steps[steps.length - 1]) - 15 - u["margin.r"] + 6) / plotW;
      x0 = Math.max(x0, left); x1 = Math.min(x1, 1 - right);
      u["sliders[" + i + "].x"] = x0;
      u["sliders[" + i + "].len"] = Math.max(0.3, x1 - x0);
      u["sliders[" + i + "].font.size"] = 10;
      /* plotly drops step labels that would collide: the current value always reads */
      u["sliders[" + i + "].currentvalue.visible"] = true;
      u["sliders[" + i + "].currentvalue.font.size"] = 12;
    });
    return u;
  }

  /* a bottom legend grows by rows on a phone: give the bottom margin what it now measures */
  function fitBottomLegend(gd) {
    var leg = gd.layout.legend || {}, box = gd.querySelector(".legend");
    if (!box || leg.yref !== "container" || leg.yanchor !== "bottom") return;
    var need = 72 + box.getBBox().height + 4, b = (gd.layout.margin || {}).b || 0, u = { "margin.b": need };
    if (Math.abs(need - b) <= 4) return;
    if (gd._disklabStacked) u.height = gd.layout.height + need - b;  /* the cells keep their size */
    return Plotly.relayout(gd, u).then(function () { fitBox(gd); });
  }

  /* the book puts each figure in a box of the figure's height: a stacked figure is taller */
  function fitBox(gd) {
    var box = gd.parentElement;
    if (!box || !box.style) return;
    if (gd._disklabBoxHeight === undefined) gd._disklabBoxHeight = box.style.height;
    box.style.height = gd._disklabStacked ? gd.layout.height + "px" : gd._disklabBoxHeight;
  }

  function adapt(gd) {
    if (!gd.layout || !window.Plotly || gd._disklabBusy) return;
    var narrow = gd.offsetWidth > 0 && gd.offsetWidth < NARROW;
    if (narrow === !!gd._disklabNarrow) return;
    if (!gd._disklabSaved) gd._disklabSaved = save(gd);
    gd._disklabNarrow = narrow;
    gd._disklabBusy = true;
    var upd = narrow ? narrowLayout(gd, gd._disklabSaved) : gd._disklabSaved;
    gd._disklabStacked = narrow && upd.height != null;
    Plotly.relayout(gd, upd).then(function () {
      fitBox(gd);
      if (narrow) return fitBottomLegend(gd);
      if (gd._disklabSaved["margin.b"] != null) return Plotly.relayout(gd, { "margin.b": gd._disklabSaved["margin.b"] });
    }).finally(function () { gd._disklabBusy = false; });
  }

  /* a slider frame or a menu may set a new, unwrapped title */
  function rewrapTitle(gd) {
    if (!gd._disklabNarrow) return;
    var t = titleOf(gd.layout), n = Math.max(20, Math.floor((gd.offsetWidth - 16) / 7.4));
    if (t && wrap(t, n) !== t) Plotly.relayout(gd, { "title.text": wrap(t, n) });
  }

  function all() {
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (!gd._disklabHooked && gd.on) {
        gd._disklabHooked = true;
        gd.on("plotly_animated", function () { rewrapTitle(gd); });
        gd.on("plotly_buttonclicked", function () { setTimeout(function () { rewrapTitle(gd); }, 0); });
      }
      adapt(gd);
    });
  }

  var timer = null;
  window.addEventListener("load", all);
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(all, 250); });
})();
