"""The arena's side of a bot session: the bots' batches decoded, the arena's batches encoded.

The bot's side is `sdk.wire.bot_session`; enums, cards, actions and events are `sdk.wire.codecs`,
so a bot and the arena cannot disagree on them. Hot messages are joined from cached pieces
(`sdk.wire.framing`), their tags read from the descriptors.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from arena.names import MAX_GAME_ID
from arena.play.sessions import MalformedDecision, Outgoing, Received, Relayed
from sdk.engine import Action, Card, PlayerView
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
from sdk.wire import game_pb2 as game_pb
from sdk.wire.codecs import (
    CAUSE_TO_PB,
    END_REASON_TO_PB,
    ERROR_TO_PB,
    KIND_TO_PB,
    PHASE_TO_PB,
    TOURNAMENT_END_TO_PB,
    WireError,
    action_from_pb,
    action_to_pb,
    event_to_pb,
)
from sdk.wire.framing import int_field, length_delimited, string_field, tag, varint

UNDECODABLE = DecodeError
"""Raised by a stream read whose bytes are not a BotBatch; the servicer ends such calls."""

__all__ = ["BOT_SESSION", "UNDECODABLE", "WireError", "arena_batch_bytes", "bot_batch_from_bytes", "bot_batch_from_pb"]

BOT_SESSION = session_pb.DESCRIPTOR.services_by_name["BotSession"].full_name
"""The service's full name, for its handlers, health checking and reflection."""
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
        return Hello(h.bot_name, h.bot_version, h.capacity, h.want_legal_actions, tuple(h.tournaments), h.accept_casual)
    raise WireError("a BotMessage must set hello or decision")


# ---- arena -> bot ---------------------------------------------------------------------------------


_TABLE, _OBSERVATION, _REQUEST = game_pb.TableView, game_pb.Observation, session_pb.DecisionRequest
_PLAYERS, _ROUND, _ROUNDS = tag(_TABLE, "players"), tag(_TABLE, "round"), tag(_TABLE, "rounds")
_FIRST_PLAYER, _TO_MOVE = tag(_TABLE, "first_player"), tag(_TABLE, "to_move")
_ACTIVE_OWNER, _ROUND_ACTIONS = tag(_TABLE, "active_owner"), tag(_TABLE, "round_actions")
_SEAT, _TABLE_VIEW = tag(_OBSERVATION, "seat"), tag(_OBSERVATION, "table")
_GAME_ID, _REQUEST_ID, _OBSERVED = tag(_REQUEST, "game_id"), tag(_REQUEST, "request_id"), tag(_REQUEST, "observation")
_TIME_LEFT, _TIME_BANK = tag(_REQUEST, "time_left_ms"), tag(_REQUEST, "time_bank_ms")
_PHASE_FIELDS = {phase: int_field(tag(_TABLE, "phase"), value) for phase, value in PHASE_TO_PB.items()}
_KIND_FIELDS = {kind: int_field(tag(_REQUEST, "kind"), value) for kind, value in KIND_TO_PB.items()}
_BATCH_ENTRY = tag(session_pb.ArenaBatch, "messages")
_DECISION_REQUEST = tag(session_pb.ArenaMessage, "decision_request")
_ACTION_ACCEPTED = tag(session_pb.ArenaMessage, "action_accepted")
_PUBLIC_EVENT = tag(session_pb.ArenaMessage, "public_event")
_EVENT_GAME_ID, _SEQ = tag(session_pb.PublicEvent, "game_id"), tag(session_pb.PublicEvent, "seq")
_EVENT = tag(session_pb.PublicEvent, "event")
_ACCEPTED_GAME_ID = tag(session_pb.ActionAccepted, "game_id")
_ACCEPTED_REQUEST_ID = tag(session_pb.ActionAccepted, "request_id")


