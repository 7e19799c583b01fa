"""One order of legal actions: the rule docs/protocol.md states is what the engine lists and what
the arena sends with `want_legal_actions`; the forfeit fallback plays the first of them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.api import bot_session_wire as arena_convert
from arena.play.referee import fallback_action
from sdk.engine import Action, Flip, Game, Scout, ScoutShow, Show, observe
from sdk.protocol import DecisionKind, DecisionRequest
from sdk.wire import bot_session_pb2 as session_pb
from sdk.wire.codecs import action_from_pb

from .helpers import random_game

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULE = (
    "flips keep the hand first; then shows by start, and within a start runs before groups (a single card "
    "is a group), each shortest first; then scouts by end (left, right), then turned over (no, yes), then "
    "position; then scout & shows by their scout in that order, then by their show in that order on the new hand"
)
"""The rule as docs/protocol.md words it; `order_key` is this sentence as code."""


def _show_key(tops: list[int], show: Show) -> tuple[int, int, int]:
    cards = tops[show.start : show.start + show.length]
    is_group = len(set(cards)) == 1
    return (show.start, is_group, show.length)


def _scout_key(scout: Scout) -> tuple[int, bool, int]:
    return (int(scout.end), scout.flip, scout.position)


def order_key(game: Game, seat: int, action: Action) -> tuple[Any, ...]:
    """Where `action` stands in the documented order of `seat`'s legal actions."""
    tops = [c[0] for c in game.hands[seat]]
    if isinstance(action, Flip):
        return (0, action.flip)
    if isinstance(action, Show):
        return (1, _show_key(tops, action))
    if isinstance(action, Scout):
        return (2, _scout_key(action))
    assert isinstance(action, ScoutShow)
    scout = action.scout
    card = game.active[0] if scout.end == 0 else game.active[-1]
    new_tops = [*tops[: scout.position], card[1] if scout.flip else card[0], *tops[scout.position :]]
    return (3, _scout_key(scout), _show_key(new_tops, action.show))


def _states() -> list[tuple[Game, int]]:
    """Many states of random games at every table size, each with the seat to decide."""
    out = []
    for players in (2, 3, 4, 5):
        for seed in range(6):
            for steps in range(0, 120, 7):
                game = random_game(players, seed, steps)
                if not game.is_over:
                    out.append((game, game.awaiting[0]))
    return out


def _sent(game: Game, seat: int) -> list[Action]:
    """The legal actions as the arena writes them in a DecisionRequest, decoded."""
    request = DecisionRequest("g", 1, DecisionKind.ACTION, observe(game, seat), 1000, 0)
    batch = session_pb.ArenaBatch.FromString(arena_convert.arena_batch_bytes([request], True))
    return [action_from_pb(a) for a in batch.messages[0].decision_request.legal_actions]


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_protocol_states_the_rule_the_key_implements() -> None:
    assert RULE in _squash((DOCS / "protocol.md").read_text())


@pytest.mark.parametrize("doc", ["bot-guide.md", "engine.md"])
def test_the_other_docs_summarise_the_same_rule(doc: str) -> None:
    text = _squash((DOCS / doc).read_text())
    assert "longest first" not in text
    assert "runs before groups" in text


def test_the_engine_and_the_arena_list_legal_actions_in_the_documented_order() -> None:
    states = _states()
    assert len(states) > 250
    seen_scout_shows = seen_runs_and_groups = 0
    for game, seat in states:
        legal = list(game.legal_actions(seat))
        keys = [order_key(game, seat, a) for a in legal]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), (game.hands[seat], legal)
        assert _sent(game, seat) == legal
        seen_scout_shows += any(isinstance(a, ScoutShow) for a in legal)
        seen_runs_and_groups += len({k[1][1] for k in keys if k[0] == 1}) == 2
    assert seen_scout_shows and seen_runs_and_groups


def test_the_fallback_plays_the_first_action_in_that_order() -> None:
    for game, seat in _states():
        legal = game.legal_actions(seat)
        expected = Flip(False) if isinstance(legal[0], Flip) else legal[0]
        assert fallback_action(game, seat) == expected
