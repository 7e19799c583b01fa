"""The schema under Alembic (issue 12): a database made by the arena of schema version 3 is
refused until `db upgrade`, which brings it to the newest version with its data, in one transaction; a
new database is built by the same revisions; either equals the models exactly."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import alembic.command
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlmodel import Session, SQLModel

from arena.errors import SchemaCreationFailed, SchemaVersionMismatch, UpgradeNeeded
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.records import GameStatus, TournamentStatus
from arena.storage import migrations, store
from arena.storage.database import SchemaKind, database_state, open_database, upgrade_database
from arena.storage.migrations.__main__ import NOTHING, draft
from arena.storage.migrations.__main__ import main as migrations_main
from arena.storage.store.common import SPECTATOR_DELAY, STOP_RULE
from arena.storage.tables import SCHEMA_VERSION
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.fairness import commitment
from arena.tournaments.stop_rule import StopRule
from arena.tournaments.verification import verify
from tests.storage.conftest import postgres_schema
from tests.storage.legacy import load_v3, rows, snapshot


@pytest.fixture(params=["sqlite", "postgresql"])
def v3_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of each kind holding the version 3 fixture."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'v3.db'}"
        load_v3(url)
        yield url
        return
    with postgres_schema() as url:
        load_v3(url)
        yield url


def differences(url: str) -> list[object]:
    """What Alembic's autogenerate finds between the database at `url` and the models."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return list(compare_metadata(MigrationContext.configure(connection), SQLModel.metadata))
    finally:
        engine.dispose()


def test_a_version_3_database_is_refused_untouched_until_upgraded(v3_url: str) -> None:
    before = snapshot(v3_url)
    for create in (True, False):
        with pytest.raises(UpgradeNeeded) as refused:
            open_database(v3_url, create=create)
        message = str(refused.value)
        assert "has schema version 3, this arena needs 7: back it up, then run `scout-arena db upgrade --db " in message
        assert "\n" not in message
    assert snapshot(v3_url) == before
    state = database_state(v3_url)
    assert (state.kind, state.version, state.revision) == (SchemaKind.OUTDATED, 3, None)


def test_the_upgrade_keeps_the_data_and_the_arena_works_on_it(v3_url: str) -> None:
    bots = sorted(r[0] for r in rows(v3_url, "SELECT name FROM bots"))
    ratings = sorted(
        rows(
            v3_url,
            "SELECT b.name, r.tournament_id, r.mu, r.sigma, r.games, r.wins "
            "FROM ratings r JOIN bots b ON b.id = r.bot_id",
        ),
        key=repr,
    )
    records = dict(rows(v3_url, "SELECT id, record FROM games WHERE status = 'finished'"))
    assert bots and ratings and records, "the fixture holds bots, ratings and finished games"

    before, after = upgrade_database(v3_url)
    assert (before.kind, before.version) == (SchemaKind.OUTDATED, 3)
    assert (after.kind, after.version, after.revision) == (SchemaKind.CURRENT, SCHEMA_VERSION, "scout_arena_v7")
    assert differences(v3_url) == []

    engine = open_database(v3_url, create=False)
    try:
        with Session(engine) as session:
            assert sorted(b.name for b in store.list_bots(session=session)) == bots
            demo = store.show_tournament(session=session, tournament="demo")
            assert demo.status is TournamentStatus.FINISHED and demo.games.finished == len(records)
            assert (
                demo.seed is not None and demo.seed_nonce is not None and re.fullmatch("[0-9a-f]{64}", demo.seed_nonce)
            )
            assert demo.seed_commitment == commitment(demo.seed, demo.seed_nonce)
            assert demo.rounds is None and demo.max_entrants == 1000 and demo.failure is None
            games = [
                store.show_game(session=session, game_id=g.id)
                for g in store.list_games(session=session, tournament="demo", status=GameStatus.FINISHED)
            ]
            assert {g.info.id: g.record.to_json() for g in games if g.record} == records
            checked = verify(demo, games)
            assert checked.ok, checked.problems
            table = {
                (r.bot, 1, r.mu, r.sigma, r.games, r.wins)
                for r in store.rating_table(session=session, tournament="demo")
            }
            ladder = {
                (r.bot, None, r.mu, r.sigma, r.games, r.wins)
                for r in store.rating_table(session=session, tournament=None)
            }
            assert sorted(table | ladder, key=repr) == sorted(ratings, key=repr)

            store.register_bot(session=session, name="after-upgrade")
            later = store.start_tournament(session=session, tournament="later", now=datetime(2030, 1, 5, tzinfo=UTC))
            assert later.status is TournamentStatus.RUNNING and later.games.scheduled == later.games.total > 0
            assert later.seed_commitment == commitment(
                12345, rows(v3_url, "SELECT seed_nonce FROM tournaments WHERE name = 'later'")[0][0]
            )
    finally:
        engine.dispose()


