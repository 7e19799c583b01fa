"""The live stream a spectator gets (arena.web.live_stream, /api/games/{id}/events): public events
only, released after the tournament's delay (docs/rules.md §9).

Hidden information is checked at every phase of a game and between games, as the bot stream's
leak tests do: after the deal and during the flips, mid-round, at each round's end, at the game's
end, before a game starts and once it is over. The clock is the test's own: no test here waits
for time to pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from arena.play.spectators import MAX_SPECTATORS, MAX_SPECTATORS_PER_ADDRESS, Crowded, SpectatorHub, Watch
from arena.web import live_stream
from arena.web.app import create_app
from arena.web.live_stream import EventStream, LiveCursor, Message, sse
from sdk.engine import Card, Game, RoundStarted
from tests.play.test_spectators import run_apart

CardId = tuple[int, int]
SEED = 987_654_321_012_345
"""Too long to turn up in a message by chance."""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def played(players: int, seed: int = SEED) -> Game:
    rng = random.Random(seed)
    game = Game(players, seed)
    while not game.is_over:
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    return game


def card_ids(obj: Any) -> Iterator[CardId]:
    """Every [top, bottom] pair under a card-holding key of a message's JSON."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("cards", "active_set", "hand", "hands", "captured") and isinstance(value, list):
                yield from (Card(*c).id for c in value)
            elif key == "card":
                yield Card(*value).id
            else:
                yield from card_ids(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from card_ids(item)


class Spectator:
    """Checks every message it is given against the public history so far."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.public: set[CardId] = set()
        self.round = -1
        self.events: list[dict[str, Any]] = []

    def leaks(self, messages: list[Message]) -> list[str]:
        found = []
        for name, data in messages:
            text = sse((name, data)).decode()
            if str(self.game.seed) in text or "seed" in text:
                found.append(f"{name} message holds the seed")
            if name == "event":
                event = data["event"]
                if event["type"] == "round_started":
                    self.round, self.public = event["round"], set()
                self.public.update(card_ids(event))
                self.events.append(event)
            for key in ("hand", "hands", "deals"):
                if f'"{key}"' in text:
                    found.append(f"{name} message has a {key!r} field")
            hidden = set(card_ids(data)) - self.public
            if hidden:
                found.append(f"{name} message shows cards never shown in public this round: {sorted(hidden)}")
        return found


def phases(game: Game) -> dict[str, int]:
    """How many public events a spectator has seen at each phase worth checking."""
    events = game.events
    marks = {"before the game": 0}
    for i, e in enumerate(events):
        kind = type(e).__name__
        if kind == "RoundStarted":
            marks.setdefault(f"round {e.round} dealt, flips pending", i + 1)  # type: ignore[attr-defined]
        elif kind == "FlipsRevealed":
            marks.setdefault(f"round {e.round} flips revealed", i + 1)  # type: ignore[attr-defined]
        elif kind == "RoundEnded":
            marks.setdefault(f"round {e.round} over", i + 1)  # type: ignore[attr-defined]
    plays = [i for i, e in enumerate(events) if type(e).__name__ in ("Shown", "Scouted", "ScoutedAndShown")]
    marks["mid-round"] = plays[len(plays) // 2] + 1
    marks["game over"] = len(events)
    return marks


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_live_message_holds_a_hidden_card_or_the_seed_at_any_phase(players: int) -> None:
    game = played(players)
    clock = Clock()
    hub = SpectatorHub(clock)
    feed = hub.open(Watch(9, delay_s=5), "9-a", [f"bot{i}" for i in range(players)])
    cursor = LiveCursor(hub, 9)
    spectator = Spectator(game)
    checked = []
    marks = sorted(phases(game).items(), key=lambda kv: kv[1])
    assert spectator.leaks(cursor.poll()) == []  # before the first event: the game's seats
    for event in game.events:
        feed.publish(event)
        clock.now += 1
    feed.end(finished=True)
    for phase, seen in marks:
        # The clock where exactly `seen` events are out: event k was played at k, out at k + 5.
        clock.now = 5 + seen - 1 if seen else 4.5
        messages = cursor.poll()
        assert cursor.seen == seen, phase
        assert spectator.leaks(messages) == [], phase
        checked.append(phase)
    clock.now = feed.ended_at + 5  # type: ignore[operator]  # the end's release: told, and nothing else
    last = cursor.poll()
    assert [name for name, _ in last] == ["end"] and last[0][1]["finished"] is True
    assert cursor.done
    assert spectator.events[-1]["type"] == "round_ended"
    assert len(spectator.events) == len(game.events)
    assert {"round 0 dealt, flips pending", "mid-round", "game over"} <= set(checked)


def test_the_check_sees_a_hand_put_in_a_message() -> None:
    game = played(3)
    spectator = Spectator(game)
    hand = [list(c) for c in game.deals[0][1]]
    assert spectator.leaks(
        [("event", {"event": {"type": "shown", "seat": 0, "start": 0, "cards": []}, "table": {"hand": hand}})]
    )


def test_between_games_the_stream_waits_and_names_no_game() -> None:
    """A game not started (or gone from the hub) is a `waiting` message with its id, nothing more."""
    hub = SpectatorHub(Clock())
    cursor = LiveCursor(hub, 12)
    assert cursor.poll() == [("waiting", {"game_id": 12})]
    assert cursor.poll() == []


def test_events_come_out_the_delay_after_they_were_played_and_not_before() -> None:
    clock = Clock()
    hub = SpectatorHub(clock)
    feed = hub.open(Watch(3, delay_s=30), "3-a", ["a", "b", "c"])
    cursor = LiveCursor(hub, 3)
    assert [name for name, _ in cursor.poll()] == ["waiting"], "the game's start is delayed like its events"
    feed.publish(RoundStarted(0, 0, 12))  # played at 0
    clock.now = 10.0
    feed.publish(RoundStarted(0, 0, 12))  # played at 10
    clock.now = 29.999
    assert cursor.poll() == []
    clock.now = 30.0
    first = cursor.poll()
    assert [name for name, _ in first] == ["game", "event"] and first[1][1]["seq"] == 0
    assert cursor.wake_at() == 40.0
    clock.now = 39.0
    assert cursor.poll() == []
    clock.now = 40.0
    assert [m[1]["seq"] for m in cursor.poll()] == [1]


def test_spectators_share_each_events_message() -> None:
    """The message of an event is made once for all spectators: many cost the arena one fold."""
    game = played(3)
    clock = Clock()
    hub = SpectatorHub(clock)
    feed = hub.open(Watch(4, delay_s=0), "4-a", ["a", "b", "c"])
    for event in game.events[:20]:
        feed.publish(event)
    first, second = LiveCursor(hub, 4).poll(), LiveCursor(hub, 4).poll()
    assert len(first) == len(second) == 21
    assert all(a is b for a, b in zip(first[1:], second[1:], strict=False))


def test_a_voided_attempt_restarts_the_spectators_table() -> None:
    clock = Clock()
    hub = SpectatorHub(clock)
    hub.open(Watch(3, delay_s=0), "3-a", ["a", "b"]).publish(RoundStarted(0, 0, 11))
    cursor = LiveCursor(hub, 3)
    assert [name for name, _ in cursor.poll()] == ["game", "event"]
    hub.open(Watch(3, delay_s=0), "3-b", ["a", "b"])
    again = cursor.poll()
    assert again == [("game", {"game_id": 3, "attempt": 2, "seats": ["a", "b"], "delay_s": 0})]


def events_of(body: str) -> list[Message]:
    """The messages of an SSE body."""
    out = []
    for block in body.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "event" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out


def arena_with(hub: SpectatorHub) -> Any:
    """What `create_app(arena=...)` reads of a running arena for its live games."""
    return SimpleNamespace(referee=SimpleNamespace(spectators=hub))


def test_the_event_stream_over_http_carries_only_public_messages(engine: Engine) -> None:
    game = played(3)
    hub = SpectatorHub()
    feed = hub.open(Watch(1, delay_s=0), "1-a", ["bot04", "bot03", "bot01"])
    for event in game.events:
        feed.publish(event)
    feed.end(finished=True)
    with TestClient(create_app(engine, arena=arena_with(hub))) as client:
        response = client.get("/api/games/1/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = events_of(response.text)
    assert [m[0] for m in messages] == ["game"] + ["event"] * len(game.events) + ["end"]
    assert Spectator(game).leaks(messages) == []
    assert hub.spectators == 0, "the spectator's place is given back"


def test_the_event_stream_refuses_a_crowd_unknown_games_and_a_database_alone(engine: Engine) -> None:
    hub = SpectatorHub(max_per_address=1)
    held = hub.admit("testclient")
    with TestClient(create_app(engine, arena=arena_with(hub)), raise_server_exceptions=False) as client:
        crowded = client.get("/api/games/1/events")
        unknown = client.get("/api/games/9999/events")
    held.release()
    assert crowded.status_code == 429 and "per address" in crowded.json()["error"]["message"]
    assert int(crowded.headers["retry-after"]) >= 1
    assert unknown.status_code == 404
    with TestClient(create_app(engine), raise_server_exceptions=False) as client:
        alone = client.get("/api/games/1/events")
        page = client.get("/games/1/live")
    assert alone.status_code == 503 and "no game is live here" in alone.json()["error"]["message"]
    assert page.status_code == 200 and "watch the replay" in page.text


def test_a_few_addresses_cannot_take_every_place_and_a_newcomer_gets_one(engine: Engine) -> None:
    hub = SpectatorHub()
    flooders = [f"10.0.0.{i}" for i in range(1, 26)]
    held = []
    for address in flooders * MAX_SPECTATORS_PER_ADDRESS:
        with contextlib.suppress(Crowded):
            held.append(hub.admit(address))
    assert hub.spectators < MAX_SPECTATORS, f"{len(flooders)} addresses took every place"
    feed = hub.open(Watch(1, delay_s=0), "1-a", ["bot04", "bot03", "bot01"])
    feed.end(finished=True)
    app = create_app(engine, arena=arena_with(hub))
    with TestClient(app, client=("10.0.1.1", 5000)) as newcomer:
        assert newcomer.get("/api/games/1/events").status_code == 200
    with TestClient(app, client=(flooders[0], 5000), raise_server_exceptions=False) as flooder:
        refused = flooder.get("/api/games/1/events")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "kept for addresses watching nothing yet" in refused.json()["error"]["message"]
    for ticket in held:
        ticket.release()
    assert hub.spectators == 0


def test_a_spectator_that_does_not_read_is_dropped_and_its_place_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection that stops taking data blocks the send; after SEND_TIMEOUT_S the stream
    ends, so a stalled spectator holds no place and no task in the arena."""
    monkeypatch.setattr(live_stream, "SEND_TIMEOUT_S", 0.05)
    hub = SpectatorHub(Clock())
    feed = hub.open(Watch(5, delay_s=0), "5-a", ["a", "b"])
    for event in played(2).events[:5]:
        feed.publish(event)
    ticket = hub.admit("10.0.0.9")
    sent: list[dict[str, Any]] = []

    async def scenario() -> None:
        stalled = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await stalled.wait()  # the client never says it left
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "http.response.body":
                await stalled.wait()  # its socket is full: the send never completes

        stream = EventStream(LiveCursor(hub, 5).chunks(), ticket)
        await asyncio.wait_for(stream({"type": "http"}, receive, send), 30)

    run_apart(scenario)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert hub.spectators == 0


def test_a_feed_the_hub_has_dropped_leaves_no_rendering_behind() -> None:
    """The shared messages of a feed go with the feed: a long-running arena keeps only its recent games'."""
    import gc

    clock = Clock()
    hub = SpectatorHub(clock)
    feed = hub.open(Watch(6, delay_s=0), "6-a", ["a", "b"])
    feed.publish(RoundStarted(0, 0, 11))
    LiveCursor(hub, 6).poll()
    assert len(live_stream._renderings) >= 1
    feed.end(finished=True)
    del feed
    clock.now += 10_000
    assert hub.feed(6) is None  # pruned
    gc.collect()
    assert all(f.game_id != 6 or f.attempt != "6-a" for f in live_stream._renderings)
