"""The one cache idiom (sdk.memo): a bounded memo belongs to the object that made it, so nothing
cached is shared between bots, arenas or tests of one process."""

import doctest

import pytest

import sdk.memo
from arena.ratings.rank_confidence import RankStatistics, rank_intervals
from bots.greedy import GreedyBot, hand_value, hand_values
from sdk.memo import memoised


def test_the_examples_hold() -> None:
    assert doctest.testmod(sdk.memo).failed == 0


def test_a_memo_keeps_at_most_its_size_and_drops_the_least_recently_used() -> None:
    calls: list[int] = []

    def double(n: int) -> int:
        calls.append(n)
        return 2 * n

    memo = memoised(double, size=2)
    assert [memo(1), memo(2), memo(1), memo(3), memo(1), memo(2)] == [2, 4, 2, 6, 2, 4]
    assert calls == [1, 2, 3, 2]  # 3 pushed out 2, the least recently used


def test_a_memo_holds_at_least_one_result() -> None:
    with pytest.raises(ValueError, match="a memo holds at least 1 result, not 0"):
        memoised(abs, size=0)


def test_each_bot_values_hands_with_a_memo_of_its_own() -> None:
    first, second = GreedyBot(), GreedyBot()
    hand = (3, 4, 5, 9)
    assert first._hand_value(hand) == hand_value(hand)
    assert (first._hand_value.cache_info().currsize, second._hand_value.cache_info().currsize) == (1, 0)  # type: ignore[attr-defined]
    assert hand_values() is not hand_values()


def test_each_rank_statistics_remembers_its_own_tables_and_the_functions_none() -> None:
    skills = [(30.0, 2.0), (25.0, 2.0), (20.0, 2.0)]
    reader, other = RankStatistics(), RankStatistics()
    assert reader.rank_intervals(skills) == rank_intervals(skills) == other.rank_intervals(skills)
    reader.rank_intervals(skills)
    assert (reader._intervals.cache_info().hits, other._intervals.cache_info().hits) == (1, 0)  # type: ignore[attr-defined]
