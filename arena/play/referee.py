"""The referee: runs one game between connected bots, with the rules engine as the authority.

Each seat is sent only `observe(game, seat)`; every request has a deadline; an illegal answer is
rejected with the engine's reason and may be retried until the deadline, up to
`Limits.max_invalid` times. A seat is forfeited, with a `ForfeitCause` and a reason, when

* its request times out (TIMEOUT, "timeout ..."): the move limit plus what is left of its time bank;
* it gives `max_invalid` illegal answers to one request (ILLEGAL, "invalid answers ...");
* its bot stays disconnected longer than the grace period (DISCONNECT, "disconnected ...");
* its bot was absent when the game began (ABSENT; `Referee.play`'s `absent`, given by the
  tournament runner with its reason).

The game then goes on with the fallback policy playing that seat (`fallback_action`: keep the
hand at a flip, otherwise the first legal action in the engine's order), and the seat ranks last
(`arena.play.results.final_ranks`). Time spent disconnected is not thinking time: a request's clock
stops while its bot is away and the grace clock runs instead; the request is re-sent with the
time it had left when the bot is back.

While a request is open the referee tells its bot's connection that the game waits for it
(`BotConnection.game_waits`), and while none is open it tells every bot of the table that the game
moves (`BotConnection.game_moves`): that is how a bot's stream knows whether more news is about to
come.
All times are the hub's clock (`arena.play.clock`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from arena.play.clock import Timer
from arena.play.results import ForfeitCause, GameResult, SeatResult, final_ranks
from arena.play.sessions import Answer, MalformedDecision, SessionHub
from arena.play.spectators import GameFeed, SpectatorHub, Watch
from sdk.engine import Action, Flip, Game, IllegalAction, Kept, Phase, Seat, observe, record_of, table_rules
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    Forfeit,
    GameOver,
    GameStarted,
    PublicEvent,
)


@dataclass(frozen=True, slots=True)
class Limits:
    """The clocks of one game. A ValueError names a value out of range."""

    move_ms: int = 2000
    """Time to answer one request before the time bank is drawn on."""
    time_bank_ms: int = 0
    """Extra time per seat for the whole game, spent by moves that run over `move_ms`."""
    grace_ms: int = 5000
    """How long a disconnected bot may take to come back before its seats are forfeited."""
    max_invalid: int = 5
    """Illegal answers to one request that forfeit the seat."""

    def __post_init__(self) -> None:
        for name, low, high in (
            ("move_ms", 10, 600_000),
            ("time_bank_ms", 0, 3_600_000),
            ("grace_ms", 0, 600_000),
            ("max_invalid", 1, 100),
        ):
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} must be within {low}..{high}, not {value}")


def fallback_action(game: Game, seat: Seat) -> Action:
    """What the referee plays for a forfeited seat: keep the hand, then the first legal action."""
    if game.phase is Phase.FLIP:
        return Flip(False)
    return game.legal_actions(seat)[0]


class _Wake(Enum):
    """Why a waiting request woke up; the request's own fields say what happened."""

    EXPIRED = "expired"
    CHANGED = "changed"


class _Seat:
    __slots__ = ("bank_ms", "bot", "cause", "forfeit", "index")

    def __init__(self, index: Seat, bot: str, bank_ms: int) -> None:
        self.index = index
        self.bot = bot
        self.bank_ms = bank_ms
        self.forfeit: str | None = None
        self.cause: ForfeitCause | None = None


class _Request:
    """One decision the game waits for, with its thinking clock."""

    __slots__ = (
        "answered",
        "closed",
        "deadline",
        "id",
        "invalid",
        "kind",
        "last_reason",
        "seat",
        "started",
        "used",
        "waiter",
    )

    def __init__(self, request_id: int, seat: _Seat, kind: DecisionKind) -> None:
        self.id = request_id
        self.seat = seat
        self.kind = kind
        self.used = 0.0
        """Thinking seconds spent while the bot was connected, up to `started`."""
        self.started: float | None = None
        """Loop time the clock last started; None while the bot is away."""
        self.invalid = 0
        self.answered = False
        self.closed = False
        """Answered or expired: later answers are stale."""
        self.last_reason = ""
        self.waiter: asyncio.Future[_Wake] | None = None
        self.deadline: float | None = None
        """Loop time at which the current wait expires; None while not waiting."""

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(_Wake.CHANGED)

    def expire(self) -> bool:
        """End the wait as run out; False if nothing was waiting."""
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(_Wake.EXPIRED)
            return True
        return False


