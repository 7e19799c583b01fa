"""Fair deals that can be verified (issue #11; docs/architecture.md boundary 2, docs/rules.md §2 "the seeded
deal"): a tournament publishes a commitment to its secret seed when it is created, and once it is
finished `scout-arena games verify` checks the revealed seed against the commitment, every game's
and voided attempt's seed against the derivation, and re-deals and replays every record. Any
tampering (the seed, the nonce, one dealt card) is found and named on its own line."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
from sqlmodel import Session

from arena import records
from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments import fairness
from arena.tournaments.schedule import game_seed
from tests.cli.conftest import arena_cli
from tests.storage.helpers import play_all, random_result, running_tournament


def test_the_commitment_is_the_documented_sha256() -> None:
    """arena.proto, Tournament.seed_commitment: lowercase hex SHA-256 of the UTF-8 text
    "scout-arena seed v1:<seed>:<seed_nonce>"."""
    nonce = "ab" * 32
    assert (
        fairness.commitment(12345, nonce) == hashlib.sha256(f"scout-arena seed v1:12345:{nonce}".encode()).hexdigest()
    )
    assert re.fullmatch(r"[0-9a-f]{64}", fairness.new_nonce()) and fairness.new_nonce() != fairness.new_nonce()


def test_attempts_are_dealt_afresh_and_the_first_keeps_the_schedules_seed() -> None:
    assert fairness.attempt_seed(7, 2, 1, 1) == game_seed(7, 2, 1)
    seeds = {fairness.attempt_seed(7, 2, 1, a) for a in range(1, 50)}
    assert len(seeds) == 49 and all(0 <= s < 2**63 for s in seeds)
    with pytest.raises(ValueError, match="numbered from 1"):
        fairness.attempt_seed(7, 2, 1, 0)


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A SQLite arena holding a finished tournament 'cup' (4 bots, 3-seat tables, 2 games a table)
    of real engine games; its first game was voided once (a disconnect) and replayed."""
    path = tmp_path / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        running_tournament(session, bots=4, table_size=3, games_per_table=2, seed=None)  # type: ignore[arg-type]
        first = store.mark_game_running(session=session, game_id=store.next_games(session=session)[0].id)
        store.void_attempt(
            session=session,
            game_id=first.id,
            result=random_result(first, {1}, ForfeitCause.DISCONNECT, PolicyDecision.VOID),
        )
        play_all(session)
        assert store.show_tournament(session=session, tournament="cup").status is records.TournamentStatus.FINISHED
    engine.dispose()
    return path


def verify(path: Path) -> tuple[int, list[str]]:
    code, output = arena_cli("games", "verify", "--tournament", "cup", "--db", str(path))
    return code, output.splitlines()


def test_every_finished_game_of_a_real_tournament_verifies(played: Path) -> None:
    code, lines = verify(played)
    assert code == 0, lines
    assert lines == [
        "tournament 'cup' verified: its seed matches its commitment, 8 finished games and 1 voided "
        "attempts re-dealt and replayed, every seed derived from it"
    ]


def test_a_tampered_seed_fails_the_commitment_and_every_derivation(played: Path) -> None:
    with sqlite3.connect(played) as db:
        db.execute("UPDATE tournaments SET seed = seed + 1")
    code, lines = verify(played)
    assert code == 1
    assert lines[0].startswith("FAILED: the revealed seed ") and "do not match the commitment" in lines[0]
    assert sum("is not deal" in line for line in lines) == 9, "each game's and the voided attempt's seed"
    assert lines[-1].startswith("tournament 'cup' FAILED verification: 10 problems")


def test_a_tampered_nonce_fails_the_commitment(played: Path) -> None:
    with sqlite3.connect(played) as db:
        db.execute("UPDATE tournaments SET seed_nonce = ?", ("0" * 64,))
    code, lines = verify(played)
    assert code == 1
    assert len(lines) == 2 and "do not match the commitment" in lines[0], lines


