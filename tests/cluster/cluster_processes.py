"""A cluster of real processes for the tests that break one: a private nats-server
(`tests.cluster.nats_server`, so a test can restart it), arena nodes started with `scout-arena serve --nats`, and
example bots as their own processes; the database is a fresh PostgreSQL schema."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import nats
import pytest
import sqlalchemy as sa
from nats.aio.msg import Msg

from arena.cluster.bus import Subjects
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


RANDOM_BOT = (sys.executable, "-m", "bots.random_bot")
"""The example bot the cluster tests run: any legal action, at once."""


class Bots:
    """Bots, each its own process: `PROGRAM --target T --token K` (the random example bot by default)."""

    def __init__(self, logs: Path, program: Sequence[str] = RANDOM_BOT) -> None:
        self.logs = logs
        self.program = program
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, token: str, target: str) -> None:
        with (self.logs / f"bot-{name}.log").open("ab") as log:
            self.procs[name] = subprocess.Popen(
                [*self.program, "--target", target, "--token", token],
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
def cluster_parts(logs: Path, bot: Sequence[str] = RANDOM_BOT) -> Iterator[tuple[NatsServer, list[Node], Bots]]:
    """A private NATS server, a list for the nodes a test starts and the bots (each running `bot`);
    all stopped after (nodes that were stopped with SIGSTOP are let go first, so that they can be ended)."""
    nats = NatsServer(logs / "nats.log")
    nats.start()
    nodes: list[Node] = []
    bots = Bots(logs, bot)
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


def wait_connected(nats_url: str, nodes: list[Node], bots: list[str], asked: Node, timeout: float = START_S) -> None:
    """Wait until every bot in `bots` has its stream on a live node, as the nodes' presence beats
    say (each beat lists the bots on its node), and `asked` has beaten twice since: it has heard
    the others' beats by then, so a game asked of it finds every bot connected. After a node dies
    or NATS restarts, bots take a while to reconnect elsewhere and nodes to hear of it."""
    asyncio.run(_presence_settles(nats_url, {n.name for n in nodes if n.alive()}, set(bots), asked.name, timeout))


async def _presence_settles(url: str, live: set[str], bots: set[str], asked: str, timeout: float) -> None:
    latest: dict[str, set[str]] = {}
    beats_since = -1  # `asked`'s beats heard since every bot was last seen placed; -1 while one is not
    settled = asyncio.Event()

    async def heard(msg: Msg) -> None:
        nonlocal beats_since
        message = json.loads(msg.data)
        if message.get("t") != "beat" or message["node"] not in live:
            return
        latest[message["node"]] = {str(b["bot"]) for b in message["bots"]}
        if not bots <= set[str]().union(*latest.values()):
            beats_since = -1
        elif beats_since < 0:
            beats_since = 0
        elif message["node"] == asked:
            beats_since += 1
        if beats_since >= 2:
            settled.set()

    client = await nats.connect(url)
    try:
        await client.subscribe(Subjects().presence, cb=heard)
        try:
            await asyncio.wait_for(settled.wait(), timeout)
        except TimeoutError:
            missing = bots - set[str]().union(*latest.values())
            pytest.fail(f"timed out after {timeout:g} s waiting for bots {sorted(missing)} to connect to a live node")
    finally:
        await client.close()
