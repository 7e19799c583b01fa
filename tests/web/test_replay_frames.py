"""The replay viewer's frames (arena.web.replay_frames): a finished game told step by step, with
the omniscient table and every seat's own view, as JSON (docs/rules.md §2, §3, §7, §9)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.web.game_json import event_json, table_json
from arena.web.replay_frames import frame_json, replay_frames
from sdk.engine import Card, GameRecord, ReplayMismatch, record_of
from tests.cli.records_fixtures import played
from tests.engine.helpers import random_game

CardId = tuple[int, int]
SEEDS = [987_654_321_012 + i for i in range(4)]
"""Seeds too long to turn up in a frame by chance, so finding one there would be a leak."""


def record(players: int, seed: int) -> GameRecord:
    """A random game's record, through its stored JSON form, as `store.show_game` reads it."""
    return GameRecord.from_json(record_of(random_game(players, seed)).to_json())


def kept_record(players: int, seed: int) -> GameRecord:
    """The same, of a replay whose seat 0 kept its hands of another deal (docs/engine.md)."""
    rec = played(seed, players, kept_seat=0)
    assert rec.kept == (0,)
    return GameRecord.from_json(rec.to_json())


def pairs(obj: Any) -> Iterator[CardId]:
    """Every card ([top, bottom] under a card-holding key) anywhere in a frame's JSON, as its id."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("hand", "captured", "active_set", "cards") and isinstance(value, list):
                yield from (tuple(sorted(c)) for c in value)  # type: ignore[misc]
            elif key == "card":
                yield tuple(sorted(value))  # type: ignore[misc]
            else:
                yield from pairs(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from pairs(item)


def seat_view(frame: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """A seat's whole view of a frame, its table and news filled in where given once for all."""
    return {"table": frame["public"], "news": frame["events"], **view}


