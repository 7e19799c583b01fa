"""Casual games: a person plays the arena's house bots, and connected bots that accept casual
games, with the real referee.

Each casual game has a hub of its own (`CasualHub`) for the person's and the house bots' seats;
a connected bot (its Hello's `accept_casual`) is seated through the arena's `SessionHub`, on its
own stream and within its capacity, as in a tournament game. No casual game touches a rating.
The person's and house bots' seats are `BotConnection`s whose stream is a `Feed`: a house bot's
feed answers its requests off the event loop (`HouseSeat`); the person's feed hands the messages
to the browser's open event stream. The referee cannot tell them from gRPC streams: same seat
views (`observe(game, seat)`), deadlines, grace period, forfeits and record.

Casual games give way to every other game (`SessionHub.seat`): a connected bot's casual games
run only in capacity its tournament games do not use, and a tournament game that needs the seat
of one ends it at once (`CasualGame.give_way`), with a message to the person and to the bot.
Waiting for the person to answer would hand anyone with a browser a way to hold a tournament
(docs/architecture.md, "Play comes first"); a casual game lost is a minute of someone's fun.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from arena.play.casual_limits import CasualLimits
from arena.play.clock import LOOP_CLOCK
from arena.play.house_pool import HousePool, decide, house_bots, search_bots
from arena.play.referee import Limits, Referee
from arena.play.results import GameResult, final_ranks
from arena.play.sessions import (
    Answer,
    AtCapacity,
    BotConnection,
    GiveWay,
    LiveGame,
    Outgoing,
    Relayed,
    SessionHub,
    Stream,
)
from sdk.engine import Game, observe
from sdk.engine.observation import Observation
from sdk.loading import load_bot, own_examples
from sdk.protocol import ArenaMessage, Decision, DecisionRequest, ErrorCode, ErrorNotice, Forfeit, GameOver, Hello

PERSON_LIMITS = Limits(move_ms=60_000, time_bank_ms=300_000, grace_ms=30_000, max_invalid=50)
"""A person's clock: a minute a move plus five minutes of bank; half a minute to come back."""
CONNECTED = "bot:"
"""How a game's choice names a connected bot as a rival (`bot:NAME`); a house bot goes by its name."""
BOT_MOVE_MS = (0, 5000)
"""The range of the house bots' move time: the pause before each move of a light bot, the
thinking time of a search bot."""
GAVE_WAY = "a tournament game needed {bot}'s seat, and tournament games come first"
"""Why a casual game ended early, said to the person and to the bot (`CasualGame.give_way`)."""


class Feed(Stream):
    """A stream whose messages go to `deliver` at once instead of to a gRPC writer."""

    def __init__(self, session_id: str, deliver: Callable[[ArenaMessage], None]) -> None:
        super().__init__(session_id, True, lambda: False)
        self._deliver = deliver

    def send(self, msg: Outgoing) -> None:
        """Deliver `msg`; a feed's seat is always refereed on its own node, so nothing is `Relayed` to it."""
        if not self.closed and not isinstance(msg, Relayed):
            self._deliver(msg)

    def close(self) -> None:
        self.closed = True


def _hello(name: str) -> Hello:
    return Hello(name, "casual", 1, True)


