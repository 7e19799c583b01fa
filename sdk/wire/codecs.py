"""What both ends of a bot session encode and decode alike: enums, cards, actions and events.

The arena's side (`arena.api.bot_session_wire`) and the bot's (`sdk.wire.bot_session`) both use
these, so they cannot disagree on them; the SDK cannot import the arena, so they live here.
Enum tables are derived from the protobuf descriptors by `enum_tables`, never written out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import TypeVar

from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from ..engine import (
    Action,
    Card,
    End,
    EndReason,
    Event,
    Flip,
    FlipsRevealed,
    Phase,
    RoundEnded,
    RoundStarted,
    Scout,
    Scouted,
    ScoutedAndShown,
    ScoutShow,
    Show,
    Shown,
)
from ..protocol import DecisionKind, ErrorCode, ForfeitCause, TournamentEnd
from . import bot_session_pb2 as session_pb
from . import game_pb2 as game_pb

E = TypeVar("E", bound=Enum)
P = TypeVar("P", bound=int)


class WireError(ValueError):
    """A message that does not decode into a valid value; the text says which field is wrong."""


def wire_prefix(enum: EnumDescriptor) -> str:
    """What every value name of a protobuf enum starts with: its name in upper snake case and an
    underscore (`TournamentStatus` -> `TOURNAMENT_STATUS_`), as the protobuf style guide asks."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def enum_tables(
    domain: type[E], wire: type[P], renames: Mapping[E, str] | None = None
) -> tuple[dict[E, P], dict[int, E]]:
    """(domain member -> wire value, wire value -> domain member) of two enums that name the same
    values: the wire value of a member is named `wire_prefix` + the member's name, or + its
    `renames` entry for the few whose names differ. The wire enum's 0 is PREFIX + `UNSPECIFIED`
    and maps to nothing. A value on one side with no match on the other raises TypeError, at
    import time of the module deriving the table: adding a value on one side fails loudly."""
    descriptor: EnumDescriptor = wire.DESCRIPTOR  # type: ignore[attr-defined]
    prefix = wire_prefix(descriptor)
    names = renames or {}
    to_wire: dict[E, P] = {}
    for member in domain:
        name = prefix + names.get(member, member.name)
        if name not in descriptor.values_by_name:
            raise TypeError(f"{domain.__name__}.{member.name} has no value {name} in {descriptor.full_name}")
        to_wire[member] = descriptor.values_by_name[name].number  # type: ignore[assignment]
    from_wire: dict[int, E] = {number: member for member, number in to_wire.items()}
    unspecified = prefix + "UNSPECIFIED"
    unmatched = [v.name for v in descriptor.values if v.number not in from_wire and v.name != unspecified]
    if descriptor.values_by_number[0].name != unspecified:
        unmatched.append(descriptor.values_by_number[0].name)
    if unmatched:
        raise TypeError(f"{descriptor.full_name} values {', '.join(unmatched)} have no {domain.__name__} member")
    return to_wire, from_wire


END_TO_PB, END_FROM_PB = enum_tables(End, game_pb.End)
PHASE_TO_PB, PHASE_FROM_PB = enum_tables(Phase, game_pb.Phase)
END_REASON_TO_PB, END_REASON_FROM_PB = enum_tables(EndReason, game_pb.EndReason)
KIND_TO_PB, KIND_FROM_PB = enum_tables(DecisionKind, session_pb.DecisionKind)
ERROR_TO_PB, ERROR_FROM_PB = enum_tables(ErrorCode, session_pb.ErrorCode)
TOURNAMENT_END_TO_PB, TOURNAMENT_END_FROM_PB = enum_tables(TournamentEnd, session_pb.TournamentEnd)
CAUSE_TO_PB, CAUSE_FROM_PB = enum_tables(ForfeitCause, game_pb.ForfeitCause)


# ---- cards and actions ----------------------------------------------------------------------------


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


# ---- public events ----------------------------------------------------------------------------------


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
        started = msg.round_started
        return RoundStarted(started.round, started.first_player, started.hand_size)
    if kind == "flips_revealed":
        return FlipsRevealed(msg.flips_revealed.round, tuple(msg.flips_revealed.flips))
    if kind == "round_ended":
        ended = msg.round_ended
        return RoundEnded(ended.round, END_REASON_FROM_PB[ended.reason], tuple(ended.scores), tuple(ended.hand_sizes))
    raise WireError(f"unknown event kind {kind!r}")


EVENT_KINDS = frozenset(f.name for f in game_pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields)
"""The kinds of public event this SDK can decode."""
