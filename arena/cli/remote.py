"""The `scout-arena` commands' client of a running arena: its Arena service over gRPC (`--server HOST:PORT`).

`RemoteArena` does every operation of `arena.cli.clients.ArenaClient` through the server, returning
the same values `LocalArena` reads from a database. Only commands that talk to a server import it
(and so gRPC and protobuf).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena import records
from arena.api.read_limits import ITEMS_PER_UNIT, RETRY_AFTER_KEY
from arena.api.tls import TlsConfigError
from arena.cli import remote_wire as wire
from arena.cli.clients import ServerRefused, ServerUnreachable
from arena.cli.remote_wire import Page
from arena.errors import ArenaError
from arena.page_tokens import MAX_PAGE_SIZE
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.tournaments.settings import TournamentSettings
from sdk.tls import ClientTls, channel, tls_problem
from sdk.tls import TlsConfigError as ClientTlsError
from sdk.wire import arena_pb2_grpc
from sdk.wire.arena_client import REGISTER_BOT, Call

T = TypeVar("T")

CONNECT_TIMEOUT_S = 5.0
CALL_TIMEOUT_S = 30.0
START_TIMEOUT_S = 300.0
EXPORT_TIMEOUT_S = 600.0
"""Bounds on waiting for the server: to connect, for one call, for a tournament's start (it stores
the whole schedule before it answers: a 50,000-game field took 10-30 s on two cores and over 30 s on
a slower, busy machine, docs/benchmarks.md), for one call of an export (a page of games)."""
_ADDRESS = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})")


class RemoteArena:
    """A running arena's Arena service; `admin_token` is sent with the calls that need it, over TLS
    as `tls` says (None: plaintext)."""

    """Lists are read page after page (MAX_PAGE_SIZE each) and put together, so a command shows the
    whole list as before. With an admin token every call carries it, so the organiser's own polling
    (the demo's progress bar) is never counted against the host's read limit. A call the arena
    refuses for the read limit is tried again after the wait it names, within the call's deadline."""

    def __init__(self, target: str, admin_token: str | None = None, tls: ClientTls | None = None) -> None:
        """`target` is HOST:PORT, or several comma-separated (the nodes of one cluster, which answer
        alike): the first that connects is used."""
        addresses = [a.strip() for a in target.split(",")]
        for address in addresses:
            if not _ADDRESS.fullmatch(address):
                raise ServerUnreachable(f"the arena's address must be HOST:PORT, not {address!r}")
        self._admin_token = admin_token
        self._tls = tls
        for address in addresses:
            try:
                self._channel = channel(address, tls)
            except ClientTlsError as exc:
                raise TlsConfigError(str(exc)) from None
            if _connects(self._channel):
                break
            problem = tls_problem(address, _connect_error(self._channel), tls)
            self._channel.close()
            if problem is not None:
                raise ServerUnreachable(problem)
        else:
            raise ServerUnreachable(
                f"no arena answers at {', '.join(addresses)}: start one with `scout-arena serve`, "
                "or read a database without a server with --db"
            )
        self.target = address
        self._stub = arena_pb2_grpc.ArenaStub(self._channel)

    def _call(self, call: Call[T], *args: Any, admin: bool = True, timeout: float | None = None, **fields: object) -> T:
        """Make `call`, with the admin token if `admin` and this client has one (the organiser's
        calls need it; the reads carry it so the organiser's polling is not counted as a stranger's),
        waiting up to `timeout` (CALL_TIMEOUT_S if None)."""
        return self._send(call, call.request(*args, **fields), admin, timeout)

    def _send(self, call: Call[T], request: Message, admin: bool, timeout: float | None = None) -> T:
        metadata = self._metadata(admin)
        timeout = CALL_TIMEOUT_S if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            try:
                reply = getattr(self._stub, call.method)(request, metadata=metadata, timeout=timeout)
            except grpc.RpcError as exc:
                self._wait_or_raise(exc, deadline)
            else:
                return call.read(reply, request)

    def _metadata(self, admin: bool) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self._admin_token}"),) if admin and self._admin_token else ()

    def _wait_or_raise(self, exc: grpc.RpcError, deadline: float) -> None:
        """Sleep the wait a RESOURCE_EXHAUSTED refusal names, if that ends before `deadline`; else
        raise the refusal as an ArenaError."""
        wait = _retry_after(exc)
        if wait is None or time.monotonic() + wait > deadline:
            raise self._refusal(exc) from None
        time.sleep(wait)

    def _listed(self, listing: Call[Page[T]], **scope: object) -> list[T]:
        """Every item of a paginated list: a first page of ITEMS_PER_UNIT, then MAX_PAGE_SIZE a page.
        The arena charges a list call by the page size it asks for, so a first page of a thousand
        would cost a host 40 of its 60 read units even for a table of three rows, and a person's
        second command would wait seconds for the bucket; a long list costs the same either way."""
        out: list[T] = []
        token = ""
        size = ITEMS_PER_UNIT
        while True:
            request = listing.request(page_size=size, page_token=token, **scope)
            items, token = self._send(listing, request, True)
            out += items
            if not token:
                return out
            size = MAX_PAGE_SIZE

    def _refusal(self, exc: grpc.RpcError) -> ArenaError:
        code, details = exc.code(), exc.details() or ""
        if code is grpc.StatusCode.UNAUTHENTICATED:
            return ServerRefused(
                f"the arena at {self.target} refused the admin token: give the one it printed on its first "
                "start with --admin-token or SCOUT_ARENA_ADMIN_TOKEN"
            )
        if code is grpc.StatusCode.UNIMPLEMENTED:
            return ServerRefused(
                f"the arena at {self.target} keeps no database, so it runs no tournaments: "
                "start it with `scout-arena serve`"
            )
        if code is grpc.StatusCode.DEADLINE_EXCEEDED:
            return ServerUnreachable(f"the arena at {self.target} did not answer in time")
        if code is grpc.StatusCode.UNAVAILABLE and not details.startswith("the arena"):
            problem = tls_problem(self.target, details, self._tls)
            return ServerUnreachable(problem or f"lost the arena at {self.target}: {details}")
        return ServerRefused(details)

    def register_bot(self, name: str) -> str:
        return self._call(REGISTER_BOT, name=name, admin=False)

    def create_tournament(self, settings: TournamentSettings) -> records.Tournament:
        return self._call(wire.CREATE_TOURNAMENT, settings)

    def start_tournament(self, name: str) -> records.Tournament:
        return self._call(wire.START_TOURNAMENT, name=name, timeout=START_TIMEOUT_S)

    def tournaments(self) -> list[records.Tournament]:
        return self._listed(wire.LIST_TOURNAMENTS)

    def tournament(self, name: str) -> records.Tournament:
        return self._call(wire.SHOW_TOURNAMENT, name=name)

    def bots(self) -> list[records.BotRecord]:
        return self._listed(wire.LIST_BOTS)

    def ratings(self, tournament: str | None, bootstrap: int = 0) -> list[RatingRow]:
        return self._listed(wire.RATINGS, tournament=tournament, bootstrap_resamples=bootstrap)

    def head_to_head(self, tournament: str | None) -> Crosstable:
        return Crosstable(tuple(self._listed(wire.HEAD_TO_HEAD, tournament=tournament)))

    def games(self, tournament: str | None, status: records.GameStatus | None) -> list[records.GameInfo]:
        return self._listed(wire.LIST_GAMES, tournament=tournament, status=status)

    def game(self, game_id: int) -> records.GameDetail:
        return self._call(wire.SHOW_GAME, id=game_id)

    def export(self, tournament: str | None) -> Iterator[str]:
        """Call after call of MAX_PAGE_SIZE games, each continuing after the last game received."""
        token = ""
        deadline = time.monotonic() + CALL_TIMEOUT_S
        while True:
            sent = 0
            request = wire.EXPORT_GAMES.request(tournament=tournament, page_size=MAX_PAGE_SIZE, page_token=token)
            try:
                export = getattr(self._stub, wire.EXPORT_GAMES.method)
                for msg in export(request, metadata=self._metadata(True), timeout=EXPORT_TIMEOUT_S):
                    line, token = wire.EXPORT_GAMES.read(msg, request)
                    yield line
                    sent += 1
                    deadline = time.monotonic() + CALL_TIMEOUT_S
            except grpc.RpcError as exc:
                self._wait_or_raise(exc, deadline)
                continue
            if sent < MAX_PAGE_SIZE or not token:
                return

    def reveal_seeds(self, tournament: str) -> records.SeedReveal:
        return self._call(wire.REVEAL_SEEDS, tournament=tournament)

    def close(self) -> None:
        self._channel.close()


