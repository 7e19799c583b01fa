"""The conformance kit: run it on your bot before entering a tournament.

It plays your bot over many seeded games at every table size against example opponents (or bots
of your choice), with your bot in every seat as the arena's schedule seats it, and checks what the
referee will check: every answer arrives within the per-move time limit, `choose` returns a legal
play action and `flip` a bool, and nothing raises.

>>> from bots import GreedyBot
>>> report = check_bot(GreedyBot(), games=2)
>>> report.passed, report.games
(True, 8)

Each call to the bot runs on a worker thread and is timed there. An answer later than the
per-move limit ends its game with a finding, as the referee would forfeit the seat; after
`MAX_LATE_GAMES` late games the check stops. A bot that never answers is abandoned after
`give_up_after` seconds and the check stops with a finding: the kit never hangs. A finding names
the table size, seed and seat, so `sdk.local.play_game` reproduces it.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from time import perf_counter
from typing import Any

from .bot import Bot, resolve
from .engine import Action, Observation
from .loading import bot_maker, example_bots
from .local import BotError, BotRaised, IllegalChoice, WrongAnswerType, balanced_seatings, ctrl_c_interrupts, play_game

OpponentFactory = Callable[[int], Bot]
"""Makes one opponent for a game, given a seed it may use for its own randomness."""

MAX_LATE_GAMES = 3
"""Late games after which checking stops: each already costs up to `give_up_after` seconds, and a
bot that is late this often would be forfeited game after game by the referee anyway."""


_WAIT_SLICE = 0.1
"""Seconds the main thread waits for an answer at a time, so Ctrl-C is never held up longer."""


class Problem(Enum):
    """What went wrong, worst first."""

    NO_ANSWER = "gave no answer at all"
    EXCEPTION = "raised an exception"
    WRONG_TYPE = "answered with the wrong type"
    ILLEGAL = "chose an illegal action"
    TOO_SLOW = "answered after the per-move time limit"


@dataclass(frozen=True, slots=True)
class Finding:
    """One kind of problem: how often it happened and where it happened first."""

    problem: Problem
    count: int
    first: str

    def __str__(self) -> str:
        return f"{self.problem.value} ({self.count}x), first at {self.first}"


@dataclass(frozen=True, slots=True)
class ConformanceReport:
    """The verdict on one bot: passed when there are no findings."""

    bot: str
    players: tuple[int, ...]
    games: int
    decisions: int
    move_time: float
    slowest: float
    """The longest any single answer took, in seconds."""
    slowest_at: str
    findings: tuple[Finding, ...]
    interrupted: bool = False
    """Ctrl-C stopped the check: `games` counts the games played until then."""
    stopped: str = ""
    """Why checking stopped before the last game, if it did."""

    @property
    def passed(self) -> bool:
        return not self.findings and not self.interrupted

    def summary(self) -> str:
        """One line: the verdict and what was checked."""
        verdict = "INTERRUPTED" if self.interrupted else "PASS" if self.passed else "FAIL"
        counts = "-".join(str(n) for n in (min(self.players), max(self.players))) if self.players else "no"
        slowest = f"slowest {self.slowest * 1000:.1f} ms at {self.slowest_at}" if self.decisions else "no answers"
        stopped = f"; checking stopped {self.stopped}" if self.stopped else ""
        return (
            f"{verdict} {self.bot}: {self.games} games at {counts} players, {self.decisions} answers, "
            f"{slowest} (limit {self.move_time * 1000:.0f} ms){stopped}"
        )


@dataclass(frozen=True, slots=True)
class CheckProgress:
    """Where a check is, given to `check_bot`'s `progress` after every game."""

    players: int
    """The table size of the game just played."""
    game: int
    """Games played at this table size so far (1 after its first)."""
    games: int
    """Games per table size."""
    done: int
    total: int
    """Games played so far, and in all, over every table size."""
    findings: int
    """Problems found so far."""


class CheckInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `check_bot`; `partial` is the report on the games played until then."""

    def __init__(self, partial: ConformanceReport) -> None:
        super().__init__(f"interrupted after {partial.games} games")
        self.partial = partial


class _Late(BaseException):
    """The bot answered after the per-move limit: end this game, as the referee forfeits the seat
    (not a bot exception, so it passes through local play untouched)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"answered in {seconds * 1000:.0f} ms")
        self.seconds = seconds


class _GaveUp(BaseException):
    """The bot did not answer within `give_up_after`: stop checking (not a bot exception, so it
    passes through local play untouched)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer after {seconds:g} s")


class _Worker:
    """Runs one bot's calls on a daemon thread, so a call that never returns can be abandoned."""

    def __init__(self, name: str) -> None:
        self._inbox: queue.SimpleQueue[tuple[Callable[[Observation], Any], Observation, queue.SimpleQueue[Any]] | None]
        self._inbox = queue.SimpleQueue()
        threading.Thread(target=self._serve, name=f"conformance {name}", daemon=True).start()

    def _serve(self) -> None:
        if hasattr(signal, "pthread_sigmask"):  # POSIX: Ctrl-C goes to the main thread, which is waiting
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        loop = asyncio.new_event_loop()
        try:
            while (job := self._inbox.get()) is not None:
                method, obs, outbox = job
                start = perf_counter()
                try:
                    value = method(obs)
                    if inspect.isawaitable(value):
                        value = loop.run_until_complete(resolve(value))
                    outbox.put((value, None, perf_counter() - start))
                except BaseException as exc:  # the bot's failure is reported, never fatal here
                    outbox.put((None, exc, perf_counter() - start))
        finally:
            loop.close()

    def call(
        self, method: Callable[[Observation], Any], obs: Observation, give_up_after: float
    ) -> tuple[object, BaseException | None, float]:
        """(answer, exception, seconds the call took); raises `_GaveUp` if it takes too long."""
        outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._inbox.put((method, obs, outbox))
        deadline = perf_counter() + give_up_after
        while (left := deadline - perf_counter()) > 0:
            # In short waits: a Ctrl-C landing just before a wait starts is only seen when it ends.
            try:
                return outbox.get(timeout=min(left, _WAIT_SLICE))  # type: ignore[no-any-return]
            except queue.Empty:
                continue
        raise _GaveUp(give_up_after)

    def close(self) -> None:
        self._inbox.put(None)


class _Checked(Bot):
    """Stands in for the bot under test: forwards each call to the worker and times it."""

    def __init__(self, bot: Bot, worker: _Worker, move_time: float, give_up_after: float) -> None:
        self.name = bot.name
        super().__init__()
        self._bot = bot
        self._worker = worker
        self._move_time = move_time
        self._give_up_after = give_up_after
        self.context = ""
        self.times: list[tuple[float, str]] = []

    def choose(self, obs: Observation) -> Action:
        return self._call(self._bot.choose, obs)  # type: ignore[return-value]

    def flip(self, obs: Observation) -> bool:
        return self._call(self._bot.flip, obs)  # type: ignore[return-value]

    def where(self, obs: Observation) -> str:
        return f"{self.context}, seat {obs.seat}, round {obs.table.round + 1}"

    def _call(self, method: Callable[[Observation], Any], obs: Observation) -> object:
        value, exc, seconds = self._worker.call(method, obs, self._give_up_after)
        self.times.append((seconds, self.where(obs)))
        if seconds > self._move_time:
            raise _Late(seconds)
        if exc is None:
            return value
        if isinstance(exc, Exception):
            raise exc
        raise RuntimeError(f"{type(exc).__name__} escaped the bot") from exc


class _Tally:
    """Counts findings by problem, keeping the first place each occurred."""

    def __init__(self) -> None:
        self._seen: dict[Problem, list[Any]] = {}

    def add(self, problem: Problem, first: str) -> None:
        entry = self._seen.setdefault(problem, [0, first])
        entry[0] += 1

    def total(self) -> int:
        return sum(count for count, _ in self._seen.values())

    def findings(self) -> tuple[Finding, ...]:
        return tuple(Finding(p, *self._seen[p]) for p in Problem if p in self._seen)


