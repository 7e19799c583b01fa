"""Who may enter a tournament, and how many: the arena's field limits, entry caps and entry codes.

Anyone who can reach the arena may register bots and enter them, so a tournament's field is
bounded twice: by its own `max_entrants` (at most `MAX_ENTRANTS`, the default) and by the number of
games its schedule would hold (`MAX_GAMES`). A full round robin grows with the square of the field,
so an entrant that would push it over the limit is refused at entry, with the fix (the bounded
format, `--rounds`), and settings that could never fit are refused when the tournament is created.
An invite-only tournament keeps only the SHA-256 of its entry code, as bot tokens are kept.
"""

from __future__ import annotations

import hmac

from arena.directory import token_hash
from arena.errors import EntryCodeRefused, InvalidSetting, TournamentFull
from arena.names import MAX_ENTRY_CODE
from arena.tournaments.schedule import table_count

MAX_ENTRANTS = 1000
"""The largest field the arena schedules (and the default cap of a tournament's entrants)."""
MAX_GAMES = 50_000
"""The most games one tournament may schedule: its start draws and stores them all (in chunks,
`arena.storage.store.start_tournament`), and at tens of games a second it already takes the
better part of a day to play."""


def resolve_max_entrants(max_entrants: int | None, table_size: int) -> int:
    """The tournament's cap on entrants (the arena's maximum when None); InvalidSetting if it is
    outside table_size..MAX_ENTRANTS."""
    if max_entrants is None:
        return MAX_ENTRANTS
    if not table_size <= max_entrants <= MAX_ENTRANTS:
        raise InvalidSetting(
            f"max entrants must be {table_size} (one full table) to {MAX_ENTRANTS}, not {max_entrants}"
        )
    return max_entrants


def check_format(table_size: int, games_per_table: int, rounds: int | None, limit: int = MAX_GAMES) -> None:
    """InvalidSetting if no field, not even one full table, fits the game limit (the arena's, or
    a stop-rule tournament's cap, which one round must fit)."""
    if rounds is not None and rounds < 1:
        raise InvalidSetting(f"rounds must be at least 1, not {rounds}")
    smallest = games(table_size, table_size, games_per_table, rounds)
    if smallest > limit:
        raise InvalidSetting(
            f"even {table_size} entrants would play {smallest} games{_per(limit)}, over {_limit(limit)}: "
            "use fewer games per table or fewer rounds"
        )


def _per(limit: int) -> str:
    return " a round" if limit < MAX_GAMES else ""


def _limit(limit: int) -> str:
    return (
        f"the arena's limit of {MAX_GAMES}" if limit >= MAX_GAMES else f"the stop rule's cap of {limit} (--max-games)"
    )


def games(entrants: int, table_size: int, games_per_table: int, rounds: int | None) -> int:
    """How many games the schedule of a field of `entrants` holds."""
    return table_count(entrants, table_size, rounds) * games_per_table


def check_room(
    tournament: str,
    entrants: int,
    *,
    table_size: int,
    games_per_table: int,
    rounds: int | None,
    max_entrants: int,
    limit: int = MAX_GAMES,
) -> None:
    """TournamentFull unless a field of `entrants` fits the tournament's cap and the game limit
    (`limit`: the arena's, or for a stop-rule tournament its cap, which one round must fit)."""
    if entrants > max_entrants:
        raise TournamentFull(f"tournament {tournament!r} is full ({max_entrants} entrants)")
    scheduled = games(entrants, table_size, games_per_table, rounds)
    if scheduled > limit:
        raise TournamentFull(
            f"tournament {tournament!r} is full: {entrants} entrants would play {scheduled} games{_per(limit)}, "
            f"over {_limit(limit)}; create it with --rounds N for a bounded number of games per bot"
        )


def capacity(
    *, table_size: int, games_per_table: int, rounds: int | None, max_entrants: int, limit: int = MAX_GAMES
) -> int:
    """The largest field `check_room` lets in."""
    low, high = 0, max_entrants
    while low < high:
        mid = (low + high + 1) // 2
        if games(mid, table_size, games_per_table, rounds) <= limit:
            low = mid
        else:
            high = mid - 1
    return low


def code_hash(code: str | None) -> str | None:
    """What is stored of an entry code (None for a tournament open to every bot)."""
    if code is None:
        return None
    if not code or len(code) > MAX_ENTRY_CODE or not code.isprintable() or code != code.strip():
        raise InvalidSetting(
            f"an entry code must be 1 to {MAX_ENTRY_CODE} printable characters without leading or trailing spaces"
        )
    return token_hash(code)


def check_code(tournament: str, stored: str | None, given: str | None) -> None:
    """EntryCodeRefused unless the tournament is open or `given` is its entry code."""
    if stored is None:
        return
    if not given:
        raise EntryCodeRefused(f"tournament {tournament!r} is invite-only: enter it with its entry code (--entry-code)")
    if not hmac.compare_digest(token_hash(given), stored):
        raise EntryCodeRefused(f"wrong entry code for tournament {tournament!r}")
