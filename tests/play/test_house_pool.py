"""The search bots among the house bots (issue #15): `strong` and `montecarlo` answer legal moves,
thinking in worker processes, and the event loop goes round freely while they think; their move
time counts from the request."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.play import house_pool
from arena.play.house_pool import MIN_BUDGET_S, HousePool, search_bots
from sdk.engine import Flip, Game, observe
from sdk.engine.observation import Observation
from sdk.protocol import DecisionKind

FREE_LOOP = 20
"""Turns of the loop a ticker must get while one search runs: a search on the loop allows none
(the ticker only runs between the request and the answer, around the search)."""


def _observations() -> list[tuple[Observation, DecisionKind]]:
    """A round-start flip request and a play request of a 3-player game."""
    game = Game(3, 2026)
    flip = observe(game, 0)
    for seat in game.awaiting:
        game.apply(seat, Flip(False))
    return [(flip, DecisionKind.FLIP), (observe(game, game.to_move), DecisionKind.ACTION)]


def test_search_bots_think_in_worker_processes_while_the_loop_goes_on() -> None:
    ticks = 0

    async def ticker(stop: asyncio.Event) -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    async def run() -> list[int]:
        pool = HousePool(workers=1)
        stop = asyncio.Event()
        task = asyncio.create_task(ticker(stop))
        free = []
        try:
            for name in search_bots():
                for obs, kind in _observations():
                    before = ticks
                    action = await pool.think(name, 0.1, obs, kind)
                    free.append(ticks - before)
                    if kind is DecisionKind.ACTION:
                        assert action in obs.legal_actions, (name, action)
                    else:
                        assert isinstance(action, Flip)
        finally:
            stop.set()
            await task
            pool.close()
        return free

    free = asyncio.run(run())
    assert all(turns >= FREE_LOOP for turns in free), free
    assert house_pool._bots == {}, "the bots were made in this process, not in the workers"


def test_only_search_bots_go_to_the_pool() -> None:
    obs, kind = _observations()[0]
    with pytest.raises(ValueError, match="'greedy' is not a search bot; the search bots are montecarlo, strong"):
        asyncio.run(HousePool(workers=1).think("greedy", 0.1, obs, kind))


def test_the_move_time_counts_from_the_request_so_a_queued_decision_thinks_less() -> None:
    """A decision that waited in the pool's queue past its move time thinks the minimum only."""
    obs, kind = _observations()[1]
    try:
        for name in search_bots():
            action = house_pool._search(name, time.time() - 10, obs, kind)
            assert action in obs.legal_actions
            assert house_pool._bots[name].move_time == MIN_BUDGET_S  # type: ignore[attr-defined]
    finally:
        house_pool._bots.clear()
