"""Run a bot against an arena: connect, play every game the arena gives it, reconnect when cut off.

>>> from sdk.runner import run, register          # doctest: +SKIP
>>> token = register("my-bot", target="arena.example:50051")
>>> run(MyBot(), target="arena.example:50051", token=token)

One stream carries all the bot's games (docs/protocol.md). The runner keeps each game's public
history from the arena's events, hands the bot complete `Observation`s (with legal actions, from
the arena or computed here with the engine) and sends back its answers. Sync and async bots both
work: an async bot's decisions each run as a task, so a slow one in one game does not hold up the
others; a sync bot is called in place (its `choose` blocks the event loop while it runs either way).

If the connection breaks the runner reconnects with exponential back-off and jitter; the arena
gives the seats back if it returns within the arena's grace period. `target` may name several
nodes of one cluster (`"a:50051,b:50051"`, or a list): the runner starts with the first, moves to
the next as soon as its node goes, and backs off only once every node has failed in a row. `play_until_over_async` plays
for one tournament: its Hello names it, and the runner stops when the arena sends TournamentOver.
A runner that is done leaves as the protocol says, by half-closing its stream. A refused token, or another
process taking over the bot's session, stops the runner with `ArenaRefused`; so does a first
connection that fails for a TLS mismatch (`tls=` missing for an arena that serves TLS, or a
certificate the given CA did not sign), which no retry can fix.

`tls=sdk.tls.ClientTls(ca_file="ca.pem")` (or `ClientTls()` for the system's CAs) connects with
TLS; the default, None, is plaintext.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import itertools
import logging
import random
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import grpc

from .addresses import DEFAULT_TARGET, split_targets
from .bot import Bot
from .engine import Action, Event, Flip, Observation, Scout, ScoutShow, Show, legal_actions_for
from .protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameOver,
    GameStarted,
    Hello,
    PublicEvent,
    TournamentEnd,
    TournamentOver,
    Welcome,
)
from .tls import ClientTls, aio_channel, tls_problem
from .wire import arena_pb2_grpc
from .wire.arena_client import REGISTER_BOT
from .wire.bot_session import PLAY_METHOD, arena_batch_from_bytes, arena_batch_from_pb, bot_batch_bytes
from .wire.bot_session_pb2 import ArenaBatch

T = TypeVar("T")

log = logging.getLogger(__name__)

CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
)
"""Ping the arena every 10 s, give up on it after 5 s of silence: a dead link is noticed fast."""
ACTION_TYPES = (Show, Scout, ScoutShow, Flip)
MAX_BATCH = 256
"""Most decisions in one write."""
LEAVE_S = 2.0
"""How long a runner that is done waits, after half-closing its stream, for the arena to end the call."""
_FATAL = (
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
)
"""Statuses that end a Play call for a reason reconnecting cannot fix. FAILED_PRECONDITION: a newer
session of the bot took over its stream; reconnecting would fight it for the seats."""
_UNANSWERED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
"""Statuses of a call nothing answered: no arena listens there (yet)."""


class ArenaRefused(Exception):
    """The arena refused the bot for a reason retrying cannot fix (bad token, taken name, ...)."""


class ArenaUnreachable(ArenaRefused):
    """Nothing answered at the arena's address (no server there, or none yet)."""


@dataclass(frozen=True)
class Backoff:
    """Reconnect delays: `initial` doubling up to `maximum`, each drawn from [delay/2, delay]."""

    initial: float = 0.2
    maximum: float = 10.0

    def delay(self, attempt: int) -> float:
        ceiling = min(self.maximum, self.initial * 2**attempt)
        return random.uniform(ceiling / 2, ceiling)


def local_legal_actions(obs: Observation) -> Sequence[Action]:
    """The seat's legal actions computed from its observation alone (`sdk.engine.legal_actions_for`)."""
    return legal_actions_for(obs)


class History(Sequence[Event]):
    """`Observation.table.history` as the runner gives it: the first `length` events of a game's
    list of received events, each decoded when first read (`sdk.wire.bot_session.ReceivedEvent`).
    It compares equal to a tuple of the same events."""

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[PublicEvent], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...

    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            return tuple([e.event for e in self._events[: self._length][index]])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("history index out of range")
        return self._events[index].event

    def __iter__(self) -> Iterator[Event]:
        return (e.event for e in itertools.islice(self._events, self._length))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass
