"""Calling `arena.storage.store` from the event loop: each call runs in a worker thread, in its own session.

The store is synchronous (SQLAlchemy sessions); a commit takes a millisecond or more, and on
PostgreSQL a network round trip, which would stall every game and stream if it ran on the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

T = TypeVar("T")


class AsyncStore:
    """`await db(store.fn, key=value)` runs `store.fn(session=..., key=value)` off the loop."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def run(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """Call `fn` in a fresh session, in this thread."""
        with Session(self.engine) as session:
            return fn(session=session, **kwargs)

    async def __call__(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        return await asyncio.to_thread(self.run, fn, **kwargs)
