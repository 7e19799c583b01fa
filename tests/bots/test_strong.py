"""The strong example bot: legal, bounded by its budget, reproducible, and stronger than greedy."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import Literal

import pytest

from bots import EXAMPLES, GreedyBot, StrongBot, make_example
from bots.evaluation import SEAT_FEATURES, RoundValue
from bots.evidence import InformedDeterminizer
from bots.greedy import ranked_actions
from bots.strong import FLIP_ROLLOUT_COST, ITERATIONS, MOVE_TIME, outcome_key
from bots.worth import Worth, lead_margin, round_margin
from sdk import Action, Observation
from sdk.engine import Determinizer, Flip, Game, Phase, observe
from sdk.local import play_game, play_match


class CountingWorlds:
    """Stands in for a `Determinizer`: each sample is just a number, and samples are counted."""

    def __init__(self) -> None:
        self.samples = 0

    def sample(self, rng: random.Random) -> float:
        self.samples += 1
        return rng.random()


def test_sequential_halving_finds_the_best_option_within_its_iteration_budget() -> None:
    bot = StrongBot(seed=1, move_time=None, iterations=200, candidates=8)
    calls = []

    def prepare(options: Sequence[int]) -> Callable[[float], list[float]]:
        def run(noise: float) -> list[float]:
            calls.extend(options)
            bot.steps_done += len(options)
            return [(1.0 if option == 5 else option / 10) + noise for option in options]

        return run

    worlds = CountingWorlds()
    assert bot.best(worlds, list(range(8)), prepare, start=0.0) == 5  # type: ignore[arg-type]
    assert 200 <= len(calls) <= 200 + 8, "each phase stops at the first sample that reaches its share"
    assert calls.count(5) > calls.count(0), "options dropped early get fewer rollouts"


def test_ties_keep_the_greedy_order() -> None:
    bot = StrongBot(seed=1, move_time=None, iterations=30)

    def prepare(options: Sequence[str]) -> Callable[[float], list[float]]:
        def run(world: float) -> list[float]:
            bot.steps_done += len(options)
            return [0.0] * len(options)

        return run

    assert bot.best(CountingWorlds(), ["a", "b", "c"], prepare, start=0.0) == "a"  # type: ignore[arg-type]


def test_a_time_budget_alone_stops_the_search() -> None:
    bot = StrongBot(seed=1, move_time=0.001)
    worlds = CountingWorlds()
    bot.best(worlds, list(range(10)), lambda some: lambda world: [0.0] * len(some), start=0.0)  # type: ignore[arg-type]
    assert worlds.samples == 4, "the budget is spent: one sample in each of the 4 halving phases"


def first_search(monkeypatch: pytest.MonkeyPatch, bot: StrongBot) -> tuple[Observation, object, list[Action]]:
    """The first turn of a 3-seat game, and the samples and options `bot.choose` searches there."""
    searched: list[tuple[object, list[Action]]] = []

    def best(worlds: object, options: list[Action], prepare: object, start: float, budget: int | None) -> Action:
        searched.append((worlds, options))
        return options[0]

    monkeypatch.setattr(bot, "best", best)
    game = Game(3, 2)
    for seat in range(3):
        game.apply(seat, Flip(False))
    seat = game.to_move
    assert seat is not None
    obs = observe(game, seat)
    bot.choose(obs)
    ((worlds, options),) = searched
    return obs, worlds, options


def test_by_default_it_searches_the_greedy_bots_eight_best_distinct_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    obs, _, options = first_search(monkeypatch, StrongBot(seed=1, move_time=None, iterations=10))
    assert len(obs.legal_actions) > 8
    tops = tuple(c.top for c in obs.hand)
    keys = [outcome_key(tops, obs.table.active_set, a) for a in options]
    assert len(options) == 8 and len(set(keys)) == 8
    ranked = [a for _, a in ranked_actions(obs)]
    assert options == sorted(options, key=ranked.index), "in the greedy order"


def _positions_with_equivalent_actions() -> list[Observation]:
    """Positions of greedy games where two of greedy's eight best actions leave the same tops."""
    found = []
    for seed in range(6):
        game = Game(4, seed)
        while not game.is_over:
            seat = game.awaiting[0]
            obs = observe(game, seat)
            if game.phase is Phase.FLIP:
                game.apply(seat, Flip(False))
                continue
            ranked = [a for _, a in ranked_actions(obs)]
            tops = tuple(c.top for c in obs.hand)
            if len({outcome_key(tops, obs.table.active_set, a) for a in ranked[:8]}) < min(8, len(ranked)):
                found.append(obs)
            game.apply(seat, ranked[0])
    return found


