"""`tournament create --starts-at`: the forms it takes, and a start time in the past refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import typer

from arena.cli.app import PAST_TOLERANCE, parse_start
from tests.cli.conftest import arena_cli, assert_one_line_error

NOW = datetime(2030, 1, 4, 18, 0, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("+10m", NOW + timedelta(minutes=10)),
        ("2030-01-04T19:00:00Z", datetime(2030, 1, 4, 19, tzinfo=UTC)),
        ("2030-01-04T20:00:00+01:00", datetime(2030, 1, 4, 19, tzinfo=UTC)),
        ("2030-01-04T18:00Z", datetime(2030, 1, 4, 18, tzinfo=UTC)),  # this minute, typed to the minute
    ],
)
def test_start_times(text: str, expected: datetime) -> None:
    assert parse_start(text, NOW) == expected


@pytest.mark.parametrize("text", ["2030-01-04T17:59:00Z", "2029-01-04T18:00:00Z", "2030-01-04T18:00:00+01:00"])
def test_a_start_time_in_the_past_is_refused(text: str) -> None:
    with pytest.raises(
        typer.BadParameter,
        match=r"is in the past \(it is 2030-01-04 18:00 UTC\): give a later time "
        r"such as \+10m, or 'now' to start at once",
    ):
        parse_start(text, NOW)
    assert parse_start(text, datetime.fromisoformat(text) + PAST_TOLERANCE) is not None


def test_the_command_refuses_a_past_start_in_one_line_before_it_needs_an_arena() -> None:
    code, output = arena_cli("tournament", "create", "cup", "--starts-at", "2020-01-01T00:00:00Z", "--db", "nowhere.db")
    assert code == 2
    assert_one_line_error(output, "Invalid value for --starts-at: 2020-01-01 00:00 UTC is in the past (it is ")
