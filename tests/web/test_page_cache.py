"""The kept answers (`arena.web.page_cache`): one render per URL and version however many ask at
once, the older answer served while a changed page is rendered again, keyed on the query
parameters a route reads (made-up ones neither render nor keep anything), a 304 for a browser
that holds the answer, a bound on the bytes kept, the render budget (a stale answer or a 429 once
it is spent), and every change of the arena that a page shows (a tournament created or finished
too) making it answer afresh."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.types import Message, Receive, Scope, Send

from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from arena.web import page_cache
from arena.web.app import create_app
from arena.web.limits import WebLimits
from arena.web.page_cache import KeptRoute, PageCache
from arena.web.rate_limits import WebGate
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
        body = (scope["path"].encode() + b"?" * bool(scope["query_string"]) + scope["query_string"]).ljust(
            self.size, b"."
        )
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


async def get(app: Any, url: str, headers: Headers | None = None) -> tuple[int, dict[bytes, bytes], bytes]:
    """One GET of `url` (a path and maybe a query) through the ASGI `app`: status, headers and body."""
    path, _, query = url.partition("?")
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": headers or []}
    await app(scope, receive, send)
    return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


def cache_over(
    pages: Pages, version: Version, max_bytes: int = 1 << 20, reads: tuple[str, ...] = (), gate: WebGate | None = None
) -> PageCache:
    """The page cache over `pages`, every path a kept route that reads the query parameters `reads`."""
    routes = [KeptRoute(re.compile(".*"), reads)]
    return PageCache(pages, version, routes, ttl_s=0, max_bytes=max_bytes, gate=gate)  # type: ignore[arg-type]


def test_a_changed_page_is_served_its_older_answer_while_it_is_rendered_again() -> None:
    async def run() -> None:
        pages, version = Pages(), Version()
        routes = [KeptRoute(re.compile(".*"), ())]
        cache = PageCache(pages, version, routes, ttl_s=1e-6)  # type: ignore[arg-type]
        old = await get(cache, "/ladder")
        version.value, pages.size, pages.gate = (2,), 150, asyncio.Event()
        waiting = [await asyncio.wait_for(get(cache, "/ladder"), timeout=5) for _ in range(10)]
        assert waiting == [old] * 10, "no load waits for the render under way"
        assert pages.renders == 2, "one render in the background, however many asked meanwhile"
        pages.gate.set()
        for _ in range(100):
            await asyncio.sleep(0.01)
            if (await get(cache, "/ladder"))[2] != old[2]:
                break
        assert len((await get(cache, "/ladder"))[2]) == 150 and pages.renders == 2

    asyncio.run(run())


def test_made_up_query_parameters_neither_render_nor_keep_anything() -> None:
    async def run() -> None:
        pages, version = Pages(), Version()
        cache = cache_over(pages, version, reads=("sort", "order"))
        first = await get(cache, "/ladder?sort=games")
        for i in range(200):
            assert await get(cache, f"/ladder?utm_source={i}&sort=games&x{i}=1") == first
        assert (pages.renders, cache.kept) == (1, 1)
        assert first[2].startswith(b"/ladder?sort=games."), "the route sees only the parameters it reads"
        assert (await get(cache, "/ladder?order=asc&sort=games"))[2].startswith(b"/ladder?sort=games&order=asc.")
        assert await get(cache, "/ladder?sort=rank&sort=games") == first, "the value read is the last one"
        assert (pages.renders, cache.kept) == (2, 2)

    asyncio.run(run())


def test_once_the_render_budget_is_spent_a_kept_answer_is_served_stale_and_others_refused() -> None:
    async def run() -> None:
        pages, version = Pages(), Version()
        clock = [0.0]
        limits = WebLimits(render_rate=0.5, render_burst=2)
        cache = cache_over(pages, version, reads=("page_token",), gate=WebGate(limits, clock=lambda: clock[0]))
        fresh = await get(cache, "/bots")
        assert (await get(cache, "/bots?page_token=a"))[0] == 200
        version.value = (2,)
        assert await get(cache, "/bots") == fresh, "the older answer, while no render is left"
        status, headers, body = await get(cache, "/bots?page_token=b")
        assert status == 429 and int(headers[b"retry-after"]) == 2
        assert b"rendering as many pages as it takes" in body
        assert pages.renders == 2
        clock[0] += 2
        assert (await get(cache, "/bots"))[0] == 200 and pages.renders == 3, "rendered again once the budget refills"

    asyncio.run(run())


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


def test_the_kept_answers_are_bounded_in_number_least_recently_used_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page_cache, "KEPT_ANSWERS", 3)

    async def run() -> None:
        pages, version = Pages(), Version()
        cache = cache_over(pages, version)
        for url in ("/a", "/b", "/c", "/a", "/d"):
            await get(cache, url)
        assert (cache.kept, cache.kept_bytes, pages.renders) == (3, 300, 4)
        for url in ("/a", "/c", "/d"):
            await get(cache, url)
        assert pages.renders == 4, "/a was read again after /b, so /b is the one dropped for /d"
        await get(cache, "/b")
        assert pages.renders == 5

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