def keys(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from keys(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from keys(item)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("make", [record, kept_record])
def test_the_frames_end_at_the_records_result(players: int, make: Callable[[int, int], GameRecord]) -> None:
    for seed in SEEDS:
        rec = make(players, seed)
        frames = [frame_json(f) for f in replay_frames(rec)]
        last = frames[-1]
        assert last["phase"] == "over"
        assert [s["total"] for s in last["seats"]] == list(rec.totals)
        assert [r["scores"] for r in last["results"]] == [list(r.scores) for r in rec.results]
        # A frame per deal, per flip decision and per action; moves in record order.
        assert len(frames) == len(rec.deals) + players * len(rec.flips) + len(rec.actions)
        plays = [
            (f["round"], f["move"]["seat"], f["move"]["action"])
            for f in frames
            if f["move"] is not None and "flip" not in f["move"]["action"]
        ]
        assert plays == [(r, s, a) for r, s, a in rec.to_dict()["actions"]]
        deals = [f for f in frames if f["move"] is None]
        assert [[s["hand"] for s in f["seats"]] for f in deals] == rec.to_dict()["deals"]
        # §7: each round's last frame shows the table the round ended with, hand sizes and all.
        ends = [f for f in frames if f["phase"] in ("round_over", "over")]
        assert len(ends) == len(rec.results)
        for f, result in zip(ends, rec.results, strict=False):
            assert [len(s["hand"]) for s in f["seats"]] == list(result.hand_sizes)
            assert f["events"][-1]["type"] == "round_ended"
            assert f["events"][-1]["scores"] == list(result.scores)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_flip_frames_turn_the_hand_over_keeping_its_order(players: int) -> None:
    """docs/rules.md §3: a flip swaps every card's top and bottom and keeps the left-to-right order."""
    rec = record(players, seed=SEEDS[3])
    frames = [frame_json(f) for f in replay_frames(rec)]
    for f in frames:
        move = f["move"]
        if move is None or "flip" not in move["action"]:
            continue
        dealt = rec.deals[f["round"]][move["seat"]]
        expected = [c.turned() if move["action"]["flip"] else c for c in dealt]
        assert f["seats"][move["seat"]]["hand"] == [list(c) for c in expected]
        assert f["seats"][move["seat"]]["flipped"] is move["action"]["flip"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_seat_view_holds_its_own_hand_and_no_hidden_card(players: int) -> None:
    """docs/rules.md §9: a seat sees its own hand and the cards shown or scouted this round, never a
    card still hidden in another hand, nor another seat's flip before the reveal, nor the seed."""
    for seed in SEEDS:
        rec = record(players, seed)
        public: set[CardId] = set()
        for frame in replay_frames(rec):
            f = frame_json(frame)
            for event in f["events"]:
                if event["type"] == "round_started":
                    public = set()
                public.update(pairs(event))
            for given in f["views"]:
                view = seat_view(f, given)
                seat = view["seat"]
                assert view["hand"] == f["seats"][seat]["hand"]
                hidden = {Card(*c).id for s in f["seats"] if s["seat"] != seat for c in s["hand"]} - public
                shown = set(pairs(view))
                assert not shown & hidden, f"frame {f['index']}: seat {seat} sees hidden cards {shown & hidden}"
                assert shown <= {Card(*c).id for c in view["hand"]} | public
                if f["phase"] == "flip":
                    for other in view["table"]["seats"]:
                        if other["seat"] != seat:
                            assert other["flipped"] is None
                assert "seed" not in set(keys(view))
                assert str(rec.seed) not in json.dumps(view)


@pytest.mark.parametrize("players", [3, 5])
def test_a_view_given_once_for_all_seats_is_each_seats_own(players: int) -> None:
    """The JSON gives a table or events shared by every seat once; filled back in, each seat's
    view is exactly its observation (sdk.engine.observe) and the events new in its history."""
    for frame in replay_frames(record(players, SEEDS[1])):
        f = frame_json(frame)
        for s, given in enumerate(f["views"]):
            view = seat_view(f, given)
            assert view["table"] == table_json(frame.views[s].table)
            assert view["news"] == [event_json(e) for e in frame.news[s]]
            assert view["hand"] == [list(c) for c in frame.views[s].hand]


def test_the_check_sees_a_hidden_card() -> None:
    """The leak check above is not vacuous: another seat's hand put in a view is found."""
    rec = record(4, seed=SEEDS[1])
    f = frame_json(replay_frames(rec)[0])
    view = seat_view(f, f["views"][0])
    assert {Card(*c).id for c in f["seats"][1]["hand"]} & set(
        pairs({**view, "news": [{"cards": f["seats"][1]["hand"]}]})
    )
    assert not {Card(*c).id for c in f["seats"][1]["hand"]} & set(pairs(view))


def test_scout_frame_puts_the_card_where_the_event_says() -> None:
    """docs/rules.md §4.2: the scouted card goes into the scouter's hand at the position, as turned."""
    rec = record(3, seed=SEEDS[2])
    frames = [frame_json(f) for f in replay_frames(rec)]
    scouts = [
        (before, f) for before, f in itertools.pairwise(frames) if f["events"] and f["events"][0]["type"] == "scouted"
    ]
    assert scouts
    for before, f in scouts:
        e = f["events"][0]
        assert f["seats"][e["seat"]]["hand"][e["position"]] == e["card"]
        assert len(f["seats"][e["seat"]]["hand"]) == len(before["seats"][e["seat"]]["hand"]) + 1
        assert len(f["active_set"]) == len(before["active_set"]) - 1


def test_a_record_that_does_not_replay_is_refused() -> None:
    rec = record(3, seed=SEEDS[0])
    forged = GameRecord(
        rec.players, rec.seed, rec.deals, rec.flips, rec.actions, rec.results, (rec.totals[0] + 1, *rec.totals[1:])
    )
    with pytest.raises(ReplayMismatch):
        replay_frames(forged)
