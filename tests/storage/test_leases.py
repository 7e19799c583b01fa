"""Leases of a cluster on the real PostgreSQL (issue #31): games claimed with SKIP LOCKED by many
nodes at once, one winner each; fenced writes (a lost or expired lease commits nothing); an
expired lease's game played again as an interrupted attempt, dealt as one; fixture generation
by one node at a time, taken over at a higher epoch."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.errors import GameAlreadyFinished, LeaseLost
from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.store import games as games_store
from arena.storage.store import prepared
from arena.storage.store import tournaments as tournaments_store
from arena.tournaments.fairness import attempt_seed
from arena.tournaments.schedule import game_seed, table_count
from tests.storage.helpers import random_result, running_tournament
from tests.timeouts import CALL_S

T = TypeVar("T")
TTL = 30.0
"""Long enough never to run out by itself during a test: expiry is what `expire` does."""


@pytest.fixture
def engine(postgres_url: str) -> Iterator[Engine]:
    engine = open_database(postgres_url)
    yield engine
    engine.dispose()


def run(engine: Engine, fn: Callable[..., T], **kwargs: object) -> T:
    """`fn` in a session of its own, as a node's writer would run it."""
    with Session(engine) as session:
        return fn(session=session, **kwargs)


def tournament(
    engine: Engine, bots: int, table_size: int, *, concurrency: int = 100, games_per_table: int = 1
) -> list[str]:
    """A running tournament "cup" whose schedule is not stored yet, as a node's start leaves it."""
    with Session(engine) as session:
        return running_tournament(
            session, bots, table_size, games_per_table, seed=11, concurrency=concurrency, schedule=False
        )


def scheduled(engine: Engine, name: str = "cup", node: str = "n0") -> None:
    """Store the tournament's schedule as a node does: under its schedule lease, then done."""
    fence = run(engine, store.take_schedule_lease, tournament=name, node=node, ttl_s=TTL)
    assert fence is not None
    AsyncStore(engine).run(store.store_schedule, tournament=name, fence=fence)
    run(engine, store.finish_schedule_lease, fence=fence)


def expire(engine: Engine, game_id: int) -> None:
    """The lease on `game_id` runs out (its node froze or died): its expiry moves into the past."""
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE games SET lease_expires = lease_expires - interval '1 hour' WHERE id = :id"),
            {"id": game_id},
        )


def only_one_game(engine: Engine) -> None:
    """Every game but the first out of the way (as if finished), so claimers have one to race for."""
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE games SET status = 'finished' WHERE id <> (SELECT min(id) FROM games)"))


def stored_rows(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("seat_results", "rating_history", "voided_attempts")
        }


def claim(engine: Engine, node: str, **kwargs: object) -> store.ClaimedGame | None:
    return run(engine, store.claim_game, node=node, ttl_s=TTL, **kwargs)


