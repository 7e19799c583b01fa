"""Nodes as a user starts them (`scout-arena serve --db postgresql+... --nats URL --node NAME`) and a
bot as a user starts it (`--target A,B`): a game refereed on one node for a bot whose stream is on
another; that node killed mid-game, the bot moves to the next address and the game goes on."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from sdk.runner import register
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests import processes
from tests.api.rawclient import RawBot
from tests.cli.conftest import assert_one_line_error
from tests.cluster.nats_server import NatsServer
from tests.conftest import BOT_PROCESS, check_against_replay, readiness_line
from tests.storage.conftest import postgres_schema
from tests.timeouts import PLAY_S, START_S, STOP_S
from tests.tournaments.arena_process import ArenaProcess

ADMIN = "cluster-process-admin"


class NodeProcess:
    """One `scout-arena serve` node of the cluster."""

    def __init__(self, name: str, db: str, nats: str, logs: Path) -> None:
        self.name = name
        self.log = logs / f"{name}.log"
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "arena", "serve", "--json", "--db", db, "--nats", nats, "--node", name,
                "--port", "0", "--no-http", "--admin-token", ADMIN, "--grace-ms", "20000", "--move-ms", "5000",
            ],
            stdout=subprocess.PIPE,
            stderr=self.log.open("w"),
            text=True,
            start_new_session=True,
        )  # fmt: skip
        self.port = json.loads(readiness_line(self.proc, START_S, self.log))["port"]
        self.target = f"127.0.0.1:{self.port}"

    def play(self, bots: list[str], seed: int) -> arena_pb2.PlayGameResponse:
        with grpc.insecure_channel(self.target) as channel:
            request = arena_pb2.PlayGameRequest(bots=bots, seed=seed)
            metadata = (("authorization", f"Bearer {ADMIN}"),)
            return arena_pb2_grpc.ArenaStub(channel).PlayGame(request, metadata=metadata, timeout=PLAY_S)


@pytest.fixture
def cluster(nats_url: str, tmp_path: Path) -> Iterator[list[NodeProcess]]:
    """Two nodes on a fresh PostgreSQL schema and a private nats-server (the first node creates the
    schema before the second starts)."""
    del nats_url  # the machine's NATS is there (or the test skips); these nodes get one of their own
    nats = NatsServer(tmp_path / "nats.log")
    nats.start()
    nodes: list[NodeProcess] = []
    try:
        with postgres_schema() as db:
            for i in range(2):
                nodes.append(NodeProcess(f"n{i}", db, nats.url, tmp_path))
            yield nodes
            for node in nodes:
                if node.proc.poll() is None:
                    node.proc.send_signal(signal.SIGTERM)
                    node.proc.wait(timeout=STOP_S)
    finally:
        for node in nodes:
            processes.kill_group(node.proc)
        nats.stop()


def wait_for_line(log: Path, text: str) -> None:
    deadline = time.monotonic() + START_S
    while text not in log.read_text():
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} not in {log} within {START_S:g} s:\n{log.read_text()[-2000:]}")
        time.sleep(0.05)


def test_a_bot_moves_to_the_next_node_and_its_game_goes_on(cluster: list[NodeProcess], tmp_path: Path) -> None:
    first, second = cluster
    both = f"{first.target},{second.target}"
    mover_token = register("mover", target=both)
    steady_token = register("steady", target=second.target)
    log = tmp_path / "mover.log"
    mover = subprocess.Popen(
        [sys.executable, str(BOT_PROCESS), f"--target={both}", f"--token={mover_token}", "--behaviour", "slow"],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    try:
        wait_for_line(log, f"connecting to {first.target}")

        async def steady_plays() -> None:
            steady = await RawBot.connect(second.target, steady_token)
            try:
                result: list[arena_pb2.PlayGameResponse] = []
                game = threading.Thread(target=lambda: result.append(play_when_placed(second, ["steady", "mover"])))
                game.start()
                msg = await steady.next("game_started")
                assert msg.game_started.players == ["steady", "mover"]
                first.proc.send_signal(signal.SIGKILL)  # mid-game: mover's node goes
                await steady.play_to_the_end(random.Random(4))
                await asyncio.to_thread(game.join)
                response = result[0]
                check_against_replay(response)
                assert not any(s.HasField("forfeit") for s in response.seats), "the mover came back in time"
            finally:
                await steady.close()

        asyncio.run(steady_plays())
        assert f"connecting to {second.target}" in log.read_text(), "the bot moved to the next address"
    finally:
        mover.kill()
        mover.wait(timeout=STOP_S)


def play_when_placed(node: NodeProcess, bots: list[str]) -> arena_pb2.PlayGameResponse:
    """PlayGame, tried again while a bot is not connected anywhere yet (FAILED_PRECONDITION)."""
    deadline = time.monotonic() + START_S
    while True:
        try:
            return node.play(bots, seed=9)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def test_a_single_arena_and_a_clusters_nodes_never_serve_one_database(nats_url: str, tmp_path: Path) -> None:
    """A single arena on a cluster's database would void the nodes' running games at start and play
    their tournaments beside them: while a node runs, `serve` without `--nats` exits with one line
    naming it, and a node started while a single arena serves exits naming that arena
    (docs/scale-out.md, "No single arena on a cluster's database")."""
    with postgres_schema() as db:
        node = NodeProcess("n1", db, nats_url, tmp_path)
        try:
            single = run_serve(db)
            assert single.returncode == 1 and single.stdout == ""
            assert_one_line_error(single.stderr, "the cluster's nodes serve ")
            assert f"(node n1: host {socket.gethostname()} pid {node.proc.pid} since " in single.stderr
        finally:
            node.proc.send_signal(signal.SIGTERM)
            try:
                assert node.proc.wait(timeout=STOP_S) == 0
            finally:
                processes.kill_group(node.proc)
        arena = ArenaProcess(db, tmp_path / "single.log", "--no-http")
        try:
            refused = run_serve(db, "--nats", nats_url, "--node", "n2")
            assert refused.returncode == 1 and refused.stdout == ""
            assert_one_line_error(refused.stderr, "another arena serves ")
            assert f" alone (host {socket.gethostname()} pid {arena.proc.pid} since " in refused.stderr
        finally:
            try:
                assert arena.stop() == 0
            finally:
                processes.kill_group(arena.proc)


def run_serve(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`scout-arena serve` on `db` as a user starts it, expected to exit at once."""
    return subprocess.run(
        [sys.executable, "-m", "arena", "serve", "--db", db, "--port", "0", "--no-http", *args],
        capture_output=True,
        text=True,
        timeout=START_S,
        stdin=subprocess.DEVNULL,
    )
