"""Connected bots: one `BotConnection` per registered bot, outliving the streams it comes through.

A bot's seats belong to its name, not to a stream: when its stream breaks the seats wait (the
referee runs the grace period), and a new stream authenticated with the same token takes them
over. `SessionHub` is the one registry of connections; the gRPC servicer feeds it streams and
messages, the referee asks it for seats and tells it which games wait for which bot and which are
moving (a due write waits for more only while another of the bot's games is about to send some).
Nothing here knows protobuf.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from arena.names import shown
from arena.play.clock import LOOP_CLOCK, Clock, Timer
from sdk.protocol import (
    ActionAccepted,
    ArenaMessage,
    Decision,
    ErrorCode,
    ErrorNotice,
    GameStarted,
    Hello,
    PublicEvent,
    TournamentEnd,
    TournamentOver,
    Welcome,
)

MAX_CAPACITY = 256
"""Most games one bot session may play at once (a process running many bots may rather open one
session with a large capacity: fewer, larger writes; docs/benchmarks.md, "Scale")."""
MAX_BATCH = 256
"""Most messages in one write to a bot."""
MAX_QUEUED = 10_000
"""Messages waiting for one stream beyond which its bot is cut off as not reading."""
BATCH_WAIT_S = 0.001
"""How long a due write waits for more messages to join it while another of the bot's games is moving
(`BotConnection.more_coming`)."""
CAN_WAIT = (PublicEvent, ActionAccepted, GameStarted)
"""Messages a bot has no use for before its next request: they wait for a message that needs
writing at once, or until MAX_BATCH messages wait; an ActionAccepted at most NEWS_WAIT_S while
its bot has no other request open."""
NEWS_WAIT_S = 0.05
"""Longest an ActionAccepted waits for something that needs writing at once while its bot has no
other request open: the reply to the bot's own message comes soon to a bot that may be waiting
for it; a bot with a request open is busy with it and gets the acceptance with its next message."""


@dataclass(frozen=True, slots=True)
class MalformedDecision:
    """A Decision whose ids were read but whose action did not decode (`reason` says why).

    It is routed by its ids like any Decision, so the bot gets an ActionRejected for that request
    (counted like an illegal answer) that it can match and retry, not an Error it cannot route."""

    game_id: str
    request_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Relayed:
    """A message to a bot whose game another node of a cluster referees, already in wire form
    (one framed `ArenaBatch.messages` entry, `arena.cluster.relay`): it is written as it came, so
    the bot gets the same bytes as from a local referee. `kind` is the message's type, which
    decides when the stream writes it (`CAN_WAIT`)."""

    kind: type
    entry: bytes


Outgoing: TypeAlias = ArenaMessage | Relayed
"""What a stream writes to its bot."""
Answer: TypeAlias = Decision | MalformedDecision
"""A bot's answer to a request, as the arena read it."""
Received: TypeAlias = Hello | Answer
"""A message from a bot, as the arena read it."""
GiveWay: TypeAlias = Callable[[str], None]
"""Ends a game that gives way, called with the bot whose seat another game takes (its seat is
already freed): the game stops at once, and says why to whoever plays it."""


class LiveGame(Protocol):
    """A running game as the hub sees it (implemented by the referee, which also tells each bot's
    connection when the game starts and stops waiting for it, `BotConnection.game_waits`, and
    when it starts and stops waiting for any bot, `BotConnection.game_moves`)."""

    game_id: str

    def resync(self, bot: str) -> None:
        """`bot` has a new stream: send it its seats, the game's events and its pending requests."""

    def connection_lost(self, bot: str) -> None:
        """`bot`'s stream ended: stop its clocks; the grace period starts."""

    def submit(self, bot: str, decision: Answer) -> ArenaMessage:
        """Judge `bot`'s decision; return the reply (accepted, rejected or an error)."""
        ...


class Relay(Protocol):
    """What a cluster node adds to the hub (`arena.cluster.relay`): it hears of this node's own
    streams, and takes the answers for games refereed on another node."""

    def opened(self, conn: BotConnection, stream: Stream) -> None:
        """A stream of this node became `conn`'s current one."""

    def closed(self, conn: BotConnection, stream: Stream) -> None:
        """`conn`'s current stream of this node ended."""

    def forward(self, bot: str, answer: Answer) -> bool:
        """Send `answer` to the node refereeing its game; False if no other node does."""
        ...


