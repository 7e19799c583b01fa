"""How the rank statistics are shown (issue 16): the confidence table under the ratings, the
crosstable with its significant cells, and what is shown before anything was played."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType

from arena.cli.views import crosstable_view, ratings_table
from arena.ratings.head_to_head import Crosstable, PairRecord, crosstable
from arena.ratings.played_games import PlayedGame
from arena.ratings.table import RatingRow


def rendered(renderable: RenderableType) -> str:
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def row(rank: int, bot: str, confidence: float | None, bootstrap: float | None = None) -> RatingRow:
    return RatingRow(rank, bot, 30.0 - rank, 1.0, 27.0 - rank, 10, 1.0, 5.0, 2.0, rank, rank + 1, confidence, bootstrap)


def table_rows(text: str, after: str) -> list[list[str]]:
    part = text.split(after, 1)[1]
    return [[c.strip() for c in line.split("│")[1:-1]] for line in part.splitlines() if line.startswith("│")]


def test_the_confidence_table_follows_the_rating_rows_and_never_rounds_to_certainty() -> None:
    text = rendered(ratings_table([row(1, "ann", None), row(2, "bob", 0.9996), row(3, "cy", 0.0001)], "Ratings: x"))
    assert max(len(line) for line in text.splitlines()) <= 80
    sure = table_rows(text, "How sure the ranks are")
    assert sure == [["1", "ann", "1–2", "-"], ["2", "bob", "2–3", ">0.99"], ["3", "cy", "3–4", "<0.01"]]
    assert "bootstrap" not in text


def test_the_bootstrap_column_appears_when_the_rows_have_it() -> None:
    text = rendered(ratings_table([row(1, "ann", None, None), row(2, "bob", 0.7, 0.75)], "Ratings: x"))
    assert table_rows(text, "How sure the ranks are")[1][-1] == "0.75" and "bootstrap" in text


def test_the_crosstable_bolds_significant_cells_and_lists_pairs_best_first() -> None:
    games = [PlayedGame(("ann", "bob", "cy"), (30, 20, 10), (1, 2, 3))] * 8 + [
        PlayedGame(("bob", "cy"), (5, 5), (1, 1))
    ]
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(crosstable_view([row(1, "ann", None), row(2, "bob", 0.9), row(3, "cy", 0.9)], crosstable(games), "t"))
    styled = console.export_text(styles=True, clear=False)
    text = console.export_text()
    matrix = table_rows(text, "t")
    assert matrix[0][:4] == ["1", "ann", "·", "8-0"] and matrix[2][2:] == ["0-8", "0-8-1", "·"]
    assert "\x1b[1m8-0" in styled  # p = 2/256 < 0.05: bold
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Head to head")
    pairs = table_rows("\n".join(lines[start:]), "Head to head")
    assert [p[:2] for p in pairs] == [["ann", "bob"], ["ann", "cy"], ["bob", "cy"]]
    assert pairs[2] == ["bob", "cy", "9", "8", "0", "1", "+8.9", "0.008"]  # (8 × 10 + 0) / 9 points


def test_a_crosstable_before_any_game_says_so() -> None:
    assert rendered(crosstable_view([row(1, "ann", None)], crosstable([]), "Head to head: x")).strip() == (
        "Head to head: x: no games finished yet, so no head-to-head records."
    )


def test_at_80_columns_no_number_is_cut_and_a_matrix_too_wide_says_so() -> None:
    """Issue 35: on an 80-column terminal head-to-head cut its p-values (and its records) to `0.0…`."""
    names = ["cautious-one", "greedy-bot-2", "montecarlo-7f3a", "random-player", "strong-alpha-long"]
    pairs = tuple(
        PairRecord(a, b, 1234, 600, 500, 134, -12.3, 0.0234) for i, a in enumerate(names) for b in names[i + 1 :]
    )
    text = rendered(crosstable_view([], Crosstable(pairs), "Head to head: x"))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    assert "the crosstable of 5 bots is wider than this terminal" in text
    lines = table_rows(text, "record is below.")
    whole = [line for line in lines if line[2]]
    assert len(whole) == len(pairs) and {tuple(line[2:]) for line in whole} == {
        ("1234", "600", "500", "134", "-12.3", "0.023")
    }
    assert sum(1 for line in lines if "strong-alpha" in line[1]) == 4  # a long name folds, never cut


def test_a_matrix_that_fits_is_shown_whole() -> None:
    pairs = (PairRecord("ann", "bob", 12, 7, 5, 0, 1.5, 0.77),)
    text = rendered(crosstable_view([], Crosstable(pairs), "Head to head: x"))
    assert table_rows(text, "Head to head: x")[:2] == [["1", "ann", "·", "7-5"], ["2", "bob", "5-7", "·"]]
    assert "wider than this terminal" not in text