class HouseSeat:
    """A house bot at one seat. A light bot (random, greedy) answers after the move time, thinking
    in a worker thread; a search bot (`house_pool.search_bots`) thinks for the move time in the
    `HousePool`'s processes. Either way the event loop never waits for it."""

    def __init__(self, hub: SessionHub, name: str, bot: str, move_s: float, seed: int, pool: HousePool) -> None:
        self.hub = hub
        self.name = name
        self.bot = bot
        self.move_s = move_s
        self.pool = pool
        self.light = None if bot in search_bots() else load_bot(own_examples()[bot], seed=seed)
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
    hub: CasualHub
    move_ms: int
    seat_kinds: tuple[str, ...] = ()
    """Who sits at each seat: "person", "house" (a house bot) or "bot" (a connected bot)."""
    address: str = ""
    """The network address the game was started from (the Play room's places are by address)."""
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    replay: str | None = None
    """Where the stored game is replayed (`/games/casual-N`), once it is stored."""
    game: Game | None = None
    result: GameResult | None = None
    error: str | None = None
    house: list[HouseSeat] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    stopped: str | None = None
    """Why the game ended before its end: a tournament game took a connected bot's seat."""

    def give_way(self, bot: str) -> None:
        """A game that comes first took `bot`'s seat (`sessions.GiveWay`): end this game now.
        `bot` hears it as a forfeit of its seat, and every connected bot of the game as the
        game's end (so their programs forget it); the person from the page (`stopped`). The game
        is not stored: it did not finish."""
        if self.stopped is not None or self.task is None or self.task.done():
            return
        self.stopped = GAVE_WAY.format(bot=bot)
        arena = self.hub.arena
        if arena is not None and self.game is not None:
            seat = self.seat_names.index(bot)
            reason = f"casual game ended: {self.stopped}"
            totals = tuple(self.game.totals)
            ranks = final_ranks(totals, [i == seat for i in range(len(totals))])
            over = GameOver(self.game_id, totals, ranks, (Forfeit(seat, None, reason),), ())
            for name in sorted(self.hub.connected):
                conn = arena.get(name)
                if conn is None:
                    continue
                if name == bot:
                    notice = f"seat {seat} of game {self.game_id!r}: {reason}"
                    conn.send(ErrorNotice(ErrorCode.SEAT_FORFEITED, notice, self.game_id))
                conn.send(over)
        self.task.cancel()

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


class CasualHub(SessionHub):
    """A casual game's seats: its own (the person's and the house bots') and the connected bots',
    which it seats in the arena's hub exactly as a tournament game seats them (their real streams,
    their capacity), so the referee reaches every seat by name as in any game."""

    def __init__(
        self, arena: SessionHub | None, connected: Iterable[str], give_way: GiveWay = lambda bot: None
    ) -> None:
        super().__init__(LOOP_CLOCK if arena is None else arena.clock)
        self.connected = frozenset(connected)
        if self.connected and arena is None:
            raise ValueError("connected bots need the arena's hub")
        self.arena = arena
        self.give_way = give_way
        """Ends the game when another game takes a connected bot's seat: casual games give way."""

    def _split(self, bots: Sequence[str]) -> tuple[list[str], list[str]]:
        """(this game's own seats, the connected bots') of `bots`."""
        return [b for b in bots if b not in self.connected], [b for b in bots if b in self.connected]

    def get(self, name: str) -> BotConnection | None:
        if self.arena is not None and name in self.connected:
            return self.arena.get(name)
        return super().get(name)

    def check(self, game_id: str, bots: Sequence[str], gives_way: bool = True) -> None:
        own, outside = self._split(bots)
        if self.arena is not None:
            self.arena.check(game_id, outside, gives_way=True)
        super().check(game_id, own)

    def seat(self, table: LiveGame, bots: Sequence[str], give_way: GiveWay | None = None) -> None:
        own, outside = self._split(bots)
        if self.arena is not None:
            self.arena.seat(table, outside, self.give_way)
        try:
            super().seat(table, own)
        except BaseException:
            if self.arena is not None:
                self.arena.release(table, outside)
            raise

    def release(self, table: LiveGame, bots: Sequence[str]) -> None:
        own, outside = self._split(bots)
        super().release(table, own)
        if self.arena is not None:
            self.arena.release(table, outside)


def connected_rival(rival: str) -> str | None:
    """The connected bot a rival of a game's choice names (`bot:NAME`), None for a house bot."""
    return rival.removeprefix(CONNECTED) if rival.startswith(CONNECTED) else None