@pytest.mark.parametrize("table", ["games", "voided_attempts"])
def test_a_changed_dealt_card_is_found(played: Path, table: str) -> None:
    with sqlite3.connect(played) as db:
        row_id, text = db.execute(f"SELECT id, record FROM {table} ORDER BY id LIMIT 1").fetchone()
        record = json.loads(text)
        hand = record["deals"][1][2]
        hand[0], hand[1] = hand[1], hand[0]  # two cards of seat 2's second hand swapped
        db.execute(f"UPDATE {table} SET record = ? WHERE id = ?", (json.dumps(record), row_id))
    code, lines = verify(played)
    assert code == 1
    assert lines[0] == (
        f"FAILED: game 1 (table 0, game 0){', voided attempt 1' if table == 'voided_attempts' else ''}: "
        "round 2, seat 2 holds cards seed " + lines[0].split("holds cards seed ")[1]
    )
    assert lines[0].endswith("does not deal") and len(lines) == 2, lines


def test_the_replay_keeps_the_failing_seats_hands_and_says_so(played: Path) -> None:
    """The void's replay keeps seat 1's hands (docs/security.md, "Voids cannot be bought"); a record
    that claims to keep another seat's is found."""
    with sqlite3.connect(played) as db:
        (voided,) = db.execute("SELECT record FROM voided_attempts").fetchone()
        row_id, text = db.execute("SELECT id, record FROM games ORDER BY id LIMIT 1").fetchone()
        record = json.loads(text)
        assert record["kept"] == [1] and [d[1] for d in record["deals"]] == [d[1] for d in json.loads(voided)["deals"]]
        db.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps({**record, "kept": [2]}), row_id))
    code, lines = verify(played)
    assert code == 1
    assert lines[0] == "FAILED: game 1 (table 0, game 0): the record keeps the hands of seats [2], not [1]", lines
    assert len(lines) == 2, lines


def test_an_unfinished_tournament_checks_its_finished_games_and_says_the_commitment_waits(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        running_tournament(session, bots=3, table_size=3, games_per_table=2)
        game = store.mark_game_running(session=session, game_id=store.next_games(session=session)[0].id)
        store.commit_game(session=session, game_id=game.id, result=random_result(game))
    engine.dispose()
    code, lines = verify(path)
    assert code == 0
    assert lines == [
        "tournament 'cup' is not finished: 1 finished games and 0 voided attempts re-dealt and replayed "
        "from their own seeds, all consistent; its seed commitment can be checked once it finishes"
    ]


def test_show_gives_the_commitment_and_the_organiser_reads_the_seeds_early(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        running_tournament(session, bots=3, table_size=3, seed=4242)
        shown = store.show_tournament(session=session, tournament="cup")
    engine.dispose()
    code, output = arena_cli("tournament", "show", "cup", "--db", str(path))
    unwrapped = re.sub(r"\s", "", output)
    assert code == 0 and shown.seed_commitment in unwrapped and "secretuntilthetournamentfinishes" in unwrapped
    assert "4242" not in output
    code, output = arena_cli("tournament", "seeds", "cup", "--db", str(path))
    unwrapped = re.sub(r"\s", "", output)
    assert code == 0 and "4242" in output and shown.seed_commitment in unwrapped, output
    assert str(game_seed(4242, 0, 0)) in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("games", "verify", "--tournament", "nope"), "error: there is no tournament named 'nope'"),
        (("tournament", "seeds", "nope"), "error: there is no tournament named 'nope'"),
    ],
)
def test_mistakes_are_one_line(played: Path, args: tuple[str, ...], message: str) -> None:
    code, output = arena_cli(*args, "--db", str(played))
    assert (code, output) == (1, message + "\n")


def test_seeds_over_grpc_need_the_admin_token() -> None:
    code, output = arena_cli(
        "tournament", "seeds", "cup", "--server", "127.0.0.1:1", env={"SCOUT_ARENA_ADMIN_TOKEN": ""}
    )
    assert (
        code == 1 and output.startswith("error: this command needs the arena's admin token") and output.count("\n") == 1
    )
