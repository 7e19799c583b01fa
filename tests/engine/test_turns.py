"""docs/rules.md §4: a turn with 3–5 players — Show (§4.1), Scout (§4.2), Scout & Show (§4.3)."""

from __future__ import annotations

import pytest

from sdk.engine import (
    GROUP,
    SEQUENCE,
    End,
    Game,
    Scout,
    ScoutShow,
    Show,
    public_view,
    set_key,
)

from .helpers import card, cards, play, rejects, scout, scout_show, show, state_of, table, tops

L, R = End.LEFT, End.RIGHT


def shows_of(game: Game) -> set[Show]:
    return {a for a in game.legal_actions() if isinstance(a, Show)}


def scouts_of(game: Game) -> set[Scout]:
    return {a for a in game.legal_actions() if isinstance(a, Scout)}


def scout_shows_of(game: Game) -> set[ScoutShow]:
    return {a for a in game.legal_actions() if isinstance(a, ScoutShow)}


# -- §4.1 Show -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ([7], (1, GROUP, 7)),
        ([4, 4, 4], (3, GROUP, 4)),
        ([3, 4, 5], (3, SEQUENCE, 3)),
        ([5, 4, 3], (3, SEQUENCE, 3)),
        ([9, 10], (2, SEQUENCE, 9)),
        ([3, 5, 4], None),
        ([3, 4, 4], None),
        ([4, 4, 5], None),
        ([1, 3], None),
        ([3, 4, 3], None),
        ([], None),
    ],
)
def test_4_1_a_set_is_a_single_a_group_or_a_sequence(values: list[int], key: tuple | None) -> None:
    """§4.1: groups share a value, sequences step by exactly +1 or −1 in hand order."""
    assert set_key(values) == key


def test_4_1_first_show_may_be_any_contiguous_set() -> None:
    game = table(3, [[3, 4, 5, 5, 9], [1], [2]])
    expected = {show(i) for i in range(5)} | {show(0, 2), show(0, 3), show(1, 2), show(2, 2)}
    assert shows_of(game) == expected
    assert set(game.legal_actions()) == expected  # no active set: nothing to scout


def test_4_1_only_contiguous_cards_in_hand_order() -> None:
    """3-5-4 in hand is no set, even though 3-4-5 would be one (no reordering)."""
    game = table(3, [[3, 5, 4], [1], [2]])
    assert shows_of(game) == {show(0), show(1), show(2), show(1, 2)}
    rejects(game, show(0, 3), "neither a group nor a sequence")
    rejects(game, show(0, 2), "neither a group nor a sequence")


@pytest.mark.parametrize(
    ("active", "candidate", "stronger"),
    [
        ([6], [7], True),
        ([7], [7], False),
        ([7], [6], False),
        ([8, 9], [2, 2], True),  # group beats sequence
        ([2, 2], [8, 9], False),
        ([2, 2], [3, 3], True),
        ([3, 3], [2, 2], False),
        ([3, 3], [3, 3], False),
        ([1, 2, 3], [2, 3, 4], True),
        ([2, 3, 4], [5, 4, 3], True),
        ([4, 3, 2], [2, 3, 4], False),  # equal lowest value is not stronger
        ([9, 9], [1, 2, 3], True),  # more cards
        ([1, 2, 3], [9, 9], False),
        ([4, 5], [8], False),
        ([1, 1, 1], [9, 10], False),
        ([2, 3], [1, 2], False),
    ],
)
def test_4_1_show_must_be_stronger_than_the_active_set(active: list[int], candidate: list[int], stronger: bool) -> None:
    """§4.1 strength: more cards, then group over sequence, then the higher lowest value."""
    game = table(4, [[*active, 1], [*candidate, 10], [5], [6]])
    play(game, show(0, len(active)))
    shown = show(0, len(candidate))
    assert (shown in game.legal_actions()) is stronger
    if stronger:
        game.apply(1, shown)
        assert tops(game.active) == candidate and game.owner == 1
    else:
        rejects(game, shown, "not stronger")