def test_actions_that_leave_the_same_tops_are_searched_once() -> None:
    positions = _positions_with_equivalent_actions()
    assert len(positions) >= 5, "greedy games are full of them: a 5 scouted either side of a 5"
    bot = StrongBot(seed=1, move_time=None, iterations=10)
    for obs in positions:
        tops = tuple(c.top for c in obs.hand)
        ranked = [a for _, a in ranked_actions(obs)]
        options = bot.options(obs)
        kept = {outcome_key(tops, obs.table.active_set, a) for a in options}
        assert len(kept) == len(options)
        dropped = [a for a in ranked[:8] if a not in options]
        assert dropped, "one of greedy's eight best was passed over"
        assert all(outcome_key(tops, obs.table.active_set, a) in kept for a in dropped), "for one it searches"
        assert options == sorted(options, key=ranked.index)


def test_the_search_needs_a_budget_above_zero_and_a_candidate() -> None:
    with pytest.raises(ValueError, match="iterations is above 0"):
        StrongBot(iterations=0)
    with pytest.raises(ValueError, match="move_time is above 0"):
        StrongBot(move_time=-1.0)
    with pytest.raises(ValueError, match="at least 1 candidate"):
        StrongBot(candidates=0)
    with pytest.raises(ValueError, match="evidence"):
        StrongBot(evidence=0.0)
    with pytest.raises(ValueError, match="objective"):
        StrongBot(objective="best")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="horizon"):
        StrongBot(horizon=-1)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_it_plays_only_legal_actions_and_decides_its_flip(players: int) -> None:
    bot = StrongBot(seed=players, move_time=None, iterations=60)
    game = Game(players, players)
    while not game.is_over:
        seat = game.awaiting[0]
        obs = observe(game, seat)
        if game.phase is Phase.FLIP:
            flip = bot.flip(obs)
            assert isinstance(flip, bool)
            game.apply(seat, Flip(flip))
        else:
            action = bot.choose(obs)
            assert action in obs.legal_actions
            game.apply(seat, action)


def test_with_an_iteration_budget_and_a_seed_it_plays_the_same_game_twice() -> None:
    def record() -> object:
        bots = [
            StrongBot(seed=3, move_time=None, iterations=80),
            GreedyBot(),
            StrongBot(seed=4, move_time=None, iterations=80),
        ]
        return play_game(bots, seed=9).record

    assert record() == record()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_with_no_arguments_it_plays_at_the_benchmarks_budget(players: int) -> None:
    bot = StrongBot()
    obs = observe(Game(players, 1), 0)
    assert bot.budget(obs) == ITERATIONS[players] and bot.move_time == MOVE_TIME < 2.0


def _slowed(step: float) -> Callable[[], float]:
    """A clock on a machine so busy that every reading finds `step` more seconds gone."""
    readings = itertools.count()
    return lambda: next(readings) * step


def test_under_a_slowed_clock_it_plays_the_same_moves() -> None:
    """Its budget is a count: a machine's load changes its clock, not its moves, flips included,
    while the safety cap is not reached."""

    def record(clock: Callable[[], float]) -> object:
        bots = [StrongBot(seed=3, iterations=3000, clock=clock), GreedyBot(), StrongBot(seed=4, iterations=2000)]
        return play_game(bots, seed=9).record

    assert record(_slowed(0.002)) == record(time.perf_counter)


