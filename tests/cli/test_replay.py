"""`arena.cli.replay`: a finished game told move by move from its record (docs/rules.md §3–§8 events)."""

from __future__ import annotations

from dataclasses import replace

from arena.cli.replay import replay_lines
from arena.records import GameStatus
from tests.cli.records_fixtures import SEATS, finished_detail, played


def test_every_round_shows_its_deal_first_player_and_end() -> None:
    record = played(seed=7)
    lines = replay_lines(finished_detail(record))
    starts = [i for i, line in enumerate(lines) if line.startswith("Round ")]
    assert len(starts) == len(record.results) == record.players  # docs/rules.md §8: one round per player
    for r, i in enumerate(starts):
        assert lines[i].startswith(f"Round {r + 1}: ") and lines[i].endswith("plays first; the deal:")
        for seat, hand in enumerate(record.deals[r]):
            assert lines[i + 1 + seat] == f"  {SEATS[seat]:<3}  {' '.join(f'{c.top}/{c.bottom}' for c in hand)}"
    ends = [line for line in lines if line.startswith("  round over: ")]
    assert [line.split(";")[0] for line in ends] == [f"  round over: {r.reason.value}" for r in record.results]


def test_every_action_of_the_record_is_one_numbered_line() -> None:
    record = played(seed=11)
    lines = replay_lines(finished_detail(record))
    moves = [line for line in lines if line[:6].strip().rstrip(".").isdigit()]
    assert len(moves) == len(record.actions)
    assert all(line.split(". ", 1)[1].split()[0] in SEATS for line in moves)


def test_the_result_lists_seats_by_rank_with_points_and_forfeits() -> None:
    record = played(seed=3)
    lines = replay_lines(finished_detail(record, forfeit=0))
    result = lines[lines.index("Result:") + 1 :]
    assert len(result) == 3
    assert result[-1].startswith("  3. ann") and "(forfeited: timeout: no legal answer in time)" in result[-1]
    points = {line.split()[1]: int(line.split()[2]) for line in result}
    assert points == {bot: record.totals[s] for s, bot in enumerate(SEATS)}


def test_a_replay_that_kept_a_seats_hands_is_shown_as_dealt() -> None:
    """A replay's record keeps seat 1's hands of another deal (docs/engine.md): shown as dealt."""
    record = played(seed=11, kept_seat=1)
    lines = replay_lines(finished_detail(record))
    moves = [line for line in lines if line[:6].strip().rstrip(".").isdigit()]
    assert len(moves) == len(record.actions)


def test_an_unfinished_game_has_no_moves_to_show() -> None:
    detail = finished_detail(played())
    running = replace(detail, info=replace(detail.info, status=GameStatus.RUNNING), record=None)
    assert replay_lines(running) == ["game 12 is running: its moves are shown once it is finished"]
