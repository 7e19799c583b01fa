"""Ctrl-C (a real SIGINT to a real `scout-bot` process) stops `play` and `check` at once, inside a
bot that is busy thinking, with the games finished so far and exit status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

SLOW_BOTS = str(Path(__file__).with_name("slow_bots.py"))
PROMPT = 30.0
"""Seconds the command may take to stop. What it must not do is wait for the thinking bot, whose move
takes 60 s (tests/sdk/slow_bots.py): a stop within half of that was at the interrupt. Not shorter: on a
busy machine (load 30 on two cores) printing the partial table after the interrupt takes seconds."""


def interrupt_when_slow(args: list[str]) -> tuple[int, str, str, float]:
    """Run `scout-bot ARGS`, SIGINT it once the bot says SLOW; (exit status, stdout, stderr, seconds to stop)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sdk.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    errors: list[str] = []
    slow = threading.Event()

    def read_errors() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errors.append(line)
            if line.strip() == "SLOW":
                slow.set()

    reader = threading.Thread(target=read_errors, daemon=True)
    reader.start()
    try:
        assert slow.wait(120), f"the bot never got slow: {''.join(errors)}"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.stdout is not None
        output = proc.stdout.read()
        code = proc.wait(timeout=60)
        stopped = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    reader.join(5)
    return code, output, "".join(errors), stopped


@pytest.mark.parametrize("bot", ["SlowSync", "SlowAsync"])
def test_ctrl_c_stops_play_at_once_with_the_partial_table(bot: str) -> None:
    code, output, errors, stopped = interrupt_when_slow(
        ["play", f"{SLOW_BOTS}:{bot}", "--players", "2", "--games", "10", "--against", "random"]
    )
    assert code == 130, errors
    assert stopped < PROMPT, f"took {stopped:.1f} s to stop"
    assert "1 of 10 games (interrupted), 2 players, seeds 0..0" in output
    assert f"│ {bot} " in output and "│ RandomBot " in output
    assert "interrupted: 1 of 10 games played" in errors
    assert "Traceback" not in errors


@pytest.mark.parametrize("bot", ["SlowSync", "SlowAsync"])
def test_ctrl_c_stops_check_at_once_with_the_findings_so_far(bot: str) -> None:
    code, output, errors, stopped = interrupt_when_slow(
        ["check", f"{SLOW_BOTS}:{bot}", "--games", "3", "--move-time", "120"]
    )
    assert code == 130, errors
    assert stopped < PROMPT, f"took {stopped:.1f} s to stop"
    assert output.startswith(f"INTERRUPTED {bot}: 1 games at 2-5 players, ")
    assert "interrupted: 1 of 12 games checked" in errors
    assert "Traceback" not in errors
