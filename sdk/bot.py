"""The one class a bot author subclasses.

>>> from sdk import Bot
>>> class FirstLegal(Bot):
...     def choose(self, obs):
...         return obs.legal_actions[0]

`choose` may also be written `async def`; the runner and local play await it. `flip` is optional
and defaults to keeping the hand as dealt.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable

from .engine import Action, Observation


class Bot(ABC):
    """A SCOUT player. One instance plays every game the runner gives it, possibly several at
    once, and an observation does not say which game it is from: keep no per-game state on the
    instance. Everything a seat may know of its game is in the observation, history included."""

    name: str = ""
    """Shown in tournament tables; defaults to the class name."""
    version: str = "0"

    def __init__(self) -> None:
        if not self.name:
            self.name = type(self).__name__

    @abstractmethod
    def choose(self, obs: Observation) -> Action | Awaitable[Action]:
        """Return one of `obs.legal_actions` (any equal action is fine)."""

    def flip(self, obs: Observation) -> bool | Awaitable[bool]:
        """At the start of each round, after seeing the dealt hand: turn the whole hand over?"""
        return False


async def resolve(value: object) -> object:
    """Await `value` if a bot method returned an awaitable, so sync and async bots look alike."""
    return await value if inspect.isawaitable(value) else value
