"""`scout-bot run` finding its arena and its token, as a bot author runs it: real arena and bot
processes. Saved tokens are kept under the identity the arena reports, so another name for the
same arena finds them and a recreated database (a new arena) does not; a refused saved token
names its file and the one command that fixes it; old token files keep working; and every way of
starting a bot waits, saying so, while no arena answers."""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sdk import reach as sdk_reach
from tests.cli.conftest import arena_cli, bot_cli, scout_bot_process
from tests.tournaments.arena_process import ArenaProcess

WAIT_S = 60.0


def eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def play_once(tmp: Path, tokens: Path, log: str, *args: str) -> str:
    """`scout-bot run ARGS` until the arena welcomes it (then Ctrl-C) or it exits; returns its log."""
    path = tmp / log
    bot = scout_bot_process(path, tokens, "run", *args)
    try:
        eventually(lambda: bot.poll() is not None or "welcome: playing as" in path.read_text(), "the bot to connect")
        if bot.poll() is None:
            bot.send_signal(signal.SIGINT)
        bot.wait(timeout=WAIT_S)
    finally:
        if bot.poll() is None:
            bot.kill()
    return path.read_text()


def test_a_saved_token_is_found_by_every_address_of_the_arena(tmp_path: Path) -> None:
    server = ArenaProcess(f"sqlite:///{tmp_path / 'arena.db'}", tmp_path / "server.log")
    tokens = tmp_path / "tokens.json"
    try:
        first = play_once(tmp_path, tokens, "first.log", "greedy", "--name", "ann", "--target", server.target)
        assert f"registered 'ann' at {server.target}" in first and "welcome: playing as 'ann'" in first, first
        (arena,) = json.loads(tokens.read_text())
        assert arena.startswith("arena:") and len(arena) == len("arena:") + 32
        again = play_once(
            tmp_path, tokens, "again.log", "greedy", "--name", "ann", "--target", f"localhost:{server.port}"
        )
        assert "registered" not in again and "welcome: playing as 'ann'" in again, again
        assert list(json.loads(tokens.read_text())) == [arena]
    finally:
        assert server.stop() == 0


def test_a_recreated_database_is_a_new_arena_and_its_bot_registers_afresh(tmp_path: Path) -> None:
    db, port, tokens = tmp_path / "arena.db", free_port(), tmp_path / "tokens.json"
    server = ArenaProcess(f"sqlite:///{db}", tmp_path / "server.log", port=port)
    try:
        play_once(tmp_path, tokens, "first.log", "greedy", "--name", "ann", "--target", server.target)
    finally:
        assert server.stop() == 0
    for path in tmp_path.glob("arena.db*"):
        path.unlink()
    server = ArenaProcess(f"sqlite:///{db}", tmp_path / "server.log", port=port)
    try:
        again = play_once(tmp_path, tokens, "again.log", "greedy", "--name", "ann", "--target", server.target)
        assert f"registered 'ann' at {server.target}" in again and "welcome: playing as 'ann'" in again, again
        assert len(json.loads(tokens.read_text())) == 2
    finally:
        assert server.stop() == 0


def test_an_old_token_file_keeps_working_and_a_refused_token_names_its_file_and_the_fix(tmp_path: Path) -> None:
    server = ArenaProcess(f"sqlite:///{tmp_path / 'arena.db'}", tmp_path / "server.log")
    tokens = tmp_path / "tokens.json"
    try:
        code, output = arena_cli("bot", "register", "ann", "--server", server.target)
        assert code == 0, output
        token = output.rsplit(" ", 1)[1].strip()
        tokens.write_text(json.dumps({server.target: {"ann": token, "bob": "0" * 64}}))
        old = play_once(tmp_path, tokens, "old.log", "greedy", "--name", "ann", "--target", server.target)
        assert "registered" not in old and "welcome: playing as 'ann'" in old, old
        (arena,) = [key for key in json.loads(tokens.read_text()) if key.startswith("arena:")]
        assert json.loads(tokens.read_text())[arena] == {"ann": token}

        refused = play_once(tmp_path, tokens, "refused.log", "greedy", "--name", "bob", "--target", server.target)
        fix = f"scout-bot run greedy --target {server.target} --name bob --register"
        assert refused.splitlines()[-1] == (
            "error: the arena refused bob: UNAUTHENTICATED: unknown bot token: register the bot to get one; "
            f"it is the token saved in {tokens}: `{fix}` registers bob afresh and saves its new token"
        ), refused
        fixed = play_once(tmp_path, tokens, "fixed.log", *fix.split()[2:])
        assert f"registered 'bob' at {server.target}" in fixed and "welcome: playing as 'bob'" in fixed, fixed
        assert json.loads(tokens.read_text())[arena]["bob"] != "0" * 64
    finally:
        assert server.stop() == 0


def test_every_way_of_starting_a_bot_waits_for_its_arena_and_says_so(tmp_path: Path) -> None:
    port, tokens = free_port(), tmp_path / "tokens.json"
    target = f"127.0.0.1:{port}"
    ways = {
        "register": ["greedy", "--name", "ann"],
        "token": ["greedy", "--name", "bob", "--token", "0" * 64],
        "tournament": ["greedy", "--name", "cy", "--tournament", "cup"],
    }
    bots = {
        way: scout_bot_process(tmp_path / f"{way}.log", tokens, "run", *args, "--target", target)
        for way, args in ways.items()
    }
    logs = {way: tmp_path / f"{way}.log" for way in ways}
    server = None
    try:
        for way, log in logs.items():
            eventually(
                lambda way=way, log=log: (
                    bots[way].poll() is not None
                    or log.read_text().count(f"no arena answers at {target}; trying again in ") >= 2
                ),
                f"the {way} bot to try twice",
            )
            assert bots[way].poll() is None, log.read_text()
        server = ArenaProcess(f"sqlite:///{tmp_path / 'arena.db'}", tmp_path / "server.log", port=port)
        eventually(lambda: "welcome: playing as 'ann'" in logs["register"].read_text(), "the registering bot to play")
        for way in ("token", "tournament"):  # they found the arena: a made-up token, no tournament 'cup'
            assert bots[way].wait(timeout=WAIT_S) == 1
        assert logs["token"].read_text().splitlines()[-1].startswith("error: the arena refused bob: UNAUTHENTICATED")
        assert logs["tournament"].read_text().splitlines()[-1].startswith("error: the arena refused cy: NOT_FOUND")
        assert all("(Ctrl-C stops)" in log.read_text() for log in logs.values())
    finally:
        for bot in bots.values():
            if bot.poll() is None:
                bot.kill()
        if server is not None:
            assert server.stop() == 0


def test_an_arena_gone_before_the_entry_is_not_called_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --tournament` whose arena answered (`sdk.reach`) and then went away before the bot
    entered: nothing answered the entry, so the line says so, not "the arena refused"."""
    target = f"127.0.0.1:{free_port()}"
    monkeypatch.setattr(sdk_reach, "wait_for_arena", lambda *_: f"arena:{'0' * 32}")
    code, output = bot_cli("run", "greedy", "--tournament", "cup", "--token", "0" * 64, "--target", target)
    assert code == 1
    assert output.splitlines()[-1] == f"error: no arena answers at {target}"
