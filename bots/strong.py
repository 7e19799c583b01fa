"""The strongest example bot: determinised search with sequential halving, for every decision.

A search bot written against the SDK's public API only (docs/bot-guide.md, "A search bot"):

1. `Determinizer(obs)` reads what the seat has seen this round (its hand, every shown and scouted
   card, hand sizes, chips); each `sample(rng)` deals the unseen cards at random into the hidden
   hand slots, giving a complete `Game` that ends with the current round.
2. The candidates are the greedy bot's best `candidates` actions (for the round-start decision:
   keep and flip). Each is tried on a `copy()` of the same samples and the round is finished by
   a greedy-like rollout policy for every seat (`bots.montecarlo.rollout_action`); its value is the
   seat's round score minus the mean of the others'.
3. Sequential halving spends the rollouts: every surviving candidate is played on the same fresh
   samples, then the worse half is dropped, until one is left or the budget is spent. Bad moves
   get few rollouts, close ones many, and comparing them on common deals cancels most of the
   luck of the deal.

Budgets: `iterations` counts rollouts per decision (reproducible: the same seed and iterations
play the same game on any machine, under any load); `move_time` caps the thinking time in
seconds. The default, 80 ms of thinking, keeps a move under 100 ms on one core.

Run it against an arena: `python -m bots.strong --target HOST:PORT --token TOKEN`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import TypeVar

from sdk import Action, Bot, Observation
from sdk.engine import Determinizer, Flip, Game

from .greedy import prefer_flip, ranked_actions
from .montecarlo import finish_round

T = TypeVar("T")


def round_margin(game: Game, seat: int) -> float:
    """The seat's score in the game's last round minus the mean score of the other seats."""
    scores = game.results[-1].scores
    return scores[seat] - (sum(scores) - scores[seat]) / (len(scores) - 1)


class StrongBot(Bot):
    """Determinised search over the greedy bot's best `candidates` actions, by sequential halving."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        move_time: float | None = 0.08,
        iterations: int | None = None,
        candidates: int = 10,
    ) -> None:
        super().__init__()
        if move_time is None and iterations is None:
            raise ValueError("give StrongBot a move_time, iterations, or both: its search must end")
        if candidates < 1:
            raise ValueError(f"StrongBot needs at least 1 candidate, not {candidates}")
        self._rng = random.Random(seed)
        self.move_time = move_time
        self.iterations = iterations
        self.candidates = candidates

    def choose(self, obs: Observation) -> Action:
        start = perf_counter()
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        options = [a for _, a in ranked_actions(obs)[: self.candidates]]
        me = obs.seat

        def value(world: Game, action: Action) -> float:
            game = world.copy()
            game.apply(me, action)
            finish_round(game)
            return round_margin(game, me)

        return self.best(Determinizer(obs), options, value, start)

    def flip(self, obs: Observation) -> bool:
        start = perf_counter()
        me = obs.seat

        def value(world: Game, flip: bool) -> float:
            game = world.copy()
            game.apply(me, Flip(flip))
            for seat in game.awaiting:
                game.apply(seat, Flip(prefer_flip(game.hands[seat])))
            finish_round(game)
            return round_margin(game, me)

        return self.best(Determinizer(obs), [prefer_flip(obs.hand), not prefer_flip(obs.hand)], value, start)

    def best(
        self, worlds: Determinizer, options: Sequence[T], value: Callable[[Game, T], float], start: float
    ) -> T:
        """The option with the best mean value after sequential halving over common samples.

        Ties keep the earlier option (the greedy order), so a budget too small to tell options
        apart plays what the greedy bot would.
        """
        if len(options) == 1:
            return options[0]
        alive = list(range(len(options)))
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        budget = self.iterations
        deadline = None if self.move_time is None else start + self.move_time
        phases = math.ceil(math.log2(len(options)))
        spent = 0
        for phase in range(phases):
            left = phases - phase
            if budget is None:
                per_arm = 1 if phase == 0 else self._affordable(start, spent, left, len(alive))
            else:
                per_arm = max(1, (budget - spent) // (left * len(alive)))
            for _ in range(per_arm):
                world = worlds.sample(self._rng)
                for i in alive:
                    totals[i] += value(world, options[i])
                    counts[i] += 1
                spent += len(alive)
                if deadline is not None and perf_counter() >= deadline:
                    break
            else:
                alive.sort(key=lambda i: (-totals[i] / counts[i], i))
                alive = sorted(alive[: (len(alive) + 1) // 2])
                continue
            break
        winner = min(alive, key=lambda i: (-totals[i] / counts[i], i))
        return options[winner]

    def _affordable(self, start: float, spent: int, phases_left: int, alive: int) -> int:
        """Samples per candidate this phase, from the time per rollout measured so far."""
        assert self.move_time is not None
        elapsed = perf_counter() - start
        remaining = self.move_time - elapsed
        per_rollout = elapsed / max(spent, 1)
        return max(1, int(remaining / per_rollout) // (phases_left * alive))


if __name__ == "__main__":
    from sdk.cli import bot_program

    bot_program(StrongBot)()
