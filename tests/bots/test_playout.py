"""The learned playout (bots/playout.py) and its training script (bots/train_playout.py)."""

import json
import random
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import pytest

from bots import StrongBot
from bots.greedy import hand_values, prefer_flip
from bots.montecarlo import rollout_action
from bots.playout import FEATURES, WEIGHTS_FILE, LinearPlayout, candidates, greedy_weights, load_weights
from bots.train_playout import Teacher, fit, play_game
from sdk.engine import Flip, Game, Phase

SIZES = (2, 3, 4, 5)


def positions(players: int, games: int) -> Iterator[Game]:
    """Play positions of seeded games in which every seat mixes greedy-like and random moves."""
    value = hand_values()
    for seed in range(games):
        game, rng = Game(players, seed), random.Random(seed)
        while not game.is_over:
            if game.phase is Phase.FLIP:
                for seat in game.awaiting:
                    game.apply(seat, Flip(rng.random() < 0.5))
                continue
            yield game
            legal = game.legal_actions()
            move = rollout_action(game, value) if rng.random() < 0.6 else legal[rng.randrange(len(legal))]
            game.apply(game.to_move, move)


@pytest.mark.parametrize("players", SIZES)
def test_with_greedys_weights_the_playout_plays_as_the_greedy_rollout(players: int) -> None:
    playout = LinearPlayout({players: greedy_weights()})
    value = hand_values()
    checked = 0
    for game in positions(players, 15):
        assert playout.action(game) == rollout_action(game, value)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("players", SIZES)
def test_the_playout_plays_the_candidate_whose_features_score_best(players: int) -> None:
    """The fast scorer and the feature rows the weights were fitted on must not drift apart."""
    playout = LinearPlayout.shipped()
    w = playout.weights(players)
    for game in positions(players, 10):
        actions, rows = candidates(game)
        scores = [sum(a * b for a, b in zip(w, row, strict=True)) for row in rows]
        best = max(scores)
        assert scores[actions.index(playout.action(game))] == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("players", SIZES)
def test_every_candidate_is_legal(players: int) -> None:
    """docs/rules.md §4-§5: the playout only ever plays what the referee would accept."""
    for game in positions(players, 8):
        actions, rows = candidates(game)
        legal = set(game.legal_actions())
        assert actions and all(a in legal for a in actions)
        assert all(len(row) == len(FEATURES) for row in rows)


def test_the_shipped_weights_name_every_feature_for_every_table_size() -> None:
    text = (Path(__file__).parents[2] / "bots" / "playout_weights.json").read_text()
    weights = json.loads(text)["weights"]
    assert sorted(weights) == ["2", "3", "4", "5"]
    assert all(list(named) == list(FEATURES) for named in weights.values())
    assert load_weights(text)[4] != greedy_weights()


def test_weights_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(ValueError, match=f"needs {len(FEATURES)} weights per table size, not 3"):
        LinearPlayout({2: [1.0, 2.0, 3.0]})


def test_a_strong_bot_refuses_an_unknown_playout() -> None:
    with pytest.raises(ValueError, match="playout is 'learned', 'greedy' or a LinearPlayout, not 'clever'"):
        StrongBot(iterations=10, playout="clever")  # type: ignore[arg-type]


def play(players: int, seed: int, mine: frozenset[int], playout: LinearPlayout) -> float:
    """One game of the playout in seats `mine` against the greedy rollout; its share of the win."""
    value = hand_values()
    game = Game(players, seed)
    while not game.is_over:
        if game.phase is Phase.FLIP:
            for seat in game.awaiting:
                game.apply(seat, Flip(prefer_flip(game.hands[seat], value)))
            continue
        seat = game.to_move
        game.apply(seat, playout.action(game) if seat in mine else rollout_action(game, value))
    outcome = game.outcome
    assert outcome is not None
    return sum(s in mine for s in outcome.winners) / len(outcome.winners)


DEALS = 30


