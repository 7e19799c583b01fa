"""Stored names are shown as they are, never read as rich markup: a database holding names from
before the name rule (markup such as `[/]`, spaces) lists, shows and addresses them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session, select

from arena.storage import store
from arena.storage.database import open_database
from arena.storage.tables import BotRow, TournamentRow
from arena.tournaments.settings import TournamentSettings
from tests.cli.conftest import arena_cli, bot_cli

MARKUP = "[/]"
SPACES = "Friday Cup"
BOT = "[bold red]evil[/]"


@pytest.fixture
def old_database(tmp_path: Path) -> Path:
    """A SQLite file with tournaments and a bot named as the old rules allowed, the names written
    straight into their rows: the store no longer creates such names."""
    path = tmp_path / "old.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        for name in ("alice", "bob"):
            store.register_bot(session=session, name=name)
        for name in ("first", "second"):
            store.create_tournament(
                session=session,
                settings=TournamentSettings(
                    name=name,
                    table_size=2,
                    games_per_table=1,
                    starts_at=datetime(2030, 1, 1, tzinfo=UTC),
                    move_limit_ms=1000,
                ),
            )
            for bot in ("alice", "bob"):
                store.enter_tournament(session=session, tournament=name, bot=bot)
        for old, new in (("first", MARKUP), ("second", SPACES)):
            session.exec(select(TournamentRow).where(TournamentRow.name == old)).one().name = new
        session.exec(select(BotRow).where(BotRow.name == "bob")).one().name = BOT
        session.commit()
        store.start_tournament(session=session, tournament=MARKUP)
    engine.dispose()
    return path


def test_names_with_markup_or_spaces_are_listed_shown_and_addressed(old_database: Path) -> None:
    db = str(old_database)
    for args in (
        ("tournament", "list"),
        ("tournament", "show", MARKUP),
        ("tournament", "show", SPACES),
        ("bot", "list"),
        ("ratings", "--tournament", MARKUP),
        ("games", "list", "--tournament", MARKUP),
        ("tournament", "start", SPACES),
    ):
        status, output = arena_cli(*args, "--db", db)
        assert status == 0, (args, output)
        assert "Traceback" not in output
    assert MARKUP in arena_cli("tournament", "list", "--db", db)[1]
    shown = arena_cli("tournament", "show", MARKUP, "--db", db)[1]
    assert MARKUP in shown and BOT in shown
    assert BOT in arena_cli("games", "list", "--db", db)[1]
    assert BOT in arena_cli("bot", "list", "--db", db)[1]


def test_a_bot_named_with_markup_is_shown_as_it_is_by_scout_bot(tmp_path: Path) -> None:
    source = tmp_path / "markup_bot.py"
    source.write_text(
        "from sdk import Bot\n\n\nclass MarkupBot(Bot):\n"
        f"    name = {MARKUP!r}\n\n    def choose(self, obs):\n        return obs.legal_actions[0]\n"
    )
    for args in (("play", str(source), "--games", "2"), ("check", str(source), "--games", "1")):
        status, output = bot_cli(*args)
        assert status == 0, (args, output)
        assert MARKUP in output, (args, output)