def test_a_failed_upgrade_changes_nothing(v3_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The revisions run, then the database fails: everything they did is rolled back."""
    real = alembic.command.upgrade

    def upgrade_then_fail(config: object, revision: str) -> None:
        real(config, revision)  # type: ignore[arg-type]
        raise sa.exc.OperationalError("COMMIT", {}, Exception("disk I/O error"))

    before = snapshot(v3_url)
    monkeypatch.setattr(alembic.command, "upgrade", upgrade_then_fail)
    with pytest.raises(SchemaCreationFailed, match=r"^cannot upgrade .*: disk I/O error$"):
        upgrade_database(v3_url)
    assert snapshot(v3_url) == before
    assert database_state(v3_url).kind is SchemaKind.OUTDATED


def test_a_new_database_is_built_by_the_revisions_and_equals_the_models(database_url: str) -> None:
    open_database(database_url).dispose()
    state = database_state(database_url)
    assert (state.kind, state.version, state.revision) == (SchemaKind.CURRENT, SCHEMA_VERSION, "scout_arena_v7")
    assert rows(database_url, "SELECT version FROM schema_info") == [(SCHEMA_VERSION,)]
    assert differences(database_url) == []


def test_a_version_4_database_from_before_alembic_is_upgraded_in_place(database_url: str) -> None:
    """Made by `create_all`, as the arena did before migrations: recorded, its rows kept."""
    engine = sa.create_engine(database_url)
    SQLModel.metadata.create_all(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO schema_info (id, version) VALUES (1, 4)")
        connection.exec_driver_sql("INSERT INTO bots (name, token_hash, created_at) VALUES ('old', 'h', '2026-11-01')")
    engine.dispose()
    with pytest.raises(UpgradeNeeded, match="has schema version 4, this arena needs 7"):
        open_database(database_url)
    before, after = upgrade_database(database_url)
    assert (before.kind, before.revision, after.kind) == (SchemaKind.OUTDATED, None, SchemaKind.CURRENT)
    assert rows(database_url, "SELECT name FROM bots") == [("old",)]
    assert differences(database_url) == []


def at_revision(url: str, revision: str) -> None:
    """Bring the empty database at `url` to `revision` with the arena's revisions, as the arena of
    that version made it."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            config = Config()
            config.set_main_option("script_location", str(migrations.LOCATION))
            config.attributes["connection"] = connection
            alembic.command.upgrade(config, revision)
    finally:
        engine.dispose()


def test_a_version_6_database_keeps_every_setting_when_its_column_is_renamed(database_url: str) -> None:
    """Version 7 renames `tournaments.failure_policy`, which holds the failure policy, the stop rule
    and the spectator delay, to `settings`: each tournament reads back what it was created with."""
    at_revision(database_url, "scout_arena_v6")
    policy = FailurePolicy(on_timeout=FailureAction.VOID, max_replays=4, grace_ms=2500)
    rule = StopRule(confidence=0.9, top=2, max_games=300)
    kept = {**policy.to_json(), STOP_RULE: rule.to_json(), SPECTATOR_DELAY: 45}
    tournaments = sa.table(
        "tournaments",
        sa.column("failure_policy", sa.JSON),
        *map(sa.column, ("name", "table_size", "games_per_table", "starts_at", "move_limit_ms", "concurrency")),
        *map(sa.column, ("seed", "seed_nonce", "seed_commitment", "status", "max_entrants", "created_at")),
    )
    engine = sa.create_engine(database_url)
    with engine.begin() as connection:
        for name, stored in (("kept", kept), ("older", None)):
            connection.execute(
                tournaments.insert().values(
                    failure_policy=stored,
                    name=name,
                    table_size=2,
                    games_per_table=1,
                    starts_at=datetime(2030, 1, 1),
                    move_limit_ms=1000,
                    concurrency=1,
                    seed=7,
                    seed_nonce="0" * 64,
                    seed_commitment="0" * 64,
                    status="scheduled",
                    max_entrants=1000,
                    created_at=datetime(2026, 12, 1),
                )
            )
    engine.dispose()
    with pytest.raises(UpgradeNeeded, match="has schema version 6, this arena needs 7"):
        open_database(database_url)

    before, after = upgrade_database(database_url)
    assert (before.version, after.kind, after.version) == (6, SchemaKind.CURRENT, 7)
    assert differences(database_url) == []
    renamed = rows(database_url, "SELECT name, settings FROM tournaments")
    # SQLite's JSON reads as text, PostgreSQL's as values.
    assert {n: json.loads(v) if isinstance(v, str) else v for n, v in renamed} == {"kept": kept, "older": None}
    engine = open_database(database_url, create=False)
    try:
        with Session(engine) as session:
            shown = store.show_tournament(session=session, tournament="kept")
            assert (shown.failure_policy, shown.stop_rule, shown.spectator_delay_s) == (policy, rule, 45)
            older = store.show_tournament(session=session, tournament="older")
            assert (older.failure_policy, older.stop_rule, older.spectator_delay_s) == (
                FailurePolicy(),
                None,
                DEFAULT_SPECTATOR_DELAY_S,
            )
    finally:
        engine.dispose()


def test_a_database_of_a_newer_arena_is_refused(database_url: str) -> None:
    open_database(database_url).dispose()
    engine = sa.create_engine(database_url)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'scout_arena_v99'")
        connection.exec_driver_sql("UPDATE schema_info SET version = 99")
    engine.dispose()
    before = snapshot(database_url, beside=False)
    for attempt in (open_database, upgrade_database):
        with pytest.raises(
            SchemaVersionMismatch,
            match="has schema version 99 from a newer Scout Arena, this arena knows up to 7: use that arena's version",
        ):
            attempt(database_url)
    assert snapshot(database_url, beside=False) == before


def test_the_draft_of_the_next_revision_names_what_the_models_add() -> None:
    assert draft() == NOTHING
    extra = sa.Table("draft_probe", SQLModel.metadata, sa.Column("id", sa.Integer, primary_key=True))
    try:
        assert "op.create_table('draft_probe'" in draft()
    finally:
        SQLModel.metadata.remove(extra)


def test_the_draft_command_prints_and_refuses_other_words() -> None:
    assert migrations_main(["draft"]) == 0
    assert migrations_main(["drift"]) == 2
