"""The arena side of the wire: protocol and result values to and from protobuf messages.

The only arena module that reads or builds `_pb2` messages. Cards and actions use the SDK's codecs
(`sdk.wire.convert`), so a bot and the arena cannot disagree on them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from arena.api.convert_tournaments import seat_result_to_pb
from arena.names import MAX_GAME_ID
from arena.play.referee import Limits
from arena.play.results import GameResult
from arena.play.sessions import MalformedDecision, Received
from sdk.engine import (
    Action,
    Card,
    Event,
    FlipsRevealed,
    PlayerView,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
)
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
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
from sdk.wire import arena_pb2 as arena_pb
from sdk.wire import bot_session_pb2 as session_pb
from sdk.wire import game_pb2 as game_pb
from sdk.wire.convert import (
    END_REASON_TO_PB,
    END_TO_PB,
    ERROR_TO_PB,
    KIND_TO_PB,
    PHASE_TO_PB,
    TOURNAMENT_END_TO_PB,
    WireError,
    action_from_pb,
    action_to_pb,
    fill_cards,
)
from sdk.wire.framing import int_field, length_delimited, string_field, varint

UNDECODABLE = DecodeError
"""Raised by a stream read whose bytes are not a BotBatch; the servicer ends such calls."""

__all__ = [
    "BOT_SESSION",
    "SERVICE_NAMES",
    "WireError",
    "arena_batch_bytes",
    "bot_batch_from_bytes",
    "bot_batch_from_pb",
    "bot_message_from_pb",
    "describe_response_to_pb",
    "play_request_from_pb",
    "play_response_to_pb",
    "register_request_name",
    "register_response_to_pb",
]

SERVICE_NAMES = (
    session_pb.DESCRIPTOR.services_by_name["BotSession"].full_name,
    arena_pb.DESCRIPTOR.services_by_name["Arena"].full_name,
)
"""The full names of the arena's own services, for health checking and reflection."""
BOT_SESSION = SERVICE_NAMES[0]
bot_batch_from_bytes = session_pb.BotBatch.FromString
"""The Play stream's request deserializer; it raises UNDECODABLE."""

# ---- bot -> arena ---------------------------------------------------------------------------------


def bot_batch_from_pb(batch: session_pb.BotBatch) -> list[Received | WireError]:
    """Decode one write of a bot, in order; each message that cannot be routed is a WireError."""
    out: list[Received | WireError] = []
    for msg in batch.messages:
        try:
            out.append(bot_message_from_pb(msg))
        except WireError as exc:
            out.append(exc)
    return out


def bot_message_from_pb(msg: session_pb.BotMessage) -> Received:
    """Decode a bot's message; WireError names what is missing or malformed in one that cannot be
    routed. A Decision with readable ids but no valid action is a MalformedDecision: its request
    gets the rejection."""
    kind = msg.WhichOneof("kind")
    if kind == "decision":
        d = msg.decision
        if len(d.game_id) > MAX_GAME_ID:
            raise WireError(
                f"the Decision for request {d.request_id} names a game id of {len(d.game_id)} characters; "
                f"game ids have at most {MAX_GAME_ID}"
            )
        if not d.HasField("action"):
            return MalformedDecision(d.game_id, d.request_id, f"the Decision for request {d.request_id} has no action")
        try:
            return Decision(d.game_id, d.request_id, action_from_pb(d.action))
        except WireError as exc:
            return MalformedDecision(d.game_id, d.request_id, str(exc))
    if kind == "hello":
        h = msg.hello
        return Hello(h.bot_name, h.bot_version, h.capacity, h.want_legal_actions, tuple(h.tournaments))
    raise WireError("a BotMessage must set hello or decision")


# ---- arena -> bot ---------------------------------------------------------------------------------


_PHASE_FIELDS = {phase: int_field(b"\x28", value) for phase, value in PHASE_TO_PB.items()}
_KIND_FIELDS = {kind: int_field(b"\x18", value) for kind, value in KIND_TO_PB.items()}


def _request_entry(r: DecisionRequest, legal_actions: bool) -> bytes:
    """`ArenaMessage.decision_request` in wire form, joined field by field (`sdk.wire.framing`) from
    cached pieces: cards, seats and actions repeat request after request, and building the message
    with the protobuf library cost more. Field numbers: proto/scout/arena/v1/*.proto."""
    obs, t = r.observation, r.observation.table
    table = [
        int_field(b"\x08", t.players),
        int_field(b"\x10", t.round),
        int_field(b"\x18", t.rounds),
        int_field(b"\x20", t.first_player),
        _PHASE_FIELDS[t.phase],
    ]
    if t.to_move is not None:
        table.append(b"\x30" + varint(t.to_move))
    table += [_active_set_entry(c) for c in t.active_set]
    if t.active_owner is not None:
        table.append(b"\x40" + varint(t.active_owner))
    table += [_seat_entry(p) for p in t.seats]
    table.append(int_field(b"\x50", t.round_actions))
    observation = [int_field(b"\x08", obs.seat), *[_hand_entry(c) for c in obs.hand]]
    observation.append(length_delimited(b"\x1a", b"".join(table)))
    request = [
        string_field(b"\x0a", r.game_id),
        int_field(b"\x10", r.request_id),
        _KIND_FIELDS[r.kind],
        length_delimited(b"\x22", b"".join(observation)),
        int_field(b"\x28", r.time_left_ms),
        int_field(b"\x30", r.time_bank_ms),
    ]
    if legal_actions:
        request += [_legal_action_entry(a) for a in obs.legal_actions]
    return length_delimited(b"\x1a", b"".join(request))


