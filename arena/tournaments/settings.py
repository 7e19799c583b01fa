"""A tournament's settings as the CLI and the Arena service pass them: format, clocks, failure
policy, stop rule. A plain value: `arena.storage.store.create_tournament` validates and stores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.stop_rule import StopRule


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """Everything that defines a tournament before it has entrants."""

    name: str
    table_size: int
    games_per_table: int
    starts_at: datetime
    move_limit_ms: int
    concurrency: int = 1
    seed: int | None = None
    """None draws one at random (it is stored, so the tournament stays reproducible)."""
    policy: FailurePolicy = field(default_factory=FailurePolicy)
    rounds: int | None = None
    """None: a full round robin; N: N rounds, each entrant once in every seat per round."""
    max_entrants: int | None = None
    """None: the arena's largest field (`arena.tournaments.entries.MAX_ENTRANTS`)."""
    entry_code: str | None = None
    """If set, only bots giving it may enter (the arena keeps its hash)."""
    stop_rule: StopRule | None = None
    """If set, the schedule is played round after round until the rule settles the table or its
    game cap is reached (`arena.tournaments.stop_rule`)."""
    spectator_delay_s: int = DEFAULT_SPECTATOR_DELAY_S
    """Seconds after a move that spectators of its live games see it (`arena.play.spectators`)."""

    def check(self) -> None:
        """InvalidSetting if the referee could not play this tournament's clocks."""
        self.policy.limits(self.move_limit_ms)