class _GameState:
    """What the runner knows of one game: seats held, its public events, the latest request per seat."""

    started: GameStarted
    seats: list[int] = field(default_factory=list)
    """Every seat the bot holds in the game (a game may seat a bot more than once), in GameStarted order."""
    events: list[PublicEvent] = field(default_factory=list)
    requests: dict[int, DecisionRequest] = field(default_factory=dict)
    """Open requests by id: answered ones stay until accepted, so a reconnect can resend them."""
    answers: dict[int, Action] = field(default_factory=dict)
    thinking: set[int] = field(default_factory=set)


class _Session:
    """The runner's state across reconnects."""

    def __init__(
        self,
        bot: Bot,
        capacity: int,
        want_legal_actions: bool,
        max_games: int | None,
        tournament: str | None = None,
        accept_casual: bool = False,
    ) -> None:
        self.bot = bot
        tournaments = (tournament,) if tournament else ()
        self.hello = Hello(bot.name, bot.version, capacity, want_legal_actions, tournaments, accept_casual)
        self.max_games = max_games
        self.tournament = tournament
        """The tournament played for: the session is done once the arena says it is over."""
        self.ended: TournamentEnd | None = None
        self.games: dict[str, _GameState] = {}
        self.finished = 0
        self.outbox: asyncio.Queue[Decision] = asyncio.Queue()
        self.tasks: set[asyncio.Task[None]] = set()
        self.welcomed = False
        """Whether the arena welcomed the current connection: back-off restarts after a good one."""

    @property
    def done(self) -> bool:
        if self.ended is not None:
            return True
        return self.max_games is not None and self.finished >= self.max_games and not self.games

    def handle(self, msg: ArenaMessage) -> None:
        if isinstance(msg, PublicEvent):
            state = self.games.get(msg.game_id)
            if state is not None and msg.seq == len(state.events):
                state.events.append(msg)
        elif type(msg) is DecisionRequest:
            state = self.games.get(msg.game_id)
            if state is not None:
                state.requests[msg.request_id] = msg
                self._answer(state, msg)
        elif type(msg) is ActionAccepted:
            state = self.games.get(msg.game_id)
            if state is not None:
                state.requests.pop(msg.request_id, None)
                state.answers.pop(msg.request_id, None)
        elif type(msg) is ActionRejected:
            self._rejected(msg)
        elif type(msg) is GameStarted:
            state = self.games.setdefault(msg.game_id, _GameState(msg))
            if msg.seat not in state.seats:
                log.info("game %s: seat %d of %s", msg.game_id, msg.seat, ", ".join(msg.players))
                state.seats.append(msg.seat)
        elif type(msg) is GameOver:
            self._game_over(msg)
        elif type(msg) is Welcome:
            self.welcomed = True
            log.info("welcome: playing as %r (session %s, capacity %d)", msg.bot_name, msg.session_id, msg.capacity)
        elif type(msg) is ErrorNotice:
            if msg.code is ErrorCode.SUPERSEDED:
                raise ArenaRefused(msg.message)
            log.warning("arena: %s (%s)", msg.message, msg.code.value)
        elif type(msg) is TournamentOver and msg.tournament == self.tournament:
            log.info("tournament %r %s", msg.tournament, msg.end.value)
            self.ended = msg.end

    def _answer(self, state: _GameState, req: DecisionRequest) -> None:
        """Send the answer again if there is one (a resent request), else ask the bot: a sync bot
        answers at once (it would block the loop in a task just the same), an async one in a task
        of its own, so a slow decision in one game does not hold up the others."""
        answer = state.answers.get(req.request_id)
        if answer is not None:
            self.outbox.put_nowait(Decision(req.game_id, req.request_id, answer))
            return
        if req.request_id in state.thinking:
            return
        obs = req.observation.with_history(History(state.events, len(state.events)))
        if not obs.legal_actions:
            obs = Observation(obs.seat, obs.hand, local_legal_actions(obs), obs.table)
        try:
            value = self.bot.flip(obs) if req.kind is DecisionKind.FLIP else self.bot.choose(obs)
        except Exception:
            self._failed(req)
            return
        if not inspect.isawaitable(value):
            self._send_answer(state, req, value)
            return
        state.thinking.add(req.request_id)
        task = asyncio.create_task(self._await_answer(state, req, value))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _await_answer(self, state: _GameState, req: DecisionRequest, value: Awaitable[object]) -> None:
        try:
            answer = await value
        except Exception:
            self._failed(req)
            return
        finally:
            state.thinking.discard(req.request_id)
        self._send_answer(state, req, answer)

    @staticmethod
    def _failed(req: DecisionRequest) -> None:
        log.exception("game %s: the bot failed on request %d; the arena will time it out", req.game_id, req.request_id)

    def _send_answer(self, state: _GameState, req: DecisionRequest, answer: object) -> None:
        action = Flip(bool(answer)) if req.kind is DecisionKind.FLIP else answer
        if not isinstance(action, ACTION_TYPES):
            log.error("game %s: the bot returned %r, not an action; the arena will time it out", req.game_id, action)
            return
        if req.request_id in state.requests:
            state.answers[req.request_id] = action
            self.outbox.put_nowait(Decision(req.game_id, req.request_id, action))

    def _rejected(self, msg: ActionRejected) -> None:
        state = self.games.get(msg.game_id)
        log.warning(
            "game %s: request %d rejected (%d attempts left): %s",
            msg.game_id,
            msg.request_id,
            msg.attempts_left,
            msg.reason,
        )
        if state is None:
            return
        state.answers.pop(msg.request_id, None)
        req = state.requests.get(msg.request_id)
        if req is not None and msg.attempts_left > 0:
            self._answer(state, req)

    def _game_over(self, msg: GameOver) -> None:
        state = self.games.pop(msg.game_id, None)
        if state is None:
            return
        self.finished += 1
        forfeits = "; ".join(f"seat {f.seat} forfeited ({f.reason})" for f in msg.forfeits)
        held = ", ".join(f"seat {seat} has {msg.totals[seat]} points, rank {msg.ranks[seat]}" for seat in state.seats)
        log.info("game %s over: %s of %d%s", msg.game_id, held, len(msg.ranks), f"; {forfeits}" if forfeits else "")


