"""The web port's budgets (arena.web.rate_limits, arena.web.page_cache) against a real `scout-arena
serve` process, its clients on distinct loopback addresses (127.0.0.N, their sockets bound there):
made-up query strings render nothing and keep nothing new, renders past the shared budget are
refused, requests past an address's bucket or everyone's are answered 429 with Retry-After, and
25 addresses asking for every live-stream place leave one for a newcomer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import httpx2 as httpx
import pytest
from sqlmodel import Session

from arena.play.spectators import MAX_SPECTATORS, MAX_SPECTATORS_PER_ADDRESS
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.failure_policy import MAX_ABSENT_WAIT_MS, FailurePolicy
from arena.tournaments.settings import TournamentSettings
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


def test_25_addresses_cannot_take_every_live_place_and_a_newcomer_gets_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name="cup",
                table_size=2,
                games_per_table=1,
                starts_at=datetime.now(UTC) + timedelta(days=1),
                move_limit_ms=1000,
                policy=FailurePolicy(absent_wait_ms=MAX_ABSENT_WAIT_MS),
            ),
        )
        for name in ("ann", "bob"):
            store.register_bot(session=session, name=name)
            store.enter_tournament(session=session, tournament="cup", bot=name)
        store.start_tournament(session=session, tournament="cup")
        game = store.list_games(session=session, tournament="cup")[0].id
    engine.dispose()
    arena = ArenaProcess(url, tmp_path / "server.log", "--http-port", "0")
    assert arena.web is not None
    web = urlsplit(arena.web)

    async def watch() -> tuple[int, bytes, bytes]:
        """Open MAX_SPECTATORS_PER_ADDRESS live feeds of the waiting game from each of 25 addresses
        (held open), then one from a newcomer and one more from a flooder: how many the 25 got,
        and the newcomer's and the flooder's answers."""
        held = []

        async def feed(address: str) -> bytes:
            reader, writer = await asyncio.open_connection(web.hostname, web.port, local_addr=(address, 0))
            writer.write(f"GET /api/games/{game}/events HTTP/1.1\r\nHost: arena\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=30)
            held.append(writer)
            return head

        try:
            flooders = [f"127.0.0.{n}" for n in range(2, 27)]
            answers = [await feed(address) for address in flooders * MAX_SPECTATORS_PER_ADDRESS]
            watching = sum(head.startswith(b"HTTP/1.1 200") for head in answers)
            return watching, await feed("127.0.0.40"), await feed(flooders[0])
        finally:
            for writer in held:
                writer.close()

    try:
        watching, newcomer, flooder = asyncio.run(watch())
        assert watching < MAX_SPECTATORS, f"25 addresses took all {MAX_SPECTATORS} live places"
        assert newcomer.startswith(b"HTTP/1.1 200"), newcomer
        assert flooder.startswith(b"HTTP/1.1 429") and b"retry-after: " in flooder.lower(), flooder
    finally:
        assert arena.stop() == 0
