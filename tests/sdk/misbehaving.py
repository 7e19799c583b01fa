"""Bots that break the rules in one specific way each, for local play, conformance and CLI tests."""

from __future__ import annotations

import asyncio
import threading

from sdk import Action, Bot, Observation, Show


class FirstLegal(Bot):
    """Always the first legal action; keeps the dealt hand."""

    def choose(self, obs: Observation) -> Action:
        return obs.legal_actions[0]


class AsyncFirstLegal(Bot):
    """`FirstLegal`, written with `async def`."""

    async def choose(self, obs: Observation) -> Action:
        await asyncio.sleep(0)
        return obs.legal_actions[0]

    async def flip(self, obs: Observation) -> bool:
        await asyncio.sleep(0)
        return False


class ShowsTooMuch(FirstLegal):
    """Tries to show more cards than it holds once the round is under way."""

    def choose(self, obs: Observation) -> Action:
        return Show(0, 99)


class AnswersWithIndex(FirstLegal):
    """Returns the index of an action instead of the action."""

    def choose(self, obs: Observation) -> Action:
        return 0  # type: ignore[return-value]


class FlipsWithString(FirstLegal):
    """Answers the flip question with a string."""

    def flip(self, obs: Observation) -> bool:
        return "no"  # type: ignore[return-value]


class CrashesAtFivePlayers(FirstLegal):
    """Fine at 2-4 players; divides by zero at a 5-player table."""

    def choose(self, obs: Observation) -> Action:
        if obs.table.players == 5:
            return obs.legal_actions[1 // (obs.table.players - 5)]
        return obs.legal_actions[0]


class Sleeper(FirstLegal):
    """Sync bot that blocks on `release` before every answer: never, until a test sets it."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def flip(self, obs: Observation) -> bool:
        self.release.wait()
        return False


class AsyncSleeper(FirstLegal):
    """Async bot whose flip awaits forever."""

    async def flip(self, obs: Observation) -> bool:
        await asyncio.Event().wait()
        return False
