// SCOUT's public events in words: the one describer of every page (the replay viewer, the live
// page and the Play page). An event is arena/web/game_json.py's form. Rounds, hand positions,
// tables and games are counted from 1, as a person counts them.
"use strict";

const ScoutEvents = (() => {
  function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

  // A card as "top/bottom": the value in play, then the one underneath.
  function cardText(c) { return `${c[0]}/${c[1]}`; }

  function tops(cards) { return cards.map((c) => c[0]).join("-"); }

  function signed(n) { return `${n >= 0 ? "+" : ""}${n}`; }

  // A round end's rule ("6.1 a player emptied their hand") as "a player emptied their hand (rule 6.1)".
  function rule(text) { return text.replace(/^([\d.]+) (.*)$/, "$2 (rule $1)"); }

  // `e` in words. `names`: the players by seat. `me`: the seat looking (said "you"), or null.
  // `taken`: how many cards the active set held before the event (a show captures them), or null
  // when not known.
  function tell(names, e, { me = null, taken = null } = {}) {
    const who = (s) => (s === me ? "you" : names[s]);
    const Who = (s) => (s === me ? "You" : names[s]);
    const does = (s, verb) => `${Who(s)} ${s === me ? verb : `${verb}s`}`;
    const scouted = (x) => `${does(x.seat, "scout")} ${cardText(x.card)} from the ${x.end} end of the active set${x.flip ? " (turned over)" : ""} into hand position ${x.position + 1}`;
    // `then`: the second half of a Scout & Show, whose seat was just named.
    const shown = (x, beaten, then = false) => {
      const cap = beaten !== null && beaten > 0 ? `, capturing ${plural(beaten, "card")}` : "";
      const verb = then ? `then ${x.seat === me ? "show" : "shows"}` : does(x.seat, "show");
      return `${verb} ${tops(x.cards)} from hand position ${x.start + 1}${cap}`;
    };
    switch (e.type) {
      case "round_started":
        return `Round ${e.round + 1} is dealt: ${plural(e.hand_size, "card")} each; ${who(e.first_player)} ${e.first_player === me ? "play" : "plays"} first.`;
      case "flips_revealed": {
        const turned = e.flips.map((f, s) => (f ? Who(s) : null)).filter((x) => x);
        const kept = e.flips.map((f, s) => (f ? null : who(s))).filter((x) => x);
        if (!turned.length) return "Flip decisions revealed: every hand kept as dealt.";
        return `Flip decisions revealed: ${turned.join(", ")} turned the hand over` + (kept.length ? `; ${kept.join(", ")} kept it.` : ".");
      }
      case "shown": return `${shown(e, taken)}.`;
      case "scouted": return `${scouted(e)}.`;
      case "scouted_and_shown":
        return `Scout & Show: ${scouted(e.scouted)}, ${shown(e.shown, taken === null ? null : taken - 1, true)}.`;
      case "round_ended": {
        const pts = e.scores.map((p, s) => `${Who(s)} ${signed(p)}`).join(", ");
        return `Round ${e.round + 1} is over: ${rule(e.rule)}. Scores: ${pts}.`;
      }
      default: return "";
    }
  }

  // The active set's size after `e`, from its size before: what a page that holds only the events
  // (the Play page, given the whole history again on reconnecting) passes to `tell` as `taken`.
  function activeAfter(size, e) {
    switch (e.type) {
      case "round_started": return 0;
      case "shown": return e.cards.length;
      case "scouted": return size - 1;
      case "scouted_and_shown": return e.shown.cards.length;
      default: return size;
    }
  }

  return { tell, activeAfter, plural, cardText, signed };
})();
