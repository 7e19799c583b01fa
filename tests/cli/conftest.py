"""Helpers for the command-line tests: both CLIs invoked in this process, bots as processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.app import app as scout_arena
from sdk.cli import app as scout_bot

runner = CliRunner()


def arena_cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`scout-arena ARGS` in this process: (exit status, stdout and stderr)."""
    result = runner.invoke(scout_arena, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def bot_cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`scout-bot ARGS` in this process."""
    result = runner.invoke(scout_bot, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


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
