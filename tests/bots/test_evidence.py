"""What scouts say about hidden hands (bots/evidence.py): read right, and used to weigh samples."""

from __future__ import annotations

import random

import pytest

from bots import GreedyBot
from bots.evidence import InformedDeterminizer, ScoutEvidence
from sdk import Observation
from sdk.engine import Determinizer, Flip, Game, Phase, observe


def greedy_positions(players: int, games: int) -> list[tuple[Observation, Game]]:
    """Each play decision of greedy games, with a copy of the true game at that moment."""
    bot = GreedyBot()
    found = []
    for seed in range(games):
        game = Game(players, seed)
        while not game.is_over:
            seat = game.awaiting[0]
            obs = observe(game, seat)
            if game.phase is Phase.FLIP:
                game.apply(seat, Flip(bot.flip(obs)))
                continue
            found.append((obs, game.copy()))
            game.apply(seat, bot.choose(obs))
    return found


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_true_hands_agree_with_the_scouts_of_seats_that_play_greedy(players: int) -> None:
    """Greedy never scouts a set it could beat (docs/rules.md §4: a show must beat the active set), so
    the real deal must explain every scout since the last show; a card put back in the wrong place
    or a set read at the wrong strength would show up as a disagreement."""
    positions = greedy_positions(players, 4)
    with_scouts = [(obs, game) for obs, game in positions if ScoutEvidence(obs).scouts]
    assert len(with_scouts) >= 20, "scouts of the table's set are common"
    assert all(ScoutEvidence(obs).agrees(game) for obs, game in with_scouts)


def test_only_other_seats_scouts_since_the_last_show_count() -> None:
    for obs, _ in greedy_positions(4, 3):
        evidence = ScoutEvidence(obs)
        assert all(seat != obs.seat for seat, _, _ in evidence.scouts)
        assert len(evidence.scouts) <= obs.table.players - 1, "between two shows each seat moves once"


def test_informed_samples_agree_with_the_scouts_where_plain_ones_do_not() -> None:
    rng = random.Random(7)
    positions = [obs for obs, _ in greedy_positions(4, 4) if ScoutEvidence(obs).scouts]
    plain_disagree = informed_disagree = 0
    for obs in positions:
        evidence = ScoutEvidence(obs)
        plain = Determinizer(obs)
        informed = InformedDeterminizer(obs, keep=1e-9)
        plain_disagree += sum(not evidence.agrees(plain.sample(rng)) for _ in range(10))
        informed_disagree += sum(not evidence.agrees(informed.sample(rng)) for _ in range(10))
    assert plain_disagree > 0, "uniform samples often give a scouting seat a set that beat the table"
    assert informed_disagree == 0


def test_keep_one_takes_the_samples_as_they_come() -> None:
    obs = next(obs for obs, _ in greedy_positions(4, 2) if ScoutEvidence(obs).scouts)
    plain, informed = Determinizer(obs), InformedDeterminizer(obs, keep=1.0)
    assert plain.sample(random.Random(3)).hands == informed.sample(random.Random(3)).hands
    with pytest.raises(ValueError, match="probability"):
        InformedDeterminizer(obs, keep=0.0)
