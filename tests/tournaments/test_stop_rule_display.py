"""How a stop-rule tournament's pairs are shown (issue #34): a pair proven equal reads "equal" in
`tournament show` and `ratings` (text and --json), on the wire and on the web page's progress box,
and an open pair says about how many more games it needs."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console

from arena import documents
from arena.api.arena_wire import _verdict_to_pb
from arena.cli.remote_wire import _verdict_from_pb
from arena.cli.views import pair_line, ratings_table, stop_table
from arena.ratings.table import RatingRow
from arena.records import GameCounts, Tournament, TournamentStatus
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.stop_rule import PairCheck, StopOutcome, StopRule, Verdict
from arena.web.templating import make_templates

VERDICT = Verdict(
    rounds=3,
    games=30,
    outcome=StopOutcome.PLAYING,
    pairs=(
        PairCheck("ann", "bob", 20, 2, True),
        PairCheck("bob", "cy", 11, 10, False, equal=True),
        PairCheck("cy", "dee", 9, 6, False, games_needed=140),
    ),
    order=("ann", "bob", "cy", "dee"),
)


def rendered(renderable: object) -> str:
    console = Console(width=120, record=True)
    console.print(renderable)
    return console.export_text()


def test_each_pair_reads_settled_equal_or_open_with_the_games_it_needs() -> None:
    lines = [pair_line(p) for p in VERDICT.pairs]
    assert lines[0].startswith("ann above bob: settled")
    assert lines[1].startswith("bob and cy: equal")
    assert lines[2].startswith("cy above dee: open") and "about 140 more games" in lines[2]
    assert [p.state for p in VERDICT.pairs] == ["settled", "equal", "open"]
    assert VERDICT.unsettled == (VERDICT.pairs[2],)


def test_ratings_show_the_pairs_under_the_table() -> None:
    rows = [RatingRow(i + 1, b, 25.0, 1.0, 22.0, 30, 1.0, 10.0, 2.0) for i, b in enumerate(VERDICT.order)]
    text = rendered(ratings_table(rows, "Ratings", VERDICT))
    assert "bob and cy" in text and "equal" in text and "~140" in text
    assert "equal" not in rendered(ratings_table(rows, "Ratings"))
    assert "ann above bob" in rendered(stop_table(VERDICT))
    document = documents.ratings("t", rows, VERDICT)
    assert [(p["settled"], p["equal"], p["games_needed"]) for p in document["stop"]["pairs"]] == [
        (True, False, None),
        (False, True, None),
        (False, False, 140),
    ]
    assert "stop" not in documents.ratings(None, rows)


def test_the_wire_keeps_equal_the_estimate_and_the_order() -> None:
    assert _verdict_from_pb(_verdict_to_pb(VERDICT)) == VERDICT


def test_the_web_progress_box_lists_the_pairs() -> None:
    t = Tournament(
        id=1,
        name="t",
        table_size=4,
        games_per_table=1,
        starts_at=datetime(2026, 1, 1, tzinfo=UTC),
        move_limit_ms=1000,
        concurrency=1,
        seed=None,
        status=TournamentStatus.RUNNING,
        failure_policy=FailurePolicy(),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=None,
        entrants=VERDICT.order,
        games=GameCounts(finished=30),
        stop_rule=StopRule(),
        stop=VERDICT,
    )
    html = make_templates().get_template("partials/progress.html").render(t=t, live=False)
    assert 'data-state="equal"' in html and "bob and cy" in html
    assert 'data-state="open"' in html and ">140<" in html
    assert "not settled yet: playing on" in html
