"""How much of the arena casual games may take (`arena.play.casual`, `arena.web.play_room`): a
module of its own, so that the server's configuration and the command line read the defaults
without loading the casual games' machinery."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CasualLimits:
    """How much of the arena the Play page may take, and how it is shared (docs/security.md,
    "Casual games"). The room's places are shared between addresses: one address holds at most
    `places_per_address` of them, and a person who finds no place gets a queue place, the next
    free place going to the address that holds fewest (`arena.web.play_room`). A ValueError names
    a value out of range."""

    max_games: int = 20
    """Casual games played at once in the arena (places in the Play room)."""
    places_per_address: int = 4
    """Places one address may hold at once; more games from it wait in the queue."""
    games_per_visitor: int = 2
    """Games one browser session (cookie) may play at once."""
    starts_per_address: int = 10
    """Games one address may start per `window_s`."""
    window_s: float = 600.0
    per_bot: int = 2
    """Casual games one connected bot plays at once (and never more than its free capacity)."""
    queue: int = 100
    """People waiting for a place at once; a full queue gives a newcomer the place of the
    latest comer from the address that waits most."""
    queue_ttl_s: float = 30.0
    """How long a queue place is kept without its page asking for it (it asks every few seconds)."""

    def __post_init__(self) -> None:
        for name, low, high in (
            ("max_games", 1, 10_000),
            ("places_per_address", 1, 10_000),
            ("games_per_visitor", 1, 100),
            ("starts_per_address", 1, 100_000),
            ("window_s", 1, 86_400),
            ("per_bot", 0, 256),
            ("queue", 0, 100_000),
            ("queue_ttl_s", 5, 3600),
        ):
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} must be within {low}..{high}, not {value}")
