"""Fair deals: a tournament's secret seed, the commitment published for it, every attempt's deal
seed, and the checks anyone can run once they are revealed (`scout-arena games verify`).

* **Commitment.** At creation a tournament draws a random nonce (`new_nonce`) and publishes
  `commitment(seed, nonce)`, the lowercase hex SHA-256 of "scout-arena seed v1:<seed>:<nonce>"
  (arena.proto, Tournament.seed_commitment). The nonce is 256 random bits, so the commitment says
  nothing about the seed, even one an organiser chose; once the tournament is finished the seed
  and nonce are public and anyone can check them against it.
* **Deal seeds.** A game's first deal keeps `arena.tournaments.schedule.game_seed`; the deal after its
  n-th voided attempt (deal n + 1) hashes the deal number in as well, so a replay deals fresh
  cards and a bot that saw the voided deal learns nothing about the replay's. An attempt
  interrupted by an arena restart is not voided by anyone's failure: it is dealt again, so a
  resumed tournament ends as if it had never stopped.
* **Kept hands.** A seat whose failure voided an attempt keeps its hands (`kept_hands`): the replay
  deals them to it again, every round, and deals the others fresh cards from the rest of the deck.
  So failing on purpose never buys a bot a better hand, and what the others showed of theirs in
  the voided attempt is no use in the replay; only the failing bot's own cards, which it showed
  them, carry over.
* **Verification.** `verify` checks what the read calls reveal: the seed against the
  commitment, every game's and voided attempt's seed against the derivation, and every record
  against its seed (its deals re-dealt with `sdk.engine.deal_rounds`, its moves replayed).

Boundary 2 of docs/architecture.md: nothing from which a deal follows leaves before its game is finished;
`arena.storage.store` builds every public read model with the seeds left out until then.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.play.results import GameResult, PolicyDecision
from arena.tournaments.schedule import game_seed
from sdk.engine import GameRecord, Kept, ReplayMismatch, deal_rounds, replay

if TYPE_CHECKING:
    from arena.records import GameDetail, Tournament, VoidedAttempt
COMMITMENT_LABEL = "scout-arena seed v1"
"""Names the commitment scheme, so a later one can never be confused with it."""


def new_nonce() -> str:
    """A fresh commitment nonce: 64 hex digits (256 random bits)."""
    return secrets.token_hex(32)


def commitment(seed: int, nonce: str) -> str:
    """The published commitment to `seed`: lowercase hex SHA-256 of the documented text."""
    return hashlib.sha256(f"{COMMITMENT_LABEL}:{seed}:{nonce}".encode()).hexdigest()


def attempt_seed(tournament_seed: int, table_index: int, game_index: int, deal: int) -> int:
    """The seed of a game's `deal` (1, then one more after each voided attempt); 63 bits, like
    `game_seed`."""
    if deal < 1:
        raise ValueError(f"deals are numbered from 1, not {deal}")
    if deal == 1:
        return game_seed(tournament_seed, table_index, game_index)
    digest = hashlib.blake2b(f"{tournament_seed}:{table_index}:{game_index}:{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def kept_hands(voided: Sequence[GameResult]) -> Kept:
    """The hands the next attempt at a game keeps, after its `voided` attempts (oldest first):
    every seat whose failure voided one of them (its decision VOID) keeps its hands of the
    last one, which are those of the first it voided, since each replay keeps them."""
    failed = sorted({s.seat for attempt in voided for s in attempt.seats if s.policy is PolicyDecision.VOID})
    return {seat: tuple(deal[seat] for deal in voided[-1].record.deals) for seat in failed}


def record_problems(record: GameRecord, seed: int, what: str, kept: Kept | None = None) -> list[str]:
    """Why `record` is not a game dealt from `seed` with the hands `kept` (none if it is): the
    seed it names, the seats it keeps, each round's deal against the deal from the seed, and a
    move-by-move replay."""
    if record.seed != seed:
        return [f"{what}: the record names seed {record.seed}, not {seed}"]
    kept = kept or {}
    if record.kept != tuple(kept):
        return [f"{what}: the record keeps the hands of seats {list(record.kept)}, not {list(kept)}"]
    problems = []
    try:
        dealt = deal_rounds(record.players, seed, kept)
    except ValueError as exc:
        return [f"{what}: the kept hands do not fit the game: {exc}"]
    for round_, (recorded, fresh) in enumerate(zip(record.deals, dealt, strict=True)):
        for seat, (hand, expected) in enumerate(zip(recorded, fresh, strict=True)):
            if hand != expected:
                problems.append(f"{what}: round {round_ + 1}, seat {seat} holds cards seed {seed} does not deal")
    if len(record.deals) > len(dealt) or any(len(d) != record.players for d in record.deals):
        problems.append(f"{what}: the record's deals do not fit a {record.players}-player game")
    if not problems:
        try:
            replay(record)
        except ReplayMismatch as exc:
            problems.append(f"{what}: the record does not replay: {exc}")
    return problems


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
