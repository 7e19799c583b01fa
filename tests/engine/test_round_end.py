"""docs/rules.md §6: how a round ends — 6.1 empty hand, 6.2 back to the owner / (2 players) no answer,
and the 1,000-action cap (Decision: termination)."""

from __future__ import annotations

from sdk.engine import ROUND_ACTION_CAP, End, EndReason, Game, Phase, RoundEnded, Scout, public_view, record_of

from .helpers import play, scout, scout_show, show, table

# -- 6.1 -----------------------------------------------------------------------------------------


def test_6_1_a_show_that_empties_the_hand_ends_the_round() -> None:
    game = play(table(3, [[5], [1, 2], [3, 4, 9]]), show(0))
    result = game.results[0]
    assert result.reason is EndReason.EMPTY_HAND and result.exempt is None
    assert result.hand_sizes == (0, 2, 3) and result.scores == (0, -2, -3)
    assert game.round == 1 and game.phase is Phase.FLIP
    ended = [e for e in public_view(game).history if isinstance(e, RoundEnded)]
    assert ended == [RoundEnded(0, EndReason.EMPTY_HAND, (0, -2, -3), (0, 2, 3))]


def test_6_1_a_scout_and_show_that_empties_the_hand_ends_the_round() -> None:
    game = play(table(3, ["4/1 5/2 9/4", "5/3", [7, 2]]), show(0, 2))
    game.apply(1, scout_show(End.RIGHT, False, 1, 0, 2))  # 5-5, hand now empty
    result = game.results[0]
    assert result.reason is EndReason.EMPTY_HAND
    assert result.scores == (1 - 1, 1 - 0, -2)  # A: 1 chip, 1 card; B captured the 4


def test_6_1_two_players() -> None:
    game = play(table(2, [[7, 8], [1, 2, 3]]), show(0, 2))
    assert game.results[0].reason is EndReason.EMPTY_HAND
    assert game.results[0].scores == (0 + 3, 3 - 3)


# -- 6.2, 3–5 players ----------------------------------------------------------------------------


def test_6_2_turn_coming_back_to_the_owner_ends_the_round_and_exempts_the_owner() -> None:
    game = play(table(4, [[3, 4, 5, 1, 1], [9], [9], [9]]), show(0, 3), scout(), scout())
    assert game.round == 0 and game.to_move == 3  # not before every other player had a turn
    play(game, scout())
    result = game.results[0]
    assert result.reason is EndReason.BACK_TO_OWNER and result.exempt == 0
    assert result.hand_sizes == (2, 2, 2, 2)
    assert result.scores == (3, -2, -2, -2)  # the owner's 2 cards cost nothing


def test_6_2_a_show_in_between_makes_the_new_owner_the_one_to_wait_for() -> None:
    game = play(table(3, [[3, 1, 8], [5, 6, 9], [2, 7]]), show(0), show(0, 2), scout())
    assert game.round == 0 and game.to_move == 0 and game.owner == 1
    play(game, scout())
    result = game.results[0]
    assert result.reason is EndReason.BACK_TO_OWNER and result.exempt == 1
    assert result.scores == (0 + 0 - 3, 1 + 2 - 0, 0 + 0 - 3)


def test_6_2_holds_even_when_the_scouts_emptied_the_set() -> None:
    """§6.2 Decision: the round ends even if the others emptied the set by scouting."""
    game = play(table(3, [[6, 7, 1], [2], [3]]), show(0, 2), scout(), scout())
    assert game.results[0].reason is EndReason.BACK_TO_OWNER
    assert game.results[0].exempt == 0 and game.results[0].scores == (2, -2, -2)


# -- 6.2, 2 players ------------------------------------------------------------------------------


def test_6_2_two_players_no_chip_and_nothing_stronger_ends_the_round() -> None:
    game = play(table(2, [[8, 8, 2], [1, 5, 3]], chips=[3, 0]), show(0, 2))
    result = game.results[0]
    assert result.reason is EndReason.CANNOT_ANSWER and result.exempt == 0
    assert result.hand_sizes == (1, 3) and result.scores == (3, -3)


