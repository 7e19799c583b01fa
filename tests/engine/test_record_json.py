"""The record's JSON text (docs/engine.md): `to_json` assembles it from precomputed strings, so it is
checked against the plain encoding of `to_dict`, and every record must read back equal."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given
from hypothesis import strategies as st

from sdk.engine import End, Flip, GameRecord, Scout, ScoutShow, Show, record_of
from sdk.engine.cards import Card

from .helpers import random_game


def plain_json(record: GameRecord) -> str:
    return json.dumps(record.to_dict(), separators=(",", ":"))


@given(st.integers(2, 5), st.integers(0, 2**63), st.one_of(st.none(), st.integers(0, 120)))
def test_json_is_the_plain_encoding_and_reads_back(players: int, seed: int, steps: int | None) -> None:
    record = record_of(random_game(players, seed, steps=steps))
    text = record.to_json()
    assert text == plain_json(record)
    assert GameRecord.from_json(text) == record


def hand_built(actions: tuple, deals: tuple = (((Card(1, 2), Card(9, 3)), (Card(4, 5),)),)) -> GameRecord:
    return GameRecord(
        players=2, seed=-7, deals=deals, flips=((True, False),), actions=actions, results=(), totals=(0, 0)
    )


def test_actions_outside_the_precomputed_tables_are_encoded_too() -> None:
    """Hand-built records may hold what no game logs: large or negative numbers, late rounds, flips."""
    record = hand_built(
        (
            (0, 1, Show(50, 2)),
            (9, 0, Scout(End.LEFT, True, -1)),
            (1, 7, ScoutShow(Scout(End.RIGHT, False, 99), Show(0, 1))),
            (2, 1, Flip(True)),
        ),
        deals=(((Card(0, 12), Card(1, 2)),),),
    )
    text = record.to_json()
    assert text == plain_json(record)
    assert GameRecord.from_json(text) == record


def test_actions_built_with_plain_ints_encode_like_their_enum_form() -> None:
    with_ints = hand_built(((0, 1, Scout(1, 0, 2)), (0, 0, ScoutShow(Scout(0, 1, 0), Show(1, 2)))))  # type: ignore[arg-type]
    with_enums = hand_built(
        ((0, 1, Scout(End.RIGHT, False, 2)), (0, 0, ScoutShow(Scout(End.LEFT, True, 0), Show(1, 2))))
    )
    assert with_ints.to_json() == with_enums.to_json() == plain_json(with_enums)


def test_numbers_in_actions_are_written_as_integers() -> None:
    """The one difference from the plain encoding: a bool where an int belongs is written as the int."""
    record = hand_built(((0, 1, Show(True, 2)),))  # type: ignore[arg-type]
    assert '[0,1,{"show":[1,2]}]' in record.to_json()
    assert GameRecord.from_json(record.to_json()) == record


def test_an_empty_record_encodes() -> None:
    record = dataclasses.replace(hand_built(()), deals=(), flips=())
    assert record.to_json() == plain_json(record)
    assert GameRecord.from_json(record.to_json()) == record
