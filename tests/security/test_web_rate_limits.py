"""The web port's budgets (arena.web.rate_limits, arena.web.page_cache) against a real `scout-arena
serve` process, its clients on distinct loopback addresses (127.0.0.N, their sockets bound there):
made-up query strings render nothing and keep nothing new, renders past the shared budget are
refused, and requests past an address's bucket or everyone's are answered 429 with Retry-After."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from sqlmodel import Session

from arena.storage import store
from arena.storage.database import open_database
from tests.tournaments.arena_process import ArenaProcess


def serve(tmp_path: Path, *options: str) -> ArenaProcess:
    """An arena over a SQLite file with two bots registered, its web pages on a free port."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        for name in ("ann", "bob"):
            store.register_bot(session=session, name=name)
    engine.dispose()
    return ArenaProcess(url, tmp_path / "server.log", "--http-port", "0", *options)


@pytest.fixture
def client_from() -> Iterator[object]:
    """`client_from(arena, n)`: an HTTP client of `arena`'s web pages from 127.0.0.`n`."""
    clients: list[httpx.Client] = []

    def make(arena: ArenaProcess, n: int) -> httpx.Client:
        assert arena.web is not None
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{n}")
        clients.append(httpx.Client(base_url=arena.web, transport=transport, timeout=30))
        return clients[-1]

    yield make
    for client in clients:
        client.close()


def test_made_up_query_strings_are_answered_from_one_kept_answer(tmp_path: Path, client_from: object) -> None:
    arena = serve(tmp_path, "--web-render-rate", "0.001", "--web-render-burst", "4")
    try:
        make = client_from  # type: ignore[assignment]
        web = make(arena, 2)
        first = web.get("/bots")
        assert first.status_code == 200 and "ann" in first.text
        for i in range(150):
            made_up = web.get(f"/bots?utm_source=x{i}&ref={i}")
            assert made_up.status_code == 200, f"load {i} with a made-up query: {made_up.status_code}"
            assert made_up.text == first.text
        for i in range(40):
            assert web.get(f"/api/ladder?nonce={i}").status_code in (200,), "the JSON API's kept answer too"
        refused = [web.get(f"/games?bot=nobody-{i}") for i in range(4)]
        statuses = [r.status_code for r in refused]
        assert 429 in statuses, f"renders past the budget were not refused: {statuses}"
        last = refused[statuses.index(429)]
        assert int(last.headers["retry-after"]) >= 1
        assert "rendering as many pages as it takes" in last.text
    finally:
        assert arena.stop() == 0


def test_an_address_past_its_bucket_and_everyone_past_theirs_get_429(tmp_path: Path, client_from: object) -> None:
    arena = serve(
        tmp_path, "--web-rate", "0.01", "--web-burst", "5", "--web-global-rate", "0.01", "--web-global-burst", "9"
    )
    try:
        make = client_from  # type: ignore[assignment]
        flooder = make(arena, 2)
        answers = [flooder.get("/api/bots") for _ in range(6)]
        assert [a.status_code for a in answers] == [200] * 5 + [429]
        refused = answers[-1]
        assert int(refused.headers["retry-after"]) >= 1
        error = refused.json()["error"]
        assert error["status"] == 429 and "too many requests from 127.0.0.2" in error["message"]
        assert make(arena, 3).get("/api/bots").status_code == 200, "another address has a bucket of its own"
        many = [make(arena, n).get("/") for n in range(4, 12)]
        statuses = [a.status_code for a in many]
        assert statuses == [200] * 3 + [429] * 5, "9 requests of everyone: 6 spent above, 3 left"
        page = many[-1]
        assert int(page.headers["retry-after"]) >= 1 and "as many requests as it takes" in page.text
    finally:
        assert arena.stop() == 0
