"""The client's side of the Arena service: one `Call` per method, requests built from the service's
descriptor.

A bot's program makes three calls (register, describe the arena, enter a tournament), defined
here; the `scout-arena` CLI makes the organiser's calls with the same `Call` and `request`
(`arena.cli.remote_wire`). The server's side is `arena.api.arena_wire`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from . import arena_pb2 as pb
from .codecs import wire_prefix

T = TypeVar("T")

ARENA = pb.DESCRIPTOR.services_by_name["Arena"]


def request(method: str, **fields: object) -> Message:
    """The request of `method`, with `fields` set (None leaves a field unset). A domain enum's
    member is sent as the wire value of the same name (`sdk.wire.codecs.wire_prefix`)."""
    input_type = ARENA.methods_by_name[method].input_type
    message: type[Message] = getattr(pb, input_type.name)
    return message(**{name: _wire_value(input_type.fields_by_name[name], value) for name, value in fields.items()})


def _wire_value(field: FieldDescriptor, value: object) -> object:
    enum = field.enum_type
    if not isinstance(value, Enum) or enum is None:
        return value
    return enum.values_by_name[wire_prefix(enum) + value.name].number


@dataclass(frozen=True)
class Call(Generic[T]):
    """One method of the Arena service as a client calls it: `read` turns its reply (and its
    request, for what the reply does not repeat) into the value the caller wants; `build`, if
    given, makes the request from the caller's arguments instead of `request`'s keywords."""

    method: str
    read: Callable[[Any, Any], T]
    build: Callable[..., Message] | None = None

    def request(self, *args: Any, **fields: object) -> Message:
        return self.build(*args, **fields) if self.build is not None else request(self.method, **fields)

    async def ask(
        self, stub: Any, *args: Any, metadata: Sequence[tuple[str, str]] = (), timeout: float, **fields: object
    ) -> T:
        """Make the call on an asyncio stub; a refusal raises the stub's `grpc.aio.AioRpcError`."""
        sent = self.request(*args, **fields)
        return self.read(await getattr(stub, self.method)(sent, metadata=metadata, timeout=timeout), sent)


@dataclass(frozen=True)
class Entry:
    """What entering a tournament answers: the bot's name there and the tournament's progress."""

    bot: str
    status: str
    """'scheduled', 'running', 'finished', 'failed' (or 'unknown', from a newer arena)."""
    finished: int
    games: int
    """Games in all; none are scheduled before the tournament starts."""


_STATUS_NAMES = {
    v.number: v.name.removeprefix(wire_prefix(v.type)).lower()
    for v in pb.TournamentStatus.DESCRIPTOR.values
    if v.number
}


def field(name: str) -> Callable[[Any, Any], Any]:
    """The `read` of a Call whose reply says one thing: its field `name`."""
    return lambda reply, _: getattr(reply, name)


def _entry(reply: pb.EnterTournamentResponse, _: object) -> Entry:
    t = reply.tournament
    return Entry(
        reply.bot,
        _STATUS_NAMES.get(t.status, "unknown"),
        t.games.finished,
        t.games.scheduled + t.games.running + t.games.finished,
    )


REGISTER_BOT: Call[str] = Call("RegisterBot", field("token"))
"""(name=...) -> the bot's token."""
DESCRIBE_ARENA: Call[str] = Call("DescribeArena", field("arena_id"))
"""() -> the arena's id."""
ENTER_TOURNAMENT: Call[Entry] = Call("EnterTournament", _entry)
"""(tournament=..., entry_code=... or None), with the bot's token as metadata."""
