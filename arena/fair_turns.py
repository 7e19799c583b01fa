"""A budget shared by every caller that queues calls instead of refusing them, and serves the
waiting callers in turn.

A per-address token bucket (`arena.token_buckets`) bounds one address; a flood from many addresses
passes every one of them. `FairTurns` is the arena-wide bound behind them: at most `rate` calls a
second (after a `burst` at once), whoever makes them. A call past the budget waits for its turn,
rather than being refused, and the waiting callers (keyed by address) take turns, one call each
round, so an address with fifty calls waiting holds up a newcomer's call by at most one turn of
each other address waiting, never by its fifty.

Bounded everywhere: a key may have `waiting_per_key` calls waiting and all keys together
`waiting`; one more is refused at once (`TurnRefused`), and a call that waits past its own
deadline gives up its place.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

from arena.token_buckets import RateLimiter

_BUDGET = ""
"""The one key of the budget's bucket: every caller spends from it."""


class TurnRefused(Exception):
    """Too many calls wait already: of this key (`own`), or of every key together."""

    def __init__(self, own: bool) -> None:
        super().__init__("too many calls of this caller wait" if own else "too many calls wait")
        self.own = own


class FairTurns:
    """`await turn(key)` returns when the call of `key` may go (see the module docstring)."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        waiting: int = 1024,
        waiting_per_key: int = 64,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if waiting < 1 or waiting_per_key < 1:
            raise ValueError(f"fair turns need room for waiting calls, not {waiting} and {waiting_per_key} a key")
        self._budget = RateLimiter(rate, burst, max_peers=1, clock=clock)
        self.rate = rate
        self._most_waiting = waiting
        self._most_per_key = waiting_per_key
        self._sleep = sleep
        self._queues: dict[str, deque[asyncio.Future[None]]] = {}
        """The waiting calls of each key, keys in turn order (a served key goes to the back)."""
        self._waiting = 0
        self._server: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """How many calls wait now."""
        return self._waiting

    def now(self) -> bool:
        """Whether a call may go at once (nobody waits and the budget has room), spending its token
        if so; else it must wait its `turn`."""
        return not self._queues and self._budget.allow(_BUDGET)

    async def turn(self, key: str) -> None:
        """Wait for the call's turn; TurnRefused if too many calls wait already. Cancelled (the
        call's deadline passed), the call leaves the queue having spent nothing."""
        if self.now():
            return
        queue = self._queues.get(key)
        if queue is not None and len(queue) >= self._most_per_key:
            raise TurnRefused(own=True)
        if self._waiting >= self._most_waiting:
            raise TurnRefused(own=False)
        if queue is None:
            queue = self._queues[key] = deque()
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(place)
        self._waiting += 1
        if self._server is None or self._server.done():
            self._server = asyncio.get_running_loop().create_task(self._serve())
        try:
            await place
        except BaseException:
            self._leave(key, place)
            raise

    def _leave(self, key: str, place: asyncio.Future[None]) -> None:
        """Take a call that gave up out of its key's queue (if the server has not yet)."""
        queue = self._queues.get(key)
        if queue is not None and place in queue:
            queue.remove(place)
            self._waiting -= 1
            if not queue:
                del self._queues[key]

    async def _serve(self) -> None:
        """Hand out the budget's tokens as they refill, one call of each key in turn."""
        while self._queues:
            key, queue = next(iter(self._queues.items()))
            if queue[0].done():  # its call was cancelled and has not left yet: it spends nothing
                self._pop(key)
            elif self._budget.allow(_BUDGET):
                self._pop(key).set_result(None)
            else:
                await self._sleep(self._budget.retry_after(_BUDGET))

    def _pop(self, key: str) -> asyncio.Future[None]:
        """The first waiting call of `key`, out of the queue; the key goes to the back of the turns."""
        queue = self._queues.pop(key)
        place = queue.popleft()
        self._waiting -= 1
        if queue:
            self._queues[key] = queue
        return place
