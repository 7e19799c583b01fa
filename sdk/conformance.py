"""The conformance kit: run it on your bot before entering a tournament.

It plays your bot over many seeded games at every table size against example opponents, with
your bot in every seat, and checks what the referee will check: every answer arrives within the
per-move time limit, `choose` returns a legal play action and `flip` a bool, and nothing raises.

>>> from bots import GreedyBot
>>> report = check_bot(GreedyBot(), games=2)
>>> report.passed, report.games
(True, 8)

Each call to the bot runs on a worker thread and is timed there, so a bot that never answers is
abandoned after `give_up_after` seconds and the check stops with a finding: the kit never hangs.
A finding names the table size, seed and seat, so `sdk.local.play_game` reproduces it.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from time import perf_counter
from typing import Any

from .bot import Bot, resolve
from .engine import Action, Observation
from .local import BotError, BotRaised, IllegalChoice, WrongAnswerType, play_game

OpponentFactory = Callable[[int], Bot]
"""Makes one opponent for a game, given a seed it may use for its own randomness."""


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

    @property
    def passed(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        """One line: the verdict and what was checked."""
        verdict = "PASS" if self.passed else "FAIL"
        counts = "-".join(str(n) for n in (min(self.players), max(self.players))) if self.players else "no"
        slowest = f"slowest {self.slowest * 1000:.1f} ms at {self.slowest_at}" if self.decisions else "no answers"
        return (
            f"{verdict} {self.bot}: {self.games} games at {counts} players, {self.decisions} answers, "
            f"{slowest} (limit {self.move_time * 1000:.0f} ms)"
        )


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
        try:
            return outbox.get(timeout=give_up_after)  # type: ignore[no-any-return]
        except queue.Empty:
            raise _GaveUp(give_up_after) from None

    def close(self) -> None:
        self._inbox.put(None)


class _Checked(Bot):
    """Stands in for the bot under test: forwards each call to the worker and times it."""

    def __init__(self, bot: Bot, worker: _Worker, give_up_after: float) -> None:
        self.name = bot.name
        super().__init__()
        self._bot = bot
        self._worker = worker
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

    def findings(self) -> tuple[Finding, ...]:
        return tuple(Finding(p, *self._seen[p]) for p in Problem if p in self._seen)


_PROBLEM_OF: tuple[tuple[type[BotError], Problem], ...] = (
    (IllegalChoice, Problem.ILLEGAL),
    (WrongAnswerType, Problem.WRONG_TYPE),
    (BotRaised, Problem.EXCEPTION),
)


def example_opponents() -> tuple[OpponentFactory, ...]:
    """The random and greedy example bots, imported only when the kit needs them."""
    from bots import make_example

    return (lambda seed: make_example("random", seed), lambda seed: make_example("greedy", seed))


def check_bot(
    bot: Bot,
    *,
    games: int = 8,
    players: Iterable[int] = (2, 3, 4, 5),
    seed: int = 0,
    move_time: float = 1.0,
    give_up_after: float | None = None,
    opponents: Sequence[OpponentFactory] | None = None,
) -> ConformanceReport:
    """Play `games` games at each table size in `players` and report every rule the bot broke.

    Game g at n players uses seed `seed + g` and puts the bot at seat g mod n; the other seats
    cycle through `opponents` (default: the random and greedy example bots). A game in which the
    bot errs stops there and the next game starts. `give_up_after` (default 3 x `move_time` + 1 s)
    bounds each call: past it, checking stops.
    """
    counts = tuple(players)
    limit = give_up_after if give_up_after is not None else 3 * move_time + 1.0
    makers = tuple(opponents) if opponents is not None else example_opponents()
    worker = _Worker(bot.name)
    checked = _Checked(bot, worker, limit)
    tally = _Tally()
    played = 0
    try:
        for n in counts:
            for g in range(games):
                game_seed = seed + g
                seat = g % n
                table = [makers[k % len(makers)](game_seed * 8 + k) for k in range(n - 1)]
                table.insert(seat, checked)
                checked.context = f"{n} players, seed {game_seed}"
                played += 1
                try:
                    play_game(table, seed=game_seed)
                except BotError as exc:
                    if exc.seat != seat:
                        raise
                    problem = next(p for kind, p in _PROBLEM_OF if isinstance(exc, kind))
                    tally.add(problem, f"{checked.times[-1][1]}: {exc.detail}")
    except _GaveUp as exc:
        tally.add(Problem.NO_ANSWER, f"{checked.context}: {exc}; checking stopped")
    finally:
        worker.close()
    for seconds, where in checked.times:
        if seconds > move_time:
            tally.add(Problem.TOO_SLOW, f"{where}: {seconds * 1000:.0f} ms")
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
    )
