"""The bot's side of a bot session: the arena's batches decoded, the bot's batches encoded.

The arena's side is `arena.api.bot_session_wire`; what both encode alike is `sdk.wire.codecs`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ..engine import Action, Event, Observation, PlayerView, PublicView
from ..protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    BotMessage,
    Decision,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    Forfeit,
    GameOver,
    GameStarted,
    PublicEvent,
    TournamentOver,
    Welcome,
)
from . import bot_session_pb2 as session_pb
from . import game_pb2 as game_pb
from .codecs import (
    CAUSE_FROM_PB,
    END_REASON_FROM_PB,
    ERROR_FROM_PB,
    EVENT_KINDS,
    KIND_FROM_PB,
    PHASE_FROM_PB,
    TOURNAMENT_END_FROM_PB,
    WireError,
    action_from_pb,
    action_to_pb,
    cards_from_pb,
    event_from_pb,
)
from .framing import int_field, length_delimited, string_field, tag

_decoded: dict[bytes, Action] = {}
_DECODED_LIMIT = 1 << 16


def _legal_action(msg: game_pb.Action) -> Action:
    """`action_from_pb`, memoised on the message's bytes: legal-action lists repeat the same
    actions request after request, and a lookup is about 4x faster than building them."""
    key = msg.SerializeToString()
    action = _decoded.get(key)
    if action is None:
        if len(_decoded) >= _DECODED_LIMIT:
            _decoded.clear()
        action = _decoded[key] = action_from_pb(msg)
    return action


# ---- what the arena sends ------------------------------------------------------------------------


def _observation_from_pb(msg: game_pb.Observation, legal: tuple[Action, ...]) -> Observation:
    """Positional arguments in field order (tests/api checks every field): this runs for every
    decision a bot makes."""
    t = msg.table
    seats = tuple(
        [
            PlayerView(
                p.seat,
                p.hand_size,
                p.captured,
                p.scout_chips,
                p.has_scout_show,
                p.flipped if p.HasField("flipped") else None,
                tuple(p.round_scores),
                p.total,
            )
            for p in t.seats
        ]
    )
    table = PublicView(
        t.players,
        t.round,
        t.rounds,
        t.first_player,
        PHASE_FROM_PB[t.phase],
        t.to_move if t.HasField("to_move") else None,
        cards_from_pb(t.active_set),
        t.active_owner if t.HasField("active_owner") else None,
        seats,
        t.round_actions,
        (),
    )
    return Observation(msg.seat, cards_from_pb(msg.hand), legal, table)


class ReceivedEvent(PublicEvent):
    """A PublicEvent as read from the wire, its event decoded when first read.

    Every bot at a table is sent every event, several per decision; a bot that never reads its
    history (`Observation.table.history`) never pays for decoding them. The event waits as its own
    bytes: a part of the received message would keep the whole batch it came in alive, and a
    bot's games hold thousands of events (holding batches lengthened the soak's p99 by half)."""

    __slots__ = ("_data", "_event")

    def __init__(self, game_id: str, seq: int, data: bytes) -> None:
        self.game_id = game_id
        self.seq = seq
        self._data = data
        self._event: Event | None = None

    @property
    def event(self) -> Event:  # type: ignore[override]  # a read-only view of the dataclass field
        if self._event is None:
            self._event = event_from_pb(game_pb.Event.FromString(self._data))
            self._data = b""
        return self._event


def arena_message_from_pb(msg: session_pb.ArenaMessage, lazy_events: bool = False) -> ArenaMessage:
    """Decode one message of the arena's stream; WireError for a kind this SDK does not know.
    With `lazy_events`, a public event is a `ReceivedEvent`."""
    kind = msg.WhichOneof("kind")
    if kind == "public_event":
        e = msg.public_event
        if not lazy_events:
            return PublicEvent(e.game_id, e.seq, event_from_pb(e.event))
        event = e.event
        event_kind = event.WhichOneof("kind")
        if event_kind not in EVENT_KINDS:
            raise WireError(f"unknown event kind {event_kind!r}")
        return ReceivedEvent(e.game_id, e.seq, event.SerializeToString())
    if kind == "decision_request":
        r = msg.decision_request
        legal = tuple([_legal_action(a) for a in r.legal_actions])
        return DecisionRequest(
            r.game_id,
            r.request_id,
            KIND_FROM_PB[r.kind],
            _observation_from_pb(r.observation, legal),
            r.time_left_ms,
            r.time_bank_ms,
        )
    if kind == "action_accepted":
        return ActionAccepted(msg.action_accepted.game_id, msg.action_accepted.request_id)
    if kind == "action_rejected":
        rejected = msg.action_rejected
        return ActionRejected(rejected.game_id, rejected.request_id, rejected.reason, rejected.attempts_left)
    if kind == "game_started":
        g = msg.game_started
        return GameStarted(g.game_id, g.seat, tuple(g.players), g.move_limit_ms, g.time_bank_ms)
    if kind == "game_over":
        over = msg.game_over
        return GameOver(
            over.game_id,
            tuple(over.totals),
            tuple(over.ranks),
            tuple(Forfeit(f.seat, CAUSE_FROM_PB.get(f.cause), f.reason) for f in over.forfeits),
            tuple(END_REASON_FROM_PB[r] for r in over.round_end_reasons),
        )
    if kind == "welcome":
        w = msg.welcome
        return Welcome(w.session_id, w.bot_name, w.capacity)
    if kind == "error":
        error = msg.error
        return ErrorNotice(
            ERROR_FROM_PB.get(error.code, ErrorCode.PROTOCOL), error.message, error.game_id, error.request_id
        )
    if kind == "tournament_over":
        t = msg.tournament_over
        if t.end not in TOURNAMENT_END_FROM_PB:
            raise WireError(f"unknown tournament end {t.end} of tournament {t.tournament!r}")
        return TournamentOver(t.tournament, TOURNAMENT_END_FROM_PB[t.end])
    raise WireError(f"unknown arena message kind {kind!r}")


def arena_batch_from_pb(
    batch: session_pb.ArenaBatch, lazy_events: bool = False
) -> tuple[list[ArenaMessage], list[str]]:
    """Decode one write of the arena: the messages understood, in order, and a description of
    each message skipped because this SDK cannot read it (e.g. one added by a newer arena).
    `lazy_events`: public events are `ReceivedEvent`s, decoded when read."""
    messages: list[ArenaMessage] = []
    skipped: list[str] = []
    for msg in batch.messages:
        try:
            messages.append(arena_message_from_pb(msg, lazy_events))
        except WireError as exc:
            skipped.append(str(exc))
    return messages, skipped


# ---- what the bot sends ----------------------------------------------------------------------------


PLAY_METHOD = f"/{session_pb.DESCRIPTOR.services_by_name['BotSession'].full_name}/Play"
"""The bot session's one call; it writes `bot_batch_bytes` and reads `arena_batch_from_bytes`."""
arena_batch_from_bytes = session_pb.ArenaBatch.FromString
_BATCH_ENTRY = tag(session_pb.BotBatch, "messages")
_DECISION = tag(session_pb.BotMessage, "decision")
_GAME_ID = tag(session_pb.Decision, "game_id")
_REQUEST_ID = tag(session_pb.Decision, "request_id")


def bot_batch_bytes(messages: Sequence[BotMessage]) -> bytes:
    """The serialized BotBatch of `messages`, in order. Decisions are joined from cached pieces
    (`sdk.wire.framing`): a bot answers many per second, always with the same few hundred actions."""
    parts = []
    for msg in messages:
        if isinstance(msg, Decision):
            decision = string_field(_GAME_ID, msg.game_id) + int_field(_REQUEST_ID, msg.request_id)
            decision += _action_field(msg.action)
            parts.append(length_delimited(_BATCH_ENTRY, length_delimited(_DECISION, decision)))
        else:
            hello = session_pb.Hello(
                bot_name=msg.bot_name,
                bot_version=msg.bot_version,
                capacity=msg.capacity,
                want_legal_actions=msg.want_legal_actions,
                tournaments=msg.tournaments,
                accept_casual=msg.accept_casual,
            )
            parts.append(length_delimited(_BATCH_ENTRY, session_pb.BotMessage(hello=hello).SerializeToString()))
    return b"".join(parts)


@functools.lru_cache(maxsize=1 << 12)
def _action_field(action: Action) -> bytes:
    """`Decision.action` in wire form."""
    return session_pb.Decision(action=action_to_pb(action)).SerializeToString()
