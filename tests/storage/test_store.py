"""Bots, tournaments, entries, the stored schedule and the game queue (issue 4), on both databases."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from arena import records
from arena.errors import (
    AlreadyEntered,
    DuplicateName,
    EntriesClosed,
    GameNotScheduled,
    InvalidName,
    InvalidSetting,
    NotEnoughEntrants,
    TournamentAlreadyStarted,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.storage import store
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.fairness import commitment
from arena.tournaments.schedule import game_seed, round_robin, schedule_seed
from arena.tournaments.settings import TournamentSettings
from tests.storage.helpers import START, running_tournament


def create(session: Session, name: str = "cup", **settings: object) -> records.Tournament:
    values: dict[str, object] = dict(table_size=3, games_per_table=2, starts_at=START, move_limit_ms=500)
    values.update(settings)
    return store.create_tournament(session=session, settings=TournamentSettings(name=name, **values))  # type: ignore[arg-type]


def test_a_token_authenticates_its_bot_and_is_never_stored(session: Session) -> None:
    registration = store.register_bot(session=session, name="alice")
    store.register_bot(session=session, name="bob")
    assert store.authenticate(session=session, token=registration.token) == registration.bot
    assert store.authenticate(session=session, token=registration.token + "x") is None
    assert store.authenticate(session=session, token="") is None
    dump = "\n".join(
        str(row) for table in ("bots", "ratings") for row in session.exec(sa.text(f"SELECT * FROM {table}"))
    )
    assert registration.token not in dump
    assert hashlib.sha256(registration.token.encode()).hexdigest() in dump


def test_tokens_are_safe_as_command_line_arguments(session: Session) -> None:
    """A bot program takes its token as `--token <token>`: one starting with '-' would be read as an
    option (argparse refuses it; a CI run once failed on it). Tokens are 256 random bits in hex."""
    tokens = [store.register_bot(session=session, name=f"bot{i}").token for i in range(20)]
    assert all(re.fullmatch("[0-9a-f]{64}", token) for token in tokens)
    assert len(set(tokens)) == len(tokens)


def test_bot_names_are_unique_and_sane(session: Session) -> None:
    store.register_bot(session=session, name="alice")
    with pytest.raises(DuplicateName, match="a bot named 'alice' already exists"):
        store.register_bot(session=session, name="alice")
    for bad in ("", " alice", "a\tb", "x" * 65):
        with pytest.raises(InvalidName):
            store.register_bot(session=session, name=bad)
    assert [b.name for b in store.list_bots(session=session)] == ["alice"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"table_size": 1}, "table size must be 2 to 5 players, not 1"),
        ({"table_size": 6}, "table size must be 2 to 5 players, not 6"),
        ({"games_per_table": 0}, "games per table must be at least 1, not 0"),
        ({"move_limit_ms": 0}, "move_limit_ms must be within 10..600000, not 0"),
        ({"concurrency": 0}, "concurrency must be at least 1 game, not 0"),
        ({"starts_at": datetime(2026, 1, 1)}, "must include a time zone"),
        ({"seed": -1}, "seed must be between 0 and 2\\*\\*63-1"),
        ({"seed": 2**63}, "seed must be between 0 and 2\\*\\*63-1"),
    ],
)
def test_tournament_settings_are_validated(session: Session, settings: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidSetting, match=message):
        create(session, **settings)
    assert store.list_tournaments(session=session) == []


def test_tournament_names_are_unique(session: Session) -> None:
    create(session)
    with pytest.raises(DuplicateName, match="a tournament named 'cup' already exists"):
        create(session)
    with pytest.raises(InvalidName):
        create(session, name="")


def test_a_created_tournament_keeps_its_settings(session: Session) -> None:
    starts = datetime(2026, 5, 1, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    made = create(session, starts_at=starts, concurrency=4, seed=99, policy=FailurePolicy(max_replays=3))
    shown = store.show_tournament(session=session, tournament="cup")
    assert shown == made
    assert shown.starts_at == datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    assert (shown.table_size, shown.games_per_table, shown.move_limit_ms, shown.concurrency) == (3, 2, 500, 4)
    assert (shown.seed, shown.failure_policy, shown.status) == (
        None,
        FailurePolicy(max_replays=3),
        records.TournamentStatus.SCHEDULED,
    )
    assert shown.entrants == () and shown.games.total == 0
    revealed = store.reveal_seeds(session=session, tournament="cup")
    assert revealed.seed == 99 and shown.seed_commitment == commitment(99, revealed.seed_nonce)
    random_seeded = store.reveal_seeds(session=session, tournament=create(session, name="other").name)
    assert 0 <= random_seeded.seed < 2**63 and random_seeded.seed_nonce != revealed.seed_nonce


def test_entries_are_checked_and_close_at_the_start(session: Session) -> None:
    for name in ("a", "b", "c", "late"):
        store.register_bot(session=session, name=name)
    create(session)
    with pytest.raises(UnknownTournament, match="there is no tournament named 'nope'"):
        store.enter_tournament(session=session, tournament="nope", bot="a")
    with pytest.raises(UnknownBot, match="there is no bot named 'zed'"):
        store.enter_tournament(session=session, tournament="cup", bot="zed")
    store.enter_tournament(session=session, tournament="cup", bot="a")
    with pytest.raises(AlreadyEntered):
        store.enter_tournament(session=session, tournament="cup", bot="a")
    store.enter_tournament(session=session, tournament="cup", bot="b")
    with pytest.raises(NotEnoughEntrants, match="has 2 entrants; a 3-seat table needs at least 3"):
        store.start_tournament(session=session, tournament="cup")
    assert store.show_tournament(session=session, tournament="cup").status is records.TournamentStatus.SCHEDULED
    store.enter_tournament(session=session, tournament="cup", bot="c")
    store.start_tournament(session=session, tournament="cup")
    with pytest.raises(EntriesClosed, match="entries are closed"):
        store.enter_tournament(session=session, tournament="cup", bot="late")
    with pytest.raises(TournamentAlreadyStarted, match="already running"):
        store.start_tournament(session=session, tournament="cup")
    assert store.show_tournament(session=session, tournament="cup").entrants == ("a", "b", "c")


def test_a_tournament_started_before_its_time_starts_when_it_started(session: Session) -> None:
    """`tournament start` (and the demo, which schedules a day ahead) before `starts_at`: its start
    is the moment it started, so no page or list shows a start after it began (issue #35); one
    started by the runner after its time keeps the time it was given."""
    for name in ("a", "b", "c"):
        store.register_bot(session=session, name=name)
    early = datetime(2026, 3, 1, 12, tzinfo=UTC)
    for name, starts_at in (("early", early + timedelta(days=1)), ("due", early - timedelta(minutes=5))):
        create(session, name=name, starts_at=starts_at)
        for bot in ("a", "b", "c"):
            store.enter_tournament(session=session, tournament=name, bot=bot)
        store.start_tournament(session=session, tournament=name, now=early)
    started = store.show_tournament(session=session, tournament="early")
    assert started.starts_at == started.started_at == early
    due = store.show_tournament(session=session, tournament="due")
    assert (due.starts_at, due.started_at) == (early - timedelta(minutes=5), early)


def test_due_tournaments_are_those_whose_time_has_come(session: Session) -> None:
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)
    create(session, name="later", starts_at=now + timedelta(minutes=1))
    create(session, name="earlier", starts_at=now - timedelta(hours=1))
    create(session, name="now", starts_at=now)
    assert store.due_tournaments(session=session, now=now) == ["earlier", "now"]


def test_start_stores_the_schedule_and_every_game_with_derived_seeds(session: Session) -> None:
    bots = running_tournament(session, bots=5, table_size=3, games_per_table=2, seed=21)
    tournament = store.show_tournament(session=session, tournament="cup")
    assert tournament.status is records.TournamentStatus.RUNNING and tournament.started_at is not None
    schedule = store.show_schedule(session=session, tournament="cup")
    assert schedule == round_robin(bots, 3, schedule_seed(21)), (
        "the public schedule is drawn from a hash of the secret seed"
    )
    games = store.list_games(session=session, tournament="cup")
    assert len(games) == 2 * len(schedule.tables) == tournament.games.scheduled
    seeds = {(g.table_index, g.game_index): g.seed for g in store.reveal_seeds(session=session, tournament="cup").games}
    for game in games:
        assert game.seats == schedule.tables[game.table_index].seats
        assert game.seed is None, "a game's seed is public only once it is finished"
        assert seeds[game.table_index, game.game_index] == game_seed(21, game.table_index, game.game_index)
        assert (game.status, game.attempts, game.results) == (records.GameStatus.SCHEDULED, 0, ())
    table = store.rating_table(session=session, tournament="cup")
    assert sorted(r.bot for r in table) == bots and all(r.games == 0 for r in table)


def test_next_games_plays_every_table_once_before_any_twice(session: Session) -> None:
    running_tournament(session, bots=4, table_size=2, games_per_table=3)
    queue = store.next_games(session=session)
    assert [(g.game_index, g.table_index) for g in queue] == sorted((g.game_index, g.table_index) for g in queue)
    assert store.next_games(session=session, limit=5) == queue[:5]
    assert all(g.tournament == "cup" and g.move_limit_ms == 1000 for g in queue)
    with pytest.raises(UnknownTournament):
        store.next_games(session=session, tournament="nope")


def test_marking_a_game_running_claims_it_once(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    game = store.next_games(session=session)[0]
    assert store.mark_game_running(session=session, game_id=game.id) == game
    assert game not in store.next_games(session=session)
    with pytest.raises(GameNotScheduled, match=f"game {game.id} is running, not waiting to be played"):
        store.mark_game_running(session=session, game_id=game.id)
    with pytest.raises(UnknownGame, match="there is no game 424242"):
        store.mark_game_running(session=session, game_id=424242)
    (info,) = [g for g in store.list_games(session=session) if g.id == game.id]
    assert info.status is records.GameStatus.RUNNING and info.attempts == 1 and info.started_at is not None


def test_games_of_an_unstarted_tournament_cannot_be_played(session: Session) -> None:
    create(session)
    assert store.next_games(session=session) == []
