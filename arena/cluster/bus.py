"""The node's NATS connection and the subjects a cluster talks on.

Every subject starts with the cluster's prefix (`scout` unless told otherwise), so that several
clusters, or several tests, can share one NATS server without hearing each other:

* `P.bot.NAME`: to the node holding bot NAME's stream, a referee elsewhere's messages to it.
* `P.node.NODE.gone.SESSION.NAME`: the reply subject of NODE's messages to stream SESSION of bot
  NAME that ask for a decision; nothing is sent on it while the stream is held, and "no
  responders", or the bot's node saying it no longer holds the stream, means it is gone
  (`arena.cluster.remote_bots`).
* `P.node.NODE.decision`: the bots' answers to games refereed on NODE.
* `P.presence`: which node holds which bot's stream, and each node's free capacity
  (`arena.cluster.presence`).
* `P.live`: the public events of watched games, for every node's spectators (`arena.cluster.fanout`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import nats.errors
from nats.aio.client import Client

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "scout"
RECONNECT_WAIT_S = 0.25
"""Pause between two attempts to reach a NATS server that went away (nats-py retries for ever)."""
PING_S = 2
"""How often the connection is checked; a server that stops answering is left after two missed pings."""


class Subjects:
    """The subject names of one cluster."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        self.prefix = prefix
        self.presence = f"{prefix}.presence"
        self.live = f"{prefix}.live"

    def bot(self, name: str) -> str:
        return f"{self.prefix}.bot.{name}"

    def decisions(self, node: str) -> str:
        return f"{self.prefix}.node.{node}.decision"

    def gone(self, node: str) -> str:
        return f"{self.prefix}.node.{node}.gone"


class Bus:
    """One node's NATS connection: it reconnects by itself, and says when it is lost and back."""

    def __init__(self, node: str, subjects: Subjects) -> None:
        self.node = node
        self.subjects = subjects
        self.nc = Client()
        self._lost: list[Callable[[], None]] = []
        self._restored: list[Callable[[], None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    async def connect(self, servers: str) -> None:
        """Connect to `servers` (comma-separated NATS URLs); raises if none answers now."""
        await self.nc.connect(
            servers=[s.strip() for s in servers.split(",") if s.strip()],
            name=f"scout-arena {self.node}",
            allow_reconnect=True,
            max_reconnect_attempts=-1,
            reconnect_time_wait=RECONNECT_WAIT_S,  # type: ignore[arg-type]  # nats-py takes seconds as a float too
            connect_timeout=2,
            ping_interval=PING_S,
            max_outstanding_pings=2,
            disconnected_cb=self._disconnected,
            reconnected_cb=self._reconnected,
            error_cb=self._error,
        )

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever the connection to NATS is lost."""
        self._lost.append(callback)

    def on_restored(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever the connection is back (subscriptions are renewed by then)."""
        self._restored.append(callback)

    @property
    def connected(self) -> bool:
        return self.nc.is_connected

    async def _disconnected(self) -> None:
        if self.nc.is_closed:
            return  # this node is leaving
        log.warning("node %s: lost its NATS connection; reconnecting", self.node)
        for callback in self._lost:
            callback()

    async def _reconnected(self) -> None:
        log.info("node %s: NATS connection back (%s)", self.node, self.nc.connected_url)
        for callback in self._restored:
            callback()

    async def _error(self, exc: Exception) -> None:
        log.warning("node %s: NATS: %s", self.node, exc)

    def post(self, subject: str, data: bytes, reply: str = "") -> None:
        """Publish without waiting, from code that cannot: messages posted in turn leave in turn
        (each task appends to nats-py's buffer when it first runs, and tasks start in order)."""
        self.spawn(self.publish(subject, data, reply))

    async def publish(self, subject: str, data: bytes, reply: str = "") -> None:
        try:
            await self.nc.publish(subject, data, reply)
        except nats.errors.Error as exc:
            log.debug("node %s: publish to %s: %s", self.node, subject, exc)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run `coro` in a task the bus holds until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        if not self.nc.is_closed:
            await self.nc.close()
