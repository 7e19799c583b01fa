// Drawing a SCOUT table (cards, hands, seats, the active set); its events in words are events.js's.
// Shared by the replay viewer (replay.js) and the live page (live.js); no build step, no library.
"use strict";

const ScoutTable = (() => {
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A card as held: [top, bottom]; the top value counts, the bottom is drawn upside down.
  function card(c) {
    const node = el("div", "pcard");
    node.dataset.top = c[0];
    node.dataset.bottom = c[1];
    node.style.setProperty("--ct", `var(--v${c[0]})`);
    node.style.setProperty("--cb", `var(--v${c[1]})`);
    node.title = `${c[0]} (${c[1]} when turned over)`;
    node.append(value("t", c[0]), value("b", c[1]));
    return node;
  }

  // 6 and 9 are underlined, as on the printed cards: upside down, one reads as the other.
  function value(cls, n) {
    return el("span", n === 6 || n === 9 ? `${cls} u` : cls, String(n));
  }

  function back() {
    const node = el("div", "pcard back");
    node.title = "hidden card";
    return node;
  }

  const { plural, signed } = ScoutEvents;

  // One table model, whoever looks: {names, round, rounds, phase, active, owner, toMove, me,
  // scoutAndShow, seats: [{hand (cards or null), handSize, captured (cards or null),
  // capturedCount, chips, hasScoutShow, flipped, total}]}
  function render(root, m) {
    root.replaceChildren();
    const centre = el("div", "centre");
    const owner = m.owner === null || m.owner === undefined ? null : m.names[m.owner];
    centre.append(el("div", "label", owner === null ? "Table" : `Active set · ${owner}`));
    const set = el("div", "set");
    set.dataset.role = "active-set";
    if (m.active.length) m.active.forEach((c) => set.append(card(c)));
    else set.append(el("span", "empty", owner === null ? "nothing shown yet this round" : "empty: scouted away"));
    centre.append(set);
    root.append(centre);

    const seats = el("div", "seats");
    m.seats.forEach((s, i) => {
      const seat = el("div", "seat");
      seat.dataset.seat = i;
      if (m.toMove === i) seat.classList.add("to-move");
      if (m.me === i) seat.classList.add("me");
      const head = el("div", "seat-head");
      head.append(el("span", "name", m.names[i]));
      if (m.me === i) head.append(el("span", "tag", "you"));
      if (m.owner === i) head.append(el("span", "tag owner", "owner"));
      if (m.toMove === i) head.append(el("span", "tag turn", "to move"));
      if (s.flipped === true) head.append(el("span", "tag", "flipped ↻"));
      const total = el("span", "total", signed(s.total));
      total.title = "game total so far";
      head.append(total);
      seat.append(head);

      const hand = el("div", "hand");
      hand.dataset.role = "hand";
      hand.dataset.seat = i;
      if (s.hand) s.hand.forEach((c) => hand.append(card(c)));
      else for (let k = 0; k < s.handSize; k++) hand.append(back());
      seat.append(hand);

      const foot = el("div", "seat-foot");
      foot.append(el("span", "", plural(s.handSize, "card")));
      const chips = el("span", "chips");
      chips.title = "scout chips";
      for (let k = 0; k < Math.min(s.chips, 12); k++) chips.append(el("span", "chip"));
      chips.append(el("span", "", ` ${plural(s.chips, "chip")}`));
      foot.append(chips);
      if (m.scoutAndShow) {
        const ss = el("span", "chips");
        ss.title = "Scout & Show chip";
        ss.append(el("span", s.hasScoutShow ? "chip ss" : "chip ss used"), el("span", "", s.hasScoutShow ? " S&S" : " S&S used"));
        foot.append(ss);
      }
      const cap = el("span", "captured", `captured ${s.capturedCount}`);
      if (s.captured && s.captured.length) {
        const mini = el("span", "mini");
        s.captured.forEach((c) => mini.append(card(c)));
        cap.append(" ", mini);
      }
      foot.append(cap);
      seat.append(foot);
      seats.append(seat);
    });
    root.append(seats);
  }

  // The model of a public table (table_json: a seat's view, or what spectators see); `me` and
  // `hand` are the viewing seat and its own hand, null for a spectator.
  function fromTable(names, t, me, hand) {
    return {
      names, active: t.active_set, owner: t.active_owner, toMove: t.to_move, me, scoutAndShow: names.length > 2,
      seats: t.seats.map((p) => ({
        hand: p.seat === me ? hand : null, handSize: p.hand_size, captured: null, capturedCount: p.captured,
        chips: p.scout_chips, hasScoutShow: p.has_scout_show, flipped: p.flipped, total: p.total,
      })),
    };
  }

  // Scores: a table of each finished round and the totals, from the round_ended events seen.
  function scores(root, names, ended, rounds) {
    const table = el("table", "scores");
    const head = el("tr");
    head.append(el("th", "", "Player"));
    for (let r = 0; r < rounds; r++) head.append(el("th", "", `R${r + 1}`));
    head.append(el("th", "", "Total"));
    table.append(head);
    names.forEach((name, s) => {
      const row = el("tr");
      row.append(el("td", "", name));
      let total = 0;
      for (let r = 0; r < rounds; r++) {
        const e = ended[r];
        if (e) total += e.scores[s];
        row.append(el("td", "", e ? signed(e.scores[s]) : "·"));
      }
      row.append(el("td", "", signed(total)));
      table.append(row);
    });
    root.replaceChildren(table);
  }

  return { el, card, back, render, fromTable, scores };
})();
