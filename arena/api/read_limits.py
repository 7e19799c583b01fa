"""How much the read calls (lists, shows, ratings, export) may ask of the arena, and from whom.

The read calls need no token, so anyone who can reach the port can loop them. `ReadGate` holds
each caller to a token bucket (`arena.token_buckets.RateLimiter`):

- a call without a token (or with one the arena does not know) spends from its host's bucket
  (`ResourceLimits.read_rate`/`read_burst`); every client on one host shares it;
- a call with a bot's own token spends from that bot's bucket (`token_read_rate`/`token_read_burst`),
  so a tournament's bots polling from one host never share the host's bucket with a flood;
- a call with the admin token is not counted (the organiser is trusted).

Beside each caller's own bucket, every caller of a kind shares one more: all calls without a
token together spend from `global_read_rate`/`global_read_burst`, all calls with bots' tokens from
`global_token_read_rate`/`global_token_read_burst`. A caller's own bucket is asked first, so a
flooder refused by its own bucket spends nothing of the shared one; a flood from any number of
addresses (or of bots) is held to the shared budget, so it costs the arena a bounded share of its
CPU and degrades only the reads of its own kind: bots' token reads keep their budget while
anonymous reads are flooded, and play (bot streams, the referee, the runner's commits) never
waits on reads at all.

A call costs one unit per `ITEMS_PER_UNIT` items it asks for (its page size, rounded up), and an
export one per game it sends; the first unit must be in the bucket, the rest are waited for (an
export slows to the refill rate rather than failing halfway). A refused call is held for `HOLD_S` before it is answered
RESOURCE_EXHAUSTED (with how long to wait then, in the message and as `retry-after-ms` trailing
metadata), so a client looping without a pause is slowed to one call per `HOLD_S` instead of costing
the arena a refusal per round trip; at most `MAX_HELD` calls are held at once (beyond that a
refusal is answered at once).

Whoever calls, at most `ResourceLimits.read_concurrency` read calls work on the database at once
(`run`), so reads never take every worker thread from the tournament runner's commits.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import grpc
from cachetools import TTLCache

from arena.api.peers import Request, Response, peer_host
from arena.api.resources import ResourceLimits
from arena.directory import BotDirectory, token_hash
from arena.token_buckets import RateLimiter, address_key

if TYPE_CHECKING:  # the command-line client reads this module's wire constants without the storage layer
    from arena.storage.async_store import AsyncStore
    from arena.storage.credentials import AdminGate

T = TypeVar("T")

ITEMS_PER_UNIT = 25
EXPORT_GAMES_PER_UNIT = 1
"""A unit is work of about the same cost to the arena: a ShowGame (parsing one game's record),
listing 25 games, or exporting one game (benchmarks/read_flood.py measures what a flood costs)."""
BOOTSTRAP_RESAMPLES_PER_UNIT = 10
"""A rating table's bootstrap costs a unit more per this many resamples asked for, so a host
pays for heavy bootstraps by waiting (`arena.ratings.rank_confidence.BOOTSTRAP_WORK_LIMIT` bounds one
call's work, and an unchanged table's bootstrap is remembered, not redone)."""
HOLD_S = 1.0
MAX_HELD = 64
KNOWN_TOKENS = 10_000
TOKEN_TTL_S = 60.0
"""Verified tokens are remembered this long (so a call does not cost a lookup), at most KNOWN_TOKENS."""
RETRY_AFTER_KEY = "retry-after-ms"
SHARED = ""
"""The key of the bucket every caller of a kind shares."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Whose bucket a read call spends from: `limiter` is None for the admin (not counted);
    `shared` is the bucket every caller of its kind spends from too."""

    key: str
    limiter: RateLimiter | None
    shared: RateLimiter | None = None

    def buckets(self) -> list[tuple[RateLimiter, str]]:
        """The buckets a call spends from, in order: the caller's own, then the shared one."""
        own = [] if self.limiter is None else [(self.limiter, self.key)]
        return own + ([] if self.shared is None else [(self.shared, SHARED)])


class ReadGate:
    """Admits read calls (per-caller buckets, refusals held) and bounds their database work."""

    def __init__(
        self,
        limits: ResourceLimits,
        directory: BotDirectory,
        admin: AdminGate,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._hosts = RateLimiter(limits.read_rate, limits.read_burst, clock=clock)
        self._bots = RateLimiter(limits.token_read_rate, limits.token_read_burst, clock=clock)
        self._anyone = RateLimiter(limits.global_read_rate, limits.global_read_burst, clock=clock)
        self._any_bot = RateLimiter(limits.global_token_read_rate, limits.global_token_read_burst, clock=clock)
        self._directory = directory
        self._admin = admin
        self._slots = asyncio.Semaphore(limits.read_concurrency)
        self._known: TTLCache[str, Caller, float] = TTLCache(KNOWN_TOKENS, TOKEN_TTL_S, timer=clock)
        """The verified callers by token hash (used on the event loop alone, so without a lock)."""
        self._held = 0

    async def admit(
        self, call: str, context: grpc.aio.ServicerContext[Request, Response], token: str | None, items: int = 1
    ) -> Caller:
        """Spend the call's first unit (or end it RESOURCE_EXHAUSTED), then wait for the rest of
        its units; returns whose bucket it spends from. `items` is how many it asks for."""
        caller = self._remembered(token) if token else None
        if caller is None:
            caller = Caller(f"host {address_key(peer_host(context.peer()))}", self._hosts, self._anyone)
            if token:
                caller = await self._verified(token) or caller
        for limiter, key in caller.buckets():
            if not limiter.allow(key):
                await self._refuse(call, caller, context, limiter, key)
        await self.pace(caller, math.ceil(items / ITEMS_PER_UNIT) - 1)
        return caller

    async def pace(self, caller: Caller, units: int = 1) -> None:
        """Wait until `caller`'s bucket, and then the one its kind shares, have paid `units` more units."""
        for _ in range(units):
            for limiter, key in caller.buckets():
                while not limiter.allow(key):
                    await asyncio.sleep(limiter.retry_after(key))

    async def run(self, db: AsyncStore, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """`await db(fn, **kwargs)` once fewer than `read_concurrency` reads are at the database."""
        async with self._slots:
            return await db(fn, **kwargs)

    def _remembered(self, token: str) -> Caller | None:
        return self._known.get(token_hash(token))

    async def _verified(self, token: str) -> Caller | None:
        """The caller a token proves (a bot or the admin), looked up under the database bound."""
        async with self._slots:
            bot = await self._directory.authenticate(token)
            caller = (
                Caller(f"bot {bot}", self._bots, self._any_bot)
                if bot is not None
                else (Caller("admin", None) if await self._admin.allows(token) else None)
            )
        if caller is not None:
            self._known[token_hash(token)] = caller
        return caller

    async def _refuse(
        self,
        call: str,
        caller: Caller,
        context: grpc.aio.ServicerContext[Request, Response],
        limiter: RateLimiter,
        key: str,
    ) -> NoReturn:
        """Hold the call, then end it RESOURCE_EXHAUSTED: `limiter`'s bucket `key` is empty
        (the caller's own, or the one shared by every caller of its kind)."""
        if self._held < MAX_HELD:
            self._held += 1
            try:
                await asyncio.sleep(HOLD_S)
            finally:
                self._held -= 1
        wait = max(0.1, limiter.retry_after(key))
        apart = "" if caller.limiter is self._bots else "; calls with a bot's own token are counted apart"
        whose = (
            caller.key
            if key != SHARED
            else (
                "every bot calling with its token" if caller.limiter is self._bots else "every caller without a token"
            )
        )
        context.set_trailing_metadata(((RETRY_AFTER_KEY, str(math.ceil(wait * 1000))),))
        await context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"{call}: too many read calls from {whose} (at most {limiter.rate:g} a second, {limiter.burst} "
            f"at once{apart}); try again in {wait:.1f} s",
        )
        raise AssertionError("context.abort raises")
