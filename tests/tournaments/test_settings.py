"""A tournament's failure policy as settings (issue #6: "the tournament chooses, per cause, whether
the seat forfeits or the game is voided and replayed ... Document the defaults"): the defaults,
the round trip through storage, protobuf and the CLI, older stored policies, and bad values."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from arena.api import arena_wire as server_wire
from arena.cli import remote_wire as client_wire
from arena.errors import InvalidSetting
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.settings import TournamentSettings
from sdk.engine import Game, record_of
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.storage.helpers import random_result, running_tournament

FORFEIT, VOID = FailureAction.FORFEIT, FailureAction.VOID
CUSTOM = FailurePolicy(
    absent_wait_ms=1000,
    grace_ms=200,
    time_bank_ms=50,
    max_invalid=2,
    on_timeout=VOID,
    on_illegal=VOID,
    on_disconnect=FORFEIT,
    on_absent=VOID,
    max_replays=0,
)
SETTINGS = TournamentSettings("t", 3, 1, datetime(2030, 1, 1, tzinfo=UTC), 1000, seed=1, policy=CUSTOM)


def test_the_documented_defaults() -> None:
    """docs/reliability.md and docs/operator-guide.md state these; change them together."""
    policy = FailurePolicy()
    assert {cause: policy.action(cause) for cause in ForfeitCause} == {
        ForfeitCause.TIMEOUT: FORFEIT,
        ForfeitCause.ILLEGAL: FORFEIT,
        ForfeitCause.DISCONNECT: VOID,
        ForfeitCause.ABSENT: FORFEIT,
    }
    assert policy.max_replays == 2
    docs = Path(__file__).resolve().parents[2] / "docs"
    for page in ("reliability.md", "operator-guide.md"):
        text = (docs / page).read_text()
        for line in (
            "| `on_timeout` | forfeit |",
            "| `on_illegal` | forfeit |",
            "| `on_disconnect` | void |",
            "| `on_absent` | forfeit |",
            "| `max_replays` | 2 |",
        ):
            assert line in text, f"{page} lacks {line!r}"


@pytest.mark.parametrize("policy", [FailurePolicy(), CUSTOM], ids=["defaults", "custom"])
def test_the_policy_round_trips_through_json_storage_and_protobuf(tmp_path: Path, policy: FailurePolicy) -> None:
    assert FailurePolicy.from_json(policy.to_json()) == policy
    settings = TournamentSettings("t", 3, 1, datetime(2030, 1, 1, tzinfo=UTC), 1000, seed=1, policy=policy)
    assert server_wire.settings_from_pb(client_wire.settings_to_pb(settings)) == settings
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with Session(engine) as session:
        stored = store.create_tournament(session=session, settings=settings)
    engine.dispose()
    assert stored.failure_policy == policy
    assert client_wire.tournament_from_pb(server_wire.tournament_to_pb(stored)) == stored


def test_a_policy_stored_before_the_per_cause_choices_loads_with_the_defaults() -> None:
    old = {"absent_wait_ms": 500, "grace_ms": 300, "time_bank_ms": 0, "max_invalid": 5}
    assert FailurePolicy.from_json(old) == FailurePolicy(absent_wait_ms=500, grace_ms=300, time_bank_ms=0)
    assert server_wire.settings_from_pb(client_wire.settings_to_pb(SETTINGS)).policy == CUSTOM
    request = client_wire.settings_to_pb(SETTINGS)
    request.failure_policy.ClearField("on_absent")
    request.failure_policy.ClearField("max_replays")
    assert server_wire.settings_from_pb(request).policy == FailurePolicy.from_json(
        {**CUSTOM.to_json(), "on_absent": "forfeit", "max_replays": 2}
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"on_timeout": "maybe"}, "on_timeout must be 'forfeit' or 'void', not 'maybe'"),
        ({"on_absent": 1}, "on_absent must be 'forfeit' or 'void', not 1"),
        ({"max_replays": 11}, "max_replays must be within 0..10, not 11"),
        ({"max_replays": -1}, "max_replays must be within 0..10, not -1"),
        ({"max_replays": "2"}, "failure policy settings must be whole numbers: {'max_replays': '2'}"),
        ({"on_crash": "void"}, "unknown failure policy settings: on_crash"),
    ],
)
def test_bad_values_are_refused_with_what_is_wrong(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidSetting) as caught:
        FailurePolicy.from_json(data)
    assert str(caught.value) == message


def test_an_unspecified_action_over_grpc_is_refused() -> None:
    request = client_wire.settings_to_pb(SETTINGS)
    request.failure_policy.on_disconnect = 0
    with pytest.raises(InvalidSetting, match="on_disconnect must be FAILURE_ACTION_FORFEIT or FAILURE_ACTION_VOID"):
        server_wire.settings_from_pb(request)


def result_with(causes: dict[int, ForfeitCause]) -> GameResult:
    game = Game(3, 5)
    while not game.is_over:
        game.apply(game.to_move, game.legal_actions()[0])
    seats = tuple(
        SeatResult(s, f"b{s}", game.totals[s], 1, *((c.value, c) if (c := causes.get(s)) else ())) for s in range(3)
    )
    return GameResult(record_of(game), seats)


@pytest.mark.parametrize(
    ("voided", "expected", "void"),
    [
        (0, {0: PolicyDecision.FORFEIT, 1: PolicyDecision.VOID}, True),
        (1, {0: PolicyDecision.FORFEIT, 1: PolicyDecision.VOID}, True),
        (2, {0: PolicyDecision.FORFEIT, 1: PolicyDecision.CAP_REACHED}, False),
        (5, {0: PolicyDecision.FORFEIT, 1: PolicyDecision.CAP_REACHED}, False),
    ],
)
def test_judging_a_result_per_cause_and_the_replay_cap(
    voided: int, expected: dict[int, PolicyDecision], void: bool
) -> None:
    judged = FailurePolicy().judge(result_with({0: ForfeitCause.TIMEOUT, 1: ForfeitCause.DISCONNECT}), voided)
    assert {s.seat: s.policy for s in judged.seats if s.policy is not None} == expected
    assert judged.seats[2].policy is None
    assert judged.voided is void


def test_the_cli_creates_a_tournament_with_a_policy_and_shows_it(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    open_database(f"sqlite:///{db}").dispose()
    code, output = arena_cli(
        "tournament",
        "create",
        "cup",
        "--starts-at",
        "+1h",
        "--on-timeout",
        "void",
        "--on-disconnect",
        "forfeit",
        "--max-replays",
        "1",
        "--db",
        db,
    )
    assert code == 0, output
    shown = [line.rstrip().split(maxsplit=2)[1:] for line in output.splitlines() if line.startswith("on ")]
    assert shown == [
        ["timeout", "void the game and play it again"],
        ["illegal", "forfeit the seat"],
        ["disconnect", "forfeit the seat"],
        ["absent", "forfeit the seat"],
    ]
    assert "a game is voided at most 1 times, then its failures forfeit" in output
    engine = open_database(f"sqlite:///{db}")
    with Session(engine) as session:
        stored = store.show_tournament(session=session, tournament="cup").failure_policy
    engine.dispose()
    assert stored == FailurePolicy(on_timeout=VOID, on_disconnect=FORFEIT, max_replays=1)


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--on-timeout", "maybe"], 2, "Invalid value for '--on-timeout'"),
        (["--max-replays", "11"], 1, "max_replays must be within 0..10, not 11"),
        (["--max-replays", "x"], 2, "Invalid value for '--max-replays'"),
    ],
)
def test_bad_policy_options_at_the_cli_are_one_line_errors(
    tmp_path: Path, args: list[str], status: int, message: str
) -> None:
    open_database(f"sqlite:///{tmp_path / 'arena.db'}").dispose()
    code, output = arena_cli(
        "tournament", "create", "cup", "--starts-at", "+1h", *args, "--db", str(tmp_path / "arena.db")
    )
    assert code == status
    assert_one_line_error(output, message)


def test_games_show_and_list_tell_voided_attempts_and_causes(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(f"sqlite:///{db}")
    with Session(engine) as session:
        running_tournament(session, bots=3, table_size=3)
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
            result=random_result(replay, {1}, ForfeitCause.DISCONNECT, PolicyDecision.CAP_REACHED),
        )
    engine.dispose()
    code, output = arena_cli("games", "show", str(game.id), "--db", db)
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0].endswith("played 2 times (the others were interrupted or voided)")
    assert f"seed {replay.seed}, 3 players" in lines[0]
    assert lines[1].startswith(f"Attempt 1 (seed {game.seed}) voided ") and lines[1].endswith(
        f": {game.seats[1]} (seat 1) disconnect: as the test says [void]"
    )
    code, output = arena_cli("games", "list", "--db", db)
    assert code == 0 and "(3, forfeit: disconnect, void-cap-reached)" in re.sub(r"[│\s]+", " ", output), output