_seat_entries: dict[tuple[object, ...], bytes] = {}
_SEAT_ENTRIES_LIMIT = 1 << 14
"""About 4 MB; enough for the seats of thousands of games in flight, the only ones that repeat."""


def _seat_entry(p: PlayerView) -> bytes:
    """A `TableView.seats` entry in wire form, cached by value: between two requests of a game
    only the mover's view changes, and a lookup is several times cheaper than building it."""
    key = (p.seat, p.hand_size, p.captured, p.scout_chips, p.has_scout_show, p.flipped, p.round_scores, p.total)
    entry = _seat_entries.get(key)
    if entry is None:
        if len(_seat_entries) >= _SEAT_ENTRIES_LIMIT:
            _seat_entries.clear()
        view = game_pb.PlayerView(
            seat=p.seat,
            hand_size=p.hand_size,
            captured=p.captured,
            scout_chips=p.scout_chips,
            has_scout_show=p.has_scout_show,
            flipped=p.flipped,
            round_scores=p.round_scores,
            total=p.total,
        )
        entry = _seat_entries[key] = game_pb.TableView(seats=[view]).SerializeToString()
    return entry


@functools.cache
def _hand_entry(card: Card) -> bytes:
    """An `Observation.hand` entry in wire form (one per card orientation: 90 at most)."""
    return game_pb.Observation(hand=[game_pb.Card(top=card.top, bottom=card.bottom)]).SerializeToString()


@functools.cache
def _active_set_entry(card: Card) -> bytes:
    """A `TableView.active_set` entry in wire form."""
    return game_pb.TableView(active_set=[game_pb.Card(top=card.top, bottom=card.bottom)]).SerializeToString()


def _scouted_to_pb(e: Scouted) -> game_pb.Scouted:
    return game_pb.Scouted(
        seat=e.seat,
        end=END_TO_PB[e.end],
        flip=e.flip,
        card=game_pb.Card(top=e.card.top, bottom=e.card.bottom),
        position=e.position,
    )


def _shown_to_pb(e: Shown) -> game_pb.Shown:
    msg = game_pb.Shown(seat=e.seat, start=e.start)
    fill_cards(msg.cards, e.cards)
    return msg


def event_to_pb(event: Event) -> game_pb.Event:
    if type(event) is Shown:
        return game_pb.Event(shown=_shown_to_pb(event))
    if type(event) is Scouted:
        return game_pb.Event(scouted=_scouted_to_pb(event))
    if type(event) is ScoutedAndShown:
        pair = game_pb.ScoutedAndShown(scouted=_scouted_to_pb(event.scouted), shown=_shown_to_pb(event.shown))
        return game_pb.Event(scouted_and_shown=pair)
    if type(event) is RoundStarted:
        return game_pb.Event(
            round_started=game_pb.RoundStarted(
                round=event.round, first_player=event.first_player, hand_size=event.hand_size
            )
        )
    if type(event) is FlipsRevealed:
        return game_pb.Event(flips_revealed=game_pb.FlipsRevealed(round=event.round, flips=event.flips))
    if type(event) is RoundEnded:
        return game_pb.Event(
            round_ended=game_pb.RoundEnded(
                round=event.round,
                reason=END_REASON_TO_PB[event.reason],
                scores=event.scores,
                hand_sizes=event.hand_sizes,
            )
        )
    raise TypeError(f"{event!r} is not a public event")


@functools.lru_cache(maxsize=1 << 16)
def _legal_action_entry(action: Action) -> bytes:
    """One `legal_actions` entry of a DecisionRequest in wire form. Legal-action lists repeat the
    same actions request after request, so each is encoded once; parsing the joined entries into
    the request (in C) is several times faster than building the messages in Python."""
    return session_pb.DecisionRequest(legal_actions=[action_to_pb(action)]).SerializeToString()


def _event_entry(e: PublicEvent) -> bytes:
    """`ArenaMessage.public_event` in wire form (built once per event, see `_EventCache`)."""
    event = length_delimited(b"\x1a", event_to_pb(e.event).SerializeToString())
    return length_delimited(b"\x32", string_field(b"\x0a", e.game_id) + int_field(b"\x10", e.seq) + event)


def _accepted_entry(a: ActionAccepted) -> bytes:
    """`ArenaMessage.action_accepted` in wire form: one goes out for every decision."""
    return length_delimited(b"\x22", string_field(b"\x0a", a.game_id) + int_field(b"\x10", a.request_id))


