"""The runner's waits give way to a cancellation that arrives just as they are woken: the arena's
shutdown cancels the runner, and a StartTournament call may wake it at that very moment."""

from __future__ import annotations

import asyncio

from arena.tournaments.runner import wait_at_most


async def _stopped_when_cancelled_as_woken() -> bool:
    """Whether the waiter ended cancelled; `asyncio.run` would cancel it again on the way out."""
    event = asyncio.Event()

    async def waiter() -> None:
        while True:  # as the runner does: wait, handle the wake, wait again
            await wait_at_most(event, 30)
            event.clear()

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)  # the task now waits on the event
    event.set()
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    stopped = task.cancelled()
    task.cancel()
    return stopped


def test_a_cancellation_that_arrives_with_a_wake_stops_the_waiter() -> None:
    assert asyncio.run(_stopped_when_cancelled_as_woken()), "the cancellation was swallowed: the waiter ran on"


def test_a_wait_ends_when_its_time_is_up_without_a_wake() -> None:
    async def timed() -> float:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await wait_at_most(asyncio.Event(), 0.05)
        return loop.time() - started

    assert asyncio.run(timed()) >= 0.05
