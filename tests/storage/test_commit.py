"""Committing games (issue 4, Ratings and Resume): one transaction, never twice, resumable, and
ratings that recomputation from the stored records reproduces exactly. On both databases."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.errors import GameAlreadyFinished, GameNotRunning, ResultMismatch, UnknownGame
from arena.play.results import GameResult
from arena.storage import store
from arena.storage.store import games as games_store
from arena.tournaments.settings import TournamentSettings
from tests.storage.helpers import START, chosen_result, play_all, random_result, running_tournament


def row_counts(session: Session) -> dict[str, int]:
    return {
        table: session.exec(sa.text(f"SELECT count(*) FROM {table}")).one()[0]
        for table in ("seat_results", "rating_history")
    }


def start_one(session: Session, bots: int = 3, table_size: int = 3) -> records.GameToPlay:
    running_tournament(session, bots=bots, table_size=table_size)
    game = store.next_games(session=session)[0]
    store.mark_game_running(session=session, game_id=game.id)
    return game


def test_a_failure_between_record_and_ratings_stores_neither(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    game = start_one(session)
    result = random_result(game)
    ratings_before = store.rating_table(session=session, tournament="cup")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected failure in the rating step")

    monkeypatch.setattr(games_store, "apply_game", broken)
    with pytest.raises(RuntimeError, match="injected"):
        store.commit_game(session=session, game_id=game.id, result=result)
    detail = store.show_game(session=session, game_id=game.id)
    assert detail.record is None and detail.info.status is records.GameStatus.RUNNING
    assert detail.info.results == () and detail.info.end_reasons == ()
    assert row_counts(session) == {"seat_results": 0, "rating_history": 0}
    assert store.rating_table(session=session, tournament="cup") == ratings_before

    monkeypatch.undo()
    store.commit_game(session=session, game_id=game.id, result=result)
    assert store.show_game(session=session, game_id=game.id).record == result.record


def test_a_finished_game_cannot_be_committed_again(session: Session) -> None:
    game = start_one(session)
    result = random_result(game)
    updates = store.commit_game(session=session, game_id=game.id, result=result)
    assert [(u.bot, u.tournament) for u in updates] == [(b, "cup") for b in game.seats] + [
        (b, None) for b in game.seats
    ]
    table, ladder, counts = (
        store.rating_table(session=session, tournament="cup"),
        store.rating_table(session=session),
        row_counts(session),
    )
    with pytest.raises(GameAlreadyFinished, match="already finished"):
        store.commit_game(session=session, game_id=game.id, result=result)
    assert store.rating_table(session=session, tournament="cup") == table
    assert store.rating_table(session=session) == ladder
    assert row_counts(session) == counts == {"seat_results": 3, "rating_history": 6}


def test_only_running_games_can_be_committed(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    game = store.next_games(session=session)[0]
    with pytest.raises(GameNotRunning, match="mark it running"):
        store.commit_game(session=session, game_id=game.id, result=random_result(game))
    with pytest.raises(UnknownGame):
        store.commit_game(session=session, game_id=999_999, result=random_result(game))
    assert row_counts(session) == {"seat_results": 0, "rating_history": 0}


def mismatches(game: records.GameToPlay) -> list[tuple[GameResult, str]]:
    good = random_result(game)
    seats = good.seats
    swapped = (replace(seats[0], bot=seats[1].bot), replace(seats[1], bot=seats[0].bot), *seats[2:])
    return [
        (replace(good, seats=swapped), "are not the scheduled"),
        (replace(good, record=replace(good.record, seed=good.record.seed + 1)), "not dealt from the game.s seed"),
        (replace(good, record=replace(good.record, results=good.record.results[:1])), "unfinished"),
        (replace(good, seats=(replace(seats[0], points=seats[0].points + 1), *seats[1:])), "differ from the record"),
        (replace(good, seats=tuple(replace(s, rank=1) for s in seats)), "ranks"),
        (random_result(replace(game, seats=game.seats[:2])), "are not the scheduled"),
    ]


def test_results_that_do_not_fit_the_game_are_refused_and_nothing_changes(session: Session) -> None:
    game = start_one(session)
    for bad, message in mismatches(game):
        with pytest.raises(ResultMismatch, match=message) as refused:
            store.commit_game(session=session, game_id=game.id, result=bad)
        assert str(game.seed) not in str(refused.value), "a failed tournament's public reason may quote this"
    assert store.show_game(session=session, game_id=game.id).info.status is records.GameStatus.RUNNING
    assert row_counts(session) == {"seat_results": 0, "rating_history": 0}
    store.commit_game(session=session, game_id=game.id, result=random_result(game))


def test_interrupted_games_are_voided_and_replayed_from_the_same_seed(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3, games_per_table=2)
    first, second, third = store.next_games(session=session)[:3]
    for game in (first, second, third):
        store.mark_game_running(session=session, game_id=game.id)
    store.commit_game(session=session, game_id=first.id, result=random_result(first))
    # The arena dies here; at restart:
    assert store.void_interrupted_games(session=session) == 2
    assert store.void_interrupted_games(session=session) == 0
    queue = store.next_games(session=session)
    assert queue[:2] == [second, third]
    assert first not in queue
    replay = store.mark_game_running(session=session, game_id=second.id)
    assert replay.seed == second.seed
    (info,) = store.list_games(session=session, status=records.GameStatus.RUNNING)
    assert info.id == second.id and info.attempts == 2
    store.commit_game(session=session, game_id=second.id, result=random_result(replay))
    play_all(session)
    finished = store.list_games(session=session, tournament="cup")
    assert all(g.status is records.GameStatus.FINISHED for g in finished)
    assert row_counts(session)["seat_results"] == 3 * len(finished)
    table = store.rating_table(session=session, tournament="cup")
    assert sum(r.games for r in table) == 3 * len(finished)


def test_the_last_game_finishes_the_tournament(session: Session) -> None:
    running_tournament(session, bots=2, table_size=2)
    assert play_all(session) == 2
    tournament = store.show_tournament(session=session, tournament="cup")
    assert tournament.status is records.TournamentStatus.FINISHED and tournament.finished_at is not None
    assert tournament.games == records.GameCounts(finished=2)


def test_rating_table_counts_shared_wins_averages_and_forfeits(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)  # 3 tables, one game each
    games = store.next_games(session=session)
    plans = [((5, 5, 1), ()), ((3, 2, 1), ()), ((9, 0, 0), (0,))]
    by_bot: dict[str, list[tuple[int, int, float]]] = {}
    for game, (totals, forfeits) in zip(games, plans, strict=True):
        store.mark_game_running(session=session, game_id=game.id)
        result = chosen_result(game, totals, forfeits)
        store.commit_game(session=session, game_id=game.id, result=result)
        winners = sum(1 for s in result.seats if s.rank == 1)
        for s in result.seats:
            by_bot.setdefault(s.bot, []).append((s.points, s.rank, 1 / winners if s.rank == 1 else 0.0))
    rows = store.rating_table(session=session, tournament="cup")
    assert [r.rank for r in rows] == [1, 2, 3]
    assert [r.conservative for r in rows] == sorted((r.conservative for r in rows), reverse=True)
    for row in rows:
        assert row.conservative == pytest.approx(row.mu - 3 * row.sigma)
        played = by_bot[row.bot]
        assert row.games == 3
        assert row.wins == pytest.approx(sum(w for _, _, w in played))
        assert row.average_points == pytest.approx(sum(p for p, _, _ in played) / 3)
        assert row.average_placing == pytest.approx(sum(r for _, r, _ in played) / 3)
    assert sum(r.wins for r in rows) == pytest.approx(3.0)
    forfeit_game = store.show_game(session=session, game_id=games[2].id).info
    assert [(s.points, s.rank, s.forfeit) for s in forfeit_game.results] == [
        (9, 3, "timeout: as the test says"),
        (0, 1, None),
        (0, 1, None),
    ]
    assert any(w == pytest.approx(0.5) for _, _, w in by_bot[forfeit_game.results[1].bot])


def test_recomputed_ratings_equal_the_stored_ones_after_real_tournaments(session: Session) -> None:
    running_tournament(session, bots=6, table_size=4, games_per_table=2, seed=3, name="first")
    played = play_all(session)
    running_tournament(session, bots=5, table_size=3, games_per_table=1, seed=4, name="second")
    played += play_all(session)
    assert played == 6 * 2 + 5
    for tournament in ("first", "second", None):
        stored = store.rating_table(session=session, tournament=tournament)
        assert store.recompute_ratings(session=session, tournament=tournament) == stored
        assert all(r.games > 0 for r in stored)
    ladder = {r.bot: r for r in store.rating_table(session=session)}
    first = {r.bot: r for r in store.rating_table(session=session, tournament="first")}
    in_ladder = ladder["bot05"]  # only in "first": the same rating, placed in another table
    assert in_ladder == replace(
        first["bot05"],
        rank=in_ladder.rank,
        rank_low=in_ladder.rank_low,
        rank_high=in_ladder.rank_high,
        confidence=in_ladder.confidence,
    )
    assert ladder["bot00"].games == first["bot00"].games + 3


def test_recomputation_notices_a_tampered_record(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    play_all(session)
    game = store.list_games(session=session)[0]
    detail = store.show_game(session=session, game_id=game.id)
    assert detail.record is not None
    forged = replace(detail.record, totals=tuple(reversed(detail.record.totals)))
    session.exec(sa.text("UPDATE games SET record = :r WHERE id = :g").bindparams(r=forged.to_json(), g=game.id))
    session.commit()
    assert store.recompute_ratings(session=session, tournament="cup") != store.rating_table(
        session=session, tournament="cup"
    )


def test_list_and_show_games(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    play_all(session)
    games = store.list_games(session=session, tournament="cup", status=records.GameStatus.FINISHED)
    assert len(games) == 3 and store.list_games(session=session, status=records.GameStatus.SCHEDULED) == []
    detail = store.show_game(session=session, game_id=games[0].id)
    assert detail.info == games[0]
    assert detail.record is not None
    assert detail.info.end_reasons == tuple(r.reason.name for r in detail.record.results)
    assert tuple(s.points for s in detail.info.results) == detail.record.totals
    assert tuple(s.bot for s in detail.info.results) == detail.info.seats
    with pytest.raises(UnknownGame):
        store.show_game(session=session, game_id=123_456)


def test_concurrent_commits_lose_no_update(engine: Engine) -> None:
    """Commits from several threads (sessions) at once, games sharing bots: every rating update
    lands (row locks on PostgreSQL, the write lock on SQLite) and the stored order replays."""
    with Session(engine) as session:
        running_tournament(session, bots=6, table_size=4, games_per_table=4)
        games = store.next_games(session=session)
        for game in games:
            store.mark_game_running(session=session, game_id=game.id)
    results = [(game.id, random_result(game)) for game in games]
    threads = 4
    failures: list[BaseException] = []

    def commit_share(share: int) -> None:
        try:
            with Session(engine) as own:
                for game_id, result in results[share::threads]:
                    store.commit_game(session=own, game_id=game_id, result=result)
        except BaseException as exc:  # reported below, with the thread's error
            failures.append(exc)

    workers = [threading.Thread(target=commit_share, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    with Session(engine) as session:
        stored = store.rating_table(session=session, tournament="cup")
        assert sum(r.games for r in stored) == 4 * len(games)
        assert store.recompute_ratings(session=session, tournament="cup") == stored
        assert store.recompute_ratings(session=session) == store.rating_table(session=session)
        assert row_counts(session) == {"seat_results": 4 * len(games), "rating_history": 8 * len(games)}


def test_an_unstarted_tournament_has_no_ratings_stored_or_recomputed(session: Session) -> None:
    store.register_bot(session=session, name="solo")
    store.create_tournament(
        session=session,
        settings=TournamentSettings(name="later", table_size=2, games_per_table=1, starts_at=START, move_limit_ms=100),
    )
    store.enter_tournament(session=session, tournament="later", bot="solo")
    assert store.rating_table(session=session, tournament="later") == []
    assert store.recompute_ratings(session=session, tournament="later") == []
    assert [r.bot for r in store.recompute_ratings(session=session)] == ["solo"]
