"""Calling `arena.storage.store` from the event loop: reads in worker threads, writes on the writer.

The store is synchronous (SQLAlchemy sessions); a commit takes a millisecond or more, and on
PostgreSQL a network round trip, which would stall every game and stream if it ran on the loop.
A function declared a write (`arena.storage.writer.writes`) runs on the database's writer, the
one path every write of the process takes (its bounded queue, one transaction per call); any
other runs in a worker thread, in a session of its own. A function declared to write in steps
(`in_steps`: a tournament's start, which stores a large schedule in bounded chunks) runs in a
worker thread and sends each of its transactions to the writer on its own, so the writes of other
tournaments, commands and registrations take their turns between its chunks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.storage.writer import WRITES, Writer, for_engine

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


class Transactions(Protocol):
    """Runs `fn(session=..., **kwargs)` as a transaction of its own and returns what it returns:
    what a function that writes in steps works through."""

    def __call__(self, fn: Callable[..., T], /, **kwargs: Any) -> T: ...


STEPS: dict[Callable[..., Any], Callable[..., Any]] = {}
"""Functions that write in several transactions (taking `session=`), each with its steps: the
same work as `steps(db, **kwargs)`, every transaction through `db`."""


def in_steps(steps: Callable[..., Any]) -> Callable[[F], F]:
    """Declare that the decorated function writes in several transactions as `steps` does them."""

    def mark(fn: F) -> F:
        STEPS[fn] = steps
        return fn

    return mark


def on_session(session: Session) -> Transactions:
    """`Transactions` in one session, one after the other (each store function commits its own)."""

    def run(fn: Callable[..., T], /, **kwargs: Any) -> T:
        return fn(session=session, **kwargs)

    return run


class AsyncStore:
    """`await db(store.fn, key=value)` runs `store.fn(session=..., key=value)` off the loop;
    `db.run(...)` does the same, blocking, from a thread that is not the loop's."""

    def __init__(self, engine: Engine, *, play: bool = False) -> None:
        self.engine = engine
        self.play = play
        """Whether its writes are a tournament's play, which go first (`arena.storage.writer.Writer`)."""

    def for_play(self) -> AsyncStore:
        """The same store, its writes marked as a tournament's play."""
        return AsyncStore(self.engine, play=True)

    @property
    def writer(self) -> Writer:
        """The writer of the database (shared by every store on the engine)."""
        return for_engine(self.engine)

    def run(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """Call `fn` as `__call__` would, blocking this thread."""
        if fn in WRITES:
            return self.writer.run_blocking(fn, kwargs, play=self.play)
        steps = STEPS.get(fn)
        if steps is not None:
            result: T = steps(self.run, **kwargs)
            return result
        with Session(self.engine) as session:
            return fn(session=session, **kwargs)

    async def __call__(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        if fn in WRITES:
            return await self.writer.run(fn, kwargs, play=self.play)
        return await asyncio.to_thread(self.run, fn, **kwargs)