_PROBLEM_OF: tuple[tuple[type[BotError], Problem], ...] = (
    (IllegalChoice, Problem.ILLEGAL),
    (WrongAnswerType, Problem.WRONG_TYPE),
    (BotRaised, Problem.EXCEPTION),
)


def example_opponents() -> tuple[OpponentFactory, ...]:
    """The random and greedy example bots, found by name (`sdk.loading.example_bots`)."""
    examples = example_bots()
    return bot_maker(examples["random"]), bot_maker(examples["greedy"])


def check_bot(
    bot: Bot,
    *,
    games: int = 8,
    players: Iterable[int] = (2, 3, 4, 5),
    seed: int = 0,
    move_time: float = 1.0,
    give_up_after: float | None = None,
    opponents: Sequence[OpponentFactory] | None = None,
    progress: Callable[[CheckProgress], None] | None = None,
) -> ConformanceReport:
    """Play `games` games at each table size in `players` and report every rule the bot broke.

    Game g at n players uses seed `seed + g`; seats follow `sdk.local.balanced_seatings` (the
    arena's schedule), the bot being its entrant 0 and the other entrants cycling through
    `opponents` (default: the random and greedy example bots). A game in which the bot errs, or
    answers after `move_time`, stops there and the next game starts. `give_up_after` (default
    3 x `move_time` + 1 s) bounds each call: past it, checking stops. `progress` is called after
    every game. Ctrl-C raises `CheckInterrupted` with the report so far.
    """
    counts = tuple(players)
    limit = give_up_after if give_up_after is not None else 3 * move_time + 1.0
    makers = tuple(opponents) if opponents is not None else example_opponents()
    worker = _Worker(bot.name)
    checked = _Checked(bot, worker, move_time, limit)
    tally = _Tally()
    played = 0
    late_games = 0

    def report(interrupted: bool = False, stopped: str = "") -> ConformanceReport:
        slowest, slowest_at = max(checked.times, default=(0.0, ""))
        return ConformanceReport(
            bot=bot.name,
            players=counts,
            games=played,
            decisions=len(checked.times),
            move_time=move_time,
            slowest=slowest,
            slowest_at=slowest_at,
            findings=tally.findings(),
            interrupted=interrupted,
            stopped=stopped,
        )

    try:
        with ctrl_c_interrupts():
            for n in counts:
                for g, seating in enumerate(balanced_seatings(n, games, seed)):
                    game_seed = seed + g
                    table: list[Bot] = [checked] * n
                    for k in range(n - 1):
                        table[seating[k + 1]] = makers[k % len(makers)](game_seed * 8 + k)
                    checked.context = f"{n} players, seed {game_seed}"
                    try:
                        play_game(table, seed=game_seed)
                    except BotError as exc:
                        if exc.seat != seating[0]:
                            raise
                        problem = next(p for kind, p in _PROBLEM_OF if isinstance(exc, kind))
                        tally.add(problem, f"{checked.times[-1][1]}: {exc.detail}")
                    except _Late as exc:
                        late_games += 1
                        tally.add(
                            Problem.TOO_SLOW,
                            f"{checked.times[-1][1]}: {exc}, over the "
                            f"{move_time * 1000:.0f} ms limit (the referee forfeits the seat)",
                        )
                    played += 1
                    if progress is not None:
                        progress(CheckProgress(n, g + 1, games, played, games * len(counts), tally.total()))
                    if late_games == MAX_LATE_GAMES:
                        return report(stopped=f"after {late_games} late games")
    except _GaveUp as exc:
        played += 1  # abandoned, but played as far as the bot let it
        tally.add(Problem.NO_ANSWER, f"{checked.context}: {exc}")
        return report(stopped="at a call that never returned")
    except KeyboardInterrupt:
        raise CheckInterrupted(report(interrupted=True)) from None
    finally:
        worker.close()
    return report()
