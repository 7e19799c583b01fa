"""Engine values as JSON for the web: cards, public events, round results, public tables and a
seat's observation (docs/rules.md §9).

The one encoder of engine values for every page and feed: the replay frames
(`arena.web.replay_frames`), the live games' stream (`arena.web.live_stream`) and the Play page's
feed (`arena.web.seat_json`), so one script (`static/events.js`, `static/table.js`) reads them
all. Field names are the engine's (`sdk.engine`) and the protocol's (proto/scout/arena/v1/game.proto):
`first_player`, `flips_revealed`, `scouted_and_shown`, `scout_chips`, `has_scout_show`,
`active_set`. A card is `[top, bottom]` (its orientation is which number is on top), an event an
object with a `type`, a round's end `reason` the `EndReason` name and `rule` its rule. Game
records and export lines keep the engine's own form (`GameRecord.to_dict`), whose results have
the same names. Nothing here reads a hand it is not given: each function serialises exactly the
engine value it is handed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sdk.engine import (
    Card,
    End,
    EndReason,
    Event,
    FlipsRevealed,
    Observation,
    PlayerView,
    PublicView,
    RoundEnded,
    RoundResult,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
    action_to_dict,
)

Json = dict[str, Any]


def card_json(card: Card) -> list[int]:
    """A card as `[top, bottom]`: the value in play, then the one underneath."""
    return [card[0], card[1]]


def cards_json(cards: Sequence[Card]) -> list[list[int]]:
    """Cards as held, left to right, each `[top, bottom]`."""
    return [[c[0], c[1]] for c in cards]


def _reason(reason: EndReason) -> Json:
    return {"reason": reason.name, "rule": reason.value}


def _scouted(e: Scouted) -> Json:
    return {
        "seat": e.seat,
        "end": "left" if e.end is End.LEFT else "right",
        "flip": e.flip,
        "card": card_json(e.card),
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
            **_reason(event.reason),
            "scores": list(event.scores),
            "hand_sizes": list(event.hand_sizes),
        }
    raise TypeError(f"{event!r} is not a public event")


def round_result_json(r: RoundResult) -> Json:
    """A scored round: a `round_ended` event's fields, and the owner who lost nothing (`exempt`)."""
    return {
        "round": r.round,
        **_reason(r.reason),
        "scores": list(r.scores),
        "hand_sizes": list(r.hand_sizes),
        "exempt": r.exempt,
    }


def player_json(p: PlayerView) -> Json:
    """One seat's public facts; its per-round scores are left to the round results (the frames'
    `results`, the `round_ended` events), which hold every finished round."""
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


def observation_json(obs: Observation, legal: bool = True) -> Json:
    """A seat's view: its own hand, its legal actions (as in game records, `action_to_dict`;
    left out with `legal=False`) and the public table (`table_json`)."""
    out: Json = {"seat": obs.seat, "hand": cards_json(obs.hand)}
    if legal:
        out["legal"] = [action_to_dict(a) for a in obs.legal_actions]
    out["table"] = table_json(obs.table)
    return out
