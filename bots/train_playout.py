"""Fit the strong bot's playout weights (`bots/playout_weights.json`) to its own choices.

    python -m bots.train_playout collect --first-game 100000 --games 240 --out DATA.jsonl [--jobs 2]
    python -m bots.train_playout fit DATA.jsonl [--out bots/playout_weights.json]

`collect` plays self-play games of the strong bot searching with greedy playouts (the teacher,
`StrongBot(playout="greedy")`) at the iteration budgets of `TEACHER_ITERATIONS`: game g is played at
`(2, 3, 4, 5)[g % 4]` seats by bots seeded `10 g + seat`, so the same games give the same data on
any machine. Each decision with more than one playout candidate (`bots.playout.candidates`) is
a line's record: the candidates' feature rows and which one the teacher played (matched by what
it leaves, `bots.strong.outcome_key`; choices outside the candidates are counted, not kept).

`fit` finds, per table size, the weights of a conditional logit (softmax over a decision's
candidates of the weighted features) that make the teacher's choices most likely, by Newton's
method with a small ridge; it reports top-1 agreement with the teacher on held-out games (every
fifth) for the fitted weights and for greedy's, then fits on every game and writes the file.
Needs numpy (`pip install -e '.[train]'`); playing with the weights does not.

How the shipped weights were made, and what they are worth, is in docs/benchmarks.md ("A learned
playout").
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from sdk.engine import Flip, Game, Phase, observe

from .playout import FEATURES, WEIGHTS_FILE, candidates, greedy_weights
from .strong import StrongBot, outcome_key

TEACHER_ITERATIONS = {2: 3200, 3: 1900, 4: 2200, 5: 2400}
"""The teacher's simulated actions per decision: its budget in the strength benchmark then."""
RIDGE = 1e-3
"""L2 penalty per decision: keeps weights of features a table size never varies at zero."""


def play_game(game_no: int) -> dict[str, Any]:
    """One self-play game of the teacher and the records of its decisions."""
    players = (2, 3, 4, 5)[game_no % 4]
    bots = [
        StrongBot(seed=game_no * 10 + s, move_time=None, iterations=TEACHER_ITERATIONS[players], playout="greedy")
        for s in range(players)
    ]
    game = Game(players, game_no)
    decisions: list[tuple[list[tuple[float, ...]], int]] = []
    outside = 0
    while not game.is_over:
        seat = game.awaiting[0]
        obs = observe(game, seat)
        if game.phase is Phase.FLIP:
            game.apply(seat, Flip(bots[seat].flip(obs)))
            continue
        if len(obs.legal_actions) == 1:
            game.apply(seat, obs.legal_actions[0])
            continue
        action = bots[seat].choose(obs)
        actions, rows = candidates(game)
        tops = tuple(c[0] for c in game.hands[seat])
        key = outcome_key(tops, game.active, action)
        chosen = next((i for i, a in enumerate(actions) if outcome_key(tops, game.active, a) == key), None)
        if chosen is None:
            outside += 1
        elif len(actions) > 1:
            decisions.append((rows, chosen))
        game.apply(seat, action)
    return {"game": game_no, "players": players, "outside": outside, "decisions": decisions}


def collect(first: int, games: int, out: Path, jobs: int) -> None:
    with out.open("a") as f, multiprocessing.Pool(jobs) as pool:
        for record in pool.imap(play_game, range(first, first + games)):
            f.write(json.dumps(record) + "\n")
            f.flush()
            print(f"game {record['game']}: {len(record['decisions'])} decisions", file=sys.stderr)


def read(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        with path.open() as f:
            for line in f:
                yield json.loads(line)


def fit(paths: Sequence[Path], out: Path) -> None:
    import numpy as np

    by_size: dict[int, list[tuple[int, list[list[float]], int]]] = {}
    for record in read(paths):
        for rows, chosen in record["decisions"]:
            by_size.setdefault(record["players"], []).append((record["game"], rows, chosen))

    def arrays(decisions: list[tuple[int, list[list[float]], int]]) -> tuple[Any, Any, Any]:
        x = np.array([row for _, rows, _ in decisions for row in rows], float)
        group = np.repeat(np.arange(len(decisions)), [len(rows) for _, rows, _ in decisions])
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        picked = starts + np.array([chosen for _, _, chosen in decisions])
        return x, group, picked

    def loss(w: Any, x: Any, group: Any, picked: Any) -> float:
        s = x @ w
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        top = np.maximum.reduceat(s, starts)
        lse = top + np.log(np.add.reduceat(np.exp(s - top[group]), starts))
        return float(lse.sum() - s[picked].sum() + 0.5 * RIDGE * len(starts) * (w @ w))

    def newton(x: Any, group: Any, picked: Any) -> Any:
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        n = len(starts)
        w = np.zeros(x.shape[1])
        current = loss(w, x, group, picked)
        for _ in range(100):
            s = x @ w
            e = np.exp(s - np.maximum.reduceat(s, starts)[group])
            p = e / np.add.reduceat(e, starts)[group]
            expected = np.add.reduceat(x * p[:, None], starts)
            grad = x[picked].sum(0) - expected.sum(0) - RIDGE * n * w
            hessian = (x * p[:, None]).T @ x - expected.T @ expected + RIDGE * n * np.eye(x.shape[1])
            step = np.linalg.solve(hessian, grad)
            t = 1.0
            while (new := loss(w + t * step, x, group, picked)) > current and t > 1e-4:
                t /= 2
            w = w + t * step
            done = current - new < 1e-9 * n
            current = new
            if done:
                break
        return w

    def agreement(w: Any, x: Any, group: Any, picked: Any) -> float:
        s = x @ w
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        best = [a + int(np.argmax(s[a:b])) for a, b in zip(starts, [*starts[1:], len(s)], strict=True)]
        return float(np.mean(np.array(best) == picked))

    fitted: dict[str, dict[str, float]] = {}
    for players in sorted(by_size):
        decisions = by_size[players]
        train = arrays([d for d in decisions if d[0] % 5])
        held_out = arrays([d for d in decisions if d[0] % 5 == 0])
        w = newton(*train)
        print(
            f"{players} seats: {len(decisions)} decisions; agreement with the teacher on held-out games: "
            f"fitted {agreement(w, *held_out):.3f}, greedy {agreement(np.array(greedy_weights()), *held_out):.3f}"
        )
        w = newton(*arrays(decisions))
        fitted[str(players)] = {f: round(float(v), 6) for f, v in zip(FEATURES, w, strict=True)}
    games = sorted({record["game"] for record in read(paths)})
    out.write_text(
        json.dumps(
            {
                "made_by": "python -m bots.train_playout fit",
                "games": len(games),
                "teacher_iterations": TEACHER_ITERATIONS,
                "ridge": RIDGE,
                "weights": fitted,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect", help="play teacher games and append their decisions to --out")
    gather.add_argument("--first-game", type=int, default=100000)
    gather.add_argument("--games", type=int, required=True)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--jobs", type=int, default=2)
    fitting = commands.add_parser("fit", help="fit the weights to collected decisions")
    fitting.add_argument("data", type=Path, nargs="+")
    fitting.add_argument("--out", type=Path, default=Path(__file__).with_name(WEIGHTS_FILE))
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.first_game, args.games, args.out, args.jobs)
    else:
        fit(args.data, args.out)


if __name__ == "__main__":
    main()
