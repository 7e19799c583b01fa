"""What the seats that scouted the table's set, rather than beating it, say about their hands.

A seat that scouts when it could have shown gives up points for the shape of its hand; the greedy
bot never does, and the search bots seldom do. So a seat that scouted the current set most likely
held no set that beat it, and a sample of the hidden hands (`sdk.engine.Determinizer`) in which it
did is unlikely. `ScoutEvidence` reads those scouts off the public history once per decision and
tells a sample that agrees with them from one that does not, in a few microseconds; a search bot
keeps the samples that agree and only a share of those that do not (`StrongBot(evidence=...)`).

Only the scouts since the last show count: until the next show each seat moves at most once
(three to five players; at two a seat may scout again), and its hand then is its hand now with
the card it scouted taken out, so no earlier hand needs rebuilding.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from sdk import Observation
from sdk.engine import (
    Card,
    Determinizer,
    End,
    Game,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    SetKey,
    Shown,
    legal_shows,
    set_key,
)


class ScoutEvidence:
    """The other seats' scouts of the current set: who, where the card went, the set's strength."""

    __slots__ = ("scouts",)

    def __init__(self, obs: Observation) -> None:
        history = obs.table.history
        start = max(i for i, e in enumerate(history) if isinstance(e, RoundStarted))
        shows = [i for i in range(start, len(history)) if isinstance(history[i], (Shown, ScoutedAndShown))]
        self.scouts: tuple[tuple[int, int, SetKey], ...] = ()
        """(seat, position of the scouted card, key of the set it was taken from), oldest first."""
        if not shows:
            return
        last = history[shows[-1]]
        active: list[Card] = list(last.shown.cards if isinstance(last, ScoutedAndShown) else last.cards)  # type: ignore[union-attr]
        found = []
        for event in history[shows[-1] + 1 :]:
            if not isinstance(event, Scouted):
                continue
            key = set_key([c.top for c in active])
            if event.seat != obs.seat and key is not None:
                found.append((event.seat, event.position, key))
            active.pop(-1 if event.end is End.RIGHT and len(active) > 1 else 0)
        self.scouts = tuple(found)

    def agrees(self, world: Game) -> bool:
        """True when no seat that scouted the set held, in `world`, a set that beat it."""
        hands: dict[int, Sequence[Card]] = {}
        for seat, position, key in reversed(self.scouts):
            hand = hands.get(seat, world.hands[seat])
            hand = hands[seat] = [*hand[:position], *hand[position + 1 :]]
            if legal_shows([c[0] for c in hand], key):
                return False
        return True


class InformedDeterminizer:
    """A `Determinizer` whose samples are weighed by the scouts: each sample that disagrees with
    `ScoutEvidence` is kept with probability `keep`, as likely as a seat that could show is to
    scout anyway (about a quarter of the time for the search bots at 3 seats,
    docs/benchmarks.md), so the samples kept are drawn in proportion to how well they explain
    what the seats did."""

    __slots__ = ("_evidence", "_keep", "_worlds")

    def __init__(self, obs: Observation, keep: float) -> None:
        if not 0 < keep <= 1:
            raise ValueError(f"keep is a probability above 0, not {keep}")
        self._worlds = Determinizer(obs)
        self._evidence = ScoutEvidence(obs)
        self._keep = keep

    def sample(self, rng: random.Random) -> Game:
        while True:
            world = self._worlds.sample(rng)
            if not self._evidence.scouts or self._evidence.agrees(world) or rng.random() < self._keep:
                return world