def test_6_2_two_players_ends_once_the_last_chip_is_spent_on_a_scout() -> None:
    game = play(table(2, [[8, 8, 2], [1, 5, 3]], chips=[3, 1]), show(0, 2))
    assert game.round == 0 and all(isinstance(a, Scout) for a in game.legal_actions())
    play(game, scout())  # B takes an 8, has no chip left and cannot beat the other 8
    result = game.results[0]
    assert result.reason is EndReason.CANNOT_ANSWER and result.exempt == 0
    assert result.scores == (3, -4)


def test_6_2_two_players_continue_when_a_stronger_set_exists() -> None:
    game = play(table(2, [[8, 8, 2], [1, 2, 3]], chips=[3, 0]), show(0, 2))
    assert game.round == 0 and set(game.legal_actions()) == {show(0, 3)}


def test_6_2_two_players_facing_an_emptied_set_must_show() -> None:
    game = play(table(2, [[8, 2], [1, 5, 3]], chips=[3, 1]), show(0), scout())
    assert game.round == 0 and game.chips == [3, 0] and game.to_move == 1
    assert game.active == [] and game.legal_actions()


# -- the action cap ------------------------------------------------------------------------------


def cycling_table() -> Game:
    """3 players who can cycle forever: show a single onto an empty set, the next scouts it back
    to position 0, the next shows a single, ... (docs/rules.md §6 Decision: termination, 'why a cap')."""
    return table(3, [[1, 2], [3, 6, 6], [4, 5, 7]])


def cycle(game: Game, until: int) -> None:
    """Play the cycle until the round has `until` actions (or ends)."""
    while game.round == 0 and game.round_actions < until:
        play(game, scout() if game.active else show(0))


def round0_actions(game: Game) -> int:
    return sum(1 for r, _, _ in record_of(game).actions if r == 0)


def test_6_cap_is_1000_actions() -> None:
    assert ROUND_ACTION_CAP == 1000


def test_6_cap_ends_the_round_without_exemption() -> None:
    game = cycling_table()
    cycle(game, 10_000)
    result = game.results[0]
    assert result.reason is EndReason.ACTION_CAP and result.exempt is None
    assert round0_actions(game) == ROUND_ACTION_CAP
    # Recount independently: odd actions are shows onto an empty set, even ones scout them.
    hand, chips, shower = [2, 3, 3], [0, 0, 0], None
    for a in range(1, ROUND_ACTION_CAP + 1):
        seat = (a - 1) % 3
        if a % 2:
            hand[seat] -= 1
            shower = seat
        else:
            hand[seat] += 1
            chips[shower] += 1  # type: ignore[index]
    assert result.hand_sizes == tuple(hand)
    assert result.scores == tuple(c - h for c, h in zip(chips, hand, strict=True))  # the owner pays too


def test_6_cap_natural_back_to_owner_on_the_1000th_action_wins() -> None:
    game = cycling_table()
    cycle(game, ROUND_ACTION_CAP - 4)
    assert game.to_move == 0 and game.active == []
    play(game, show(0))  # 997: seat 0 shows a single
    play(game, scout_show(End.LEFT, False, 0, 2, 2))  # 998: seat 1 takes it, shows 6-6
    play(game, scout())  # 999
    assert game.round == 0 and game.round_actions == ROUND_ACTION_CAP - 1
    play(game, scout())  # 1000: the set is empty and the turn would return to seat 1
    result = game.results[0]
    assert round0_actions(game) == ROUND_ACTION_CAP
    assert result.reason is EndReason.BACK_TO_OWNER and result.exempt == 1


def test_6_cap_natural_empty_hand_on_the_1000th_action_wins() -> None:
    game = cycling_table()
    cycle(game, ROUND_ACTION_CAP - 4)
    play(game, show(0))  # 997: seat 0 is down to one card
    play(game, scout_show(End.LEFT, False, 0, 0, 1))  # 998: seat 1
    play(game, scout())  # 999: seat 2 empties the set
    assert game.round == 0 and len(game.hands[0]) == 1 and game.to_move == 0
    play(game, show(0))  # 1000: seat 0 shows its last card
    result = game.results[0]
    assert round0_actions(game) == ROUND_ACTION_CAP
    assert result.reason is EndReason.EMPTY_HAND and result.hand_sizes[0] == 0


def test_6_round_action_count_is_public_and_counts_every_play_action() -> None:
    game = cycling_table()
    cycle(game, 7)
    assert game.round_actions == 7 == public_view(game).round_actions
    game.apply(game.to_move, scout_show(End.LEFT, False, 0, 0, 1))
    assert game.round_actions == 8