def test_its_safety_cap_stops_a_search_the_clock_says_is_too_long() -> None:
    bot = StrongBot(seed=1, move_time=1.0, clock=_slowed(5.0))
    game = Game(3, 5)
    for seat in range(3):
        game.apply(seat, Flip(False))
    seat = game.to_move
    assert seat is not None
    bot.choose(observe(game, seat))
    assert 0 < bot.steps_done < ITERATIONS[3] / 10, "one sample a phase, its budget unspent"


@pytest.mark.parametrize("players", [2, 4, 5])
def test_its_flip_spends_its_budget_charging_each_rollout_its_setting_up(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = StrongBot(seed=2, iterations=4000)
    played: list[int] = []
    playout = bot._playout
    assert playout is not None
    valuer = playout.valuer

    def counted(firsts: Sequence[Action | None], worth: Worth) -> Callable[[Game], tuple[list[float], int]]:
        assert list(firsts) == [None]
        run = valuer(firsts, worth)

        def counting(game: Game) -> tuple[list[float], int]:
            assert game.phase is Phase.PLAY
            found, actions = run(game)
            played.append(actions)
            return found, actions

        return counting

    monkeypatch.setattr(playout, "valuer", counted)
    bot.flip(observe(Game(players, 3), 1))
    assert bot.steps_done == sum(played) + FLIP_ROLLOUT_COST * len(played)
    assert 4000 <= bot.steps_done < 4000 + 2 * (FLIP_ROLLOUT_COST + max(played)), "one sample past it at most"
    assert len(played) % 2 == 0, "keep and flip on the same samples"


def _first_round_played(players: int) -> Game:
    game = Game(players, 0)
    while not game.results:
        seat = game.awaiting[0]
        game.apply(seat, game.legal_actions(seat)[0])
    return game


def test_round_margin_is_the_seats_score_against_the_mean_of_the_others() -> None:
    game = _first_round_played(3)
    a, b, c = game.results[-1].scores
    assert round_margin(game.results[-1].scores, 0) == pytest.approx(a - (b + c) / 2)


def test_lead_margin_is_the_seats_total_against_the_best_other_total() -> None:
    """docs/rules.md §8: the highest total wins, so the rival that counts is the one ahead."""
    game = _first_round_played(4)
    scores = game.results[-1].scores
    totals = (10, 0, 25, 3)
    best_other = max(totals[s] + scores[s] for s in (1, 2, 3))
    assert lead_margin(scores, 0, totals) == totals[0] + scores[0] - best_other
    assert lead_margin(scores, 2, totals) == 25 + scores[2] - max(totals[s] + scores[s] for s in (0, 1, 3))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_rollout_is_worth_the_blend_of_both_margins_by_the_rounds_played(players: int) -> None:
    """The "lead" objective weighs `lead_margin` by the share of rounds played after this one."""
    rng = random.Random(players)
    game = _first_round_played(players)
    obs = observe(game, 1)
    totals = [view.total for view in obs.table.seats]
    w = (obs.table.round + 1) / obs.table.rounds
    assert 0 < w <= 1
    worth = StrongBot(seed=1).worth(obs)
    for _ in range(200):
        scores = [rng.randint(-12, 15) for _ in range(players)]
        assert worth(scores) == (1 - w) * round_margin(scores, 1) + w * lead_margin(scores, 1, totals)


def test_a_worth_names_a_seat_at_its_table_and_a_weight_from_0_to_1() -> None:
    with pytest.raises(ValueError, match="seat 3 is not at a table of 3"):
        Worth(3, 0.5, (0, 0, 0))
    with pytest.raises(ValueError, match=r"from 0 to 1, not 1\.5"):
        Worth(0, 1.5, (0, 0, 0))


def test_the_lead_objective_decides_as_the_mean_one_at_two_seats() -> None:
    """With one rival its total and the mean of the others are the same number."""
    game = Game(2, 5)
    obs = observe(game, game.awaiting[0])
    lead = StrongBot(seed=3, move_time=None, iterations=300, objective="lead")
    mean = StrongBot(seed=3, move_time=None, iterations=300, objective="mean")
    assert lead.flip(obs) == mean.flip(obs)
    while game.phase is Phase.FLIP:
        seat = game.awaiting[0]
        game.apply(seat, Flip(False))
    for _ in range(6):
        seat = game.to_move
        assert seat is not None
        obs = observe(game, seat)
        action = lead.choose(obs)
        assert mean.choose(obs) == action
        game.apply(seat, action)


def test_it_is_an_example_bot_named_strong() -> None:
    assert EXAMPLES["strong"] is StrongBot
    assert isinstance(make_example("strong", 1), StrongBot)


def test_strong_beats_greedy_heads_up() -> None:
    """A small budget (150 simulated actions a decision) already wins most heads-up games against greedy."""
    bots = [StrongBot(seed=1, move_time=None, iterations=150), GreedyBot()]
    strong, greedy = play_match(bots, games=30, seed=200).summary()
    assert strong.win_rate >= 0.55
    assert strong.mean_points > greedy.mean_points


@pytest.mark.parametrize(("evidence", "kind"), [(None, Determinizer), (0.25, InformedDeterminizer)])
def test_evidence_chooses_where_the_samples_come_from(
    monkeypatch: pytest.MonkeyPatch, evidence: float | None, kind: type
) -> None:
    _, worlds, _ = first_search(monkeypatch, StrongBot(seed=1, move_time=None, iterations=10, evidence=evidence))
    assert type(worlds) is kind


def _mid_round_sample(players: int) -> Game:
    game = Game(players, 6)
    for seat in range(players):
        game.apply(seat, Flip(False))
    game.apply(game.to_move, game.legal_actions()[0])
    return Determinizer(observe(game, game.to_move)).sample(random.Random(2))


@pytest.mark.parametrize("players", [3, 4])
def test_a_rollout_stops_at_its_horizon_and_is_valued_by_the_round_evaluation(players: int) -> None:
    unit = [1.0 if f == "cards" else 0.0 for f in SEAT_FEATURES]
    bot = StrongBot(seed=1, move_time=None, iterations=10, horizon=players, evaluation=RoundValue({players: unit}))
    world = _mid_round_sample(players)
    first = world.legal_actions()[0]
    ((scores, played),) = bot.rollouts(world, [first])
    game = world.copy()
    game.apply(game.to_move, first)
    for _ in range(players):
        game.apply(game.to_move, bot._act(game))
    assert not game.is_over, "this sample's round lasts longer than a turn of the table"
    assert played == 1 + players
    assert scores == tuple(float(len(h)) for h in game.hands)


@pytest.mark.parametrize("playout", ["learned", "greedy"])
def test_without_a_horizon_a_rollout_plays_to_the_end_of_the_round(playout: Literal["learned", "greedy"]) -> None:
    bot = StrongBot(seed=1, move_time=None, iterations=10, playout=playout)
    world = _mid_round_sample(4)
    first = world.legal_actions()[-1]
    finished = world.copy()
    finished.apply(finished.to_move, first)
    while not finished.is_over:
        finished.apply(finished.to_move, bot._act(finished))
    before = repr((world.hands, world.active, world.round_actions))
    ((scores, played),) = bot.rollouts(world, [first])
    assert tuple(scores) == finished.results[-1].scores
    assert played == finished.round_actions - world.round_actions > 1
    assert repr((world.hands, world.active, world.round_actions)) == before, "a rollout plays a copy"


def test_a_horizon_searches_more_samples_in_the_same_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget counts simulated actions (and `ROLLOUT_COST` a rollout), so rollouts cut short buy
    more samples of the deal: from the round's first turn, a rollout to its end plays about 20."""
    sampled: list[int] = []
    original = Determinizer.sample

    def sample(worlds: Determinizer, rng: random.Random) -> Game:
        sampled.append(1)
        return original(worlds, rng)

    monkeypatch.setattr(Determinizer, "sample", sample)
    game = Game(4, 3)
    for seat in range(4):
        game.apply(seat, Flip(False))
    obs = observe(game, game.to_move)
    counts = []
    for horizon in (None, 4):
        sampled.clear()
        StrongBot(seed=1, move_time=None, iterations=3000, horizon=horizon).choose(obs)
        counts.append(len(sampled))
    assert counts[1] > 1.5 * counts[0]
