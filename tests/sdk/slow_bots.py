"""Bots that play one quick game and then think for a minute per move: for Ctrl-C tests.

Each writes ``SLOW`` to stderr when it starts thinking, so a test knows a game has finished and the
command is busy inside the bot."""

from __future__ import annotations

import asyncio
import sys
import time

from sdk import Action, Bot, Observation


class _QuickFirstGame(Bot):
    """Quick for as many flips as one game has (`players` rounds), slow after."""

    players = 2

    def __init__(self) -> None:
        super().__init__()
        self.flips = 0

    def flip(self, obs: Observation) -> bool:
        self.flips += 1
        return False

    def slow_now(self) -> bool:
        if self.flips <= self.players:
            return False
        print("SLOW", file=sys.stderr, flush=True)
        return True


class SlowSync(_QuickFirstGame):
    def choose(self, obs: Observation) -> Action:
        if self.slow_now():
            time.sleep(60)
        return obs.legal_actions[0]


class SlowAsync(_QuickFirstGame):
    async def choose(self, obs: Observation) -> Action:
        if self.slow_now():
            await asyncio.sleep(60)
        return obs.legal_actions[0]
