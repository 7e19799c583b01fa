// The live page: follows /api/games/{id}/events (Server-Sent Events). Every message is public:
// an event and the table after it, as every seat sees it, released after the tournament's delay.
"use strict";

(() => {
  const root = document.getElementById("live");
  if (!root) return;
  const T = ScoutTable;
  const $ = (id) => document.getElementById(id);
  let names = JSON.parse(root.dataset.seats);
  let rounds = 0;
  let table = null;
  let ended = [];
  let log = [];
  let seen = 0;

  function status(text, state) {
    $("status").textContent = text;
    $("dot").classList.toggle("live", state === "playing");
    root.dataset.status = state;
  }

  function draw() {
    if (table) {
      T.render($("table"), T.fromTable(names, table, null, null));
      T.scores($("scores"), names, ended, rounds);
    }
    const list = T.el("ol", "log");
    log.forEach((text, i) => list.append(T.el("li", i === log.length - 1 ? "current" : "", text)));
    $("log").replaceChildren(list);
    list.scrollTop = list.scrollHeight;
  }

  function time(iso) { return new Date(iso).toLocaleTimeString(); }

  const source = new EventSource(root.dataset.events);
  source.addEventListener("game", (m) => {
    const d = JSON.parse(m.data);
    names = d.seats;
    table = null; ended = []; log = []; seen = 0;
    $("delay").textContent = d.delay_s > 0 ? `shown ${d.delay_s} s after it happens` : "shown as it happens";
    status(d.attempt > 1 ? `Live · attempt ${d.attempt} (the last one was voided)` : "Live", "playing");
    $("badge").textContent = "running";
    $("badge").className = "badge running";
    $("caption").textContent = "Waiting for the first move to be shown…";
    draw();
  });
  source.addEventListener("waiting", () => {
    status("Waiting for the game to start", "waiting");
    $("caption").textContent = "The game is not being played right now; this page follows it as soon as it starts.";
  });
  source.addEventListener("event", (m) => {
    const d = JSON.parse(m.data);
    const before = table ? table.active_set.length : 0;
    table = d.table;
    rounds = table.rounds;
    seen = d.seq + 1;
    root.dataset.seen = String(seen);
    if (d.event.type === "round_ended") ended[d.event.round] = d.event;
    if (d.event.type === "round_started") log = [];
    const text = ScoutEvents.tell(names, d.event, { taken: before });
    log.push(text);
    $("caption").textContent = `${text} (played ${time(d.played_at)})`;
    draw();
  });
  source.addEventListener("end", (m) => {
    const d = JSON.parse(m.data);
    if (d.finished) {
      source.close();
      $("badge").textContent = "finished";
      $("badge").className = "badge finished";
    }
    status(d.finished ? "Game over" : "Stopped", d.finished ? "ended" : "waiting");
    $("caption").replaceChildren(
      document.createTextNode(d.finished ? "The game is over. " : "The game was stopped; it is played again later. "),
      Object.assign(document.createElement("a"), { href: `/games/${root.dataset.game}`, textContent: "Open the replay" }),
    );
  });
  source.onerror = () => { if (root.dataset.status !== "ended") status("Reconnecting…", "waiting"); };
})();
