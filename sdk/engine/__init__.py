"""The SCOUT rules engine: pure, fast, and shared by the referee and every bot.

>>> from sdk.engine import Game, observe
>>> game = Game(players=4, seed=1)
>>> len(observe(game, 0).hand)
11
"""

from .actions import FLIPS, Action, End, Flip, Scout, ScoutShow, Show, action_from_dict, action_to_dict
from .cards import FULL_DECK, TABLE_RULES, Card, Seat, TableRules, table_rules
from .deal import Kept, deal_rounds
from .determinize import Determinizer
from .errors import IllegalAction, ReplayMismatch
from .events import Event, FlipsRevealed, RoundEnded, RoundStarted, Scouted, ScoutedAndShown, Shown
from .game import Game, Phase, Position
from .legal import LegalActions, legal_shows
from .observation import Observation, PlayerView, PublicView, legal_actions_for, observe, public_view
from .record import GameRecord, record_of, replay
from .results import ROUND_ACTION_CAP, EndReason, Outcome, RoundResult, competition_ranks
from .sets import GROUP, SEQUENCE, SetKey, set_key

__all__ = [
    "FLIPS",
    "FULL_DECK",
    "GROUP",
    "ROUND_ACTION_CAP",
    "SEQUENCE",
    "TABLE_RULES",
    "Action",
    "Card",
    "Determinizer",
    "End",
    "EndReason",
    "Event",
    "Flip",
    "FlipsRevealed",
    "Game",
    "GameRecord",
    "IllegalAction",
    "Kept",
    "LegalActions",
    "Observation",
    "Outcome",
    "Phase",
    "PlayerView",
    "Position",
    "PublicView",
    "ReplayMismatch",
    "RoundEnded",
    "RoundResult",
    "RoundStarted",
    "Scout",
    "ScoutShow",
    "Scouted",
    "ScoutedAndShown",
    "Seat",
    "SetKey",
    "Show",
    "Shown",
    "TableRules",
    "action_from_dict",
    "action_to_dict",
    "competition_ranks",
    "deal_rounds",
    "legal_actions_for",
    "legal_shows",
    "observe",
    "public_view",
    "record_of",
    "replay",
    "set_key",
    "table_rules",
]