def test_4_1_show_captures_the_beaten_set_and_takes_ownership() -> None:
    game = table(3, ["3/1 4/2 8/5", "6/1 6/2 1/7", "9/1 8/2 7/3 2/5"])
    play(game, show(0, 2))
    assert game.active == cards("3/1 4/2") and game.owner == 0
    assert game.hands[0] == cards("8/5")
    play(game, show(0, 2))  # 6-6 beats 3-4
    assert game.captured[1] == cards("3/1 4/2")
    assert game.active == cards("6/1 6/2") and game.owner == 1
    assert game.hands[1] == cards("1/7")
    play(game, show(0, 3))  # 9-8-7 beats 6-6, kept in hand order
    assert game.active == cards("9/1 8/2 7/3")
    assert game.captured == [[], cards("3/1 4/2"), cards("6/1 6/2")]
    assert game.to_move == 0


def test_4_1_owner_persists_while_the_set_is_empty_and_any_set_may_then_be_shown() -> None:
    game = table(3, [[5, 9], [1, 8], [2, 3]])
    play(game, show(0), scout())
    assert game.active == [] and game.owner == 0
    assert public_view(game).active_set_empty and public_view(game).active_owner == 0
    assert shows_of(game) == {show(0), show(1), show(0, 2)}  # anything, even the 2
    play(game, show(0))
    assert game.owner == 2 and tops(game.active) == [2]
    assert game.captured == [[], [], []]  # an emptied set leaves nothing to capture


# -- §4.2 Scout ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("end", "taken", "left"), [(L, "3/1", "4/2 5/6"), (R, "5/6", "3/1 4/2")])
def test_4_2_scout_takes_a_card_from_either_end(end: End, taken: str, left: str) -> None:
    game = table(4, ["3/1 4/2 5/6 9/8", [1, 7], [2], [8]])
    play(game, show(0, 3), scout(end, False, 1))
    assert game.hands[1][1] == card(taken)
    assert game.active == cards(left) and game.owner == 0
    assert game.chips == [1, 0, 0, 0]  # the owner receives a scout chip
    assert game.to_move == 2


def test_4_2_scouted_card_may_be_turned_either_way_up() -> None:
    game = table(3, ["3/1 4/2 9/8", [5, 7], [2]])
    play(game, show(0, 2), scout(L, True, 0))
    assert game.hands[1][0] == card("1/3")


def test_4_2_insert_at_any_position_from_0_to_hand_length() -> None:
    def fresh() -> Game:
        return play(table(3, ["3/1 4/2 9/8", [5, 7, 6], [2]]), show(0, 2))

    game = fresh()
    assert scouts_of(game) == {Scout(e, f, p) for e in (L, R) for f in (False, True) for p in range(4)}
    for position in range(4):
        game = play(fresh(), scout(R, False, position))
        assert game.hands[1].index(card("4/2")) == position and len(game.hands[1]) == 4
    rejects(fresh(), scout(L, False, 4), "outside 0..3")
    rejects(fresh(), scout(L, False, -1), "outside")


def test_4_2_owner_receives_one_chip_per_scout() -> None:
    game = table(4, ["3/1 4/2 5/6 9/8", [1], [2], [7]])
    play(game, show(0, 3), scout(), scout(R))
    assert game.chips == [2, 0, 0, 0] and game.owner == 0 and tops(game.active) == [4]
    assert game.to_move == 3


