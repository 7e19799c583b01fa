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
* **Verification.** `record_problems` checks a record against its seed (its deals re-dealt with
  `sdk.engine.deal_rounds`, its moves replayed); `arena.tournaments.verification.verify` checks a
  whole tournament as the read calls reveal it.

Boundary 2 of docs/architecture.md: nothing from which a deal follows leaves before its game is finished;
`arena.storage.store` builds every public read model with the seeds left out until then.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from arena.play.results import GameResult, PolicyDecision
from arena.tournaments.schedule import game_seed
from sdk.engine import GameRecord, Kept, ReplayMismatch, deal_rounds, replay

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
