// The replay viewer: steps through the frames of a finished game (/api/games/{id}/frames).
// "All hands" draws the omniscient table; a seat's view draws only that frame's views[seat],
// built by the arena from the same observation the referee sent that seat.
"use strict";

(() => {
  const root = document.getElementById("replay");
  if (!root) return;
  const T = ScoutTable;
  const $ = (id) => document.getElementById(id);
  let frames = [];
  let names = [];
  let rounds = 0;
  let at = 0;
  let view = "all";
  let timer = null;

  function mine() { return view === "all" ? null : Number(view); }

  // Seat `me`'s view of frame `f`: its table and the events new to it, given once for all seats
  // where they are the same (replay_frames.frame_json).
  function seen(f, me) {
    const v = f.views[me];
    return { table: v.table || f.public, news: v.news || f.events };
  }

  function model(i) {
    const f = frames[i];
    const me = mine();
    if (me === null) {
      return {
        names, active: f.active_set, owner: f.active_owner, toMove: f.to_move, me: null, scoutAndShow: names.length > 2,
        seats: f.seats.map((s) => ({
          hand: s.hand, handSize: s.hand.length, captured: s.captured, capturedCount: s.captured.length,
          chips: s.scout_chips, hasScoutShow: s.has_scout_show, flipped: s.flipped, total: s.total,
        })),
      };
    }
    return T.fromTable(names, seen(f, me).table, me, f.views[me].hand);
  }

  // What this step made known: the omniscient events, or the events in the seat's own history.
  function events(i) { return mine() === null ? frames[i].events : seen(frames[i], mine()).news; }

  function activeBefore(i) {
    if (i === 0) return 0;
    const p = frames[i - 1];
    return (mine() === null ? p.active_set : seen(p, mine()).table.active_set).length;
  }

  function caption(i) {
    const f = frames[i];
    const parts = [];
    const me = mine();
    if (f.move && "flip" in f.move.action) {
      if (me === null) {
        parts.push(`${names[f.move.seat]} ${f.move.action.flip ? "turns the hand over" : "keeps the hand as dealt"}.`);
      } else {
        const now = seen(f, me).table.seats[me].flipped;
        const before = i > 0 ? seen(frames[i - 1], me).table.seats[me].flipped : null;
        if (now !== null && before === null) parts.push(`${names[me]} (you) ${now ? "turned the hand over" : "kept the hand as dealt"}.`);
        else if (!events(i).length) parts.push("The seats decide, blind, whether to turn their hands over.");
      }
    }
    const taken = activeBefore(i);
    events(i).forEach((e) => parts.push(ScoutEvents.tell(names, e, { me: mine(), taken })));
    return parts.join(" ");
  }

  function ended(i) {
    const out = [];
    for (let k = 0; k <= i; k++) events(k).forEach((e) => { if (e.type === "round_ended") out[e.round] = e; });
    return out;
  }

  function roundStarts() {
    const starts = [];
    frames.forEach((f, i) => { if (f.move === null) starts.push(i); });
    return starts;
  }

  // The round so far: its steps from the deal up to the current one, never one still to come.
  function log(i) {
    const from = roundStarts()[frames[i].round];
    const list = T.el("ol", "log");
    list.start = 1;
    for (let k = from; k <= i; k++) {
      const text = caption(k);
      if (!text) continue;
      const item = T.el("li", k === i ? "current" : "", text);
      item.dataset.step = String(k);
      item.addEventListener("click", () => go(k));
      item.style.cursor = "pointer";
      list.append(item);
    }
    $("log").replaceChildren(list);
    list.scrollTop = list.scrollHeight;
  }

  function draw() {
    const f = frames[at];
    T.render($("table"), model(at));
    T.scores($("scores"), names, ended(at), rounds);
    $("caption").textContent = caption(at) || "\u00a0";
    $("stepinfo").textContent = `Step ${at + 1} of ${frames.length} · round ${f.round + 1} of ${rounds}`;
    $("step").value = String(at);
    $("first").disabled = $("prev").disabled = at === 0;
    $("last").disabled = $("next").disabled = at === frames.length - 1;
    document.querySelectorAll("[data-round]").forEach((b) => b.classList.toggle("current", Number(b.dataset.round) === f.round));
    root.dataset.step = String(at);
    root.dataset.view = view;
    log(at);
    history.replaceState(null, "", `#step=${at + 1}&view=${view}`);
  }

  function go(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    draw();
  }

  function roundJump(delta) {
    const starts = roundStarts();
    const r = frames[at].round + delta;
    if (r >= 0 && r < starts.length) go(starts[r]);
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Autoplay"; $("play").setAttribute("aria-pressed", "false"); return; }
    $("play").textContent = "Pause";
    $("play").setAttribute("aria-pressed", "true");
    timer = setInterval(() => { if (at >= frames.length - 1) play(); else go(at + 1); }, 700);
  }

  function controls() {
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(at - 1));
    $("next").addEventListener("click", () => go(at + 1));
    $("last").addEventListener("click", () => go(frames.length - 1));
    $("play").addEventListener("click", play);
    $("step").max = String(frames.length - 1);
    $("step").addEventListener("input", (e) => go(Number(e.target.value)));
    const jumps = $("rounds");
    for (let r = 0; r < rounds; r++) {
      const b = T.el("button", "", `R${r + 1}`);
      b.dataset.round = r;
      b.title = `Jump to the deal of round ${r + 1}`;
      b.addEventListener("click", () => go(roundStarts()[r]));
      jumps.append(b);
    }
    const select = $("view");
    names.forEach((n, s) => {
      const o = T.el("option", "", `${n}'s view (seat ${s + 1})`);
      o.value = String(s);
      select.append(o);
    });
    select.value = view;
    select.addEventListener("change", () => { view = select.value; draw(); });
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
      const keys = {
        ArrowLeft: () => go(at - 1), ArrowRight: () => go(at + 1), Home: () => go(0), End: () => go(frames.length - 1),
        PageUp: () => roundJump(-1), PageDown: () => roundJump(1),
      };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const step = Number(params.get("step"));
    if (Number.isInteger(step) && step >= 1) at = Math.min(step - 1, frames.length - 1);
    const v = params.get("view");
    if (v === "all" || (v !== null && /^\d+$/.test(v) && Number(v) < names.length)) view = v;
  }

  fetch(root.dataset.frames)
    .then((r) => { if (!r.ok) throw new Error(`${r.status} ${r.statusText}`); return r.json(); })
    .then((data) => {
      frames = data.frames;
      names = data.game.seats;
      rounds = data.game.rounds;
      fromHash();
      controls();
      draw();
      root.dataset.ready = "true";
    })
    .catch((err) => { $("caption").textContent = `The replay could not be loaded: ${err.message}`; });
})();
