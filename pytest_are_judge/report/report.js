/* pytest-are-judge HTML report: renders the embedded JSON (no network, no libraries). */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("are-report-data").textContent || "{}");
  var runs = data.runs || [];
  var summary = data.summary || {};

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
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function fmt(x) { return x === null || x === undefined ? "\u221e" : (Math.round(x * 10) / 10).toString(); }

  /* ---------------------------------------------------------------- totals */
  var totals = document.getElementById("totals");
  var counts = { total: runs.length, passed: 0, failed: 0, error: 0 };
  runs.forEach(function (r) { counts[r.status] = (counts[r.status] || 0) + 1; });
  ["total", "passed", "failed", "error"].forEach(function (k) {
    var n = summary[k] !== undefined ? summary[k] : counts[k];
    totals.appendChild(el("span", { "class": "s-" + k }, k + ": " + n));
  });
  Object.keys(summary).forEach(function (k) {
    var v = summary[k];
    if (["total", "passed", "failed", "error", "by_failure_kind"].indexOf(k) >= 0) return;
    if (v === null || typeof v === "object") return;
    totals.appendChild(el("span", { "class": "s-total" }, k + ": " + v));
  });

  /* ---------------------------------------------- repeated runs (pass^k) */
  function pct(x) { return x === null || x === undefined ? "n/a" : (Math.round(x * 1000) / 10).toFixed(1) + "%"; }
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
  }

  /* --------------------------------------------------------------- filters */
  var kinds = {};
  runs.forEach(function (r) { if (r.failure_kind) kinds[r.failure_kind] = true; });
  var fKind = document.getElementById("f-kind");
  Object.keys(kinds).sort().forEach(function (k) { fKind.appendChild(el("option", { value: k }, k)); });
  var fStatus = document.getElementById("f-status");
  var fText = document.getElementById("f-text");
  var fCount = document.getElementById("f-count");

  /* ------------------------------------------------------------- the table */
  var tbody = document.querySelector("#summary tbody");
  var runsBox = document.getElementById("runs");
  var rows = [];
  runs.forEach(function (r, i) {
    var matched = (r.oracle_nodes || []).filter(function (n) { return n.status === "matched"; }).length;
    var tr = el("tr", { "data-status": r.status, "data-kind": r.failure_kind || "", "data-index": i });
    var td = el("td"); td.appendChild(el("span", { "class": "badge s-" + r.status }, r.status)); tr.appendChild(td);
    tr.appendChild(el("td", {}, r.scenario_id));
    tr.appendChild(el("td", {}, r.run_id));
    tr.appendChild(el("td", {}, r.failure_kind || ""));
    tr.appendChild(el("td", {}, matched + "/" + (r.oracle_nodes || []).length));
    tr.appendChild(el("td", {}, (r.turns_judged || 0) + "/" + (r.nb_turns || 0)));
    tr.appendChild(el("td", { "class": "muted" }, r.source || ""));
    tr.addEventListener("click", function () {
      var d = document.getElementById("run-" + i);
      d.open = true;
      d.scrollIntoView({ behavior: "smooth", block: "start" });
    });
    tbody.appendChild(tr);
    var det = renderRun(r, i);
    runsBox.appendChild(det);
    var hay = [r.scenario_id, r.run_id, r.source, r.failure_kind, r.failure_text].join("\n").toLowerCase();
    rows.push({ tr: tr, det: det, run: r, hay: hay });
  });

  function applyFilters() {
    var st = fStatus.value, kd = fKind.value, q = fText.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (x) {
      var ok = (!st || x.run.status === st) && (!kd || x.run.failure_kind === kd) && (!q || x.hay.indexOf(q) >= 0);
      x.tr.classList.toggle("hidden", !ok);
      x.det.classList.toggle("hidden", !ok);
      if (ok) shown++;
    });
    fCount.textContent = shown + " of " + rows.length + " runs shown";
  }
  [fStatus, fKind].forEach(function (x) { x.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);
  var params = new URLSearchParams(window.location.search);
  if (params.get("status")) fStatus.value = params.get("status");
  if (params.get("kind")) fKind.value = params.get("kind");
  if (params.get("q")) fText.value = params.get("q");
  applyFilters();
  document.body.setAttribute("data-rendered", String(runs.length));

  /* ----------------------------------------------------------- run details */
  function renderRun(r, i) {
    var det = el("details", { "class": "run", id: "run-" + i, "data-status": r.status });
    if (r.status !== "passed" && runs.length <= 20) det.open = true;
    var sum = el("summary");
    sum.appendChild(el("span", { "class": "badge s-" + r.status }, r.status));
    sum.appendChild(document.createTextNode(" " + r.scenario_id + " : " + r.run_id + (r.failure_kind ? "  [" + r.failure_kind + "]" : "")));
    det.appendChild(sum);
    var body = el("div", { "class": "run-body" });
    body.appendChild(el("div", { "class": "muted" },
      (r.nodeid ? r.nodeid + "  \u00b7 " : "") + (r.outcome ? "pytest: " + r.outcome + "  \u00b7 " : "") + (r.source || "") + (r.run_number !== null && r.run_number !== undefined ? "  \u00b7 run #" + r.run_number : "") +
      (r.expected === "fail" ? "  \u00b7 expected to fail" : "")));
    body.appendChild(el("h3", {}, "Oracle graph"));
    body.appendChild(legend());
    var g = el("div", { "class": "scroll" }); g.appendChild(dag(r)); body.appendChild(g);
    body.appendChild(el("h3", {}, "Timeline (seconds after start; blue boxes: tolerance windows)"));
    var t = el("div", { "class": "scroll" }); t.appendChild(timeline(r)); body.appendChild(t);
    if (r.failure_text) {
      body.appendChild(el("h3", {}, "Failure report"));
      body.appendChild(el("pre", { "class": "failure" }, r.failure_text));
    }
    if (r.plan_error) body.appendChild(el("p", { "class": "muted" }, "No graph: " + r.plan_error));
    det.appendChild(body);
    return det;
  }

  function legend() {
    var d = el("div", { "class": "legend" });
    [["matched", "#dafbe1", "#1a7f37"], ["failed", "#ffebe9", "#cf222e"], ["unmatched", "#fff", "#cf222e"], ["not reached", "#f6f8fa", "#6e7781"]]
      .forEach(function (x) {
        var s = el("span"); var i = el("i"); i.style.background = x[1]; i.style.borderColor = x[2];
        s.appendChild(i); s.appendChild(document.createTextNode(x[0])); d.appendChild(s);
      });
    return d;
  }

  function dag(r) {
    var nodes = r.oracle_nodes || [];
    var W = 180, H = 50, GX = 50, GY = 16, PAD = 12;
    var depth = {}, byId = {};
    nodes.forEach(function (n) {
      byId[n.id] = n;
      var d = 0;
      (n.deps || []).forEach(function (p) { if (depth[p] !== undefined) d = Math.max(d, depth[p] + 1); });
      depth[n.id] = d;
    });
    var cols = {};
    nodes.forEach(function (n) { (cols[depth[n.id]] = cols[depth[n.id]] || []).push(n); });
    var pos = {}, maxRow = 0, maxCol = 0;
    Object.keys(cols).forEach(function (c) {
      cols[c].forEach(function (n, row) {
        pos[n.id] = { x: PAD + c * (W + GX), y: PAD + row * (H + GY) };
        maxRow = Math.max(maxRow, row); maxCol = Math.max(maxCol, +c);
      });
    });
    var width = PAD * 2 + (maxCol + 1) * (W + GX) - GX, height = PAD * 2 + (maxRow + 1) * (H + GY) - GY;
    var svg = sv("svg", { width: Math.max(width, 200), height: Math.max(height, 40), "class": "dag", role: "img" });
    var defs = sv("defs");
    var m = sv("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" });
    m.appendChild(sv("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8c959f" }));
    defs.appendChild(m); svg.appendChild(defs);
    nodes.forEach(function (n) {
      (n.deps || []).forEach(function (p) {
        if (!pos[p]) return;
        var a = pos[p], b = pos[n.id];
        var x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
        svg.appendChild(sv("path", { "class": "edge", d: "M" + x1 + "," + y1 + " C" + mx + "," + y1 + " " + mx + "," + y2 + " " + x2 + "," + y2, "marker-end": "url(#arrow)" }));
      });
    });
    nodes.forEach(function (n) {
      var p = pos[n.id];
      var g = sv("g", { "class": "node n-" + n.status, transform: "translate(" + p.x + "," + p.y + ")", "data-id": n.id, "data-status": n.status });
      g.appendChild(sv("rect", { width: W, height: H, rx: 6 }));
      g.appendChild(sv("text", { x: 8, y: 15, "class": "node-id" }, clip(n.id, 26)));
      g.appendChild(sv("text", { x: 8, y: 29 }, clip(shortTool(n.tool) + " \u00b7 turn " + n.turn, 30)));
      g.appendChild(sv("text", { x: 8, y: 43, "class": "muted", fill: "#57606a" },
        n.matched_agent_event ? clip("\u2192 " + n.matched_agent_event, 30) : n.status.replace("_", " ")));
      title(g, n.tool + "\nstatus: " + n.status + "\noracle time: +" + fmt(n.time) + "s" +
        (n.matched_agent_event ? "\nmatched agent event: " + n.matched_agent_event : "") +
        "\nargs: " + clip(JSON.stringify(n.args || {}), 400));
      svg.appendChild(g);
    });
    return svg;
  }

  function timeline(r) {
    var nodes = (r.oracle_nodes || []).filter(function (n) { return n.type === "AGENT"; });
    var evs = (r.agent_events || []).filter(function (e) { return e.type === "AGENT"; });
    var wins = r.windows || {};
    var times = [0];
    nodes.forEach(function (n) { times.push(n.time); var w = wins[n.id]; if (w) { if (w[0] !== null) times.push(w[0]); if (w[1] !== null) times.push(w[1]); } });
    evs.forEach(function (e) { times.push(e.time); });
    var t0 = Math.min.apply(null, times), t1 = Math.max.apply(null, times);
    if (t1 - t0 < 1) t1 = t0 + 1;
    var L = 170, R = 20, PW = 760, LANE = 18, TOP = 24;
    var x = function (t) { return L + (t - t0) / (t1 - t0) * PW; };
    var agentY = TOP + nodes.length * LANE + 22;
    var height = agentY + 34;
    var svg = sv("svg", { width: L + PW + R, height: height, "class": "timeline", role: "img" });
    var step = niceStep((t1 - t0) / 8);
    for (var t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      svg.appendChild(sv("line", { "class": "axis", x1: x(t), x2: x(t), y1: TOP - 6, y2: height - 14 }));
      svg.appendChild(sv("text", { x: x(t), y: TOP - 10, "text-anchor": "middle", fill: "#6e7781" }, fmt(t)));
    }
    var yOf = {};
    nodes.forEach(function (n, i) {
      var y = TOP + i * LANE + LANE / 2;
      yOf[n.id] = y;
      svg.appendChild(sv("text", { x: 4, y: y + 4, "class": n.status === "matched" ? "" : "node-id", fill: n.status === "matched" ? "#1f2328" : "#cf222e" }, clip(n.id, 24)));
      var w = wins[n.id];
      if (w) {
        var lo = w[0] === null ? t0 : w[0], hi = w[1] === null ? t1 : w[1];
        title(svg.appendChild(sv("rect", { "class": "window", x: x(lo), y: y - 6, width: Math.max(2, x(hi) - x(lo)), height: 12, rx: 2 })),
          n.id + " window [" + fmt(w[0]) + ", " + fmt(w[1]) + "] s");
      }
      title(svg.appendChild(sv("circle", { "class": "tick-oracle", cx: x(n.time), cy: y, r: 4 })),
        "oracle " + n.id + " (" + n.tool + ") at +" + fmt(n.time) + "s");
    });
    svg.appendChild(sv("text", { x: 4, y: agentY + 4, "class": "node-id" }, "agent"));
    var agentX = {};
    evs.forEach(function (e) {
      agentX[e.id] = x(e.time);
      var cls = "tick-agent" + (e.judged ? " judged" : "") + (e.matched_oracle ? " matched" : "");
      title(svg.appendChild(sv("rect", { "class": cls, x: x(e.time) - 2, y: agentY - 8, width: 4, height: 16 })),
        "agent " + e.id + " (" + e.tool + ") at +" + fmt(e.time) + "s" + (e.matched_oracle ? " \u2192 " + e.matched_oracle : "") + (e.judged ? "" : " (not judged)"));
    });
    nodes.forEach(function (n) {
      if (n.matched_agent_event && agentX[n.matched_agent_event] !== undefined) {
        svg.appendChild(sv("line", { "class": "link", x1: x(n.time), y1: yOf[n.id], x2: agentX[n.matched_agent_event], y2: agentY - 8 }));
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
