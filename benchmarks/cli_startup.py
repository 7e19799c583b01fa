"""CPU seconds each `scout-arena` / `scout-bot` command costs before it does its work: its start-up.

    .venv/bin/python benchmarks/cli_startup.py [--runs 5]

Runs each command `--runs` times as its own process and prints the least CPU (user + system, from
`resource.getrusage(RUSAGE_CHILDREN)`) of any run: CPU rather than wall time, so another program's
load on the machine barely moves it, and the least because a run is only ever slowed. The bars
(docs/benchmarks.md): `scout-arena --help` 0.4 s, `scout-arena ratings --db FILE` 0.7 s. A command
that talks to a server is timed on a closed port, so it pays for gRPC and stops there.
"""

from __future__ import annotations

import argparse
import compileall
import resource
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent


def commands(db: Path) -> list[list[str]]:
    arena, bot = str(BIN / "scout-arena"), str(BIN / "scout-bot")
    return [
        [sys.executable, "-c", "pass"],
        [arena, "--help"],
        [arena, "serve", "--help"],
        [arena, "ratings", "--db", str(db)],
        [arena, "games", "list", "--db", str(db)],
        [arena, "tournament", "list", "--server", "127.0.0.1:1"],
        [bot, "--help"],
        [bot, "play", "--help"],
    ]


def cpu_seconds(argv: list[str], runs: int) -> float:
    """The least CPU one run of `argv` took, over `runs` runs."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def compile_the_project() -> None:
    """Byte-compile the project's packages as an installed package is: the editable install leaves
    them as sources, and where PYTHONDONTWRITEBYTECODE is set every run would compile them again."""
    for package in ("arena", "sdk", "bots"):
        compileall.compile_dir(Path(__file__).resolve().parent.parent / package, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command; the least CPU is shown")
    args = parser.parse_args()
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    compile_the_project()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "arena.db"
        from arena.storage.database import open_database

        open_database(f"sqlite:///{db}").dispose()
        for argv in commands(db):
            shown = shlex.join([Path(argv[0]).name, *argv[1:]]).replace(str(db), "FILE")
            print(f"{cpu_seconds(argv, args.runs):6.3f} s CPU  {shown}")
    with open("/proc/loadavg") as load:
        print(f"load average: {load.read().split()[0]}")


if __name__ == "__main__":
    main()
