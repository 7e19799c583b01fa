"""Entry control over gRPC and the command lines (issue #11): a tournament's entry cap, its entry
code (kept as a hash; missing or wrong is PERMISSION_DENIED), the game limit refusing an entrant
that would make a full round robin too large and settings that can never fit, a failed
tournament's status and reason in every view, and RegisterBot limited per peer."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from sqlmodel import Session, select

from arena import records
from arena.cli import remote_wire as client_wire
from arena.startup.arena import start_arena
from arena.startup.settings import ArenaSettings
from arena.storage import store
from arena.storage.database import open_database
from arena.storage.tables import TournamentRow
from arena.tournaments.entries import MAX_GAMES
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2, arena_pb2_grpc
from sdk.wire.arena_client import request
from tests.api.conftest import Client
from tests.cli.conftest import arena_cli, assert_one_line_error, bot_cli
from tests.tournaments.arena_process import ArenaProcess

LATER = datetime.now(UTC) + timedelta(days=30)
CODE = "friday-secret-42"


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaProcess, Path]]:
    """A server on a SQLite file holding 'huge' (2 seats, 10 games a table, 71 entrants: one more
    would pass the game limit) and 'broken' (failed at its start)."""
    path = tmp_path_factory.mktemp("entry")
    db = path / "arena.db"
    engine = open_database(f"sqlite:///{db}")
    with Session(engine) as session:
        store.create_tournament(session=session, settings=TournamentSettings("huge", 2, 10, LATER, 1000))
        store.create_tournament(session=session, settings=TournamentSettings("broken", 3, 1, LATER, 1000))
        for i in range(71):
            store.register_bot(session=session, name=f"z{i:02d}")
            store.enter_tournament(session=session, tournament="huge", bot=f"z{i:02d}")
        store.fail_tournament(session=session, tournament="broken", reason="starting failed: RecursionError: deep")
    engine.dispose()
    server = ArenaProcess(f"sqlite:///{db}", path / "server.log")
    yield server, db
    assert server.stop() == 0


@pytest.fixture
def client(arena: tuple[ArenaProcess, Path]) -> Iterator[Client]:
    c = Client(arena[0].target)
    yield c
    c.channel.close()


def create(client: Client, admin: str | None, settings: TournamentSettings) -> records.Tournament:
    return client_wire.tournament_from_pb(
        client("CreateTournament", client_wire.settings_to_pb(settings), admin).tournament
    )


def enter(tournament: str, code: str | None = None) -> arena_pb2.EnterTournamentRequest:
    return (
        request("EnterTournament", tournament=tournament)
        if code is None
        else arena_pb2.EnterTournamentRequest(tournament=tournament, entry_code=code)
    )


def test_an_invite_only_tournament_needs_its_entry_code(arena: tuple[ArenaProcess, Path], client: Client) -> None:
    server, db = arena
    made = create(client, server.admin_token, TournamentSettings("invited", 2, 1, LATER, 1000, entry_code=CODE))
    assert made.invite_only and made.max_entrants == 1000
    token = client("RegisterBot", request("RegisterBot", name="guest")).token
    assert client.refused("EnterTournament", enter("invited"), token) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "tournament 'invited' is invite-only: enter it with its entry code (--entry-code)",
    )
    assert client.refused("EnterTournament", enter("invited", "guess"), token) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "wrong entry code for tournament 'invited'",
    )
    reply = client("EnterTournament", enter("invited", CODE), token)
    assert list(reply.tournament.entrants) == ["guest"] and reply.tournament.invite_only
    engine = open_database(f"sqlite:///{db}")
    with Session(engine) as session:
        row = session.exec(select(TournamentRow).where(TournamentRow.name == "invited")).one()
        dump = "\n".join(session.connection().connection.iterdump())  # type: ignore[attr-defined]
    engine.dispose()
    assert row.entry_code_hash == hashlib.sha256(CODE.encode()).hexdigest() and CODE not in dump


def test_entries_beyond_max_entrants_are_refused(arena: tuple[ArenaProcess, Path], client: Client) -> None:
    made = create(client, arena[0].admin_token, TournamentSettings("pair", 2, 1, LATER, 1000, max_entrants=2))
    assert made.max_entrants == 2 and not made.invite_only
    tokens = [client("RegisterBot", request("RegisterBot", name=f"p{i}")).token for i in range(3)]
    for token in tokens[:2]:
        client("EnterTournament", enter("pair"), token)
    assert client.refused("EnterTournament", enter("pair"), tokens[2]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "tournament 'pair' is full (2 entrants)",
    )


def test_an_entrant_that_would_pass_the_game_limit_is_refused_with_the_fix(
    arena: tuple[ArenaProcess, Path], client: Client, tmp_path: Path
) -> None:
    message = (
        f"tournament 'huge' is full: 72 entrants would play 51120 games, over the arena's limit of "
        f"{MAX_GAMES}; create it with --rounds N for a bounded number of games per bot"
    )
    token = client("RegisterBot", request("RegisterBot", name="late")).token
    assert client.refused("EnterTournament", enter("huge"), token) == (grpc.StatusCode.FAILED_PRECONDITION, message)
    code, output = bot_cli("run", "random", "--tournament", "huge", "--target", arena[0].target, "--token", token)
    assert code == 1
    assert_one_line_error(output, f"the arena refused RandomBot: FAILED_PRECONDITION: {message}")


def test_settings_that_can_never_fit_are_refused_at_creation(arena: tuple[ArenaProcess, Path], client: Client) -> None:
    request = client_wire.settings_to_pb(TournamentSettings("never", 2, 5, LATER, 1000, rounds=6000))
    assert client.refused("CreateTournament", request, arena[0].admin_token) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        f"even 2 entrants would play 60000 games, over the arena's limit of {MAX_GAMES}: "
        "use fewer games per table or fewer rounds",
    )
    code, output = arena_cli(
        "tournament",
        "create",
        "never",
        "--starts-at",
        "+1d",
        "--table-size",
        "2",
        "--games-per-table",
        "5",
        "--rounds",
        "6000",
        "--server",
        arena[0].target,
        "--admin-token",
        arena[0].admin_token or "",
    )
    assert code == 1
    assert_one_line_error(output, "even 2 entrants would play 60000 games")
    code, output = arena_cli(
        "tournament",
        "create",
        "tiny",
        "--starts-at",
        "+1d",
        "--max-entrants",
        "1",
        "--server",
        arena[0].target,
        "--admin-token",
        arena[0].admin_token or "",
    )
    assert code == 1
    assert_one_line_error(output, "max entrants must be 4 (one full table) to 1000, not 1")


def test_the_entry_code_reaches_the_arena_from_scout_bot(arena: tuple[ArenaProcess, Path], client: Client) -> None:
    create(client, arena[0].admin_token, TournamentSettings("club", 2, 1, LATER, 1000, entry_code=CODE))
    token = client("RegisterBot", request("RegisterBot", name="member")).token
    base = ("run", "random", "--tournament", "club", "--target", arena[0].target, "--token", token)
    code, output = bot_cli(*base)
    assert code == 1 and "PERMISSION_DENIED: tournament 'club' is invite-only" in output
    code, output = bot_cli(*base, "--entry-code", "nope")
    assert code == 1 and "PERMISSION_DENIED: wrong entry code for tournament 'club'" in output
    code, output = bot_cli(*base, env={"SCOUT_ARENA_ENTRY_CODE": "still-nope"})
    assert code == 1 and "PERMISSION_DENIED: wrong entry code for tournament 'club'" in output


def test_a_failed_tournament_shows_its_reason_and_cannot_be_started(
    arena: tuple[ArenaProcess, Path], client: Client
) -> None:
    server, db = arena
    reason = "starting failed: RecursionError: deep"
    assert client.refused("StartTournament", request("StartTournament", name="broken"), server.admin_token) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        f"tournament 'broken' failed: {reason}",
    )
    shown = client_wire.tournament_from_pb(
        client("ShowTournament", request("ShowTournament", name="broken")).tournament
    )
    assert shown.status is records.TournamentStatus.FAILED and shown.failure == reason
    token = client("RegisterBot", request("RegisterBot", name="too-late")).token
    assert client.refused("EnterTournament", enter("broken"), token) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        f"tournament 'broken' failed: {reason}",
    )
    for where in (("--server", server.target), ("--db", str(db))):
        code, listed = arena_cli("tournament", "list", *where, env={"COLUMNS": "250"})
        assert code == 0 and "failed" in listed and reason in listed
        code, output = arena_cli("tournament", "show", "broken", *where, env={"COLUMNS": "250"})
        assert code == 0 and f"failed: {reason}" in output
    code, output = arena_cli("tournament", "start", "broken", "--db", str(db))
    assert code == 1
    assert_one_line_error(output, f"tournament 'broken' failed: {reason}")


def test_registration_is_limited_per_peer() -> None:
    async def main() -> list[tuple[grpc.StatusCode, str]]:
        arena = await start_arena(ArenaSettings(port=0, registrations_per_minute=3))
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{arena.port}") as channel:
                stub = arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]
                outcomes = []
                for i in range(5):
                    try:
                        await stub.RegisterBot(request("RegisterBot", name=f"flood-{i}"), timeout=10)
                        outcomes.append((grpc.StatusCode.OK, ""))
                    except grpc.aio.AioRpcError as exc:
                        outcomes.append((exc.code(), exc.details() or ""))
                return outcomes
        finally:
            await arena.stop(grace=0.5)

    outcomes = asyncio.run(main())
    assert [code for code, _ in outcomes] == [grpc.StatusCode.OK] * 3 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    assert outcomes[3][1] == "too many registrations from 127.0.0.1: try again in 20 s"
