"""docs/rules.md §5: the 2-player variant — paid chips, repeat turns, no Scout & Show, unused chips score.

The 2-player end of round (§6.2) is tested in test_round_end.py.
"""

from __future__ import annotations

from sdk.engine import End, EndReason, Phase, Scout, ScoutShow, Show

from .helpers import play, rejects, scout, scout_show, show, table, tops


def test_5_scout_and_show_does_not_exist() -> None:
    game = play(table(2, [[8, 3], [1, 2, 5]]), show(0))
    assert game.scout_show == [False, False]
    assert not any(isinstance(a, ScoutShow) for a in game.legal_actions())
    rejects(game, scout_show(End.LEFT, False, 0, 0, 1), "not played with 2 players")


def test_5_scouting_pays_a_chip_to_nobody_and_the_scout_moves_again() -> None:
    game = play(table(2, [[8, 8, 2], [1, 5, 3]]), show(0, 2))
    assert game.chips == [3, 3] and game.to_move == 1
    play(game, scout())
    assert game.chips == [3, 2]  # paid back to the centre: the owner receives nothing
    assert game.to_move == 1 and game.owner == 0 and tops(game.active) == [8]
    assert any(isinstance(a, Scout) for a in game.legal_actions())  # may scout again
    play(game, scout(position=4))
    assert game.chips == [3, 1] and game.active == [] and game.owner == 0
    assert game.to_move == 1
    assert game.legal_actions() and all(isinstance(a, Show) for a in game.legal_actions())
    play(game, show(0))
    assert game.to_move == 0 and game.owner == 1  # a show passes the turn


def test_5_no_chip_left_means_no_scout() -> None:
    game = play(table(2, [[2, 9], [5, 1]], chips=[3, 0]), show(0))
    assert set(game.legal_actions()) == {show(0)}  # the 5 beats the 2; nothing else
    rejects(game, scout(), "no scout chip")


def test_5_unused_chips_score_and_paid_chips_belong_to_no_one() -> None:
    game = table(2, [[5, 7, 8], [1, 2]])
    play(game, show(0), scout(), show(1, 2))  # A shows 5; B scouts it (2 chips left), shows 1-2
    assert game.chips == [3, 2] and game.hands[1][0].top == 5
    play(game, show(0, 2))  # A's 7-8 beats 1-2 and empties A's hand
    result = game.results[0]
    assert result.reason is EndReason.EMPTY_HAND and result.exempt is None
    assert result.hand_sizes == (0, 1)
    assert result.scores == (2 + 3 - 0, 0 + 2 - 1)
    assert game.totals == [5, 1]


def test_5_each_round_starts_with_three_chips_again() -> None:
    game = table(2, [[5, 7, 8], [1, 2]])
    play(game, show(0), scout(), show(1, 2), show(0, 2))
    assert game.round == 1 and game.phase is Phase.FLIP and game.chips == [3, 3]
