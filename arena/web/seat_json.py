"""The messages of a person's seat as the Play page's JSON: built only from what the referee sends
that seat and from `observe(game, seat)`, so nothing of another hand can reach the browser. The
engine values in them (events, the seat's view) are `arena.web.game_json`'s, as on every page."""

from __future__ import annotations

from typing import Any

from arena.web.game_json import event_json, observation_json
from sdk.engine.observation import Observation
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameOver,
    GameStarted,
    PublicEvent,
)


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
            "view": observation_json(msg.observation),
        }
    elif isinstance(msg, GameOver):
        out = {
            "type": "over",
            "totals": list(msg.totals),
            "ranks": list(msg.ranks),
            "forfeits": [[f.seat, f.reason] for f in msg.forfeits],
        }
    elif isinstance(msg, ErrorNotice) and msg.code is ErrorCode.SEAT_FORFEITED:
        # "seat 0 of game 'ID' was forfeited: REASON": the page says whose seat, and why.
        out = {"type": "forfeited", "reason": msg.message.partition(" was forfeited: ")[2] or msg.message}
    elif isinstance(msg, ErrorNotice):
        out = {"type": "error", "message": msg.message}
    else:
        return None
    if view is not None:
        out["view"] = observation_json(view)
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
