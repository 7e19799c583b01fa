"""The strong bot's round evaluation: real scores at a round's end, the weighted features before
it, and weights that `bots/train_value.py` reproduces from a seed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bots.evaluation import SEAT_FEATURES, RoundValue, seat_rows
from bots.greedy import greedy_split
from bots.playout import LinearPlayout
from bots.train_value import fit, main
from sdk.engine import Determinizer, Flip, Game, observe


def _sample(players: int, seed: int, actions: int) -> Game:
    """A determinised sample of the round a few playout actions in, seen from the seat to move."""
    game = Game(players, seed)
    for seat in range(players):
        game.apply(seat, Flip(False))
    playout = LinearPlayout.shipped()
    for _ in range(actions):
        game.apply(game.to_move, playout.action(game))
    return Determinizer(observe(game, game.to_move)).sample(random.Random(seed))


def _unit(feature: str) -> list[float]:
    return [1.0 if f == feature else 0.0 for f in SEAT_FEATURES]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_round_that_has_ended_is_worth_its_scores(players: int) -> None:
    """docs/rules.md §7: the round's scores, not a prediction, once it is over."""
    game = _sample(players, 11, 3)
    LinearPlayout.shipped().finish(game)
    value = RoundValue({players: _unit("cards")})
    assert value.scores(game, game.results[-1].round) == tuple(map(float, game.results[-1].scores))


@pytest.mark.parametrize("players", [3, 5])
def test_before_the_end_a_seat_is_worth_its_weighted_features(players: int) -> None:
    game = _sample(players, 4, 2 * players)
    assert not game.results
    round_ = game.round
    assert RoundValue({players: _unit("cards")}).scores(game, round_) == tuple(float(len(h)) for h in game.hands)
    sets = RoundValue({players: _unit("sets")}).scores(game, round_)
    assert sets == tuple(float(greedy_split(tuple(c[0] for c in h))[0]) for h in game.hands)
    turns = RoundValue({players: _unit("turns_away")}).scores(game, round_)
    assert [turns[(game.to_move + k) % players] for k in range(players)] == [float(k) for k in range(players)]


def test_the_rows_say_who_owns_the_active_set_and_how_large_it_is() -> None:
    game = _sample(4, 8, 5)
    rows = seat_rows(game)
    owner, active, owned = (SEAT_FEATURES.index(f) for f in ("owner", "active_cards", "owned_cards"))
    assert [r[owner] for r in rows] == [1.0 if s == game.owner else 0.0 for s in range(4)]
    assert all(r[active] == len(game.active) for r in rows)
    assert sum(r[owned] for r in rows) == (len(game.active) if game.owner is not None else 0)


def test_the_shipped_weights_name_every_feature_for_every_table_size() -> None:
    value = RoundValue.shipped()
    for players in (2, 3, 4, 5):
        assert len(value.weights(players)) == len(SEAT_FEATURES)


def test_weights_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(ValueError, match="weights per table size"):
        RoundValue({3: [1.0, 2.0]})


def test_fitting_is_reproducible_and_keeps_the_other_table_sizes(tmp_path: Path) -> None:
    out, again = tmp_path / "a.json", tmp_path / "b.json"
    kept = {"weights": {"5": dict(zip(SEAT_FEATURES, _unit("chips"), strict=True))}}
    out.write_text(json.dumps(kept))
    again.write_text(json.dumps(kept))
    fit(10, 3, (3,), out)
    fit(10, 3, (3,), again)
    assert out.read_text() == again.read_text()
    made = json.loads(out.read_text())
    assert made["weights"]["5"] == kept["weights"]["5"]
    weights = RoundValue({3: [made["weights"]["3"][f] for f in SEAT_FEATURES]}).weights(3)
    assert weights[SEAT_FEATURES.index("captured")] > 0, "a captured card is a point at the round's end"
    assert weights[SEAT_FEATURES.index("sets")] < 0, "each set left is a turn the seat needs to go out"
    fit(10, 4, (3,), again)
    assert json.loads(again.read_text())["weights"]["3"] != made["weights"]["3"], "another seed, other rounds"


def test_a_file_that_holds_no_weights_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "w.json"
    out.write_text("not json")
    with pytest.raises(SystemExit, match="is not a weights file"):
        fit(5, 1, (2,), out)
    assert out.read_text() == "not json"


def test_too_few_rounds_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--rounds", "2", "--out", "unused.json"])
    assert stopped.value.code == 2
    assert "--rounds must be at least 5" in capsys.readouterr().err
