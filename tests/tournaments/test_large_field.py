"""A 1,000-bot field cannot take play away from the other tournaments (issue 30): registered from
20 loopback addresses and entered while another tournament runs, then started while a third is
started, against a real `scout-arena serve` process on SQLite and on PostgreSQL
(`tests.tournaments.large_field`).

Neither other tournament stops, fails or waits for storage: no "database is locked" (or
unavailable, or busy) reaches a tournament, the arena's log or an organiser's command, the field's
start stores its whole schedule, the small tournament plays every game, and the steady one keeps
playing through each phase. Its games/s in each phase against its quiet rate is asserted at a
loose floor, one that holds on a loaded machine (the machine is shared by other processes, and
this test's own 1,000 registrations compete with the arena for its two cores); the precise ratios
are benchmarks/large_field.py's (docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.tournaments import entries
from arena.tournaments.schedule import table_count
from tests.tournaments.large_field import FIELD_BOTS, Scenario

FLOOR = 0.25
"""The steady tournament's games/s in each phase, at least this share of its quiet rate."""


@pytest.mark.slow
def test_a_large_field_never_stops_fails_or_starves_the_other_tournaments(database_url: str, tmp_path: Path) -> None:
    outcome = asyncio.run(Scenario(database_url, tmp_path).run())
    field = entries.capacity(table_size=4, games_per_table=1, rounds=None, max_entrants=entries.MAX_ENTRANTS)
    assert outcome.registered == FIELD_BOTS
    assert (outcome.entered, outcome.refused_full, outcome.refused_other) == (field, FIELD_BOTS - field, [])
    assert outcome.storage_errors() == []
    assert outcome.stops() == []
    assert outcome.start_code == 0 and outcome.small_code == 0, (outcome.start_output, outcome.small_output)
    assert outcome.field_games == table_count(field, 4)
    assert (outcome.steady_status, outcome.field_status) == ("running", "running")
    assert outcome.small_status == "finished" and outcome.small_finished == outcome.small_total == 6
    ratios = {phase: round(outcome.ratio(phase), 2) for phase in ("entering", "starting", "playing")}
    print(
        f"steady games/s against quiet ({outcome.windows['quiet'].rate:.1f}/s): {ratios}; start {outcome.start_s:.1f} s"
    )
    assert all(r >= FLOOR for r in ratios.values()), ratios
