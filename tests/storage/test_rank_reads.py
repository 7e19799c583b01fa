"""The rank statistics read from storage (issue 16): the games they are computed from, rating
tables carrying confidence, intervals and bootstrap over whole tables, the crosstable. Both databases."""

from __future__ import annotations

import itertools

import pytest
from sqlmodel import Session

from arena import records
from arena.errors import InvalidBootstrap, UnknownTournament
from arena.ratings import rank_confidence
from arena.ratings.head_to_head import crosstable
from arena.ratings.rank_confidence import bootstrap_superiority, superiority
from arena.storage import store
from tests.storage.helpers import play_all, running_tournament


def two_tournaments(session: Session) -> None:
    running_tournament(session, bots=5, table_size=3, games_per_table=2, seed=3, name="first")
    play_all(session)
    running_tournament(session, bots=4, table_size=2, games_per_table=1, seed=4, name="second")
    play_all(session)


def test_played_games_are_the_stored_results_in_rating_order(session: Session) -> None:
    two_tournaments(session)
    for tournament in ("first", "second", None):
        listed = store.list_games(session=session, tournament=tournament, status=records.GameStatus.FINISHED)
        expected = {
            tuple((s.bot, s.points, s.rank) for s in store.show_game(session=session, game_id=g.id).info.results)
            for g in listed
        }
        played = store.played_games(session=session, tournament=tournament)
        assert len(played) == len(listed)
        assert {tuple(zip(o.bots, o.points, o.ranks, strict=True)) for o in played} == expected
    everything = store.played_games(session=session)
    assert everything == store.played_games(session=session, tournament="first") + store.played_games(
        session=session, tournament="second"
    )  # "first" was played and committed before "second"


def test_every_table_carries_its_confidence_and_intervals(session: Session) -> None:
    two_tournaments(session)
    for tournament in ("first", None):
        rows = store.rating_table(session=session, tournament=tournament)
        assert rows[0].confidence is None
        for upper, row in itertools.pairwise(rows):
            assert row.confidence == superiority(upper.mu, upper.sigma, row.mu, row.sigma)
        assert all(r.rank_low is not None and r.rank_high is not None for r in rows)
        assert all(1 <= r.rank_low <= r.rank_high <= len(rows) for r in rows)  # type: ignore[operator]
        assert all(r.bootstrap_confidence is None for r in rows)


def test_the_bootstrap_is_over_the_tables_own_games_and_pages_keep_whole_table_figures(session: Session) -> None:
    two_tournaments(session)
    rows = store.rating_table(session=session, tournament="first", bootstrap=30)
    games = store.played_games(session=session, tournament="first")
    expected = bootstrap_superiority(games, [r.bot for r in rows], resamples=30)
    assert [r.bootstrap_confidence for r in rows] == [None, *expected]
    page = store.rating_table(session=session, tournament="first", offset=2, limit=2, bootstrap=30)
    assert page == rows[2:4]


def test_a_bootstrap_beyond_the_work_limit_is_refused_with_what_is_allowed(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_tournaments(session)
    games = len(store.played_games(session=session, tournament="first"))
    monkeypatch.setattr(rank_confidence, "BOOTSTRAP_WORK_LIMIT", 3 * games)
    assert store.rating_table(session=session, tournament="first", bootstrap=3)[1].bootstrap_confidence is not None
    with pytest.raises(InvalidBootstrap, match=f"1 to 3 resamples over this table's {games} games, not 4"):
        store.rating_table(session=session, tournament="first", bootstrap=4)
    with pytest.raises(InvalidBootstrap, match="not -1"):
        store.rating_table(session=session, tournament="first", bootstrap=-1)
    monkeypatch.setattr(rank_confidence, "BOOTSTRAP_WORK_LIMIT", games - 1)
    with pytest.raises(InvalidBootstrap, match="too many to bootstrap"):
        store.rating_table(session=session, tournament="first", bootstrap=1)


def test_head_to_head_is_the_crosstable_of_the_scope(session: Session) -> None:
    two_tournaments(session)
    for tournament in ("second", None):
        table = store.head_to_head(session=session, tournament=tournament)
        assert table == crosstable(store.played_games(session=session, tournament=tournament))
    assert len(store.head_to_head(session=session, tournament="second").pairs) == 6  # every pair of 4 met
    with pytest.raises(UnknownTournament):
        store.head_to_head(session=session, tournament="nope")
