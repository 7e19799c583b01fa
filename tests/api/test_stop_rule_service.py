"""The stop rule at the edges (issue #16): CreateTournament takes it and refuses bad values with
INVALID_ARGUMENT and one line, ShowTournament reports rounds played and whether the tournament
settled or hit its cap, and `scout-arena tournament create --until-settled ... / show` do the
same on the command line, with one `error:` line for a mistake. A real server process."""

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
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import StopOutcome, StopRule
from sdk.wire import arena_pb2 as pb
from sdk.wire.arena_client import request
from tests.api.conftest import Client
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.tournaments.arena_process import ArenaProcess
from tests.tournaments.test_stop_rule_runner import EQUAL, StrengthReferee, play_scheduled

LATER = datetime.now(UTC) + timedelta(days=30)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaProcess, str]]:
    """A server on a database holding "capped": a stop-rule tournament of equal bots that played
    two rounds (6 games) and stopped at its cap, decided by `store.advance_stop_rule`."""
    path = tmp_path_factory.mktemp("stop")
    url = f"sqlite:///{path / 'arena.db'}"
    engine = open_database(url)
    referee = StrengthReferee(EQUAL)
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                "capped",
                3,
                1,
                datetime(2026, 1, 1, tzinfo=UTC),
                1000,
                seed=3,
                stop_rule=StopRule(confidence=0.9, max_games=8),
            ),
        )
        for bot in EQUAL:
            store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament="capped", bot=bot)
        store.start_tournament(session=session, tournament="capped")
        while store.show_tournament(session=session, tournament="capped").status is records.TournamentStatus.RUNNING:
            play_scheduled(session, "capped", referee)
            store.advance_stop_rule(session=session, tournament="capped")
    engine.dispose()
    server = ArenaProcess(url, path / "server.log")
    yield server, url
    assert server.stop() == 0


def test_show_reports_the_rounds_and_the_cap(arena: tuple[ArenaProcess, str], client: Client) -> None:
    engine = open_database(arena[1])
    with Session(engine) as session:
        held = store.show_tournament(session=session, tournament="capped")
    engine.dispose()
    reply = client("ShowTournament", request("ShowTournament", name="capped"))
    progress = reply.tournament.stop_progress
    assert (progress.rounds, progress.games, progress.outcome) == (2, 6, pb.STOP_OUTCOME_CAP_REACHED)
    assert [p.upper for p in progress.pairs] and not all(p.settled for p in progress.pairs)
    shown = client_wire.tournament_from_pb(reply.tournament)
    assert shown == held and shown.stop is not None and shown.stop.outcome is StopOutcome.CAP_REACHED
    listed = client_wire.LIST_TOURNAMENTS.read(client("ListTournaments", request("ListTournaments")), None)[0]
    assert [(t.stop_rule, t.stop) for t in listed] == [(StopRule(confidence=0.9, max_games=8), None)]


def test_create_takes_the_rule_and_fills_its_defaults(arena: tuple[ArenaProcess, str], client: Client) -> None:
    settings = TournamentSettings("until", 4, 1, LATER, 1000, stop_rule=StopRule(confidence=0.99, top=2))
    request = client_wire.settings_to_pb(settings)
    assert server_wire.settings_from_pb(request) == settings
    made = client_wire.tournament_from_pb(client("CreateTournament", request, arena[0].admin_token).tournament)
    assert made.stop_rule == StopRule(confidence=0.99, top=2, max_games=StopRule().max_games)
    bare = pb.CreateTournamentRequest(
        name="bare",
        table_size=3,
        games_per_table=1,
        move_limit_ms=1000,
        concurrency=1,
        starts_at=client_wire.settings_to_pb(settings).starts_at,
        stop_rule=pb.StopRule(),
    )
    assert (
        client_wire.tournament_from_pb(client("CreateTournament", bare, arena[0].admin_token).tournament).stop_rule
        == StopRule()
    )


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (pb.StopRule(confidence=1.5), "the stop rule's confidence must be within 0.5..0.9999, not 1.5"),
        (pb.StopRule(top=0), "the stop rule's top places must be at least 1, not 0"),
        (pb.StopRule(max_games=-3), "the stop rule's max games must be within 1..50000, not -3"),
    ],
)
def test_bad_rules_are_refused_in_one_line(
    arena: tuple[ArenaProcess, str], client: Client, rule: pb.StopRule, message: str
) -> None:
    request = client_wire.settings_to_pb(TournamentSettings("bad", 3, 1, LATER, 1000))
    request.stop_rule.CopyFrom(rule)
    assert client.refused("CreateTournament", request, arena[0].admin_token) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        message,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--confidence", "0.9"], "--confidence belongs to the stop rule: add --until-settled"),
        (["--max-games", "100"], "--max-games belongs to the stop rule: add --until-settled"),
        (["--until-settled", "--confidence", "2"], "the stop rule's confidence must be within 0.5..0.9999, not 2.0"),
        (["--until-settled", "--top", "0"], "the stop rule's top places must be at least 1, not 0"),
        (
            ["--until-settled", "--table-size", "2", "--max-games", "1"],
            "even 2 entrants would play 2 games a round, over the stop rule's cap of 1 (--max-games)",
        ),
    ],
)
def test_cli_mistakes_are_one_error_line(arena: tuple[ArenaProcess, str], args: list[str], message: str) -> None:
    code, output = arena_cli(
        "tournament",
        "create",
        "cli-bad",
        "--starts-at",
        "+1h",
        *args,
        "--server",
        arena[0].target,
        "--admin-token",
        arena[0].admin_token or "",
    )
    assert code == 1
    assert_one_line_error(output, message)


def test_cli_creates_and_shows_a_stop_rule_tournament(arena: tuple[ArenaProcess, str], tmp_path: Path) -> None:
    admin = ("--server", arena[0].target, "--admin-token", arena[0].admin_token or "")
    code, output = arena_cli(
        "tournament",
        "create",
        "cli-stop",
        "--starts-at",
        "+1h",
        "--until-settled",
        "--top",
        "3",
        "--max-games",
        "500",
        *admin,
    )
    assert code == 0, output
    assert "stop rule: a full round robin after another until settled" in output
    assert "settle the first 3 places at 0.95 confidence, at most 500 games" in output
    assert "neither above the other 60% of the time (margin 0.1)" in output
    assert "warning: a cap of 500 games settles at most" in output, "a field the cap cannot settle is warned of"
    code, output = arena_cli("tournament", "show", "capped", "--server", arena[0].target)
    assert code == 0, output
    assert "rounds played" in output and "2 (6 games): game cap reached before it settled" in output
    assert "places 1-2" in output and "places 2-3" in output
    code, output = arena_cli("tournament", "show", "capped", "--json", "--server", arena[0].target)
    document = json.loads(output)
    assert code == 0 and document["stop_rule"] == {"confidence": 0.9, "top": None, "max_games": 8, "margin": 0.1}
    assert (document["stop"]["rounds"], document["stop"]["outcome"]) == (2, "cap-reached")
    keys = {"upper", "lower", "above", "below", "settled", "equal", "games_needed"}
    assert [set(p) for p in document["stop"]["pairs"]] == [keys] * 2
    assert sorted(document["stop"]["order"]) == sorted(EQUAL)
    code, output = arena_cli("ratings", "--tournament", "capped", "--json", "--server", arena[0].target)
    assert code == 0 and json.loads(output)["stop"] == document["stop"]
    code, output = arena_cli("ratings", "--tournament", "capped", "--server", arena[0].target)
    assert code == 0 and "Stop rule after 2 rounds" in output and "open" in output
