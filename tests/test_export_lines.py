"""`arena.documents.game_line`: one finished game as one self-contained JSON line that replays exactly."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from arena.documents import game_line
from sdk.engine import GameRecord, replay
from tests.cli.records_fixtures import SEATS, finished_detail, played, voided_attempt


def test_a_game_is_one_compact_line_whose_record_replays_to_its_points() -> None:
    record = played(seed=5)
    line = game_line(finished_detail(record, forfeit=2))
    assert "\n" not in line and ", " not in line.split('"record"')[0]
    doc = json.loads(line)
    assert (doc["id"], doc["tournament"], doc["table"], doc["game"], doc["status"]) == (12, "cup", 1, 0, "finished")
    assert doc["seats"] == list(SEATS) and doc["seed"] == record.seed
    assert doc["started_at"] == "2030-01-04T18:00:00.000Z"
    assert tuple(replay(GameRecord.from_dict(doc["record"])).totals) == record.totals
    assert [r["points"] for r in doc["results"]] == list(record.totals)
    assert [(r["forfeit"] is not None, r["cause"], r["policy"]) for r in doc["results"]] == [
        (False, None, None),
        (False, None, None),
        (True, "timeout", "forfeit"),
    ]
    assert doc["end_reasons"] == [r.reason.name for r in record.results] and doc["voided_attempts"] == []


def test_voided_attempts_travel_with_their_record_and_decisions() -> None:
    record, first = played(seed=5), played(seed=6)
    doc = json.loads(game_line(finished_detail(record, voided=(voided_attempt(first),))))
    (attempt,) = doc["voided_attempts"]
    assert (attempt["attempt"], attempt["seed"]) == (1, 99)
    assert [r["policy"] for r in attempt["results"]] == [None, "void", None]
    assert GameRecord.from_dict(attempt["record"]) == first


def test_only_a_finished_game_is_exported() -> None:
    detail = finished_detail(played())
    with pytest.raises(AssertionError, match="only finished games are exported"):
        game_line(replace(detail, record=None))
