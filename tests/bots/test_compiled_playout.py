"""The compiled rollout (bots/_playout.c) against its definition, the Python playout.

`LinearPlayout.play_out` plays a round to its end in C when the module was built and in Python
otherwise; the two must agree on every position, ties included (docs/rules.md §4-§7: the shows, scouts
and Scout & Shows the playout picks from, how each changes the hands and the active set, when the
round ends and how it is scored), or a search would play differently on a machine without a
compiler.
"""

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

import bots.playout
from bots import StrongBot
from bots.playout import FEATURES, LinearPlayout
from bots.worth import Worth
from sdk.engine import Action, Card, Determinizer, End, Game, IllegalAction, Position, Scout, ScoutShow, Show, observe
from sdk.local import play_game
from tests.bots.test_playout import SIZES, positions

SOURCE = Path(__file__).parents[2] / "bots" / "_playout.c"

needs_compiled = pytest.mark.skipif(
    bots.playout.compiled is None,
    reason="bots/_playout.c was not compiled when the package was installed (no C compiler): "
    "only the Python playout can run here",
)


def samples(players: int, games: int) -> Iterator[Game]:
    """Each position of `positions`, and a determinised sample of it from its mover's view."""
    rng = random.Random(players)
    for game in positions(players, games):
        yield game
        yield Determinizer(observe(game, game.to_move)).sample(rng)


def state(game: Game) -> str:
    return repr((game.hands, game.active, game.owner, game.chips, game.captured, game.round_actions, game.results))


def agree(playout: LinearPlayout, game: Game, first: Action | None = None) -> tuple[tuple[int, ...], int]:
    """Both rollouts' (scores, actions played) from `game`, checked equal; neither changes `game`."""
    before = state(game)
    compiled = playout.play_out(game, first)
    assert compiled == playout.play_out(game, first, accelerated=False)
    assert state(game) == before
    return compiled


@needs_compiled
def test_the_compiled_module_is_built_from_the_current_source() -> None:
    """An editable checkout imports the module built beside its source: rerun the install after changing it."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    assert digest == bots.playout.compiled.SOURCE_SHA256, "bots/_playout.c changed: rerun `pip install -e .`"


@needs_compiled
@pytest.mark.parametrize("players", SIZES)
def test_the_compiled_and_python_rollouts_agree_with_the_shipped_weights(players: int) -> None:
    playout = LinearPlayout.shipped()
    results = [agree(playout, game) for game in samples(players, 12)]
    assert len(results) > 400
    assert len({scores for scores, _ in results}) > 20, "the positions should end their rounds in many ways"


@needs_compiled
@pytest.mark.parametrize("players", SIZES)
def test_they_agree_where_coarse_weights_make_candidates_tie(players: int) -> None:
    """With weights of 0 and ±1 many candidates score alike, and the first of equals in the
    playout's order of candidates must win in both."""
    rng = random.Random(players)
    for game in samples(players, 2):
        weights = [rng.choice((-1.0, 0.0, 0.0, 1.0)) for _ in FEATURES]
        agree(LinearPlayout({players: weights}), game)


@needs_compiled
@pytest.mark.parametrize("players", SIZES)
def test_they_agree_after_any_legal_first_move(players: int) -> None:
    """A search judges its candidates by playing each first: every kind of action, applied as
    `Game.apply` applies it (docs/rules.md §4.1-§5)."""
    playout = LinearPlayout.shipped()
    rng = random.Random(players)
    kinds = set()
    for game in samples(players, 3):
        legal = game.legal_actions()
        for first in (legal[rng.randrange(len(legal))] for _ in range(4)):
            assert agree(playout, game, first)[1] >= 1
            kinds.add(type(first))
    assert kinds == ({Show, Scout} if players == 2 else {Show, Scout, ScoutShow})


@needs_compiled
@pytest.mark.parametrize("players", SIZES)
def test_the_compiled_rollouts_value_their_rounds_as_worth_does(players: int) -> None:
    """A search's step (`LinearPlayout.valuer`): C computes what each round is worth to the seat,
    and must give `Worth`'s floats, or ties between candidates would break otherwise."""
    playout = LinearPlayout.shipped()
    rng = random.Random(players)
    for game in samples(players, 1):
        legal = game.legal_actions()
        firsts: list[Action | None] = [legal[rng.randrange(len(legal))] for _ in range(3)]
        firsts.append(None)
        totals = tuple(rng.randint(-10, 40) for _ in range(players))
        worth = Worth(rng.randrange(players), rng.choice((0.0, 1.0, rng.random())), totals)
        rollouts = playout.play_outs(game, firsts)
        expected = ([worth(scores) for scores, _ in rollouts], sum(n for _, n in rollouts))
        assert playout.valuer(firsts, worth)(game) == expected
        assert playout.valuer(firsts, worth, accelerated=False)(game) == expected


@needs_compiled
def test_a_worth_for_another_table_is_refused() -> None:
    game = next(samples(3, 1))
    with pytest.raises(ValueError, match="worth's totals has 4 entries for 3 seats"):
        LinearPlayout({3: LinearPlayout.shipped().weights(3), 4: LinearPlayout.shipped().weights(4)}).valuer(
            [None], Worth(0, 0.5, (0, 0, 0, 0))
        )(game)


