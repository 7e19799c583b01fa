"""The web tests: a database of finished games, the web app over it (in process, or served on a
free port), and Chromium driven by Playwright.

Chromium is Debian's (`/usr/bin/chromium`, which `.ci/run` installs when missing): Playwright's
own browser download cannot work on this machine, so it is launched by `executable_path`. The
browser tests skip, saying why, only when no Chromium is installed. Screenshots of every page go
to tests/web/screenshots/ (gitignored; `SCOUT_WEB_SCREENSHOTS` names another folder): look at them.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.results import ForfeitCause
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from arena.web.app import create_app
from arena.web.play_room import PlayRoom
from arena.web.serving import WebServer, bind, start_web
from tests.storage.helpers import random_result, running_tournament

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("SCOUT_WEB_SCREENSHOTS", Path(__file__).parent / "screenshots"))
LAPTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}
TOURNAMENT = "cup"
UPCOMING = "next-cup"
BOTS = 5
TABLE_SIZE = 3
GAMES_PER_TABLE = 2
FORFEIT_GAME = 3
"""The game (in play order, from 0) whose seat 1 times out, so the pages have a forfeit to show."""


def finish_tournament(session: Session, tournament: str = TOURNAMENT) -> int:
    """Play every game of `tournament` with random policies (game FORFEIT_GAME with a timeout in
    seat 1); returns how many were committed."""
    played = 0
    while games := store.next_games(session=session, tournament=tournament, limit=20):
        for waiting in games:
            game = store.mark_game_running(session=session, game_id=waiting.id)
            forfeits = (1,) if played == FORFEIT_GAME else ()
            store.commit_game(
                session=session, game_id=game.id, result=random_result(game, forfeits, ForfeitCause.TIMEOUT)
            )
            played += 1
    return played


@pytest.fixture(scope="session")
def finished_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding one finished tournament, TOURNAMENT (BOTS bots at tables of
    TABLE_SIZE, GAMES_PER_TABLE games each, one forfeit), and UPCOMING, not started yet."""
    path = tmp_path_factory.mktemp("web") / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        running_tournament(session, BOTS, TABLE_SIZE, GAMES_PER_TABLE, name=TOURNAMENT)
        finish_tournament(session)
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name=UPCOMING,
                table_size=TABLE_SIZE,
                games_per_table=1,
                starts_at=datetime.now(UTC) + timedelta(days=30),
                move_limit_ms=1000,
            ),
        )
    engine.dispose()
    return path


@pytest.fixture
def engine(finished_db: Path) -> Iterator[Engine]:
    """The finished database, opened as `scout-arena web` opens it (nothing created)."""
    opened = open_database(f"sqlite:///{finished_db}", create=False)
    yield opened
    opened.dispose()


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    """The web app over the finished database, called in process."""
    with TestClient(create_app(engine, page_ttl_s=0), raise_server_exceptions=False) as test_client:
        yield test_client


@dataclass
class Served:
    """A web server reachable at `url`, serving the database of `engine`."""

    url: str
    engine: Engine


@contextmanager
def serve_in_thread(engine: Engine, arena: Any = None) -> Iterator[str]:
    """`create_app(engine)` served on a free port by `arena.web.serving` in a thread running its
    own event loop (as `scout-arena web` runs it); yields its address, stops it after."""
    loop = asyncio.new_event_loop()
    started: list[WebServer] = []
    ready = threading.Event()
    stopping = asyncio.Event()

    async def run() -> None:
        server = await start_web(create_app(engine, arena=arena), bind("127.0.0.1", 0))
        started.append(server)
        ready.set()
        await stopping.wait()
        await server.stop()

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    assert ready.wait(30), "the web server did not start"
    try:
        yield started[0].url
    finally:
        loop.call_soon_threadsafe(stopping.set)
        thread.join(30)
        assert not thread.is_alive(), "the web server did not stop"
        loop.close()


@pytest.fixture
def served(engine: Engine) -> Iterator[Served]:
    """The web app over the finished database on a free port."""
    with serve_in_thread(engine) as url:
        yield Served(url, engine)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[str, PlayRoom]]:
    """The web app over a fresh database served on a free port, storing its casual games, with its
    play room at hand."""
    engine = open_database(f"sqlite:///{tmp_path / 'play.db'}")
    loop = asyncio.new_event_loop()
    started: list[tuple[WebServer, PlayRoom]] = []
    ready = threading.Event()
    stopping = asyncio.Event()

    async def run() -> None:
        app = create_app(engine, store_casual=True)
        server = await start_web(app, bind("127.0.0.1", 0))
        started.append((server, app.state.play))
        ready.set()
        await stopping.wait()
        await server.stop()

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield started[0][0].url, started[0][1]
    finally:
        loop.call_soon_threadsafe(stopping.set)
        thread.join(30)
        loop.close()
        engine.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's), shared by one module's browser tests. Not the session's:
    Playwright's sync API keeps an event loop running in this thread while it is open, and the
    tests of other modules that call `asyncio.run` must not find one."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does it when apt is there)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh laptop-sized page (1366 by 800); `page.set_viewport_size(PHONE)` turns it into a phone."""
    context = browser.new_context(viewport=LAPTOP)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as SCREENSHOTS/<name>.png at the laptop and at the phone width
    (`<name>-phone.png`), and print where, so whoever runs the tests can look at them."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    laptop = SCREENSHOTS / f"{name}.png"
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=str(laptop), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    print(f"screenshots: {laptop} and {name}-phone.png beside it")
    return laptop


def get_paths(routes: Any, prefix: str = "") -> list[str]:
    """The paths of every GET route among `routes` (an app's), into included routers too
    (FastAPI keeps those as routers of their own)."""
    found = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            found += get_paths(inner.routes, prefix + route.include_context.prefix)
        elif "GET" in (getattr(route, "methods", None) or ()):
            found.append(prefix + route.path)
    return found
