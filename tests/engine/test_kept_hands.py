"""Kept hands (sdk/engine/deal.py): a tournament's replay of a voided attempt deals the failing seat
its hands again and the others fresh cards from the rest of the deck (docs/security.md, "Voids
cannot be bought"), by a procedure that reduces to the plain deal of docs/rules.md §2 when nothing is
kept."""

from __future__ import annotations

import pytest

from sdk.engine import Flip, Game, GameRecord, Phase, ReplayMismatch, deal_rounds, record_of, replay, table_rules
from sdk.engine.deal import Kept

from .helpers import random_game, reference_deals


def kept_of(players: int, seed: int, seats: set[int]) -> Kept:
    return {s: tuple(deal[s] for deal in deal_rounds(players, seed)) for s in seats}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("choice", ["first", "last", "all but the last", "all"])
def test_kept_seats_get_their_hands_and_the_others_the_rest_of_the_deck(players: int, choice: str) -> None:
    chosen = {
        "first": {0},
        "last": {players - 1},
        "all but the last": set(range(players - 1)),
        "all": set(range(players)),
    }[choice]
    kept = kept_of(players, 11, chosen)
    deals = deal_rounds(players, 99, kept)
    rules = table_rules(players)
    deck = sorted(c.id for c in rules.deck)
    assert all(deals[r][s] == kept[s][r] for r in range(rules.rounds) for s in chosen)
    if rules.two_player:
        assert sorted(c.id for deal in deals for hand in deal for c in hand) == deck
    else:
        assert all(sorted(c.id for hand in deal for c in hand) == deck for deal in deals)
    fresh = deal_rounds(players, 99)
    others = [s for s in range(players) if s not in chosen]
    if others:
        assert any(deals[r][s] != fresh[r][s] for r in range(rules.rounds) for s in others), (
            "the others share what the kept hands leave, shuffled anew"
        )


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_nothing_kept_is_the_plain_deal(players: int) -> None:
    """§2 Decision (reproducibility): the independent re-implementation of the plain deal agrees."""
    for seed in (0, 7, 2**63 - 1):
        expected = reference_deals(players, seed)
        assert [[list(h) for h in deal] for deal in deal_rounds(players, seed, {})] == expected
        assert [list(h) for h in Game(players, seed, kept={}).deals[0]] == expected[0]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_with_kept_hands_records_and_replays_them(players: int) -> None:
    kept = kept_of(players, 5, {players - 1})
    game = Game(players, 8, kept=kept)
    while not game.is_over:
        seat = game.awaiting[0]
        game.apply(seat, Flip(False) if game.phase is Phase.FLIP else game.legal_actions()[0])
    record = record_of(game)
    assert record.kept == (players - 1,) and record.deals == deal_rounds(players, 8, kept)
    assert record.kept_hands() == kept
    assert GameRecord.from_json(record.to_json()) == record == GameRecord.from_dict(record.to_dict())
    assert record_of(replay(record)) == record


def test_a_record_without_kept_seats_keeps_its_json() -> None:
    record = record_of(random_game(4, 3))
    assert record.kept == () and '"kept"' not in record.to_json() and "kept" not in record.to_dict()


def test_a_record_whose_kept_hands_do_not_fit_does_not_replay() -> None:
    game = Game(3, 8, kept=kept_of(3, 5, {0}))
    while not game.is_over:
        seat = game.awaiting[0]
        game.apply(seat, Flip(False) if game.phase is Phase.FLIP else game.legal_actions()[0])
    record = record_of(game)
    forged = GameRecord.from_dict({**record.to_dict(), "kept": [1]})
    with pytest.raises(ReplayMismatch):
        replay(forged)


@pytest.mark.parametrize(
    ("kept", "message"),
    [
        ({3: kept_of(3, 1, {0})[0]}, "seat 3"),
        ({0: kept_of(3, 1, {0})[0][:2]}, "not 3 hands"),
        ({0: kept_of(3, 1, {0})[0], 1: kept_of(3, 1, {0})[0]}, "twice"),
        ({0: tuple((h[0],) * 12 for h in kept_of(3, 1, {0})[0])}, "twice"),
    ],
)
def test_kept_hands_that_do_not_fit_the_table_are_refused(kept: Kept, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deal_rounds(3, 1, kept)
    with pytest.raises(ValueError, match=message):
        Game(3, 1, kept=kept)
