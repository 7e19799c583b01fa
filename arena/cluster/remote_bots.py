"""Bots whose stream is on another node: how a referee reaches them, and how their answers come back.

On the referee's node such a bot is a `BotConnection` like any other, whose stream is a
`RemoteStream`: the referee, the hub and the runner cannot tell it from a local one. What the
referee sends it is serialized there, exactly as a local stream would write it
(`bot_session_wire.arena_batch_bytes`), and published to the bot's subject, the messages of one
turn of the event loop in one NATS message. The node holding the bot's stream writes those bytes
as they came (`sessions.Relayed`), so the bot reads the same bytes from a cluster as from one node.
A batch that carries a request names a reply subject of the stream (`Subjects.gone`), on which
nothing comes back while all is well: NATS's "no responders" (no node holds the bot's stream) or
the bot's node saying it no longer holds that stream disconnects the seat, and the grace period
and the clocks run as for a local stream that broke. A node that stops answering altogether is
left when its beats stop (`presence.NODE_TIMEOUT_S`), and its seats with it.

The bot's answers to a game refereed elsewhere (`SessionHub.receive` finds no local game) go to
that node's decision subject, where they are judged as if they came from a local stream; the
verdict comes back the same way as every other message. The route of each game is learnt from its
GameStarted (sent when the game starts and on every resync) and each request, and forgotten when
the referee frees the seat or its node leaves the cluster (killed, or cut off: that node's games
are played again elsewhere, and their seats must not stay taken).

Presence (`arena.cluster.presence`) drives the hub: a bot that connects anywhere gets a
`RemoteStream` on every other node (its games there resync to it), one that disconnects loses it
(their grace period starts), and a newer stream of a bot on another node supersedes this node's,
with the same notice as a newer stream on this node.
"""

from __future__ import annotations

import asyncio
import json
import logging
import struct
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import nats.errors
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import Header

from arena.api.bot_session_wire import arena_batch_bytes
from arena.cluster.bus import Bus
from arena.cluster.presence import HEARTBEAT_S, NODE_TIMEOUT_S, NodeInfo, Place, Presence, decode, encode
from arena.play.sessions import (
    Answer,
    BotConnection,
    MalformedDecision,
    Outgoing,
    Relayed,
    SessionHub,
    Stream,
)
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    Decision,
    DecisionRequest,
    ErrorNotice,
    GameOver,
    GameStarted,
    Hello,
    PublicEvent,
    TournamentOver,
    Welcome,
)
from sdk.wire import bot_session_pb2 as session_pb
from sdk.wire.codecs import action_from_pb, action_to_pb

log = logging.getLogger(__name__)

KINDS: tuple[type, ...] = (
    Welcome,
    GameStarted,
    DecisionRequest,
    ActionAccepted,
    ActionRejected,
    PublicEvent,
    GameOver,
    ErrorNotice,
    TournamentOver,
)
"""The message types a relayed entry may hold, by their code (the index)."""
_CODES = {kind: code for code, kind in enumerate(KINDS)}
RELEASE = 255
"""The code of an entry that carries no message: the referee freed the bot's seat of the game."""
_ENTRY = struct.Struct("!BHI")
"""A relayed entry's head: its code, then the lengths of its game id and of its framed message."""
_HEAD = struct.Struct("!H")
GONE = b"gone"
"""The reply of a node that no longer holds that stream of the bot."""
NO_RESPONDERS = "503"
"""The status (header `Status`) of the message NATS sends to the reply subject of a message nobody
subscribes to."""


def _head(*fields: str) -> bytes:
    text = " ".join(fields).encode()
    return _HEAD.pack(len(text)) + text


def _read_head(data: bytes) -> tuple[list[str], int]:
    (size,) = _HEAD.unpack_from(data)
    return data[2 : 2 + size].decode().split(" "), 2 + size


