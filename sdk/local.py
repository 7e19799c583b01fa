"""Local play: bots play each other in this process, no server needed.

Each bot only ever receives `observe(game, seat)`, exactly as over the network, and its answers
are checked by the same engine the referee uses, so a bot that plays cleanly here plays cleanly in
a tournament. Sync and `async def` bots mix freely.

>>> from bots import GreedyBot, RandomBot
>>> result = play_game([GreedyBot(), RandomBot(seed=1), RandomBot(seed=2)], seed=7)
>>> result.names
('GreedyBot', 'RandomBot', 'RandomBot')
>>> len(result.record.results)
3
"""

from __future__ import annotations

import asyncio
import random
import signal
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter
from types import FrameType

from .bot import Bot, resolve
from .engine import (
    Flip,
    Game,
    GameRecord,
    IllegalAction,
    Outcome,
    Phase,
    Scout,
    ScoutShow,
    Show,
    observe,
    record_of,
    table_rules,
)
from .seating import one_table

PLAY_ACTIONS = (Show, Scout, ScoutShow)
"""What `Bot.choose` may return; a `Flip` is answered by `Bot.flip` with a plain bool."""


class BotError(Exception):
    """A bot failed to give a usable answer; the message names the bot, its seat and what went wrong."""

    def __init__(self, bot: str, seat: int, message: str) -> None:
        super().__init__(f"bot {bot!r} (seat {seat}) {message}")
        self.bot = bot
        self.seat = seat
        self.detail = message
        """What went wrong, without the bot and seat."""


class BotRaised(BotError):
    """The bot's own code raised; the original exception is the `__cause__`."""

    def __init__(self, bot: str, seat: int, method: str, exc: BaseException) -> None:
        super().__init__(bot, seat, f"raised {type(exc).__name__} in {method}(): {exc}{_where(exc)}")
        self.method = method


class WrongAnswerType(BotError):
    """`choose` returned something that is not a play action, or `flip` something not a bool."""


class IllegalChoice(BotError):
    """The bot chose an action the rules forbid now; `reason` is the engine's explanation."""

    def __init__(self, bot: str, seat: int, answer: object, reason: str) -> None:
        super().__init__(bot, seat, f"chose an illegal action ({answer}): {reason}")
        self.answer = answer
        self.reason = reason


def _where(exc: BaseException) -> str:
    """' at file:line' of the innermost frame, so a one-line error still points at the bug."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


@dataclass(frozen=True, slots=True)
class LocalGame:
    """One finished game: who sat where, the standing, the replayable record and thinking time."""

    seed: int
    names: tuple[str, ...]
    """The bot at each seat, by name."""
    outcome: Outcome
    record: GameRecord
    decisions: tuple[int, ...]
    """How many answers (flips included) each seat gave."""
    think_seconds: tuple[float, ...]
    """Wall time each seat's bot spent answering, in total."""

    @property
    def totals(self) -> tuple[int, ...]:
        return self.outcome.totals

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.outcome.ranks


async def play_game_async(bots: Sequence[Bot], *, seed: int = 0) -> LocalGame:
    """Play one game with `bots[s]` at seat s; raise a `BotError` if a bot fails.

    Async bots are awaited one decision at a time, as the referee would: this is a sequential
    simulation, not a concurrency test.
    """
    game = Game(len(bots), seed)
    names = tuple(bot.name for bot in bots)
    decisions = [0] * len(bots)
    seconds = [0.0] * len(bots)
    while not game.is_over:
        flipping = game.phase is Phase.FLIP
        seat = game.awaiting[0]
        bot = bots[seat]
        obs = observe(game, seat)
        method = "flip" if flipping else "choose"
        start = perf_counter()
        try:
            answer = await resolve(bot.flip(obs) if flipping else bot.choose(obs))
        except Exception as exc:
            raise BotRaised(names[seat], seat, method, exc) from exc
        seconds[seat] += perf_counter() - start
        decisions[seat] += 1
        _apply(game, names[seat], seat, answer, flipping)
    assert game.outcome is not None
    return LocalGame(seed, names, game.outcome, record_of(game), tuple(decisions), tuple(seconds))


def _apply(game: Game, name: str, seat: int, answer: object, flipping: bool) -> None:
    """Apply a bot's answer through the engine, turning every refusal into a `BotError`."""
    if flipping:
        if not isinstance(answer, bool):
            raise WrongAnswerType(name, seat, f"flip() returned {type(answer).__name__}, not bool")
        game.apply(seat, Flip(answer))
        return
    if not isinstance(answer, PLAY_ACTIONS):
        raise WrongAnswerType(name, seat, f"choose() returned {type(answer).__name__}, not Show, Scout or ScoutShow")
    try:
        game.apply(seat, answer)
    except IllegalAction as exc:
        raise IllegalChoice(name, seat, answer, str(exc)) from None
    except (TypeError, AttributeError) as exc:
        raise IllegalChoice(name, seat, answer, f"malformed action ({exc})") from None


def play_game(bots: Sequence[Bot], *, seed: int = 0) -> LocalGame:
    """`play_game_async` for callers without an event loop."""
    return asyncio.run(play_game_async(bots, seed=seed))


def win_shares(ranks: Sequence[int]) -> tuple[float, ...]:
    """Each seat's share of the win, as the arena counts it: 1/k for each of the k seats ranked
    first, 0 for the rest (a shared first place is not a full win for each)."""
    winners = sum(rank == 1 for rank in ranks)
    return tuple(1 / winners if rank == 1 else 0.0 for rank in ranks)


