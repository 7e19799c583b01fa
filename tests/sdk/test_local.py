"""Local play (sdk.local): games among in-process bots, checked by the engine."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import Counter

import pytest

from bots import GreedyBot, RandomBot
from sdk import Action, Bot, End, Observation, Scout
from sdk.engine import replay
from sdk.local import (
    BotRaised,
    IllegalChoice,
    LocalGame,
    MatchInterrupted,
    WrongAnswerType,
    balanced_seatings,
    play_game,
    play_game_async,
    play_match,
    unique_labels,
    win_shares,
)
from tests.sdk.misbehaving import (
    AnswersWithIndex,
    AsyncFirstLegal,
    CrashesAtFivePlayers,
    FirstLegal,
    FlipsWithString,
    ShowsTooMuch,
)


class Spy(RandomBot):
    """Records every argument it is given."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[object] = []

    def choose(self, obs: Observation) -> Action:
        self.seen.append(obs)
        return super().choose(obs)

    def flip(self, obs: Observation) -> bool:
        self.seen.append(obs)
        return super().flip(obs)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_finishes_and_its_result_is_the_replay_of_its_record(players: int) -> None:
    bots: list[Bot] = [GreedyBot() if s % 2 else RandomBot(seed=s) for s in range(players)]
    result = play_game(bots, seed=11)
    game = replay(result.record)
    assert game.is_over and result.outcome == game.outcome
    assert result.names == tuple(b.name for b in bots)
    assert all(n > 0 for n in result.decisions)


def test_bots_only_ever_see_their_own_observation() -> None:
    spies = [Spy(seed) for seed in range(3)]
    play_game(spies, seed=5)
    for seat, spy in enumerate(spies):
        assert spy.seen and all(type(obs) is Observation and obs.seat == seat for obs in spy.seen)


def test_async_and_sync_bots_mix_and_play_identically() -> None:
    sync = play_game([FirstLegal(), FirstLegal(), RandomBot(seed=1)], seed=3)
    mixed = play_game([AsyncFirstLegal(), FirstLegal(), RandomBot(seed=1)], seed=3)
    assert mixed.record.actions == sync.record.actions
    assert mixed.totals == sync.totals


def test_play_game_async_runs_inside_a_running_event_loop() -> None:
    async def main() -> LocalGame:
        return await play_game_async([AsyncFirstLegal(), GreedyBot()], seed=2)

    result = asyncio.run(main())
    assert replay(result.record).outcome == result.outcome


def test_an_illegal_choice_names_the_bot_the_seat_and_the_engines_reason() -> None:
    with pytest.raises(IllegalChoice) as caught:
        play_game([FirstLegal(), ShowsTooMuch(), FirstLegal()], seed=1)
    error = caught.value
    assert (error.bot, error.seat) == ("ShowsTooMuch", 1)
    assert "are not in your hand" in error.reason
    assert str(error).startswith("bot 'ShowsTooMuch' (seat 1) chose an illegal action (show 0+99)")


def test_answers_of_the_wrong_type_are_refused() -> None:
    with pytest.raises(WrongAnswerType, match=r"choose\(\) returned int, not Show, Scout or ScoutShow"):
        play_game([AnswersWithIndex(), FirstLegal()], seed=1)
    with pytest.raises(WrongAnswerType, match=r"seat 1\) flip\(\) returned str, not bool"):
        play_game([FirstLegal(), FlipsWithString()], seed=1)


def test_a_bot_exception_is_reported_with_where_it_happened() -> None:
    with pytest.raises(BotRaised) as caught:
        play_game([FirstLegal()] * 4 + [CrashesAtFivePlayers()], seed=1)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    assert caught.value.seat == 4
    assert "raised ZeroDivisionError in choose(): " in str(caught.value)
    assert "misbehaving.py:" in str(caught.value)


def test_a_match_rotates_seats_and_seeds_each_game() -> None:
    bots = [GreedyBot(), RandomBot(seed=1), RandomBot(seed=2), FirstLegal()]
    match = play_match(bots, games=8, seed=40)
    assert [g.seed for g in match.games] == list(range(40, 48))
    for entrant in range(4):
        assert Counter(seating[entrant] for seating in match.seatings) == {0: 2, 1: 2, 2: 2, 3: 2}
    for game, seating in zip(match.games, match.seatings, strict=True):
        assert [game.names[seating[i]] for i in range(4)] == [b.name for b in bots]


def test_a_match_summary_adds_up_each_entrants_games() -> None:
    match = play_match([GreedyBot(), RandomBot(seed=1), RandomBot(seed=2)], games=6, seed=0, rotate=False)
    assert match.seatings == ((0, 1, 2),) * 6
    assert match.entrants == ("GreedyBot", "RandomBot", "RandomBot 2")
    for i, row in enumerate(match.summary()):
        assert row.games == 6
        assert row.points == sum(g.totals[i] for g in match.games)
        assert row.wins == sum(win_shares(g.ranks)[i] for g in match.games)
        assert row.mean_placing == sum(g.ranks[i] for g in match.games) / 6


