"""The strong bot's evaluation of a round in progress: what each seat is likely to score by its end.

A rollout to the end of the round is most of a search's cost (about 15 playout actions at 4 seats,
docs/benchmarks.md "What a search costs"). Stopping a rollout a few actions after the move being
judged and reading the rest off the position buys several times more samples in the same time,
and an expectation is steadier than the one ending a single rollout happens to reach. Measured at
4 seats, those gains did not outweigh the estimate's errors (docs/benchmarks.md, "Truncated
rollouts and a learned round evaluation"), so the strong bot plays to the round's end by default.
`RoundValue` predicts each seat's round score as a weighted sum of `SEAT_FEATURES`, one weight
vector per table size, fitted by least squares to the ends of rounds the shipped playout plays
(`bots/train_value.py`; the shipped weights are in `value_weights.json`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from operator import mul

from sdk.engine import Game
from sdk.memo import memoised

from .greedy import HAND_VALUES, greedy_split

SEAT_FEATURES = (
    "bias",
    "captured",
    "chips",
    "cards",
    "sets",
    "longest",
    "owner",
    "turns_away",
    "scout_show",
    "fewest_others",
    "active_cards",
    "one_set",
    "few_cards",
    "owned_cards",
)
"""What a seat's round score is predicted from: 1; the cards it has captured this round; its scout
chips; the cards in its hand; the sets `min_sets`' split of its hand needs, and that split's
longest set (`greedy_split`); whether it owns the active set; how many turns until it moves (0: it
is to move); whether it still holds its Scout & Show chip; the fewest cards any other seat holds;
the active set's size; whether its hand is one set; whether it holds at most `FEW_CARDS`; the
active set's size if it owns it, else 0."""

FEW_CARDS = 2
WEIGHTS_FILE = "value_weights.json"

Row = tuple[float, ...]
Split = Callable[[tuple[int, ...]], tuple[int, int]]


def seat_rows(game: Game, split: Split = greedy_split) -> list[Row]:
    """Every seat's `SEAT_FEATURES` in the round `game` is playing; `split` is `greedy_split` or a
    memo of it."""
    n = game.players
    hands = game.hands
    sizes = [len(h) for h in hands]
    active = len(game.active)
    owner = game.owner
    to_move = game.to_move
    rows: list[Row] = []
    for s in range(n):
        cards = sizes[s]
        sets, longest = split(tuple([c[0] for c in hands[s]]))
        owns = 1.0 if owner == s else 0.0
        rows.append(
            (
                1.0,
                len(game.captured[s]),
                game.chips[s],
                cards,
                sets,
                longest,
                owns,
                (s - to_move) % n,
                1.0 if game.scout_show[s] else 0.0,
                min(sizes[t] for t in range(n) if t != s),
                active,
                1.0 if sets == 1 else 0.0,
                1.0 if cards <= FEW_CARDS else 0.0,
                owns * active,
            )
        )
    return rows


class RoundValue:
    """Each seat's expected round score: the real scores once the round is over, else the
    weighted sum of its `SEAT_FEATURES`. `weights` maps each table size to one weight per
    feature, in `SEAT_FEATURES` order."""

    def __init__(self, weights: Mapping[int, Sequence[float]]) -> None:
        for players, ws in weights.items():
            if len(ws) != len(SEAT_FEATURES):
                raise ValueError(
                    f"a round value needs {len(SEAT_FEATURES)} weights per table size, not {len(ws)} for {players}"
                )
        self._by_size = {int(players): tuple(map(float, ws)) for players, ws in weights.items()}
        self._split = memoised(greedy_split, size=HAND_VALUES)

    @classmethod
    def shipped(cls) -> RoundValue:
        """The weights `bots/train_value.py` fitted, as shipped in the package."""
        return cls(load_weights(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text()))

    def weights(self, players: int) -> tuple[float, ...]:
        return self._by_size[players]

    def scores(self, game: Game, round_: int) -> tuple[float, ...]:
        """Round `round_`'s scores: as scored if it has ended, else as predicted from `game`."""
        if game.results and game.results[-1].round == round_:
            return tuple(map(float, game.results[-1].scores))
        w = self._by_size[game.players]
        return tuple([sum(map(mul, w, row)) for row in seat_rows(game, self._split)])


def load_weights(text: str) -> dict[int, list[float]]:
    """Weights by table size from `value_weights.json`'s text: {"weights": {"2": {name: w}}}."""
    data = json.loads(text)
    return {int(players): [float(named[f]) for f in SEAT_FEATURES] for players, named in data["weights"].items()}
