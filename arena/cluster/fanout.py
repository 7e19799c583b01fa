"""Live games across the cluster: every node's spectators see every node's watched games.

The referee's node writes each watched game's feed as today (`arena.play.spectators`) and also
publishes it on the live subject: the attempt's start, each public event (the protocol's Event,
public by construction: no hand, no seed) and its end. Every other node keeps a copy of each feed
(`SpectatorHub.mirror`), which its live pages read like a local one; the spectators' delay runs
from when the copy heard of each event, so it is never shorter than the organiser set. A node that
joins the cluster mid-game shows that game from its next attempt.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import nats.errors
from nats.aio.msg import Msg

from arena.cluster.bus import Bus
from arena.play.spectators import GameFeed, SpectatorHub, Watch
from sdk.engine import Event
from sdk.wire import game_pb2 as game_pb
from sdk.wire.codecs import event_from_pb, event_to_pb

log = logging.getLogger(__name__)


class Fanout:
    """Publishes this node's feeds (`spectators.FeedRelay`) and mirrors the other nodes'."""

    def __init__(self, bus: Bus, spectators: SpectatorHub) -> None:
        self.bus = bus
        self.spectators = spectators
        self.mirrors: dict[tuple[int, str], GameFeed] = {}
        """The copies of other nodes' feeds still playing, by game and attempt."""

    async def start(self) -> None:
        """Subscribe to the other nodes' feeds, and return only once the server has the
        subscription: until then a feed another node opens is not sent here, and its copy is
        never made (the server answers the flush's PING after the SUB sent before it)."""
        await self.bus.nc.subscribe(self.bus.subjects.live, cb=self._on_live)
        await self.bus.nc.flush()
        self.spectators.relay = self

    def stop(self) -> None:
        self.spectators.relay = None

    def opened(self, feed: GameFeed) -> None:
        self._send({"t": "open", "seats": feed.seats, "delay": feed.delay_s}, feed)

    def published(self, feed: GameFeed, event: Event) -> None:
        self._send({"t": "event", "event": event_to_pb(event).SerializeToString().hex()}, feed)

    def ended(self, feed: GameFeed) -> None:
        self._send({"t": "end", "finished": feed.finished}, feed)

    def _send(self, message: dict[str, Any], feed: GameFeed) -> None:
        message.update(node=self.bus.node, game=feed.game_id, attempt=feed.attempt)
        self.bus.post(self.bus.subjects.live, json.dumps(message, separators=(",", ":")).encode())

    async def _on_live(self, msg: Msg) -> None:
        try:
            message = json.loads(msg.data)
            if message["node"] == self.bus.node:
                return
            key = (int(message["game"]), str(message["attempt"]))
            kind = message["t"]
            if kind == "open":
                watch = Watch(key[0], float(message["delay"]))
                self.mirrors[key] = self.spectators.mirror(watch, key[1], [str(s) for s in message["seats"]])
            elif (feed := self.mirrors.get(key)) is not None:
                if kind == "event":
                    feed.publish(event_from_pb(game_pb.Event.FromString(bytes.fromhex(message["event"]))))
                elif kind == "end":
                    feed.end(bool(message["finished"]))
                    del self.mirrors[key]
        except (ValueError, KeyError, TypeError, nats.errors.Error) as exc:
            log.warning("a live-game message did not decode: %s", exc)
