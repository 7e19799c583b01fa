"""Scout Arena client SDK: the rules engine, observation and action types, and the Bot class."""

from .bot import Bot
from .engine import Action, End, Flip, Observation, Scout, ScoutShow, Show

__all__ = ["Action", "Bot", "End", "Flip", "Observation", "Scout", "ScoutShow", "Show"]
