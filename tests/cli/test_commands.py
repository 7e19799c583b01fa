"""`scout-arena` and `scout-bot run --tournament` end to end against a real arena process: a
tournament is created, entered by bots that register themselves, started, played and read back,
and every read command shows the same over gRPC as on the database file."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena.cli.app import app as scout_arena
from sdk.engine import GameRecord, replay
from tests.cli.conftest import arena_cli, bot_cli, runner, scout_bot_process
from tests.tournaments.arena_process import ArenaProcess

JSON_COMMANDS = (
    ["tournament", "list"],
    ["tournament", "show", "cup"],
    ["bot", "list"],
    ["ratings"],
    ["ratings", "--tournament", "cup"],
    ["games", "list", "--tournament", "cup"],
    ["games", "show", "1"],
    ["games", "verify", "--tournament", "cup"],
    ["ratings", "--tournament", "cup", "--bootstrap", "20"],
    ["head-to-head"],
    ["head-to-head", "--tournament", "cup"],
)
"""Every read command that takes --json and reads the same over gRPC as on the database."""
BOTS = {"ann": ["greedy"], "bob": ["random", "--seed", "3"], "cy": ["montecarlo", "--move-time", "0.01"]}
FINISH_TIMEOUT_S = 120.0


class Played:
    """The arena, its database file and what the bots logged, once the tournament 'cup' is over."""

    def __init__(self, server: ArenaProcess, db: Path, tokens: Path, logs: Path) -> None:
        self.server, self.db, self.tokens, self.logs = server, db, tokens, logs

    def via_server(self, *args: str) -> tuple[int, str]:
        return arena_cli(*args, "--server", self.server.target)

    def via_db(self, *args: str) -> tuple[int, str]:
        return arena_cli(*args, "--db", str(self.db))


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    tmp = tmp_path_factory.mktemp("cli")
    db = tmp / "arena.db"
    server = ArenaProcess(f"sqlite:///{db}", tmp / "server.log")
    admin = ("--server", server.target, "--admin-token", server.admin_token or "")
    code, output = arena_cli(
        "tournament",
        "create",
        "cup",
        "--table-size",
        "3",
        "--games-per-table",
        "2",
        "--starts-at",
        "+1h",
        "--move-ms",
        "5000",
        "--seed",
        "42",
        *admin,
    )
    assert code == 0, output
    tokens = tmp / "tokens.json"
    bots = [
        scout_bot_process(
            tmp / f"{name}.log", tokens, "run", *spec, "--name", name, "--tournament", "cup", "--target", server.target
        )
        for name, spec in BOTS.items()
    ]
    try:
        wait_for(
            lambda: "ann, bob, cy" in arena_cli("tournament", "show", "cup", "--server", server.target)[1],
            "the bots to enter",
        )
        code, output = arena_cli("tournament", "start", "cup", *admin)
        assert code == 0 and "Started tournament 'cup': 6 games scheduled among 3 entrants." in output, output
        for bot in bots:
            bot.wait(timeout=FINISH_TIMEOUT_S)  # each stops by itself once the tournament has finished
        assert [bot.returncode for bot in bots] == [0, 0, 0]
        yield Played(server, db, tokens, tmp)
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
        assert server.stop() == 0


def test_bots_register_themselves_enter_and_stop_when_the_tournament_finishes(played: Played) -> None:
    (saved,) = json.loads(played.tokens.read_text()).values()
    assert sorted(saved) == sorted(BOTS)
    for name in BOTS:
        log = (played.logs / f"{name}.log").read_text()
        assert f"registered '{name}' at {played.server.target}; its token is saved in {played.tokens}" in log
        assert log.rstrip().endswith(f"{name}: tournament 'cup' finished")
    code, output = played.via_server("tournament", "show", "cup")
    assert code == 0 and "finished" in output and "6/6 games" in output


def test_a_saved_token_is_reused(played: Played) -> None:
    before = played.tokens.read_text()
    code, output = bot_cli(
        "run",
        "greedy",
        "--name",
        "ann",
        "--tournament",
        "cup",
        "--target",
        played.server.target,
        env={"SCOUT_ARENA_TOKENS": str(played.tokens)},
    )
    assert code == 0, output
    assert "registered" not in output and output.rstrip().endswith("ann: tournament 'cup' finished")
    assert played.tokens.read_text() == before


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "list"],
        ["tournament", "show", "cup"],
        ["bot", "list"],
        ["ratings"],
        ["ratings", "--tournament", "cup"],
        ["ratings", "--tournament", "cup", "--bootstrap", "20"],
        ["head-to-head"],
        ["head-to-head", "--tournament", "cup"],
        ["games", "list", "--tournament", "cup"],
        ["games", "list", "--status", "finished"],
        ["games", "show", "1"],
        ["games", "export", "--tournament", "cup"],
        *([*command, "--json"] for command in JSON_COMMANDS),
    ],
    ids=" ".join,
)
def test_read_commands_show_the_same_over_grpc_and_on_the_database(played: Played, command: list[str]) -> None:
    code, remote = played.via_server(*command)
    assert code == 0, remote
    assert played.via_db(*command) == (0, remote)


def test_the_tables_show_what_was_played(played: Played) -> None:
    _, ratings = played.via_server("ratings", "--tournament", "cup")
    assert "Ratings: tournament cup" in ratings
    ratings_part = ratings.split("How sure the ranks are")[0]
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]] for line in ratings_part.splitlines() if line.startswith("│")
    ]
    assert sorted(row[1] for row in rows) == sorted(BOTS)
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert all(row[5] == "6" for row in rows)  # 3 tables of all three bots, 2 games each
    _, games = played.via_server("games", "list", "--tournament", "cup")
    assert games.count("│ finished │") == 6


def _rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]


def test_the_ratings_say_how_sure_each_rank_is(played: Played) -> None:
    _, output = played.via_server("ratings", "--tournament", "cup", "--bootstrap", "20")
    table, sure = output.split("How sure the ranks are")
    assert [row[1] for row in _rows(sure)] == [row[1] for row in _rows(table)]
    assert next(row[3] for row in _rows(sure)) == "-" and next(row[4] for row in _rows(sure)) == "-"
    for row in _rows(sure)[1:]:
        low, _, high = row[2].partition("–")
        assert 1 <= int(low) <= int(high or low) <= 3
        assert all(cell.lstrip("<>").replace(".", "").isdigit() for cell in row[3:5]), row
    assert "bootstrap" in sure and "bootstrap" not in played.via_server("ratings", "--tournament", "cup")[1]


def test_the_crosstable_counts_every_shared_game_from_both_sides(played: Played) -> None:
    code, output = played.via_server("head-to-head", "--tournament", "cup")
    assert code == 0 and "Head to head: tournament cup" in output
    lines = output.splitlines()
    split = next(i for i, line in enumerate(lines) if line.strip() == "Head to head")
    matrix, pairs = "\n".join(lines[:split]), "\n".join(lines[split:])
    cells = {row[1]: row[2:] for row in _rows(matrix)}
    assert sorted(cells) == sorted(BOTS) and all(row[i] == "·" for i, row in enumerate(cells.values()))
    listed = _rows(pairs)
    assert len(listed) == 3  # every pair of the three bots
    for bot, other, games, above, below, tied, _, _ in listed:
        assert games == "6" and int(above) + int(below) + int(tied) == 6  # all three sat at every table
        order = list(cells)
        forward = cells[bot][order.index(other)]
        backward = cells[other][order.index(bot)]
        assert forward.split("-")[:2] == [above, below] and backward.split("-")[:2] == [below, above]


def test_games_show_replays_the_game_move_by_move(played: Played) -> None:
    code, output = played.via_server("games", "show", "1")
    assert code == 0
    lines = output.splitlines()
    assert lines[0].startswith("Game 1: tournament cup, table 1, game 1, seed ")
    assert sum(line.startswith("Round ") for line in lines) == 3
    assert any(" shows " in line for line in lines) and any(" scouts " in line for line in lines)
    assert lines[-4] == "Result:" and all(any(name in line for line in lines[-3:]) for name in BOTS)


def test_export_writes_replayable_json_lines(played: Played, tmp_path: Path) -> None:
    code, output = played.via_server("games", "export", "--tournament", "cup", "--output", str(tmp_path / "cup.jsonl"))
    assert code == 0 and output == f"exported 6 games to {tmp_path / 'cup.jsonl'}\n"
    games = [json.loads(line) for line in (tmp_path / "cup.jsonl").read_text().splitlines()]
    assert [(g["table"], g["game"]) for g in games] == [(t, g) for g in range(2) for t in range(3)]
    for game in games:
        assert list(replay(GameRecord.from_dict(game["record"])).totals) == [r["points"] for r in game["results"]]


TOURNAMENT_KEYS = {
    "id",
    "name",
    "table_size",
    "games_per_table",
    "starts_at",
    "move_limit_ms",
    "concurrency",
    "seed",
    "status",
    "failure_policy",
    "created_at",
    "started_at",
    "finished_at",
    "entrants",
    "games",
    "seed_commitment",
    "seed_nonce",
    "failure",
    "max_entrants",
    "invite_only",
    "rounds",
    "stop_rule",
    "stop",
    "spectator_delay_s",
}
RATING_KEYS = {
    "rank",
    "bot",
    "mu",
    "sigma",
    "conservative",
    "games",
    "wins",
    "average_points",
    "average_placing",
    "rank_low",
    "rank_high",
    "confidence",
    "bootstrap_confidence",
}
PAIR_KEYS = {"bot", "other", "games", "above", "below", "ties", "point_difference", "p_value"}
GAME_KEYS = {
    "id",
    "tournament",
    "table",
    "game",
    "status",
    "seed",
    "attempts",
    "started_at",
    "finished_at",
    "seats",
    "results",
    "end_reasons",
}
RESULT_KEYS = {"seat", "bot", "points", "rank", "forfeit", "cause", "policy"}


def json_of(*args: str) -> Any:
    """The one JSON document `scout-arena ARGS --json` prints, checking that nothing else is printed."""
    result = runner.invoke(scout_arena, [*args, "--json"])
    assert result.exit_code == 0 and result.stderr == "", result.output
    return json.loads(result.stdout)


def utc(text: str) -> datetime:
    assert text.endswith("Z") and len(text) == len("2030-01-04T18:00:00.000Z"), text
    moment = datetime.fromisoformat(text)
    assert moment.utcoffset() == timedelta(0)
    return moment


def test_json_documents_name_every_field_with_numbers_as_numbers_and_utc_times(played: Played) -> None:
    (listed,) = json_of("tournament", "list", "--db", str(played.db))["tournaments"]
    assert set(listed) == TOURNAMENT_KEYS
    assert json_of("tournament", "show", "cup", "--db", str(played.db)) == listed
    assert (listed["name"], listed["status"], listed["table_size"], listed["games_per_table"]) == (
        "cup",
        "finished",
        3,
        2,
    )
    assert listed["games"] == {"scheduled": 0, "running": 0, "played": 0, "finished": 6, "total": 6}
    assert listed["seed"] == 42 and listed["entrants"] == sorted(BOTS) and listed["failure_policy"]["grace_ms"] > 0
    # Scheduled a day ahead and started at once: its start is when it started.
    assert listed["starts_at"] == listed["started_at"]
    assert utc(listed["created_at"]) <= utc(listed["started_at"]) <= utc(listed["finished_at"])
    assert {b["name"] for b in json_of("bot", "list", "--db", str(played.db))["bots"]} == set(BOTS)


def test_ratings_json_is_the_table_s_rows(played: Played) -> None:
    document = json_of("ratings", "--tournament", "cup", "--db", str(played.db))
    assert document["tournament"] == "cup" and all(set(row) == RATING_KEYS for row in document["ratings"])
    _, table = played.via_db("ratings", "--tournament", "cup")
    table = table.split("How sure the ranks are")[0]
    bots = [[cell.strip() for cell in line.split("│")[1:-1]][1] for line in table.splitlines() if line.startswith("│")]
    assert [row["bot"] for row in document["ratings"]] == bots
    assert [row["rank"] for row in document["ratings"]] == [1, 2, 3]
    for row in document["ratings"]:
        assert row["games"] == 6 and isinstance(row["mu"], float) and isinstance(row["wins"], float)
        assert row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    assert sum(row["wins"] for row in document["ratings"]) == pytest.approx(6)  # a shared win is split
    assert json_of("ratings", "--db", str(played.db))["tournament"] is None


def test_ratings_json_carries_how_sure_each_rank_is(played: Played) -> None:
    plain = json_of("ratings", "--tournament", "cup", "--db", str(played.db))["ratings"]
    rows = json_of("ratings", "--tournament", "cup", "--bootstrap", "20", "--db", str(played.db))["ratings"]
    assert [r["confidence"] for r in rows] == [r["confidence"] for r in plain]
    assert rows[0]["confidence"] is None and rows[0]["bootstrap_confidence"] is None
    assert all(0 <= r["confidence"] <= 1 and 0 <= r["bootstrap_confidence"] <= 1 for r in rows[1:])
    assert all(r["bootstrap_confidence"] is None for r in plain)
    assert all(1 <= r["rank_low"] <= r["rank_high"] <= 3 for r in rows)


def test_head_to_head_json_lists_each_pair_once(played: Played) -> None:
    document = json_of("head-to-head", "--tournament", "cup", "--db", str(played.db))
    assert document["tournament"] == "cup" and all(set(p) == PAIR_KEYS for p in document["pairs"])
    assert [(p["bot"], p["other"]) for p in document["pairs"]] == [("ann", "bob"), ("ann", "cy"), ("bob", "cy")]
    for p in document["pairs"]:
        assert p["games"] == 6 == p["above"] + p["below"] + p["ties"] and 0 < p["p_value"] <= 1


def test_games_json_has_the_export_s_shape(played: Played) -> None:
    games = json_of("games", "list", "--tournament", "cup", "--db", str(played.db))["games"]
    assert len(games) == 6 and all(set(g) == GAME_KEYS for g in games)
    assert all(set(r) == RESULT_KEYS and isinstance(r["points"], int) for g in games for r in g["results"])
    assert [(g["table"], g["game"]) for g in games] == [(t, g) for g in range(2) for t in range(3)]
    shown = json_of("games", "show", "1", "--db", str(played.db))
    assert set(shown) == GAME_KEYS | {"record", "voided_attempts"}
    assert {k: v for k, v in shown.items() if k in GAME_KEYS} == games[0]
    _, exported = played.via_db("games", "export", "--tournament", "cup")
    assert json.loads(exported.splitlines()[0]) == shown
    assert list(replay(GameRecord.from_dict(shown["record"])).totals) == [r["points"] for r in shown["results"]]


def test_verify_and_seeds_json(played: Played) -> None:
    checked = json_of("games", "verify", "--tournament", "cup", "--db", str(played.db))
    assert (
        checked
        == {
            "tournament": "cup",
            "finished": True,
            "games": 6,
            "attempts": 0,
            "problems": [],
            "ok": True,
            "summary": checked["summary"],
        }
        and "verified" in checked["summary"]
    )
    seeds = json_of("tournament", "seeds", "cup", "--db", str(played.db))
    assert seeds["seed"] == 42 and len(seeds["games"]) == 6
    assert all(set(g) == {"id", "table", "game", "attempt", "seed"} for g in seeds["games"])
    games = json_of("games", "list", "--tournament", "cup", "--db", str(played.db))["games"]
    assert {g["id"]: g["seed"] for g in seeds["games"]} == {g["id"]: g["seed"] for g in games}


def test_a_json_command_that_fails_prints_one_error_line_and_nothing_on_stdout(played: Played) -> None:
    result = runner.invoke(scout_arena, ["games", "show", "999", "--json", "--db", str(played.db)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
