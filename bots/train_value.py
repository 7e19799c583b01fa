"""Fit the strong bot's round evaluation (`bots/value_weights.json`) to rounds its playout plays.

    python -m bots.train_value [--rounds 2000] [--seed 1] [--players 2,3,4,5] [--out bots/value_weights.json]

Round r at each table size is dealt from a seed drawn from `--seed`, each seat flips as greedy
would (`bots.greedy.prefer_flip`) and the shipped playout (`bots.playout.LinearPlayout.shipped`)
plays every seat to the round's end, so the same arguments give the same weights on any machine.
Every position of the round is a sample per seat: its `SEAT_FEATURES` and the score it ended
the round with. Least squares with a small ridge fits one weight vector per table size; it
reports the share of the score's variance it explains on held-out rounds (every fifth: R²,
where predicting the mean scores 0), then fits on every round and writes the file. The playout
is deterministic, so most of what a position leaves unexplained is the deal's hidden cards: the
noise a search averages over.
Needs numpy (`pip install -e '.[train]'`); playing with the weights does not.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from sdk.engine import Flip, Game, Phase

from .evaluation import SEAT_FEATURES, WEIGHTS_FILE, Row, load_weights, seat_rows
from .greedy import hand_values, prefer_flip
from .playout import LinearPlayout
from .train_playout import sizes

RIDGE = 1e-3
"""L2 penalty per sample: keeps the weight of a feature a table size never varies near zero."""


def play_round(players: int, seed: int, playout: LinearPlayout) -> tuple[list[Row], list[int]]:
    """One round's samples: every seat's features at every position, and the score each ended with."""
    value = hand_values()
    game = Game(players, seed)
    for seat in range(players):
        game.apply(seat, Flip(prefer_flip(game.hands[seat], value)))
    positions = []
    while game.phase is Phase.PLAY and game.round == 0:
        positions.append(seat_rows(game))
        game.apply(game.to_move, playout.action(game))
    scores = game.results[0].scores
    return [row for rows in positions for row in rows], [scores[s] for _ in positions for s in range(players)]


def fit(rounds: int, seed: int, players: tuple[int, ...], out: Path) -> dict[str, Any]:
    import numpy as np

    playout = LinearPlayout.shipped()
    fitted: dict[str, dict[str, float]] = {}
    for n in players:
        seeds = random.Random(f"{seed}:{n}")
        samples = [play_round(n, seeds.randrange(1 << 62), playout) for _ in range(rounds)]

        def arrays(which: range | list[int], samples: list[tuple[list[Row], list[int]]] = samples) -> tuple[Any, Any]:
            x = np.array([row for r in which for row in samples[r][0]], float)
            return x, np.array([y for r in which for y in samples[r][1]], float)

        def solve(x: Any, y: Any) -> Any:
            return np.linalg.solve(x.T @ x + RIDGE * len(y) * np.eye(x.shape[1]), x.T @ y)

        def r2(predicted: Any, y: Any) -> float:
            return float(1 - ((y - predicted) ** 2).mean() / y.var())

        x, y = arrays([r for r in range(rounds) if r % 5])
        held_x, held_y = arrays([r for r in range(rounds) if r % 5 == 0])
        print(
            f"{n} seats: {len(y) + len(held_y)} samples of {rounds} rounds; "
            f"R² on held-out rounds {r2(held_x @ solve(x, y), held_y):.3f}"
        )
        w = solve(*arrays(range(rounds)))
        fitted[str(n)] = {f: round(float(v), 6) for f, v in zip(SEAT_FEATURES, w, strict=True)}
    kept: dict[str, Any] = {}
    if out.exists():
        try:
            kept = json.loads(out.read_text())["weights"]
            load_weights(out.read_text())
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{out} is not a weights file to keep the other table sizes of: {e!r}") from None
    made = {
        "made_by": f"python -m bots.train_value --rounds {rounds} --seed {seed}",
        "ridge": RIDGE,
        "weights": {**kept, **fitted},
    }
    out.write_text(json.dumps(made, indent=1) + "\n")
    print(f"wrote {out}")
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=sizes, default=(2, 3, 4, 5), help="table sizes: 2,3,4,5")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name(WEIGHTS_FILE))
    args = parser.parse_args(argv)
    if args.rounds < 5:
        parser.error(f"--rounds must be at least 5, to hold one round of five out; not {args.rounds}")
    fit(args.rounds, args.seed, args.players, args.out)


if __name__ == "__main__":
    main()
