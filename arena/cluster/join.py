"""Joining a cluster: one call that connects a node's hub and spectators to NATS, and one that leaves."""

from __future__ import annotations

from collections.abc import Callable

from arena.cluster.bus import DEFAULT_PREFIX, Bus, Subjects
from arena.cluster.fanout import Fanout
from arena.cluster.presence import Presence
from arena.cluster.remote_bots import RemoteBots
from arena.play.sessions import SessionHub
from arena.play.spectators import SpectatorHub


class Cluster:
    """This node's part in the cluster: its NATS connection, its presence table, its relay of bots
    on other nodes and its fan-out of live games."""

    def __init__(self, bus: Bus, presence: Presence, remote: RemoteBots, fanout: Fanout) -> None:
        self.bus = bus
        self.presence = presence
        self.remote = remote
        self.fanout = fanout

    @property
    def node(self) -> str:
        return self.bus.node

    def on_lost(self, callback: Callable[[], None]) -> None:
        """`callback()` whenever NATS is lost: every remote seat of this node is disconnected by then."""
        self.bus.on_lost(callback)

    def on_restored(self, callback: Callable[[], None]) -> None:
        """`callback()` whenever NATS is back; presence is whole again within a heartbeat."""
        self.bus.on_restored(callback)

    async def close(self) -> None:
        """Leave: the other nodes drop this node's bots at once, and its hub is one node's again."""
        self.fanout.stop()
        await self.remote.stop()
        await self.bus.close()


async def connect_cluster(
    servers: str, node: str, hub: SessionHub, spectators: SpectatorHub, prefix: str = DEFAULT_PREFIX
) -> Cluster:
    """Join the cluster of NATS `servers` (comma-separated URLs) as `node`; raises if NATS does not answer."""
    bus = Bus(node, Subjects(prefix))
    await bus.connect(servers)
    presence = Presence(node)
    remote = RemoteBots(bus, hub, presence)
    fanout = Fanout(bus, spectators)
    await fanout.start()
    await remote.start()
    return Cluster(bus, presence, remote, fanout)