def _retry_after(exc: grpc.RpcError) -> float | None:
    """The seconds a RESOURCE_EXHAUSTED refusal asks the caller to wait, if it names them."""
    if exc.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    for entry in exc.trailing_metadata() or ():
        if entry.key == RETRY_AFTER_KEY and str(entry.value).isdigit():
            return int(entry.value) / 1000
    return None


def _connects(channel: grpc.Channel) -> bool:
    """Whether `channel` connects within CONNECT_TIMEOUT_S; a refused connection answers at once."""
    settled = threading.Event()
    states: list[grpc.ChannelConnectivity] = []

    def watch(state: grpc.ChannelConnectivity) -> None:
        if state in (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE):
            states.append(state)
            settled.set()

    channel.subscribe(watch, try_to_connect=True)
    try:
        settled.wait(CONNECT_TIMEOUT_S)
    finally:
        channel.unsubscribe(watch)
    return bool(states) and states[0] is grpc.ChannelConnectivity.READY


def _connect_error(channel: grpc.Channel) -> str | None:
    """gRPC's reason a channel that just failed to connect did so (a refused connection, a failed
    TLS handshake, ...), from one health check that fails at once; None if it connects after all."""
    try:
        # types-grpcio-health-checking declares HealthStub without its methods.
        stub = health_pb2_grpc.HealthStub(channel)
        stub.Check(health_pb2.HealthCheckRequest(), timeout=CONNECT_TIMEOUT_S)  # type: ignore[attr-defined]
    except grpc.RpcError as exc:
        return exc.details()
    return None