@pytest.mark.parametrize("players", SIZES)
def test_the_shipped_playout_on_its_own_wins_more_tables_than_the_greedy_rollout(players: int) -> None:
    """Seeded, so not a matter of luck: each deal is played twice with the seats swapped."""
    playout = LinearPlayout.shipped()
    half = frozenset(range(0, players, 2))
    other = frozenset(range(players)) - half
    shares = [(play(players, seed, half, playout) + play(players, seed, other, playout)) / 2 for seed in range(DEALS)]
    assert sum(shares) / len(shares) > 0.55


def test_collected_games_are_reproducible_and_name_the_teachers_move() -> None:
    teacher = Teacher(iterations={2: 300})
    record = play_game(100000, teacher)
    assert record == play_game(100000, teacher)
    assert record["players"] == 2 and record["decisions"]
    assert record["teacher"] == {"iterations": 300, "playout": "greedy"}
    for rows, chosen in record["decisions"]:
        assert len(rows) > 1 and 0 <= chosen < len(rows)
        assert all(len(row) == len(FEATURES) for row in rows)


def test_a_later_round_searches_with_the_weights_it_is_given(tmp_path: Path) -> None:
    """Round two of the loop: the teacher's rollouts play a fitted playout, and its records say so."""
    weights = tmp_path / "round1.json"
    weights.write_text(files("bots").joinpath(WEIGHTS_FILE).read_text())
    greedy_teacher = Teacher(players=(3,), iterations={3: 300})
    learned_teacher = Teacher(players=(3,), iterations={3: 300}, weights=weights)
    learned = play_game(7, learned_teacher)
    assert learned["players"] == 3
    assert learned["teacher"] == {"iterations": 300, "playout": "round1.json"}
    assert learned["decisions"] != play_game(7, greedy_teacher)["decisions"]


def test_fit_recovers_the_preferences_of_a_known_policy(tmp_path: Path) -> None:
    """Decisions made by known weights (with a little noise) are fitted back to weights that
    choose as they do; the file's other table sizes are left as they were."""
    rng = random.Random(3)
    truth = [rng.uniform(-2, 2) for _ in FEATURES]
    lines = []
    for game_no in range(200):
        decisions = []
        for _ in range(10):
            rows = [[rng.randint(0, 5) / 2 for _ in FEATURES] for _ in range(rng.randint(2, 8))]
            scores = [sum(w * x for w, x in zip(truth, row, strict=True)) + rng.gauss(0, 0.3) for row in rows]
            decisions.append([rows, max(range(len(rows)), key=scores.__getitem__)])
        lines.append(json.dumps({"game": game_no, "players": 3, "outside": 0, "decisions": decisions}))
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "weights.json"
    two_seats = dict(zip(FEATURES, greedy_weights(), strict=True))
    out.write_text(json.dumps({"weights": {"2": two_seats}}))
    fit([data], out)
    assert load_weights(out.read_text())[2] == greedy_weights(), "a table size without data keeps its weights"
    made_by = json.loads(out.read_text())["teachers"]["3"]
    assert made_by == {"games": 200, "first_game": 0, "teachers": [{"iterations": 1900, "playout": "greedy"}]}
    fitted = load_weights(out.read_text())[3]
    agree = total = 0
    for _ in range(500):
        rows = [[rng.randint(0, 5) / 2 for _ in FEATURES] for _ in range(5)]
        by = [[sum(w * x for w, x in zip(ws, row, strict=True)) for row in rows] for ws in (truth, fitted)]
        agree += by[0].index(max(by[0])) == by[1].index(max(by[1]))
        total += 1
    assert agree / total > 0.9


def test_fit_refuses_to_keep_sizes_from_a_file_that_holds_no_weights(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        json.dumps({"game": 0, "players": 3, "outside": 0, "decisions": [[[[0.0] * len(FEATURES)] * 2, 0]]})
    )
    out = tmp_path / "weights.json"
    out.write_text('{"weights": {"2": {"captured": 1.0}}}')
    with pytest.raises(SystemExit, match="not a weights file"):
        fit([data], out)
    assert out.read_text() == '{"weights": {"2": {"captured": 1.0}}}', "the file is left as it was"