def _kind(msg: Outgoing) -> type:
    return msg.kind if type(msg) is Relayed else type(msg)


class Unavailable(Exception):
    """A bot cannot take a seat now; the message says which and why."""


class NotConnected(Unavailable):
    pass


class AtCapacity(Unavailable):
    pass


class Stream:
    """One open Play call: the messages waiting to be written to it, in order.

    A write is due when a message arrives that the bot must act on (a request, a rejection, an
    error, the end of a game, ...), or once MAX_BATCH messages wait: the events and acceptances of
    a bot's games ride along with its next request instead of costing a write of their own, which
    is most of the cost of a message at both ends (docs/benchmarks.md). Only an acceptance has a
    timer (NEWS_WAIT_S), and only while the bot is `deciding` nothing else: the news of other
    seats' moves waits however long. With a timer on every kind of news, a bot whose seats were
    not to move got a write of news alone for every move of the others, and one thinking in
    several games a write of an acceptance alone for each answer: the arena's CPU per decision
    grew as the bots thought longer ("Scale" there).
    """

    relayed = False
    """True for a stream on another node of a cluster (`arena.cluster.relay.RemoteStream`): that
    node welcomes its bot and tells it it was superseded, not this one."""

    __slots__ = (
        "_clock",
        "_due",
        "_ready",
        "_timer",
        "closed",
        "deciding",
        "more_coming",
        "overflowed",
        "pending",
        "session_id",
        "tournaments",
        "want_legal_actions",
        "writer",
    )

    def __init__(
        self,
        session_id: str,
        want_legal_actions: bool,
        more_coming: Callable[[], bool],
        tournaments: Iterable[str] = (),
        clock: Clock = LOOP_CLOCK,
        deciding: Callable[[], bool] = lambda: False,
    ) -> None:
        self.session_id = session_id
        self.want_legal_actions = want_legal_actions
        self.more_coming = more_coming
        """Whether messages for this stream are about to come: a due write waits BATCH_WAIT_S for them."""
        self.deciding = deciding
        """Whether the bot has a request open: an acceptance then waits for its next message."""
        self.tournaments = set(tournaments)
        """The tournaments its Hello named whose end it has not been told yet."""
        self.pending: list[Outgoing] = []
        self.closed = False
        self.overflowed = False
        self.writer: asyncio.Task[object] | None = None
        """The task writing this stream's messages; set by the servicer."""
        self._due = False
        self._timer: Timer | None = None
        """Makes the write due NEWS_WAIT_S after the first ActionAccepted that waits."""
        self._ready: asyncio.Future[None] | None = None
        """Set while the writer waits for a due write."""
        self._clock = clock

    def send(self, msg: Outgoing) -> None:
        """Queue `msg` (dropped once the stream is closed). A bot that lets MAX_QUEUED messages
        pile up unread is cut off: the task serving its call (`writer`) is cancelled and the bot
        counts as disconnected, so a stalled reader cannot hold the arena's memory."""
        if self.closed:
            return
        if len(self.pending) < MAX_QUEUED:
            self.pending.append(msg)
            kind = _kind(msg)
            if kind not in CAN_WAIT or len(self.pending) >= MAX_BATCH:
                self._make_due()
            elif kind is ActionAccepted and self._timer is None and not self._due and not self.deciding():
                self._timer = self._clock.call_at(self._clock.time() + NEWS_WAIT_S, self._make_due)
        elif self.writer is not None and not self.overflowed:
            self.overflowed = True
            self.writer.cancel()

    def released(self, game_id: str) -> None:
        """The hub freed the bot's seat of game `game_id` (a relayed stream tells the bot's node)."""

    def close(self) -> None:
        """End the call once the messages queued so far are written."""
        self.closed = True
        self._make_due()

    def _make_due(self) -> None:
        self._due = True
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(None)

    async def next_batch(self) -> list[Outgoing]:
        """Wait for a due write, give other messages BATCH_WAIT_S to join it if `more_coming`, then
        take up to MAX_BATCH (one write for all of them); an empty list once the stream is closed and
        drained. A bot none of whose games is moving is written to at once: its other games wait for
        thinking bots, and a timer would only add a wake-up to every write.

        A plain list and one future per wait: an asyncio.Queue cost more per message than the
        rest of the hand-off, with several messages per decision."""
        if not self._due:
            self._ready = asyncio.get_running_loop().create_future()
            try:
                await self._ready
            finally:
                self._ready = None
        if not self.pending:
            return []
        if self.more_coming():
            await self._clock.sleep(BATCH_WAIT_S)
        batch = self.pending[:MAX_BATCH]
        del self.pending[:MAX_BATCH]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.closed and len(self.pending) < MAX_BATCH and all(_kind(m) in CAN_WAIT for m in self.pending):
            self._due = False
            if ActionAccepted in map(_kind, self.pending) and not self.deciding():
                self._timer = self._clock.call_at(self._clock.time() + NEWS_WAIT_S, self._make_due)
        return batch


