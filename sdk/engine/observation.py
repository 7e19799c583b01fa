"""What a seat may know, and what a spectator sees (docs/rules.md §9).

These types are the only way game state leaves the engine towards a player. `PublicView` has no
field that could hold a card from a hand; `Observation` adds exactly one hand, the viewer's own.
Both are built here from a `Game`, by one function each, so a leak would have to be written here.

They are slots dataclasses but not frozen: one of each is built for every decision on both ends
of the wire, and a frozen dataclass costs several times as much to build. A bot that changes its
observation changes only its own copy; read them as values all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .actions import FLIPS, Action
from .cards import Card, Seat
from .events import Event
from .game import Game, Phase, Position


@dataclass(slots=True)
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


@dataclass(slots=True)
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
    history: Sequence[Event]
    """Every public event so far, oldest first: a tuple, or over the wire the SDK's lazily decoded
    view of the events the arena sent (`sdk.runner.History`)."""

    @property
    def active_set_empty(self) -> bool:
        """True when a set was shown this round and every card of it has been scouted away."""
        return self.active_owner is not None and not self.active_set


@dataclass(slots=True)
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

    def with_history(self, history: Sequence[Event]) -> Observation:
        """This observation with `history`, kept as given (an immutable sequence), as its table's
        history: the wire carries the history as separate events, and the SDK puts it back (a hot
        path: no `dataclasses.replace`)."""
        t = self.table
        table = PublicView(
            t.players,
            t.round,
            t.rounds,
            t.first_player,
            t.phase,
            t.to_move,
            t.active_set,
            t.active_owner,
            t.seats,
            t.round_actions,
            history,
        )
        return Observation(self.seat, self.hand, self.legal_actions, table)


def public_view(game: Game, viewer: Seat | None = None) -> PublicView:
    """The public table; `viewer` also sees their own flip decision before the reveal.

    Built for every request the referee sends, hence positional arguments in field order
    (tests/engine/test_observation.py names every field's value)."""
    revealed = game.phase is not Phase.FLIP
    hands, captured, chips, scout_show, flips, totals = (
        game.hands,
        game.captured,
        game.chips,
        game.scout_show,
        game.flips,
        game.totals,
    )
    round_scores = list(zip(*(r.scores for r in game.results), strict=True)) or [()] * game.players
    seats = tuple(
        [
            PlayerView(
                s,
                len(hands[s]),
                len(captured[s]),
                chips[s],
                scout_show[s],
                flips[s] if revealed or s == viewer else None,
                round_scores[s],
                totals[s],
            )
            for s in range(game.players)
        ]
    )
    return PublicView(
        game.players,
        game.round,
        game.rules.rounds,
        game.round % game.players,
        game.phase,
        game.to_move if game.phase is Phase.PLAY else None,
        tuple(game.active),
        game.owner,
        seats,
        game.round_actions,
        tuple(game.events),
    )


def observe(game: Game, seat: Seat, *, with_legal_actions: bool = True) -> Observation:
    """What `seat` may know now, with its legal actions (left empty when `with_legal_actions` is
    false: the referee skips listing them for bots that compute their own)."""
    if not 0 <= seat < game.players:
        raise ValueError(f"there is no seat {seat} at a {game.players}-player table")
    return Observation(
        seat, tuple(game.hands[seat]), game.legal_actions(seat) if with_legal_actions else (), public_view(game, seat)
    )


def legal_actions_for(obs: Observation) -> Sequence[Action]:
    """`obs.seat`'s legal actions computed from the observation alone, equal to the referee's.

    Legality depends only on the mover's hand, the active set, the chips and the phase, so a game
    built from those (the other hands left empty) lists exactly what the referee would, as the
    engine's lazy `LegalActions`: a bot pays only for the Scout & Show actions it looks at.
    """
    table = obs.table
    if table.phase is Phase.FLIP:
        return FLIPS if table.seats[obs.seat].flipped is None else ()
    if table.phase is not Phase.PLAY or table.to_move != obs.seat:
        return ()
    hands: list[tuple[Card, ...]] = [()] * table.players
    hands[obs.seat] = obs.hand
    game = Game.from_position(
        Position(
            hands=hands,
            round=table.round,
            to_move=obs.seat,
            active=table.active_set,
            owner=table.active_owner,
            chips=[p.scout_chips for p in table.seats],
            scout_show=[p.has_scout_show for p in table.seats],
            flips=[bool(p.flipped) for p in table.seats],
        )
    )
    return game.legal_actions(obs.seat)
