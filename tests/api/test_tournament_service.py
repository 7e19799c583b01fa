"""The tournament calls of the Arena service against a real server process on a database: replies
that convert back to exactly what the store holds, errors as specific statuses with one-line
messages, the bot's own token for entering, the admin token kept as a hash, and the JSON export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from sqlmodel import Session

from arena import records
from arena.api import arena_wire as server_wire
from arena.cli import remote_wire as client_wire
from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage import store
from arena.storage.credentials import set_admin_token
from arena.storage.database import open_database
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.settings import TournamentSettings
from sdk.engine import GameRecord, replay
from sdk.wire.arena_client import request
from tests.api.conftest import Client
from tests.storage.helpers import play_all, random_result
from tests.tournaments.arena_process import ArenaProcess

LATER = datetime.now(UTC) + timedelta(days=30)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaProcess, str]]:
    """A server on a SQLite file that already holds a finished tournament ("played") with 4 bots;
    its first game has a voided attempt (a disconnect) and, as played again, a forfeit."""
    path = tmp_path_factory.mktemp("arena")
    url = f"sqlite:///{path / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        store.create_tournament(
            session=session, settings=TournamentSettings("played", 3, 1, datetime(2026, 1, 1, tzinfo=UTC), 1000, seed=5)
        )
        for bot in ("ann", "bob", "cy", "dee"):
            store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament="played", bot=bot)
        store.start_tournament(session=session, tournament="played")
        game = store.mark_game_running(session=session, game_id=store.next_games(session=session)[0].id)
        store.void_attempt(
            session=session,
            game_id=game.id,
            result=random_result(game, {1}, ForfeitCause.DISCONNECT, PolicyDecision.VOID),
        )
        replay = store.mark_game_running(session=session, game_id=game.id)
        store.commit_game(
            session=session,
            game_id=game.id,
            result=random_result(replay, {2}, ForfeitCause.DISCONNECT, PolicyDecision.CAP_REACHED),
        )
        play_all(session)
    engine.dispose()
    server = ArenaProcess(url, path / "server.log")
    yield server, url
    assert server.stop() == 0


def test_replies_convert_back_to_what_the_store_holds(arena: tuple[ArenaProcess, str], client: Client) -> None:
    engine = open_database(arena[1])
    with Session(engine) as session:
        tournament = store.show_tournament(session=session, tournament="played")
        bots = store.list_bots(session=session)
        ratings = store.rating_table(session=session, tournament="played")
        ladder = store.rating_table(session=session)
        games = store.list_games(session=session, tournament="played")
        detail = store.show_game(session=session, game_id=games[0].id)
    engine.dispose()
    show = request("ShowTournament", name="played")
    assert client_wire.tournament_from_pb(client("ShowTournament", show).tournament) == tournament
    assert (
        tournament in client_wire.LIST_TOURNAMENTS.read(client("ListTournaments", request("ListTournaments")), None)[0]
    )
    assert client_wire.LIST_BOTS.read(client("ListBots", request("ListBots")), None)[0] == bots
    assert client_wire.RATINGS.read(client("Ratings", request("Ratings", tournament="played")), None)[0] == ratings
    assert client_wire.RATINGS.read(client("Ratings", request("Ratings", tournament=None)), None)[0] == ladder
    listed = client("ListGames", request("ListGames", tournament="played", status=records.GameStatus.FINISHED))
    assert client_wire.LIST_GAMES.read(listed, None)[0] == games
    shown = client("ShowGame", request("ShowGame", id=games[0].id))
    assert client_wire.SHOW_GAME.read(shown, None) == detail
    assert detail.voided[0].result.seats[1].cause is ForfeitCause.DISCONNECT
    assert detail.info.results[2].policy is PolicyDecision.CAP_REACHED


def test_ratings_carry_rank_confidence_and_the_crosstable_comes_page_by_page(
    arena: tuple[ArenaProcess, str], client: Client
) -> None:
    engine = open_database(arena[1])
    with Session(engine) as session:
        booted = store.rating_table(session=session, tournament="played", bootstrap=30)
        crosstable = store.head_to_head(session=session, tournament="played")
    engine.dispose()
    admin = arena[0].admin_token  # the organiser's reads are not counted against the host's read limit
    reply = client("Ratings", request("Ratings", tournament="played", bootstrap_resamples=30), admin)
    assert client_wire.RATINGS.read(reply, None)[0] == booted
    assert not reply.rows[0].HasField("confidence") and all(r.HasField("bootstrap_confidence") for r in reply.rows[1:])
    pairs, token = [], ""
    while True:
        page = client("HeadToHead", request("HeadToHead", tournament="played", page_size=2, page_token=token), admin)
        assert len(page.pairs) <= 2
        pairs += client_wire.HEAD_TO_HEAD.read(page, None)[0]
        if not (token := page.next_page_token):
            break
    assert tuple(pairs) == crosstable.pairs and len(pairs) == 6
    assert client.refused("Ratings", request("Ratings", tournament="played", bootstrap_resamples=2000)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "bootstrap_resamples must be 0 to 1000, not 2000",
    )
    assert client.refused("Ratings", request("Ratings", tournament="played", bootstrap_resamples=-1)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "bootstrap_resamples must be 0 to 1000, not -1",
    )
    assert client.refused("HeadToHead", request("HeadToHead", tournament="nope"), admin) == (
        grpc.StatusCode.NOT_FOUND,
        "there is no tournament named 'nope'",
    )


def test_creating_needs_the_admin_token_and_round_trips_the_settings(
    arena: tuple[ArenaProcess, str], client: Client
) -> None:
    settings = TournamentSettings(
        "created",
        4,
        3,
        LATER,
        750,
        concurrency=2,
        seed=99,
        policy=FailurePolicy(
            absent_wait_ms=1234,
            grace_ms=2000,
            time_bank_ms=500,
            max_invalid=3,
            on_illegal=FailureAction.VOID,
            max_replays=4,
        ),
    )
    request = client_wire.settings_to_pb(settings)
    code, message = client.refused("CreateTournament", request)
    assert code is grpc.StatusCode.UNAUTHENTICATED and "admin token" in message
    assert client.refused("CreateTournament", request, "wrong")[0] is grpc.StatusCode.UNAUTHENTICATED
    made = client_wire.tournament_from_pb(client("CreateTournament", request, arena[0].admin_token).tournament)
    assert (
        made.name,
        made.table_size,
        made.games_per_table,
        made.starts_at,
        made.move_limit_ms,
        made.concurrency,
        made.seed,
        made.seed_nonce,
    ) == ("created", 4, 3, LATER, 750, 2, None, None)
    assert len(made.seed_commitment) == 64
    assert made.failure_policy == settings.policy
    assert made.status is records.TournamentStatus.SCHEDULED and made.games.total == 0
    assert server_wire.settings_from_pb(request) == settings


@pytest.mark.parametrize(
    ("method", "request_", "code", "message"),
    [
        (
            "ShowTournament",
            request("ShowTournament", name="nope"),
            grpc.StatusCode.NOT_FOUND,
            "there is no tournament named 'nope'",
        ),
        (
            "Ratings",
            request("Ratings", tournament="nope"),
            grpc.StatusCode.NOT_FOUND,
            "there is no tournament named 'nope'",
        ),
        ("ShowGame", request("ShowGame", id=10_000), grpc.StatusCode.NOT_FOUND, "there is no game 10000"),
        (
            "StartTournament",
            request("StartTournament", name="played"),
            grpc.StatusCode.FAILED_PRECONDITION,
            "tournament 'played' is already finished",
        ),
        (
            "CreateTournament",
            client_wire.settings_to_pb(TournamentSettings("played", 3, 1, LATER, 1000)),
            grpc.StatusCode.ALREADY_EXISTS,
            "a tournament named 'played' already exists",
        ),
        (
            "CreateTournament",
            client_wire.settings_to_pb(TournamentSettings("big", 6, 1, LATER, 1000)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "table size must be 2 to 5 players, not 6",
        ),
        (
            "CreateTournament",
            client_wire.settings_to_pb(TournamentSettings("quick", 3, 1, LATER, 5)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "move_limit_ms must be within 10..600000, not 5",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and " " not in v else None,
)
def test_errors_are_specific_statuses_with_one_line_messages(
    arena: tuple[ArenaProcess, str], client: Client, method: str, request_: object, code: grpc.StatusCode, message: str
) -> None:
    assert client.refused(method, request_, arena[0].admin_token) == (code, message)


def test_a_bot_enters_with_its_own_token_once_and_not_after_the_start(
    arena: tuple[ArenaProcess, str], client: Client
) -> None:
    admin = arena[0].admin_token
    client("CreateTournament", client_wire.settings_to_pb(TournamentSettings("open", 2, 1, LATER, 1000)), admin)
    enter = request("EnterTournament", tournament="open")
    assert client.refused("EnterTournament", enter)[0] is grpc.StatusCode.UNAUTHENTICATED
    assert client.refused("EnterTournament", enter, admin)[0] is grpc.StatusCode.UNAUTHENTICATED
    tokens = {name: client("RegisterBot", _register(name)).token for name in ("eve", "fay", "gus")}
    for _ in range(2):  # entering again is not an error
        reply = client("EnterTournament", enter, tokens["eve"])
        assert reply.bot == "eve" and list(reply.tournament.entrants) == ["eve"]
    client("EnterTournament", enter, tokens["fay"])
    started = client_wire.tournament_from_pb(
        client("StartTournament", request("StartTournament", name="open"), admin).tournament
    )
    assert started.status is records.TournamentStatus.RUNNING and started.games.total == 2
    assert client("EnterTournament", enter, tokens["fay"]).bot == "fay"  # a restarted entrant
    assert client.refused("EnterTournament", enter, tokens["gus"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "tournament 'open' has started: entries are closed",
    )
    assert (
        client.refused("EnterTournament", request("EnterTournament", tournament="nope"), tokens["gus"])[0]
        is grpc.StatusCode.NOT_FOUND
    )


def test_export_streams_every_finished_game_as_a_replayable_json_line(
    arena: tuple[ArenaProcess, str], client: Client
) -> None:
    lines = [m.game_json for m in client.stub.ExportGames(request("ExportGames", tournament="played"), timeout=10)]
    assert len(lines) == 4
    for line in lines:
        game = json.loads(line)
        assert "\n" not in line and game["tournament"] == "played"
        record = GameRecord.from_dict(game["record"])
        assert list(replay(record).totals) == [r["points"] for r in game["results"]]
        assert [r["bot"] for r in game["results"]] == game["seats"]
    first = json.loads(lines[0])
    assert (first["results"][2]["cause"], first["results"][2]["policy"]) == ("disconnect", "void-cap-reached")
    (voided,) = first["voided_attempts"]
    assert voided["attempt"] == 1 and voided["results"][1]["cause"] == "disconnect"
    assert voided["results"][1]["policy"] == "void" and GameRecord.from_dict(voided["record"]).seed == voided["seed"]
    assert voided["seed"] != first["seed"] == GameRecord.from_dict(first["record"]).seed
    assert all(json.loads(line)["voided_attempts"] == [] for line in lines[1:])
    with pytest.raises(grpc.RpcError) as caught:
        list(client.stub.ExportGames(request("ExportGames", tournament="nope"), timeout=10))
    assert caught.value.code() is grpc.StatusCode.NOT_FOUND


def test_the_admin_token_is_stored_as_a_hash_created_once_and_rotated_live(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    first = ArenaProcess(url, tmp_path / "server.log")
    assert first.stop() == 0
    token = first.admin_token
    assert token is not None and token.encode() not in (tmp_path / "arena.db").read_bytes()
    again = ArenaProcess(url, tmp_path / "server.log")
    client = Client(again.target)
    try:
        assert again.admin_token is None  # shown on the first start only
        request = client_wire.settings_to_pb(TournamentSettings("t", 2, 1, LATER, 1000))
        client("CreateTournament", request, token)
        engine = open_database(url)
        rotated = set_admin_token(engine)
        engine.dispose()
        assert client.refused("CreateTournament", request, token)[0] is grpc.StatusCode.UNAUTHENTICATED
        assert client.refused("CreateTournament", request, rotated)[0] is grpc.StatusCode.ALREADY_EXISTS
    finally:
        client.channel.close()
        assert again.stop() == 0


def _register(name: str) -> object:
    return request("RegisterBot", name=name)
