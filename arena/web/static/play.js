// The Play page: the person's seat. Everything shown comes from the seat's own feed (the
// referee's messages to this seat); every decision is judged by the referee, whose reason for
// refusing one is shown as it is.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const st = { game: null, players: [], seat: 0, view: null, request: null, legal: new Set(),
    sel: null, scout: null, ssArmed: false, lastSeq: -1, activeSize: 0, source: null, deadline: 0 };
  const key = (a) => JSON.stringify(a);
  const name = (s) => (s === st.seat ? "You" : st.players[s] || `seat ${s}`);

  // 6 and 9 are underlined, as on the printed cards: upside down, one reads as the other.
  const value = (n) => (n === 6 || n === 9 ? `<u>${n}</u>` : `${n}`);

  function card(c, cls = "") {
    const el = document.createElement("div");
    el.className = `card ${cls}`;
    el.innerHTML = `<span class="top">${value(c[0])}</span><span class="bottom">${value(c[1])}</span>`;
    el.title = `${c[0]} in play, ${c[1]} underneath`;
    return el;
  }
  // The hand turned over (docs/rules.md §3): each card's two values swap, the order stays as it is.
  const turned = (hand) => hand.map((c) => [c[1], c[0]]);
  const legalActions = () => [...st.legal].map((k) => JSON.parse(k));
  const myTurn = () => st.request && st.request.kind === "action";

  function log(text) {
    const li = document.createElement("li");
    li.textContent = text;
    $("log").prepend(li);
  }

  // An event in words (events.js, as on every page); `taken`: the active set's size before it.
  const describe = (e, taken) => ScoutEvents.tell(st.players, e, { me: st.seat, taken });

  function render() {
    const v = st.view;
    if (!v || st.stopped) return;
    const t = v.table;
    const rivals = $("rivals");
    rivals.replaceChildren(...t.seats.map((s, i) => {
      const d = document.createElement("div");
      d.className = "rival" + (t.to_move === i ? " to-move" : "");
      d.innerHTML = `<strong></strong><br>${s.hand_size} card${s.hand_size === 1 ? "" : "s"} · ${s.captured} captured · ${s.scout_chips} chip${s.scout_chips === 1 ? "" : "s"}` +
        `${t.seats.length > 2 ? (s.has_scout_show ? " · S&amp;S left" : " · S&amp;S used") : ""}<br>total ${s.total}`;
      d.title = "chips: scout chips received; S&S: the Scout & Show chip, once a round";
      d.querySelector("strong").textContent = name(i) + (t.to_move === i ? " (to move)" : "");
      return d;
    }));
    $("owner").textContent = t.active_owner === null ? "(none yet)" : `(${name(t.active_owner)}'s)`;
    renderActive(v);
    renderHand(v);
    const flipping = st.request && st.request.kind === "flip";
    const over = t.phase === "over";
    $("seat-notice").hidden = !st.forfeited || over;
    if (st.forfeited) {
      $("seat-notice").textContent = `Your seat was forfeited (${st.forfeited}). The referee plays it from here to the end ` +
        "(it keeps the hand, then makes the first legal move), and a forfeited seat ranks last. The game goes on: follow it here to its result.";
    }
    $("flip-choice").hidden = !flipping;
    if (flipping) {
      $("flip-keep").replaceChildren(...v.hand.map((c) => card(c)));
      $("flip-turned").replaceChildren(...turned(v.hand).map((c) => card(c)));
    }
    const acts = myTurn() ? legalActions() : [];
    $("scoutshow").hidden = t.seats.length === 2; // never at 2 players (docs/rules.md)
    document.querySelector(".play-buttons").hidden = flipping || over || !!st.forfeited;
    $("hand").hidden = flipping; // both orientations are shown above, each with its button
    $("clock").hidden = over;
    $("scoutshow").disabled = !acts.some((a) => a.scout && a.show) || st.scout !== null;
    $("show").disabled = !(myTurn() && st.sel && (!st.scout || st.scout.position !== undefined));
    $("flipcard").hidden = !(st.scout && st.scout.position === undefined);
    $("cancel").hidden = !(st.scout || st.sel || st.ssArmed);
    $("status").textContent = over ? "The game is over." : st.forfeited ? "Your seat was forfeited: the bots play on."
      : flipping ? "Round start: keep your hand or turn it over."
      : myTurn() ? "Your turn." : t.to_move === null ? "Waiting for the other flips…" : `Waiting for ${name(t.to_move)}…`;
    document.body.dataset.request = st.request ? st.request.request_id : "";
    document.body.dataset.phase = over ? "over" : st.forfeited ? "forfeited" : flipping ? "flip" : myTurn() ? "turn" : "wait";
    prompt();
  }

  function prompt() {
    let text = "";
    if (st.request && st.request.kind === "flip") text = "Both orientations of your hand are shown: the top numbers are the ones in play.";
    else if (myTurn()) {
      if (st.scout && st.scout.position === undefined) {
        const c = st.scout.flip ? [st.scout.card[1], st.scout.card[0]] : st.scout.card;
        text = `Scouting the ${st.scout.end} card, as ${c[0]} (${c[1]} underneath): turn it over if you like, then click a gap (+) in your hand to put it there.`;
      }
      else if (st.scout) text = "Scout & Show: now select the cards to show and press Show.";
      else if (st.ssArmed) text = "Scout & Show: first take the left or right card of the active set.";
      else text = "Show: click adjacent cards in your hand (green ones can start or join a legal show), then press Show. Scout: click the left or right card of the active set.";
    }
    $("prompt").textContent = text;
  }

  function canScout() {
    return legalActions().some((a) => a.scout && (st.ssArmed ? a.show : !a.show));
  }

  function renderActive(v) {
    const ends = myTurn() && !st.scout && canScout();
    const active = v.table.active_set;
    $("active").replaceChildren(...active.map((c, i) => {
      const end = i === 0 ? "left" : i === active.length - 1 ? "right" : null;
      const taken = st.scout && st.scout.position === undefined && end === st.scout.end;
      if (taken) return card(st.scout.flip ? [c[1], c[0]] : c, "scouted");
      const el = card(c, ends && end ? "pickable" : "");
      if (ends && end) {
        el.dataset.end = end;
        el.setAttribute("role", "button");
        el.title = `take the ${end} card`;
        el.addEventListener("click", () => { st.scout = { end, flip: false, card: c }; st.sel = null; render(); });
      }
      return el;
    }));
  }

  function handNow(v) {
    if (st.scout && st.scout.position !== undefined) {
      const h = v.hand.slice();
      const c = st.scout.flip ? [st.scout.card[1], st.scout.card[0]] : st.scout.card;
      h.splice(st.scout.position, 0, c);
      return h;
    }
    return v.hand;
  }

  function legalShows() {
    const s = st.scout;
    return legalActions().filter((a) => a.show && (s ? a.scout && a.scout[0] === s.end && a.scout[1] === s.flip && a.scout[2] === s.position : !a.scout)).map((a) => a.show);
  }

  function legalShowCards() {
    const cards = new Set();
    for (const [start, length] of legalShows()) for (let i = start; i < start + length; i++) cards.add(i);
    return cards;
  }

  function renderHand(v) {
    const hand = handNow(v);
    const placing = st.scout && st.scout.position === undefined;
    const selecting = myTurn() && !placing && (!st.ssArmed || st.scout);
    const legalCards = selecting ? legalShowCards() : new Set();
    const parts = [];
    const slot = (p) => {
      const b = document.createElement("button");
      b.className = "slot";
      b.textContent = "+";
      b.dataset.position = p;
      b.title = `put the card at position ${p + 1}`;
      b.addEventListener("click", () => place(p));
      return b;
    };
    hand.forEach((c, i) => {
      if (placing) parts.push(slot(i));
      const inSel = st.sel && i >= st.sel[0] && i <= st.sel[1];
      const isScouted = st.scout && st.scout.position === i;
      const el = card(c, [selecting ? "pickable" : "", legalCards.has(i) ? "legal" : "", inSel ? "selected" : "", isScouted ? "scouted" : ""].join(" "));
      el.dataset.index = i;
      if (selecting) el.addEventListener("click", () => pick(i));
      parts.push(el);
    });
    if (placing) parts.push(slot(hand.length));
    $("hand").replaceChildren(...parts);
    $("hand").dataset.shows = selecting ? legalShows().map((x) => x.join(",")).join(";") : "";
  }

  function pick(i) {
    const s = st.sel;
    if (!s) st.sel = [i, i];
    else if (i === s[0] - 1) st.sel = [i, s[1]];
    else if (i === s[1] + 1) st.sel = [s[0], i];
    else if (i === s[0] && s[0] < s[1]) st.sel = [i + 1, s[1]];
    else if (i === s[1] && s[0] < s[1]) st.sel = [s[0], i - 1];
    else if (s[0] === s[1] && s[0] === i) st.sel = null;
    else st.sel = [i, i];
    render();
  }

  function place(p) {
    const s = st.scout;
    if (st.ssArmed) { s.position = p; render(); return; }
    decide({ scout: [s.end, s.flip, p] });
  }

  function reset() { st.sel = null; st.scout = null; st.ssArmed = false; }

  async function decide(action) {
    const asked = st.request;
    if (!asked) return;
    $("reason").textContent = "";
    const res = await fetch(`/api/play/games/${st.game}/decisions`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ request_id: asked.request_id, action }),
    });
    const body = await res.json();
    if (!res.ok) { $("reason").textContent = body.error ? body.error.message : "refused"; return; }
    // The feed may have brought the next request before this answer: keep that one.
    if (body.accepted) { if (st.request === asked) { st.request = null; st.legal = new Set(); } reset(); }
    else {
      $("reason").textContent = `Not allowed: ${body.reason}` + (body.attempts_left !== undefined ? ` (${body.attempts_left} tries left)` : "");
      reset();
    }
    render();
  }

  function onMessage(m) {
    if (m.type === "started") { st.players = m.players; st.seat = m.seat; }
    if (m.view) st.view = m.view;
    if (m.type === "event") {
      if (m.seq <= st.lastSeq) return render();
      st.lastSeq = m.seq;
      log(describe(m.event, st.activeSize));
      st.activeSize = ScoutEvents.activeAfter(st.activeSize, m.event);
      if (m.event.type === "round_ended") showRound(m.event);
    } else if (m.type === "request") {
      st.request = m; st.legal = new Set(m.view.legal.map(key)); reset();
      $("reason").textContent = "";
      st.deadline = Date.now() + m.time_left_ms;
    } else if (m.type === "forfeited") {
      st.request = null; st.legal = new Set(); st.forfeited = m.reason; reset();
    } else if (m.type === "over") {
      st.request = null; st.legal = new Set(); finish(m);
    } else if (m.type === "stopped") {
      st.request = null; st.legal = new Set(); stopped(m);
      return;
    } else if (m.type === "error") {
      if (!st.view) return notice("This game could not be finished", `${m.message}. It was not kept.`, [NEW_GAME]);
      $("reason").textContent = m.message;
    }
    render();
  }

  function showRound(e) {
    const box = $("result");
    box.hidden = false;
    box.textContent = describe(e, null);
  }

  // Only the table's result is left to show: a game reopened after its end, or ended early.
  function tableGone(status, phase) {
    $("table").hidden = false;
    $("setup").hidden = true;
    $("status").textContent = status;
    for (const id of ["flip-choice", "prompt", "seat-notice"]) $(id).hidden = true;
    document.querySelector(".play-hand").hidden = true;
    $("rivals").hidden = !st.view; // the table as it was left, if this page saw it
    document.querySelector(".play-area").hidden = !st.view;
    $("moves").hidden = !$("log").children.length;
    document.body.dataset.phase = phase;
    document.body.dataset.request = "";
  }

  function finish(m) {
    if (st.source) st.source.close();
    if (m.players) { st.players = m.players; st.seat = m.seat; }
    if (st.view) st.view.table.phase = "over";
    else tableGone("This game is over: here is its result, and its moves are in the replay.", "over");
    const box = $("result");
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
    const order = m.ranks.map((r, s) => [r, s]).sort((a, b) => a[0] - b[0]);
    box.innerHTML = "<h2>Final ranking</h2><p id='forfeit-note' hidden></p><ol class='ranking'></ol><p><a id='replay'>Replay this game</a> · <a href='/play'>Play again</a></p>";
    const mine = m.forfeits.find((x) => x[0] === st.seat);
    if (mine) {
      const note = box.querySelector("#forfeit-note");
      note.hidden = false;
      note.textContent = `Your seat was forfeited (${mine[1]}): the referee played it to the end, and a forfeited seat ranks last.`;
    }
    const ol = box.querySelector("ol");
    for (const [r, s] of order) {
      const li = document.createElement("li");
      const f = m.forfeits.find((x) => x[0] === s);
      li.textContent = `${r}. ${name(s)}: ${m.totals[s]} points${f ? ` (forfeited: ${f[1]})` : ""}`;
      ol.append(li);
    }
    const replay = box.querySelector("#replay");
    if (m.replay) replay.href = m.replay;
    else { replay.href = `/api/play/games/${st.game}/record`; replay.textContent = "The game's record (JSON)"; }
  }

  // The game ended early (a tournament needed a connected bot): say so where the ranking would be.
  function stopped(m) {
    st.stopped = true;
    if (st.source) st.source.close();
    tableGone("The game was ended early.", "stopped");
    const box = $("result");
    box.hidden = false;
    box.classList.add("stopped");
    box.innerHTML = "<h2>Game ended early</h2><p id='stopped-reason'></p><p><a href='/play'>Play again</a></p>";
    box.querySelector("#stopped-reason").textContent = m.message;
    box.scrollIntoView({ block: "nearest" });
  }

  function open(game) {
    st.game = game;
    $("setup").hidden = true;
    $("table").hidden = false;
    const src = new EventSource(`/api/play/games/${game}/feed`);
    st.source = src;
    src.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  }

  const NEW_GAME = ["/play", "Start a new game"];

  // No game to play here: what happened, and what can be done (links).
  function notice(title, text, links) {
    if (st.source) st.source.close();
    $("setup").hidden = true;
    $("table").hidden = true;
    $("notice").hidden = false;
    $("notice-title").textContent = title;
    $("notice-text").textContent = text;
    $("notice-links").replaceChildren(...links.flatMap(([href, label], i) => {
      const a = Object.assign(document.createElement("a"), { href, textContent: label });
      return i ? [document.createTextNode(" · "), a] : [a];
    }));
    document.body.dataset.phase = "notice";
  }

  // Another browser's game: its seat and its feed are that browser's; once it is over, its
  // replay is anyone's, so a game still in play is asked about again until it is.
  function elsewhere(game, body) {
    const replay = body.replay ? [[body.replay, "Watch its replay"]] : [];
    if (body.state === "playing") {
      notice("This game is being played in another browser",
        "Its seat belongs to the browser that started it, so it cannot be played from here, and a game in play " +
        "shows nothing of itself to anyone but its player. Once it is over its replay is public: this page links it then.", [NEW_GAME]);
      setTimeout(() => visit(game), 5000);
    } else if (body.state === "over") {
      notice("This game is over", `It was played in another browser.${body.replay ? " Its replay is public." : " This server keeps no replay of casual games."}`, [...replay, NEW_GAME]);
    } else if (body.state === "stopped") {
      notice("This game ended early", "It was played in another browser and ended before its end, so it was not kept.", [NEW_GAME]);
    } else {
      notice("This game could not be finished", "It was played in another browser and stopped on an error, so it was not kept.", [NEW_GAME]);
    }
  }

  // A game's address opened: ask what it holds, and follow its feed if it is this browser's game.
  async function visit(game) {
    st.game = game;
    $("setup").hidden = true;
    let res = null;
    let body = null;
    try {
      res = await fetch(`/api/play/games/${game}`);
      body = await res.json();
    } catch (err) {
      if (!res) {
        notice("The arena did not answer", "Asking again in a few seconds.", [NEW_GAME]);
        setTimeout(() => visit(game), 3000);
        return;
      }
    }
    if (!res.ok) {
      const why = body && body.error ? body.error.message : `${res.status} ${res.statusText}`;
      notice("No such game here", `${why.charAt(0).toUpperCase()}${why.slice(1)}.`, [NEW_GAME]);
    } else if (!body.yours) elsewhere(game, body);
    else open(game);
  }

  setInterval(() => {
    $("clock").textContent = st.request ? `· your clock: ${Math.max(0, Math.round((st.deadline - Date.now()) / 1000))} s` : "";
  }, 500);

  $("keep").addEventListener("click", () => decide({ flip: false }));
  $("turn").addEventListener("click", () => decide({ flip: true }));
  $("show").addEventListener("click", () => {
    const show = [st.sel[0], st.sel[1] - st.sel[0] + 1];
    decide(st.scout ? { scout: [st.scout.end, st.scout.flip, st.scout.position], show } : { show });
  });
  $("scoutshow").addEventListener("click", () => { reset(); st.ssArmed = true; render(); });
  $("flipcard").addEventListener("click", () => { st.scout.flip = !st.scout.flip; render(); });
  $("cancel").addEventListener("click", () => { reset(); render(); });
  // Starting: 201 is the game; 202 a place in the queue, asked for again (the same choice) until
  // the game starts, so a full room gives a place in line rather than a refusal.
  let queued = null;
  function waiting(body) {
    $("queue").hidden = !body;
    $("start").disabled = !!body;
    document.body.dataset.queue = body ? body.place : "";
    if (!body) return;
    $("queue-place").textContent = body.place === 1 ? "You are next in the queue." : `You are number ${body.place} in the queue.`;
    $("queue-message").textContent = `${body.reason}.`;
  }
  async function start(choice) {
    queued = null;
    let res, body;
    try {
      res = await fetch("/api/play/games", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(choice),
      });
      body = await res.json();
    } catch (err) {
      $("setup-error").textContent = "The arena did not answer; asking again in a few seconds.";
      if (!$("queue").hidden) queued = setTimeout(() => start(choice), 3000);
      return;
    }
    $("setup-error").textContent = "";
    if (res.status === 202) {
      waiting(body);
      queued = setTimeout(() => start(choice), body.retry_ms);
      return;
    }
    waiting(null);
    if (!res.ok) { $("setup-error").textContent = body.error ? body.error.message : "could not start"; return; }
    history.replaceState(null, "", `#game=${body.game_id}`);
    open(body.game_id);
  }
  $("setup-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    $("setup-error").textContent = "";
    const rivals = [...f.querySelectorAll("select[name=rival]")].map((s) => s.value).filter(Boolean);
    start({ rivals, move_ms: Number(f.move_ms.value), name: f.name.value });
  });
  $("queue-leave").addEventListener("click", () => {
    if (queued !== null) clearTimeout(queued);
    queued = null;
    waiting(null);
    fetch("/api/play/queue", { method: "DELETE" });
  });
  const m = location.hash.match(/^#game=([\w-]+)$/);
  if (m) visit(m[1]);
})();