class _LiveGame:
    """One running game: the engine, the seats, the pending requests; implements sessions.LiveGame.

    One timer per table, not per request, watches the deadlines: answers take milliseconds and
    deadlines seconds, so the timer set for one request finds it answered and moves on to the
    deadline of a later one, instead of a timer being made and cancelled for every decision.
    """

    def __init__(
        self,
        game_id: str,
        game: Game,
        bots: Sequence[str],
        limits: Limits,
        hub: SessionHub,
        on_answer: Callable[[float], None] | None,
        absent: Mapping[str, str],
    ) -> None:
        self.game_id = game_id
        self.feed: GameFeed | None = None
        """Where spectators get the game's public events, if it is watched."""
        self.game = game
        self.limits = limits
        self.hub = hub
        self.seats = [_Seat(i, bot, limits.time_bank_ms) for i, bot in enumerate(bots)]
        for seat in self.seats:
            if seat.bot in absent:
                seat.forfeit, seat.cause = absent[seat.bot], ForfeitCause.ABSENT
        self.bots = tuple(b for b in dict.fromkeys(bots) if b not in absent)
        """The bots seated, who hear the game; absent ones are not told of it."""
        self.requests: dict[int, _Request] = {}
        self.open: dict[str, int] = {}
        """Requests not yet closed, by bot: the game waits for the bots with some."""
        self.open_total = 0
        """Requests not yet closed, of all bots."""
        self.moving = False
        """Whether the game waits for no bot since a request closed (`_tell_moving`)."""
        self.asked: list[str] = []
        """The bot of every request so far: request id i went to `asked[i - 1]`."""
        self.sent_events = 0
        self.on_answer = on_answer
        self.loop = asyncio.get_running_loop()
        self.clock = hub.clock
        self._timer: Timer | None = None
        self._timer_at = 0.0

    # -- sending -------------------------------------------------------------------------------

    def _send(self, bot: str, msg: ArenaMessage) -> None:
        conn = self.hub.get(bot)
        if conn is not None:
            conn.send(msg)

    def _game_started(self, seat: _Seat) -> GameStarted:
        players = tuple(s.bot for s in self.seats)
        return GameStarted(self.game_id, seat.index, players, self.limits.move_ms, seat.bank_ms)

    def _send_request(self, req: _Request) -> None:
        conn = self.hub.get(req.seat.bot)
        if conn is None or conn.stream is None:
            return
        used = req.used if req.started is None else req.used + self.clock.time() - req.started
        left = self.limits.move_ms + req.seat.bank_ms - used * 1000
        bank = min(req.seat.bank_ms, left)
        obs = observe(self.game, req.seat.index, with_legal_actions=conn.stream.want_legal_actions)
        conn.send(DecisionRequest(self.game_id, req.id, req.kind, obs, round(left), round(bank)))

    def _broadcast_events(self) -> None:
        events = self.game.events
        while self.sent_events < len(events):
            msg = PublicEvent(self.game_id, self.sent_events, events[self.sent_events])
            for bot in self.bots:
                self._send(bot, msg)
            if self.feed is not None:
                self.feed.publish(events[self.sent_events])
            self.sent_events += 1

    # -- open requests -------------------------------------------------------------------------

    def _open(self, req: _Request) -> None:
        bot = req.seat.bot
        self.requests[req.id] = req
        self.open[bot] = self.open.get(bot, 0) + 1
        if self.open[bot] == 1:
            self._tell_waiting(bot, True)
        self.open_total += 1
        if self.moving:
            self._tell_moving(False)

    def _close(self, req: _Request) -> None:
        """No answer to `req` counts any more: answered, run out, or given up."""
        if req.closed:
            return
        req.closed = True
        bot = req.seat.bot
        self.open[bot] -= 1
        if not self.open[bot]:
            self._tell_waiting(bot, False)
        self.open_total -= 1
        if not self.open_total:
            self._tell_moving(True)

    def _tell_waiting(self, bot: str, waits: bool) -> None:
        conn = self.hub.get(bot)
        if conn is not None:
            conn.game_waits(self.game_id, waits)

    def _tell_moving(self, moves: bool) -> None:
        """Tell every bot of the table that the game now waits for no bot, or for one again: while
        it moves, their due writes wait for the news it is about to send (`BotConnection.more_coming`)."""
        self.moving = moves
        for bot in self.bots:
            conn = self.hub.get(bot)
            if conn is not None:
                conn.game_moves(self.game_id, moves)

    # -- the hub's calls -----------------------------------------------------------------------

    def resync(self, bot: str) -> None:
        for seat in self.seats:
            if seat.bot == bot:
                self._send(bot, self._game_started(seat))
                if seat.forfeit is not None:  # forfeited while away: it hears so on coming back
                    self._send(bot, self._forfeit_notice(seat))
        for seq in range(self.sent_events):
            self._send(bot, PublicEvent(self.game_id, seq, self.game.events[seq]))
        for req in self.requests.values():
            if req.seat.bot != bot:
                continue
            if req.started is None:
                req.wake()
            else:
                self._send_request(req)

    def connection_lost(self, bot: str) -> None:
        now = self.clock.time()
        for req in self.requests.values():
            if req.seat.bot == bot and req.started is not None:
                req.used += now - req.started
                req.started = None
                req.wake()

    def submit(self, bot: str, decision: Answer) -> ArenaMessage:
        rid = decision.request_id
        if not 1 <= rid <= len(self.asked) or self.asked[rid - 1] != bot:
            # The same answer whether the id is another seat's (pending or not) or none at all,
            # so a probe learns nothing about the other seats, such as when they decided.
            return ErrorNotice(
                ErrorCode.NOT_YOUR_REQUEST,
                f"request {rid} of game {self.game_id!r} was never sent to bot {bot!r}",
                self.game_id,
                rid,
            )
        req = self.requests.get(rid)
        if req is None or req.closed:
            return ErrorNotice(
                ErrorCode.STALE_REQUEST,
                f"request {rid} of game {self.game_id!r} was already answered or has expired",
                self.game_id,
                rid,
            )
        if isinstance(decision, MalformedDecision):
            return self._reject(req, decision.reason)
        try:
            self.game.apply(req.seat.index, decision.action)
        except IllegalAction as exc:
            return self._reject(req, str(exc))
        req.answered = True
        self._close(req)
        req.wake()
        return ActionAccepted(self.game_id, rid)

    def _reject(self, req: _Request, reason: str) -> ActionRejected:
        """Count an illegal or malformed answer to `req`; the last one allowed closes it."""
        req.invalid += 1
        req.last_reason = reason
        left = self.limits.max_invalid - req.invalid
        if left <= 0:
            self._close(req)
            req.wake()
        return ActionRejected(self.game_id, req.id, reason, left)

    # -- deadlines -----------------------------------------------------------------------------

    def _watch(self, deadline: float) -> None:
        """Have the timer go off no later than `deadline`."""
        if self._timer is None or deadline < self._timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer, self._timer_at = self.clock.call_at(deadline, self._check_deadlines), deadline

    def _check_deadlines(self) -> None:
        self._timer = None
        now = self.clock.time()
        later = [req.deadline for req in self.requests.values() if req.deadline is not None and req.deadline > now]
        for req in list(self.requests.values()):
            if req.deadline is not None and req.deadline <= now and req.expire():
                self._close(req)
        if later:
            self._watch(min(later))

    # -- playing -------------------------------------------------------------------------------

    async def run(self) -> GameResult:
        """Play the game to its end, tell every bot the outcome, and return the result."""
        for seat in self.seats:
            if seat.bot in self.bots:
                self._send(seat.bot, self._game_started(seat))
        game = self.game
        while True:
            self._broadcast_events()
            if game.is_over:
                break
            if game.phase is Phase.FLIP:
                await asyncio.gather(*(self._decide(self.seats[s], DecisionKind.FLIP) for s in game.awaiting))
            else:
                await self._decide(self.seats[game.to_move], DecisionKind.ACTION)
        return self._finish()

    async def _decide(self, seat: _Seat, kind: DecisionKind) -> None:
        """Have `seat` make its decision, or play the fallback for it."""
        if seat.forfeit is None:
            failure = await self._ask(seat, kind)
            if failure is None:
                return
            self._forfeit(seat, *failure)
        self.game.apply(seat.index, fallback_action(self.game, seat.index))

    async def _ask(self, seat: _Seat, kind: DecisionKind) -> tuple[ForfeitCause, str] | None:
        """Wait for a legal answer; return None once it is applied, else why the seat forfeits."""
        self.asked.append(seat.bot)
        req = _Request(len(self.asked), seat, kind)
        self._open(req)
        limits = self.limits
        budget = (limits.move_ms + seat.bank_ms) / 1000
        try:
            while True:
                conn = self.hub.get(seat.bot)
                now = self.clock.time()
                connected = conn is not None and conn.connected
                if connected:
                    req.started = now
                    self._send_request(req)
                    timeout = budget - req.used
                else:
                    away_since = conn.disconnected_at if conn is not None else now
                    timeout = away_since + limits.grace_ms / 1000 - now
                req.waiter = self.loop.create_future()
                req.deadline = now + max(timeout, 0.0)
                self._watch(req.deadline)
                wake = await req.waiter
                req.deadline = None
                if req.started is not None:
                    req.used += self.clock.time() - req.started
                    req.started = None
                if req.answered:
                    seat.bank_ms = max(0, seat.bank_ms - max(0, round(req.used * 1000) - limits.move_ms))
                    if self.on_answer is not None:
                        self.on_answer(req.used)
                    return None
                if req.invalid >= limits.max_invalid:
                    return (
                        ForfeitCause.ILLEGAL,
                        f"invalid answers: {req.invalid} illegal answers to request {req.id}, "
                        f"the last: {req.last_reason}",
                    )
                if wake is _Wake.EXPIRED:
                    if connected:
                        return (
                            ForfeitCause.TIMEOUT,
                            f"timeout: no legal answer to request {req.id} within {round(budget * 1000)} ms",
                        )
                    return (
                        ForfeitCause.DISCONNECT,
                        f"disconnected: not back within the {limits.grace_ms} ms grace period",
                    )
        finally:
            self._close(req)
            req.started = None
            del self.requests[req.id]

    def _forfeit(self, seat: _Seat, cause: ForfeitCause, reason: str) -> None:
        seat.forfeit, seat.cause = reason, cause
        self._send(seat.bot, self._forfeit_notice(seat))

    def _forfeit_notice(self, seat: _Seat) -> ErrorNotice:
        return ErrorNotice(
            ErrorCode.SEAT_FORFEITED,
            f"seat {seat.index} of game {self.game_id!r} was forfeited: {seat.forfeit}",
            self.game_id,
        )

    def _finish(self) -> GameResult:
        game = self.game
        forfeited = [s.forfeit is not None for s in self.seats]
        ranks = final_ranks(game.totals, forfeited)
        seats = tuple(
            SeatResult(s.index, s.bot, game.totals[s.index], ranks[s.index], s.forfeit, s.cause) for s in self.seats
        )
        over = GameOver(
            self.game_id,
            tuple(game.totals),
            ranks,
            tuple(Forfeit(s.index, s.cause, s.forfeit) for s in self.seats if s.forfeit is not None),
            tuple(r.reason for r in game.results),
        )
        for bot in self.bots:
            self._send(bot, over)
        return GameResult(record_of(game), seats)

    def close(self) -> None:
        """The game is over or abandoned: stop watching its deadlines, and tell its spectators."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.feed is not None:
            self.feed.end(self.game.is_over)


class Referee:
    """Plays games between bots connected to `hub`; one instance serves the whole arena.

    `on_answer`, if given, is called with each legal answer's round trip in seconds (request
    sent to answer received, connected time only), for metrics. Games played with a `Watch` publish
    their public events to `spectators`.
    """

    def __init__(
        self,
        hub: SessionHub,
        on_answer: Callable[[float], None] | None = None,
        spectators: SpectatorHub | None = None,
    ) -> None:
        self._hub = hub
        self._on_answer = on_answer
        self.spectators = spectators

    async def play(
        self,
        game_id: str,
        seat_bots: Sequence[str],
        seed: int,
        limits: Limits = Limits(),
        absent: Mapping[str, str] | None = None,
        watch: Watch | None = None,
        created: Callable[[Game], None] | None = None,
        kept: Kept | None = None,
    ) -> GameResult:
        """Play one game to the end; `seat_bots` names the bot of each seat, in seat order.

        `absent` maps bots that are not there to why: their seats are forfeited from the start
        with that reason and played by the fallback, and they are not seated. Raises ValueError
        for a bad seat count, sessions.Unavailable if another bot is not connected or is at
        capacity; nothing has been dealt or built then (`SessionHub.check`, asked first). With
        `watch`, spectators can follow the game.
        `created`, if given, is handed the game once it is dealt (a casual game's host reads the
        person's seat view from it, `arena.play.casual`). `kept` gives seats their hands in advance
        (a tournament's replay of a voided attempt, `sdk.engine.deal`).
        """
        absent = absent or {}
        table_rules(len(seat_bots))  # a bad seat count is refused before a seat is
        self._hub.check(game_id, [b for b in seat_bots if b not in absent])
        game = Game(len(seat_bots), seed, kept=kept)
        if created is not None:
            created(game)
        table = _LiveGame(game_id, game, seat_bots, limits, self._hub, self._on_answer, absent)
        self._hub.seat(table, table.bots)
        if watch is not None and self.spectators is not None:
            table.feed = self.spectators.open(watch, game_id, seat_bots)
        try:
            return await table.run()
        finally:
            table.close()
            self._hub.release(table, table.bots)
