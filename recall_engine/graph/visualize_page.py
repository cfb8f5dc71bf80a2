"""The HTML page ``render_graph_html`` fills in: inline CSS and JS, no outside resource.

Placeholders (``__TITLE__``, ``__DATA__``, ``__NODES__``, ``__EDGES__``,
``__TOTAL_NODES__``) are replaced by already-escaped text. The script reads the
graph from the JSON element, lays it out with a small deterministic force
simulation (circle start, fixed iteration count), and draws on a canvas.
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; color: #222; background: #fafafa; }
  header { display: flex; gap: 16px; align-items: center; padding: 8px 12px;
           border-bottom: 1px solid #ddd; background: #fff; flex-wrap: wrap; }
  h1 { font-size: 16px; margin: 0; }
  #search { padding: 4px 8px; width: 240px; }
  #legend { display: flex; gap: 10px; flex-wrap: wrap; }
  .legend-item { cursor: pointer; user-select: none; }
  .legend-item.off { opacity: 0.35; text-decoration: line-through; }
  .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%;
            margin-right: 4px; }
  main { position: relative; }
  canvas { display: block; width: 100%; height: calc(100vh - 52px); cursor: grab; }
  #details { position: absolute; right: 12px; top: 12px; max-width: 360px; background: #fff;
             border: 1px solid #ddd; padding: 8px; display: none; white-space: pre-wrap; }
  #render-errors { color: #b00; }
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
  <span id="render-status">loading</span>
  <span id="render-errors"></span>
  <div id="legend"></div>
</header>
<main>
  <canvas id="graph"></canvas>
  <div id="details"></div>
</main>
<script type="application/json" id="graph-data">__DATA__</script>
<script>
"use strict";
window.addEventListener("error", function (e) {
  document.getElementById("render-errors").textContent = "error: " + e.message;
  document.getElementById("render-status").textContent = "failed";
});
(function () {
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var nodes = data.nodes, edges = data.edges, colors = {};
  data.types.forEach(function (t) { colors[t.type] = t.color; });
  window.graphStats = {nodes: nodes.length, edges: edges.length,
                       totalNodes: data.total_nodes, totalEdges: data.total_edges};
  document.getElementById("node-count").textContent = String(nodes.length);
  document.getElementById("edge-count").textContent = String(edges.length);

  var n = nodes.length, hidden = {}, query = "", degree = new Array(n).fill(0);
  edges.forEach(function (e) { degree[e.source]++; degree[e.target]++; });
  nodes.forEach(function (d, i) {
    var a = 2 * Math.PI * i / Math.max(n, 1), r = 40 + 12 * Math.sqrt(n);
    d.x = r * Math.cos(a); d.y = r * Math.sin(a); d.vx = 0; d.vy = 0;
    d.r = 4 + Math.min(8, Math.sqrt(degree[i]) * 2);
  });
  var iterations = Math.max(10, Math.min(300, Math.floor(4e7 / Math.max(1, n * n))));
  for (var it = 0; it < iterations; it++) {
    var cool = 1 - it / iterations;
    for (var i = 0; i < n; i++) {
      for (var j = i + 1; j < n; j++) {
        var dx = nodes[i].x - nodes[j].x, dy = nodes[i].y - nodes[j].y;
        var d2 = dx * dx + dy * dy + 0.01, f = 900 / d2;
        nodes[i].vx += dx * f; nodes[i].vy += dy * f; nodes[j].vx -= dx * f; nodes[j].vy -= dy * f;
      }
    }
    edges.forEach(function (e) {
      var s = nodes[e.source], t = nodes[e.target];
      var dx = t.x - s.x, dy = t.y - s.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01;
      var f = (d - 60) * 0.02;
      s.vx += dx / d * f; s.vy += dy / d * f; t.vx -= dx / d * f; t.vy -= dy / d * f;
    });
    nodes.forEach(function (d) {
      d.vx -= d.x * 0.002; d.vy -= d.y * 0.002;
      var v = Math.sqrt(d.vx * d.vx + d.vy * d.vy), cap = 20 * cool + 1;
      if (v > cap) { d.vx *= cap / v; d.vy *= cap / v; }
      d.x += d.vx; d.y += d.vy; d.vx *= 0.5; d.vy *= 0.5;
    });
  }

  var canvas = document.getElementById("graph"), ctx = canvas.getContext("2d");
  var view = {x: 0, y: 0, k: 1}, details = document.getElementById("details");
  function visible(d) { return !hidden[d.type]; }
  function matches(d) {
    if (!query) return false;
    if (d.name.toLowerCase().indexOf(query) >= 0) return true;
    return d.aliases.some(function (a) { return a.toLowerCase().indexOf(query) >= 0; });
  }
  function draw() {
    var w = canvas.clientWidth, h = canvas.clientHeight, ratio = window.devicePixelRatio || 1;
    canvas.width = w * ratio; canvas.height = h * ratio;
    ctx.setTransform(ratio * view.k, 0, 0, ratio * view.k,
                     ratio * (w / 2 + view.x), ratio * (h / 2 + view.y));
    ctx.clearRect(-1e5, -1e5, 2e5, 2e5);
    var hits = 0, labels = n <= 150 || view.k > 1.5;
    nodes.forEach(function (d) { d.hit = matches(d); if (d.hit && visible(d)) hits++; });
    document.getElementById("match-count").textContent = String(hits);
    ctx.lineWidth = 1 / view.k; ctx.font = (11 / view.k) + "px system-ui, sans-serif";
    edges.forEach(function (e) {
      var s = nodes[e.source], t = nodes[e.target];
      if (!visible(s) || !visible(t)) return;
      var lit = s.hit || t.hit;
      ctx.strokeStyle = query && !lit ? "rgba(0,0,0,0.05)" : "rgba(0,0,0,0.25)";
      ctx.beginPath(); ctx.moveTo(s.x, s.y); ctx.lineTo(t.x, t.y); ctx.stroke();
      if (lit || (labels && !query && edges.length <= 300)) {
        ctx.fillStyle = "#555"; ctx.fillText(e.predicate, (s.x + t.x) / 2, (s.y + t.y) / 2);
      }
    });
    nodes.forEach(function (d) {
      if (!visible(d)) return;
      ctx.globalAlpha = query && !d.hit ? 0.2 : 1;
      ctx.fillStyle = colors[d.type] || "#999";
      ctx.beginPath(); ctx.arc(d.x, d.y, d.r, 0, 2 * Math.PI); ctx.fill();
      if (d.hit) {
        ctx.strokeStyle = "#000"; ctx.lineWidth = 2 / view.k; ctx.stroke();
        ctx.lineWidth = 1 / view.k;
      }
      if (labels || d.hit) { ctx.fillStyle = "#222"; ctx.fillText(d.name, d.x + d.r + 2, d.y + 3); }
    });
    ctx.globalAlpha = 1;
  }

  var legend = document.getElementById("legend");
  data.types.forEach(function (t) {
    var item = document.createElement("span"), swatch = document.createElement("span");
    item.className = "legend-item"; swatch.className = "swatch"; swatch.style.background = t.color;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(t.type + " (" + t.count + ")"));
    item.addEventListener("click", function () {
      hidden[t.type] = !hidden[t.type]; item.classList.toggle("off"); draw();
    });
    legend.appendChild(item);
  });
  document.getElementById("search").addEventListener("input", function (e) {
    query = e.target.value.trim().toLowerCase(); draw();
  });
  function toGraph(ev) {
    var rect = canvas.getBoundingClientRect();
    return {x: (ev.clientX - rect.left - rect.width / 2 - view.x) / view.k,
            y: (ev.clientY - rect.top - rect.height / 2 - view.y) / view.k};
  }
  var drag = null;
  canvas.addEventListener("mousedown", function (ev) {
    drag = {x: ev.clientX - view.x, y: ev.clientY - view.y};
  });
  window.addEventListener("mouseup", function () { drag = null; });
  canvas.addEventListener("mousemove", function (ev) {
    if (drag) { view.x = ev.clientX - drag.x; view.y = ev.clientY - drag.y; draw(); return; }
    var p = toGraph(ev), best = null, bestD = 100 / (view.k * view.k);
    nodes.forEach(function (d) {
      var dd = (d.x - p.x) * (d.x - p.x) + (d.y - p.y) * (d.y - p.y);
      if (visible(d) && dd < bestD) { best = d; bestD = dd; }
    });
    details.style.display = best ? "block" : "none";
    if (best) {
      details.textContent = best.name + " (" + best.type + ")" +
        (best.description ? "\\n" + best.description : "") +
        (best.aliases.length ? "\\naliases: " + best.aliases.join(", ") : "");
    }
  });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault(); view.k *= ev.deltaY < 0 ? 1.1 : 1 / 1.1; draw();
  }, {passive: false});
  window.addEventListener("resize", draw);
  draw();
  document.getElementById("render-status").textContent = "ok";
})();
</script>
</body>
</html>
"""
