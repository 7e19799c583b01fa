"""The kept answers (`arena.web.page_cache`): one render per URL and version however many ask at
once, a 304 for a browser that holds the answer, a bound on the bytes kept, and every change of
the arena that a page shows (a tournament created or finished too) making it answer afresh."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.types import Message, Receive, Scope, Send

from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from arena.web.app import create_app
from arena.web.page_cache import PageCache
from tests.storage.helpers import random_result, running_tournament


class Pages:
    """An ASGI app whose every GET answers 200 with `size` bytes naming its path (404 under
    /missing), counting its renders; `gate`, when set, holds each render until it is released."""

    def __init__(self, size: int = 100) -> None:
        self.size = size
        self.renders = 0
        self.gate: asyncio.Event | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.renders += 1
        if self.gate is not None:
            await self.gate.wait()
        status = 404 if scope["path"].startswith("/missing") else 200
        body = scope["path"].encode().ljust(self.size, b".")
        headers = [(b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Version:
    """What the page cache asks for the arena's version: `value`, as the database would tell it."""

    def __init__(self) -> None:
        self.value: tuple[Any, ...] = (1,)

    async def __call__(self, fn: Any, /, **kwargs: Any) -> tuple[Any, ...]:
        return self.value


Headers = list[tuple[bytes, bytes]]


async def get(app: Any, path: str, headers: Headers | None = None) -> tuple[int, dict[bytes, bytes], bytes]:
    """One GET of `path` through the ASGI `app`: status, headers and body."""
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": headers or []}
    await app(scope, receive, send)
    return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


def cache_over(pages: Pages, version: Version, max_bytes: int = 1 << 20) -> PageCache:
    return PageCache(pages, version, [re.compile(".*")], ttl_s=0, max_bytes=max_bytes)  # type: ignore[arg-type]


def test_a_url_asked_many_times_at_once_is_rendered_once() -> None:
    async def run() -> None:
        pages, version = Pages(), Version()
        cache = cache_over(pages, version)
        pages.gate = asyncio.Event()
        asked = [asyncio.create_task(get(cache, "/ladder")) for _ in range(20)]
        await asyncio.sleep(0.05)
        pages.gate.set()
        answers = await asyncio.gather(*asked)
        assert pages.renders == 1
        assert {(status, body) for status, _, body in answers} == {(200, b"/ladder".ljust(100, b"."))}
        version.value = (2,)
        await get(cache, "/ladder")
        assert pages.renders == 2, "a new version is rendered again"

    asyncio.run(run())


def test_a_browser_holding_the_answer_gets_a_304_until_it_changes() -> None:
    async def run() -> None:
        pages, version = Pages(), Version()
        cache = cache_over(pages, version)
        status, headers, _ = await get(cache, "/ladder")
        etag = headers[b"etag"]
        assert status == 200 and headers[b"cache-control"] == b"no-cache"
        status, headers, body = await get(cache, "/ladder", [(b"if-none-match", etag)])
        assert (status, body, headers[b"etag"]) == (304, b"", etag)
        assert (await get(cache, "/ladder", [(b"if-none-match", b'"other"')]))[0] == 200
        version.value = (2,)
        pages.size = 120
        status, headers, body = await get(cache, "/ladder", [(b"if-none-match", etag)])
        assert status == 200 and len(body) == 120 and headers[b"etag"] != etag

    asyncio.run(run())


def test_the_kept_bytes_are_bounded_and_errors_never_kept() -> None:
    async def run() -> None:
        pages, version = Pages(size=100), Version()
        cache = cache_over(pages, version, max_bytes=1000)
        for i in range(30):
            await get(cache, f"/page/{i}")
        assert 900 <= cache.kept_bytes <= 1000
        renders = pages.renders
        await get(cache, "/page/29")
        assert pages.renders == renders, "the latest answers are kept"
        await get(cache, "/page/0")
        assert pages.renders == renders + 1, "the oldest were dropped"
        pages.size = 300
        await get(cache, "/big")
        await get(cache, "/big")
        assert pages.renders == renders + 3, "a body above a quarter of the bound is not kept"
        assert (await get(cache, "/missing"))[0] == (await get(cache, "/missing"))[0] == 404
        assert pages.renders == renders + 5

    asyncio.run(run())


def test_a_tournament_created_or_finished_shows_at_once(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    with Session(engine) as session:
        running_tournament(session, 3, 3, 1, name="cup")
    client = TestClient(create_app(engine, page_ttl_s=0), raise_server_exceptions=False)
    assert "new-cup" not in client.get("/tournaments").text
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name="new-cup",
                table_size=3,
                games_per_table=1,
                starts_at=datetime.now(UTC) + timedelta(days=1),
                move_limit_ms=1000,
            ),
        )
    assert "new-cup" in client.get("/tournaments").text
    before = client.get("/api/tournaments/cup").json()
    assert before["status"] == "running" and before["seed"] is None
    with Session(engine) as session:
        for waiting in store.next_games(session=session, tournament="cup", limit=10):
            game = store.mark_game_running(session=session, game_id=waiting.id)
            store.commit_game(session=session, game_id=game.id, result=random_result(game))
    after = client.get("/api/tournaments/cup").json()
    assert after["status"] == "finished" and after["seed"] is not None
    engine.dispose()
