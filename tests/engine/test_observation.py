"""docs/rules.md §9: what each player may know. (Randomised hidden-information properties live in
test_properties.py.)"""

from __future__ import annotations

import dataclasses
import random

import pytest

from sdk.engine import (
    End,
    Flip,
    Game,
    Observation,
    Phase,
    PlayerView,
    PublicView,
    RoundEnded,
    Scouted,
    Shown,
    observe,
    public_view,
)

from .helpers import (
    card,
    card_ids,
    cards,
    current_round_events,
    hidden_cards,
    ints_in,
    play,
    public_card_ids,
    random_game,
    reference_set_aside,
    scout,
    show,
    table,
)


def test_9_observation_holds_own_hand_and_the_public_table() -> None:
    game = table(3, ["6/1 7/2 3/4", "1/3 2/5", "4/5 5/8 8/9"])
    play(game, show(0, 2), scout(End.RIGHT, True, 1))
    obs = observe(game, 2)
    assert obs.seat == 2 and obs.hand == tuple(cards("4/5 5/8 8/9"))  # both values of own cards
    assert obs.my_turn and set(obs.legal_actions) == set(game.legal_actions(2))
    table_ = obs.table
    assert table_.active_set == (card("6/1"),) and table_.active_owner == 0
    assert not table_.active_set_empty
    assert (table_.round, table_.rounds, table_.first_player, table_.to_move) == (0, 3, 0, 2)
    assert table_.phase is Phase.PLAY and table_.round_actions == 2
    assert [(v.hand_size, v.captured, v.scout_chips, v.has_scout_show, v.flipped) for v in table_.seats] == [
        (1, 0, 1, True, False),
        (3, 0, 0, True, False),
        (3, 0, 0, True, False),
    ]
    # A show is public as (start, length, cards); a scout in full.
    assert table_.history[-2:] == (
        Shown(0, 0, (card("6/1"), card("7/2"))),
        Scouted(1, End.RIGHT, True, card("2/7"), 1),
    )
    assert observe(game, 0).legal_actions == () and not observe(game, 0).my_turn


def test_9_observation_types_have_room_for_one_hand_only() -> None:
    """Hidden information is structural: only Observation.hand can hold a hand's cards."""
    assert [f.name for f in dataclasses.fields(Observation)] == ["seat", "hand", "legal_actions", "table"]
    assert {f.name for f in dataclasses.fields(PublicView)} == {
        "players",
        "round",
        "rounds",
        "first_player",
        "phase",
        "to_move",
        "active_set",
        "active_owner",
        "seats",
        "round_actions",
        "history",
    }
    assert {f.name for f in dataclasses.fields(PlayerView)} == {
        "seat",
        "hand_size",
        "captured",
        "scout_chips",
        "has_scout_show",
        "flipped",
        "round_scores",
        "total",
    }


def test_9_observe_names_a_bad_seat() -> None:
    with pytest.raises(ValueError, match="no seat 3"):
        observe(Game(3, 0), 3)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_9_observations_never_contain_the_seed(players: int) -> None:
    seed = 0x5EED_1234_5678_9ABC
    game = Game(players, seed)
    rng = random.Random(1)
    while not game.is_over:
        for seat in range(players) if rng.random() < 0.2 else ():
            obs = observe(game, seat)  # earlier rounds' history is checked once, at the end
            recent = tuple(current_round_events(obs.table.history))
            assert seed not in ints_in(dataclasses.replace(obs, table=dataclasses.replace(obs.table, history=recent)))
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    assert seed not in ints_in(public_view(game))
    for seat in range(players):
        assert seed not in ints_in(observe(game, seat))


def test_9_two_players_set_aside_cards_are_never_observed_in_round_1() -> None:
    for seed in range(10):
        game = Game(2, seed)
        hidden = {c.id for c in reference_set_aside(seed)}
        rng = random.Random(seed)
        while game.round == 0:
            for seat in (0, 1):
                assert card_ids(observe(game, seat)).isdisjoint(hidden)
            seat = game.awaiting[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])