def test_4_2_one_card_set_is_listed_once_as_left_and_right_is_accepted() -> None:
    """§4.2 Decision (encoding): a one-card set's two ends are the same card."""

    def fresh() -> Game:
        return play(table(3, ["7/2 9/8", [5, 6], [2]]), show(0))

    game = fresh()
    assert scouts_of(game) == {Scout(L, f, p) for f in (False, True) for p in range(3)}
    assert all(a.scout.end is L for a in scout_shows_of(game))
    for flip in (False, True):
        for position in range(3):
            left, right = fresh(), fresh()
            left.apply(1, scout(L, flip, position))
            right.apply(1, scout(R, flip, position))
            assert state_of(right) == state_of(left)
            assert left.active == [] and left.owner == 0
    right = fresh()
    right.apply(1, scout_show(R, False, 0, 0, 1))  # Scout & Show accepts it too
    assert right.owner == 1 and right.captured[1] == []


def test_4_2_scouting_a_two_card_sequence_leaves_a_single() -> None:
    """§4.2: the set's strength is that of the cards that remain (a scouted 3-4 is a single 3)."""
    game = table(3, ["3/1 4/2 9/8", [1, 6], [2, 4, 3, 3]])
    play(game, show(0, 2), scout(R, False, 0))
    assert game.active == cards("3/1") and game.owner == 0
    assert shows_of(game) == {show(1), show(1, 2), show(2, 2)}  # the 4, 4-3 and 3-3; not 2 or 3


def test_4_2_cannot_scout_when_there_is_no_active_set() -> None:
    game = table(3, [[5, 9], [1, 8], [2, 3]])
    assert not scouts_of(game) and not scout_shows_of(game)
    rejects(game, scout(), "no active set")
    rejects(game, scout_show(L, False, 0, 0, 1), "non-empty active set")


def test_4_2_cannot_scout_an_emptied_set_and_must_show() -> None:
    game = table(3, [[5, 9], [1, 8], [2, 3]])
    play(game, show(0), scout())
    assert all(isinstance(a, Show) for a in game.legal_actions())
    rejects(game, scout(), "active set is empty")
    rejects(game, scout_show(L, False, 0, 0, 1), "non-empty active set")


# -- §4.3 Scout & Show ---------------------------------------------------------------------------


def a_owns_4_5(seat1: str = "5/3 8/1 2/6 3/8", seat2: object = (7, 7, 7)) -> Game:
    """Seat 0 (A) shows the sequence 4-5; seat 1 (B) is to move."""
    return play(table(3, ["4/1 5/2 9/4", seat1, list(seat2)]), show(0, 2))  # type: ignore[arg-type]


def test_4_3_scout_and_show_is_one_action_and_the_owner_gets_a_chip() -> None:
    game = a_owns_4_5()
    game.apply(1, scout_show(R, False, 1, 0, 2))  # take the 5, put it beside B's 5, show 5-5
    assert game.active == cards("5/3 5/2") and game.owner == 1
    assert game.captured[1] == cards("4/1")  # what was left of the beaten set
    assert game.hands[1] == cards("8/1 2/6 3/8")
    assert game.chips == [1, 0, 0]
    assert game.scout_show == [True, False, True]
    assert game.to_move == 2 and game.round_actions == 2


def test_4_3_show_must_beat_the_set_as_it_is_after_the_scout() -> None:
    """After scouting the 5 of 4-5, a single 8 beats the remaining 4 (it would not beat 4-5)."""
    game = a_owns_4_5()
    assert scout_show(R, False, 0, 2, 1) in game.legal_actions()  # hand 5/2 5/3 8/1 ...: the 8
    rejects(game, scout_show(R, False, 0, 4, 1), "not stronger")  # the 3 does not beat the 4
    rejects(game, scout_show(R, False, 0, 3, 1), "not stronger")  # nor the 2
    for action in scout_shows_of(game):
        if action.scout.end is R:
            after = list(game.hands[1])
            after.insert(action.scout.position, card("2/5") if action.scout.flip else card("5/2"))
            shown = tops(after[action.show.start : action.show.start + action.show.length])
            assert len(shown) >= 2 or shown[0] > 4


