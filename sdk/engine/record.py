"""Game records: everything needed to replay a game exactly, as JSON (docs/rules.md §2, §9).

A record is (players, seed) plus every decision; the dealt hands and the results are stored too,
so a record checks itself: `replay` deals from the seed, applies the decisions and fails with
`ReplayMismatch` unless it arrives at the same deals and the same results. A tournament's replay
of a voided attempt gives some seats their hands in advance (`sdk.engine.deal`, kept hands): its
record names them in `kept`, and their recorded hands are the ones given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .actions import MAX_HAND, Action, End, Flip, Scout, ScoutShow, Show, action_from_dict, action_to_dict
from .cards import FULL_DECK, Card, Seat
from .errors import IllegalAction, ReplayMismatch
from .game import Game
from .results import EndReason, RoundResult

Hand = tuple[Card, ...]

# Encoding: committing a game writes its record, and building a dict per action for json.dumps
# made that as slow as the rest of the commit. The JSON is assembled from precomputed strings
# instead, falling back to json for anything outside the tables (hand-built records); the text is
# the same as `json.dumps(record.to_dict(), separators=(",", ":"))` except that numbers inside
# actions and cards are always written as integers (even if an action was built with a bool).

_dumps = json.JSONEncoder(separators=(",", ":")).encode
"""Compact JSON by the C encoder; tuples are written as arrays."""

_SHOW_JSON: dict[int, dict[int, str]] = {
    start: {length: f'{{"show":[{start},{length}]}}' for length in range(MAX_HAND + 1)} for start in range(MAX_HAND + 1)
}
_SCOUT_JSON: dict[int, dict[bool, dict[int, str]]] = {
    end: {
        flip: {pos: f'{{"scout":["{end.name.lower()}",{_dumps(flip)},{pos}]}}' for pos in range(MAX_HAND + 1)}
        for flip in (False, True)
    }
    for end in End
}
"""`action_to_dict` as JSON for every Show and Scout a game can log, looked up by field values:
dict lookups by int are cheaper than hashing the dataclass actions themselves."""

_ENTRY_PREFIX: dict[int, dict[int, str]] = {r: {s: f"[{r},{s}," for s in range(5)} for r in range(5)}
"""The start of an action entry, [round,seat, for the at most 5 rounds and seats of a game."""

_CARD_JSON: dict[Card, str] = {c: f"[{c.top},{c.bottom}]" for card in FULL_DECK for c in (card, card.turned())}


def _action_json(action: Action) -> str:
    try:
        kind = type(action)
        if kind is Show:
            return _SHOW_JSON[action.start][action.length]  # type: ignore[union-attr]
        if kind is Scout:
            return _SCOUT_JSON[action.end][action.flip][action.position]  # type: ignore[union-attr]
        if kind is ScoutShow:
            scout, show = action.scout, action.show  # type: ignore[union-attr]
            return (
                _SCOUT_JSON[scout.end][scout.flip][scout.position][:-1] + "," + _SHOW_JSON[show.start][show.length][1:]
            )
    except (KeyError, TypeError):
        pass
    return _dumps(action_to_dict(action))


def _actions_json(actions: tuple[tuple[int, Seat, Action], ...]) -> str:
    if not actions:
        return "[]"
    try:
        return "[" + "],".join([_ENTRY_PREFIX[r][s] + _action_json(a) for r, s, a in actions]) + "]]"
    except (KeyError, TypeError):
        return _dumps([[r, s, action_to_dict(a)] for r, s, a in actions])


def _result_dict(r: RoundResult) -> dict[str, Any]:
    return {
        "round": r.round,
        "reason": r.reason.name,
        "scores": list(r.scores),
        "hand_sizes": list(r.hand_sizes),
        "exempt": r.exempt,
    }


def _brackets(items: Iterable[str]) -> str:
    """A JSON array of already-encoded items."""
    return "[" + ",".join(items) + "]"


def _deals_json(deals: tuple[tuple[Hand, ...], ...]) -> str:
    card = _CARD_JSON.__getitem__
    try:
        return _brackets([_brackets([_brackets(map(card, hand)) for hand in deal]) for deal in deals])
    except (KeyError, TypeError):
        return _dumps(deals)


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
    kept: tuple[Seat, ...] = ()
    """The seats whose hands were given in advance rather than dealt from the seed, in seat order
    (written to JSON only when there are some)."""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "players": self.players,
            "seed": self.seed,
            "deals": [[[list(c) for c in hand] for hand in deal] for deal in self.deals],
            "flips": [list(f) for f in self.flips],
            "actions": [[r, s, action_to_dict(a)] for r, s, a in self.actions],
            "results": [_result_dict(r) for r in self.results],
            "totals": list(self.totals),
        }
        if self.kept:
            data["kept"] = list(self.kept)
        return data

    def to_json(self) -> str:
        """`to_dict()` as compact JSON, assembled from precomputed strings (see "Encoding" above)."""
        results = [_result_dict(r) for r in self.results]
        kept = f',"kept":{_dumps(self.kept)}' if self.kept else ""
        return (
            f'{{"players":{_dumps(self.players)},"seed":{_dumps(self.seed)},"deals":{_deals_json(self.deals)},'
            f'"flips":{_dumps(self.flips)},"actions":{_actions_json(self.actions)},"results":{_dumps(results)},'
            f'"totals":{_dumps(self.totals)}{kept}}}'
        )

    def kept_hands(self) -> dict[Seat, tuple[Hand, ...]]:
        """The hands given in advance, by seat: what `Game(kept=...)` and `deal_rounds` take."""
        return {seat: tuple(deal[seat] for deal in self.deals) for seat in self.kept}

    def start(self) -> Game:
        """A new game dealt as this one was (its seed and kept hands), before its first decision:
        the way to step through a record; ValueError if its kept hands do not fit its game."""
        return Game(self.players, self.seed, kept=self.kept_hands())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Parse a record; a ValueError names what is malformed."""
        try:
            return cls(
                players=int(data["players"]),
                seed=int(data["seed"]),
                deals=tuple(
                    tuple(tuple(Card(int(t), int(b)) for t, b in hand) for hand in deal) for deal in data["deals"]
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
                kept=tuple(int(s) for s in data.get("kept", ())),
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
        kept=tuple(sorted(game.kept)),
    )


def replay(record: GameRecord) -> Game:
    """Play `record` again from its seed (and its kept hands); raise ReplayMismatch where it does
    not reproduce."""
    try:
        game = record.start()
    except (ValueError, IndexError) as exc:
        raise ReplayMismatch(f"the record's kept hands do not fit its game: {exc}") from None
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