def _request_entry(r: DecisionRequest, legal_actions: bool) -> bytes:
    """`ArenaMessage.decision_request` in wire form, joined field by field (`sdk.wire.framing`) from
    cached pieces: cards, seats and actions repeat request after request, and building the message
    with the protobuf library cost more."""
    obs, t = r.observation, r.observation.table
    table = [
        int_field(_PLAYERS, t.players),
        int_field(_ROUND, t.round),
        int_field(_ROUNDS, t.rounds),
        int_field(_FIRST_PLAYER, t.first_player),
        _PHASE_FIELDS[t.phase],
    ]
    if t.to_move is not None:
        table.append(_TO_MOVE + varint(t.to_move))
    table += [_active_set_entry(c) for c in t.active_set]
    if t.active_owner is not None:
        table.append(_ACTIVE_OWNER + varint(t.active_owner))
    table += [_seat_entry(p) for p in t.seats]
    table.append(int_field(_ROUND_ACTIONS, t.round_actions))
    observation = [int_field(_SEAT, obs.seat), *[_hand_entry(c) for c in obs.hand]]
    observation.append(length_delimited(_TABLE_VIEW, b"".join(table)))
    request = [
        string_field(_GAME_ID, r.game_id),
        int_field(_REQUEST_ID, r.request_id),
        _KIND_FIELDS[r.kind],
        length_delimited(_OBSERVED, b"".join(observation)),
        int_field(_TIME_LEFT, r.time_left_ms),
        int_field(_TIME_BANK, r.time_bank_ms),
    ]
    if legal_actions:
        request += [_legal_action_entry(a) for a in obs.legal_actions]
    return length_delimited(_DECISION_REQUEST, b"".join(request))


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


@functools.lru_cache(maxsize=1 << 16)
def _legal_action_entry(action: Action) -> bytes:
    """One `legal_actions` entry of a DecisionRequest in wire form. Legal-action lists repeat the
    same actions request after request, so each is encoded once; parsing the joined entries into
    the request (in C) is several times faster than building the messages in Python."""
    return session_pb.DecisionRequest(legal_actions=[action_to_pb(action)]).SerializeToString()


def _event_entry(e: PublicEvent) -> bytes:
    """`ArenaMessage.public_event` in wire form (built once per event, see `_EventCache`)."""
    event = length_delimited(_EVENT, event_to_pb(e.event).SerializeToString())
    return length_delimited(_PUBLIC_EVENT, string_field(_EVENT_GAME_ID, e.game_id) + int_field(_SEQ, e.seq) + event)


def _accepted_entry(a: ActionAccepted) -> bytes:
    """`ArenaMessage.action_accepted` in wire form: one goes out for every decision."""
    return length_delimited(
        _ACTION_ACCEPTED, string_field(_ACCEPTED_GAME_ID, a.game_id) + int_field(_ACCEPTED_REQUEST_ID, a.request_id)
    )


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
            forfeits=[
                session_pb.Forfeit(
                    seat=f.seat,
                    reason=f.reason,
                    cause=game_pb.FORFEIT_CAUSE_UNSPECIFIED if f.cause is None else CAUSE_TO_PB[f.cause],
                )
                for f in g.forfeits
            ],
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


def arena_batch_bytes(msgs: Sequence[Outgoing], legal_actions: bool) -> bytes:
    """The serialized ArenaBatch of `msgs`, what the Play stream writes (`service.add_bot_session`).

    A serialized repeated field is the concatenation of its entries, each framed with the field's
    tag and length, so a batch is joined from messages serialized one by one: a public event
    goes to every bot at its table and is serialized once for all of them (`_EventCache`); a
    message another node's referee sent (`Relayed`) comes framed already."""
    parts = []
    for m in msgs:
        if type(m) is Relayed:
            parts.append(m.entry)
        elif type(m) is PublicEvent:
            parts.append(_events.framed(m))
        elif type(m) is DecisionRequest:
            parts.append(length_delimited(_BATCH_ENTRY, _request_entry(m, legal_actions)))
        elif type(m) is ActionAccepted:
            parts.append(length_delimited(_BATCH_ENTRY, _accepted_entry(m)))
        else:
            parts.append(length_delimited(_BATCH_ENTRY, _ENCODERS[type(m)](m).SerializeToString()))
    return b"".join(parts)


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
