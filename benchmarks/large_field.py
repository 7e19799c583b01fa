"""Benchmark: what a 1,000-bot field costs the tournaments already playing (issue 30).

The run of tests/tournaments/test_large_field.py (`tests.tournaments.large_field`), against a real
`scout-arena serve` process: a steady tournament of four real bots plays throughout; 1,000 bots
register from 20 loopback addresses and enter a full round robin at 4 seats (769 get in, the
rest are refused by the 50,000-game limit); the organiser starts it (`scout-arena tournament
start`, timed) and a small tournament just after. Printed, per database: the steady tournament's
games/s in each phase and against its quiet rate (target: at least 0.80 in every phase), how long
the field's start took, and every storage error a tournament or command saw (there must be none).

    .venv/bin/python benchmarks/large_field.py [--postgres URL] [--repeat 1] [--server-option=OPTION ...]

`--server-option` passes an option to the arena, for example `--server-option=--global-entry-rate=1000`
to see the field entering without the arena-wide pace of registrations and entries.

**--steady-only SECONDS** runs the steady tournament alone for that long and prints, every 10 s,
its games/s and the arena's CPU per game: a tournament's cost must not grow as it plays, or every
later phase above would be measured against a quiet rate it no longer has.

**--field-only** runs only the field's registrations and entries, on an arena with nothing else
to do, and prints how long they took and the arena's CPU a bot: what the steady tournament shares
the arena's interpreter with while the field enters.

PostgreSQL is measured when --postgres or SCOUT_TEST_POSTGRES_URL gives a URL (a throwaway schema).
The machine is often shared: read the ratios, and the load average printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from storage_commit import postgres_schema

from tests.tournaments.large_field import FieldCost, Outcome, Sample, Scenario

PHASES = ("entering", "starting", "playing")


def report(kind: str, outcome: Outcome) -> None:
    quiet = outcome.windows["quiet"]
    print(f"{kind}: load average {os.getloadavg()[0]:.1f} after the run")
    arena, here = quiet.cores()
    print(
        f"  steady tournament, quiet: {quiet.rate:6.1f} games/s over {quiet.ended - quiet.started:4.1f} s "
        f"(CPU in cores: arena {arena:.2f}, this process {here:.2f})"
    )
    for phase in PHASES:
        window = outcome.windows[phase]
        arena, here = window.cores()
        print(
            f"  {phase:<9} {window.rate:6.1f} games/s over {window.ended - window.started:4.1f} s: "
            f"{outcome.ratio(phase):.2f} of quiet (CPU in cores: arena {arena:.2f}, this process {here:.2f})"
        )
    print(
        f"  field: {outcome.registered} registered, {outcome.entered} entered, {outcome.refused_full} refused "
        f"(full), {outcome.field_games} games stored; its start took {outcome.start_s:.1f} s "
        f"(exit {outcome.start_code}); small tournament {outcome.small_status} "
        f"({outcome.small_finished}/{outcome.small_total})"
    )
    errors = outcome.storage_errors() + outcome.stops()
    print(f"  storage errors or stops seen: {len(errors)}" + "".join(f"\n    {line}" for line in errors[:5]))


def measure(kind: str, scenario: Scenario, steady_only: float | None, field_only: bool) -> None:
    if field_only:
        report_field(kind, asyncio.run(scenario.run_field()))
    elif steady_only is None:
        report(kind, asyncio.run(scenario.run()))
    else:
        report_steady(kind, asyncio.run(scenario.run_steady(steady_only)))


def report_field(kind: str, cost: FieldCost) -> None:
    print(
        f"{kind}: {cost.registered} bots registered and {cost.entered} entered in {cost.seconds:.1f} s; "
        f"arena CPU {cost.arena_cpu_s:.2f} s, {1000 * cost.arena_cpu_s / max(cost.registered, 1):.2f} ms a bot "
        f"(load average {os.getloadavg()[0]:.1f} after the run)"
    )


def report_steady(kind: str, samples: list[Sample]) -> None:
    print(f"{kind}: the steady tournament alone, load average {os.getloadavg()[0]:.1f} after the run")
    for before, after in itertools.pairwise(samples):
        games = after.games - before.games
        rate = games / (after.elapsed - before.elapsed)
        print(
            f"  {after.elapsed:5.0f} s  {after.games:6d} games  {rate:6.1f} games/s  "
            f"arena CPU {1000 * (after.arena_cpu_s - before.arena_cpu_s) / max(games, 1):5.1f} ms a game"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("SCOUT_TEST_POSTGRES_URL"), help="PostgreSQL URL")
    parser.add_argument("--repeat", type=int, default=1, help="runs per database (default 1)")
    parser.add_argument("--steady-only", type=float, metavar="SECONDS", help="the steady tournament alone (docstring)")
    parser.add_argument("--field-only", action="store_true", help="the field's registrations and entries alone")
    parser.add_argument("--server-option", action="append", default=[], help="an option for scout-arena serve")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start (other work skews figures)")
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            scenario = Scenario(f"sqlite:///{Path(tmp) / 'arena.db'}", Path(tmp), server_options=args.server_option)
            measure("SQLite", scenario, args.steady_only, args.field_only)
        if args.postgres:
            with tempfile.TemporaryDirectory() as tmp, postgres_schema(args.postgres) as url:
                scenario = Scenario(url, Path(tmp), server_options=args.server_option)
                measure("PostgreSQL", scenario, args.steady_only, args.field_only)
    if not args.postgres:
        print("PostgreSQL: skipped (give --postgres URL or set SCOUT_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
