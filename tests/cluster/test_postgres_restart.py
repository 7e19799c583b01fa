"""Issue #31, the database: a cluster survives its PostgreSQL server restarting. Two arena nodes and
six bots (200 ms a decision, so that a game lasts longer than a lease) on a private PostgreSQL server
and a private nats-server play a tournament of 12 games. Mid-tournament PostgreSQL is stopped (a
fast shutdown: every connection cut, every open transaction rolled back) twice: once until every
node has found it gone, shorter than a lease; once, just after a game has started, until a node
has dropped a game in play for want of renewal, longer than a lease. Each time it is started
again. The nodes run on throughout, and the tournament finishes with every game played exactly
once, the ratings equal to a recomputation from the records, `scout-arena games verify` passing, and
no bot's stream broken."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.storage import store
from arena.storage.database import open_database
from tests.cluster.cluster_processes import Node, cluster_parts, rows, wait_for
from tests.cluster.cluster_tournaments import (
    all_over,
    check_the_end,
    create,
    finished_games,
    running_by_node,
    start_bot,
)
from tests.cluster.postgres_server import PostgresServer, private_postgres
from tests.conftest import BOT_PROCESS
from tests.timeouts import PLAY_S

LEASE_S = 3.0
BOTS = 6
TOURNAMENT = "restart"
SEATS = 3
GAMES_PER_TABLE = 2
"""Six tables (each bot once in every seat), two games each: 12 games."""
SLOW_BOT = (sys.executable, str(BOT_PROCESS), "--behaviour", "slow", "--think-ms", "200")


@pytest.fixture
def postgres(nats_url: str) -> Iterator[PostgresServer]:
    """A private PostgreSQL server (the machine's must stay up); skips where NATS is not (`nats_url`)."""
    del nats_url  # the machine's NATS is there (or the test skips); the nodes get a private nats-server
    with private_postgres() as server:
        yield server


class Logs:
    """What the nodes log from a moment on (their logs are appended to, never rewritten)."""

    def __init__(self, nodes: list[Node]) -> None:
        self.starts = {node.name: node.process.log.stat().st_size for node in nodes}
        self.nodes = nodes

    def all_say(self, text: str) -> bool:
        return all(text in self.since(node) for node in self.nodes)

    def one_says(self, text: str) -> bool:
        return any(text in self.since(node) for node in self.nodes)

    def since(self, node: Node) -> str:
        with node.process.log.open() as log:
            log.seek(self.starts[node.name])
            return log.read()


def running_games(engine: Engine) -> set[int]:
    return {int(game_id) for (game_id,) in rows(engine, "SELECT id FROM games WHERE status = 'running'")}  # type: ignore[call-overload]


def mid_tournament(engine: Engine, results: int) -> bool:
    """At least `results` games finished and some in play."""
    return finished_games(engine) >= results and sum(running_by_node(engine).values()) > 0


@pytest.mark.slow
def test_a_cluster_survives_postgres_restarting(tmp_path: Path, postgres: PostgresServer) -> None:
    url = postgres.url
    engine = open_database(url)
    try:
        with cluster_parts(tmp_path, SLOW_BOT) as (nats, nodes, bots):
            nodes.extend(Node(name, url, nats.url, tmp_path, LEASE_S) for name in ("n1", "n2"))
            names = [f"bot{i:02d}" for i in range(BOTS)]
            with Session(engine) as session:
                tokens = {name: store.register_bot(session=session, name=name).token for name in names}
            for i, name in enumerate(names):
                start_bot(bots, name, tokens[name], nodes, i % len(nodes))
            create(engine, TOURNAMENT, SEATS, names, GAMES_PER_TABLE)

            # Shorter than a lease: down until every node has found it gone.
            wait_for("three results, with games in play", lambda: mid_tournament(engine, 3), timeout=PLAY_S)
            logs = Logs(nodes)
            postgres.stop()
            wait_for("every node to find the database gone", lambda: logs.all_say("the database is unavailable"))
            postgres.start()
            wait_for("every node to find the database back", lambda: logs.all_say("the database answers again"))

            # Longer than a lease: down until a node has dropped a game in play, its lease unrenewed.
            before = finished_games(engine)
            wait_for("another result, with games in play", lambda: mid_tournament(engine, before + 1), PLAY_S)
            playing = running_games(engine)
            wait_for("another game to start", lambda: bool(running_games(engine) - playing), PLAY_S, every=0.02)
            logs = Logs(nodes)
            postgres.stop()
            wait_for("a node to drop a game unrenewed", lambda: logs.one_says("ran out unrenewed: dropping it"))
            postgres.start()
            wait_for("a dropped game to be played again", lambda: logs.one_says("from an expired lease: playing it"))

            wait_for("the tournament to finish", lambda: all_over(engine, [TOURNAMENT]), timeout=PLAY_S, every=0.5)
            assert all(node.alive() for node in nodes), "a node stopped while PostgreSQL was away: see its log"
            check_the_end(engine, url, [TOURNAMENT])
            for node in nodes:
                assert not re.search(r"bot '\w+' disconnected", node.process.log.read_text()), f"a bot left {node.name}"
            assert finished_games(engine) == BOTS * GAMES_PER_TABLE
    finally:
        engine.dispose()
