/* pytest-are-judge HTML report: draws the embedded run records (no network, no libraries).
   Every text from a run goes through textContent or an SVG text node: never parsed as HTML. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("are-report-data").textContent || "{}");
  var runs = data.runs || [];
  var summary = data.summary || {};
  var COLLAPSE_OVER = 20;
  var STATES = [["matched", "matched"], ["rejected", "rejected (the failure is here)"], ["not_reached", "not reached (judging stopped before it)"]];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function title(node, text) { node.appendChild(sv("title", {}, text)); return node; }
  function shortTool(t) { var i = (t || "").indexOf("__"); return i >= 0 ? t.slice(i + 2) : (t || ""); }
  function clip(s, n) { s = String(s === undefined || s === null ? "" : s); return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function fmt(x) { return x === null || x === undefined ? "\u221e" : (Math.round(x * 10) / 10).toString(); }
  function pct(x) { return x === null || x === undefined ? "n/a" : (Math.round(x * 1000) / 10).toFixed(1) + "%"; }

  /* A run's status as people read it: a declared known-bad run that fails is an expected failure. */
  function status(r) {
    if (r.verdict === "error") return "error";
    if (r.expected === "fail") return r.verdict === "fail" ? "xfailed" : "xpassed";
    return r.verdict === "pass" ? "passed" : "failed";
  }
  var LABEL = { passed: "passed", failed: "failed", error: "error", xfailed: "expected failure", xpassed: "known-bad passed" };

  /* ---------------------------------------------------------------- totals */
  var totals = document.getElementById("totals");
  var TOTALS = [["total", "runs", "s-total"], ["passed", "passed", "s-passed"], ["failed", "failed", "s-failed"],
    ["expected_failures", "failed as expected", "s-xfailed"], ["unexpected_passes", "known-bad passed", "s-xpassed"],
    ["error", "errors", "s-error"]];
  TOTALS.forEach(function (t) {
    var n = summary[t[0]];
    if (n === undefined || (n === 0 && (t[0] === "expected_failures" || t[0] === "unexpected_passes"))) return;
    totals.appendChild(el("span", { "class": n === 0 && t[0] !== "total" ? "s-zero" : t[2], "data-total": t[0] }, t[1] + ": " + n));
  });
  Object.keys(summary).forEach(function (k) {
    var v = summary[k];
    if (TOTALS.some(function (t) { return t[0] === k; }) || k === "by_failure_kind") return;
    if (v === null || typeof v === "object") return;
    totals.appendChild(el("span", { "class": "s-total", "data-total": k }, k.replace(/_/g, " ") + ": " + v));
  });
  var green = (summary.failed || 0) === 0 && (summary.error || 0) === 0 && (summary.unexpected_passes || 0) === 0;
  document.body.setAttribute("data-overall", green ? "green" : "red");
  document.querySelector("header").classList.add(green ? "overall-green" : "overall-red");
  if (data.settings) document.getElementById("settings").textContent = data.settings;

  /* ---------------------------------------------- repeated runs (pass^k) */
  var repeats = data.repeats;
  if (repeats && repeats.k) {
    var box = document.getElementById("repeats");
    box.classList.remove("hidden");
    var k = repeats.k, o = repeats.overall || {};
    box.appendChild(el("h2", {}, "Repeated runs (k=" + k + "): pass@" + k + " " + pct(o.pass_at_k) + ", pass^" + k + " " + pct(o.pass_hat_k)));
    var tb = el("table", { "class": "summary", id: "repeats-table" });
    var hasBase = !!repeats.baseline;
    var base = (repeats.baseline || {}).scenarios || {};
    var hr = el("tr");
    ["Scenario", "Runs", "Passed", "pass@" + k, "pass^" + k].concat(hasBase ? ["vs baseline"] : []).forEach(function (h) { hr.appendChild(el("th", {}, h)); });
    var th = el("thead"); th.appendChild(hr); tb.appendChild(th);
    var body = el("tbody");
    Object.keys(repeats.scenarios || {}).forEach(function (sid) {
      var r = repeats.scenarios[sid], b = base[sid];
      var tr = el("tr", { "data-scenario": sid, "data-repeat-status": b ? b.status : "" });
      [sid, r.n, r.c, pct(r.pass_at_k), pct(r.pass_hat_k)].forEach(function (c) { tr.appendChild(el("td", {}, c)); });
      if (hasBase) {
        var cmp = b && b.baseline && b.current ? b.status + " (" + pct(b.baseline.pass_hat_k) + " \u2192 " + pct(b.current.pass_hat_k) + ")" : (b ? b.status : "");
        var td = el("td", {}, cmp);
        if (b && b.status === "regressed") td.className = "s-failed";
        tr.appendChild(td);
      }
      body.appendChild(tr);
    });
    var ov = el("tr", { "class": "overall" });
    ["overall (" + (o.scored || 0) + " scored)", o.runs, o.passes, pct(o.pass_at_k), pct(o.pass_hat_k)].concat(hasBase ? [""] : []).forEach(function (c) { ov.appendChild(el("td", {}, c)); });
    body.appendChild(ov);
    tb.appendChild(body);
    box.appendChild(tb);
    if (repeats.min_pass_hat_k !== null && repeats.min_pass_hat_k !== undefined) {
      box.appendChild(el("p", { "class": repeats.gate_passed ? "s-passed" : "s-failed" },
        (repeats.gate_passed ? "OK" : "FAILED") + ": pass^" + k + " " + pct(o.pass_hat_k) + " vs minimum " + pct(repeats.min_pass_hat_k)));
    }
  }

  /* --------------------------------------------------------------- filters */
  var kinds = {}, hasBaseline = false;
  runs.forEach(function (r) { if (r.failure_kind) kinds[r.failure_kind] = true; if (r.baseline) hasBaseline = true; });
  var fKind = document.getElementById("f-kind");
  Object.keys(kinds).sort().forEach(function (k) { fKind.appendChild(el("option", { value: k }, k)); });
  var fStatus = document.getElementById("f-status");
  ["passed", "failed", "xfailed", "xpassed", "error"].forEach(function (s) { fStatus.appendChild(el("option", { value: s }, LABEL[s])); });
  var fBase = document.getElementById("f-baseline");
  if (hasBaseline) {
    fBase.parentNode.classList.remove("hidden");
    ["regressed", "improved", "still failing", "new", "unchanged"].forEach(function (s) { fBase.appendChild(el("option", { value: s }, s)); });
    document.getElementById("baseline-col").classList.remove("hidden");
  }
  var fText = document.getElementById("f-text");
  var fCount = document.getElementById("f-count");

  /* ------------------------------------------------------------- the table */
  var tbody = document.querySelector("#summary tbody");
  var runsBox = document.getElementById("runs");
  var rows = [];
  runs.forEach(function (r, i) {
    var st = status(r);
    var oracle = (r.trace || {}).oracle || [];
    var matched = oracle.filter(function (n) { return n.state === "matched"; }).length;
    var tr = el("tr", { "data-status": st, "data-kind": r.failure_kind || "", "data-index": i, "data-baseline": r.baseline || "" });
    var td = el("td"); td.appendChild(el("span", { "class": "badge s-" + st }, LABEL[st])); tr.appendChild(td);
    tr.appendChild(el("td", {}, r.scenario_id));
    tr.appendChild(el("td", {}, r.run_id));
    tr.appendChild(el("td", {}, r.failure_kind || ""));
    tr.appendChild(el("td", {}, matched + "/" + oracle.length));
    tr.appendChild(el("td", {}, (r.turns_judged || 0) + "/" + (r.nb_turns || 0)));
    var bt = el("td", { "class": hasBaseline ? "" : "hidden" });
    if (r.baseline) bt.appendChild(el("span", { "class": "badge b-" + r.baseline.replace(/ /g, "-") }, r.baseline));
    tr.appendChild(bt);
    tr.appendChild(el("td", { "class": "muted" }, r.path || ""));
    tr.addEventListener("click", function () { openRun(i, true); });
    tbody.appendChild(tr);
    var det = renderRun(r, i, st);
    runsBox.appendChild(det);
    var hay = [r.scenario_id, r.run_id, r.path, r.nodeid, r.failure_kind, r.failure_text].join("\n").toLowerCase();
    rows.push({ tr: tr, det: det, run: r, st: st, hay: hay });
  });

  function openRun(i, scroll) {
    var d = document.getElementById("run-" + i);
    if (!d) return;
    d.classList.remove("hidden");
    d.open = true;
    if (scroll) d.scrollIntoView({ block: "start" });
  }

  function applyFilters() {
    var st = fStatus.value, kd = fKind.value, bs = fBase.value, q = fText.value.trim().toLowerCase();
    var active = !!(st || kd || bs || q), shown = [];
    rows.forEach(function (x) {
      var ok = (!st || x.st === st) && (!kd || x.run.failure_kind === kd) && (!bs || x.run.baseline === bs) && (!q || x.hay.indexOf(q) >= 0);
      x.tr.classList.toggle("hidden", !ok);
      x.det.classList.toggle("hidden", !ok);
      if (ok) shown.push(x);
    });
    // a filter that narrows the list opens what it matched
    if (active && shown.length <= COLLAPSE_OVER) shown.forEach(function (x) { x.det.open = true; });
    fCount.textContent = shown.length + " of " + rows.length + " runs shown";
  }
  [fStatus, fKind, fBase].forEach(function (x) { x.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);
  var params = new URLSearchParams(window.location.search);
  if (params.get("status")) fStatus.value = params.get("status");
  if (params.get("kind")) fKind.value = params.get("kind");
  if (params.get("baseline")) fBase.value = params.get("baseline");
  if (params.get("q")) fText.value = params.get("q");
  applyFilters();
  function fromHash() {
    var m = /^#run-(\d+)$/.exec(window.location.hash);
    if (m) openRun(+m[1], true);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.setAttribute("data-rendered", String(runs.length));

  /* ----------------------------------------------------------- run details */
  function renderRun(r, i, st) {
    var det = el("details", { "class": "run", id: "run-" + i, "data-status": st });
    if ((st === "failed" || st === "error" || st === "xpassed") && runs.length <= COLLAPSE_OVER) det.open = true;
    var sum = el("summary");
    sum.appendChild(el("span", { "class": "badge s-" + st }, LABEL[st]));
    sum.appendChild(document.createTextNode(" " + (r.scenario_id || r.path || "input") + " : " + (r.run_id || "") + (r.failure_kind ? "  [" + r.failure_kind + "]" : "")));
    if (r.baseline) { sum.appendChild(document.createTextNode(" ")); sum.appendChild(el("span", { "class": "badge b-" + r.baseline.replace(/ /g, "-") }, "baseline: " + r.baseline)); }
    sum.appendChild(el("a", { href: "#run-" + i, "class": "permalink", title: "link to this run" }, "#"));
    det.appendChild(sum);
    var body = el("div", { "class": "run-body" });
    var meta = [];
    if (r.nodeid) meta.push(r.nodeid);
    if (r.outcome) meta.push("pytest: " + r.outcome);
    if (r.path) meta.push(r.path);
    if (r.run_number !== null && r.run_number !== undefined) meta.push("run #" + r.run_number);
    if (r.expected === "fail") meta.push("declared known-bad (expect: fail)");
    body.appendChild(el("div", { "class": "muted" }, meta.join("  \u00b7  ")));
    if ((r.notes || []).length) {
      var notes = el("ul", { "class": "notes" });
      r.notes.forEach(function (n) { notes.appendChild(el("li", {}, n)); });
      body.appendChild(notes);
    }
    var trace = r.trace;
    if (trace && (trace.oracle || []).length) {
      body.appendChild(el("h3", {}, "Oracle graph"));
      body.appendChild(legend());
      var g = el("div", { "class": "graph" }); g.appendChild(dag(trace)); body.appendChild(g);
      body.appendChild(el("h3", {}, "Timeline (seconds after the scenario start; oracle events where the agent was expected, blue boxes: checked time windows)"));
      var t = el("div", { "class": "graph" }); t.appendChild(timeline(trace)); body.appendChild(t);
    }
    if (r.failure_text) {
      body.appendChild(el("h3", {}, "Failure report"));
      body.appendChild(el("pre", { "class": "failure" }, r.failure_text));
    } else if (st === "xpassed") {
      body.appendChild(el("p", { "class": "s-xpassed" }, "Declared known-bad (expect: fail), but the judge passed it."));
    }
    det.appendChild(body);
    return det;
  }

  function legend() {
    var d = el("div", { "class": "legend" });
    STATES.forEach(function (x) {
      var s = el("span"); s.appendChild(el("i", { "class": "l-" + x[0] })); s.appendChild(document.createTextNode(x[1])); d.appendChild(s);
    });
    return d;
  }

  /* Layered top-to-bottom layout: a chain grows downwards (never off the right edge); the SVG
     scales down to the page width through its viewBox. */
  function dag(trace) {
    var nodes = trace.oracle || [];
    var W = 190, H = 50, GX = 24, GY = 34, PAD = 12;
    var depth = {};
    nodes.forEach(function (n) {
      var d = 0;
      (n.deps || []).forEach(function (p) { if (depth[p] !== undefined) d = Math.max(d, depth[p] + 1); });
      depth[n.id] = d;
    });
    var layers = {};
    nodes.forEach(function (n) { (layers[depth[n.id]] = layers[depth[n.id]] || []).push(n); });
    var maxCols = 1, nLayers = 0;
    Object.keys(layers).forEach(function (l) { maxCols = Math.max(maxCols, layers[l].length); nLayers = Math.max(nLayers, +l + 1); });
    var width = PAD * 2 + maxCols * (W + GX) - GX, height = PAD * 2 + nLayers * (H + GY) - GY;
    var pos = {};
    Object.keys(layers).forEach(function (l) {
      var row = layers[l], off = (width - (row.length * (W + GX) - GX)) / 2;
      row.forEach(function (n, c) { pos[n.id] = { x: off + c * (W + GX), y: PAD + (+l) * (H + GY) }; });
    });
    var svg = sv("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height, "class": "dag", role: "img" });
    var defs = sv("defs");
    var m = sv("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" });
    m.appendChild(sv("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8c959f" }));
    defs.appendChild(m); svg.appendChild(defs);
    nodes.forEach(function (n) {
      (n.deps || []).forEach(function (p) {
        if (!pos[p]) return;
        var a = pos[p], b = pos[n.id];
        var x1 = a.x + W / 2, y1 = a.y + H, x2 = b.x + W / 2, y2 = b.y, my = (y1 + y2) / 2;
        svg.appendChild(sv("path", { "class": "edge", d: "M" + x1 + "," + y1 + " C" + x1 + "," + my + " " + x2 + "," + my + " " + x2 + "," + y2, "marker-end": "url(#arrow)" }));
      });
    });
    nodes.forEach(function (n) {
      var p = pos[n.id];
      var g = sv("g", { "class": "node n-" + n.state, transform: "translate(" + p.x + "," + p.y + ")", "data-id": n.id, "data-state": n.state });
      g.appendChild(sv("rect", { width: W, height: H, rx: 6 }));
      g.appendChild(sv("text", { x: 8, y: 15, "class": "node-id" }, clip(n.id, 27)));
      g.appendChild(sv("text", { x: 8, y: 29 }, clip(shortTool(n.tool) + " \u00b7 turn " + n.turn, 31)));
      var third = n.agent_event ? "\u2192 " + n.agent_event : (n.state === "not_reached" ? "not reached" : "rejected");
      g.appendChild(sv("text", { x: 8, y: 43, "class": "muted", fill: "#57606a" }, clip(third, 31)));
      title(g, n.tool + "\nstate: " + n.state.replace("_", " ") + (n.note ? " (" + n.note + ")" : "") +
        "\nexpected at +" + fmt(n.expected_time) + "s (oracle run: +" + fmt(n.oracle_time) + "s)" +
        (n.window ? "\nchecked window: [" + fmt(n.window[0]) + ", " + fmt(n.window[1]) + "] s" : "\ntime not checked") +
        (n.agent_event ? "\nmatched agent event: " + n.agent_event : "") +
        "\nargs: " + clip(JSON.stringify(n.args || {}), 400));
      svg.appendChild(g);
    });
    return svg;
  }

  /* One lane per oracle event (where the agent was expected, its checked window) and one lane
     per agent event (labelled), in the agent's own time frame, turn boundaries dashed. */
  function timeline(trace) {
    var nodes = trace.oracle || [];
    var evs = (trace.agent || []).slice(0, 300);
    var times = [0];
    nodes.forEach(function (n) { times.push(n.expected_time); if (n.window) { if (n.window[0] !== null) times.push(n.window[0]); if (n.window[1] !== null) times.push(n.window[1]); } });
    evs.forEach(function (e) { times.push(e.time); });
    var t0 = Math.min.apply(null, times), t1 = Math.max.apply(null, times);
    if (t1 - t0 < 1) t1 = t0 + 1;
    var L = 230, R = 24, PW = 720, LANE = 17, TOP = 26, GAP = 22;
    var x = function (t) { return L + (t - t0) / (t1 - t0) * PW; };
    var agentTop = TOP + nodes.length * LANE + GAP;
    var height = agentTop + evs.length * LANE + 10;
    var width = L + PW + R;
    var svg = sv("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height, "class": "timeline", role: "img" });
    var step = niceStep((t1 - t0) / 8);
    for (var t = Math.ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
      svg.appendChild(sv("line", { "class": "axis", x1: x(t), x2: x(t), y1: TOP - 6, y2: height - 4 }));
      svg.appendChild(sv("text", { x: x(t), y: TOP - 10, "text-anchor": "middle", fill: "#6e7781" }, fmt(t)));
    }
    var turnStart = {};
    evs.forEach(function (e) { if (turnStart[e.turn] === undefined) turnStart[e.turn] = e.time; });
    Object.keys(turnStart).forEach(function (k) {
      if (+k === 0) return;
      var tx = x(turnStart[k]);
      svg.appendChild(sv("line", { "class": "turn", x1: tx, x2: tx, y1: TOP - 6, y2: height - 4 }));
      svg.appendChild(sv("text", { x: tx + 3, y: height - 6, fill: "#8250df" }, "turn " + k));
    });
    var yOf = {};
    nodes.forEach(function (n, i) {
      var y = TOP + i * LANE + LANE / 2;
      yOf[n.id] = y;
      var lane = sv("g", { "class": "lane oracle-lane s-" + n.state, "data-id": n.id, "data-state": n.state, "data-window": n.window ? "checked" : "none" });
      lane.appendChild(sv("text", { x: 4, y: y + 4, "class": n.state === "matched" ? "" : "node-id" }, clip(n.id + " \u00b7 " + shortTool(n.tool), 34)));
      if (n.window) {
        var lo = n.window[0] === null ? t0 : n.window[0], hi = n.window[1] === null ? t1 : n.window[1];
        title(lane.appendChild(sv("rect", { "class": "window", x: x(lo), y: y - 6, width: Math.max(2, x(hi) - x(lo)), height: 12, rx: 2 })),
          n.id + " checked window [" + fmt(n.window[0]) + ", " + fmt(n.window[1]) + "] s");
      }
      var shape = n.type === "AGENT" ? "tick-oracle" : "tick-env";
      title(lane.appendChild(sv("circle", { "class": shape + " o-" + n.state, cx: x(n.expected_time), cy: y, r: 4 })),
        (n.type === "AGENT" ? "oracle " : n.type.toLowerCase() + " ") + n.id + " (" + n.tool + ") expected at +" + fmt(n.expected_time) + "s");
      svg.appendChild(lane);
    });
    svg.appendChild(sv("line", { "class": "sep", x1: 0, x2: width, y1: agentTop - GAP / 2, y2: agentTop - GAP / 2 }));
    var agentY = {};
    evs.forEach(function (e, i) {
      var y = agentTop + i * LANE + LANE / 2;
      agentY[e.id] = y;
      var lane = sv("g", { "class": "lane agent-lane", "data-id": e.id, "data-matched": e.matched || "" });
      lane.appendChild(sv("text", { x: 4, y: y + 4, fill: e.judged ? "#1f2328" : "#8c959f" }, clip((e.type === "AGENT" ? "" : e.type.toLowerCase() + " ") + e.id + " \u00b7 " + shortTool(e.tool), 34)));
      var cls = "tick-agent" + (e.judged ? " judged" : "") + (e.matched ? " matched" : "");
      title(lane.appendChild(sv("rect", { "class": cls, x: x(e.time) - 2, y: y - 6, width: 4, height: 12 })),
        e.type.toLowerCase() + " " + e.id + " (" + e.tool + ") at +" + fmt(e.time) + "s, turn " + e.turn +
        (e.matched ? " \u2192 " + e.matched : "") + (e.judged ? "" : " (not judged: " + e.why_not + ")"));
      svg.appendChild(lane);
    });
    nodes.forEach(function (n) {
      if (n.agent_event && agentY[n.agent_event] !== undefined) {
        var ev = evs.filter(function (e) { return e.id === n.agent_event; })[0];
        svg.appendChild(sv("line", { "class": "link", x1: x(n.expected_time), y1: yOf[n.id], x2: x(ev.time), y2: agentY[n.agent_event] }));
      }
    });
    return svg;
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    var f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
})();
