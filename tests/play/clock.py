"""A clock for the play room that moves only when a test says so (implements arena.play.clock.Clock).

With it, whether a request times out or a write waits depends on the times the test sets, never
on how long the machine took: the tests drive an event loop with no I/O, in which the order of
what runs between two moves of the clock is the same on any machine.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
SETTLE_TURNS = 50
"""Event-loop turns the tasks get after each move of the clock to react to it and to each other
(each hand-off between the referee, the hub and a bot takes a turn or two)."""


async def settle() -> None:
    """Give the tasks SETTLE_TURNS turns of the event loop, with the clock standing still."""
    for _ in range(SETTLE_TURNS):
        await asyncio.sleep(0)


class ManualTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """Time starts at 0 and moves by `advance` (or `run`), running the timers due on the way."""

    def __init__(self) -> None:
        self.now = 0.0
        self._timers: list[tuple[float, int, ManualTimer]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], None]) -> ManualTimer:
        timer = ManualTimer(when, callback)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        self.call_at(self.now + seconds, wake)
        await done

    def next_timer(self) -> float | None:
        """When the next timer not cancelled is due; None if there is none."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    def advance(self, seconds: float) -> None:
        """Move on by `seconds`, running every timer due by then in time order, each at its time."""
        end = self.now + seconds
        while (when := self.next_timer()) is not None and when <= end:
            _, _, timer = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            timer.callback()
        self.now = end

    async def run(self, work: Awaitable[T]) -> T:
        """Await `work`, moving the clock to the next timer each time the tasks have settled: time
        passes only while everything waits for it. Raises RuntimeError if `work` waits for
        something no timer will bring."""
        task = asyncio.ensure_future(work)
        while True:
            for _ in range(SETTLE_TURNS):
                if task.done():
                    return task.result()
                await asyncio.sleep(0)
            when = self.next_timer()
            if when is None:
                task.cancel()
                raise RuntimeError(f"stuck at {self.now:.3f} s: the work waits and no timer is set")
            self.advance(when - self.now)
