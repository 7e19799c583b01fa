"""The play room's time: the one `Clock` that the session hub, its streams and the referee read.

The arena runs on `LOOP_CLOCK`, the event loop's monotonic time and timers. A test of the
referee's deadlines or of the streams' write delays gives the hub a clock it moves by hand
(tests/play/clock.py), so what times out is decided by the test, not by how loaded the machine is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A callback set to run at a time; `cancel` stops it if it has not run."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic seconds and waits measured in them."""

    def time(self) -> float:
        """Now, in seconds from an arbitrary start; never goes back."""
        ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run `callback` once `time()` reaches `when`."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once `seconds` have passed."""


class LoopClock:
    """The running event loop's clock: what the arena uses."""

    __slots__ = ()

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_at(when, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


LOOP_CLOCK = LoopClock()
"""Holds no state, so one serves every hub."""
