"""The chaos test of issue #31, with real processes: three arena nodes on one PostgreSQL database
and a private nats-server, twelve example bots spread over them, three tournaments at 2, 3 and 5
seats (72 games). While they play, the node with the most games in play is killed with SIGKILL,
another is frozen with SIGSTOP until its leases have run out and then resumed, the node that
generated a late tournament's fixtures is killed, and nats-server is restarted. In the end every
game is finished exactly once, the ratings equal a recomputation from the records, `scout-arena
games verify` passes, and every bot is connected (a game across the cluster seats them all)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.records import TournamentStatus
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests.cluster.cluster_processes import ADMIN_TOKEN, Bots, Node, cluster_parts, rows, wait_connected, wait_for
from tests.storage.conftest import postgres_schema
from tests.timeouts import CALL_S, PLAY_S

LEASE_S = 3.0
BOTS = 12
TOURNAMENTS = {"duel": 2, "trio": 3, "five": 5}
"""Name to table size: one round (each bot once in every seat), two games a table: 24 games each."""


@pytest.fixture
def database() -> Iterator[tuple[str, Engine]]:
    with postgres_schema() as url:
        engine = open_database(url)
        yield url, engine
        engine.dispose()


def create(engine: Engine, name: str, seats: int, bots: list[str]) -> None:
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name=name,
                table_size=seats,
                games_per_table=2,
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


def all_over(engine: Engine) -> bool:
    with Session(engine) as session:
        return all(
            store.show_tournament(session=session, tournament=name).status is TournamentStatus.FINISHED
            for name in [*TOURNAMENTS, LATE]
        )


@pytest.mark.slow
def test_a_cluster_survives_killed_frozen_and_cut_off_nodes(tmp_path: Path, database: tuple[str, Engine]) -> None:
    url, engine = database
    with cluster_parts(tmp_path) as (nats, nodes, bots):
        nodes.extend(Node(name, url, nats.url, tmp_path, LEASE_S) for name in ("n1", "n2", "n3"))
        names = [f"bot{i:02d}" for i in range(BOTS)]
        with Session(engine) as session:
            tokens = {name: store.register_bot(session=session, name=name).token for name in names}
        for i, name in enumerate(names):
            start_bot(bots, name, tokens[name], nodes, i % len(nodes))
        for tournament, seats in TOURNAMENTS.items():
            create(engine, tournament, seats, names)

        # The node with the most games in play dies after about ten results; it is started again.
        wait_for("ten results", lambda: finished_games(engine) >= 10, timeout=PLAY_S)
        busiest = max(nodes, key=lambda n: running_by_node(engine).get(n.name, 0))
        assert running_by_node(engine).get(busiest.name, 0) > 0, "the kill cuts games in play short"
        busiest.process.kill()
        wait_for(
            f"the games of killed {busiest.name} to be played again elsewhere",
            lambda: running_by_node(engine).get(busiest.name, 0) == 0,
            timeout=PLAY_S,
        )
        nodes[nodes.index(busiest)] = Node(busiest.name, url, nats.url, tmp_path, LEASE_S)

        # Another is frozen until every lease it held has run out, then resumed: it commits nothing of them.
        frozen = max((n for n in nodes if n is not busiest), key=lambda n: running_by_node(engine).get(n.name, 0))
        frozen.signal(signal.SIGSTOP)
        held = leases_of(engine, frozen.name)
        wait_for(f"the leases of frozen {frozen.name} to run out", lambda: not running_by_node(engine).get(frozen.name))
        frozen.signal(signal.SIGCONT)

        # A late tournament: the node that takes its fixtures is killed.
        create(engine, LATE, LATE_SEATS, names)
        wait_for("a node to take the late fixtures", lambda: LATE in schedule_owner(engine), every=0.01)
        generator = next(n for n in nodes if n.name == schedule_owner(engine)[LATE][0])
        generator.process.kill()
        nodes[nodes.index(generator)] = Node(generator.name, url, nats.url, tmp_path, LEASE_S)

        nats.stop()
        nats.start()

        wait_for("all tournaments to finish", lambda: all_over(engine), timeout=PLAY_S, every=0.5)
        check_the_end(engine, url, nats.url, nodes, names)
        for game_id, lease in held.items():
            owner, token = rows(engine, "SELECT lease_owner, lease_token FROM games WHERE id = :g", g=game_id)[0]
            assert (owner, token) != (frozen.name, lease), f"frozen {frozen.name} committed game {game_id} late"


LATE = "late"
LATE_SEATS = 4


def leases_of(engine: Engine, node: str) -> dict[int, str]:
    """The games `node` holds live leases on, with their tokens."""
    found = rows(
        engine,
        "SELECT id, lease_token FROM games WHERE status = 'running' AND lease_owner = :n "
        "AND lease_expires > timezone('UTC', statement_timestamp())",
        n=node,
    )
    return {int(g): str(t) for g, t in found}  # type: ignore[call-overload]


def schedule_owner(engine: Engine) -> dict[str, tuple[str, int, bool]]:
    with Session(engine) as session:
        return store.schedule_owners(session=session)


def start_bot(bots: Bots, name: str, token: str, nodes: list[Node], home: int) -> None:
    """Start bot `name` on node `home`; it reconnects to the others in turn when that one goes."""
    targets = [nodes[(home + k) % len(nodes)].target for k in range(len(nodes))]
    bots.start(name, token, ",".join(targets))


def check_the_end(engine: Engine, url: str, nats_url: str, nodes: list[Node], names: list[str]) -> None:
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
        for scope in [*TOURNAMENTS, LATE, None]:
            stored_table = store.rating_table(session=session, tournament=scope)
            again = store.recompute_ratings(session=session, tournament=scope)
            assert [(r.bot, r.mu, r.sigma, r.games) for r in stored_table] == [
                (r.bot, r.mu, r.sigma, r.games) for r in again
            ]
    for tournament in [*TOURNAMENTS, LATE]:
        verified = subprocess.run(
            [sys.executable, "-m", "arena", "games", "verify", "--tournament", tournament, "--db", url],
            capture_output=True,
            text=True,
            timeout=CALL_S,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "verified" in verified.stdout
    every_bot_plays(nats_url, nodes, names)


def every_bot_plays(nats_url: str, nodes: list[Node], names: list[str]) -> None:
    """Every bot is connected: games asked of one live node seat them all, wherever their streams
    are, once presence says each has reconnected (after the chaos some are still on their way)."""
    node = next(n for n in nodes if n.alive())
    wait_connected(nats_url, nodes, names, node)
    with grpc.insecure_channel(node.target) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        for first in range(0, len(names), 4):
            played = stub.PlayGame(
                arena_pb2.PlayGameRequest(bots=names[first : first + 4], seed=first),
                metadata=(("authorization", f"Bearer {ADMIN_TOKEN}"),),
                timeout=PLAY_S,
            )
            assert len(played.seats) == 4
            assert not any(s.HasField("forfeit") for s in played.seats), played