def relay_entries(data: bytes, start: int) -> Iterator[tuple[int, str, bytes]]:
    """The entries of a relayed batch from `start`: (code, game id, framed message)."""
    at = start
    while at < len(data):
        code, id_size, size = _ENTRY.unpack_from(data, at)
        at += _ENTRY.size
        game_id = data[at : at + id_size].decode()
        at += id_size
        yield code, game_id, data[at : at + size]
        at += size


def _entry(code: int, game_id: str, framed: bytes) -> bytes:
    gid = game_id.encode()
    return _ENTRY.pack(code, len(gid), len(framed)) + gid + framed


def encode_answer(answer: Answer) -> bytes:
    """A bot's answer as it travels to the referee's node: the protocol's Decision, or, for an answer
    whose action did not decode, why (as JSON after a `!`)."""
    if isinstance(answer, MalformedDecision):
        return b"!" + json.dumps([answer.game_id, answer.request_id, answer.reason]).encode()
    pb = session_pb.Decision(game_id=answer.game_id, request_id=answer.request_id, action=action_to_pb(answer.action))
    return pb.SerializeToString()


def decode_answer(data: bytes) -> Answer:
    if data[:1] == b"!":
        game_id, request_id, reason = json.loads(data[1:])
        return MalformedDecision(str(game_id), int(request_id), str(reason))
    pb = session_pb.Decision.FromString(data)
    return Decision(pb.game_id, pb.request_id, action_from_pb(pb.action))


class RemoteStream(Stream):
    """A bot's stream on another node, as the referee's node holds it: what is sent to it is
    serialized and relayed to that node, the messages of one turn of the event loop together."""

    relayed = True
    __slots__ = ("_ask", "_out", "_remote", "bot", "node")

    def __init__(self, remote: RemoteBots, bot: str, place: Place) -> None:
        super().__init__(place.session, place.legal_actions, lambda: False, (), remote.hub.clock)
        self._remote = remote
        self.bot = bot
        self.node = place.node
        self._out: list[bytes] = []
        self._ask = False
        """Whether the batch being gathered carries a request: it names the stream's reply subject then."""

    def send(self, msg: Outgoing) -> None:
        if self.closed or isinstance(msg, Relayed):
            return
        kind = type(msg)
        if kind is DecisionRequest:
            self._ask = True
        game_id: str = getattr(msg, "game_id", "")
        self._queue(_entry(_CODES[kind], game_id, arena_batch_bytes((msg,), self.want_legal_actions)))

    def released(self, game_id: str) -> None:
        if not self.closed:
            self._queue(_entry(RELEASE, game_id, b""))

    def _queue(self, entry: bytes) -> None:
        self._out.append(entry)
        if len(self._out) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        if self.closed or not self._out:
            self._out.clear()
            return
        payload = b"".join(self._out)
        ask, self._ask = self._ask, False
        self._out.clear()
        self._remote.relay_out(self, payload, ask)

    def close(self) -> None:
        self.closed = True


