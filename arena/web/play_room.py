"""The casual games being played through the web, within `casual.CasualLimits`, so the Play page
cannot exhaust the arena nor be filled by a few addresses. Each finished game is stored
(`arena.storage.store.casual`: replayable, rated nowhere).

The room has `max_games` places. One address holds at most `places_per_address` of them and one
browser session `games_per_visitor`; an address starts at most `starts_per_address` games per
`window_s`. A person who finds no place is not refused but given a queue place (`Queued`), which
their page asks for again every QUEUE_POLL_S: the next free place goes to the waiting person whose
address holds fewest places (then to the earliest come), so a newcomer from an address playing
nothing is next whatever the others hold or queue, and a full queue gives a newcomer the place of
the latest comer from the address with the most people waiting. A refusal (`PlayLimit`) is only
ever about the asker's own browser or address. Places are what is shared, not requests: a flood
of polls is the web port's rate limits' business, not the room's.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

from arena.play.casual import PERSON_LIMITS, CasualGame, check_choice, new_game, play, takes_casual
from arena.play.casual_limits import CasualLimits
from arena.play.house_pool import HousePool
from arena.play.referee import Limits
from arena.play.sessions import BotConnection, SessionHub
from arena.storage.async_store import AsyncStore
from arena.storage.store.casual import save_casual_game
from arena.web.replay import casual_key

log = logging.getLogger(__name__)

FINISHED_KEPT = 200
"""Finished games remembered for their players' pages (the oldest is forgotten first)."""
QUEUE_POLL_S = 3.0
"""How often a waiting page asks for its place again (well within `CasualLimits.queue_ttl_s`)."""


class PlayLimit(Exception):
    """A game cannot start now, for a limit of the asker's own; the message says which and when
    to try again (`retry_s`)."""

    def __init__(self, message: str, retry_s: float = 60.0) -> None:
        super().__init__(message)
        self.retry_s = retry_s


class Queued(Exception):
    """No place is the person's yet: they wait, `place` in the queue (1: the next place is
    theirs), for the `reason` given."""

    def __init__(self, reason: str, place: int) -> None:
        super().__init__(f"{reason}: you are number {place} in the queue")
        self.reason = reason
        self.place = place


@dataclass
class _Waiting:
    owner: str
    address: str
    joined: float
    seen: float
    """When the page last asked for its place; a place not asked for in `queue_ttl_s` is dropped."""