async def _play_stream(session: _Session, channel: grpc.aio.Channel, token: str) -> None:
    """One stream: Hello, then read and dispatch until it ends or the session is done."""
    play: grpc.aio.StreamStreamMultiCallable[bytes, ArenaBatch] = channel.stream_stream(
        PLAY_METHOD, request_serializer=None, response_deserializer=arena_batch_from_bytes
    )
    call = play(metadata=(("authorization", f"Bearer {token}"),))
    with contextlib.suppress(grpc.aio.AioRpcError):  # the call ended at once (e.g. a refused token):
        await call.write(bot_batch_bytes([session.hello]))  # the first read raises its status

    writing = asyncio.Lock()

    async def write() -> None:
        """Send the decisions queued so far as one batch, again and again.

        A write holds `writing`, and the writer is stopped only between writes: grpc.aio cancels
        the whole call when a task awaiting `write` is cancelled, and leaving then would read
        the cancelled call and end the runner as if it had been told to stop."""
        outbox = session.outbox
        while True:
            batch = [await outbox.get()]
            await asyncio.sleep(0)  # decisions of other games that are ready join this write
            while not outbox.empty() and len(batch) < MAX_BATCH:
                batch.append(outbox.get_nowait())
            async with writing:
                await call.write(bot_batch_bytes(batch))

    writer = asyncio.create_task(write())
    try:
        while not session.done:
            batch = await _next_batch(call)
            if batch is None:
                break
            messages, skipped = arena_batch_from_pb(batch, lazy_events=True)
            for problem in skipped:
                log.warning("ignoring a message this SDK cannot read: %s", problem)
            for msg in messages:
                session.handle(msg)
        if session.done:
            async with writing:
                writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
            await _leave(call)
    finally:
        writer.cancel()
        call.cancel()
        session.outbox = asyncio.Queue()


async def _next_batch(call: grpc.aio.StreamStreamCall[bytes, ArenaBatch]) -> ArenaBatch | None:
    """The arena's next batch, or None once the arena ended the stream.

    grpc.aio answers `grpc.aio.EOF` then, which types-grpcio types as a plain object."""
    batch = await call.read()
    return batch if isinstance(batch, ArenaBatch) else None