def test_many_concurrent_claimers_of_one_game_have_one_winner(engine: Engine) -> None:
    tournament(engine, bots=2, table_size=2)
    scheduled(engine)
    only_one_game(engine)
    claimers = 16
    barrier = threading.Barrier(claimers)
    won: list[store.ClaimedGame | None] = [None] * claimers

    def node(index: int) -> None:
        barrier.wait()
        won[index] = claim(engine, f"node{index}")

    threads = [threading.Thread(target=node, args=(i,)) for i in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [c for c in won if c is not None]
    assert len(winners) == 1
    assert claim(engine, "late") is None, "a game with a live lease is claimed by nobody else"
    with engine.connect() as connection:
        owner, attempts = connection.execute(
            sa.text("SELECT lease_owner, attempts FROM games WHERE status = 'running'")
        ).one()
    assert owner == f"node{won.index(winners[0])}" and attempts == 1


def test_concurrent_claimers_drain_a_tournament_each_game_once(engine: Engine) -> None:
    tournament(engine, bots=8, table_size=2, games_per_table=2, concurrency=500)
    scheduled(engine)
    total = table_count(8, 2, None) * 2
    claimed: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def node(index: int) -> None:
        barrier.wait()
        while (won := claim(engine, f"node{index}")) is not None:
            with lock:
                claimed.append(won.game.id)

    threads = [threading.Thread(target=node, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(claimed) == total and len(set(claimed)) == total


def test_an_expired_lease_commits_nothing_and_its_game_is_played_again_as_interrupted(engine: Engine) -> None:
    tournament(engine, bots=3, table_size=3)
    scheduled(engine)
    only_one_game(engine)
    first = claim(engine, "a")
    assert first is not None and not first.interrupted
    result = random_result(first.game)
    before = run(engine, store.rating_table, tournament="cup")
    expire(engine, first.game.id)

    with pytest.raises(LeaseLost, match="lease on it is lost"):
        run(engine, store.commit_game, game_id=first.game.id, result=result, lease=first.lease)
    assert stored_rows(engine) == {"seat_results": 0, "rating_history": 0, "voided_attempts": 0}
    assert run(engine, store.renew_leases, games={first.game.id: first.lease}, ttl_s=TTL) == (set(), set())

    second = claim(engine, "b")
    assert second is not None and second.interrupted and second.lease != first.lease
    assert second.game.id == first.game.id
    assert (second.game.seed, second.game.kept) == (first.game.seed, first.game.kept) == (game_seed(11, 0, 0), {})
    # The late commit of the lost attempt is refused after the takeover too, and nothing of it counts.
    with pytest.raises(LeaseLost):
        run(engine, store.commit_game, game_id=first.game.id, result=result, lease=first.lease)
    with pytest.raises(LeaseLost):
        run(engine, store.mark_game_played, game_id=first.game.id, lease=first.lease)
    assert run(engine, store.rating_table, tournament="cup") == before

    second_result = random_result(second.game)
    updates = run(engine, store.commit_game, game_id=second.game.id, result=second_result, lease=second.lease)
    assert len(updates) == 6
    # The winner's retry of a commit whose answer was lost: done, not counted twice.
    with pytest.raises(GameAlreadyFinished):
        run(engine, store.commit_game, game_id=second.game.id, result=second_result, lease=second.lease)
    with pytest.raises(LeaseLost):
        run(engine, store.commit_game, game_id=first.game.id, result=result, lease=first.lease)
    info = run(engine, store.show_game, game_id=first.game.id).info
    assert info.status is records.GameStatus.FINISHED and info.attempts == 2
    assert stored_rows(engine) == {"seat_results": 3, "rating_history": 6, "voided_attempts": 0}
    assert run(engine, store.show_tournament, tournament="cup").status is records.TournamentStatus.FINISHED


def test_a_renewed_lease_holds_and_an_expired_one_is_not_renewed(engine: Engine) -> None:
    tournament(engine, bots=2, table_size=2)
    scheduled(engine)
    only_one_game(engine)
    won = claim(engine, "a")
    assert won is not None
    assert run(engine, store.renew_leases, games={won.game.id: won.lease}, ttl_s=TTL) == ({won.game.id}, set())
    assert run(engine, store.renew_leases, games={won.game.id: "not-the-token"}, ttl_s=TTL) == (set(), set())
    assert claim(engine, "b") is None
    expire(engine, won.game.id)
    assert run(engine, store.renew_leases, games={won.game.id: won.lease}, ttl_s=TTL) == (set(), set())
    taken = claim(engine, "b")
    assert taken is not None and taken.interrupted


def test_a_void_under_a_lost_lease_stores_nothing_and_a_takeover_deals_the_replay_as_one(engine: Engine) -> None:
    tournament(engine, bots=3, table_size=3)
    scheduled(engine)
    only_one_game(engine)
    first = claim(engine, "a")
    assert first is not None
    voided = random_result(first.game, forfeits=[1], cause=ForfeitCause.DISCONNECT, policy=PolicyDecision.VOID)
    expire(engine, first.game.id)
    with pytest.raises(LeaseLost):
        run(engine, store.void_attempt, game_id=first.game.id, result=voided, lease=first.lease)
    assert stored_rows(engine)["voided_attempts"] == 0

    second = claim(engine, "b")
    assert second is not None and second.interrupted
    assert run(engine, store.void_attempt, game_id=second.game.id, result=voided, lease=second.lease) == 1
    replay = claim(engine, "c")
    assert replay is not None and not replay.interrupted, "a voided attempt puts the game back to scheduled"
    assert replay.game.seed == attempt_seed(11, 0, 0, 2) and set(replay.game.kept) == {1}
    expire(engine, replay.game.id)
    again = claim(engine, "a")
    assert again is not None and again.interrupted
    assert (again.game.seed, again.game.kept, again.game.voided) == (replay.game.seed, replay.game.kept, 1)
    run(engine, store.commit_game, game_id=again.game.id, result=random_result(again.game), lease=again.lease)
    detail = run(engine, store.show_game, game_id=again.game.id)
    assert detail.info.attempts == 4 and len(detail.voided) == 1


def test_claims_wait_for_the_whole_schedule_keep_the_concurrency_and_prefer_local_bots(engine: Engine) -> None:
    names = tournament(engine, bots=6, table_size=2, concurrency=2)
    assert claim(engine, "a") is None, "no claim before the schedule is done"
    scheduled(engine)
    upcoming = run(engine, store.next_games, tournament="cup")
    later = upcoming[5]
    local = claim(engine, "a", prefer=set(later.seats))
    assert local is not None and local.game.id == later.id
    avoided = claim(engine, "b", avoid={upcoming[0].seats[0]})
    assert avoided is not None and upcoming[0].seats[0] not in avoided.game.seats
    assert claim(engine, "c") is None, "the tournament plays 2 games at once"
    assert claim(engine, "c", avoid=set(names)) is None
    expire(engine, local.game.id)
    assert claim(engine, "c") is not None


def test_an_interrupted_game_is_claimed_before_new_ones_even_with_fewer_local_bots(engine: Engine) -> None:
    """A dead node's games go first: new games with this node's bots would take their places of
    the concurrency and leave them waiting until some game ends."""
    tournament(engine, bots=6, table_size=2, concurrency=3)
    scheduled(engine)
    upcoming = run(engine, store.next_games, tournament="cup")
    dead = claim(engine, "dead")
    assert dead is not None and claim(engine, "b") is not None
    expire(engine, dead.game.id)
    again = claim(engine, "c", prefer=set(upcoming[5].seats) - set(dead.game.seats))
    assert again is not None and again.interrupted and again.game.id == dead.game.id
    # Later in play order than games still to start, and so outside the claim's window: first all the same.
    late = claim(engine, "dead", prefer=set(upcoming[4].seats))
    assert late is not None and late.game.id == upcoming[4].id
    expire(engine, late.game.id)
    first = claim(engine, "c", window=1)
    assert first is not None and first.interrupted and first.game.id == late.game.id


def test_an_interrupted_game_keeps_its_place_from_a_claim_that_finds_it_locked(engine: Engine) -> None:
    """Another node's claim holds the interrupted game (its window is locked): this claim skips it,
    and must not take a new game into the place its replay needs."""
    tournament(engine, bots=6, table_size=2, concurrency=2)
    scheduled(engine)
    dead = claim(engine, "dead")
    assert dead is not None and claim(engine, "b") is not None
    expire(engine, dead.game.id)
    with engine.connect() as racing:
        racing.execute(sa.text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": dead.game.id})
        assert claim(engine, "c") is None
    again = claim(engine, "c")
    assert again is not None and again.game.id == dead.game.id


def test_two_nodes_racing_to_store_a_schedule_store_it_once(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournaments_store, "SCHEDULE_CHUNK_GAMES", 7)
    tournament(engine, bots=9, table_size=3, games_per_table=2)
    barrier = threading.Barrier(2)
    fences: list[store.ScheduleFence | None] = [None, None]

    def node(index: int) -> None:
        barrier.wait()
        fence = fences[index] = run(engine, store.take_schedule_lease, tournament="cup", node=f"n{index}", ttl_s=TTL)
        if fence is not None:
            AsyncStore(engine).run(store.store_schedule, tournament="cup", fence=fence)
            run(engine, store.finish_schedule_lease, fence=fence)

    threads = [threading.Thread(target=node, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    taken = [f for f in fences if f is not None]
    assert len(taken) == 1 and taken[0].epoch == 1
    owner = f"n{fences.index(taken[0])}"
    assert run(engine, store.schedule_owners) == {"cup": (owner, 1, True)}
    assert_stored_once(engine, table_count(9, 3, None), 2)


def test_a_dead_generating_node_is_taken_over_and_its_late_chunks_are_refused(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tournaments_store, "SCHEDULE_CHUNK_GAMES", 6)
    tournament(engine, bots=9, table_size=3, games_per_table=2)
    tables = table_count(9, 3, None)
    fence = run(engine, store.take_schedule_lease, tournament="cup", node="a", ttl_s=TTL)
    assert fence is not None
    assert run(engine, store.take_schedule_lease, tournament="cup", node="b", ttl_s=TTL) is None
    pending = run(engine, tournaments_store.pending_schedule, tournament="cup")
    assert pending is not None
    seats = tournaments_store.round_seats(pending.entrants, 3, pending.seed, 0, None)
    chunk = {"tournament_id": fence.tournament_id, "games_per_table": 2, "seed": pending.seed}
    assert run(engine, tournaments_store.store_tables, first=0, seats=seats[:3], fence=fence, **chunk) == 3
    with engine.begin() as connection:  # node a dies: its lease runs out
        connection.execute(sa.text("UPDATE schedule_leases SET expires_at = expires_at - interval '1 hour'"))
    assert claim(engine, "b") is None, "a schedule not done gives no games"
    takeover = run(engine, store.take_schedule_lease, tournament="cup", node="b", ttl_s=TTL)
    assert takeover is not None and takeover.epoch == 2
    with pytest.raises(LeaseLost, match="epoch 1"):
        run(engine, tournaments_store.store_tables, first=3, seats=seats[3:6], fence=fence, **chunk)
    assert AsyncStore(engine).run(store.store_schedule, tournament="cup", fence=takeover) == tables - 3
    with pytest.raises(LeaseLost):
        run(engine, store.finish_schedule_lease, fence=fence)
    run(engine, store.finish_schedule_lease, fence=takeover)
    assert run(engine, store.schedule_owners) == {"cup": ("b", 2, True)}
    assert run(engine, store.take_schedule_lease, tournament="cup", node="a", ttl_s=TTL) is None
    assert_stored_once(engine, tables, 2)
    assert claim(engine, "a") is not None


def assert_stored_once(engine: Engine, tables: int, games_per_table: int) -> None:
    with engine.connect() as connection:
        indices = Counter(connection.execute(sa.text("SELECT table_index FROM scheduled_tables")).scalars())
        games = connection.execute(sa.text("SELECT count(*) FROM games")).scalar_one()
    assert sorted(indices) == list(range(tables)) and set(indices.values()) == {1}
    assert games == tables * games_per_table


def test_a_commit_slow_to_read_an_expired_leases_answer_ends_lease_lost(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node whose lease has just run out, slow to read the first round trip's answers (a loaded
    machine): its commit ends LeaseLost, not with its session ended by PostgreSQL as an idle
    timeout of the lease's last millisecond did (CI at 391f285, this test's first case)."""
    tournament(engine, bots=3, table_size=3)
    scheduled(engine)
    only_one_game(engine)
    first = claim(engine, "a")
    assert first is not None
    expire(engine, first.game.id)
    fetch_together = prepared.Cursor.fetch_together

    def slow(self: prepared.Cursor, *args: Any, **kwargs: Any) -> Any:
        rows = fetch_together(self, *args, **kwargs)
        time.sleep(0.05)  # the loaded client, 50 times the old 1 ms floor
        return rows

    monkeypatch.setattr(prepared.Cursor, "fetch_together", slow)
    with pytest.raises(LeaseLost, match="lease on it is lost"):
        run(engine, store.commit_game, game_id=first.game.id, result=random_result(first.game), lease=first.lease)
    monkeypatch.undo()
    assert stored_rows(engine) == {"seat_results": 0, "rating_history": 0, "voided_attempts": 0}


def test_a_node_frozen_mid_commit_past_its_lease_commits_nothing_and_frees_the_game(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frozen between the commit's two round trips (its claim sent, the game's row locked) until
    its lease has run out, a node's session is ended by PostgreSQL, so the game is claimed and
    played again elsewhere and the woken node's commit stores nothing (the chaos test's SIGSTOP)."""
    tournament(engine, bots=3, table_size=3)
    scheduled(engine)
    only_one_game(engine)
    first = claim(engine, "a")
    assert first is not None
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE games SET lease_expires = timezone('UTC', statement_timestamp()) + interval '0.3 s'")
        )
    taken_over: list[store.ClaimedGame] = []
    rated = games_store._rated

    def frozen(*args: Any, **kwargs: Any) -> Any:
        """Node a, between its round trips, sleeps until node b has claimed the game."""
        deadline = time.monotonic() + CALL_S
        while not taken_over:
            assert time.monotonic() < deadline, "the frozen commit kept the game's row locked"
            found = claim(engine, "b")
            if found is not None:
                taken_over.append(found)
        return rated(*args, **kwargs)

    monkeypatch.setattr(games_store, "_rated", frozen)
    with pytest.raises(sa.exc.DBAPIError):
        run(engine, store.commit_game, game_id=first.game.id, result=random_result(first.game), lease=first.lease)
    monkeypatch.undo()
    assert taken_over[0].interrupted and taken_over[0].game.id == first.game.id
    assert stored_rows(engine) == {"seat_results": 0, "rating_history": 0, "voided_attempts": 0}
    result = random_result(taken_over[0].game)
    assert len(run(engine, store.commit_game, game_id=first.game.id, result=result, lease=taken_over[0].lease)) == 6