def test_the_same_seeds_give_the_same_match() -> None:
    def run() -> list[tuple[int, ...]]:
        return [g.totals for g in play_match([GreedyBot(), RandomBot(seed=9)], games=4, seed=3).games]

    assert run() == run()


def test_a_table_of_the_wrong_size_is_refused_before_playing() -> None:
    with pytest.raises(ValueError, match="2 to 5 players, not 6"):
        play_match([FirstLegal()] * 6, games=1)
    with pytest.raises(ValueError, match="2 to 5 players, not 1"):
        play_game([FirstLegal()])


def test_unique_labels_number_repeated_names() -> None:
    assert unique_labels(["A", "B", "A", "A"]) == ("A", "B", "A 2", "A 3")


def test_a_shared_first_place_is_split_as_the_arena_splits_it() -> None:
    assert win_shares((1, 1, 3)) == (0.5, 0.5, 0.0)
    assert win_shares((2, 1, 3, 4)) == (0.0, 1.0, 0.0, 0.0)
    match = play_match([RandomBot(seed=1), RandomBot(seed=2), RandomBot(seed=3)], games=60, seed=0)
    shared = [g for g in match.games if g.ranks.count(1) > 1]
    assert shared, "the sample must hold a shared first place for this test to mean anything"
    rows = match.summary()
    assert sum(row.wins for row in rows) == pytest.approx(len(match.games)), "one win per game, shared or not"
    assert any(row.wins != int(row.wins) for row in rows)


def adjacent(seating: tuple[int, ...], a: int, b: int) -> bool:
    n = len(seating)
    return (seating[a] - seating[b]) % n in (1, n - 1)


@pytest.mark.parametrize("players", [4, 5])
def test_balanced_seating_puts_everyone_everywhere_and_varies_neighbours(players: int) -> None:
    """The arena's schedule, not a cyclic rotation: with rotation entrants 0 and 1 always sit side by side."""
    seatings = balanced_seatings(players, 3 * players, seed=7)
    for entrant in range(players):
        assert Counter(s[entrant] for s in seatings) == {seat: 3 for seat in range(players)}
    for game in seatings:
        assert sorted(game) == list(range(players))
    for a in range(players):
        for b in range(a + 1, players):
            assert not all(adjacent(s, a, b) for s in seatings), (a, b)
    assert balanced_seatings(players, 3 * players, seed=7) == seatings, "reproducible from its seed"


def test_two_copies_of_one_bot_do_not_always_sit_side_by_side_in_a_match() -> None:
    match = play_match([FirstLegal(), FirstLegal(), GreedyBot(), RandomBot(seed=1)], games=8)
    assert match.entrants == ("FirstLegal", "FirstLegal 2", "GreedyBot", "RandomBot")
    assert not all(adjacent(s, 0, 1) for s in match.seatings)


class InterruptsAtGame(FirstLegal):
    """Sends this process a real SIGINT on its first move of game `at` (counted by its flips), then
    keeps thinking, as a bot busy computing would."""

    def __init__(self, at: int, players: int) -> None:
        super().__init__()
        self.flips = 0
        self.first_flip_of = (at - 1) * players + 1

    def flip(self, obs: Observation) -> bool:
        self.flips += 1
        return False

    def choose(self, obs: Observation) -> Action:
        if self.flips == self.first_flip_of:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
        return super().choose(obs)


def test_ctrl_c_in_a_busy_sync_bot_stops_a_match_with_the_games_so_far() -> None:
    started = time.monotonic()
    with pytest.raises(MatchInterrupted) as caught:
        play_match([InterruptsAtGame(3, 2), GreedyBot()], games=10, seed=4)
    assert time.monotonic() - started < 25, "the bot's 30 s of thinking was cut short"
    partial = caught.value.partial
    assert [g.seed for g in partial.games] == [4, 5]
    assert partial.seatings == balanced_seatings(2, 10, seed=4)[:2]
    assert [row.games for row in partial.summary()] == [2, 2]
    assert isinstance(caught.value, KeyboardInterrupt), "callers that do not care see a plain Ctrl-C"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the usual handler is back"


def test_one_card_set_right_end_is_accepted_like_the_referee() -> None:
    """docs/rules.md §4.2 Decision (encoding): a one-card set's scouts are listed once, as LEFT; the
    referee accepts either end for it, and so does local play (the same engine)."""

    class ScoutsRight(RandomBot):
        substituted = 0

        def choose(self, obs: Observation) -> Action:
            action = super().choose(obs)
            if len(obs.table.active_set) == 1 and isinstance(action, Scout):
                assert all(a.end is End.LEFT for a in obs.legal_actions if isinstance(a, Scout))
                self.substituted += 1
                return Scout(End.RIGHT, action.flip, action.position)
            return action

    bot = ScoutsRight(seed=3)
    match = play_match([bot, RandomBot(seed=4), RandomBot(seed=5)], games=10)
    assert bot.substituted > 0 and len(match.games) == 10
