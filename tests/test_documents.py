"""`arena.documents`: the documents of `scout-arena ... --json` follow their read models."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from arena import documents
from arena.ratings.table import RatingRow
from arena.records import GameStatus


def test_times_are_utc_to_the_millisecond_whatever_zone_they_come_in() -> None:
    paris = timezone(timedelta(hours=1))
    assert documents.utc_time(datetime(2030, 1, 4, 19, 0, 0, 123456, tzinfo=paris)) == "2030-01-04T18:00:00.123Z"
    assert documents.utc_time(datetime(2030, 1, 4, 18, tzinfo=UTC)) == "2030-01-04T18:00:00.000Z"


def test_plain_turns_a_model_into_json_data_field_by_field() -> None:
    @dataclasses.dataclass(frozen=True)
    class Model:
        status: GameStatus
        when: datetime | None
        names: tuple[str, ...]
        share: float

    value = Model(GameStatus.FINISHED, datetime(2030, 1, 4, 18, tzinfo=UTC), ("a", "b"), 0.5)
    assert documents.plain(value) == {
        "status": "finished",
        "when": "2030-01-04T18:00:00.000Z",
        "names": ["a", "b"],
        "share": 0.5,
    }


def test_a_field_added_to_the_rating_row_reaches_the_ratings_json() -> None:
    """The extension point for more rating statistics: a new field of the row is a new key."""

    @dataclasses.dataclass(frozen=True)
    class WiderRow(RatingRow):
        rank_range: tuple[int, int] = (1, 2)

    row = WiderRow(1, "ann", 30.0, 2.0, 24.0, 6, 2.5, 7.5, 1.5)
    (shown,) = documents.ratings("cup", [row])["ratings"]
    assert shown["rank_range"] == [1, 2] and shown["wins"] == 2.5 and shown["average_points"] == 7.5


def test_a_document_that_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError):
        documents.dumps({"mu": float("nan")})
    assert json.loads(documents.dumps({"bot": "änne"})) == {"bot": "änne"}
