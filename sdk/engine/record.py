"""Game records: everything needed to replay a game exactly, as JSON (RULES.md §2, §9).

A record is (players, seed) plus every decision; the dealt hands and the results are stored too,
so a record checks itself: `replay` deals from the seed, applies the decisions and fails with
`ReplayMismatch` unless it arrives at the same deals and the same results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import Action, Flip, action_from_dict, action_to_dict
from .cards import Card, Seat
from .errors import IllegalAction, ReplayMismatch
from .game import Game
from .results import EndReason, RoundResult

Hand = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished (or unfinished) game, replayable from its seed and decisions."""

    players: int
    seed: int
    deals: tuple[tuple[Hand, ...], ...]
    """deals[round][seat]: the hand as dealt, before the flip decision."""
    flips: tuple[tuple[bool, ...], ...]
    actions: tuple[tuple[int, Seat, Action], ...]
    """Every play action as (round, seat, action), in order."""
    results: tuple[RoundResult, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "seed": self.seed,
            "deals": [[[list(c) for c in hand] for hand in deal] for deal in self.deals],
            "flips": [list(f) for f in self.flips],
            "actions": [[r, s, action_to_dict(a)] for r, s, a in self.actions],
            "results": [
                {
                    "round": r.round,
                    "reason": r.reason.name,
                    "scores": list(r.scores),
                    "hand_sizes": list(r.hand_sizes),
                    "exempt": r.exempt,
                }
                for r in self.results
            ],
            "totals": list(self.totals),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Parse a record; a ValueError names what is malformed."""
        try:
            return cls(
                players=int(data["players"]),
                seed=int(data["seed"]),
                deals=tuple(
                    tuple(tuple(Card(int(t), int(b)) for t, b in hand) for hand in deal)
                    for deal in data["deals"]
                ),
                flips=tuple(tuple(bool(f) for f in flips) for flips in data["flips"]),
                actions=tuple((int(r), int(s), action_from_dict(a)) for r, s, a in data["actions"]),
                results=tuple(
                    RoundResult(
                        int(r["round"]),
                        EndReason[r["reason"]],
                        tuple(int(x) for x in r["scores"]),
                        tuple(int(x) for x in r["hand_sizes"]),
                        None if r["exempt"] is None else int(r["exempt"]),
                    )
                    for r in data["results"]
                ),
                totals=tuple(int(t) for t in data["totals"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed game record: {exc!r}") from None

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"game record is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("game record must be a JSON object")
        return cls.from_dict(data)


def record_of(game: Game) -> GameRecord:
    """The record of `game` so far; a round whose flips are still being decided has none yet."""
    return GameRecord(
        players=game.players,
        seed=game.seed,
        deals=tuple(game.deals),
        flips=tuple(game.revealed_flips),
        actions=tuple(game.log),
        results=tuple(game.results),
        totals=tuple(game.totals),
    )


def replay(record: GameRecord) -> Game:
    """Play `record` again from its seed; raise ReplayMismatch where it does not reproduce."""
    game = Game(record.players, record.seed)
    actions = list(record.actions)
    index = 0
    for round_, flips in enumerate(record.flips):
        if game.round != round_:
            raise ReplayMismatch(f"record has flips for round {round_} but the game is in round {game.round}")
        try:
            for seat, flip in enumerate(flips):
                game.apply(seat, Flip(flip))
            while index < len(actions) and actions[index][0] == round_:
                _, seat, action = actions[index]
                game.apply(seat, action)
                index += 1
        except IllegalAction as exc:
            raise ReplayMismatch(f"action {index} of the record is illegal on replay: {exc}") from None
    if index != len(actions):
        raise ReplayMismatch(f"{len(actions) - index} recorded actions were never reached")
    replayed = record_of(game)
    for name in ("deals", "results", "totals"):
        if getattr(replayed, name) != getattr(record, name):
            raise ReplayMismatch(f"replayed {name} differ from the record's")
    return game
