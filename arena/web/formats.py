"""A tournament's format in words, as the pages and the API name it."""

from __future__ import annotations

from arena.records import Tournament


def format_of(t: Tournament) -> str:
    """'round robin', 'N rounds' or the stop rule's, with the games each table plays."""
    schedule = "round robin" if t.rounds is None else f"{t.rounds} round{'s' if t.rounds != 1 else ''}"
    if t.stop_rule is not None:
        places = "all places" if t.stop_rule.top is None else f"top {t.stop_rule.top}"
        return f"stop rule: {schedule} after {schedule} until {places} settle at {t.stop_rule.confidence:g}"
    return f"{schedule}, {t.games_per_table} game{'s' if t.games_per_table != 1 else ''} a table"
