"""What a seat may know, and what a spectator sees (RULES.md §9).

These types are the only way game state leaves the engine towards a player. `PublicView` has no
field that could hold a card from a hand; `Observation` adds exactly one hand, the viewer's own.
Both are built here from a `Game`, by one function each, so a leak would have to be written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Action
from .cards import Card, Seat
from .events import Event
from .game import Game, Phase


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The public facts about one seat."""

    seat: Seat
    hand_size: int
    captured: int
    scout_chips: int
    has_scout_show: bool
    flipped: bool | None
    """The seat's flip decision this round; None until the decisions are revealed."""
    round_scores: tuple[int, ...]
    total: int


@dataclass(frozen=True, slots=True)
class PublicView:
    """The table as everyone sees it: no card that sits in any hand."""

    players: int
    round: int
    rounds: int
    first_player: Seat
    phase: Phase
    to_move: Seat | None
    """The seat whose turn it is; None while seats decide their flips, and after the game."""
    active_set: tuple[Card, ...]
    active_owner: Seat | None
    seats: tuple[PlayerView, ...]
    round_actions: int
    history: tuple[Event, ...]

    @property
    def active_set_empty(self) -> bool:
        """True when a set was shown this round and every card of it has been scouted away."""
        return self.active_owner is not None and not self.active_set


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view: the public table, its own hand, and what it may do now."""

    seat: Seat
    hand: tuple[Card, ...]
    legal_actions: Sequence[Action]
    """A read-only sequence (see `sdk.engine.legal.LegalActions`): len, index, iterate, `in`."""
    table: PublicView

    @property
    def my_turn(self) -> bool:
        return bool(self.legal_actions)


def public_view(game: Game, viewer: Seat | None = None) -> PublicView:
    """The public table; `viewer` also sees their own flip decision before the reveal."""
    revealed = game.phase is not Phase.FLIP
    seats = tuple(
        PlayerView(
            seat=s,
            hand_size=len(game.hands[s]),
            captured=len(game.captured[s]),
            scout_chips=game.chips[s],
            has_scout_show=game.scout_show[s],
            flipped=game.flips[s] if revealed or s == viewer else None,
            round_scores=tuple(r.scores[s] for r in game.results),
            total=game.totals[s],
        )
        for s in range(game.players)
    )
    return PublicView(
        players=game.players,
        round=game.round,
        rounds=game.rules.rounds,
        first_player=game.round % game.players,
        phase=game.phase,
        to_move=game.to_move if game.phase is Phase.PLAY else None,
        active_set=tuple(game.active),
        active_owner=game.owner,
        seats=seats,
        round_actions=game.round_actions,
        history=tuple(game.events),
    )


def observe(game: Game, seat: Seat, *, with_legal_actions: bool = True) -> Observation:
    """What `seat` may know now, with its legal actions (left empty when `with_legal_actions` is
    false: the referee skips listing them for bots that compute their own)."""
    if not 0 <= seat < game.players:
        raise ValueError(f"there is no seat {seat} at a {game.players}-player table")
    return Observation(
        seat=seat,
        hand=tuple(game.hands[seat]),
        legal_actions=game.legal_actions(seat) if with_legal_actions else (),
        table=public_view(game, viewer=seat),
    )
