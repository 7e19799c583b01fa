"""Live games during a running tournament: an arena (in this process, with its web pages) plays a
tournament between in-process bots, and the live page follows a game as it advances, showing no
hand, every event at least the tournament's spectator delay after it was played (docs/rules.md §9)."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session

from arena.startup.arena import start_arena
from arena.startup.settings import ArenaSettings
from arena.storage import store
from arena.tournaments.settings import TournamentSettings
from sdk import Action, Bot, Observation
from sdk.runner import run_async
from tests.tournaments.test_runner import register_and_enter
from tests.web.conftest import screenshot

DELAY_S = 1
"""The tournament's spectator delay: short, since the test watches a whole game through it."""
THINK_S = 0.02
"""Each bot's pause per decision, so a game lasts a few seconds and is seen advancing."""
BOTS = ["ann", "bob", "cat"]
WAIT_MS = 120_000
"""Bound on each wait for the games to get somewhere (a loaded machine plays them slowly)."""
SEEN_COUNTS = """
window.seenCounts = [];
new MutationObserver((changes) => {
  for (const c of changes) if (c.oldValue !== null) window.seenCounts.push(c.oldValue);
}).observe(document, { attributes: true, attributeOldValue: true, subtree: true, attributeFilter: ["data-seen"] });
"""
"""Run before the page's own scripts: records every event count the live page showed before
its next one (a change's old value: a burst of changes is reported once, after the last)."""


class SteadyBot(Bot):
    """Random legal moves, each after THINK_S."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._rng = random.Random(seed)

    async def choose(self, obs: Observation) -> Action:  # type: ignore[override]
        await asyncio.sleep(THINK_S)
        return self._rng.choice(obs.legal_actions)


@dataclass
class LiveArena:
    url: str
    """The web pages' address."""
    database_url: str


@contextmanager
def live_arena(database_url: str, tokens: dict[str, str]) -> Iterator[LiveArena]:
    """An arena serving its web pages (as `scout-arena serve` does) with the bots of `tokens`
    playing, in a thread of its own."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    started: list[str] = []
    stopping = asyncio.Event()

    async def run() -> None:
        arena = await start_arena(ArenaSettings(port=0, database_url=database_url, http_port=0))
        assert arena.web is not None
        target = f"127.0.0.1:{arena.port}"
        bots = [
            asyncio.create_task(run_async(SteadyBot(i), target=target, token=token))
            for i, token in enumerate(tokens.values())
        ]
        started.append(arena.web.url)
        ready.set()
        await stopping.wait()
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
        await arena.stop(grace=0.5)

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    assert ready.wait(30), "the arena did not start"
    try:
        yield LiveArena(started[0], database_url)
    finally:
        loop.call_soon_threadsafe(stopping.set)
        thread.join(30)
        loop.close()


def wait_for(what: str, check: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while (value := check()) is None or value is False:
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def last_game(database_url: str, tournament: str) -> int | None:
    """The tournament's last game, once it is scheduled (the tournament has started)."""
    from arena.storage.database import open_database

    engine = open_database(database_url, create=False)
    try:
        with Session(engine) as session:
            games = store.list_games(session=session, tournament=tournament)
    finally:
        engine.dispose()
    return games[-1].id if games else None


def test_a_live_game_advances_on_the_page_with_no_hand_and_lags_by_the_delay(tmp_path: Path, page: Any) -> None:
    database_url = f"sqlite:///{tmp_path / 'live.db'}"
    settings = TournamentSettings(
        "live-cup",
        table_size=3,
        games_per_table=2,
        starts_at=datetime.now(UTC),
        move_limit_ms=2000,
        concurrency=1,
        seed=11,
        spectator_delay_s=DELAY_S,
    )
    tokens = register_and_enter(database_url, settings, BOTS)
    with live_arena(database_url, tokens) as arena:
        # The page of the last game is open before that game starts: it waits, then follows it live.
        # Each count of events the page shows is noted as the page sets it, so a loaded machine that
        # looks late still sees whether the page advanced move by move rather than all at once.
        game_id = wait_for("the tournament to start", lambda: last_game(database_url, "live-cup"))
        page.add_init_script(SEEN_COUNTS)
        page.goto(f"{arena.url}games/{game_id}/live")
        page.wait_for_function("window.seenCounts.length > 3", timeout=WAIT_MS)
        counts = [int(n) for n in page.evaluate("window.seenCounts")]
        assert all(a < b for a, b in itertools.pairwise(counts)), counts
        assert page.locator("[data-role=hand] .pcard:not(.back)").count() == 0, "no hand is ever shown face up"
        assert page.locator("[data-role=hand] .pcard.back").count() > 0
        assert f"shown {DELAY_S} s after it happens" in page.inner_text("#delay")
        screenshot(page, "live")

        # Every event reaches a spectator no sooner than the delay after it was played (the
        # stream's own timestamps against this test's receipt times: load only makes it later).
        received: list[tuple[float, dict[str, Any]]] = []
        with urllib.request.urlopen(f"{arena.url}api/games/{game_id}/events", timeout=30) as stream:
            name = ""
            for raw in stream:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name == "event":
                    received.append((time.time(), json.loads(line[6:])))
                elif line.startswith("data: ") and name == "end":
                    break
        assert received
        for at, data in received:
            played = datetime.fromisoformat(data["played_at"].replace("Z", "+00:00")).timestamp()
            assert at >= played + DELAY_S - 0.001, f"event {data['seq']} came {at - played:.3f} s after it was played"
        assert received[-1][1]["event"]["type"] == "round_ended"

        page.wait_for_selector("#live[data-status=ended]", timeout=WAIT_MS)
        assert "The game is over" in page.inner_text("#caption")
        screenshot(page, "live-over")
