"""Pagination of every list and export call against a real server process on a database: pages
concatenate to the whole list, an oversized page is refused, a token the arena did not issue (or
issued for another list) is refused, and the command-line client follows pages so a command shows
what it showed before."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlmodel import Session

from arena import records
from arena.cli import remote as remote_client
from arena.cli import remote_wire as client_wire
from arena.cli.local import LocalArena
from arena.cli.remote import RemoteArena
from arena.cli.remote_wire import Page
from arena.page_tokens import MAX_PAGE_SIZE
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2_grpc
from sdk.wire.arena_client import Call, request
from tests.storage.helpers import play_all, running_tournament
from tests.tournaments.arena_process import ArenaProcess


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaProcess, str]]:
    """A server on a database holding 8 bots, 6 tournaments and 25 finished games (20 of "cup"):
    nothing for its runner to play, so every list stays as it is."""
    path = tmp_path_factory.mktemp("paged")
    url = f"sqlite:///{path / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        running_tournament(session, 5, 3, 4, name="cup")
        running_tournament(session, 5, 3, 1, name="plate")
        play_all(session)
        for i in range(3):
            store.register_bot(session=session, name=f"extra-{i}")
        for i in range(4):
            store.create_tournament(
                session=session,
                settings=TournamentSettings(
                    name=f"later-{i}",
                    table_size=2,
                    games_per_table=1,
                    starts_at=datetime(2030, 1, 1, tzinfo=UTC) + timedelta(hours=i % 2),
                    move_limit_ms=1000,
                ),
            )
    engine.dispose()
    server = ArenaProcess(url, path / "server.log")
    yield server, url
    assert server.stop() == 0


@dataclass(frozen=True)
class Listing:
    """One list call of the CLI (`arena.cli.remote_wire`), with the scope it asks for."""

    call: Call[Page[Any]]
    scope: dict[str, Any]

    @property
    def method(self) -> str:
        return self.call.method

    def request(self, size: int, token: str) -> Any:
        return self.call.request(page_size=size, page_token=token, **self.scope)


LISTINGS = {
    "tournaments": Listing(client_wire.LIST_TOURNAMENTS, {}),
    "bots": Listing(client_wire.LIST_BOTS, {}),
    "ladder": Listing(client_wire.RATINGS, {"tournament": None}),
    "cup ratings": Listing(client_wire.RATINGS, {"tournament": "cup"}),
    "ladder head-to-head": Listing(client_wire.HEAD_TO_HEAD, {"tournament": None}),
    "cup head-to-head": Listing(client_wire.HEAD_TO_HEAD, {"tournament": "cup"}),
    "games": Listing(client_wire.LIST_GAMES, {"tournament": None, "status": None}),
    "finished cup games": Listing(client_wire.LIST_GAMES, {"tournament": "cup", "status": records.GameStatus.FINISHED}),
}


@pytest.fixture
def stub(arena: tuple[ArenaProcess, str]) -> Iterator[Any]:
    with grpc.insecure_channel(arena[0].target) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]


def whole(url: str, name: str) -> list[Any]:
    """What the store holds for a listing, read in one go."""
    local = LocalArena.open(url.removeprefix("sqlite:///"))
    try:
        return {
            "tournaments": local.tournaments,
            "bots": local.bots,
            "ladder": lambda: local.ratings(None),
            "cup ratings": lambda: local.ratings("cup"),
            "games": lambda: local.games(None, None),
            "ladder head-to-head": lambda: list(local.head_to_head(None).pairs),
            "cup head-to-head": lambda: list(local.head_to_head("cup").pairs),
            "finished cup games": lambda: local.games("cup", records.GameStatus.FINISHED),
        }[name]()
    finally:
        local.close()


@pytest.mark.parametrize("name", LISTINGS)
@pytest.mark.parametrize("size", [1, 3])
def test_pages_concatenate_to_the_whole_list(arena: tuple[ArenaProcess, str], stub: Any, name: str, size: int) -> None:
    listing = LISTINGS[name]
    expected = whole(arena[1], name)
    items: list[Any] = []
    token = ""
    for _ in range(len(expected) + 2):
        reply = getattr(stub, listing.method)(listing.request(size, token), timeout=10)
        page, token = listing.call.read(reply, None)
        assert len(page) <= size
        items += page
        if not token:
            break
    assert len(expected) > size and items == expected


def test_the_default_page_is_the_whole_list_when_it_is_short(arena: tuple[ArenaProcess, str], stub: Any) -> None:
    reply = stub.ListGames(request("ListGames", tournament=None, status=None), timeout=10)
    assert client_wire.LIST_GAMES.read(reply, None)[0] == whole(arena[1], "games") and reply.next_page_token == ""


def refusal(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        result = call()
        if not hasattr(result, "SerializeToString"):
            list(result)  # an export stream
    return refused.value.code(), refused.value.details()


@pytest.mark.parametrize("name", LISTINGS)
def test_a_page_larger_than_the_maximum_is_refused(stub: Any, name: str) -> None:
    listing = LISTINGS[name]
    code, message = refusal(lambda: getattr(stub, listing.method)(listing.request(MAX_PAGE_SIZE + 1, ""), timeout=10))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert message == f"page_size must be 0 (the default, 100) to {MAX_PAGE_SIZE}, not {MAX_PAGE_SIZE + 1}"


@pytest.mark.parametrize("name", LISTINGS)
def test_a_forged_or_borrowed_token_is_refused(stub: Any, name: str) -> None:
    listing = LISTINGS[name]
    other = "bots" if name != "bots" else "games"
    borrowed = getattr(stub, LISTINGS[other].method)(LISTINGS[other].request(1, ""), timeout=10).next_page_token
    real = getattr(stub, listing.method)(listing.request(1, ""), timeout=10).next_page_token
    cursor, tag = real.split(".")
    for token in (borrowed, f"{int(cursor) + 1}.{tag}", "1." + "0" * 32, "x" * 5000, "-1"):
        code, message = refusal(
            lambda token=token: getattr(stub, listing.method)(listing.request(1, token), timeout=10)
        )
        assert code is grpc.StatusCode.INVALID_ARGUMENT, token
        assert token not in message
        if len(token) < 256:  # a longer one is refused for its length, at the boundary (arena.api.boundary)
            assert message.startswith("page_token was not issued by this arena for this list"), message


def exported(stub: Any, size: int, token: str, tournament: str | None = "cup") -> list[Any]:
    return list(
        stub.ExportGames(request("ExportGames", tournament=tournament, page_size=size, page_token=token), timeout=10)
    )


def test_export_pages_continue_from_each_games_token(arena: tuple[ArenaProcess, str], stub: Any) -> None:
    local = LocalArena.open(arena[1].removeprefix("sqlite:///"))
    try:
        expected = list(local.export("cup"))
    finally:
        local.close()
    lines: list[str] = []
    token = ""
    for _ in range(len(expected)):
        messages = exported(stub, 7, token)
        assert len(messages) <= 7
        lines += [m.game_json for m in messages]
        if len(messages) < 7:
            break
        token = messages[-1].page_token
    assert len(expected) == 20 and lines == expected
    assert [json.loads(line)["id"] for line in lines] == [g.id for g in whole(arena[1], "finished cup games")]
    code, _ = refusal(lambda: exported(stub, MAX_PAGE_SIZE + 1, ""))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    code, message = refusal(lambda: exported(stub, 5, token, tournament=None))
    assert code is grpc.StatusCode.INVALID_ARGUMENT and message.startswith("page_token was not issued")


def test_the_command_line_client_follows_pages(
    arena: tuple[ArenaProcess, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(remote_client, "ITEMS_PER_UNIT", 1)
    monkeypatch.setattr(remote_client, "MAX_PAGE_SIZE", 2)
    remote = RemoteArena(arena[0].target)
    local = LocalArena.open(arena[1].removeprefix("sqlite:///"))
    try:
        assert remote.tournaments() == local.tournaments()
        assert remote.bots() == local.bots()
        assert remote.ratings(None) == local.ratings(None) and remote.ratings("cup") == local.ratings("cup")
        assert remote.games(None, None) == local.games(None, None)
        assert list(remote.export(None)) == list(local.export(None))
    finally:
        remote.close()
        local.close()
