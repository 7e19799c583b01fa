"""A person plays whole games on the Play page by clicking (issue #15): flips at round start
(each round's preview compared, card by card, with the hand after the flip and with the engine's
flip of the dealt hand, docs/rules.md §3: the order stays), shows, a scout with a turn-over and an
insertion, a Scout & Show at 3+ seats (docs/rules.md §4.3: not at 2), an illegal show refused with the
referee's reason, the final ranking; the record replays to the same totals, the game is stored
and its replay linked, and no message the page gets holds a card of another hand. The 3-seat
game reloads the page mid-game (back within the grace period) and plays on in the same seat."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.play.casual import CasualGame
from arena.storage.store.casual import show_casual_game
from arena.web.play_room import PlayRoom
from sdk.engine.deal import deal_rounds
from sdk.engine.record import replay
from tests.web.conftest import screenshot

RECORD_MESSAGES = """
window.__messages = [];
window.addEventListener("error", () => { window.__failed = true; });
const Native = window.EventSource;
window.EventSource = class extends Native {
  constructor(url) {
    super(url);
    this.addEventListener("message", (ev) => window.__messages.push(JSON.parse(ev.data)));
  }
};
"""


def _phase(page: Any, errors: list[str]) -> str:
    """Wait for the page to need the person (or to end); a script error fails at once."""
    page.wait_for_function(
        "window.__failed || ['flip', 'turn', 'over'].includes(document.body.dataset.phase)", timeout=30_000
    )
    assert not errors, errors
    return str(page.evaluate("document.body.dataset.phase"))


def _click_show(page: Any, start: int, length: int) -> None:
    for i in range(start, start + length):
        page.click(f"#hand .card[data-index='{i}']")
    page.click("#show")


def _legal_shows(page: Any) -> list[tuple[int, int]]:
    text = page.get_attribute("#hand", "data-shows") or ""
    return [(int(a), int(b)) for a, b in (part.split(",") for part in text.split(";") if part)]


CARDS = """(sel) => [...document.querySelectorAll(sel + ' .card')]
  .map((c) => ['.top', '.bottom'].map((part) => Number(c.querySelector(part).textContent)))"""
"""The cards drawn in the element `sel`, left to right, each as [value in play, value underneath]."""


@dataclass
class Played:
    """How often each kind of move was made, and each round's flip choice as the page drew it."""

    done: dict[str, int]
    previews: list[tuple[bool, list[list[int]]]] = field(default_factory=list)
    """By round: (turned over, the preview of the orientation chosen)."""


def play_game(page: Any, url: str, rivals: list[str], name: str, reload: bool = False) -> Played:
    """Play one game by clicking, turning the hand over in even rounds and keeping it in odd ones.
    At each round start the preview of the orientation chosen is compared, card by card, with
    the hand the page holds at the person's next turn, after the flip. With `reload`, the page is
    reloaded after the first flip (the browser drops its stream and comes back within the grace):
    the game goes on in the same seat."""
    page.add_init_script(RECORD_MESSAGES)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "play")
    screenshot(page, f"play-{name}-setup")
    for i, rival in enumerate(rivals):
        page.select_option(f"select[data-rival='{i}']", rival)
    page.fill("input[name=move_ms]", "0")
    page.click("#start")
    done = {"flip": 0, "show": 0, "scout": 0, "scout_show": 0, "illegal": 0}
    played = Played(done)
    unchecked: list[list[int]] | None = None
    while (phase := _phase(page, errors)) != "over":
        request = page.evaluate("document.body.dataset.request")
        if unchecked is not None and phase == "turn":
            assert page.evaluate(CARDS, "#hand") == unchecked, "the hand after the flip is not the one previewed"
            unchecked = None
        if phase == "flip":
            if not done["flip"]:
                screenshot(page, f"play-{name}-flip")
            turn = done["flip"] % 2 == 0
            unchecked = page.evaluate(CARDS, "#flip-turned" if turn else "#flip-keep")
            played.previews.append((turn, unchecked))
            page.click("#turn" if turn else "#keep")
            done["flip"] += 1
        elif not done["illegal"] and page.locator("#active .card").count() >= 2:
            illegal = page.locator("#hand .card:not(.legal)")
            if illegal.count():
                illegal.first.click()
                page.click("#show")
                page.wait_for_selector("#reason:has-text('Not allowed')")
                screenshot(page, f"play-{name}-illegal")
                done["illegal"] += 1
            _default_move(page, done)
        elif not page.is_disabled("#scoutshow") and not done["scout_show"]:
            page.click("#scoutshow")
            page.click("#active .card.pickable >> nth=0")
            page.click("#hand .slot >> nth=0")
            shows = _legal_shows(page)
            if shows:
                screenshot(page, f"play-{name}-scout-show")
                _click_show(page, *shows[0])
                done["scout_show"] += 1
            else:
                page.click("#cancel")
                _default_move(page, done)
        elif not done["scout"] and page.locator("#active .card.pickable").count():
            page.click("#active .card.pickable >> nth=0")
            page.click("#flipcard")
            screenshot(page, f"play-{name}-scout")
            page.click("#hand .slot >> nth=1")
            done["scout"] += 1
        else:
            _default_move(page, done)
        # The move is answered: the request is closed, or refused with a reason.
        page.wait_for_function(
            "([rid]) => document.body.dataset.request !== rid || document.querySelector('#reason').textContent",
            arg=[request],
        )
        if reload and done["flip"] == 1:
            page.reload()
            reload = False
    page.wait_for_selector("#result .ranking li")
    screenshot(page, f"play-{name}-over")
    return played