def seat_names(person: str, rivals: list[str]) -> tuple[str, ...]:
    """Distinct names for the table: the person first, then each rival. A connected bot keeps its
    name (the referee reaches it by it); a house bot is numbered when repeated or named like a
    connected bot; the person is "NAME (you)" when named like a rival."""
    connected = {connected_rival(r) for r in rivals} - {None}
    names = []
    for i, rival in enumerate(rivals, 1):
        bot = connected_rival(rival)
        if bot is not None:
            names.append(bot)
        else:
            names.append(f"{rival} {i}" if rivals.count(rival) > 1 or rival in connected else rival)
    return (f"{person} (you)" if person in names else person, *names)


def takes_casual(conn: BotConnection, per_bot: int) -> bool:
    """Whether a connected bot that accepts casual games can take one now: a free seat within
    its capacity, and fewer than `per_bot` casual games."""
    return not conn.busy and len(conn.gives_way) < per_bot


def check_rivals(rivals: list[str], arena: SessionHub | None, per_bot: int = CasualLimits.per_bot) -> None:
    """ValueError names a rival that is no house bot, nor a connected bot taking casual games;
    `sessions.AtCapacity` one that is, but busy at its capacity or with `per_bot` casual games."""
    if not 1 <= len(rivals) <= 4:
        raise ValueError(f"choose 1 to 4 rivals, not {len(rivals)}")
    for rival in rivals:
        bot = connected_rival(rival)
        if bot is None:
            if rival not in house_bots():
                raise ValueError(f"there is no house bot named {rival!r}; choose from {', '.join(house_bots())}")
            continue
        conn = None if arena is None else arena.get(bot)
        if conn is None or not conn.connected or not conn.accept_casual:
            raise ValueError(f"bot {bot!r} is not connected for casual games")
        if rivals.count(rival) > 1:
            raise ValueError(f"bot {bot!r} can take one seat of a game, not {rivals.count(rival)}")
        if conn.busy:
            raise AtCapacity(f"bot {bot!r} is busy: it plays {len(conn.live_games)} games, its capacity")
        if len(conn.gives_way) >= per_bot:
            raise AtCapacity(f"bot {bot!r} is busy: it plays {per_bot} casual games, the most it takes at once")


def check_choice(
    rivals: list[str], move_ms: int, arena: SessionHub | None, per_bot: int = CasualLimits.per_bot
) -> None:
    """Raise as `new_game` would for this choice of rivals and move time, setting nothing up."""
    check_rivals(rivals, arena, per_bot)
    low, high = BOT_MOVE_MS
    if not low <= move_ms <= high:
        raise ValueError(f"the bots' move time must be within {low}..{high} ms, not {move_ms}")


def new_game(
    game_id: str,
    owner: str,
    person: str,
    rivals: list[str],
    move_ms: int,
    seed: int,
    pool: HousePool,
    arena: SessionHub | None = None,
    per_bot: int = CasualLimits.per_bot,
) -> CasualGame:
    """Set up (not start) a casual game, its search bots thinking in `pool` and its connected
    bots (`bot:NAME`) found in the `arena`'s hub; ValueError names a bad rival or move time,
    `sessions.AtCapacity` a busy bot (`check_choice`)."""
    check_choice(rivals, move_ms, arena, per_bot)
    names = seat_names(person, rivals)
    connected = [connected_rival(r) is not None for r in rivals]
    hub = CasualHub(arena, [name for name, bot in zip(names[1:], connected, strict=True) if bot])
    kinds = ("person", *("bot" if bot else "house" for bot in connected))
    game = CasualGame(game_id, owner, names[0], names, 0, hub, move_ms, kinds)
    hub.give_way = game.give_way
    for i, (name, rival) in enumerate(zip(names[1:], rivals, strict=True), 1):
        if connected_rival(rival) is None:
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
    except asyncio.CancelledError:
        if casual.stopped is None:
            raise
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # it gave way (`give_way`): it ends as a game does, not as a task cancelled
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
