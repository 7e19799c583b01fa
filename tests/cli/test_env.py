"""One environment-variable scheme for both CLIs (`sdk.env`): every variable SCOUT_ARENA_*, the
same name for the same thing, and each old `scout-bot` name still read, with a warning."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from arena.cli.app import app as scout_arena
from arena.startup.arena import ADMIN_TOKEN_VARIABLE
from bots.greedy import GreedyBot
from sdk import env
from sdk.cli import app as scout_bot
from sdk.cli import bot_program
from sdk.tokens import tokens_path
from tests.cli.conftest import assert_one_line_error, bot_cli

DOCS = Path(__file__).parents[2] / "docs"
OPTION = {
    env.SERVER: ("target", "127.0.0.1:6000", "127.0.0.1:6000"),
    env.BOT_TOKEN: ("token", "t" * 32, "t" * 32),
    env.ENTRY_CODE: ("entry_code", "sesame", "sesame"),
    env.TLS: ("tls", "1", True),
    env.TLS_CA: ("tls_ca", "ca.pem", "ca.pem"),
    env.TLS_SERVER_NAME: ("tls_server_name", "arena.example.org", "arena.example.org"),
}
"""scout-bot run's option for each variable: (parameter, value in the environment, value read)."""


def run_params(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], *args: str) -> dict[str, Any]:
    """The parameters `scout-bot run greedy ARGS` would run with in `environ` (nothing is run)."""
    for name in [*env.DEPRECATED, *env.DEPRECATED.values()]:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    command = get_command(scout_bot).commands["run"]  # type: ignore[attr-defined]
    return command.make_context("run", ["greedy", *args]).params  # type: ignore[no-any-return]


@pytest.mark.parametrize(("old", "new"), env.DEPRECATED.items(), ids=list(env.DEPRECATED))
def test_an_old_name_is_still_read_with_a_warning(
    old: str, new: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    param, value, read = OPTION[new]
    assert run_params(monkeypatch, {old: value})[param] == read
    assert capsys.readouterr().err == f"warning: {old} is deprecated and will stop working: set {new} instead\n"


@pytest.mark.parametrize("new", OPTION)
def test_the_new_name_is_read_and_wins_over_the_old_without_a_warning(
    new: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    param, value, read = OPTION[new]
    assert run_params(monkeypatch, {new: value})[param] == read
    (old,) = env.names(new)[1:]
    stale = "0" if new == env.TLS else "stale"
    assert run_params(monkeypatch, {new: value, old: stale})[param] == read
    assert capsys.readouterr().err == ""


def test_an_option_on_the_command_line_wins_and_no_warning_is_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_params(monkeypatch, {"SCOUT_TARGET": "old:1"}, "--target", "given:2")["target"] == "given:2"
    assert capsys.readouterr().err == ""


def test_a_deprecated_name_reaches_the_command() -> None:
    code, output = bot_cli("run", "greedy", "--register", env={"SCOUT_TOKEN": "t" * 32})
    assert code == 1
    warning, error = output.splitlines(keepends=True)
    assert warning == f"warning: SCOUT_TOKEN is deprecated and will stop working: set {env.BOT_TOKEN} instead\n"
    assert_one_line_error(error, "--register and --token do not go together")


def test_bot_programs_read_the_same_names(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (env.SERVER, env.BOT_TOKEN, "SCOUT_TARGET", "SCOUT_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(env.SERVER, "arena:50051")
    monkeypatch.setenv(env.BOT_TOKEN, "secret")
    params = get_command(bot_program(GreedyBot)).make_context("greedy", []).params
    assert (params["target"], params["token"]) == ("arena:50051", "secret")


def test_both_clis_give_one_thing_one_name() -> None:
    """The arena's address, TLS options and tokens: scout-arena's and scout-bot's variables agree."""
    arena_group = get_command(scout_arena)
    bot_run = get_command(scout_bot).commands["run"]  # type: ignore[attr-defined]

    def variables(command: Any) -> dict[str, str]:
        return {p.name: p.envvar if isinstance(p.envvar, str) else p.envvar[0] for p in command.params if p.envvar}

    arena_vars = {**variables(arena_group), **variables(arena_group.commands["ratings"])}  # type: ignore[attr-defined]
    run_vars = variables(bot_run)
    assert arena_vars["server"] == run_vars["target"] == env.SERVER
    assert {arena_vars[p] for p in ("tls", "tls_ca", "tls_server_name")} == {env.TLS, env.TLS_CA, env.TLS_SERVER_NAME}
    assert {run_vars[p] for p in ("tls", "tls_ca", "tls_server_name")} == {env.TLS, env.TLS_CA, env.TLS_SERVER_NAME}
    assert ADMIN_TOKEN_VARIABLE == env.ADMIN_TOKEN
    assert all(re.fullmatch(r"SCOUT_ARENA_[A-Z_]+", name) for name in [*arena_vars.values(), *run_vars.values()])


def test_the_token_file_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(env.TOKENS, str(tmp_path / "t.json"))
    assert tokens_path() == tmp_path / "t.json"


@pytest.mark.parametrize("page", ["operator-guide.md", "bot-guide.md"])
def test_both_guides_have_the_table_of_every_variable(page: str) -> None:
    text = (DOCS / page).read_text()
    table = text.split("| variable |", 1)[1].split("\n\n", 1)[0]
    current = [getattr(env, name) for name in dir(env) if name.isupper() and isinstance(getattr(env, name), str)]
    for name in current:
        assert f"`{name}`" in table, name
    for old in env.DEPRECATED:
        assert re.search(rf"`{old}` \(deprecated\)", table), old
