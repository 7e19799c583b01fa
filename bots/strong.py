"""The search bot meant to be the strongest example: determinised search by sequential halving.

A search bot written against the SDK's public API only (docs/bot-guide.md, "A search bot"):

1. `Determinizer(obs)` reads what the seat has seen this round (its hand, every shown and scouted
   card, hand sizes, chips); each `sample(rng)` deals the unseen cards at random into the hidden
   hand slots, giving a complete `Game` that ends with the current round.
2. The candidates are the greedy bot's best `candidates` actions, 8 by default, that differ in
   what they leave (`outcome_key`: scouting a 5 to either side of a 5 is one move); for the
   round-start decision, keep and flip. Each is tried on a `copy()` of the same samples and the
   round is finished by the learned playout for every seat (`bots.playout.LinearPlayout`, fitted
   to this search's own choices; `playout="greedy"` finishes it as the Monte-Carlo bot does,
   `bots.montecarlo.rollout_action`); its value is the seat's round score against the others'
   (`bots.worth.round_margin`), weighed round by round towards its game total against the best rival's
   (`bots.worth.lead_margin`): the table goes to the highest total.
3. Sequential halving spends the rollouts: every surviving candidate is played on the same fresh
   samples, then the worse half is dropped, until one is left or the budget is spent. Bad moves
   get few rollouts, close ones many, and comparing them on common deals cancels most of the
   luck of the deal.

Budgets: `iterations` counts the actions the rollouts of one decision may simulate, each rollout
charged `ROLLOUT_COST` more for its setting up (`FLIP_ROLLOUT_COST` at the round-start flip, whose
rollouts start from a fresh deal): reproducible, since the same seed and iterations play the same
game on any machine, under any load. The default is `ITERATIONS` for the table size, the budgets
the strength figures of docs/benchmarks.md were measured at, 60-80 ms of CPU an answer on average
there. `move_time` is only a safety cap in wall-clock seconds, below the arena's move limit: on a
machine so loaded that the budget is not spent by then, the search stops early rather than forfeit.

Run it against an arena: `python -m bots.strong --target HOST:PORT --token TOKEN`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Literal, Protocol, TypeVar

from sdk import Action, Bot, Observation, Scout, Show
from sdk.engine import Card, Determinizer, End, Flip, Game

from .evaluation import RoundValue
from .evidence import InformedDeterminizer
from .greedy import hand_values, prefer_flip, ranked_actions, scouted_card
from .montecarlo import rollout_action
from .playout import LinearPlayout
from .worth import Worth

T = TypeVar("T")

ROLLOUT_COST = 12
"""What one rollout is charged beyond its actions, in actions: its share of a sample and the reading
of the position, in Python, around a round played in C (bots/_playout.c), so that a budget of
actions bounds the time whether the round has 40 actions left or 2. Set when a rollout also copied
and applied its first move in Python (20 µs a rollout, 1.5 µs an action); `benchmarks/search_speed.py
--fit-cost` measures it again (docs/benchmarks.md, "The compiled rollout")."""


ITERATIONS = {2: 125000, 3: 95000, 4: 100000, 5: 110000}
"""The default budget per table size, with the learned playout compiled (bots/_playout.c): 2.5 times
the budget that cost 65-85 ms of CPU an answer on the machine of docs/benchmarks.md ("The compiled
rollout"), now that a sample's rollouts are played and valued in one call and samples are dealt
into a position checked once: 61-79 ms an answer on average there ("Budgets that use the 100 ms"),
the budgets its strength figures against montecarlo at 1 s are measured at. The greedy playout and
the Python fallback run in Python and cost far more per action."""
FLIP_ROLLOUT_COST = 90
"""What a rollout of the round-start flip is charged beyond its actions: its share of a sample whose
other seats flip by `prefer_flip`, its copy with the seat's own flip, and a round played from its
start, whose actions cost more than later ones (full hands). At 90 a flip costs about what a move
does at the same budget (docs/benchmarks.md, "Budgets that use the 100 ms")."""
MOVE_TIME = 1.0
"""The default safety cap in seconds, half the arena's default move limit of 2 s."""


class Worlds(Protocol):
    """Where the search draws its samples: a `Determinizer` or an `InformedDeterminizer`."""

    def sample(self, rng: random.Random) -> Game: ...


def outcome_key(tops: tuple[int, ...], active: Sequence[Card], action: Action) -> tuple[object, ...]:
    """What `action` leaves by top values: the mover's hand and the set it leaves on the table.

    Actions with the same key differ at most in the hidden sides of cards in hand (scouting a 5
    to either side of a 5, showing either of two equal singles), which no one reads until those
    cards are shown, so a search that tried both would spend twice on one move.
    """
    if isinstance(action, Show):
        end = action.start + action.length
        return (tops[: action.start] + tops[end:], tops[action.start : end])
    if isinstance(action, Flip):
        raise TypeError("a flip is decided before play: it has no outcome key")
    scout = action if isinstance(action, Scout) else action.scout
    pos = scout.position
    hand = (*tops[:pos], scouted_card(active, scout), *tops[pos:])
    if isinstance(action, Scout):
        rest = active[:-1] if scout.end is End.RIGHT else active[1:]
        return (hand, tuple(c.top for c in rest), "scout")
    end = action.show.start + action.show.length
    return (hand[: action.show.start] + hand[end:], hand[action.show.start : end], "scout & show")


class StrongBot(Bot):
    """Determinised search over the greedy bot's best `candidates` distinct actions, by sequential
    halving.

    `iterations` is the reproducible budget: how many actions its rollouts may simulate per
    decision, each rollout counting `ROLLOUT_COST` more. The cost of an action differs between
    table sizes, so the strength benchmark gives each table size its own budget
    (docs/benchmarks.md). Eight candidates cost no more halving phases than six
    (three either way) and let it consider the moves the Monte-Carlo bot does. `objective` is what
    a rollout's end is worth (`worth`); `evidence`, if given, weighs the samples by the other
    seats' scouts (`bots.evidence`), keeping that share of the samples they speak against.
    `playout` is how the rollouts play: "learned" (the shipped `LinearPlayout` weights), "greedy",
    or a `LinearPlayout` of other weights. `horizon`, if given, stops each rollout that many
    actions after the move it judges and reads the round's scores off the position with
    `evaluation` (`bots.evaluation.RoundValue`, the shipped weights by default): cheaper rollouts,
    so more samples in the same budget.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        move_time: float | None = MOVE_TIME,
        iterations: int | None = None,
        candidates: int = 8,
        objective: Literal["lead", "mean"] = "lead",
        evidence: float | None = None,
        playout: Literal["learned", "greedy"] | LinearPlayout = "learned",
        horizon: int | None = None,
        evaluation: RoundValue | None = None,
        clock: Callable[[], float] = perf_counter,
    ) -> None:
        super().__init__()
        if objective not in ("lead", "mean"):
            raise ValueError(f"StrongBot's objective is 'lead' or 'mean', not {objective!r}")
        self.objective = objective
        if evidence is not None and not 0 < evidence <= 1:
            raise ValueError(
                f"StrongBot keeps a share above 0 of the samples the evidence speaks against, not {evidence}"
            )
        self.evidence = evidence
        for name, value in (("iterations", iterations), ("move_time", move_time)):
            if value is not None and value <= 0:
                raise ValueError(f"StrongBot's {name} is above 0, not {value}")
        if candidates < 1:
            raise ValueError(f"StrongBot needs at least 1 candidate, not {candidates}")
        self._rng = random.Random(seed)
        self._clock = clock
        self.move_time = move_time
        self.iterations = iterations
        self.candidates = candidates
        self.steps_done = 0
        """The budget the latest decision spent: actions simulated, and `ROLLOUT_COST` a rollout."""
        if horizon is not None and horizon < 0:
            raise ValueError(f"StrongBot's horizon is a number of actions, 0 or more, not {horizon}")
        self.horizon = horizon
        self._hand_value = hand_values()
        self._playout: LinearPlayout | None = None
        if playout == "greedy":
            self._act: Callable[[Game], Action] = lambda game: rollout_action(game, self._hand_value)
        elif playout == "learned":
            self._playout = LinearPlayout.shipped()
        elif isinstance(playout, LinearPlayout):
            self._playout = playout
        else:
            raise ValueError(f"StrongBot's playout is 'learned', 'greedy' or a LinearPlayout, not {playout!r}")
        if self._playout is not None:
            self._act = self._playout.action
        if evaluation is None:
            # Without a horizon every rollout ends its round, whose real scores need no weights.
            evaluation = RoundValue.shipped() if horizon is not None else RoundValue({})
        self._scores = evaluation.scores

    def rollouts(self, game: Game, firsts: Sequence[Action | None]) -> list[tuple[Sequence[float], int]]:
        """Play copies of the sample `game` on, once from each of the mover's `firsts` (None: no move
        first), with the playout to the end of its round or for `horizon` actions after the first;
        return each rollout's round scores for every seat (as scored, or as `RoundValue` predicts)
        and the actions it played, its first included. A learned playout to the round's end is
        `LinearPlayout.play_outs`, in C where it was built, reading the sample once for them all."""
        if self.horizon is None and self._playout is not None:
            return self._playout.play_outs(game, firsts)  # type: ignore[return-value]
        return [self._rollout(game, first) for first in firsts]

    def _rollout(self, game: Game, first: Action | None) -> tuple[Sequence[float], int]:
        game = game.copy()
        round_, start = game.round, game.round_actions
        if first is not None:
            game.apply(game.to_move, first)
        stop = None if self.horizon is None else game.round_actions + self.horizon
        act = self._act
        while not game.is_over and (stop is None or game.round_actions < stop):
            game.apply(game.to_move, act(game))
        return self._scores(game, round_), game.round_actions - start

    def choose(self, obs: Observation) -> Action:
        start = self._clock()
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        worth = self.worth(obs)

        def prepare(actions: Sequence[Action]) -> Callable[[Game], list[float]]:
            return self._valuer(actions, worth, ROLLOUT_COST)

        worlds = Determinizer(obs) if self.evidence is None else InformedDeterminizer(obs, self.evidence)
        return self.best(worlds, self.options(obs), prepare, start, self.budget(obs))

    def _valuer(self, firsts: Sequence[Action | None], worth: Worth, cost: int) -> Callable[[Game], list[float]]:
        """What the rollouts of a sample after each of `firsts` are worth (`rollouts`, valued by
        `worth`), each charged `cost` beside its actions in `steps_done`. Prepared once a halving
        phase: with the learned playout to the round's end, the compiled playout plays and values
        a sample's rollouts in one call (`LinearPlayout.valuer`)."""
        if self.horizon is None and self._playout is not None:
            run = self._playout.valuer(firsts, worth)
        else:

            def run(game: Game) -> tuple[list[float], int]:
                found = self.rollouts(game, firsts)
                return [worth(scores) for scores, _ in found], sum(n for _, n in found)

        def charged(game: Game) -> list[float]:
            found, played = run(game)
            self.steps_done += cost * len(found) + played
            return found

        return charged

    def budget(self, obs: Observation) -> int | None:
        """The decision's budget of simulated actions: `iterations`, else `ITERATIONS` for the table size."""
        return self.iterations if self.iterations is not None else ITERATIONS[len(obs.table.seats)]

    def options(self, obs: Observation) -> list[Action]:
        """The greedy bot's best `candidates` actions that differ by `outcome_key`, best first."""
        tops = tuple(c.top for c in obs.hand)
        active = obs.table.active_set
        seen: set[tuple[object, ...]] = set()
        found: list[Action] = []
        for _, action in ranked_actions(obs, self._hand_value):
            key = outcome_key(tops, active, action)
            if key not in seen:
                seen.add(key)
                found.append(action)
                if len(found) == self.candidates:
                    break
        return found

    def flip(self, obs: Observation) -> bool:
        """Keep or flip, each tried on the same samples, whose other seats flip as greedy does
        (decided once a sample); each rollout is charged `FLIP_ROLLOUT_COST` beside its actions."""
        start = self._clock()
        me = obs.seat
        after_flips = self._valuer((None,), self.worth(obs), FLIP_ROLLOUT_COST)

        def prepare(flips: Sequence[bool]) -> Callable[[Game], list[float]]:
            def run(world: Game) -> list[float]:
                found = []
                for flip in flips:
                    game = world.copy()
                    game.apply(me, Flip(flip))
                    found += after_flips(game)
                return found

            return run

        preferred = prefer_flip(obs.hand, self._hand_value)
        worlds = _OthersFlipped(Determinizer(obs), me, self._hand_value)
        return self.best(worlds, [preferred, not preferred], prepare, start, self.budget(obs))

    def worth(self, obs: Observation) -> Worth:
        """What a rollout's round scores are worth to the seat (`bots.worth`): the round margin, or
        for the "lead" objective a blend that moves from it to the lead margin round by round,
        weighing the lead margin by the share of rounds played by the end of this one.

        A table is won by the highest total, so in the last round the rival to beat is the one
        ahead, not the table's mean; early on any rival may end up ahead, and what the seat
        gives or takes from one (chips, captures) matters as much as from another. At 2 seats
        both margins rank moves alike.
        """
        lead = 0.0 if self.objective == "mean" else (obs.table.round + 1) / obs.table.rounds
        return Worth(obs.seat, lead, tuple(p.total for p in obs.table.seats))

    def best(
        self,
        worlds: Worlds,
        options: Sequence[T],
        prepare: Callable[[Sequence[T]], Callable[[Game], list[float]]],
        start: float,
        budget: int | None = None,
    ) -> T:
        """The option with the best mean value after sequential halving over common samples.

        `prepare(some)`, called once a phase, gives the phase's step: from a sample, one rollout of
        each of `some` options, what they cost (`ROLLOUT_COST` a rollout and its actions) added to
        `self.steps_done`, and what each one's round scores are worth (`worth`). `budget` is in those steps
        (`iterations` if not given); `start` is when the decision began, by the bot's clock, which
        `move_time` caps. Each halving phase spends an equal share of what is left of the budget
        (steps, and time) and plays at least one sample. Ties keep the earlier option (the greedy
        order), so a budget too small to tell options apart plays what greedy would.
        """
        if len(options) == 1:
            return options[0]
        if budget is None:
            budget = self.iterations
        alive = list(range(len(options)))
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        self.steps_done = 0
        phases = math.ceil(math.log2(len(options)))
        for phase in range(phases):
            left = phases - phase
            step_goal = None if budget is None else self.steps_done + (budget - self.steps_done) // left
            now = self._clock()
            time_goal = None if self.move_time is None else now + (start + self.move_time - now) / left
            run = prepare([options[i] for i in alive])
            while True:
                for i, v in zip(alive, run(worlds.sample(self._rng)), strict=True):
                    totals[i] += v
                    counts[i] += 1
                if step_goal is not None and self.steps_done >= step_goal:
                    break
                if time_goal is not None and self._clock() >= time_goal:
                    break
            alive.sort(key=lambda i: (-totals[i] / counts[i], i))
            alive = sorted(alive[: (len(alive) + 1) // 2])
        return options[alive[0]]


class _OthersFlipped:
    """Samples of a round-start position in which every other seat has flipped as greedy would."""

    def __init__(self, worlds: Worlds, me: int, value: Callable[[tuple[int, ...]], float]) -> None:
        self._worlds, self._me, self._value = worlds, me, value

    def sample(self, rng: random.Random) -> Game:
        world = self._worlds.sample(rng)
        for seat in list(world.awaiting):
            if seat != self._me:
                world.apply(seat, Flip(prefer_flip(world.hands[seat], self._value)))
        return world


if __name__ == "__main__":
    from sdk.cli import bot_program

    bot_program(StrongBot)()
