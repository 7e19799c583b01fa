"""The messages of a person's seat as the Play page's JSON: built only from what the referee sends
that seat and from `observe(game, seat)`, so nothing of another hand can reach the browser."""

from __future__ import annotations

from typing import Any

from sdk.engine import Card
from sdk.engine.actions import End, action_to_dict
from sdk.engine.events import (
    Event,
    FlipsRevealed,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
)
from sdk.engine.observation import Observation
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    DecisionRequest,
    ErrorNotice,
    GameOver,
    GameStarted,
    PublicEvent,
)


def card_json(card: Card) -> list[int]:
    """A card as [value in play, value underneath]."""
    return [card.top, card.bottom]


def _shown(e: Shown) -> dict[str, Any]:
    return {"type": "shown", "seat": e.seat, "start": e.start, "cards": [card_json(c) for c in e.cards]}


def _scouted(e: Scouted) -> dict[str, Any]:
    end = End(e.end).name.lower()
    return {
        "type": "scouted",
        "seat": e.seat,
        "end": end,
        "flip": e.flip,
        "card": card_json(e.card),
        "position": e.position,
    }


def event_json(event: Event) -> dict[str, Any]:
    """A public event (RULES.md: each is seen by every seat)."""
    if isinstance(event, RoundStarted):
        return {
            "type": "round_started",
            "round": event.round,
            "first": event.first_player,
            "hand_size": event.hand_size,
        }
    if isinstance(event, FlipsRevealed):
        return {"type": "flips", "round": event.round, "flips": list(event.flips)}
    if isinstance(event, Shown):
        return _shown(event)
    if isinstance(event, Scouted):
        return _scouted(event)
    if isinstance(event, ScoutedAndShown):
        return {"type": "scout_show", "scouted": _scouted(event.scouted), "shown": _shown(event.shown)}
    if isinstance(event, RoundEnded):
        return {
            "type": "round_ended",
            "round": event.round,
            "reason": event.reason.value,
            "scores": list(event.scores),
            "hand_sizes": list(event.hand_sizes),
        }
    raise TypeError(f"not an event: {event!r}")


def view_json(obs: Observation) -> dict[str, Any]:
    """The seat's view without its history (the page keeps the events it was sent)."""
    table = obs.table
    return {
        "seat": obs.seat,
        "hand": [card_json(c) for c in obs.hand],
        "legal": [action_to_dict(a) for a in obs.legal_actions],
        "round": table.round,
        "rounds": table.rounds,
        "phase": table.phase.value,
        "to_move": table.to_move,
        "active": [card_json(c) for c in table.active_set],
        "active_owner": table.active_owner,
        "seats": [
            {
                "hand_size": s.hand_size,
                "captured": s.captured,
                "chips": s.scout_chips,
                "scout_show": s.has_scout_show,
                "flipped": s.flipped,
                "round_scores": list(s.round_scores),
                "total": s.total,
            }
            for s in table.seats
        ],
    }


def message_json(msg: ArenaMessage, view: Observation | None) -> dict[str, Any] | None:
    """The page's form of a message to the person's seat, with the seat's view after it; None
    for messages the page has no use for (the stream's welcome, say)."""
    if isinstance(msg, GameStarted):
        return {"type": "started", "seat": msg.seat, "players": list(msg.players), "move_ms": msg.move_limit_ms}
    if isinstance(msg, PublicEvent):
        out = {"type": "event", "seq": msg.seq, "event": event_json(msg.event)}
    elif isinstance(msg, DecisionRequest):
        return {
            "type": "request",
            "request_id": msg.request_id,
            "kind": msg.kind.value,
            "time_left_ms": msg.time_left_ms,
            "view": view_json(msg.observation),
        }
    elif isinstance(msg, GameOver):
        out = {
            "type": "over",
            "totals": list(msg.totals),
            "ranks": list(msg.ranks),
            "forfeits": [list(f) for f in msg.forfeits],
        }
    elif isinstance(msg, ErrorNotice):
        out = {"type": "error", "message": msg.message}
    else:
        return None
    if view is not None:
        out["view"] = view_json(view)
    return out


def reply_json(msg: ArenaMessage) -> dict[str, Any]:
    """The referee's answer to one of the person's decisions."""
    if isinstance(msg, ActionAccepted):
        return {"accepted": True}
    if isinstance(msg, ActionRejected):
        return {"accepted": False, "reason": msg.reason, "attempts_left": msg.attempts_left}
    if isinstance(msg, ErrorNotice):
        return {"accepted": False, "reason": msg.message}
    raise TypeError(f"not a reply: {msg!r}")
