"""The public table of a running game, rebuilt from its public events alone (docs/rules.md §9).

The live page is fed public events and nothing else (`arena.play.spectators`), so what it shows of the
table (hand sizes, the active set and its owner, chips, captured counts, scores) is folded from
them here: no hand ever reaches it. The result is the engine's own `PublicView` (with an empty
history), equal field by field to `sdk.engine.public_view(game)` after the same events (checked in
tests/web/test_public_table.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from sdk.engine import (
    Card,
    End,
    Event,
    FlipsRevealed,
    Phase,
    PlayerView,
    PublicView,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
    table_rules,
)


class PublicTable:
    """A table folded from public events; `apply` each event in order, read `view()`."""

    def __init__(self, players: int) -> None:
        self.rules = table_rules(players)
        self.round = 0
        self.phase = Phase.FLIP
        self.to_move: int | None = None
        self.active: list[Card] = []
        self.owner: int | None = None
        self.hand_sizes = [0] * players
        self.captured = [0] * players
        self.chips = [self.rules.start_chips] * players
        self.scout_show = [self.rules.scout_and_show] * players
        self.flips: list[bool | None] = [None] * players
        self.round_actions = 0
        self.scores: list[tuple[int, ...]] = []
        self.totals = [0] * players

    def apply(self, event: Event) -> None:
        """Take in the next public event (they must come in the game's order)."""
        n = self.rules.players
        if isinstance(event, RoundStarted):
            self.round, self.phase, self.to_move = event.round, Phase.FLIP, None
            self.active, self.owner, self.round_actions = [], None, 0
            self.hand_sizes = [event.hand_size] * n
            self.captured = [0] * n
            self.chips = [self.rules.start_chips] * n
            self.scout_show = [self.rules.scout_and_show] * n
            self.flips = [None] * n
        elif isinstance(event, FlipsRevealed):
            self.flips = list(event.flips)
            self.phase, self.to_move = Phase.PLAY, event.round % n
        elif isinstance(event, Shown):
            self._shown(event)
            self.round_actions += 1
        elif isinstance(event, Scouted):
            self._scouted(event)
            self.round_actions += 1
            self.to_move = event.seat if self.rules.two_player else (event.seat + 1) % n
        elif isinstance(event, ScoutedAndShown):
            self._scouted(event.scouted)
            self.scout_show[event.shown.seat] = False
            self._shown(event.shown)
            self.round_actions += 1
        elif isinstance(event, RoundEnded):
            self.scores.append(event.scores)
            self.totals = [t + s for t, s in zip(self.totals, event.scores, strict=False)]
            self.hand_sizes = list(event.hand_sizes)
            if event.round + 1 == self.rules.rounds:
                self.phase, self.to_move = Phase.OVER, None

    def _shown(self, e: Shown) -> None:
        self.hand_sizes[e.seat] -= len(e.cards)
        self.captured[e.seat] += len(self.active)
        self.active, self.owner = list(e.cards), e.seat
        self.to_move = 1 - e.seat if self.rules.two_player else (e.seat + 1) % self.rules.players

    def _scouted(self, e: Scouted) -> None:
        self.active.pop(-1 if e.end is End.RIGHT and len(self.active) > 1 else 0)
        self.hand_sizes[e.seat] += 1
        if self.rules.two_player:
            self.chips[e.seat] -= 1
        elif self.owner is not None:
            self.chips[self.owner] += 1

    def view(self) -> PublicView:
        """The table now, as `sdk.engine.public_view` has it, without the history."""
        round_scores = list(zip(*self.scores, strict=False)) or [()] * self.rules.players
        seats = tuple(
            PlayerView(
                s,
                self.hand_sizes[s],
                self.captured[s],
                self.chips[s],
                self.scout_show[s],
                self.flips[s],
                tuple(round_scores[s]),
                self.totals[s],
            )
            for s in range(self.rules.players)
        )
        return PublicView(
            self.rules.players,
            self.round,
            self.rules.rounds,
            self.round % self.rules.players,
            self.phase,
            self.to_move,
            tuple(self.active),
            self.owner,
            seats,
            self.round_actions,
            (),
        )


def fold(players: int, events: Iterable[Event]) -> PublicTable:
    """The table after `events`, the first of a game's public events."""
    table = PublicTable(players)
    for event in events:
        table.apply(event)
    return table
