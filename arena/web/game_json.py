"""Game values as JSON for the web pages: cards, public events and public tables (RULES.md §9).

One form everywhere, so the replay viewer and the live page draw them with the same script: a card
is `[top, bottom]` (its orientation is which number is on top), an event an object with a `type`.
Nothing here reads a hand: each function serialises exactly the engine value it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sdk.engine import (
    Card,
    End,
    Event,
    FlipsRevealed,
    PlayerView,
    PublicView,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
)

Json = dict[str, Any]


def cards_json(cards: Sequence[Card]) -> list[list[int]]:
    """Cards as held, left to right, each `[top, bottom]`."""
    return [[c[0], c[1]] for c in cards]


def _scouted(e: Scouted) -> Json:
    return {
        "seat": e.seat,
        "end": "left" if e.end is End.LEFT else "right",
        "flip": e.flip,
        "card": [e.card[0], e.card[1]],
        "position": e.position,
    }


def _shown(e: Shown) -> Json:
    return {"seat": e.seat, "start": e.start, "cards": cards_json(e.cards)}


def event_json(event: Event) -> Json:
    """A public event as the pages get it; its fields are the engine's (sdk/engine/events.py)."""
    if isinstance(event, Shown):
        return {"type": "shown", **_shown(event)}
    if isinstance(event, Scouted):
        return {"type": "scouted", **_scouted(event)}
    if isinstance(event, ScoutedAndShown):
        return {
            "type": "scouted_and_shown",
            "seat": event.shown.seat,
            "scouted": _scouted(event.scouted),
            "shown": _shown(event.shown),
        }
    if isinstance(event, RoundStarted):
        return {
            "type": "round_started",
            "round": event.round,
            "first_player": event.first_player,
            "hand_size": event.hand_size,
        }
    if isinstance(event, FlipsRevealed):
        return {"type": "flips_revealed", "round": event.round, "flips": list(event.flips)}
    if isinstance(event, RoundEnded):
        return {
            "type": "round_ended",
            "round": event.round,
            "reason": event.reason.name,
            "rule": event.reason.value,
            "scores": list(event.scores),
            "hand_sizes": list(event.hand_sizes),
        }
    raise TypeError(f"{event!r} is not a public event")


def player_json(p: PlayerView) -> Json:
    """One seat's public facts; its per-round scores are left to the frame's `results` (see
    `arena.web.replay_frames`), which hold every finished round."""
    return {
        "seat": p.seat,
        "hand_size": p.hand_size,
        "captured": p.captured,
        "scout_chips": p.scout_chips,
        "has_scout_show": p.has_scout_show,
        "flipped": p.flipped,
        "total": p.total,
    }


def table_json(view: PublicView) -> Json:
    """The public table without its history (the pages get the events one by one)."""
    return {
        "players": view.players,
        "round": view.round,
        "rounds": view.rounds,
        "first_player": view.first_player,
        "phase": view.phase.value,
        "to_move": view.to_move,
        "active_set": cards_json(view.active_set),
        "active_owner": view.active_owner,
        "seats": [player_json(p) for p in view.seats],
        "round_actions": view.round_actions,
    }