async def _leave(call: grpc.aio.StreamStreamCall[bytes, ArenaBatch]) -> None:
    """Leave the arena as the protocol says: half-close the stream, then read (and drop) what the
    arena still sends until it ends the call, which it does with OK; at most LEAVE_S."""
    try:
        await call.done_writing()
        async with asyncio.timeout(LEAVE_S):
            while await call.read() is not grpc.aio.EOF:
                pass
    except (TimeoutError, grpc.aio.AioRpcError, grpc.aio.UsageError):
        pass


async def run_async(
    bot: Bot,
    *,
    target: str | Sequence[str] = DEFAULT_TARGET,
    token: str,
    capacity: int = 4,
    want_legal_actions: bool = False,
    max_games: int | None = None,
    backoff: Backoff = Backoff(),
    tls: ClientTls | None = None,
    accept_casual: bool = False,
) -> int:
    """Play games for `bot` until cancelled, or until `max_games` games have finished.

    Returns the number of games finished. Raises ArenaRefused if the arena rejects the token or
    the Hello, another process takes the bot's session over, or the first connection fails for a
    TLS mismatch; `sdk.tls.TlsConfigError` if `tls` names an unusable CA file.

    The bot's `obs.legal_actions` are computed here with the engine (lazily) unless
    `want_legal_actions` asks the arena to list them in every request: the same list either way,
    but listing them is most of the arena's work per decision (docs/benchmarks.md).
    `accept_casual` offers the bot to people on the arena's Play page, for unrated casual games
    within its capacity.
    """
    if max_games is not None:
        capacity = max(1, min(capacity, max_games))
    session = _Session(bot, capacity, want_legal_actions, max_games, accept_casual=accept_casual)
    await _serve(session, target, token, backoff, tls)
    return session.finished


async def play_until_over_async(
    bot: Bot,
    *,
    target: str | Sequence[str] = DEFAULT_TARGET,
    token: str,
    tournament: str,
    capacity: int = 4,
    want_legal_actions: bool = False,
    backoff: Backoff = Backoff(),
    tls: ClientTls | None = None,
) -> TournamentEnd:
    """Play the games the arena gives `bot` until it says `tournament` is over (TournamentOver),
    then leave; returns how the tournament ended. Enter the tournament first (`sdk.submit`). Raises
    as `run_async` does."""
    session = _Session(bot, capacity, want_legal_actions, None, tournament)
    await _serve(session, target, token, backoff, tls)
    assert session.ended is not None
    return session.ended


async def _serve(
    session: _Session, target: str | Sequence[str], token: str, backoff: Backoff, tls: ClientTls | None
) -> None:
    """Connect and play until `session` is done, reconnecting whenever the stream ends otherwise:
    at once to the next of `target`'s addresses not tried since the last Welcome, else after
    `backoff`; refusals raise ArenaRefused."""
    bot = session.bot
    addresses = split_targets(target)
    at = 0
    failed = 0
    """Addresses tried in a row without a Welcome."""
    attempt = 0
    ever_welcomed = False
    while True:
        address = addresses[at]
        async with aio_channel(address, tls, CHANNEL_OPTIONS) as channel:
            log.info("connecting to %s as %s%s", address, bot.name, "" if tls is None else " with TLS")
            session.welcomed = False
            try:
                await _play_stream(session, channel, token)
            except grpc.aio.AioRpcError as exc:
                if exc.code() in _FATAL:
                    raise ArenaRefused(f"{exc.code().name}: {exc.details()}") from None
                problem = await asyncio.to_thread(tls_problem, address, exc.details(), tls)
                if problem is not None and not (ever_welcomed or session.welcomed):
                    raise ArenaRefused(problem) from None
                log.warning("connection to %s lost: %s %s", address, exc.code().name, problem or exc.details())
            if session.welcomed:
                attempt = failed = 0
                ever_welcomed = True
        if session.done:
            for task in list(session.tasks):
                task.cancel()
            return
        failed += 1
        at = (at + 1) % len(addresses)
        if failed < len(addresses):
            log.info("trying %s", addresses[at])
            continue
        failed = 0
        delay = backoff.delay(attempt)
        attempt += 1
        log.info("reconnecting in %.1f s", delay)
        await asyncio.sleep(delay)