class BotConnection:
    """A registered bot at the arena: its current stream (None while disconnected) and games."""

    __slots__ = (
        "accept_casual",
        "capacity",
        "disconnected_at",
        "elsewhere",
        "gives_way",
        "live_games",
        "moving",
        "name",
        "stream",
        "waiting",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.stream: Stream | None = None
        self.capacity = 0
        self.accept_casual = False
        """Whether its current stream's Hello offered it for casual games (`arena.play.casual`)."""
        self.live_games: dict[str, LiveGame] = {}
        self.gives_way: dict[str, GiveWay] = {}
        """The games of `live_games` that give way to any other game (casual games), each with
        how to end it: a game that needs the seat takes it (`SessionHub.seat`)."""
        self.waiting: set[str] = set()
        """The games of `live_games` that cannot go on until one of this bot's seats decides."""
        self.moving: set[str] = set()
        """The games of `live_games` that wait for no bot: an answer came in and the referee is about
        to send the news of it and the next request, within the event loop's next steps."""
        self.disconnected_at = 0.0
        """The hub's clock when the last stream ended; meaningful only while `stream` is None."""
        self.elsewhere = 0
        """Its games refereed on other nodes of a cluster (`arena.cluster.presence`): they count
        against its capacity here too."""

    @property
    def connected(self) -> bool:
        return self.stream is not None

    @property
    def busy(self) -> bool:
        """Whether it plays as many games as its capacity: a game that gives way can take no seat now."""
        return len(self.live_games) + self.elsewhere >= self.capacity

    @property
    def held(self) -> int:
        """Its games that give way to none: what a tournament game counts against its capacity,
        since the games that give way end when it needs their seats."""
        return len(self.live_games) - len(self.gives_way) + self.elsewhere

    def game_waits(self, game_id: str, waits: bool) -> None:
        """The referee's word that game `game_id` now waits (or no longer waits) for this bot."""
        if waits:
            self.waiting.add(game_id)
        else:
            self.waiting.discard(game_id)

    def deciding(self) -> bool:
        """Whether one of the bot's games waits for it: it has a request open."""
        return bool(self.waiting)

    def game_moves(self, game_id: str, moves: bool) -> None:
        """The referee's word that game `game_id` now waits for no bot (or waits for one again)."""
        if moves:
            self.moving.add(game_id)
        else:
            self.moving.discard(game_id)

    def more_coming(self) -> bool:
        """Whether one of the bot's games is moving: it sends this bot news, or a request, any moment.
        Not whether one waits for another bot: that bot may think for seconds, and a due write that
        waited for it would cost a timer wake-up of its own and gain nothing (docs/benchmarks.md,
        "Scale")."""
        return bool(self.moving)

    def send(self, msg: Outgoing) -> None:
        """Queue `msg` on the current stream; while disconnected it is dropped (resync re-sends)."""
        if self.stream is not None:
            self.stream.send(msg)


class SessionHub:
    """Every bot connection, the streams they come through and the games they sit in; `clock`
    times the streams' writes, the disconnections and the referee's deadlines."""

    def __init__(self, clock: Clock = LOOP_CLOCK) -> None:
        self.clock = clock
        self._bots: dict[str, BotConnection] = {}
        self._watchers: dict[str, set[asyncio.Future[None]]] = {}
        """Who waits in `changed` for each bot to connect or free a seat."""
        self.relay: Relay | None = None
        """Set on a node of a cluster (`arena.cluster`): bots whose stream is on another node."""

    def get(self, name: str) -> BotConnection | None:
        return self._bots.get(name)

    def bots(self) -> list[BotConnection]:
        """Every connection the hub holds, connected or waiting for its games' bots to come back."""
        return list(self._bots.values())

    def local(self, name: str) -> bool:
        """Whether bot `name`'s current stream is on this node (always, outside a cluster)."""
        conn = self._bots.get(name)
        return conn is not None and conn.stream is not None and not conn.stream.relayed

    def open(
        self, name: str, hello: Hello, session_id: str, stream: Stream | None = None
    ) -> tuple[BotConnection, Stream]:
        """Attach a new stream for `name` after its Hello (`stream`, or a new `Stream` for a gRPC
        call); a previous live stream is superseded. A relayed stream (another node's) is attached
        silently: that node welcomed the bot, and tells a stream of its own that it was superseded."""
        conn = self._bots.get(name)
        if conn is None:
            conn = self._bots[name] = BotConnection(name)
        old = conn.stream
        if old is not None:
            if not old.relayed:
                old.send(ErrorNotice(ErrorCode.SUPERSEDED, f"a newer session ({session_id}) took over bot {name!r}"))
            old.close()
        if stream is None:
            stream = Stream(
                session_id, hello.want_legal_actions, conn.more_coming, hello.tournaments, self.clock, conn.deciding
            )
        conn.stream = stream
        conn.capacity = hello.capacity
        conn.accept_casual = hello.accept_casual
        if not stream.relayed:
            stream.send(Welcome(session_id, name, hello.capacity))
            if self.relay is not None:
                self.relay.opened(conn, stream)
        for table in list(conn.live_games.values()):
            table.resync(name)
        self._notify(name)
        return conn, stream

    def close(self, conn: BotConnection, stream: Stream) -> None:
        """The call of `stream` ended; if it was the bot's current one, the bot is disconnected."""
        if conn.stream is not stream:
            return
        conn.stream = None
        conn.disconnected_at = self.clock.time()
        if self.relay is not None and not stream.relayed:
            self.relay.closed(conn, stream)
        for table in list(conn.live_games.values()):
            table.connection_lost(conn.name)
        if not conn.live_games:
            del self._bots[conn.name]

    def receive(self, conn: BotConnection, msg: Received) -> None:
        """Route a message from `conn`'s current stream; refusals go back to it as errors."""
        if isinstance(msg, Hello):
            conn.send(ErrorNotice(ErrorCode.PROTOCOL, "Hello may only be the first message of a stream"))
            return
        table = conn.live_games.get(msg.game_id)
        if table is None:
            if self.relay is not None and self.relay.forward(conn.name, msg):
                return
            conn.send(
                ErrorNotice(
                    ErrorCode.UNKNOWN_GAME,
                    f"bot {conn.name!r} is not playing a game {shown(msg.game_id)}",
                    msg.game_id,
                    msg.request_id,
                )
            )
            return
        conn.send(table.submit(conn.name, msg))

    def check(self, game_id: str, bots: Sequence[str], gives_way: bool = False) -> None:
        """Raise NotConnected or AtCapacity unless `seat` could seat game `game_id`'s `bots` now:
        the referee asks before it deals, so a seat that cannot be taken costs no game. A game
        that `gives_way` needs a free seat; any other counts only the bots' games that do not
        give way (`BotConnection.held`), since it takes the seat of one that does."""
        for name in dict.fromkeys(bots):
            conn = self._bots.get(name)
            if conn is None or not conn.connected:
                raise NotConnected(f"bot {name!r} is not connected")
            if conn.busy if gives_way else conn.held >= conn.capacity:
                raise AtCapacity(f"bot {name!r} is already playing {len(conn.live_games)} games, its capacity")
            if game_id in conn.live_games:
                raise ValueError(f"game {game_id!r} is already running")

    def seat(self, table: LiveGame, bots: Sequence[str], give_way: GiveWay | None = None) -> None:
        """Give `table` a seat for each of `bots` (a bot may appear more than once), or none at all.

        With `give_way`, the game gives way to any other: it is ended by `give_way` when another
        game needs one of its bots at that bot's capacity. Without, it ends such a game of each
        bot at its capacity, the latest seated first (the one that has been played least): a
        casual game is never a reason for a tournament game to wait."""
        self.check(table.game_id, bots, give_way is not None)
        names = list(dict.fromkeys(bots))
        if give_way is None:
            for name in names:
                conn = self._bots[name]
                while conn.busy and conn.gives_way:
                    self._take_seat(conn, next(reversed(conn.gives_way)))
        for name in names:
            conn = self._bots[name]
            conn.live_games[table.game_id] = table
            if give_way is not None:
                conn.gives_way[table.game_id] = give_way

    @staticmethod
    def _take_seat(conn: BotConnection, game_id: str) -> None:
        """Free `conn`'s seat of the game `game_id`, which gives way, and have it end."""
        give_way = conn.gives_way.pop(game_id)
        conn.live_games.pop(game_id, None)
        conn.waiting.discard(game_id)
        conn.moving.discard(game_id)
        if conn.stream is not None:
            conn.stream.released(game_id)
        give_way(conn.name)

    def casual_bots(self) -> list[BotConnection]:
        """The connected bots that accept casual games, by name (busy ones too: a page shows them so)."""
        return sorted((c for c in self._bots.values() if c.connected and c.accept_casual), key=lambda c: c.name.lower())

    async def changed(self, bots: Iterable[str]) -> None:
        """Return once one of `bots` connects or one of its seats is freed: what a game that could
        not seat them waits for, instead of trying again on a timer (any number of waiting games
        cost nothing until then; a connection wakes only the games of its bot)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        names = set(bots)
        for name in names:
            self._watchers.setdefault(name, set()).add(waiter)
        try:
            await waiter
        finally:
            for name in names:
                watchers = self._watchers.get(name)
                if watchers is not None:
                    watchers.discard(waiter)
                    if not watchers:
                        del self._watchers[name]

    def waiting_for(self, name: str) -> int:
        """How many waits in `changed` bot `name` would end now."""
        return len(self._watchers.get(name, ()))

    def notify(self, name: str) -> None:
        """Wake the games waiting in `changed` for bot `name`: a seat of its came free elsewhere."""
        self._notify(name)

    def _notify(self, name: str) -> None:
        for waiter in self._watchers.pop(name, ()):
            if not waiter.done():
                waiter.set_result(None)

    def watching(self) -> bool:
        """Whether some current stream waits to hear that a tournament is over."""
        return any(conn.stream is not None and conn.stream.tournaments for conn in self._bots.values())

    def tournaments_over(self, ended: Mapping[str, TournamentEnd]) -> None:
        """Send TournamentOver to every current stream whose Hello named one of the `ended`
        tournaments, once per stream and tournament (the tournament runner calls this every tick,
        so a stream that names a tournament after it ended hears of it at the next)."""
        for conn in self._bots.values():
            stream = conn.stream
            if stream is None or not stream.tournaments:
                continue
            for name in sorted(stream.tournaments & ended.keys()):
                stream.send(TournamentOver(name, ended[name]))
                stream.tournaments.discard(name)

    def release(self, table: LiveGame, bots: Sequence[str]) -> None:
        """`table`'s game is over: free its seats, and forget bots that are gone and seat-less."""
        for name in dict.fromkeys(bots):
            conn = self._bots.get(name)
            if conn is None:
                continue
            conn.live_games.pop(table.game_id, None)
            conn.gives_way.pop(table.game_id, None)
            conn.waiting.discard(table.game_id)
            conn.moving.discard(table.game_id)
            if conn.stream is not None:
                conn.stream.released(table.game_id)
            if not conn.live_games and not conn.connected:
                del self._bots[name]
            self._notify(name)
