"""Helpers for the command-line tests: both CLIs invoked in this process, bots as processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer
import typer.main
from typer.testing import CliRunner

from arena.cli.app import app as scout_arena
from sdk.cli import app as scout_bot

runner = CliRunner()


class InProcessCli:
    """One CLI invoked in this process, as `runner.invoke` does, but with its command built once:
    the installed program builds it once per process, and typer's runner rebuilds it on every call
    (about 0.2 s for scout-arena, a few hundred times a test run)."""

    def __init__(self, app: typer.Typer) -> None:
        self._command = typer.main.get_command(app)

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
        """(exit status, stdout and stderr); an exception other than an exit fails the test."""
        with runner.isolation(env=env) as (_, _, output):
            try:
                self._command.main(args=list(args), prog_name=runner.get_default_prog_name(self._command))
            except SystemExit as exc:
                code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
            else:
                code = 0
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            text = output.getvalue().decode(runner.charset, "replace").replace("\r\n", "\n")
        return code, text


arena_cli = InProcessCli(scout_arena)
"""`scout-arena ARGS` in this process: (exit status, stdout and stderr)."""
bot_cli = InProcessCli(scout_bot)
"""`scout-bot ARGS` in this process."""


def assert_one_line_error(output: str, starts: str) -> None:
    assert output.count("\n") == 1 and output.startswith(f"error: {starts}"), output
    assert "Traceback" not in output


def scout_bot_process(log: Path, tokens: Path, *args: str) -> subprocess.Popen[bytes]:
    """`scout-bot ARGS` as its own process (`python -m sdk.cli`), saving tokens in `tokens`."""
    return subprocess.Popen(
        [sys.executable, "-m", "sdk.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        env={**os.environ, "SCOUT_ARENA_TOKENS": str(tokens)},
    )
