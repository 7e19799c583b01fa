"""`arena.cli.views`: how the rating table shows wins (a shared first place splits the win)."""

from __future__ import annotations

import pytest
from rich.console import Console

from arena.cli.views import SHARED_WINS, ratings_table, win_decimals
from arena.ratings.table import RatingRow


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
