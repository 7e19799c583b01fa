"""Casual games (a person's games on the Play page): kept like any game, with their record and
each seat's result, but in `casual_games`, which nothing that rates or ranks bots reads."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from arena.errors import UnknownGame
from arena.play.results import GameResult, SeatResult
from arena.records import GameDetail, GameInfo, GameStatus
from arena.storage.store.common import utc_now
from arena.storage.tables import CasualGameRow
from arena.storage.writer import writes
from sdk.engine import GameRecord

CASUAL = "casual"
"""What a casual game shows where a tournament game shows its tournament."""


@writes
def save_casual_game(
    *,
    session: Session,
    result: GameResult,
    seat_kinds: tuple[str, ...],
    move_ms: int,
    started_at: datetime,
    now: datetime | None = None,
) -> int:
    """Keep a finished casual game; its id, which `show_casual_game` finds it by."""
    if len(seat_kinds) != len(result.seats):
        raise ValueError(f"{len(result.seats)} seats but {len(seat_kinds)} seat kinds")
    row = CasualGameRow(
        seed=result.record.seed,
        move_ms=move_ms,
        players=[s.bot for s in result.seats],
        seat_kinds=list(seat_kinds),
        seats=[s.to_json() for s in result.seats],
        end_reasons=[r.reason.name for r in result.record.results],
        record=result.record.to_json(),
        started_at=started_at,
        finished_at=utc_now(now),
    )
    session.add(row)
    session.commit()
    assert row.id is not None
    return row.id


def show_casual_game(*, session: Session, casual_id: int) -> GameDetail:
    """A stored casual game as a finished game (table and game 0 of `CASUAL`), for its replay."""
    row = session.get(CasualGameRow, casual_id)
    if row is None:
        raise UnknownGame(f"there is no casual game {casual_id}")
    assert row.id is not None
    info = GameInfo(
        id=row.id,
        tournament=CASUAL,
        table_index=0,
        game_index=0,
        seed=row.seed,
        status=GameStatus.FINISHED,
        attempts=1,
        seats=tuple(row.players),
        started_at=row.started_at,
        finished_at=row.finished_at,
        end_reasons=tuple(row.end_reasons),
        results=tuple(SeatResult.from_json(s) for s in row.seats),
    )
    return GameDetail(info, GameRecord.from_json(row.record))