def run(
    bot: Bot,
    *,
    target: str | Sequence[str] = DEFAULT_TARGET,
    token: str,
    capacity: int = 4,
    want_legal_actions: bool = False,
    max_games: int | None = None,
    tls: ClientTls | None = None,
    accept_casual: bool = False,
) -> int:
    """The blocking form of `run_async`; SIGINT or SIGTERM stops it cleanly."""
    return run_until_signal(
        run_async(
            bot,
            target=target,
            token=token,
            capacity=capacity,
            want_legal_actions=want_legal_actions,
            max_games=max_games,
            tls=tls,
            accept_casual=accept_casual,
        ),
        stopped=0,
    )


def run_until_signal(work: Coroutine[Any, Any, T], *, stopped: T) -> T:
    """Run `work` to its end, or until SIGINT or SIGTERM cancels it; then return `stopped`."""

    async def main() -> T:
        task = asyncio.create_task(work)
        restore = on_stop_signals(asyncio.get_running_loop(), task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            log.info("stopped")
            return stopped
        finally:
            restore()

    return asyncio.run(main())


def on_stop_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], object]) -> Callable[[], None]:
    """Call `stop` in `loop` on SIGINT or SIGTERM; returns what undoes it.

    `loop.add_signal_handler` where the loop has it; where it raises NotImplementedError (the
    Windows event loops) a `signal.signal` handler that hands `stop` to the loop thread-safely."""
    undo: list[Callable[[], object]] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop)
            undo.append(functools.partial(loop.remove_signal_handler, sig))
        except NotImplementedError:
            previous = signal.signal(sig, lambda _sig, _frame: loop.call_soon_threadsafe(stop))
            undo.append(functools.partial(signal.signal, sig, previous or signal.SIG_DFL))

    def restore() -> None:
        for step in undo:
            step()

    return restore


async def register_async(
    name: str, *, target: str | Sequence[str] = DEFAULT_TARGET, timeout: float = 10.0, tls: ClientTls | None = None
) -> str:
    """Register `name` at the arena and return its token; ArenaRefused says why not."""
    return await ask_any(target, tls, lambda stub: REGISTER_BOT.ask(stub, name=name, timeout=timeout))


async def ask_any(
    target: str | Sequence[str], tls: ClientTls | None, ask: Callable[[arena_pb2_grpc.ArenaStub], Awaitable[T]]
) -> T:
    """`ask` the Arena service at the first of `target`'s addresses that answers (the nodes of a
    cluster answer alike); a failed call as `refusal` says, ArenaUnreachable if none answers."""
    addresses = split_targets(target)
    for address in addresses:
        async with aio_channel(address, tls) as channel:
            try:
                return await ask(arena_pb2_grpc.ArenaStub(channel))
            except grpc.aio.AioRpcError as exc:
                if exc.code() in _UNANSWERED and address != addresses[-1]:
                    log.info("no arena answers at %s; trying %s", address, addresses[addresses.index(address) + 1])
                    continue
                if exc.code() in _UNANSWERED and len(addresses) > 1 and not tls_problem(address, exc.details(), tls):
                    raise ArenaUnreachable(f"no arena answers at any of {', '.join(addresses)}") from None
                raise refusal(address, exc, tls) from None
    raise AssertionError("split_targets names at least one address")


def register(
    name: str, *, target: str | Sequence[str] = DEFAULT_TARGET, timeout: float = 10.0, tls: ClientTls | None = None
) -> str:
    """The blocking form of `register_async`."""
    return asyncio.run(register_async(name, target=target, timeout=timeout, tls=tls))


def refusal(target: str, exc: grpc.aio.AioRpcError, tls: ClientTls | None) -> ArenaRefused:
    """A failed call as ArenaRefused: `CODE: details`, the TLS mismatch that caused it, or
    ArenaUnreachable if nothing answered."""
    if problem := tls_problem(target, exc.details(), tls):
        return ArenaRefused(problem)
    if exc.code() in _UNANSWERED:
        return ArenaUnreachable(f"no arena answers at {target}")
    return ArenaRefused(f"{exc.code().name}: {exc.details()}")
