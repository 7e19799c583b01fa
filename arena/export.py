"""Finished games as JSON lines: one self-contained object per game, for analysis outside the arena.

Each line holds `id`, `tournament`, `table` and `game` (its place in the schedule), `seed` (of the
attempt that counted),
`attempts`, `started_at` and `finished_at` (ISO 8601, UTC), `seats` (bot names in seat order),
`results` (per seat: `seat`, `bot`, `points`, `rank`, `forfeit` - the reason, or null -, `cause` -
timeout, illegal, disconnect or absent, or null - and `policy` - what the failure policy did with
the forfeit: forfeit or void-cap-reached, or null), `end_reasons` (per round), `record`: the
engine's full game record (`GameRecord.to_dict`), which
`sdk.engine.replay(GameRecord.from_dict(line["record"]))` plays again move by move, and
`voided_attempts`: the attempts the failure policy voided, oldest first, each with `attempt`,
`voided_at`, `seed`, `results` (as above; a failing seat's `policy` is void, or forfeit for a cause
the policy forfeits that failed in the same attempt, or bot-void-cap-reached) and `record`. With
them a tournament can be re-rated under another failure policy. Only finished games are exported:
nothing of a game's deal is public before (`arena.fairness`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlmodel import Session

from . import store


def game_line(detail: store.GameDetail) -> str:
    """One finished game as a single JSON line (no newline)."""
    info = detail.info
    assert detail.record is not None and info.started_at is not None and info.finished_at is not None
    return json.dumps(
        {
            "id": info.id,
            "tournament": info.tournament,
            "table": info.table_index,
            "game": info.game_index,
            "seed": info.seed,
            "attempts": info.attempts,
            "started_at": info.started_at.isoformat(),
            "finished_at": info.finished_at.isoformat(),
            "seats": list(info.seats),
            "results": [s.to_json() for s in info.results],
            "end_reasons": list(info.end_reasons),
            "record": detail.record.to_dict(),
            "voided_attempts": [_voided(v) for v in detail.voided],
        },
        separators=(",", ":"),
    )


def _voided(voided: store.VoidedAttempt) -> dict[str, Any]:
    return {
        "attempt": voided.attempt,
        "voided_at": voided.voided_at.isoformat(),
        "seed": voided.seed,
        "results": [s.to_json() for s in voided.result.seats],
        "record": voided.result.record.to_dict(),
    }


EXPORT_BATCH = 100
"""Games listed per query: an export of any size holds one batch of them at a time."""


def export_games(*, session: Session, tournament: str | None = None) -> Iterator[str]:
    """The JSON line of every finished game (of `tournament`, or all), in play order."""
    after = None
    while games := store.list_games(
        session=session, tournament=tournament, status=store.GameStatus.FINISHED, after=after, limit=EXPORT_BATCH
    ):
        for info in games:
            yield game_line(store.show_game(session=session, game_id=info.id))
        after = games[-1].id
