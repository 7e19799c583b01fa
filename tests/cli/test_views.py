"""`arena.cli.views`: how the rating table shows wins (a shared first place splits the win), and what
the tournament, games and voided-attempt views print."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.console import Console

from arena.cli.views import (
    SHARED_WINS,
    game_header,
    games_table,
    ratings_table,
    tournament_view,
    voided_lines,
    win_decimals,
)
from arena.ratings.table import RatingRow
from arena.records import GameStatus
from tests.cli.records_fixtures import finished_detail, played, tournament, voided_attempt


def row(bot: str, wins: float) -> RatingRow:
    return RatingRow(1, bot, 25.0, 2.0, 19.0, 24, wins, 3.0, 2.0)


def rendered(*rows: RatingRow) -> tuple[dict[str, str], str]:
    """The wins cell of each bot, and the whole output."""
    console = Console(width=120, record=True)
    console.print(ratings_table(rows, "Ratings"))
    text = console.export_text()
    ratings = text.split("How sure the ranks are")[0]  # the rank confidence table follows
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in ratings.splitlines() if line.startswith("│")]
    return {c[1]: c[6] for c in cells}, text


@pytest.mark.parametrize(("wins", "decimals"), [([11, 12, 0], 0), ([11, 12.5], 1), ([11, 12 + 1 / 3], 2), ([], 0)])
def test_one_number_of_decimals_fits_every_count(wins: list[float], decimals: int) -> None:
    assert win_decimals(wins) == decimals


def test_whole_wins_are_whole_numbers_and_need_no_caption() -> None:
    cells, text = rendered(row("ann", 11.0), row("bob", 12.0))
    assert cells == {"ann": "11", "bob": "12"} and SHARED_WINS not in text


def test_a_shared_win_gives_the_whole_column_its_decimals_and_a_caption() -> None:
    cells, text = rendered(row("ann", 11.0), row("bob", 12.5))
    assert cells == {"ann": "11.0", "bob": "12.5"}
    assert SHARED_WINS in " ".join(text.split())
    cells, _ = rendered(row("ann", 11.0), row("bob", 12 + 1 / 3), row("cy", 2 / 3))
    assert cells == {"ann": "11.00", "bob": "12.33", "cy": "0.67"}


def text_of(renderable: object) -> str:
    console = Console(width=160, record=True)
    console.print(renderable)
    return console.export_text()


def test_a_tournament_shows_its_stored_failure_policy_and_progress() -> None:
    shown = text_of(tournament_view(tournament()))
    facts = {
        line.split("  ", 1)[0].strip(): line.split("  ", 1)[1].strip() for line in shown.splitlines() if "  " in line
    }
    assert facts["move limit"] == "1500 ms" and facts["concurrency"] == "2 games at once"
    assert facts["on timeout"] == "void the game and play it again"
    assert facts["on illegal"] == "forfeit the seat"
    assert facts["replays"] == "a game is voided at most 4 times, then its failures forfeit"
    assert facts["entrants"] == "ann, bob, cy" and facts["progress"] == "2/6 games"
    assert "2 finished, 1 running, 3 waiting" in shown
    assert facts["seed"] == "secret until the tournament finishes" and facts["seed commitment"] == "c0ffee"


def test_the_games_table_shows_points_ranks_and_the_forfeit_cause() -> None:
    detail = finished_detail(played(seed=9), forfeit=1)
    row = next(line for line in text_of(games_table([detail.info])).splitlines() if line.startswith("│ 12"))
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[:5] == ["12", "cup", "2", "1", "finished"]  # counted from 1, as the web counts them
    for s in detail.info.results:
        assert f"{s.bot}: {s.points} ({s.rank}" in cells[5]
    assert "bob: " in cells[5] and "forfeit: timeout" in cells[5].split("bob: ")[1].split(")")[0]


def test_an_unfinished_game_keeps_its_seed_secret_in_the_header() -> None:
    info = finished_detail(played(seed=4)).info
    assert "seed 4," in game_header(info)
    hidden = game_header(replace(info, seed=None, status=GameStatus.RUNNING, attempts=2))
    assert "seed 4" not in hidden and hidden.startswith("Game 12: tournament cup, table 2, game 1, seed ")
    assert hidden.endswith("3 players: ann, bob, cy, played 2 times (the others were interrupted or voided)")


def test_a_voided_attempt_names_who_failed_how_and_the_decision() -> None:
    (line,) = voided_lines([voided_attempt(played(seed=2))])
    assert line == "Attempt 1 (seed 99) voided 2030-01-04 18:00 UTC: bob (seat 1) disconnected: gone [void]"
