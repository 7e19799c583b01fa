"""Fit the strong bot's playout weights (`bots/playout_weights.json`) to its own choices.

    python -m bots.train_playout collect --first-game 100000 --games 240 --out DATA.jsonl [--jobs 2]
        [--players 2,3,4,5] [--iterations 3:4000,...] [--teacher-weights WEIGHTS.json]
    python -m bots.train_playout fit DATA.jsonl [--out bots/playout_weights.json]

`collect` plays self-play games of the strong bot (the teacher, a `Teacher`): by default searching
with greedy playouts (`StrongBot(playout="greedy")`) at the iteration budgets of
`TEACHER_ITERATIONS`; with `--teacher-weights`, searching with a `LinearPlayout` of those weights,
the next round of fitting the playout to the search that uses it. Game g is played at
`players[g % len(players)]` seats by bots seeded `10 g + seat`, so the same games give the same
data on any machine. Each decision with more than one playout candidate (`bots.playout.candidates`) is
a line's record: the candidates' feature rows and which one the teacher played (matched by what
it leaves, `bots.strong.outcome_key`; choices outside the candidates are counted, not kept).

`fit` finds, per table size, the weights of a conditional logit (softmax over a decision's
candidates of the weighted features) that make the teacher's choices most likely, by Newton's
method with a small ridge; it reports top-1 agreement with the teacher on held-out games (every
fifth) for the fitted weights and for greedy's, then fits on every game and writes the file,
keeping the weights already in it for table sizes the data does not hold.
Needs numpy (`pip install -e '.[train]'`); playing with the weights does not.

How the shipped weights were made, and what they are worth, is in docs/benchmarks.md ("A learned
playout").
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from sdk.engine import Flip, Game, Phase, observe

from .playout import FEATURES, WEIGHTS_FILE, LinearPlayout, candidates, greedy_weights, load_weights
from .strong import StrongBot, outcome_key

TEACHER_ITERATIONS = {2: 3200, 3: 1900, 4: 2200, 5: 2400}
"""The teacher's simulated actions per decision: its budget in the strength benchmark then."""
RIDGE = 1e-3
"""L2 penalty per decision: keeps weights of features a table size never varies at zero."""


@dataclass(frozen=True)
class Teacher:
    """Who plays the collected games, at which table sizes (game g at `players[g % len(players)]`
    seats), with which budgets, and with which playout: greedy's, or a `LinearPlayout` of the
    weights in `weights`."""

    players: tuple[int, ...] = (2, 3, 4, 5)
    iterations: Mapping[int, int] = field(default_factory=lambda: dict(TEACHER_ITERATIONS))
    weights: Path | None = None

    def playout(self) -> str:
        """What the records name as the teacher's playout."""
        return "greedy" if self.weights is None else self.weights.name


def play_game(game_no: int, teacher: Teacher = Teacher()) -> dict[str, Any]:
    """One self-play game of the teacher and the records of its decisions."""
    players = teacher.players[game_no % len(teacher.players)]
    iterations = teacher.iterations[players]
    playout: Literal["greedy"] | LinearPlayout = (
        "greedy" if teacher.weights is None else LinearPlayout(load_weights(teacher.weights.read_text()))
    )
    bots = [
        StrongBot(seed=game_no * 10 + s, move_time=None, iterations=iterations, playout=playout) for s in range(players)
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
    return {
        "game": game_no,
        "players": players,
        "teacher": {"iterations": iterations, "playout": teacher.playout()},
        "outside": outside,
        "decisions": decisions,
    }


def collect(first: int, games: int, out: Path, jobs: int, teacher: Teacher) -> None:
    with out.open("a") as f, multiprocessing.Pool(jobs) as pool:
        for record in pool.imap(partial(play_game, teacher=teacher), range(first, first + games)):
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
    games: dict[int, set[int]] = {}
    taught_by: dict[int, list[dict[str, Any]]] = {}
    for record in read(paths):
        players = record["players"]
        for rows, chosen in record["decisions"]:
            by_size.setdefault(players, []).append((record["game"], rows, chosen))
        games.setdefault(players, set()).add(record["game"])
        # Round one's records were collected before they named their teacher.
        teacher = record.get("teacher", {"iterations": TEACHER_ITERATIONS[players], "playout": "greedy"})
        if teacher not in taught_by.setdefault(players, []):
            taught_by[players].append(teacher)

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

    kept: dict[str, Any] = {}
    if out.exists():
        try:
            kept = json.loads(out.read_text())
            load_weights(out.read_text())
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{out} is not a weights file to keep the other table sizes of: {e!r}") from None
    fitted: dict[str, dict[str, float]] = dict(kept.get("weights", {}))
    teachers: dict[str, dict[str, Any]] = dict(kept.get("teachers", {}))
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
        teachers[str(players)] = {
            "games": len(games[players]),
            "first_game": min(games[players]),
            "teachers": taught_by[players],
        }
    out.write_text(
        json.dumps(
            {"made_by": "python -m bots.train_playout fit", "ridge": RIDGE, "teachers": teachers, "weights": fitted},
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out}")


def sizes(text: str) -> tuple[int, ...]:
    try:
        found = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"table sizes are comma-separated numbers, not {text!r}") from None
    if not found or not all(2 <= n <= 5 for n in found):
        raise argparse.ArgumentTypeError(f"table sizes are 2 to 5, not {text!r}")
    return found


def budgets(text: str) -> dict[int, int]:
    try:
        found = {int(n): int(b) for n, b in (part.split(":") for part in text.split(","))}
    except ValueError:
        raise argparse.ArgumentTypeError(f"budgets are SEATS:ACTIONS pairs like 3:4000,5:3000, not {text!r}") from None
    if not all(2 <= n <= 5 and b >= 1 for n, b in found.items()):
        raise argparse.ArgumentTypeError(f"budgets are for 2 to 5 seats and at least 1 action, not {text!r}")
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect", help="play teacher games and append their decisions to --out")
    gather.add_argument("--first-game", type=int, default=100000)
    gather.add_argument("--games", type=int, required=True)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--jobs", type=int, default=2)
    gather.add_argument("--players", type=sizes, default=(2, 3, 4, 5), help="table sizes, in turn: 2,3,4,5")
    gather.add_argument(
        "--iterations", type=budgets, default={}, help="the teacher's budget per table size: 3:4000,5:3000"
    )
    gather.add_argument(
        "--teacher-weights", type=Path, default=None, help="search with a LinearPlayout of these weights"
    )
    fitting = commands.add_parser("fit", help="fit the weights to collected decisions")
    fitting.add_argument("data", type=Path, nargs="+")
    fitting.add_argument("--out", type=Path, default=Path(__file__).with_name(WEIGHTS_FILE))
    args = parser.parse_args(argv)
    if args.command == "collect":
        if args.teacher_weights is not None and not args.teacher_weights.is_file():
            parser.error(f"no weights file at {args.teacher_weights}")
        teacher = Teacher(args.players, {**TEACHER_ITERATIONS, **args.iterations}, args.teacher_weights)
        collect(args.first_game, args.games, args.out, args.jobs, teacher)
    else:
        fit(args.data, args.out)


if __name__ == "__main__":
    main()
