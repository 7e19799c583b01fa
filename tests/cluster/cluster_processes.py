"""A cluster of real processes for the tests that break one: a private nats-server on a free
port (so a test can restart it), arena nodes started with `scout-arena serve --nats`, and
example bots as their own processes; the database is a fresh PostgreSQL schema."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.timeouts import START_S, STOP_S
from tests.tournaments.arena_process import ArenaProcess

ADMIN_TOKEN = "cluster-test-admin-token-0123456789"
"""Every node is given the same admin token (they share the database that keeps its hash)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(what: str, check: Callable[[], bool], timeout: float = START_S, every: float = 0.1) -> None:
    """Poll `check` until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


class NatsServer:
    """`nats-server` on a free port of 127.0.0.1, started and restarted on the same port."""

    def __init__(self, log: Path) -> None:
        binary = shutil.which("nats-server")
        if binary is None:
            pytest.fail("the cluster tests need the nats-server binary on PATH", pytrace=False)
        self.binary = binary
        self.log = log
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, "-a", "127.0.0.1", "-p", str(self.port)], stdout=log, stderr=log, start_new_session=True
            )
        wait_for(f"nats-server on port {self.port}", self._answers)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                return sock.recv(4).startswith(b"INFO")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=STOP_S)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


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