def _default_move(page: Any, done: dict[str, int]) -> None:
    shows = _legal_shows(page)
    if shows:
        _click_show(page, *max(shows, key=lambda s: s[1]))
        done["show"] += 1
    else:
        page.click("#active .card.pickable >> nth=0")
        page.click("#hand .slot >> nth=0")
        done["scout"] += 1


CARD_FIELDS = ("hand", "active_set", "cards")


def _cards(value: Any) -> Iterator[tuple[int, int]]:
    """Every card anywhere in a message (the lists of `CARD_FIELDS` and each `card`), as an
    unordered pair of its values."""
    if isinstance(value, list):
        for item in value:
            yield from _cards(item)
    elif isinstance(value, dict):
        for field, item in value.items():
            if field == "card":
                yield (min(item), max(item))
            elif field in CARD_FIELDS:
                yield from ((min(c), max(c)) for c in item)
            else:
                yield from _cards(item)


def check_game(page: Any, room: PlayRoom, played: Played) -> CasualGame:
    (casual,) = room.games.values()
    assert casual.result is not None
    record = casual.result.record
    # Each round's preview is the hand the engine holds after that flip (docs/rules.md §3: the two
    # values of each card swap, the order stays).
    assert len(played.previews) == len(record.deals)
    for deal, flips, (turned, preview) in zip(record.deals, record.flips, played.previews, strict=True):
        assert flips[casual.seat] is turned
        dealt = deal[casual.seat]
        assert preview == [[c.bottom, c.top] if turned else [c.top, c.bottom] for c in dealt]
    ranking = page.locator("#result .ranking li").all_inner_texts()
    assert len(ranking) == record.players
    replayed = replay(record)
    assert list(replayed.totals) == [s.points for s in casual.result.seats]
    for seat in casual.result.seats:
        assert any(
            f"{seat.points} points" in line
            and casual.seat_names[seat.seat].split()[0] in line.replace("You", casual.person)
            for line in ranking
        )
    # Hidden information: every card the page was sent is the person's own deal or was shown.
    messages = page.evaluate("window.__messages")
    assert any(m["type"] == "over" for m in messages)
    assert all(s.forfeit is None for s in casual.result.seats), casual.result.seats
    # Stored like any game, and the page links to its replay, which holds the same record.
    assert casual.replay is not None and page.get_attribute("#replay", "href") == casual.replay
    assert room.db is not None
    stored = room.db.run(show_casual_game, casual_id=int(casual.replay.removeprefix("/games/casual-")))
    assert stored.record == record and stored.info.results == casual.result.seats
    deals = deal_rounds(record.players, record.seed)
    mine = {(min(c), max(c)) for deal in deals for c in deal[casual.seat]}
    public = set()
    for m in messages:
        if m["type"] == "event" and m["event"]["type"] in ("shown", "scouted", "scouted_and_shown"):
            public |= set(_cards(m["event"]))
    others = {(min(c), max(c)) for deal in deals for s, hand in enumerate(deal) if s != casual.seat for c in hand}
    for m in messages:
        leaked = (set(_cards(m)) & others) - public - mine
        assert not leaked, f"message {m} holds cards of another hand: {leaked}"
    return casual


TOLD = """async (seat) => {
  const data = await (await fetch(document.getElementById("replay").dataset.frames)).json();
  const told = [];
  let size = 0;
  for (const f of data.frames) {
    for (const e of f.views[seat].news || f.events) {
      told.push(ScoutEvents.tell(data.game.seats, e, { me: seat, taken: size }));
      size = ScoutEvents.activeAfter(size, e);
    }
  }
  return told;
}"""
"""The replay page's words for seat `seat`'s events, every frame's, in order."""


@pytest.mark.parametrize(
    ("rivals", "name"),
    [(["random"], "2"), (["greedy", "random"], "3"), (["random", "greedy", "random", "greedy"], "5")],
)
def test_play_a_whole_game_by_clicking(page: Any, room: tuple[str, PlayRoom], rivals: list[str], name: str) -> None:
    url, play_room = room
    played = play_game(page, url, rivals, name, reload=name == "3")
    check_game(page, play_room, played)
    done = played.done
    # One describer of events (static/events.js) for every page: the Play page's moves, told from
    # its feed, read word for word as the replay page tells the person's seat's events from the
    # frames, two encodings of the same events (arena/web/game_json.py).
    moves = page.locator("#log li").all_inner_texts()[::-1]
    page.click("#replay")
    page.wait_for_selector("#replay[data-ready='true']")
    assert page.evaluate(TOLD, play_room.games[next(iter(play_room.games))].seat) == moves
    if name == "2":
        screenshot(page, "play-2-replay")
    assert done["flip"] >= 1 and done["show"] >= 1 and done["scout"] >= 1 and done["illegal"] == 1
    if len(rivals) >= 2:
        assert done["scout_show"] == 1
