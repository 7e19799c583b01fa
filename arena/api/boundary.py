"""The Arena service at the wire: every request decoded here and its strings checked against their
caps before a servicer method sees it.

grpc's generated registration decodes requests itself: bytes that are not the request message end
the call UNKNOWN and log a traceback, and so does a method the servicer leaves unimplemented.
`add_arena` registers the same methods with requests passed through as bytes, so that

* a corrupt request is one warning line and INVALID_ARGUMENT "the request is not a serialized ...";
* a string over its cap (STRING_CAPS: every string field of every request) is INVALID_ARGUMENT
  naming the field and the cap, never echoing the string;
* a method the servicer does not implement is UNIMPLEMENTED, without a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from arena.names import MAX_ENTRY_CODE, MAX_LOOKUP_NAME, MAX_NAME, MAX_PAGE_TOKEN
from sdk.wire import arena_pb2

log = logging.getLogger(__name__)

ARENA = arena_pb2.DESCRIPTOR.services_by_name["Arena"]


@dataclass(frozen=True)
class Cap:
    """The most characters a string field may hold, and what the field is, for the refusal."""

    limit: int
    what: str


_NEW_BOT = Cap(MAX_NAME, "a bot name")
_NEW_TOURNAMENT = Cap(MAX_NAME, "a tournament name")
_TOURNAMENT = Cap(MAX_LOOKUP_NAME, "a tournament name")
_PAGE_TOKEN = Cap(MAX_PAGE_TOKEN, "a page token")
_ENTRY_CODE = Cap(MAX_ENTRY_CODE, "an entry code")
_V1 = "scout.arena.v1."
HELLO_TOURNAMENTS = f"{_V1}Hello.tournaments"
"""The one string field of the bot session's Hello with a cap here: its names and version have
patterns of their own (`arena.api.bot_session_service.hello_problem`)."""

STRING_CAPS: dict[str, Cap] = {
    f"{_V1}{field}": cap
    for field, cap in (
        ("RegisterBotRequest.name", _NEW_BOT),
        ("PlayGameRequest.bots", _NEW_BOT),
        ("CreateTournamentRequest.name", _NEW_TOURNAMENT),
        ("CreateTournamentRequest.entry_code", _ENTRY_CODE),
        ("StartTournamentRequest.name", _TOURNAMENT),
        ("EnterTournamentRequest.tournament", _TOURNAMENT),
        ("EnterTournamentRequest.entry_code", _ENTRY_CODE),
        ("ListTournamentsRequest.page_token", _PAGE_TOKEN),
        ("ShowTournamentRequest.name", _TOURNAMENT),
        ("ListBotsRequest.page_token", _PAGE_TOKEN),
        ("RatingsRequest.tournament", _TOURNAMENT),
        ("RatingsRequest.page_token", _PAGE_TOKEN),
        ("HeadToHeadRequest.tournament", _TOURNAMENT),
        ("HeadToHeadRequest.page_token", _PAGE_TOKEN),
        ("ListGamesRequest.tournament", _TOURNAMENT),
        ("ListGamesRequest.page_token", _PAGE_TOKEN),
        ("ExportGamesRequest.tournament", _TOURNAMENT),
        ("ExportGamesRequest.page_token", _PAGE_TOKEN),
        ("RevealSeedsRequest.tournament", _TOURNAMENT),
        ("Hello.tournaments", _TOURNAMENT),
    )
}
"""Every string field of every Arena request, by full name, and the tournaments a bot session's
Hello names. Names being created follow the name rule (`arena.names`; the store checks the rest
of it); names looked up may be as long as the names of tournaments created before it."""


def string_fields(message: Descriptor) -> list[FieldDescriptor]:
    """Every string field of `message` and of the messages it holds."""
    found: list[FieldDescriptor] = []
    for field in message.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            found.append(field)
        elif field.message_type is not None and field.message_type is not message:
            found += string_fields(field.message_type)
    return found


def too_long(request: Message) -> str | None:
    """Why `request` is refused for a string over its cap, or None."""
    for field, value in request.ListFields():
        if field.type == FieldDescriptor.TYPE_STRING:
            cap = STRING_CAPS[field.full_name]
            for text in value if field.is_repeated else (value,):
                if len(text) > cap.limit:
                    return (
                        f"{cap.what} may have at most {cap.limit} characters, not {len(text)} "
                        f"({request.DESCRIPTOR.name}.{field.name})"
                    )
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for part in value if field.is_repeated else (value,):
                if problem := too_long(part):
                    return problem
    return None


WireCall = grpc.aio.ServicerContext[bytes, Message]
"""An Arena call as `add_arena` registers it: the request's bytes in, reply messages out."""
Behaviour = Callable[[Message, WireCall], Any]
"""A servicer method, found by name: its reply is awaited, or iterated for a streaming call."""


async def _request(data: bytes, context: WireCall, method: MethodDescriptor) -> Message:
    """The request of a call, decoded and checked; the call ends INVALID_ARGUMENT if it is neither."""
    kind = method.input_type.full_name
    try:
        request = GetMessageClass(method.input_type).FromString(data)
    except DecodeError:
        log.warning(
            "%s from %s: %d bytes that are not a serialized %s; refused", method.name, context.peer(), len(data), kind
        )
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"the request is not a serialized {kind}")
    if problem := too_long(request):
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
    return request


class Servicer(Protocol):
    """What `add_arena` serves: the Arena calls (`arena.api.arena_service.ArenaService`), and which
    of them this arena answers."""

    def serves(self, method: str) -> bool: ...


async def _unimplemented(method: MethodDescriptor, context: WireCall) -> None:
    await context.abort(
        grpc.StatusCode.UNIMPLEMENTED,
        f"this arena does not serve {method.name}: tournaments, ratings and games need an arena that keeps a "
        "database (`scout-arena serve`)",
    )


def _handler(servicer: Servicer, method: MethodDescriptor) -> grpc.RpcMethodHandler[bytes, Message]:
    serialize = GetMessageClass(method.output_type).SerializeToString
    implemented = servicer.serves(method.name)
    behaviour: Behaviour = getattr(servicer, method.name)

    if method.server_streaming:

        async def stream(data: bytes, context: WireCall) -> AsyncIterator[Message]:
            request = await _request(data, context, method)
            if not implemented:
                await _unimplemented(method, context)
            replies: AsyncIterator[Message] = behaviour(request, context)
            async for reply in replies:
                yield reply

        return grpc.unary_stream_rpc_method_handler(stream, request_deserializer=None, response_serializer=serialize)

    async def unary(data: bytes, context: WireCall) -> Message:
        request = await _request(data, context, method)
        if not implemented:
            await _unimplemented(method, context)
        reply: Awaitable[Message] = behaviour(request, context)
        return await reply

    return grpc.unary_unary_rpc_method_handler(unary, request_deserializer=None, response_serializer=serialize)


def add_arena(servicer: Servicer, server: grpc.aio.Server) -> None:
    """Serve `servicer`'s Arena methods on `server` (in place of the generated
    `add_ArenaServicer_to_server`). Refuses to if a request string field has no cap."""
    uncapped = [
        f.full_name for m in ARENA.methods for f in string_fields(m.input_type) if f.full_name not in STRING_CAPS
    ]
    if uncapped:
        raise RuntimeError(
            f"no cap for the request string fields {', '.join(uncapped)} (arena.api.boundary.STRING_CAPS)"
        )
    handlers = {method.name: _handler(servicer, method) for method in ARENA.methods}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(ARENA.full_name, handlers),))
    server.add_registered_method_handlers(ARENA.full_name, handlers)
