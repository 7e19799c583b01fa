"""The chaos test of issue #31, with real processes: three arena nodes on one PostgreSQL database
and a private nats-server, twelve example bots spread over them, three tournaments at 2, 3 and 5
seats (72 games). While they play, the node with the most games in play is killed with SIGKILL,
another is frozen with SIGSTOP until its leases have run out and then resumed, the node that
generated a late tournament's fixtures is killed, and nats-server is restarted. In the end every
game is finished exactly once, the ratings equal a recomputation from the records, `scout-arena
games verify` passes, and every bot is connected (a game across the cluster seats them all)."""

from __future__ import annotations

import signal
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
    every_bot_plays,
    finished_games,
    running_by_node,
    start_bot,
)
from tests.storage.conftest import postgres_schema
from tests.timeouts import PLAY_S

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

        wait_for("all tournaments to finish", lambda: all_over(engine, [*TOURNAMENTS, LATE]), timeout=PLAY_S, every=0.5)
        check_the_end(engine, url, [*TOURNAMENTS, LATE])
        every_bot_plays(nats.url, nodes, names)
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