@needs_compiled
@pytest.mark.parametrize("players", SIZES)
def test_one_call_plays_each_first_move_as_a_rollout_of_its_own(players: int) -> None:
    """A search plays all its candidates on one sample in one call (`play_outs`): the position is
    read once, and no rollout may see what the one before it changed."""
    playout = LinearPlayout.shipped()
    rng = random.Random(players)
    for game in samples(players, 1):
        legal = game.legal_actions()
        firsts: list[Action | None] = [legal[rng.randrange(len(legal))] for _ in range(3)]
        firsts.insert(1, None)
        before = state(game)
        together = playout.play_outs(game, firsts)
        assert state(game) == before
        assert together == [agree(playout, game, first) for first in firsts]
        assert together == playout.play_outs(game, firsts, accelerated=False)


@needs_compiled
def test_an_illegal_first_move_is_refused_by_both_rollouts() -> None:
    game = Game.from_position(
        Position(hands=[[Card(4, 1), Card(9, 1)], [Card(9, 2)], [Card(8, 2)]], active=[Card(5, 2), Card(6, 3)], owner=1)
    )
    playout = LinearPlayout.shipped()
    for first, why in (
        (Show(0, 2), "neither a group nor a sequence"),
        (Show(1, 1), "not stronger than the active set"),
        (Show(2, 1), "outside"),
        (Scout(End.LEFT, False, 3), "insert position"),
    ):
        with pytest.raises(ValueError, match=why):
            playout.play_out(game, first)
        with pytest.raises(IllegalAction):
            playout.play_out(game, first, accelerated=False)


@needs_compiled
def test_a_hand_emptied_by_a_scout_and_show_ends_the_round() -> None:
    """docs/rules.md §5, §7.1: the mover scouts the 5 between its 4 and 6 and shows all three."""
    position = Position(
        hands=[[Card(4, 1), Card(6, 1)], [Card(9, 1)] * 3, [Card(8, 2)] * 3],
        active=[Card(5, 2), Card(6, 3)],
        owner=1,
        to_move=0,
        rounds=1,
    )
    scout_show_only = [0.0] * len(FEATURES)
    scout_show_only[FEATURES.index("empties")] = 10.0
    scores, played = agree(LinearPlayout({3: scout_show_only}), Game.from_position(position))
    assert played == 1
    assert scores == (1, 1 - 3, -3)  # the 6 left of the active set captured, the chip paid to its owner


@needs_compiled
def test_positions_it_cannot_play_are_refused_with_the_reason() -> None:
    compiled = bots.playout.compiled
    weights = LinearPlayout.shipped().weights(3)
    hands = [[Card(1, 2)], [Card(3, 4)], [Card(5, 6)]]
    args = (None, 0, [0, 0, 0], [True] * 3, [[], [], []], 0, weights, 1000, [None])
    with pytest.raises(ValueError, match="a table seats 2 to 5 players, not 1"):
        compiled.play_rounds(hands[:1], [], *args)
    with pytest.raises(TypeError, match="a card is a \\(top, bottom\\) pair"):
        compiled.play_rounds([[1], [2], [3]], [], *args)
    with pytest.raises(ValueError, match="a card's value is 1 to 10, not 64"):
        compiled.play_rounds([[(64, 1)], [(3, 4)], [(5, 6)]], [], *args)
    with pytest.raises(ValueError, match="a hand holds 48 cards, more than a deck"):
        compiled.play_rounds([[(5, 6)] * 48, [(3, 4)], [(5, 6)]], [], *args)
    with pytest.raises(ValueError, match="a playout needs 14 weights"):
        compiled.play_rounds(hands, [], None, 0, [0, 0, 0], [True] * 3, [[], [], []], 0, (1.0,), 1000, [None])
    with pytest.raises(ValueError, match="chips has 2 entries for 3 seats"):
        compiled.play_rounds(hands, [], None, 0, [0, 0], [True] * 3, [[], [], []], 0, weights, 1000, [None])
    with pytest.raises(ValueError, match="an active set needs its owner"):
        compiled.play_rounds(hands, [Card(7, 8)], *args)
    with pytest.raises(ValueError, match="the active set is neither a group nor a sequence"):
        compiled.play_rounds(hands, [Card(7, 8), Card(3, 4)], 1, *args[1:])
    with pytest.raises(TypeError, match="a move is a tuple of 6 ints"):
        compiled.play_rounds(hands, [], *args[:-1], [[0, 0, 1, 0, 0, 0]])


def test_a_playout_starts_after_the_flips() -> None:
    game = Game(3, 1)
    with pytest.raises(ValueError, match="once every seat has decided whether to flip"):
        LinearPlayout.shipped().play_out(game)


def test_a_round_already_over_is_scored_without_playing() -> None:
    game = Game.from_position(Position(hands=[[Card(3, 1)], [Card(5, 1)], [Card(6, 1)]], to_move=0, rounds=1))
    game.apply(0, game.legal_actions()[0])
    assert game.is_over
    assert LinearPlayout.shipped().play_out(game) == (game.results[-1].scores, 0)


@pytest.mark.parametrize("players", [2, 4])
def test_the_strong_bot_plays_the_same_game_without_the_compiled_module(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the SDK falls back to where the build had no compiler: the same moves, only slower."""

    def game() -> object:
        return play_game([StrongBot(seed=s, move_time=None, iterations=300) for s in range(players)], seed=5).record

    with_module = game()
    monkeypatch.setattr(bots.playout, "compiled", None)
    assert game() == with_module
