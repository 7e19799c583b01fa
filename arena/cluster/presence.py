"""Presence: which node of the cluster holds which bot's stream, and how much room each node has.

Every node keeps the same table, built from what the nodes announce on the presence subject (JSON):

* `up`: a stream of this node became a bot's current one (also re-sent when its games change);
* `down`: that stream ended;
* `beat`: every HEARTBEAT_S, the node's whole list and its free referee capacity. A node not heard
  for NODE_TIMEOUT_S is gone (killed, or cut from NATS): its bots count as disconnected;
* `hello`: a node (re)joined; every node answers with a beat at once.

Two streams of one bot on two nodes are ordered by their `since` (the wall clock of their Hello,
then the session id): the later one is the bot's, on every node (`Place.newer_than`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

HEARTBEAT_S = 1.0
NODE_TIMEOUT_S = 3.5
"""Three heartbeats and a half: one or two lost to a busy loop do not drop a node's bots."""


@dataclass(slots=True)
class Place:
    """Where a bot's current stream is, and what its Hello said."""

    node: str
    session: str
    since: float
    """Wall-clock seconds of the Hello: orders two connections of one bot on two nodes."""
    capacity: int
    accept_casual: bool
    legal_actions: bool
    """Its Hello's `want_legal_actions`: the referee of a remote game builds its requests so."""
    games: int = 0
    """Its games refereed on its own node."""
    routes: dict[str, int] = field(default_factory=dict)
    """Its games refereed on other nodes, by node."""

    def newer_than(self, other: Place) -> bool:
        return (self.since, self.session) > (other.since, other.session)

    def load_besides(self, node: str) -> int:
        """Its games refereed on nodes other than `node`."""
        own = 0 if self.node == node else self.games
        return own + sum(n for where, n in self.routes.items() if where != node)

    def to_json(self, bot: str) -> dict[str, Any]:
        return {
            "bot": bot,
            "node": self.node,
            "session": self.session,
            "since": self.since,
            "capacity": self.capacity,
            "casual": self.accept_casual,
            "legal": self.legal_actions,
            "games": self.games,
            "routes": self.routes,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Place:
        return cls(
            str(d["node"]),
            str(d["session"]),
            float(d["since"]),
            int(d["capacity"]),
            bool(d["casual"]),
            bool(d["legal"]),
            int(d["games"]),
            {str(k): int(v) for k, v in d["routes"].items()},
        )


@dataclass(slots=True)
class NodeInfo:
    """Another node as its heartbeats describe it."""

    free: int
    """Games it could referee more now, as it said."""
    seen: float
    """`time.monotonic()` of its last message."""
    bots: set[str] = field(default_factory=set)


class Presence:
    """The table of places and nodes, as this node `node` knows it; a cluster-wide view that may
    lag by a message's flight, never by more than NODE_TIMEOUT_S."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.places: dict[str, Place] = {}
        self.others: dict[str, NodeInfo] = {}
        self.free = 0
        """This node's free referee capacity, as its runner last said (`set_free`)."""

    def set_free(self, games: int) -> None:
        """The node runner's word of how many more games it could referee now (sent with each beat)."""
        self.free = games

    def node_of(self, bot: str) -> str | None:
        """The node holding `bot`'s stream, or None if it is connected nowhere."""
        place = self.places.get(bot)
        return None if place is None else place.node

    def local_bots(self) -> set[str]:
        return {bot for bot, place in self.places.items() if place.node == self.node}

    def nodes(self) -> dict[str, NodeInfo]:
        """Every node heard from, this one included (its `seen` is now)."""
        mine = NodeInfo(self.free, time.monotonic(), self.local_bots())
        return {**self.others, self.node: mine}

    def beat(self) -> bytes:
        bots = [place.to_json(bot) for bot, place in self.places.items() if place.node == self.node]
        return encode({"t": "beat", "node": self.node, "free": self.free, "bots": bots})


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def decode(data: bytes) -> dict[str, Any]:
    message = json.loads(data)
    if not isinstance(message, dict):
        raise ValueError("a presence message is a JSON object")
    return message