def test_9_round_end_reveals_only_hand_sizes() -> None:
    """2 players: the cards left in hands at the end of round 1 are out of play for good, so any
    trace of them in round 2 would be a leak."""
    for seed in range(10):
        game = Game(2, seed)
        rng = random.Random(seed)
        last: dict[int, set[tuple[int, int]]] = {}
        while game.round == 0:
            if game.phase is Phase.PLAY:
                last = {viewer: {game.hands[s][i].id for s, i in hidden_cards(game, viewer)} for viewer in (0, 1)}
            legal = game.legal_actions(game.awaiting[0])
            game.apply(game.awaiting[0], legal[rng.randrange(len(legal))])
        ended = [e for e in public_view(game).history if isinstance(e, RoundEnded)]
        assert len(ended) == 1 and not card_ids(ended[0])
        for viewer in (0, 1):
            # The last action may have revealed some of them (a show): only never-shown ones count.
            still_hidden = last[viewer] - {
                c.id for e in public_view(game).history if isinstance(e, Shown) for c in e.cards
            }
            assert card_ids(observe(game, viewer)).isdisjoint(still_hidden)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_9_the_public_view_holds_no_card_from_a_hand_unless_it_was_public(players: int) -> None:
    game = Game(players, 8)
    rng = random.Random(8)
    while not game.is_over:
        if rng.random() > 0.3:
            seat = game.awaiting[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
            continue
        view = public_view(game)
        current = dataclasses.replace(view, history=tuple(current_round_events(view.history)))
        assert card_ids(current) <= public_card_ids(game)
        in_hands = {c.id for h in game.hands for c in h}
        assert card_ids(current) & in_hands <= public_card_ids(game)
        assert all(v.flipped is None for v in view.seats) or game.phase is not Phase.FLIP
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])


def test_9_flip_decisions_appear_in_the_history_once_revealed() -> None:
    game = Game(3, 2)
    for seat, flip in enumerate((True, False, True)):
        game.apply(seat, Flip(flip))
    assert [v.flipped for v in public_view(game).seats] == [True, False, True]


def test_9_every_seat_sees_everyones_round_scores_and_totals() -> None:
    game = random_game(4, 12)
    for viewer in range(4):
        for view in observe(game, viewer).table.seats:
            assert view.round_scores == tuple(r.scores[view.seat] for r in game.results)
            assert view.total == game.totals[view.seat]


def test_with_history_replaces_the_history_and_nothing_else() -> None:
    """§9: the SDK rebuilds an observation from the wire's parts; no field may be dropped or moved."""
    game = Game(4, 11)
    for seat in game.awaiting:
        game.apply(seat, Flip(seat % 2 == 0))
    obs = observe(game, game.to_move)
    stripped = dataclasses.replace(obs, table=dataclasses.replace(obs.table, history=()))
    history = tuple(game.events)
    assert stripped.with_history(history) == obs
    assert stripped.with_history(history).table.history is history


@pytest.mark.parametrize("steps", [3, 40, None])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_9_every_public_field_says_what_its_name_says(players: int, steps: int | None) -> None:
    """Views are built positionally for speed; each field is checked against the game by name."""
    game = random_game(players, 7, steps)
    for viewer in (None, *range(players)):
        view = public_view(game, viewer)
        assert (view.players, view.round, view.rounds, view.first_player) == (
            players,
            game.round,
            game.rules.rounds,
            game.round % players,
        )
        assert (view.phase, view.active_set, view.active_owner, view.round_actions) == (
            game.phase,
            tuple(game.active),
            game.owner,
            game.round_actions,
        )
        assert view.to_move == (game.to_move if game.phase is Phase.PLAY else None)
        assert view.history == tuple(game.events)
        for s, seat in enumerate(view.seats):
            assert (seat.seat, seat.hand_size, seat.captured, seat.scout_chips, seat.has_scout_show, seat.total) == (
                s,
                len(game.hands[s]),
                len(game.captured[s]),
                game.chips[s],
                game.scout_show[s],
                game.totals[s],
            )
            assert seat.round_scores == tuple(r.scores[s] for r in game.results)
