/* Figures on a narrow screen (a phone): smaller text, titles re-wrapped to the width, the top
   legend moved under the wrapped title, a bottom legend given the room its extra rows need.
   The figures' own layout (simcore.viz.layout.fit_layout) is for the book's 1280 px view; this
   only adapts it below NARROW px and restores it when the figure is wide again. */
(function () {
  "use strict";
  var NARROW = 560, PAD = 10, LINE = 1.3, GAP = 6;

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
    (lay.sliders || []).forEach(function (sl, i) {
      s["sliders[" + i + "].x"] = sl.x == null ? 0 : sl.x;
      s["sliders[" + i + "].len"] = sl.len == null ? 1 : sl.len;
      s["sliders[" + i + "].font.size"] = (sl.font && sl.font.size) || null;
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
      u["title.y"] = 1 - (PAD + (newPx - PAD) / 2) / h;
    }
    if (leg.yref === "container" && leg.yanchor === "top") {
      u["legend.y"] = 1 - ((text ? newPx + GAP : 8)) / h;
    }
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
    /* subplot titles sit on the plot's top edge: wrap them to their column, room above */
    var anns = lay.annotations || [], tops = anns.filter(function (an) {
      return an.yref === "paper" && an.y >= 1 && an.yanchor === "bottom";
    }), extra = 0;
    anns.forEach(function (an, i) {
      u["annotations[" + i + "].font.size"] = 11;
      if (tops.indexOf(an) < 0 || !an.text) return;
      var col = (w - u["margin.l"] - u["margin.r"]) / tops.length, t = wrap(an.text, Math.max(12, Math.floor(col / 6.2)), true);
      s["annotations[" + i + "].text"] = s["annotations[" + i + "].text"] || an.text;
      u["annotations[" + i + "].text"] = t;
      extra = Math.max(extra, 14 * (lines(t) - 1));
    });
    if (u["margin.t"] != null) u["margin.t"] += extra;
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
    });
    return u;
  }

  /* a bottom legend grows by rows on a phone: give the bottom margin what it now measures */
  function fitBottomLegend(gd) {
    var leg = gd.layout.legend || {}, box = gd.querySelector(".legend");
    if (!box || leg.yref !== "container" || leg.yanchor !== "bottom") return;
    var need = 72 + box.getBBox().height + 4;
    if (Math.abs(need - ((gd.layout.margin || {}).b || 0)) > 4) Plotly.relayout(gd, { "margin.b": need });
  }

  function adapt(gd) {
    if (!gd.layout || !window.Plotly || gd._disklabBusy) return;
    var narrow = gd.offsetWidth > 0 && gd.offsetWidth < NARROW;
    if (narrow === !!gd._disklabNarrow) return;
    if (!gd._disklabSaved) gd._disklabSaved = save(gd);
    gd._disklabNarrow = narrow;
    gd._disklabBusy = true;
    var upd = narrow ? narrowLayout(gd, gd._disklabSaved) : gd._disklabSaved;
    Plotly.relayout(gd, upd).then(function () {
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