class PlayRoom:
    """Starts casual games, stores them in `db` when they end (None: kept in memory only), and
    finds them again by id for their owner."""

    def __init__(
        self,
        db: AsyncStore | None = None,
        hub: SessionHub | None = None,
        casual: CasualLimits | None = None,
        now: Callable[[], float] = time.monotonic,
        limits: Limits = PERSON_LIMITS,
    ) -> None:
        self.db = db
        self.hub = hub
        """The arena's hub, where the connected bots that accept casual games are (None: none)."""
        self.pool = HousePool()
        self.limits = limits
        """The person's clock."""
        self.casual = casual or CasualLimits()
        self._now = now
        self.games: dict[str, CasualGame] = {}
        self._running: dict[str, CasualGame] = {}
        self._started: dict[str, deque[float]] = {}
        """When each address started its games of the last `window_s`."""
        self._queue: dict[str, _Waiting] = {}
        """Who waits for a place, by session."""

    @property
    def running(self) -> int:
        """How many games are being played."""
        return len(self._running)

    @property
    def waiting(self) -> int:
        """How many people wait for a place."""
        return len(self._queue)

    def _check_visitor(self, owner: str, address: str) -> None:
        """PlayLimit when this session plays its most games at once, or its address started its
        most lately."""
        limits = self.casual
        mine = sum(1 for g in self._running.values() if g.owner == owner)
        if mine >= limits.games_per_visitor:
            raise PlayLimit(f"you play {mine} games already, the most at once; finish one first")
        now = self._now()
        recent = self._started.get(address)
        while recent and recent[0] <= now - limits.window_s:
            recent.popleft()
        if recent is not None and not recent:
            del self._started[address]
        elif recent is not None and len(recent) >= limits.starts_per_address:
            wait = max(1, round(recent[0] + limits.window_s - now))
            raise PlayLimit(
                f"{limits.starts_per_address} games started from your address lately; try again in {wait} s", wait
            )

    def _order(self) -> list[_Waiting]:
        """The queue in the order places go: each next place to the waiting person whose address
        holds fewest places, counting those given before it (then the earliest come)."""
        held = Counter(g.address for g in self._running.values())
        waiting = sorted(self._queue.values(), key=lambda w: w.joined)
        order = []
        while waiting:
            pick = min(waiting, key=lambda w: held[w.address])
            waiting.remove(pick)
            order.append(pick)
            held[pick.address] += 1
        return order

    def _join(self, owner: str, address: str, now: float) -> _Waiting:
        """Queue `owner`; a full queue gives the place of the latest comer from the address with
        the most people waiting, unless that is the newcomer's own address."""
        limits = self.casual
        if len(self._queue) >= limits.queue:
            counts = Counter(w.address for w in self._queue.values())
            most, count = counts.most_common(1)[0] if counts else (address, 0)
            if count <= counts[address]:
                raise PlayLimit(
                    f"the Play room is full: {len(self._running)} games are being played and "
                    f"{len(self._queue)} people wait, {counts[address]} of them from your address; "
                    "try again in a minute"
                )
            latest = max((w for w in self._queue.values() if w.address == most), key=lambda w: w.joined)
            del self._queue[latest.owner]
        entry = self._queue[owner] = _Waiting(owner, address, now, now)
        return entry

    def _take_place(self, owner: str, address: str) -> None:
        """Return if `owner` may start a game now; else raise Queued with their place."""
        limits = self.casual
        now = self._now()
        for stale in [w for w in self._queue.values() if w.seen < now - limits.queue_ttl_s]:
            del self._queue[stale.owner]
        entry = self._queue.get(owner)
        if entry is None:
            entry = self._join(owner, address, now)
        entry.seen, entry.address = now, address
        order = self._order()
        index = order.index(entry)
        free = limits.max_games - len(self._running)
        held = sum(1 for g in self._running.values() if g.address == address)
        if index < free and held < limits.places_per_address:
            del self._queue[owner]
            return
        place = max(1, index + 1 - max(free, 0))
        if held >= limits.places_per_address:
            raise Queued(f"Your address plays {held} games, the most one address may at once", place)
        raise Queued(f"Every place of the Play room ({limits.max_games}) is taken", place)

    async def start(self, owner: str, address: str, person: str, rivals: list[str], move_ms: int) -> CasualGame:
        """Start a game for session `owner`; ValueError for a bad choice, `sessions.AtCapacity`
        for a busy bot, PlayLimit over a limit of the asker's own, Queued while no place is the
        asker's (asking again keeps the place in the queue). Returns once the referee has seated
        it, so that its connected bots count as busy for the next game started."""
        check_choice(rivals, move_ms, self.hub, self.casual.per_bot)
        self._check_visitor(owner, address)
        self._take_place(owner, address)
        seed = secrets.randbits(63)
        game_id = "casual-" + secrets.token_hex(6)
        casual = new_game(game_id, owner, person, rivals, move_ms, seed, self.pool, self.hub, self.casual.per_bot)
        casual.address = address
        self._started.setdefault(address, deque()).append(self._now())
        casual.attach(lambda msg: None)
        self.games[game_id] = casual
        self._running[game_id] = casual
        casual.task = asyncio.get_running_loop().create_task(play(casual, seed, self._finished, self.limits))
        await asyncio.sleep(0)  # the task's first step deals and seats the game (`Referee.play`)
        return casual

    async def _finished(self, casual: CasualGame) -> None:
        self._running.pop(casual.game_id, None)
        if self.db is not None and casual.result is not None:
            try:
                stored = await self.db(
                    save_casual_game,
                    result=casual.result,
                    seat_kinds=casual.seat_kinds,
                    move_ms=casual.move_ms,
                    started_at=casual.started_at,
                )
            except Exception:  # the person keeps the record from memory; the operator sees why
                log.exception("casual game %s could not be stored", casual.game_id)
            else:
                casual.replay = f"/games/{casual_key(stored)}"
        done = [g for g in self.games if g not in self._running]
        for game_id in done[: max(0, len(done) - FINISHED_KEPT)]:
            del self.games[game_id]

    def leave(self, owner: str) -> None:
        """`owner` waits no more (their page said so)."""
        self._queue.pop(owner, None)

    def casual_bots(self) -> list[BotConnection]:
        """The connected bots a person may choose (busy ones too, to be shown so: `takes`)."""
        return [] if self.hub is None else self.hub.casual_bots()

    def takes(self, conn: BotConnection) -> bool:
        """Whether the connected bot `conn` can take a casual game now (`casual.takes_casual`)."""
        return takes_casual(conn, self.casual.per_bot)

    def find(self, game_id: str, owner: str) -> CasualGame | None:
        """The game `game_id` if session `owner` plays it (another's game is as good as none)."""
        casual = self.games.get(game_id)
        return casual if casual is not None and casual.owner == owner else None

    async def close(self) -> None:
        """Stop every running game (the server is shutting down)."""
        tasks = [g.task for g in self.games.values() if g.task is not None and not g.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.pool.close()
