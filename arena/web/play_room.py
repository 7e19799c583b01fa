"""The casual games being played through the web: at most `max_games` at once, and at most
`per_address` new games per address in any `window_s`, so the Play page cannot exhaust the arena.
Each finished game is stored (`arena.storage.store.casual`: replayable, rated nowhere)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable

from arena.play.casual import PERSON_LIMITS, CasualGame, new_game, play
from arena.play.house_pool import HousePool
from arena.play.referee import Limits
from arena.play.sessions import BotConnection, SessionHub
from arena.storage.async_store import AsyncStore
from arena.storage.store.casual import save_casual_game
from arena.web.replay import casual_key

log = logging.getLogger(__name__)

MAX_GAMES = 20
PER_ADDRESS = 10
WINDOW_S = 600.0
FINISHED_KEPT = 200
"""Finished games remembered for their players' pages (the oldest is forgotten first)."""


class PlayLimit(Exception):
    """A game cannot start now; the message says which limit and when to try again."""


class PlayRoom:
    """Starts casual games, stores them in `db` when they end (None: kept in memory only), and
    finds them again by id for their owner."""

    def __init__(
        self,
        db: AsyncStore | None = None,
        hub: SessionHub | None = None,
        max_games: int = MAX_GAMES,
        per_address: int = PER_ADDRESS,
        window_s: float = WINDOW_S,
        now: Callable[[], float] = time.monotonic,
        limits: Limits = PERSON_LIMITS,
    ) -> None:
        self.db = db
        self.hub = hub
        """The arena's hub, where the connected bots that accept casual games are (None: none)."""
        self.pool = HousePool()
        self.limits = limits
        self.max_games = max_games
        self.per_address = per_address
        self.window_s = window_s
        self._now = now
        self.games: dict[str, CasualGame] = {}
        self._running: set[str] = set()
        self._started: dict[str, deque[float]] = {}

    @property
    def running(self) -> int:
        """How many games are being played."""
        return len(self._running)

    def _admit(self, address: str) -> None:
        if len(self._running) >= self.max_games:
            raise PlayLimit(f"{self.max_games} games are being played, the most at once; try again in a minute")
        now = self._now()
        recent = self._started.setdefault(address, deque())
        while recent and recent[0] <= now - self.window_s:
            recent.popleft()
        if len(recent) >= self.per_address:
            wait = round(recent[0] + self.window_s - now)
            raise PlayLimit(f"{self.per_address} games started from your address lately; try again in {wait} s")
        recent.append(now)

    async def start(self, owner: str, address: str, person: str, rivals: list[str], move_ms: int) -> CasualGame:
        """Start a game for session `owner`; ValueError for a bad choice, `sessions.AtCapacity`
        for a busy bot, PlayLimit over a limit. Returns once the referee has seated it, so that
        its connected bots count as busy for the next game started."""
        seed = secrets.randbits(63)
        game_id = "casual-" + secrets.token_hex(6)
        casual = new_game(game_id, owner, person, rivals, move_ms, seed, self.pool, self.hub)
        self._admit(address)
        casual.attach(lambda msg: None)
        self.games[game_id] = casual
        self._running.add(game_id)
        casual.task = asyncio.get_running_loop().create_task(play(casual, seed, self._finished, self.limits))
        await asyncio.sleep(0)  # the task's first step deals and seats the game (`Referee.play`)
        return casual

    async def _finished(self, casual: CasualGame) -> None:
        self._running.discard(casual.game_id)
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

    def casual_bots(self) -> list[BotConnection]:
        """The connected bots a person may choose (busy ones too, to be shown so)."""
        return [] if self.hub is None else self.hub.casual_bots()

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
