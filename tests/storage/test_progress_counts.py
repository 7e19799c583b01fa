"""Progress counts that are true (issue 12, item 8): a game that finished playing but waits for an
earlier game's commit is `played`, not `running`; it is `finished` once committed, and played
again if the arena stops first. On both databases."""

from __future__ import annotations

from sqlmodel import Session

from arena import records
from arena.api.arena_wire import tournament_to_pb
from arena.cli.remote_wire import tournament_from_pb
from arena.storage import store
from tests.storage.helpers import random_result, running_tournament


def test_a_game_waiting_for_its_commit_is_played_not_running(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    first, second, *rest = store.next_games(session=session)
    for game in (first, second):
        store.mark_game_running(session=session, game_id=game.id)
    store.mark_game_played(session=session, game_id=second.id)
    counts = store.show_tournament(session=session, tournament="cup").games
    assert counts == records.GameCounts(scheduled=len(rest), running=1, played=1)
    assert store.show_game(session=session, game_id=second.id).info.finished_at is None  # not finished yet

    store.commit_game(session=session, game_id=first.id, result=random_result(first))
    assert store.show_tournament(session=session, tournament="cup").games == records.GameCounts(
        scheduled=len(rest), played=1, finished=1
    )

    assert store.void_interrupted_games(session=session) == 1  # the arena stopped before its commit
    counts = store.show_tournament(session=session, tournament="cup").games
    assert counts == records.GameCounts(scheduled=len(rest) + 1, finished=1)
    replayed = store.mark_game_running(session=session, game_id=second.id)
    assert store.show_tournament(session=session, tournament="cup").games.played == 0
    store.commit_game(session=session, game_id=second.id, result=random_result(replayed))
    assert store.show_tournament(session=session, tournament="cup").games.finished == 2


def test_the_played_count_crosses_the_wire(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    game = store.next_games(session=session)[0]
    store.mark_game_running(session=session, game_id=game.id)
    store.mark_game_played(session=session, game_id=game.id)
    shown = store.show_tournament(session=session, tournament="cup")
    assert tournament_from_pb(tournament_to_pb(shown)).games == shown.games
    assert shown.games.played == 1
