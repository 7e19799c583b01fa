"""Where the search bots among the house bots think: worker processes, never the event loop.

`strong` and `montecarlo` search for as long as their budget allows, in pure Python: in a thread
they would hold the interpreter lock and slow every game, stream and page of the arena's loop, so
each decision goes to a process pool (started on first use, with the "spawn" method, since the
arena's process runs gRPC threads that a fork would copy mid-call). A worker keeps one bot per
name: bots keep no per-game state (`sdk.bot.Bot`), so one instance serves every seat.

The move time is counted from the request, not from when a worker takes it up: a decision that
waited in the pool's queue (many games at once) thinks that much less, so the bots' moves stay
near the move time however busy the pool is, and never run into the referee's deadline.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import cache
from typing import Protocol, runtime_checkable

from sdk.bot import Bot
from sdk.engine import Action, Flip, Scout, ScoutShow, Show
from sdk.engine.observation import Observation
from sdk.loading import load_bot, own_examples, searches
from sdk.protocol import DecisionKind

MIN_BUDGET_S = 0.05
"""The least a search bot thinks, whatever the move time (at 0 it would play its first guess)."""


@cache
def search_bots() -> tuple[str, ...]:
    """The house bots whose move time caps their thinking, spent in `HousePool`'s workers: the
    example bots that take a `move_time` (`sdk.loading.searches`)."""
    return tuple(name for name, spec in own_examples().items() if searches(spec))


@cache
def house_bots() -> tuple[str, ...]:
    """The house bots: this project's example bots (pyproject.toml's entry points, through
    `sdk.loading.own_examples`), the quick ones first, then the search bots."""
    return tuple(sorted(own_examples(), key=lambda name: (name in search_bots(), name)))


@runtime_checkable
class Searching(Protocol):
    """A bot that searches for at most `move_time` seconds a decision (the search bots' cap)."""

    move_time: float | None


_bots: dict[str, Bot] = {}
"""A worker's bots by name."""


def decide(bot: Bot, obs: Observation, kind: DecisionKind) -> Action:
    """The house bot's answer to one request (the example bots are plain functions: no awaitable)."""
    if kind is DecisionKind.FLIP:
        return Flip(bool(bot.flip(obs)))
    action = bot.choose(obs)
    if not isinstance(action, Flip | Show | Scout | ScoutShow):
        raise TypeError(f"house bot {bot.name!r} gave {action!r}, not an action")
    return action


def _search(name: str, until: float, obs: Observation, kind: DecisionKind) -> Action:
    """In a worker: the search bot `name`'s answer, thinking until `until` (`time.time()`, which
    every process reads alike), and at least MIN_BUDGET_S."""
    bot = _bots.get(name)
    if bot is None:
        bot = _bots[name] = load_bot(own_examples()[name])
    if not isinstance(bot, Searching):
        raise TypeError(f"house bot {name!r} has no move_time to think for")
    bot.move_time = max(MIN_BUDGET_S, until - time.time())
    return decide(bot, obs, kind)


def _worker_start() -> None:
    """Ctrl-C is the arena's to handle: its workers end when it shuts the pool down."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_workers() -> int:
    """Half the machine's cores (at least one): the rest is the arena's games and pages."""
    return max(1, (os.cpu_count() or 2) // 2)


class HousePool:
    """The search bots' worker processes; `think` is awaited on the loop, which goes on meanwhile."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start
            )
        return self._executor

    async def think(self, name: str, move_s: float, obs: Observation, kind: DecisionKind) -> Action:
        """Search bot `name`'s answer with the move time `move_s` as its budget; a pool whose
        worker died is started again once."""
        if name not in search_bots():
            raise ValueError(f"{name!r} is not a search bot; the search bots are {', '.join(search_bots())}")
        until = time.time() + move_s
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), _search, name, until, obs, kind)
        except BrokenProcessPool:
            self.close()
            return await loop.run_in_executor(self._pool(), _search, name, until, obs, kind)

    def close(self) -> None:
        """Stop the workers (a search under way is abandoned); a later `think` starts new ones."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
