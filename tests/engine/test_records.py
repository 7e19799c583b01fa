"""Game records (docs/rules.md §2 Decision: reproducibility; §9: full record after the game)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sdk.engine import (
    End,
    Flip,
    GameRecord,
    ReplayMismatch,
    Scout,
    ScoutShow,
    Show,
    action_from_dict,
    action_to_dict,
    observe,
    record_of,
    replay,
)

from .helpers import random_game


@pytest.mark.parametrize(
    "action",
    [
        Flip(True),
        Flip(False),
        Show(3, 2),
        Scout(End.LEFT, False, 0),
        Scout(End.RIGHT, True, 7),
        ScoutShow(Scout(End.RIGHT, True, 2), Show(0, 3)),
    ],
)
def test_actions_survive_their_dict_form(action: object) -> None:
    data = action_to_dict(action)  # type: ignore[arg-type]
    assert action_from_dict(json.loads(json.dumps(data))) == action


def test_actions_built_with_plain_ints_record_like_their_enum_form() -> None:
    """A bot may write Scout(1, 0, 2): it equals Scout(End.RIGHT, False, 2) and records as such."""
    assert action_to_dict(Scout(1, 0, 2)) == action_to_dict(Scout(End.RIGHT, False, 2))  # type: ignore[arg-type]
    assert action_to_dict(Flip(1)) == {"flip": True}  # type: ignore[arg-type]
    assert str(Scout(1, 1, 0)) == "scout right turned to 0"  # type: ignore[arg-type]


@pytest.mark.parametrize("data", [{}, {"show": [1]}, {"scout": ["up", True, 0]}, {"show": "x"}])
def test_malformed_actions_are_named(data: dict) -> None:
    with pytest.raises(ValueError, match="malformed action"):
        action_from_dict(data)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_finished_game_replays_exactly_from_its_json_record(players: int) -> None:
    game = random_game(players, 1000 + players)
    record = GameRecord.from_json(record_of(game).to_json())
    assert record == record_of(game)
    again = replay(record)
    assert record_of(again) == record
    assert again.is_over and again.totals == game.totals
    for seat in range(players):
        assert observe(again, seat) == observe(game, seat)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_an_unfinished_game_replays_to_the_same_point(players: int) -> None:
    for steps in (0, 3, players + 5, 60):
        game = random_game(players, 7, steps=steps)
        again = replay(GameRecord.from_json(record_of(game).to_json()))
        assert record_of(again) == record_of(game)


def test_a_tampered_record_does_not_replay() -> None:
    record = record_of(random_game(3, 5))
    wrong_totals = dataclasses.replace(record, totals=tuple(t + 1 for t in record.totals))
    with pytest.raises(ReplayMismatch, match="totals"):
        replay(wrong_totals)
    wrong_seed = dataclasses.replace(record, seed=record.seed + 1)
    with pytest.raises(ReplayMismatch):
        replay(wrong_seed)
    cut = dataclasses.replace(record, actions=record.actions[:-1])
    with pytest.raises(ReplayMismatch):
        replay(cut)


@pytest.mark.parametrize("text", ["not json", "[]", '{"players": 3}'])
def test_malformed_records_are_rejected_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match="record"):
        GameRecord.from_json(text)
