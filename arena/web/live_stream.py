"""What one spectator of a live game is sent: messages made from the game's released public events.

`LiveCursor` is one spectator's place in a game's feed (`arena.play.spectators`). Everything it sends
is built here from public events alone: the event itself (`game_json.event_json`) and the table
folded from the events so far (`public_table`), never a hand or the seed (docs/rules.md §9); each
event's message is made once and shared by every spectator of the feed. It reads the hub's clock,
so tests drive it with their own. `EventStream` sends the messages as
Server-Sent Events and drops a spectator that does not read them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from weakref import WeakKeyDictionary

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from arena.play.spectators import GameFeed, SpectatorHub, Ticket
from arena.web.game_json import Json, event_json, table_json
from arena.web.public_table import PublicTable

Message = tuple[str, Json]
"""An SSE message: its event name and its JSON data."""
HEARTBEAT_S = 15.0
"""A comment this often keeps proxies from closing a quiet stream and finds spectators gone."""
WAITING_POLL_S = 2.0
"""How often a spectator of a game not (or no longer) playing looks for one that started."""
TICK_S = 0.2
"""A spectator is sent what fell due at most this often, in one batch: whatever the pace of the
games, a spectator costs the arena a few polls a second, not work for every move."""
SEND_TIMEOUT_S = 10.0
"""A spectator whose connection takes longer than this to accept a message is dropped."""


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Rendering:
    """A feed's event messages, made once for all its spectators: each is the event and the table
    folded from the events up to it, with its SSE text. It holds no reference to its feed, so
    that the feed (a key of `_renderings`) goes once the hub and the spectators let go of it."""

    def __init__(self, players: int) -> None:
        self.table = PublicTable(players)
        self.messages: list[tuple[Message, bytes]] = []

    def upto(self, feed: GameFeed, n: int) -> list[tuple[Message, bytes]]:
        """The messages of `feed`'s first `n` events."""
        while len(self.messages) < n:
            published = feed.events[len(self.messages)]
            self.table.apply(published.event)
            message: Message = (
                "event",
                {
                    "seq": published.seq,
                    "played_at": _utc(published.wall),
                    "released_at": _utc(published.wall + feed.delay_s),
                    "event": event_json(published.event),
                    "table": table_json(self.table.view()),
                },
            )
            self.messages.append((message, sse(message)))
        return self.messages


_renderings: WeakKeyDictionary[GameFeed, _Rendering] = WeakKeyDictionary()
"""Each live feed's messages, while a spectator or the hub still holds the feed."""


def _rendering(feed: GameFeed) -> _Rendering:
    rendering = _renderings.get(feed)
    if rendering is None:
        rendering = _renderings[feed] = _Rendering(len(feed.seats))
    return rendering


class LiveCursor:
    """One spectator's place in the live feed of stored game `game_id`."""

    def __init__(self, hub: SpectatorHub, game_id: int) -> None:
        self.hub = hub
        self.game_id = game_id
        self.feed: GameFeed | None = None
        self.attempts = 0
        """Attempts at the game this spectator has watched start (a voided one is played again)."""
        self.seen = 0
        self.told_waiting = False
        self.told_end = False
        self.done = False
        """The game ended and the spectator has been told: nothing more will come."""

    def poll(self) -> list[Message]:
        """The messages due now: a new attempt, the events released since the last poll, the end."""
        return [message for message, _ in self._due()]

    def _due(self) -> list[tuple[Message, bytes]]:
        out: list[Message] = []
        feed = self.hub.feed(self.game_id)
        if feed is not self.feed:
            self.feed, self.seen, self.told_end = feed, 0, False
            if feed is not None:
                self.attempts += 1
                self.told_waiting = False
                out.append(
                    (
                        "game",
                        {
                            "game_id": self.game_id,
                            "attempt": self.attempts,
                            "seats": list(feed.seats),
                            "delay_s": feed.delay_s,
                        },
                    )
                )
        if self.feed is None:
            if not self.told_waiting:
                self.told_waiting = True
                out.append(("waiting", {"game_id": self.game_id}))
            return [(m, sse(m)) for m in out]
        feed = self.feed
        now = self.hub.clock()
        released = feed.released(now)
        events = _rendering(feed).upto(feed, released)[self.seen : released]
        self.seen = released
        end: list[Message] = []
        end_at = feed.end_released_at
        if not self.told_end and end_at is not None and now >= end_at and self.seen == len(feed.events):
            self.told_end = True
            end.append(("end", {"game_id": self.game_id, "finished": feed.finished}))
            self.done = feed.finished
        return [(m, sse(m)) for m in out] + events + [(m, sse(m)) for m in end]

    def wake_at(self) -> float | None:
        """Hub time the next message is due, if known; None: whenever the game moves."""
        if self.feed is None or self.told_end:
            return self.hub.clock() + WAITING_POLL_S
        pending = self.feed.next_release(self.seen)
        return pending if pending is not None else self.feed.end_released_at

    async def chunks(self) -> AsyncIterator[bytes]:
        """The stream's text as messages fall due, a batch at most every TICK_S, with a heartbeat
        after HEARTBEAT_S without one."""
        clock = self.hub.clock
        last = clock()
        while True:
            batch = self._due()
            now = clock()
            if batch:
                yield b"".join(text for _, text in batch)
                last = now
            elif now - last >= HEARTBEAT_S:
                yield HEARTBEAT
                last = now
            if self.done:
                return
            wake = self.wake_at()
            until = min(last + HEARTBEAT_S, now + TICK_S if wake is None else max(wake, now + TICK_S))
            await asyncio.sleep(until - now)


HEARTBEAT = b": keep-alive\n\n"
"""An SSE comment: keeps the connection open, and finds a spectator gone."""


def sse(message: Message) -> bytes:
    """One message in the text/event-stream format."""
    name, data = message
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class EventStream(Response):
    """Sends a spectator its messages until it leaves, the game ends, or it stops reading."""

    media_type = "text/event-stream"

    def __init__(self, chunks: AsyncIterator[bytes], ticket: Ticket) -> None:
        super().__init__(headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]  # open-ended: chunked
        self.chunks = chunks
        self.ticket = ticket
        """The spectator's place in the hub's caps, given back when the stream ends."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})

        async def gone() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        left = asyncio.ensure_future(gone())
        try:
            iterator = aiter(self.chunks)
            while True:
                nxt = asyncio.ensure_future(anext(iterator))
                await asyncio.wait((nxt, left), return_when=asyncio.FIRST_COMPLETED)
                if left.done():
                    nxt.cancel()
                    return
                try:
                    chunk = nxt.result()
                except StopAsyncIteration:
                    break
                await asyncio.wait_for(
                    send({"type": "http.response.body", "body": chunk, "more_body": True}), SEND_TIMEOUT_S
                )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except TimeoutError:
            return  # a spectator that does not read is dropped
        finally:
            left.cancel()
            self.ticket.release()
