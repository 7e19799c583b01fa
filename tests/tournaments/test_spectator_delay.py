"""A tournament's spectator delay (issue #14: live games "with a configurable delay that the
organiser sets per tournament"): its default, the round trip through storage, protobuf and the
CLI, a tournament stored before the setting, and bad values."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session, select

from arena.api import arena_wire as served
from arena.cli import remote_wire as client
from arena.errors import InvalidSetting
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.storage import store
from arena.storage.database import open_database
from arena.storage.tables import TournamentRow
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2 as pb
from tests.cli.conftest import arena_cli, assert_one_line_error

START = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("delay", [0, DEFAULT_SPECTATOR_DELAY_S, 3600])
def test_the_delay_round_trips_through_protobuf_and_storage(tmp_path: Path, delay: int) -> None:
    settings = TournamentSettings("t", 3, 1, START, 1000, seed=1, spectator_delay_s=delay)
    assert served.settings_from_pb(client.settings_to_pb(settings)) == settings
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with Session(engine) as session:
        stored = store.create_tournament(session=session, settings=settings)
        assert store.show_tournament(session=session, tournament="t").spectator_delay_s == delay
        assert [t.spectator_delay_s for t in store.list_tournaments(session=session)] == [delay]
    engine.dispose()
    assert stored.spectator_delay_s == delay
    assert stored.failure_policy == settings.policy, "the delay is not part of the failure policy"
    assert client.tournament_from_pb(served.tournament_to_pb(stored)) == stored


def test_a_request_without_a_delay_gets_the_default() -> None:
    request = client.settings_to_pb(TournamentSettings("t", 3, 1, START, 1000))
    request.ClearField("spectator_delay_s")
    assert served.settings_from_pb(request).spectator_delay_s == DEFAULT_SPECTATOR_DELAY_S
    assert pb.CreateTournamentRequest().HasField("spectator_delay_s") is False


def test_a_tournament_stored_before_the_setting_has_the_default(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with Session(engine) as session:
        store.create_tournament(
            session=session, settings=TournamentSettings("old", 3, 1, START, 1000, spectator_delay_s=5)
        )
        row = session.exec(select(TournamentRow)).one()
        row.settings = None  # as every tournament created before the delay existed
        session.add(row)
        session.commit()
        assert store.show_tournament(session=session, tournament="old").spectator_delay_s == DEFAULT_SPECTATOR_DELAY_S
    engine.dispose()


@pytest.mark.parametrize("delay", [-1, 3601])
def test_a_delay_out_of_range_is_refused(tmp_path: Path, delay: int) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with Session(engine) as session, pytest.raises(InvalidSetting, match=rf"within 0\.\.3600 s, not {delay}"):
        store.create_tournament(
            session=session, settings=TournamentSettings("t", 3, 1, START, 1000, spectator_delay_s=delay)
        )
    engine.dispose()


def test_the_cli_sets_the_delay_and_shows_it(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    open_database(f"sqlite:///{db}").dispose()
    code, output = arena_cli("tournament", "create", "cup", "--starts-at", "+1h", "--spectator-delay", "45", "--db", db)
    assert code == 0, output
    assert "see each move 45 s after it is played" in output
    code, output = arena_cli(
        "tournament", "create", "cup2", "--starts-at", "+1h", "--spectator-delay", "-3", "--db", db
    )
    assert code == 1
    assert_one_line_error(output, "the spectator delay must be within 0..3600 s, not -3")
