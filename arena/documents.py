"""The JSON documents of the read models: what `scout-arena COMMAND --json` prints, and game export lines.

Each document is built from the same read model the command's table shows (the store's values and
`RatingRow`), so the table and the JSON never disagree, and a field added to a model reaches the
JSON by itself: an object's keys are its model's field names (`plain`), documented in
docs/operator-guide.md ("Output for scripts"). Numbers stay numbers, a missing value is null, enums
are their values ("finished", "timeout") and times are ISO 8601 in UTC to the millisecond
(`2030-01-04T18:00:00.000Z`, `utc_time`). Games have one shape everywhere: `games list --json`,
`games show --json` and every line of `games export` (`arena.documents`) use `game_summary`.

Game export lines (`game_line`, for `games export` and the ExportGames call): finished games as
JSON lines, one self-contained object per game, for analysis outside the arena.

Each line is the game's document of `games show --json` (`game`): `id`,
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

import dataclasses
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameDetail, GameInfo, SeedReveal, Tournament, VoidedAttempt
from arena.tournaments.stop_rule import Verdict
from arena.tournaments.verification import Verification

Document = dict[str, Any]
"""A JSON object, ready for `json.dumps`."""


def utc_time(moment: datetime) -> str:
    """`moment` as ISO 8601 in UTC, to the millisecond, with a `Z`: one fixed-width form to parse."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def plain(value: Any) -> Any:
    """`value` as JSON data: a dataclass as an object of its fields (in their order), an enum as
    its value, a time as `utc_time`, a tuple as a list; numbers, strings, booleans and None as
    they are."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return utc_time(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def dumps(document: Document) -> str:
    """The document as JSON text; NaN or infinity would not be JSON, so they are refused."""
    return json.dumps(document, ensure_ascii=False, allow_nan=False, indent=2)


# ---- tournaments ----------------------------------------------------------------------------------


def tournament(t: Tournament) -> Document:
    """A tournament as `tournament show` has it: every field of `Tournament`, with the failure
    policy complete (defaults filled in) and the game counts with their total."""
    return {
        **plain(t),
        "failure_policy": t.failure_policy.to_json(),
        "games": {**plain(t.games), "total": t.games.total},
    }


def tournaments(ts: Sequence[Tournament]) -> Document:
    return {"tournaments": [tournament(t) for t in ts]}


def seeds(reveal: SeedReveal) -> Document:
    """The secret seeds: each game's keyed `id`, `table`, `game` as everywhere else."""
    return {
        "tournament": reveal.tournament,
        "seed": reveal.seed,
        "seed_nonce": reveal.seed_nonce,
        "seed_commitment": reveal.seed_commitment,
        "games": [
            {"id": g.game_id, "table": g.table_index, "game": g.game_index, "attempt": g.attempt, "seed": g.seed}
            for g in reveal.games
        ],
    }


# ---- bots and ratings -------------------------------------------------------------------------------


def bots(listed: Sequence[BotRecord]) -> Document:
    return {"bots": [plain(b) for b in listed]}


def ratings(scope: str | None, rows: Sequence[RatingRow], stop: Verdict | None = None) -> Document:
    """A rating table: `tournament` (null for the global ladder) and its rows, best first; for a
    started stop-rule tournament also `stop`, its verdict as `tournament show` has it (each
    adjacent pair `settled`, `equal` or neither, with `games_needed` while open)."""
    document: Document = {"tournament": scope, "ratings": [plain(r) for r in rows]}
    if stop is not None:
        document["stop"] = plain(stop)
    return document


def head_to_head(scope: str | None, table: Crosstable) -> Document:
    """The crosstable: `tournament` (null for every tournament's games) and each pair that shared a
    game once, `bot` before `other` by name, from `bot`'s side (`PairRecord`)."""
    return {"tournament": scope, "pairs": [plain(p) for p in table.pairs]}


# ---- games ------------------------------------------------------------------------------------------


def game_summary(info: GameInfo) -> Document:
    """A game without its record: what `games list` shows of it."""
    return {
        "id": info.id,
        "tournament": info.tournament,
        "table": info.table_index,
        "game": info.game_index,
        "status": info.status.value,
        "seed": info.seed,
        "attempts": info.attempts,
        "started_at": plain(info.started_at),
        "finished_at": plain(info.finished_at),
        "seats": list(info.seats),
        "results": [s.to_json() for s in info.results],
        "end_reasons": list(info.end_reasons),
    }


def game(detail: GameDetail) -> Document:
    """A game with its record (null until it is finished) and its voided attempts."""
    return {
        **game_summary(detail.info),
        "record": None if detail.record is None else detail.record.to_dict(),
        "voided_attempts": [_voided(v) for v in detail.voided],
    }


def _voided(voided: VoidedAttempt) -> Document:
    return {
        "attempt": voided.attempt,
        "voided_at": utc_time(voided.voided_at),
        "seed": voided.seed,
        "results": [s.to_json() for s in voided.result.seats],
        "record": voided.result.record.to_dict(),
    }


def games(listed: Sequence[GameInfo]) -> Document:
    return {"games": [game_summary(g) for g in listed]}


def verification(checked: Verification) -> Document:
    """What `games verify` found: its counts, `ok`, `problems` (one line each) and the summary line."""
    return {**plain(checked), "ok": checked.ok, "summary": checked.summary()}


# ---- game export lines ------------------------------------------------------------------------------


def game_line(detail: GameDetail) -> str:
    """One finished game as a single JSON line (no newline): `games show --json`'s document, compact."""
    assert detail.record is not None, "only finished games are exported"
    return json.dumps(game(detail), separators=(",", ":"))


EXPORT_BATCH = 100
"""Games listed per query: an export of any size holds one batch of them at a time."""
