"""The live page's table (arena.web.public_table), folded from public events only, is the engine's
public view after every decision of whole games (docs/rules.md §3–§7, §9)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from arena.web.public_table import fold
from sdk.engine import Game, public_view


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_folded_table_is_the_public_view_after_every_decision(players: int) -> None:
    for seed in range(8):
        rng = random.Random(seed)
        game = Game(players, seed)
        checked = 0
        while True:
            expected = dataclasses.replace(public_view(game), history=())
            assert fold(players, game.events).view() == expected, f"seed {seed}, after {checked} decisions"
            checked += 1
            if game.is_over:
                break
            seat = game.awaiting[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
        assert checked > players * len(game.results)
