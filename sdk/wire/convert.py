"""The SDK side of the wire: protobuf messages to and from engine and protocol values.

This is the only SDK module that reads or builds `_pb2` messages. The arena's own conversion
(`arena.api.convert`) reuses the card and action codecs below, so both sides agree on them by
construction.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from ..engine import (
    Action,
    Card,
    End,
    EndReason,
    Event,
    Flip,
    FlipsRevealed,
    Observation,
    Phase,
    PlayerView,
    PublicView,
    RoundEnded,
    RoundStarted,
    Scout,
    Scouted,
    ScoutedAndShown,
    ScoutShow,
    Show,
    Shown,
)
from ..protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    BotMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameOver,
    GameStarted,
    PublicEvent,
    TournamentEnd,
    TournamentOver,
    Welcome,
)
from . import arena_pb2 as arena_pb
from . import bot_session_pb2 as session_pb
from . import game_pb2 as game_pb
from .framing import int_field, length_delimited, string_field


class WireError(ValueError):
    """A message that does not decode into a valid value; the text says which field is wrong."""


END_TO_PB = {End.LEFT: game_pb.END_LEFT, End.RIGHT: game_pb.END_RIGHT}
END_FROM_PB = {v: k for k, v in END_TO_PB.items()}
PHASE_TO_PB = {Phase.FLIP: game_pb.PHASE_FLIP, Phase.PLAY: game_pb.PHASE_PLAY, Phase.OVER: game_pb.PHASE_OVER}
PHASE_FROM_PB = {v: k for k, v in PHASE_TO_PB.items()}
END_REASON_TO_PB = {
    EndReason.EMPTY_HAND: game_pb.END_REASON_EMPTY_HAND,
    EndReason.BACK_TO_OWNER: game_pb.END_REASON_BACK_TO_OWNER,
    EndReason.CANNOT_ANSWER: game_pb.END_REASON_CANNOT_ANSWER,
    EndReason.ACTION_CAP: game_pb.END_REASON_ACTION_CAP,
}
END_REASON_FROM_PB = {v: k for k, v in END_REASON_TO_PB.items()}
KIND_TO_PB = {DecisionKind.FLIP: session_pb.DECISION_KIND_FLIP, DecisionKind.ACTION: session_pb.DECISION_KIND_ACTION}
KIND_FROM_PB = {v: k for k, v in KIND_TO_PB.items()}
ERROR_TO_PB = {
    ErrorCode.MALFORMED: session_pb.ERROR_CODE_MALFORMED,
    ErrorCode.PROTOCOL: session_pb.ERROR_CODE_PROTOCOL,
    ErrorCode.UNKNOWN_GAME: session_pb.ERROR_CODE_UNKNOWN_GAME,
    ErrorCode.NOT_YOUR_REQUEST: session_pb.ERROR_CODE_NOT_YOUR_REQUEST,
    ErrorCode.STALE_REQUEST: session_pb.ERROR_CODE_STALE_REQUEST,
    ErrorCode.SEAT_FORFEITED: session_pb.ERROR_CODE_SEAT_FORFEITED,
    ErrorCode.SUPERSEDED: session_pb.ERROR_CODE_SUPERSEDED,
}
ERROR_FROM_PB = {v: k for k, v in ERROR_TO_PB.items()}
TOURNAMENT_END_TO_PB = {
    TournamentEnd.FINISHED: session_pb.TOURNAMENT_END_FINISHED,
    TournamentEnd.FAILED: session_pb.TOURNAMENT_END_FAILED,
}
TOURNAMENT_END_FROM_PB = {v: k for k, v in TOURNAMENT_END_TO_PB.items()}


# ---- cards and actions (shared with the arena) -------------------------------------------------


_CARDS = {(top, bottom): Card(top, bottom) for top in range(1, 11) for bottom in range(1, 11)}
"""Every possible card, made once: a lookup is several times cheaper than building a Card."""


def card_from_pb(card: game_pb.Card) -> Card:
    return _CARDS.get((card.top, card.bottom)) or Card(card.top, card.bottom)


def cards_from_pb(cards: Iterable[game_pb.Card]) -> tuple[Card, ...]:
    """`card_from_pb` of each, inlined: hands and sets are decoded for every request."""
    get = _CARDS.get
    return tuple([get((c.top, c.bottom)) or Card(c.top, c.bottom) for c in cards])


def fill_cards(field: RepeatedCompositeFieldContainer[game_pb.Card], cards: Iterable[Card]) -> None:
    """Append `cards` to a repeated Card field."""
    add = field.add
    for top, bottom in cards:
        add(top=top, bottom=bottom)


def _scout_to_pb(scout: Scout) -> game_pb.Scout:
    return game_pb.Scout(end=END_TO_PB[scout.end], flip=scout.flip, position=scout.position)


def action_to_pb(action: Action) -> game_pb.Action:
    if type(action) is Show:
        return game_pb.Action(show=game_pb.Show(start=action.start, length=action.length))
    if type(action) is Scout:
        return game_pb.Action(scout=_scout_to_pb(action))
    if type(action) is ScoutShow:
        show = game_pb.Show(start=action.show.start, length=action.show.length)
        return game_pb.Action(scout_show=game_pb.ScoutShow(scout=_scout_to_pb(action.scout), show=show))
    if type(action) is Flip:
        return game_pb.Action(flip=game_pb.Flip(flip=action.flip))
    raise TypeError(f"{action!r} is not a SCOUT action")


def _scout_from_pb(scout: game_pb.Scout) -> Scout:
    end = END_FROM_PB.get(scout.end)
    if end is None:
        raise WireError("scout end must be END_LEFT or END_RIGHT")
    return Scout(end, scout.flip, scout.position)


def action_from_pb(action: game_pb.Action) -> Action:
    """Raise WireError for an action with no kind or an unspecified scout end."""
    kind = action.WhichOneof("kind")
    if kind == "show":
        return Show(action.show.start, action.show.length)
    if kind == "scout":
        return _scout_from_pb(action.scout)
    if kind == "scout_show":
        pair = action.scout_show
        if not pair.HasField("scout") or not pair.HasField("show"):
            raise WireError("a scout_show action needs both its scout and its show")
        return ScoutShow(_scout_from_pb(pair.scout), Show(pair.show.start, pair.show.length))
    if kind == "flip":
        return Flip(action.flip.flip)
    raise WireError("the action has none of flip, show, scout, scout_show set")


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


def _scouted_from_pb(msg: game_pb.Scouted) -> Scouted:
    return Scouted(msg.seat, END_FROM_PB[msg.end], msg.flip, card_from_pb(msg.card), msg.position)


def _shown_from_pb(msg: game_pb.Shown) -> Shown:
    return Shown(msg.seat, msg.start, cards_from_pb(msg.cards))


def event_from_pb(msg: game_pb.Event) -> Event:
    kind = msg.WhichOneof("kind")
    if kind == "shown":
        return _shown_from_pb(msg.shown)
    if kind == "scouted":
        return _scouted_from_pb(msg.scouted)
    if kind == "scouted_and_shown":
        return ScoutedAndShown(
            _scouted_from_pb(msg.scouted_and_shown.scouted), _shown_from_pb(msg.scouted_and_shown.shown)
        )
    if kind == "round_started":
        e = msg.round_started
        return RoundStarted(e.round, e.first_player, e.hand_size)
    if kind == "flips_revealed":
        return FlipsRevealed(msg.flips_revealed.round, tuple(msg.flips_revealed.flips))
    if kind == "round_ended":
        e = msg.round_ended
        return RoundEnded(e.round, END_REASON_FROM_PB[e.reason], tuple(e.scores), tuple(e.hand_sizes))
    raise WireError(f"unknown event kind {kind!r}")


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

    @property  # type: ignore[override]  # a read-only view of the dataclass field
    def event(self) -> Event:
        if self._event is None:
            self._event = event_from_pb(game_pb.Event.FromString(self._data))
            self._data = b""
        return self._event


_EVENT_KINDS = frozenset(f.name for f in game_pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields)


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
        if event_kind not in _EVENT_KINDS:
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
        r = msg.action_rejected
        return ActionRejected(r.game_id, r.request_id, r.reason, r.attempts_left)
    if kind == "game_started":
        g = msg.game_started
        return GameStarted(g.game_id, g.seat, tuple(g.players), g.move_limit_ms, g.time_bank_ms)
    if kind == "game_over":
        g = msg.game_over
        return GameOver(
            g.game_id,
            tuple(g.totals),
            tuple(g.ranks),
            tuple((f.seat, f.reason) for f in g.forfeits),
            tuple(END_REASON_FROM_PB[r] for r in g.round_end_reasons),
        )
    if kind == "welcome":
        w = msg.welcome
        return Welcome(w.session_id, w.bot_name, w.capacity)
    if kind == "error":
        e = msg.error
        return ErrorNotice(ERROR_FROM_PB.get(e.code, ErrorCode.PROTOCOL), e.message, e.game_id, e.request_id)
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
_BATCH_ENTRY = b"\x0a"
"""`BotBatch.messages`: field 1, length-delimited."""
_DECISION = b"\x12"
"""`BotMessage.decision`: field 2, length-delimited."""


def bot_batch_bytes(messages: Sequence[BotMessage]) -> bytes:
    """The serialized BotBatch of `messages`, in order. Decisions are joined from cached pieces
    (`sdk.wire.framing`): a bot answers many per second, always with the same few hundred actions."""
    parts = []
    for msg in messages:
        if type(msg) is Decision:
            decision = string_field(b"\x0a", msg.game_id) + int_field(b"\x10", msg.request_id)
            decision += _action_field(msg.action)
            parts.append(length_delimited(_BATCH_ENTRY, length_delimited(_DECISION, decision)))
        else:
            hello = session_pb.Hello(
                bot_name=msg.bot_name,
                bot_version=msg.bot_version,
                capacity=msg.capacity,
                want_legal_actions=msg.want_legal_actions,
                tournaments=msg.tournaments,
            )
            parts.append(length_delimited(_BATCH_ENTRY, session_pb.BotMessage(hello=hello).SerializeToString()))
    return b"".join(parts)


@functools.lru_cache(maxsize=1 << 12)
def _action_field(action: Action) -> bytes:
    """`Decision.action` in wire form."""
    return session_pb.Decision(action=action_to_pb(action)).SerializeToString()


def register_request_to_pb(name: str) -> arena_pb.RegisterBotRequest:
    return arena_pb.RegisterBotRequest(name=name)


def registered_token(reply: arena_pb.RegisterBotResponse) -> str:
    return reply.token


def describe_request_to_pb() -> arena_pb.DescribeArenaRequest:
    return arena_pb.DescribeArenaRequest()


def described_arena(reply: arena_pb.DescribeArenaResponse) -> str:
    """The arena's id (`DescribeArena`)."""
    return reply.arena_id


def enter_request_to_pb(tournament: str, entry_code: str | None = None) -> arena_pb.EnterTournamentRequest:
    return arena_pb.EnterTournamentRequest(tournament=tournament, entry_code=entry_code)


def entered_bot(reply: arena_pb.EnterTournamentResponse) -> str:
    """The name the arena knows the entering bot by."""
    return reply.bot


_STATUS_NAME = {
    arena_pb.TOURNAMENT_STATUS_SCHEDULED: "scheduled",
    arena_pb.TOURNAMENT_STATUS_RUNNING: "running",
    arena_pb.TOURNAMENT_STATUS_FINISHED: "finished",
    arena_pb.TOURNAMENT_STATUS_FAILED: "failed",
}


def tournament_progress(reply: arena_pb.EnterTournamentResponse) -> tuple[str, int, int]:
    """(status - 'scheduled', 'running' or 'finished' -, games finished, games in all) of the
    reply's tournament; no games are scheduled before it starts."""
    t = reply.tournament
    return (
        _STATUS_NAME.get(t.status, "unknown"),
        t.games.finished,
        t.games.scheduled + t.games.running + t.games.finished,
    )
