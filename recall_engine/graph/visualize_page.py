"""The HTML page ``render_graph_html`` fills in: inline CSS and JS, no outside resource.

Placeholders (``__TITLE__``, ``__DATA__``, ``__NODES__``, ``__EDGES__``,
``__TOTAL_NODES__``, ``__SAMPLED__``) are replaced by already-escaped text. The
nodes arrive laid out; the script fits the visible ones into the canvas with a
margin (one scale, one shift, and no zoom past an edge of ``MAX_EDGE_PX``),
draws them with sizes in screen pixels, and labels as many as fit without two
labels overlapping, best-connected first. Drag pans, the wheel zooms at the
cursor, double-click or "fit" fits again; the legend hides and shows kinds.
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  html, body { height: 100%; margin: 0; overflow: hidden; }
  body { display: flex; flex-direction: column; font: 14px system-ui, sans-serif;
         color: #222; background: #fafafa; }
  header { display: flex; gap: 8px 16px; align-items: center; padding: 8px 12px;
           border-bottom: 1px solid #ddd; background: #fff; flex-wrap: wrap; flex: none; }
  h1 { font-size: 16px; margin: 0; }
  #search { padding: 4px 8px; width: 240px; }
  #legend { display: flex; gap: 10px; flex-wrap: wrap; }
  .legend-item { cursor: pointer; user-select: none; }
  .legend-item.off { opacity: 0.35; text-decoration: line-through; }
  .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%;
            margin-right: 4px; }
  #sampled { color: #a05a00; }
  #sampled:empty { display: none; }
  main { position: relative; flex: 1; min-height: 0; }
  canvas { position: absolute; inset: 0; width: 100%; height: 100%; cursor: grab; }
  #details { position: absolute; right: 12px; top: 12px; max-width: 380px; background: #fff;
             border: 1px solid #ddd; padding: 8px; display: none; white-space: pre-wrap; }
  #render-errors { color: #b00; }
  #layout-dump { display: none; }
</style>
</head>
<body>
<header>
  <h1>__TITLE__</h1>
  <input id="search" type="search" placeholder="Search entities by name"
         aria-label="Search entities">
  <span>nodes: <span id="node-count">__NODES__</span> (of __TOTAL_NODES__)</span>
  <span>edges: <span id="edge-count">__EDGES__</span></span>
  <span>matches: <span id="match-count">0</span></span>
  <span id="sampled">__SAMPLED__</span>
  <button id="fit" type="button" title="Fit the graph to the window (or double-click)">fit</button>
  <span id="render-status">loading</span>
  <span id="render-errors"></span>
  <div id="legend"></div>
</header>
<main>
  <canvas id="graph"></canvas>
  <div id="details"></div>
</main>
<pre id="layout-dump"></pre>
<script type="application/json" id="graph-data">__DATA__</script>
<script>
"use strict";
window.addEventListener("error", function (e) {
  document.getElementById("render-errors").textContent = "error: " + e.message;
  document.getElementById("render-status").textContent = "failed";
});
(function () {
  var MARGIN = 40, MAX_EDGE_PX = 160, HUB_LABELS = 12, FONT = "12px system-ui, sans-serif";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var nodes = data.nodes, edges = data.edges, colors = {}, hidden = {}, query = "";
  data.types.forEach(function (t) { colors[t.type] = t.color; });
  data.hidden.forEach(function (t) { hidden[t] = true; });
  window.graphStats = {nodes: nodes.length, edges: edges.length,
                       totalNodes: data.total_nodes, totalEdges: data.total_edges};
  document.getElementById("node-count").textContent = String(nodes.length);
  document.getElementById("edge-count").textContent = String(edges.length);

  var degree = nodes.map(function () { return 0; }), links = nodes.map(function () { return []; });
  edges.forEach(function (e) {
    degree[e.source]++; degree[e.target]++;
    links[e.source].push(e); links[e.target].push(e);
  });
  nodes.forEach(function (d, i) { d.i = i; d.size = Math.min(7, Math.sqrt(degree[i]) * 1.5); });
  var byDegree = nodes.slice().sort(function (a, b) {
    return degree[b.i] - degree[a.i] || a.i - b.i;
  });

  var canvas = document.getElementById("graph"), ctx = canvas.getContext("2d");
  var details = document.getElementById("details"), view = {x: 0, y: 0, k: 1}, fitted = view;
  function visible(d) { return !hidden[d.type]; }
  function matches(d) {
    if (!query) return false;
    if (d.name.toLowerCase().indexOf(query) >= 0) return true;
    return d.aliases.some(function (a) { return a.toLowerCase().indexOf(query) >= 0; });
  }
  function sx(d) { return view.x + d.x * view.k; }
  function sy(d) { return view.y + d.y * view.k; }

  function fit() {
    var w = canvas.clientWidth, h = canvas.clientHeight, shown = nodes.filter(visible);
    if (!shown.length) { view = fitted = {x: w / 2, y: h / 2, k: 1}; return; }
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    shown.forEach(function (d) {
      x0 = Math.min(x0, d.x); y0 = Math.min(y0, d.y);
      x1 = Math.max(x1, d.x); y1 = Math.max(y1, d.y);
    });
    var bw = x1 - x0, bh = y1 - y0;
    var k = Math.min(bw > 0 ? (w - 2 * MARGIN) / bw : Infinity,
                     bh > 0 ? (h - 2 * MARGIN) / bh : Infinity,
                     MAX_EDGE_PX / Math.max(data.edge_length, 1e-9));
    if (!isFinite(k) || k <= 0) k = 1;
    view = {k: k, x: w / 2 - (x0 + bw / 2) * k, y: h / 2 - (y0 + bh / 2) * k};
    fitted = {k: k, x: view.x, y: view.y};
  }

  function draw() {
    var w = canvas.clientWidth, h = canvas.clientHeight, ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    var hits = 0, drawn = [];
    // Dots shrink when many share the screen (about one per 40x40 px keeps full size).
    var count = nodes.filter(visible).length, room = Math.sqrt(w * h / Math.max(1, count));
    var shrink = Math.max(0.4, Math.min(1, room / 40 * Math.sqrt(view.k / fitted.k)));
    nodes.forEach(function (d) {
      d.r = (4 + d.size) * shrink;
      d.hit = matches(d); if (d.hit && visible(d)) hits++;
    });
    document.getElementById("match-count").textContent = String(hits);
    ctx.font = FONT; ctx.lineWidth = 1;
    var shownEdges = edges.filter(function (e) {
      return visible(nodes[e.source]) && visible(nodes[e.target]);
    });
    var ink = Math.max(0.05, Math.min(0.3, 10 / Math.sqrt(shownEdges.length + 1)));
    shownEdges.forEach(function (e) {
      var s = nodes[e.source], t = nodes[e.target], lit = s.hit || t.hit;
      ctx.strokeStyle = "rgba(0,0,0," + (query && !lit ? 0.05 : lit ? 0.5 : ink) + ")";
      // a superseded fact: dashed, labelled with the dates it held
      ctx.setLineDash(e.valid_until ? [5, 4] : []);
      ctx.beginPath(); ctx.moveTo(sx(s), sy(s)); ctx.lineTo(sx(t), sy(t)); ctx.stroke();
      ctx.setLineDash([]);
      if (lit || (!query && shownEdges.length <= 60)) {
        ctx.fillStyle = "#777";
        var label = e.valid_until
          ? e.predicate + " (" + (e.valid_from || "?") + " \u2013 " + e.valid_until + ")"
          : e.predicate;
        ctx.fillText(label, (sx(s) + sx(t)) / 2 + 3, (sy(s) + sy(t)) / 2 - 3);
      }
    });
    nodes.forEach(function (d) {
      if (!visible(d)) return;
      var x = sx(d), y = sy(d);
      drawn.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
      ctx.globalAlpha = query && !d.hit ? 0.2 : 1;
      ctx.fillStyle = colors[d.type] || "#999";
      ctx.beginPath(); ctx.arc(x, y, d.r, 0, 2 * Math.PI); ctx.fill();
      if (d.hit) { ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.stroke(); ctx.lineWidth = 1; }
    });
    ctx.globalAlpha = 1;
    drawLabels(w, h);
    var rect = canvas.getBoundingClientRect();
    document.getElementById("layout-dump").textContent = JSON.stringify({
      viewport: [window.innerWidth, window.innerHeight],
      canvas: [rect.left, rect.top, rect.width, rect.height],
      nodes: drawn.map(function (p) { return [p[0] + rect.left, p[1] + rect.top]; })
    });
  }

  function drawLabels(w, h) {
    // Best-connected first (search hits before everything); each label tries the right,
    // left, top and bottom of its node and is skipped when all four would cover another
    // label or node, so labels never pile up, at any size or zoom.
    var cell = 64, grid = {};
    function keys(b) {
      var out = [];
      for (var gx = Math.floor(b[0] / cell); gx <= Math.floor(b[2] / cell); gx++) {
        for (var gy = Math.floor(b[1] / cell); gy <= Math.floor(b[3] / cell); gy++) {
          out.push(gx + "," + gy);
        }
      }
      return out;
    }
    function free(b, own, overDots) {
      return keys(b).every(function (key) {
        return (grid[key] || []).every(function (o) {
          if (o[4] === own || (overDots && o[5])) return true;
          return !(b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]);
        });
      });
    }
    function put(b) { keys(b).forEach(function (key) { (grid[key] = grid[key] || []).push(b); }); }
    var shown = nodes.filter(function (d) { return visible(d) && (!query || d.hit); });
    shown.forEach(function (d) {
      var x = sx(d), y = sy(d);
      put([x - d.r, y - d.r, x + d.r, y + d.r, d.i, true]);
    });
    var order = byDegree.filter(function (d) { return d.hit; })
      .concat(byDegree.filter(function (d) { return !d.hit; }));
    ctx.font = FONT; ctx.lineJoin = "round"; ctx.lineWidth = 3; ctx.strokeStyle = "#fafafa";
    ctx.fillStyle = "#222";
    order.forEach(function (d, rank) {
      if (!visible(d) || (query && !d.hit)) return;
      var x = sx(d), y = sy(d), tw = ctx.measureText(d.name).width, gap = d.r + 3;
      if (x < -tw || y < -20 || x > w + tw || y > h + 20) return;
      var spots = [[x + gap, y + 4], [x - gap - tw, y + 4], [x - tw / 2, y - gap - 2],
                   [x - tw / 2, y + gap + 11]];
      for (var s = 0; s < spots.length; s++) {
        var lx = spots[s][0], ly = spots[s][1], box = [lx - 1, ly - 10, lx + tw + 1, ly + 3, d.i];
        if (box[0] < 0 || box[2] > w) continue;
        // The few best-connected may cover dots (a hub sits among its neighbours).
        if (free(box, d.i, rank < HUB_LABELS)) {
          put(box); ctx.strokeText(d.name, lx, ly); ctx.fillText(d.name, lx, ly); return;
        }
      }
    });
  }

  var legend = document.getElementById("legend");
  data.types.forEach(function (t) {
    var item = document.createElement("span"), swatch = document.createElement("span");
    item.className = "legend-item" + (hidden[t.type] ? " off" : "");
    swatch.className = "swatch"; swatch.style.background = t.color;
    item.title = hidden[t.type] ? "hidden at first; click to show" : "click to hide";
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(t.type + " (" + t.count + ")"));
    item.addEventListener("click", function () {
      hidden[t.type] = !hidden[t.type]; item.classList.toggle("off"); fit(); draw();
    });
    legend.appendChild(item);
  });
  document.getElementById("search").addEventListener("input", function (e) {
    query = e.target.value.trim().toLowerCase(); draw();
  });
  document.getElementById("fit").addEventListener("click", function () { fit(); draw(); });
  canvas.addEventListener("dblclick", function () { fit(); draw(); });

  function nearest(ev) {
    var rect = canvas.getBoundingClientRect();
    var px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    var best = null, bestD = 144;
    nodes.forEach(function (d) {
      var dx = sx(d) - px, dy = sy(d) - py, dd = dx * dx + dy * dy;
      if (visible(d) && dd < bestD) { best = d; bestD = dd; }
    });
    return best;
  }
  function describe(d) {
    var lines = [d.name + " (" + d.type + ")"];
    if (d.description) lines.push(d.description);
    if (d.aliases.length) lines.push("aliases: " + d.aliases.join(", "));
    links[d.i].slice(0, 10).forEach(function (e) {
      var other = nodes[e.source === d.i ? e.target : e.source];
      lines.push((e.source === d.i ? "-> " : "<- ") + e.predicate + " " + other.name +
                 (e.time ? " (" + e.time + ")" : ""));
    });
    if (links[d.i].length > 10) lines.push("... " + (links[d.i].length - 10) + " more");
    return lines.join("\\n");
  }
  var drag = null;
  canvas.addEventListener("mousedown", function (ev) {
    drag = {x: ev.clientX - view.x, y: ev.clientY - view.y};
  });
  window.addEventListener("mouseup", function () { drag = null; });
  canvas.addEventListener("mousemove", function (ev) {
    if (drag) { view.x = ev.clientX - drag.x; view.y = ev.clientY - drag.y; draw(); return; }
    var best = nearest(ev);
    details.style.display = best ? "block" : "none";
    if (best) details.textContent = describe(best);
  });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var rect = canvas.getBoundingClientRect();
    var px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    var f = ev.deltaY < 0 ? 1.15 : 1 / 1.15;
    view.x = px - (px - view.x) * f; view.y = py - (py - view.y) * f; view.k *= f; draw();
  }, {passive: false});
  window.addEventListener("resize", function () { fit(); draw(); });
  fit();
  draw();
  document.getElementById("render-status").textContent = "ok";
})();
</script>
</body>
</html>
"""
