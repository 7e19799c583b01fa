"""docs/rules.md §7 (scoring a round) and §8 (end of the game, standings)."""

from __future__ import annotations

import pytest

from sdk.engine import EndReason, IllegalAction, Outcome, Phase, Show, competition_ranks

from .helpers import play, random_game, scout, show, table


def test_7_captured_plus_chips_minus_hand_and_the_final_set_scores_nothing() -> None:
    game = table(3, [[3, 4, 5, 9], [6, 7, 8, 1], [2, 2]])
    play(game, show(0, 3), show(0, 3), scout(), scout())  # B beats A; C and A scout B's set
    result = game.results[0]
    assert result.reason is EndReason.BACK_TO_OWNER and result.exempt == 1
    # B: 3 captured + 2 chips, hand exempt; the 8 left on the table and the unused
    # Scout & Show chips score nothing. A and C pay for every card in hand.
    assert result.hand_sizes == (2, 1, 3)
    assert result.scores == (-2, 3 + 2, -3)


def test_7_the_owner_is_exempt_only_at_6_2() -> None:
    cap = table(3, [[1, 2], [3, 6, 6], [4, 5, 7]])
    while cap.round == 0:
        play(cap, scout() if cap.active else show(0))
    assert cap.results[0].reason is EndReason.ACTION_CAP and cap.results[0].exempt is None
    emptied = play(table(3, [[5], [1, 2], [3, 4, 9]]), show(0))
    assert emptied.results[0].exempt is None


def test_7_round_scores_may_be_negative_and_totals_are_signed_sums() -> None:
    for players in (2, 3, 4, 5):
        game = random_game(players, 3)
        scores = [r.scores for r in game.results]
        assert min(min(s) for s in scores) < 0
        assert game.totals == [sum(s[seat] for s in scores) for seat in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_8_the_game_lasts_as_many_rounds_as_players(players: int) -> None:
    game = random_game(players, 17)
    assert game.is_over and game.phase is Phase.OVER
    assert [r.round for r in game.results] == list(range(players))
    with pytest.raises(IllegalAction, match="over"):
        game.apply(0, Show(0, 1))
    assert len(game.legal_actions()) == 0


@pytest.mark.parametrize(
    ("totals", "ranks"),
    [
        ([7, 5, 5, 1], (1, 2, 2, 4)),
        ([3, 3], (1, 1)),
        ([-4, 0, -4], (2, 1, 2)),
        ([1, 2, 3, 4, 5], (5, 4, 3, 2, 1)),
        ([0, 0, 0, 0, 0], (1, 1, 1, 1, 1)),
    ],
)
def test_8_standing_is_a_competition_ranking(totals: list[int], ranks: tuple[int, ...]) -> None:
    assert competition_ranks(totals) == ranks


def test_8_tied_players_share_the_victory() -> None:
    assert Outcome((7, 7, 1), (1, 1, 3)).winners == (0, 1)
    assert Outcome((7, 5, 5, 1), (1, 2, 2, 4)).winners == (0,)


def test_8_outcome_of_a_finished_game() -> None:
    game = random_game(4, 5, steps=10)
    assert game.outcome is None
    game = random_game(4, 5)
    outcome = game.outcome
    assert outcome is not None
    assert outcome.totals == tuple(game.totals)
    assert outcome.ranks == competition_ranks(game.totals)
    assert set(outcome.winners) == {s for s in range(4) if game.totals[s] == max(game.totals)}