@dataclass(frozen=True, slots=True)
class BotSummary:
    """How one entrant did over a match."""

    name: str
    games: int
    wins: float
    """Games it won; a win shared by k seats counts 1/k (`win_shares`), as in the arena's ratings."""
    points: int
    placings: int
    """Sum of its ranks (1 = first); divide by games for the average placing."""
    decisions: int
    think_seconds: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def mean_placing(self) -> float:
        return self.placings / self.games if self.games else 0.0

    @property
    def seconds_per_decision(self) -> float:
        return self.think_seconds / self.decisions if self.decisions else 0.0


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Many games among the same entrants; `seatings[g][i]` is entrant i's seat in game g."""

    entrants: tuple[str, ...]
    """Entrant labels, made unique ("GreedyBot", "GreedyBot 2") when bots share a name."""
    games: tuple[LocalGame, ...]
    seatings: tuple[tuple[int, ...], ...]

    def summary(self) -> tuple[BotSummary, ...]:
        """One line per entrant, in entrant order."""
        rows = []
        for i, name in enumerate(self.entrants):
            seats = [(game, seating[i]) for game, seating in zip(self.games, self.seatings, strict=True)]
            rows.append(
                BotSummary(
                    name=name,
                    games=len(seats),
                    wins=sum(win_shares(g.ranks)[s] for g, s in seats),
                    points=sum(g.totals[s] for g, s in seats),
                    placings=sum(g.ranks[s] for g, s in seats),
                    decisions=sum(g.decisions[s] for g, s in seats),
                    think_seconds=sum(g.think_seconds[s] for g, s in seats),
                )
            )
        return tuple(rows)


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `play_match`; `partial` holds the games finished before it."""

    def __init__(self, partial: MatchResult) -> None:
        super().__init__(f"interrupted after {len(partial.games)} games")
        self.partial = partial


def unique_labels(names: Sequence[str]) -> tuple[str, ...]:
    """Number repeated names ("A", "A 2") so entrants can be told apart in a summary."""
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return tuple(labels)


def balanced_seatings(entrants: int, games: int, seed: int = 0) -> tuple[tuple[int, ...], ...]:
    """`games` seatings of `entrants` bots at one table, `seatings[g][i]` entrant i's seat in game g.

    The arena's schedule for a field of one table (`sdk.seating.one_table`, which
    `arena.tournaments.schedule.round_robin` uses too: every entrant in every seat equally often,
    "who plays right after whom" varied, so two copies of a bot do not always sit side by side),
    repeated with the entrants relabelled afresh for each repetition.
    """
    n = table_rules(entrants).players
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    tables = [tuple(order[i] for i in table) for table in one_table(n, rng)]
    relabel = random.Random(seed)
    seatings: list[tuple[int, ...]] = []
    label = list(range(n))
    while len(seatings) < games:
        for table in tables:
            seat_of = [0] * n
            for seat, entrant in enumerate(table):
                seat_of[label[entrant]] = seat
            seatings.append(tuple(seat_of))
        relabel.shuffle(label)
    return tuple(seatings[:games])


@contextmanager
def ctrl_c_interrupts() -> Iterator[None]:
    """While inside, Ctrl-C raises KeyboardInterrupt at once, even in a bot computing inside
    `asyncio.run`.

    `asyncio.run` turns the first SIGINT into cancelling its task, which takes effect only at the
    task's next `await`: a synchronous bot never gets there, so Ctrl-C would wait for the match to
    end. `asyncio.run` leaves a handler of ours in place (it replaces only the default one).
    Outside the main thread, or with a handler of someone else's installed, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _raise_interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _seatings(n: int, games: int, seed: int, rotate: bool) -> tuple[tuple[int, ...], ...]:
    return balanced_seatings(n, games, seed) if rotate else (tuple(range(n)),) * games


async def play_match_async(
    bots: Sequence[Bot],
    *,
    games: int,
    seed: int = 0,
    rotate: bool = True,
    progress: Callable[[LocalGame], None] | None = None,
) -> MatchResult:
    """Play `games` games among `bots`, game g with seed `seed + g`.

    With `rotate`, seats follow `balanced_seatings` (every entrant in every seat equally often,
    neighbours varied); otherwise entrant i always sits at seat i. `progress` is called after
    each game, e.g. to advance a progress bar.
    """
    n = table_rules(len(bots)).players
    seatings = _seatings(n, games, seed, rotate)
    results = []
    for g, seating in enumerate(seatings):
        at_seat: list[Bot] = [bots[0]] * n
        for i, seat in enumerate(seating):
            at_seat[seat] = bots[i]
        results.append(await play_game_async(at_seat, seed=seed + g))
        if progress is not None:
            progress(results[-1])
    return MatchResult(unique_labels([b.name for b in bots]), tuple(results), seatings)


def play_match(
    bots: Sequence[Bot],
    *,
    games: int,
    seed: int = 0,
    rotate: bool = True,
    progress: Callable[[LocalGame], None] | None = None,
) -> MatchResult:
    """`play_match_async` for callers without an event loop; Ctrl-C raises `MatchInterrupted`
    (a KeyboardInterrupt) holding the games finished so far."""
    done: list[LocalGame] = []

    def finished(result: LocalGame) -> None:
        done.append(result)
        if progress is not None:
            progress(result)

    try:
        with ctrl_c_interrupts():
            return asyncio.run(play_match_async(bots, games=games, seed=seed, rotate=rotate, progress=finished))
    except KeyboardInterrupt:
        seatings = _seatings(table_rules(len(bots)).players, len(done), seed, rotate)
        partial = MatchResult(unique_labels([b.name for b in bots]), tuple(done), seatings)
        raise MatchInterrupted(partial) from None
