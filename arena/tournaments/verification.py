"""A tournament checked as the public read calls reveal it (`scout-arena games verify`): the seed
against its commitment, every game's and voided attempt's seed against the derivation, and every
record against its seed (`arena.tournaments.fairness`).

It reads the read models (`arena.records`), so it sits above them, apart from the pure fairness
rules the store itself uses (docs/architecture.md, "Dependencies").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.records import GameDetail, Tournament, VoidedAttempt
from arena.tournaments.fairness import attempt_seed, commitment, kept_hands, record_problems
from sdk.engine import GameRecord, Kept


@dataclass(frozen=True, slots=True)
class Verification:
    """What `verify` checked and every problem it found, one line each."""

    tournament: str
    finished: bool
    games: int
    attempts: int
    """Voided attempts checked besides the games."""
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        checked = f"{self.games} finished games and {self.attempts} voided attempts re-dealt and replayed"
        if not self.finished:
            return (
                f"tournament {self.tournament!r} is not finished: {checked} from their own seeds, "
                f"{'all consistent' if self.ok else f'{len(self.problems)} problems'}; "
                "its seed commitment can be checked once it finishes"
            )
        if self.ok:
            return (
                f"tournament {self.tournament!r} verified: its seed matches its commitment, "
                f"{checked}, every seed derived from it"
            )
        return f"tournament {self.tournament!r} FAILED verification: {len(self.problems)} problems ({checked})"


def verify(tournament: Tournament, games: Sequence[GameDetail]) -> Verification:
    """Check `tournament` and its finished `games` as the public read calls give them: of an
    unfinished tournament, each record against its own seed; of a finished one, the seed against
    the commitment and every seed against the derivation too."""
    problems: list[str] = []
    seed = tournament.seed
    finished = seed is not None
    if seed is not None and (
        tournament.seed_nonce is None or commitment(seed, tournament.seed_nonce) != tournament.seed_commitment
    ):
        problems.append(
            f"the revealed seed {seed} and nonce {tournament.seed_nonce} do not match the "
            f"commitment {tournament.seed_commitment}"
        )
    played = [g for g in games if g.record is not None and g.info.seed is not None]
    if len(played) != len(games):
        problems.append(f"{len(games) - len(played)} finished games have no revealed seed or record")
    if finished and len(games) != tournament.games.total:
        problems.append(f"the finished tournament has {tournament.games.total} games, {len(games)} of them finished")
    attempts = 0
    for g in played:
        info, record = g.info, g.record
        assert record is not None and info.seed is not None
        what = f"game {info.id} (table {info.table_index}, game {info.game_index})"
        deal = len(g.voided) + 1
        if seed is not None:
            expected = attempt_seed(seed, info.table_index, info.game_index, deal)
            if info.seed != expected:
                problems.append(f"{what}: seed {info.seed} is not deal {deal}'s seed {expected}")
        problems += record_problems(record, info.seed, what, _kept_for(record, g.voided))
        for number, v in enumerate(g.voided, start=1):
            attempts += 1
            voided_what = f"{what}, voided attempt {v.attempt}"
            if seed is not None:
                expected = attempt_seed(seed, info.table_index, info.game_index, number)
                if v.seed != expected:
                    problems.append(f"{voided_what}: seed {v.seed} is not deal {number}'s seed {expected}")
            problems += record_problems(
                v.result.record, v.seed, voided_what, _kept_for(v.result.record, g.voided[: number - 1])
            )
    return Verification(tournament.name, finished, len(played), attempts, tuple(problems))


def _kept_for(record: GameRecord, before: Sequence[VoidedAttempt]) -> Kept:
    """The hands an attempt played after the voided attempts `before` had to keep; none for a
    record that keeps none, as every replay dealt before replays kept hands."""
    return kept_hands([v.result for v in before]) if before and record.kept else {}
