"""Finished games as JSON lines: one self-contained object per game, for analysis outside the arena.

Each line is the game's document of `games show --json` (`arena.cli.json_output.game`): `id`,
`tournament`, `table` and `game` (its place in the schedule), `status` (finished), `seed` (of the
attempt that counted), `attempts`, `started_at` and `finished_at` (ISO 8601 in UTC,
`2030-01-04T18:00:00.000Z`), `seats` (bot names in seat order), `results` (per seat: `seat`, `bot`,
`points`, `rank`, `forfeit` - the reason, or null -, `cause` - timeout, illegal, disconnect or
absent, or null - and `policy` - what the failure policy did with the forfeit: forfeit or
void-cap-reached, or null), `end_reasons` (per round), `record`: the engine's full game record
(`GameRecord.to_dict`), which `sdk.engine.replay(GameRecord.from_dict(line["record"]))` plays again
move by move, and `voided_attempts`: the attempts the failure policy voided, oldest first, each with
`attempt`, `voided_at`, `seed`, `results` (as above; a failing seat's `policy` is void, or forfeit
for a cause the policy forfeits that failed in the same attempt, or bot-void-cap-reached) and
`record`. With them a tournament can be re-rated under another failure policy. Only finished games
are exported: nothing of a game's deal is public before (`arena.tournaments.fairness`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from sqlmodel import Session

from arena.cli import json_output
from arena.storage import store


def game_line(detail: store.GameDetail) -> str:
    """One finished game as a single JSON line (no newline): `games show --json`'s document, compact."""
    assert detail.record is not None, "only finished games are exported"
    return json.dumps(json_output.game(detail), separators=(",", ":"))


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
