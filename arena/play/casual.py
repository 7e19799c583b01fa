"""Casual games: a person plays the arena's house bots with the real referee.

Each casual game has a `SessionHub` of its own, so its seats never touch the bots registered at
the arena (their capacity, their tournaments, their ratings). Every seat is a `BotConnection`
whose stream is a `Feed`: a house bot's feed answers its requests off the event loop (`HouseSeat`);
the person's feed hands the messages to the browser's open event stream. The
referee cannot tell them from gRPC streams: same seat views (`observe(game, seat)`), deadlines,
grace period, forfeits and record.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from arena.play.house_pool import SEARCH_BOTS, HousePool, decide
from arena.play.referee import Limits, Referee
from arena.play.results import GameResult
from arena.play.sessions import Answer, BotConnection, SessionHub, Stream
from sdk.engine import Game, observe
from sdk.engine.observation import Observation
from sdk.loading import example_bots, load_bot
from sdk.protocol import ArenaMessage, Decision, DecisionRequest, Hello

HOUSE_BOTS = ("random", "greedy", *SEARCH_BOTS)
"""The example bots a person may play, which the arena runs itself (`HouseSeat`)."""
PERSON_LIMITS = Limits(move_ms=60_000, time_bank_ms=300_000, grace_ms=30_000, max_invalid=50)
"""A person's clock: a minute a move plus five minutes of bank; half a minute to come back."""
BOT_MOVE_MS = (0, 5000)
"""The range of the house bots' move time: the pause before each move of a light bot, the
thinking time of a search bot."""


class Feed(Stream):
    """A stream whose messages go to `deliver` at once instead of to a gRPC writer."""

    def __init__(self, session_id: str, deliver: Callable[[ArenaMessage], None]) -> None:
        super().__init__(session_id, True, lambda: False)
        self._deliver = deliver

    def send(self, msg: ArenaMessage) -> None:
        if not self.closed:
            self._deliver(msg)

    def close(self) -> None:
        self.closed = True


def _hello(name: str) -> Hello:
    return Hello(name, "casual", 1, True)


class HouseSeat:
    """A house bot at one seat. A light bot (random, greedy) answers after the move time, thinking
    in a worker thread; a search bot (`house_pool.SEARCH_BOTS`) thinks for the move time in the
    `HousePool`'s processes. Either way the event loop never waits for it."""

    def __init__(self, hub: SessionHub, name: str, bot: str, move_s: float, seed: int, pool: HousePool) -> None:
        self.hub = hub
        self.name = name
        self.bot = bot
        self.move_s = move_s
        self.pool = pool
        self.light = None if bot in SEARCH_BOTS else load_bot(example_bots()[bot], seed=seed)
        self.tasks: set[asyncio.Task[None]] = set()
        self.conn, _ = hub.open(name, _hello(name), f"house-{name}", Feed(f"house-{name}", self._on_message))

    def _on_message(self, msg: ArenaMessage) -> None:
        if isinstance(msg, DecisionRequest):
            task = asyncio.get_running_loop().create_task(self._answer(msg))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _answer(self, req: DecisionRequest) -> None:
        if self.light is None:
            action = await self.pool.think(self.bot, self.move_s, req.observation, req.kind)
        else:
            await asyncio.sleep(self.move_s)
            action = await asyncio.to_thread(decide, self.light, req.observation, req.kind)
        self.hub.receive(self.conn, Decision(req.game_id, req.request_id, action))


@dataclass
class CasualGame:
    """One person's game against house bots; `messages` of the person's seat reach the browser
    through `attach` (one event stream at a time; a new one takes over and is re-sent everything)."""

    game_id: str
    owner: str
    """The session cookie of the person playing."""
    person: str
    seat_names: tuple[str, ...]
    seat: int
    hub: SessionHub
    move_ms: int
    seat_kinds: tuple[str, ...] = ()
    """Who sits at each seat: "person", "house" (a house bot) or "bot" (a connected bot)."""
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    replay: str | None = None
    """Where the stored game is replayed (`/games/casual-N`), once it is stored."""
    game: Game | None = None
    result: GameResult | None = None
    error: str | None = None
    house: list[HouseSeat] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def attach(self, deliver: Callable[[ArenaMessage], None]) -> tuple[BotConnection, Stream]:
        """Open the person's stream to `deliver`; the referee re-sends the seat, events and request."""
        session_id = secrets.token_hex(8)
        return self.hub.open(self.person, _hello(self.person), session_id, Feed(session_id, deliver))

    def detach(self, conn: BotConnection, stream: Stream) -> None:
        """The browser's stream ended: the grace period starts (if the game still runs)."""
        self.hub.close(conn, stream)

    def submit(self, answer: Answer) -> ArenaMessage | None:
        """Judge the person's answer with the referee; None if the game is not running."""
        conn = self.hub.get(self.person)
        table = conn.live_games.get(self.game_id) if conn is not None else None
        if table is None:
            return None
        return table.submit(self.person, answer)

    def view(self) -> Observation | None:
        """What the person's seat may see now (`observe`), or None before the game exists."""
        return None if self.game is None else observe(self.game, self.seat)


def seat_names(person: str, rivals: list[str]) -> tuple[str, ...]:
    """Distinct names for the table: the person first, then each rival (numbered when repeated)."""
    names = [person]
    for i, rival in enumerate(rivals, 1):
        names.append(f"{rival} {i}" if rivals.count(rival) > 1 else rival)
    return tuple(names)


def new_game(
    game_id: str, owner: str, person: str, rivals: list[str], move_ms: int, seed: int, pool: HousePool
) -> CasualGame:
    """Set up (not start) a casual game, its search bots thinking in `pool`; ValueError names a
    bad rival or move time."""
    if not 1 <= len(rivals) <= 4:
        raise ValueError(f"choose 1 to 4 rivals, not {len(rivals)}")
    for rival in rivals:
        if rival not in HOUSE_BOTS:
            raise ValueError(f"there is no house bot named {rival!r}; choose from {', '.join(HOUSE_BOTS)}")
    low, high = BOT_MOVE_MS
    if not low <= move_ms <= high:
        raise ValueError(f"the bots' move time must be within {low}..{high} ms, not {move_ms}")
    names = seat_names(person if person not in rivals else f"{person} (you)", rivals)
    hub = SessionHub()
    game = CasualGame(game_id, owner, names[0], names, 0, hub, move_ms, ("person", *["house"] * len(rivals)))
    for i, (name, rival) in enumerate(zip(names[1:], rivals, strict=True), 1):
        game.house.append(HouseSeat(hub, name, rival, move_ms / 1000, seed + i, pool))
    return game


async def play(
    casual: CasualGame, seed: int, on_done: Callable[[CasualGame], Awaitable[None]], limits: Limits = PERSON_LIMITS
) -> None:
    """Play `casual` to its end with the referee (the person's seat opened before, so it is seated);
    `on_done` (which stores it) is awaited before `casual.done` is set, so that a page told the
    game is done can link to its replay."""

    def created(game: Game) -> None:
        casual.game = game

    try:
        casual.result = await Referee(casual.hub).play(casual.game_id, casual.seat_names, seed, limits, created=created)
    except Exception as exc:  # the game is lost either way; the page says why
        casual.error = str(exc)
    finally:
        for seat in casual.house:
            for task in list(seat.tasks):
                task.cancel()
        try:
            await on_done(casual)
        finally:
            casual.done.set()
