"""A planning bot: determinised Monte-Carlo search over the hidden hands.

For each decision it takes the greedy bot's best few actions as candidates, then repeatedly
(1) deals the cards it has not seen into the other hands at random, consistent with everything
public (`sdk.engine.Determinizer`), and (2) plays each candidate in that same deal and finishes the
round with a fast policy for every seat. It plays the candidate with the best mean round score
relative to the table. Later rounds are fresh deals, so a round's end is as far as it looks.

Its budget is a count, so that it plays the same moves on any machine under any load: `actions`,
the actions its rollouts may simulate per decision (every rollout finishes its round, so a deal
costs more early in a round than late), by default `ACTIONS` for the table size; or `iterations`,
deals per decision; or both, whichever is spent first. `move_time` is only a safety cap, in seconds
read from `clock` (`time.perf_counter` unless told otherwise), below the arena's move limit: on a
machine so loaded that the budget is not spent by then, the search stops early rather than forfeit.

The rollouts run in C where the playout was compiled (`bots.playout.LinearPlayout.play_outs` with
the weights that play as `rollout_action`): the same moves as the Python rollout (`compiled=False`,
`finish_round`), at a fraction of its cost.

Run it against an arena: `python -m bots.montecarlo --target HOST:PORT --token TOKEN`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from time import perf_counter

from sdk import Action, Bot, Observation, Scout, ScoutShow
from sdk.engine import Determinizer, End, Game, Show, legal_shows, set_key

from .greedy import EMPTY_BONUS, SCOUT_SHOW_COST, HandValue, hand_value, hand_values, prefer_flip, ranked_actions


def rollout_action(game: Game, value: HandValue = hand_value) -> Action:
    """A fast approximation of the greedy bot for the seat to move, read off the game state.

    It scores shows as the greedy bot does, but tries scouts only at hand positions where the
    scouted card joins a neighbour, and scout & shows only of the longest group or run through
    the scouted card: where the greedy bot's choices almost always fall, at a fraction of the cost.
    """
    seat = game.to_move
    tops = tuple([c[0] for c in game.hands[seat]])
    active = game.active
    gain = len(active)
    best: Action | None = None
    best_score = -1e9
    for show in legal_shows(tops, game.active_key):
        after = tops[: show.start] + tops[show.start + show.length :]
        score = gain + (value(after) if after else EMPTY_BONUS)
        if score > best_score:
            best, best_score = show, score
    if not active or (game.players == 2 and not game.chips[seat]):
        assert best is not None, "the engine ends the round before a seat is left without a move"
        return best
    scout_show = game.scout_show[seat]
    ends = [(End.LEFT, active[0], active[1:])]
    if len(active) > 1:
        ends.append((End.RIGHT, active[-1], active[:-1]))
    for end, card, rest in ends:
        rest_key = set_key([c[0] for c in rest]) if rest else None
        for flip in (False, True):
            v = card[1] if flip else card[0]
            for pos in _joining_positions(tops, v):
                hand = (*tops[:pos], v, *tops[pos:])
                scout = _SCOUTS[end][flip][pos]
                score = -1.0 + value(hand)
                if score > best_score:
                    best, best_score = scout, score
                if not scout_show:
                    continue
                for start, length in _runs_through(hand, pos):
                    shown = hand[start : start + length]
                    if rest_key is not None and not set_key(shown) > rest_key:  # type: ignore[operator]
                        continue
                    after = hand[:start] + hand[start + length :]
                    score = gain - 2.0 - SCOUT_SHOW_COST + (value(after) if after else EMPTY_BONUS)
                    if score > best_score:
                        best, best_score = ScoutShow(scout, Show(start, length)), score
    assert best is not None
    return best


def _runs_through(hand: tuple[int, ...], pos: int) -> list[tuple[int, int]]:
    """(start, length) of the longest group and runs of 2+ cards that include card `pos`."""
    found = []
    last = len(hand) - 1
    for step in (0, 1, -1):
        a = pos
        while a > 0 and hand[a] - hand[a - 1] == step:
            a -= 1
        b = pos
        while b < last and hand[b + 1] - hand[b] == step:
            b += 1
        if b > a:
            found.append((a, b - a + 1))
    return found


def _joining_positions(tops: tuple[int, ...], v: int) -> list[int]:
    """Insert positions where a card of value `v` sits beside a card within 1 of it; else [0]."""
    n = len(tops)
    found = [p for p in range(n + 1) if (p and -1 <= tops[p - 1] - v <= 1) or (p < n and -1 <= tops[p] - v <= 1)]
    return found or [0]


_MAX_HAND = 45
"""No hand holds more cards than the largest deck."""
_SCOUTS = tuple(
    tuple(tuple(Scout(end, flip, pos) for pos in range(_MAX_HAND + 1)) for flip in (False, True)) for end in End
)
"""_SCOUTS[end][flip][position]: shared instances, so rollouts allocate no scouts."""


def finish_round(game: Game, value: HandValue = hand_value) -> None:
    """Play `game` (a determinised sample, which ends with its round) to the end; a search passes
    its memo of `hand_value` (`bots.greedy.hand_values`) as `value`."""
    while not game.is_over:
        game.apply(game.to_move, rollout_action(game, value))


ACTIONS = {2: 13000, 3: 7000, 4: 11500, 5: 14500}
"""The default budget per table size: the actions the Python rollout simulated in 0.2 s of CPU a
decision (the median over decisions) on the machine of docs/benchmarks.md ("The Monte-Carlo bot's
budget"), the time montecarlo used to think by."""
MOVE_TIME = 1.0
"""The default safety cap in seconds, half the arena's default move limit of 2 s."""


class MonteCarloBot(Bot):
    """Determinised flat Monte-Carlo search over the greedy bot's best `candidates` actions."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        actions: int | None = None,
        iterations: int | None = None,
        move_time: float | None = MOVE_TIME,
        candidates: int = 8,
        clock: Callable[[], float] = perf_counter,
        compiled: bool = True,
    ) -> None:
        super().__init__()
        for name, value in (("actions", actions), ("iterations", iterations), ("move_time", move_time)):
            if value is not None and value <= 0:
                raise ValueError(f"MonteCarloBot's {name} is above 0, not {value}")
        self._rng = random.Random(seed)
        self._clock = clock
        self.actions = actions
        self.iterations = iterations
        self.move_time = move_time
        self.candidates = candidates
        self.compiled = compiled
        self.deals_done = 0
        """Deals searched for the latest decision (0 if it had nothing to compare)."""
        self.actions_done = 0
        """Actions simulated for it, the judged moves included."""
        self._hand_value = hand_values()
        from . import playout  # here: bots.playout imports this module

        weights = dict.fromkeys(ACTIONS, playout.greedy_weights())
        self._playout = playout.LinearPlayout(weights) if compiled and playout.COMPILED else None

    def choose(self, obs: Observation) -> Action:
        start = self._clock()
        self.deals_done = self.actions_done = 0
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        options = [a for _, a in ranked_actions(obs, self._hand_value)[: self.candidates]]
        if len(options) == 1:
            return options[0]
        actions = self.actions
        if actions is None and self.iterations is None:
            actions = ACTIONS[len(obs.table.seats)]
        worlds = Determinizer(obs)
        me = obs.seat
        totals = [0.0] * len(options)
        done = spent = 0
        while True:
            for i, (scores, played) in enumerate(self._rollouts(worlds.sample(self._rng), me, options)):
                spent += played
                totals[i] += scores[me] - (sum(scores) - scores[me]) / (len(scores) - 1)
            done += 1
            self.deals_done, self.actions_done = done, spent
            if self.iterations is not None and done >= self.iterations:
                break
            if actions is not None and spent >= actions:
                break
            if self.move_time is not None and self._clock() - start >= self.move_time:
                break
        return options[max(range(len(options)), key=totals.__getitem__)]

    def _rollouts(self, world: Game, me: int, actions: Sequence[Action]) -> list[tuple[Sequence[int], int]]:
        """The round's scores after each of `actions` in the sample `world`, and the actions each took."""
        if self._playout is not None:
            return self._playout.play_outs(world, actions)  # type: ignore[return-value]
        found: list[tuple[Sequence[int], int]] = []
        for action in actions:
            game = world.copy()
            game.apply(me, action)
            finish_round(game, self._hand_value)
            found.append((game.results[-1].scores, game.round_actions - world.round_actions))
        return found

    def flip(self, obs: Observation) -> bool:
        return prefer_flip(obs.hand, self._hand_value)


if __name__ == "__main__":
    from sdk.cli import bot_program

    bot_program(MonteCarloBot)()