def test_4_3_may_use_the_scouted_card_turned_over() -> None:
    """The 5/7 is scouted turned over (a 7) and shown with B's 7 as the group 7-7."""
    game = play(table(3, ["4/1 5/7 9/4", "7/3 1/8", [2, 6]]), show(0, 2))
    action = scout_show(R, True, 1, 0, 2)
    assert action in game.legal_actions()
    game.apply(1, action)
    assert game.active == cards("7/3 7/5") and game.hands[1] == cards("1/8")


def test_4_3_show_positions_refer_to_the_hand_after_the_insertion() -> None:
    good = a_owns_4_5("5/3 8/1")
    good.apply(1, scout_show(R, False, 1, 0, 2))  # hand 5/3 5/2 8/1: cards 0..1 are 5-5
    assert tops(good.active) == [5, 5]
    bad = a_owns_4_5("5/3 8/1")
    rejects(bad, scout_show(R, False, 2, 0, 2), "neither a group nor a sequence")  # 5/3 8/1 5/2
    rejects(bad, scout_show(R, False, 2, 2, 2), "not in your hand")  # only 3 cards after
    assert scout_show(R, False, 2, 2, 1) in bad.legal_actions()  # the inserted 5 itself


def test_4_3_a_scout_that_empties_the_set_allows_any_show() -> None:
    game = play(table(3, ["9/1 3/4", [2, 8], [6]]), show(0))
    assert scout_show(L, False, 0, 1, 1) in game.legal_actions()  # show the 2 after taking the 9
    game.apply(1, scout_show(L, False, 0, 1, 1))
    assert tops(game.active) == [2] and game.owner == 1 and game.chips == [1, 0, 0]
    assert game.captured == [[], [], []]


def test_4_3_only_once_per_round() -> None:
    game = a_owns_4_5("5/3 8/1 2/6 3/8", (7, 7, 7, 1))
    play(game, scout_show(R, False, 1, 0, 2), show(0, 3), scout())  # B; C shows 7-7-7; A scouts
    assert game.to_move == 1 and game.owner == 2 and game.scout_show == [True, False, True]
    assert not scout_shows_of(game) and scouts_of(game)
    rejects(game, scout_show(L, False, 0, 0, 1), "already used")


def test_4_3_an_invalid_scout_and_show_is_rejected_whole_and_the_chip_is_kept() -> None:
    game = a_owns_4_5()
    for bad in [
        scout_show(R, False, 0, 4, 1),  # not stronger than the 4 left behind
        scout_show(R, False, 0, 1, 3),  # 5-8-2 is no set
        scout_show(R, False, 0, 9, 1),  # no such cards
        scout_show(R, False, 0, 0, 0),  # empty show
        scout_show(L, False, 9, 0, 1),  # insert position out of range
        scout_show(L, False, -1, 0, 1),
    ]:
        rejects(game, bad)
    assert game.scout_show == [True, True, True] and game.chips == [0, 0, 0]
    assert game.active == cards("4/1 5/2") and game.hands[1] == cards("5/3 8/1 2/6 3/8")


def test_4_3_needs_a_non_empty_active_set() -> None:
    game = table(3, [[5, 9], [1, 8], [2, 3]])
    rejects(game, scout_show(L, False, 0, 0, 1), "non-empty")


# -- whose turn ----------------------------------------------------------------------------------


def test_4_turns_go_clockwise_and_only_the_player_to_move_may_act() -> None:
    game = table(4, [[5, 9], [6, 1], [7, 2], [8, 3]])
    for seat in (1, 2, 3):
        assert len(game.legal_actions(seat)) == 0
        rejects(game, show(0), "it is seat 0's turn", seat=seat)
    rejects(game, show(0), "no seat 4", seat=4)
    rejects(game, show(0), "no seat -1", seat=-1)
    rejects(game, "show", "not a SCOUT action")
    for expected in (1, 2, 3, 0):
        play(game, show(0))
        assert game.to_move == expected
