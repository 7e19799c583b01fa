// A bot's rating history: μ after each game and the μ ± 3σ band, drawn with uPlot (vendored).
// The page holds an element with data-src, the API path of the history; nothing else is needed.
(function () {
  "use strict";
  const box = document.getElementById("history-plot");
  if (!box || typeof uPlot === "undefined") return;

  function draw(points) {
    box.textContent = "";
    if (points.length === 0) {
      box.innerHTML = '<p class="muted">No rated game yet.</p>';
      box.dataset.state = "empty";
      return;
    }
    const games = points.map((_, i) => i + 1);
    const mu = points.map((p) => p.mu);
    const high = points.map((p) => p.mu + 3 * p.sigma);
    const low = points.map((p) => p.mu - 3 * p.sigma);
    const accent = "#d9480f";
    const options = {
      width: Math.max(240, box.clientWidth),
      height: 300,
      scales: { x: { time: false } },
      axes: [{ label: "games" }, { label: "rating" }],
      series: [
        { label: "game" },
        { label: "μ + 3σ", stroke: "rgba(217,72,15,.35)", width: 1, value: (u, v) => v == null ? "–" : v.toFixed(2) },
        { label: "μ", stroke: accent, width: 2, value: (u, v) => v == null ? "–" : v.toFixed(2) },
        { label: "μ − 3σ", stroke: "rgba(217,72,15,.35)", width: 1, value: (u, v) => v == null ? "–" : v.toFixed(2) },
      ],
      bands: [{ series: [1, 3], fill: "rgba(217,72,15,.10)" }],
    };
    const plot = new uPlot(options, [games, high, mu, low], box);
    box.dataset.state = "drawn";
    box.dataset.points = String(points.length);
    new ResizeObserver(() => plot.setSize({ width: Math.max(240, box.clientWidth), height: 300 })).observe(box);
  }

  fetch(box.dataset.src, { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
    .then((body) => draw(body.items))
    .catch(() => { box.innerHTML = '<p class="muted">The history could not be loaded.</p>'; box.dataset.state = "failed"; });
})();