class RemoteBots:
    """This node's side of the relay (`sessions.Relay`): it announces its streams, places the other
    nodes' bots in the hub, relays the referee's messages out and the bots' answers in."""

    def __init__(self, bus: Bus, hub: SessionHub, presence: Presence) -> None:
        self.bus = bus
        self.hub = hub
        self.presence = presence
        self.node = bus.node
        self.routes: dict[str, dict[str, str]] = {}
        """For each bot whose stream is here: the games other nodes referee for it, with their node."""
        self._subscriptions: dict[str, Subscription] = {}
        self._control: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
        """Subscriptions and announcements, done in order by one task: a bot's subscription is in
        place before its `up` is heard, and gone only after."""
        self._workers: list[asyncio.Task[None]] = []
        self._unreachable: set[tuple[str, str]] = set()
        """Streams (node, session) whose node answered that it does not hold them, or none answered:
        presence that still names one (a beat sent before it ended) does not bring it back."""

    async def start(self) -> None:
        nc = self.bus.nc
        subjects = self.bus.subjects
        await nc.subscribe(subjects.presence, cb=self._on_presence)
        await nc.subscribe(subjects.decisions(self.node), cb=self._on_answer)
        await nc.subscribe(f"{subjects.gone(self.node)}.>", cb=self._on_gone)
        self.bus.on_lost(self._lost)
        self.bus.on_restored(self._restored)
        self.hub.relay = self
        self._workers = [asyncio.create_task(self._run_control()), asyncio.create_task(self._heartbeat())]
        await self._publish(encode({"t": "hello", "node": self.node}))
        await nc.flush()

    async def stop(self) -> None:
        """Leave the cluster: the other nodes drop this node's bots at once rather than after NODE_TIMEOUT_S."""
        self.hub.relay = None
        for worker in self._workers:
            worker.cancel()
        if self.bus.connected:
            await self._publish(encode({"t": "bye", "node": self.node}))
            await self.bus.nc.flush()

    # -- this node's streams (the hub's calls) --------------------------------------------------

    def opened(self, conn: BotConnection, stream: Stream) -> None:
        place = Place(
            self.node,
            stream.session_id,
            time.time(),
            conn.capacity,
            conn.accept_casual,
            stream.want_legal_actions,
            len(conn.live_games),
        )
        self.presence.places[conn.name] = place
        self._do(lambda: self._announce_up(conn.name, place))

    def closed(self, conn: BotConnection, stream: Stream) -> None:
        place = self.presence.places.get(conn.name)
        if place is None or place.node != self.node or place.session != stream.session_id:
            return
        del self.presence.places[conn.name]
        self._forget_local(conn)
        message = encode({"t": "down", "node": self.node, "bot": conn.name, "session": stream.session_id})
        self._do(lambda: self._announce_down(conn.name, message))

    def forward(self, bot: str, answer: Answer) -> bool:
        node = self.routes.get(bot, {}).get(answer.game_id)
        if node is None:
            return False
        stream = self.hub.get(bot)
        session = stream.stream.session_id if stream is not None and stream.stream is not None else ""
        data = _head(bot, session, self.node) + encode_answer(answer)
        self.bus.post(self.bus.subjects.decisions(node), data)
        return True

    def _forget_local(self, conn: BotConnection) -> None:
        self.routes.pop(conn.name, None)
        conn.elsewhere = 0

    async def _announce_up(self, bot: str, place: Place) -> None:
        if bot not in self._subscriptions:

            async def relayed(msg: Msg) -> None:
                await self._on_relay(bot, msg)

            self._subscriptions[bot] = await self.bus.nc.subscribe(self.bus.subjects.bot(bot), cb=relayed)
        await self._publish(encode({"t": "up", **place.to_json(bot)}))

    async def _announce_down(self, bot: str, message: bytes) -> None:
        await self._unsubscribe(bot)
        await self._publish(message)

    async def _unsubscribe(self, bot: str) -> None:
        if self.hub.local(bot):
            return  # a newer stream of the bot came to this node meanwhile
        subscription = self._subscriptions.pop(bot, None)
        if subscription is not None:
            try:
                await subscription.unsubscribe()
            except nats.errors.Error as exc:
                log.debug("unsubscribing bot %r: %s", bot, exc)

    # -- the referee's messages out, the bots' answers in ---------------------------------------

    def relay_out(self, stream: RemoteStream, payload: bytes, ask: bool) -> None:
        data = _head(stream.session_id, self.node) + payload
        reply = f"{self.bus.subjects.gone(self.node)}.{stream.session_id}.{stream.bot}" if ask else ""
        self.bus.post(self.bus.subjects.bot(stream.bot), data, reply)

    async def _on_gone(self, msg: Msg) -> None:
        """A request's stream is held nowhere (no responders), or not by the node that had it: the
        seats here are disconnected, and a late beat that still names the stream does not bring it
        back (`_unreachable`)."""
        if msg.data != GONE and (msg.headers or {}).get(Header.STATUS.value) != NO_RESPONDERS:
            return
        session, _, bot = msg.subject[len(self.bus.subjects.gone(self.node)) + 1 :].partition(".")
        conn = self.hub.get(bot)
        stream = None if conn is None else conn.stream
        if conn is None or not isinstance(stream, RemoteStream) or stream.session_id != session:
            return
        self._unreachable.add((stream.node, session))
        log.info("bot %r: its stream on node %s is gone: its seats here are disconnected", bot, stream.node)
        self.hub.close(conn, stream)

    async def _on_relay(self, bot: str, msg: Msg) -> None:
        """A referee's batch for `bot`, whose stream is here: write it to the stream as it came."""
        data = msg.data
        (session, origin), start = _read_head(data)
        conn = self.hub.get(bot)
        stream = None if conn is None else conn.stream
        if conn is None or stream is None or stream.relayed or stream.session_id != session:
            if msg.reply:
                await msg.respond(GONE)
            return
        routes = self.routes.setdefault(bot, {})
        for code, game_id, framed in relay_entries(data, start):
            if code == RELEASE:
                routes.pop(game_id, None)
                continue
            kind = KINDS[code]
            if kind is GameStarted or kind is DecisionRequest:
                routes[game_id] = origin
            stream.send(Relayed(kind, framed))
        if len(routes) != conn.elsewhere:
            freed = len(routes) < conn.elsewhere
            conn.elsewhere = len(routes)
            if freed:
                self.hub.notify(bot)

    async def _on_answer(self, msg: Msg) -> None:
        """A bot's answer to a game refereed here, from the node holding its stream."""
        data = msg.data
        (bot, session, origin), start = _read_head(data)
        conn = self.hub.get(bot)
        stream = None if conn is None else conn.stream
        held_by = (stream.node, stream.session_id) if isinstance(stream, RemoteStream) else None
        if conn is None or held_by != (origin, session):
            return  # an answer from a stream that is no longer the bot's: like one read after a supersede
        try:
            answer = decode_answer(data[start:])
        except (ValueError, KeyError) as exc:
            log.warning("an answer of bot %r from node %s did not decode: %s", bot, origin, exc)
            return
        self.hub.receive(conn, answer)

    # -- presence --------------------------------------------------------------------------------

    async def _on_presence(self, msg: Msg) -> None:
        try:
            message = decode(msg.data)
            node = str(message["node"])
            if node == self.node:
                return
            self._heard(node, message)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("a presence message did not decode: %s", exc)

    def _heard(self, node: str, message: dict[str, Any]) -> None:
        info = self.presence.others.get(node)
        if info is None:
            info = self.presence.others[node] = NodeInfo(0, time.monotonic())
        info.seen = time.monotonic()
        kind = message["t"]
        if kind == "up":
            bot = str(message["bot"])
            self._place(bot, Place.from_json(message))
            info.bots.add(bot)
        elif kind == "down":
            self._unplace(str(message["bot"]), node, str(message["session"]))
        elif kind == "beat":
            info.free = int(message["free"])
            places = {str(b["bot"]): Place.from_json(b) for b in message["bots"]}
            for bot in info.bots - places.keys():
                self._unplace(bot, node, None)
            for bot, place in places.items():
                self._place(bot, place)
            info.bots = set(places)
        elif kind == "hello":
            self.bus.post(self.bus.subjects.presence, self._beat())
        elif kind == "bye":
            self._drop_node(node)

    def _place(self, bot: str, place: Place) -> None:
        """Another node says it holds `bot`'s stream: unless a newer one is known, the hub gets a
        `RemoteStream` to it (superseding this node's stream of the bot, if it has one)."""
        known = self.presence.places.get(bot)
        if known is not None and known.node != place.node and not place.newer_than(known):
            return  # an older stream; its node hears of the newer one and gives way
        if (place.node, place.session) in self._unreachable:
            return
        self.presence.places[bot] = place
        if known is not None and known.node != place.node and known.node in self.presence.others:
            self.presence.others[known.node].bots.discard(bot)
        conn = self.hub.get(bot)
        stream = None if conn is None else conn.stream
        if (
            conn is not None
            and isinstance(stream, RemoteStream)
            and (stream.node, stream.session_id)
            == (
                place.node,
                place.session,
            )
        ):
            before = conn.elsewhere
            conn.capacity = place.capacity
            conn.elsewhere = place.load_besides(self.node)
            if conn.elsewhere < before:
                self.hub.notify(bot)
            return
        if conn is not None and stream is not None and not stream.relayed:
            log.info("bot %r: a newer stream on node %s supersedes this node's", bot, place.node)
            self._forget_local(conn)
            self._do(lambda: self._unsubscribe(bot))
        hello = Hello("", "", place.capacity, place.legal_actions, (), place.accept_casual)
        conn, _ = self.hub.open(bot, hello, place.session, RemoteStream(self, bot, place))
        conn.elsewhere = place.load_besides(self.node)

    def _unplace(self, bot: str, node: str, session: str | None) -> None:
        """`bot`'s stream on `node` ended (or `node` is gone): its seats here are disconnected."""
        known = self.presence.places.get(bot)
        if known is None or known.node != node or (session is not None and known.session != session):
            return
        del self.presence.places[bot]
        conn = self.hub.get(bot)
        if conn is not None and isinstance(conn.stream, RemoteStream) and conn.stream.node == node:
            self.hub.close(conn, conn.stream)

    def _drop_node(self, node: str) -> None:
        info = self.presence.others.pop(node, None)
        if info is None:
            return
        log.info("node %s left the cluster: its %d bots count as disconnected here", node, len(info.bots))
        for bot in list(info.bots):
            self._unplace(bot, node, None)
        self._free_seats_of(node)

    def _free_seats_of(self, node: str) -> None:
        """`node` is gone, and the games it refereed for this node's bots with it (other nodes play
        them again when their leases run out): their seats no longer count against the bots'
        capacity, here or, from the next beat, anywhere. A node that was only late (dropped for a
        missed beat) gets its routes back with its next request (`_on_relay`)."""
        for bot, routes in self.routes.items():
            gone = [game_id for game_id, origin in routes.items() if origin == node]
            if not gone:
                continue
            for game_id in gone:
                del routes[game_id]
            conn = self.hub.get(bot)
            if conn is not None and conn.elsewhere != len(routes):
                conn.elsewhere = len(routes)
                self.hub.notify(bot)

    def _beat(self) -> bytes:
        for bot, place in self.presence.places.items():
            if place.node != self.node:
                continue
            conn = self.hub.get(bot)
            place.games = 0 if conn is None else len(conn.live_games)
            counts: dict[str, int] = {}
            for node in self.routes.get(bot, {}).values():
                counts[node] = counts.get(node, 0) + 1
            place.routes = counts
        return self.presence.beat()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            if self.bus.connected:
                await self._publish(self._beat())
            late = time.monotonic() - NODE_TIMEOUT_S
            for node in [n for n, info in self.presence.others.items() if info.seen < late]:
                self._drop_node(node)

    # -- NATS lost and back ----------------------------------------------------------------------

    def _lost(self) -> None:
        """Cut from the cluster: every remote seat here is disconnected (grace runs), and every other
        node's bots are forgotten until NATS is back and the nodes beat again."""
        for node in list(self.presence.others):
            self._drop_node(node)
        for conn in self.hub.bots():
            if isinstance(conn.stream, RemoteStream):
                self.hub.close(conn, conn.stream)
        self.routes.clear()
        for conn in self.hub.bots():
            conn.elsewhere = 0

    def _restored(self) -> None:
        self.bus.post(self.bus.subjects.presence, encode({"t": "hello", "node": self.node}))
        self.bus.post(self.bus.subjects.presence, self._beat())

    # -- plumbing --------------------------------------------------------------------------------

    async def _publish(self, data: bytes) -> None:
        await self.bus.publish(self.bus.subjects.presence, data)

    def _do(self, step: Callable[[], Awaitable[None]]) -> None:
        self._control.put_nowait(step)

    async def _run_control(self) -> None:
        while True:
            step = await self._control.get()
            try:
                await step()
            except nats.errors.Error as exc:
                log.warning("node %s: %s", self.node, exc)