def _rejected(r: ActionRejected) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        action_rejected=session_pb.ActionRejected(
            game_id=r.game_id, request_id=r.request_id, reason=r.reason, attempts_left=r.attempts_left
        )
    )


def _game_started(g: GameStarted) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        game_started=session_pb.GameStarted(
            game_id=g.game_id,
            seat=g.seat,
            players=g.players,
            move_limit_ms=g.move_limit_ms,
            time_bank_ms=g.time_bank_ms,
        )
    )


def _game_over(g: GameOver) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        game_over=session_pb.GameOver(
            game_id=g.game_id,
            totals=g.totals,
            ranks=g.ranks,
            forfeits=[session_pb.Forfeit(seat=seat, reason=reason) for seat, reason in g.forfeits],
            round_end_reasons=[END_REASON_TO_PB[r] for r in g.round_end_reasons],
        )
    )


def _welcome(w: Welcome) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        welcome=session_pb.Welcome(session_id=w.session_id, bot_name=w.bot_name, capacity=w.capacity)
    )


def _error(e: ErrorNotice) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        error=session_pb.Error(code=ERROR_TO_PB[e.code], message=e.message, game_id=e.game_id, request_id=e.request_id)
    )


def _tournament_over(t: TournamentOver) -> session_pb.ArenaMessage:
    return session_pb.ArenaMessage(
        tournament_over=session_pb.TournamentOver(tournament=t.tournament, end=TOURNAMENT_END_TO_PB[t.end])
    )


_ENCODERS: dict[type, Callable[[Any], session_pb.ArenaMessage]] = {
    ActionRejected: _rejected,
    GameStarted: _game_started,
    GameOver: _game_over,
    Welcome: _welcome,
    ErrorNotice: _error,
    TournamentOver: _tournament_over,
}


def arena_batch_bytes(msgs: Sequence[ArenaMessage], legal_actions: bool) -> bytes:
    """The serialized ArenaBatch of `msgs`, what the Play stream writes (`service.add_bot_session`).

    A serialized repeated field is the concatenation of its entries, each framed with the field's
    tag and length, so a batch is joined from messages serialized one by one: a public event
    goes to every bot at its table and is serialized once for all of them (`_EventCache`)."""
    parts = []
    for m in msgs:
        kind = type(m)
        if kind is PublicEvent:
            parts.append(_events.framed(m))
        elif kind is DecisionRequest:
            parts.append(length_delimited(_BATCH_ENTRY, _request_entry(m, legal_actions)))
        elif kind is ActionAccepted:
            parts.append(length_delimited(_BATCH_ENTRY, _accepted_entry(m)))
        else:
            parts.append(length_delimited(_BATCH_ENTRY, _ENCODERS[kind](m).SerializeToString()))
    return b"".join(parts)


_BATCH_ENTRY = b"\x0a"
"""`ArenaBatch.messages`: field 1, length-delimited."""


class _EventCache:
    """Framed public events, by message object: the referee sends one `PublicEvent` object to every
    bot at the table. Entries hold their message, so an id is never reused while cached; the
    oldest go first, long after the table's bots were sent them."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[int, tuple[PublicEvent, bytes]] = OrderedDict()

    def framed(self, e: PublicEvent) -> bytes:
        entry = self._entries.get(id(e))
        if entry is not None and entry[0] is e:
            return entry[1]
        if len(self._entries) >= self._size:
            self._entries.popitem(last=False)
        data = length_delimited(_BATCH_ENTRY, _event_entry(e))
        self._entries[id(e)] = (e, data)
        return data


_events = _EventCache(4096)


# ---- the operator service -------------------------------------------------------------------------


def register_request_name(req: arena_pb.RegisterBotRequest) -> str:
    return req.name


def register_response_to_pb(name: str, token: str) -> arena_pb.RegisterBotResponse:
    return arena_pb.RegisterBotResponse(name=name, token=token)


def describe_response_to_pb(arena_id: str) -> arena_pb.DescribeArenaResponse:
    return arena_pb.DescribeArenaResponse(arena_id=arena_id)


def play_request_from_pb(req: arena_pb.PlayGameRequest, defaults: Limits) -> tuple[tuple[str, ...], int, Limits]:
    """(bots in seat order, seed, limits); a ValueError explains a limit out of range."""
    overrides = {
        name: getattr(req, field)
        for field, name in (("move_limit_ms", "move_ms"), ("time_bank_ms", "time_bank_ms"), ("grace_ms", "grace_ms"))
        if req.HasField(field)
    }
    return tuple(req.bots), req.seed, dataclasses.replace(defaults, **overrides)


def play_response_to_pb(game_id: str, result: GameResult) -> arena_pb.PlayGameResponse:
    msg = arena_pb.PlayGameResponse(
        game_id=game_id,
        round_end_reasons=[END_REASON_TO_PB[r.reason] for r in result.record.results],
        record_json=result.record.to_json(),
    )
    msg.seats.extend([seat_result_to_pb(s) for s in result.seats])
    return msg
