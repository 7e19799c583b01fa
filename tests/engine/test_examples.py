"""docs/rules.md §10: every worked example, each as its own test."""

from __future__ import annotations

from sdk.engine import End, EndReason, Phase, ScoutShow, Show, set_key

from .helpers import card, cards, play, rejects, scout, scout_show, show, table, tops


def stronger(new: list[int], old: list[int]) -> bool:
    a, b = set_key(new), set_key(old)
    assert a is not None and b is not None, "both must be sets"
    return a > b


# -- strength -------------------------------------------------------------------------------------


def test_10_1_1_1_beats_2_3_4_group_beats_sequence() -> None:
    assert stronger([1, 1, 1], [2, 3, 4])


def test_10_2_2_beats_8_9() -> None:
    assert stronger([2, 2], [8, 9])


def test_10_3_3_beats_2_2() -> None:
    assert stronger([3, 3], [2, 2])


def test_10_2_3_4_beats_1_2_3() -> None:
    assert stronger([2, 3, 4], [1, 2, 3])


def test_10_5_4_3_beats_2_3_4_lowest_3_over_2() -> None:
    assert stronger([5, 4, 3], [2, 3, 4])


def test_10_2_3_4_does_not_beat_4_3_2_equal_lowest() -> None:
    assert not stronger([2, 3, 4], [4, 3, 2])


def all_sets(length: int) -> list[list[int]]:
    groups = [[v] * length for v in range(1, 11)]
    ups = [list(range(lo, lo + length)) for lo in range(1, 12 - length)]
    return groups + ups + [s[::-1] for s in ups]


def test_10_any_3_card_set_beats_9_9_and_9_9_beats_none() -> None:
    three = all_sets(3)
    assert len(three) == 10 + 8 + 8
    assert all(stronger(s, [9, 9]) for s in three)
    assert not any(stronger([9, 9], s) for s in three)


def test_10_single_7_beats_single_6_not_another_7() -> None:
    assert stronger([7], [6])
    assert not stronger([7], [7])


# -- contiguity -----------------------------------------------------------------------------------


def test_10_hand_9_3_9_cannot_show_9_9_until_the_3_is_gone() -> None:
    game = table(3, ["9/1 3/4 9/2", "5/1 6/2", "4/2 8/3"])
    assert not any(a.length >= 2 for a in game.legal_actions() if isinstance(a, Show))
    rejects(game, show(0, 2), "neither a group nor a sequence")
    rejects(game, show(1, 2), "neither a group nor a sequence")
    rejects(game, show(0, 3), "neither a group nor a sequence")
    play(game, show(1))  # the 3 goes; the 9s are now adjacent
    assert game.hands[0] == cards("9/1 9/2")
    play(game, show(0), scout())  # B beats the 3 with a 5, C scouts the 5 away
    assert game.to_move == 0 and show(0, 2) in game.legal_actions()
    play(game, show(0, 2))
    assert game.results[0].reason is EndReason.EMPTY_HAND


# -- 6.2 with an emptied set ----------------------------------------------------------------------


def test_10_6_2_emptied_set_three_players() -> None:
    """A shows 6-7; B scouts the 6, C scouts the 7 (A gets 2 chips). The turn would return to A:
    the round ends and A loses nothing for the cards in hand."""
    game = table(3, ["6/1 7/2 3/4", "1/3 2/5 8/1", "4/5 5/8 8/9"])
    play(game, show(0, 2), scout(), scout())
    result = game.results[0]
    assert result.reason is EndReason.BACK_TO_OWNER and result.exempt == 0
    assert result.hand_sizes == (1, 4, 4)
    assert result.scores == (2, -4, -4)
    assert game.round == 1 and game.phase is Phase.FLIP


# -- Scout & Show ---------------------------------------------------------------------------------


def test_10_scout_and_show_4_5() -> None:
    """A owns 4-5. B uses Scout & Show, scouts the 5 (A gets 1 chip) and must beat the single 4:
    any legal set of 2+ cards, or a single >= 5 — e.g. the 5 inserted beside another 5 to show 5-5."""
    game = play(table(3, ["4/1 5/2 9/4", "5/3 8/1 2/6 3/8", [7, 1]]), show(0, 2))
    for action in game.legal_actions():
        if isinstance(action, ScoutShow) and action.scout.end is End.RIGHT:
            hand = list(game.hands[1])
            hand.insert(action.scout.position, card("5/2").turned() if action.scout.flip else card("5/2"))
            shown = tops(hand[action.show.start : action.show.start + action.show.length])
            assert len(shown) >= 2 or shown[0] >= 5
    assert scout_show(End.RIGHT, False, 0, 4, 1) not in game.legal_actions()  # a 3
    play(game, scout_show(End.RIGHT, False, 1, 0, 2))
    assert game.chips[0] == 1
    assert game.active == cards("5/3 5/2") and game.owner == 1


# -- 2 players ------------------------------------------------------------------------------------


def test_10_two_players_scout_of_a_single_8() -> None:
    """A shows 8. B (3 chips) scouts it: B has 2 chips left, A gets nothing, the set is empty and
    owned by A, B moves again and must show."""
    game = play(table(2, [[8, 3], [1, 2, 5]]), show(0))
    assert game.chips == [3, 3]
    play(game, scout())
    assert game.chips == [3, 2]
    assert game.active == [] and game.owner == 0 and game.to_move == 1
    legal = list(game.legal_actions())
    assert legal and all(isinstance(a, Show) for a in legal)


# -- scoring --------------------------------------------------------------------------------------


def test_10_scoring_2_captured_1_chip_7_in_hand_is_minus_4() -> None:
    a = "1/5 7/1 7/2 7/3 9/1 9/2 8/3 6/2 5/3 4/6 3/9"
    b = "2/4 3/6 4/8"
    c = "2/8 2/5 6/9"
    game = table(3, [a, b, c])
    play(game, show(0))  # A shows the 1
    play(game, scout())  # B scouts it: A receives 1 chip; B holds 1-2-3-4
    play(game, show(0, 2))  # C shows 2-2 onto the empty set
    play(game, show(0, 3))  # A captures 2-2 with 7-7-7, 7 cards left
    assert len(game.captured[0]) == 2 and game.chips[0] == 1 and len(game.hands[0]) == 7
    play(game, show(0, 4))  # B empties the hand with 1-2-3-4
    result = game.results[0]
    assert result.reason is EndReason.EMPTY_HAND and result.exempt is None
    assert result.scores[0] == 2 + 1 - 7 == -4
    assert game.totals[0] == -4
