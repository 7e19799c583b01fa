"""Tournaments on the shared database of a cluster of real processes (`tests.cluster.cluster_processes`),
for the tests that break one while they play: making them due, watching their games, and checking how
they ended (every game finished exactly once, ratings equal to a recomputation, `games verify`
passes, every bot connected)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import grpc
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.records import TournamentStatus
from arena.storage import store
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests.cluster.cluster_processes import ADMIN_TOKEN, Bots, Node, rows, wait_connected
from tests.timeouts import CALL_S, PLAY_S


def create(engine: Engine, name: str, seats: int, bots: list[str], games_per_table: int = 2) -> None:
    """Tournament `name` of one round at tables of `seats`, entered by `bots` and due now."""
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name=name,
                table_size=seats,
                games_per_table=games_per_table,
                starts_at=datetime.now(UTC) + timedelta(days=1),
                move_limit_ms=2000,
                concurrency=4,
                rounds=1,
                seed=len(name) * 1000 + seats,
            ),
        )
        for bot in bots:
            store.enter_tournament(session=session, tournament=name, bot=bot)
    due(engine, name)


def due(engine: Engine, name: str) -> None:
    """Make the tournament due now, once its entries are in: the nodes' next tick starts it."""
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE tournaments SET starts_at = starts_at - interval '2 days' WHERE name = :n"), {"n": name}
        )


def finished_games(engine: Engine) -> int:
    return int(rows(engine, "SELECT count(*) FROM games WHERE status = 'finished'")[0][0])  # type: ignore[call-overload]


def running_by_node(engine: Engine) -> dict[str, int]:
    found = rows(
        engine,
        "SELECT lease_owner, count(*) FROM games WHERE status = 'running' "
        "AND lease_expires > timezone('UTC', statement_timestamp()) GROUP BY lease_owner",
    )
    return {str(owner): int(count) for owner, count in found}  # type: ignore[call-overload]


def all_over(engine: Engine, tournaments: list[str]) -> bool:
    with Session(engine) as session:
        return all(
            store.show_tournament(session=session, tournament=name).status is TournamentStatus.FINISHED
            for name in tournaments
        )


def start_bot(bots: Bots, name: str, token: str, nodes: list[Node], home: int) -> None:
    """Start bot `name` on node `home`; it reconnects to the others in turn when that one goes."""
    targets = [nodes[(home + k) % len(nodes)].target for k in range(len(nodes))]
    bots.start(name, token, ",".join(targets))


def check_the_end(engine: Engine, url: str, tournaments: list[str]) -> None:
    """Every game of the database finished exactly once, the ratings of each of `tournaments` and the
    ladder equal a recomputation from the records, and `games verify` passes for each."""
    seats = rows(
        engine,
        "SELECT g.id, json_array_length(t.seats::json), "
        "(SELECT count(*) FROM seat_results s WHERE s.game_id = g.id), "
        "(SELECT count(*) FROM rating_history h WHERE h.game_id = g.id), g.status "
        "FROM games g JOIN scheduled_tables t ON t.id = g.table_id",
    )
    assert seats and all(status == "finished" for *_, status in seats)
    for game_id, players, results, history, _ in seats:
        assert results == players and history == 2 * players, f"game {game_id} has one result, counted once"  # type: ignore[operator]
    # Games that share a bot commit one after the other (its rating rows are locked), so their
    # order is recorded; two with no bot in common may share a number: their updates commute.
    same_number = rows(
        engine,
        "SELECT a.id, b.id FROM games a JOIN games b ON a.id < b.id AND a.commit_seq = b.commit_seq "
        "JOIN seat_results sa ON sa.game_id = a.id JOIN seat_results sb ON sb.game_id = b.id AND sb.bot_id = sa.bot_id",
    )
    assert same_number == []
    with Session(engine) as session:
        for scope in [*tournaments, None]:
            stored_table = store.rating_table(session=session, tournament=scope)
            again = store.recompute_ratings(session=session, tournament=scope)
            assert [(r.bot, r.mu, r.sigma, r.games) for r in stored_table] == [
                (r.bot, r.mu, r.sigma, r.games) for r in again
            ]
    for tournament in tournaments:
        verified = subprocess.run(
            [sys.executable, "-m", "arena", "games", "verify", "--tournament", tournament, "--db", url],
            capture_output=True,
            text=True,
            timeout=CALL_S,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "verified" in verified.stdout


def every_bot_plays(nats_url: str, nodes: list[Node], names: list[str]) -> None:
    """Every bot is connected: games asked of one live node seat them all, wherever their streams
    are, once presence says each has reconnected (after the chaos some are still on their way)."""
    node = next(n for n in nodes if n.alive())
    wait_connected(nats_url, nodes, names, node)
    with grpc.insecure_channel(node.target) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        for first in range(0, len(names), 4):
            seated = names[first : first + 4]
            played = stub.PlayGame(
                arena_pb2.PlayGameRequest(bots=seated, seed=first),
                metadata=(("authorization", f"Bearer {ADMIN_TOKEN}"),),
                timeout=PLAY_S,
            )
            assert len(played.seats) == len(seated)
            assert not any(s.HasField("forfeit") for s in played.seats), played
