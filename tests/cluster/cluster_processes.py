"""A cluster of real processes for the tests that break one: a private nats-server
(`tests.cluster.nats_server`, so a test can restart it), arena nodes started with `scout-arena serve --nats`, and
example bots as their own processes; the database is a fresh PostgreSQL schema."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.cluster.nats_server import NatsServer
from tests.timeouts import START_S, STOP_S
from tests.tournaments.arena_process import ArenaProcess

ADMIN_TOKEN = "cluster-test-admin-token-0123456789"
"""Every node is given the same admin token (they share the database that keeps its hash)."""


def wait_for(what: str, check: Callable[[], bool], timeout: float = START_S, every: float = 0.1) -> None:
    """Poll `check` until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


class Node:
    """One arena node: `scout-arena serve --nats URL --node NAME` on the shared database."""

    def __init__(self, name: str, url: str, nats: str, logs: Path, lease_s: float) -> None:
        self.name = name
        self.process = ArenaProcess(
            url,
            logs / f"{name}.log",
            "--nats",
            nats,
            "--node",
            name,
            "--lease-s",
            f"{lease_s:g}",
            "--no-http",
            "--admin-token",
            ADMIN_TOKEN,
        )

    @property
    def target(self) -> str:
        return self.process.target

    @property
    def pid(self) -> int:
        return self.process.proc.pid

    def alive(self) -> bool:
        return self.process.proc.poll() is None

    def signal(self, sig: signal.Signals) -> None:
        os.kill(self.pid, sig)


class Bots:
    """Example bots, each its own process: `python -m bots.random_bot --target T --token K`."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, token: str, target: str) -> None:
        with (self.logs / f"bot-{name}.log").open("ab") as log:
            self.procs[name] = subprocess.Popen(
                [sys.executable, "-m", "bots.random_bot", "--target", target, "--token", token],
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=STOP_S)


@contextmanager
def cluster_parts(logs: Path) -> Iterator[tuple[NatsServer, list[Node], Bots]]:
    """A private NATS server, a list for the nodes a test starts and the bots; all stopped after
    (nodes that were stopped with SIGSTOP are let go first, so that they can be ended)."""
    nats = NatsServer(logs / "nats.log")
    nats.start()
    nodes: list[Node] = []
    bots = Bots(logs)
    try:
        yield nats, nodes, bots
    finally:
        bots.stop()
        for node in nodes:
            if node.alive():
                node.signal(signal.SIGCONT)
                node.process.kill()
        nats.stop()


def rows(engine: sa.Engine, query: str, **params: object) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(query), params)]
