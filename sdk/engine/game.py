"""The state of one game of SCOUT and the only code that changes it (docs/rules.md §2-§8).

`Game` is pure: no I/O, no clocks. It is created from (players, seed), lists the legal actions of
whoever must decide, applies an action or raises `IllegalAction` with the reason, and builds each
seat's observation. The referee holds the authoritative copy; bots use the same class to plan.

>>> game = Game(players=3, seed=7)
>>> game.phase
<Phase.FLIP: 'flip'>
>>> for seat in range(3):
...     game.apply(seat, Flip(False))
>>> game.phase, game.to_move
(<Phase.PLAY: 'play'>, 0)
>>> game.apply(1, game.legal_actions()[0])
Traceback (most recent call last):
...
sdk.engine.errors.IllegalAction: it is seat 0's turn, not seat 1's
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from operator import itemgetter

from .actions import FLIPS, SCOUTS, Action, End, Flip, Scout, ScoutShow, Show
from .cards import TURNED, Card, Seat, TableRules, table_rules
from .deal import Kept, SplitMix64, check_kept, deal_round
from .errors import IllegalAction
from .events import (
    Event,
    FlipsRevealed,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
    new_scouted,
    new_shown,
)
from .legal import LegalActions, ScoutShows, hand_shows, shows_right_to_left
from .results import ROUND_ACTION_CAP, EndReason, Outcome, RoundResult, competition_ranks
from .sets import GROUP, SEQUENCE, SetKey, set_key


class Phase(Enum):
    """FLIP: seats make their blind hand-flip decision; PLAY: turns; OVER: the game has ended."""

    FLIP = "flip"
    PLAY = "play"
    OVER = "over"


_PLAY = Phase.PLAY
_TOP = itemgetter(0)
_ENDS = (End.LEFT, End.RIGHT)


@dataclass(frozen=True, slots=True)
class Position:
    """A point in a round to start a game from (`Game.from_position`): the state a referee's
    game holds mid-round, without its history. Players are `len(hands)`; every field left at
    its default is what a fresh round has.

    `to_move` defaults to the round's first player (seat `round % players`); in the FLIP phase it
    is ignored, since the game waits for the first seat whose entry in `flips` is None.
    """

    hands: Sequence[Sequence[Card]]
    """Each seat's hand, left to right, as held (flips already applied)."""
    round: int = 0
    phase: Phase = Phase.PLAY
    """PLAY, or FLIP while some seats have not decided (their `flips` entry is None)."""
    to_move: Seat | None = None
    active: Sequence[Card] = ()
    owner: Seat | None = None
    """The active set's owner; None if nobody has shown yet this round."""
    captured: Sequence[Sequence[Card]] | None = None
    """Each seat's captured cards this round; default none."""
    chips: Sequence[int] | None = None
    """Each seat's scout chips; default the round's starting chips."""
    scout_show: Sequence[bool] | None = None
    """Whether each seat still holds its Scout & Show chip; default as at the round's start."""
    flips: Sequence[bool | None] | None = None
    """Each seat's flip decision; default None in the FLIP phase, False (kept) in PLAY."""
    round_actions: int = 0
    totals: Sequence[int] | None = None
    """Game totals before this round; default zeros."""
    rounds: int | None = None
    """How many rounds the game lasts; default the table's (docs/rules.md §8)."""
    seed: int = 0
    """Seeds the deals of any rounds after this one."""


class Game:
    """One game from deal to final standing.

    Hands are lists of `Card` in left-to-right order. The active set is `active` (possibly empty
    once scouted away) with `owner`; `owner is None` means nobody has shown yet this round.
    """

    __slots__ = (
        "_active_key",
        "_rng",
        "_stock",
        "active",
        "captured",
        "chips",
        "deals",
        "events",
        "flips",
        "hands",
        "kept",
        "log",
        "owner",
        "phase",
        "results",
        "revealed_flips",
        "round",
        "round_actions",
        "rules",
        "scout_show",
        "seed",
        "to_move",
        "totals",
    )

    def __init__(self, players: int, seed: int, *, position: Position | None = None, kept: Kept | None = None) -> None:
        """A game dealt from `seed`; or, with `position` (see `Game.from_position`), one that
        starts from that position and deals any later rounds from `seed`. `kept` gives seats their
        hands of every round in advance (a tournament's replay of a voided attempt, `deal`); a
        ValueError says what does not fit the table."""
        rules = table_rules(players)
        self.rules: TableRules = rules
        self.kept: Kept = kept or {}
        if kept:
            check_kept(rules, kept)
        self.seed = seed
        self._rng = SplitMix64(seed)
        self._stock: Sequence[Card] = ()
        """2 players: the one shuffle both rounds are dealt from."""
        self.round = -1
        self.phase = Phase.FLIP
        self.to_move: Seat = 0
        self.hands: list[list[Card]] = []
        self.active: list[Card] = []
        self.owner: Seat | None = None
        self._active_key: SetKey | None = None
        self.captured: list[list[Card]] = []
        self.chips: list[int] = []
        self.scout_show: list[bool] = []
        self.flips: list[bool | None] = []
        self.round_actions = 0
        self.totals = [0] * players
        self.results: list[RoundResult] = []
        self.deals: list[tuple[tuple[Card, ...], ...]] = []
        self.log: list[tuple[int, Seat, Action]] = []
        """Every accepted play action as (round, seat, action); flips are kept in `flips`."""
        self.events: list[Event] = []
        self.revealed_flips: list[tuple[bool, ...]] = []
        """Each started round's flip decisions, once all seats have made them."""
        if position is None:
            self._start_round()
        else:
            self._set_position(position)

    @classmethod
    def from_position(cls, position: Position) -> Game:
        """A game that starts from `position` instead of a deal: for search (a determinised
        sample of the hidden hands) and for computing legal actions from an observation.

        It has no past: `results`, `deals`, `log` and `events` start empty and `totals` are the
        position's. Rounds after the position's are dealt from `position.seed`; a position whose
        `rounds` is `round + 1` ends the game with its round.

        >>> from sdk.engine import Card, Show
        >>> game = Game.from_position(Position(
        ...     hands=[[Card(3, 1), Card(4, 2)], [Card(5, 1)], [Card(6, 1)]], to_move=0, rounds=1))
        >>> game.legal_actions()
        LegalActions([Show(start=0, length=2), Show(start=0, length=1), Show(start=1, length=1)])
        >>> game.apply(0, Show(0, 2)); game.is_over, game.results[-1].scores
        (True, (0, -1, -1))
        """
        return cls(len(position.hands), position.seed, position=position)

    def copy(self) -> Game:
        """An independent copy, state and seed stream included, that shares nothing mutable.

        Cheap (cards and actions are immutable values, so lists are copied shallowly): the way
        a search plays a state forward more than once. History lists are copied too, so the
        copy's `record_of` is the original's plus whatever the copy plays.
        """
        return self._copy_with_hands([h[:] for h in self.hands])

    def _copy_with_hands(self, hands: list[list[Card]]) -> Game:
        """`copy`, holding `hands` (taken, not copied) instead of this game's: how `Determinizer`
        deals each sample into a game it checked once, without checking it again."""
        new = Game.__new__(Game)
        new.rules = self.rules
        new.kept = self.kept
        new.seed = self.seed
        rng = SplitMix64(0)
        rng._state = self._rng._state
        new._rng = rng
        new._stock = self._stock
        new.round = self.round
        new.phase = self.phase
        new.to_move = self.to_move
        new.hands = hands
        new.active = self.active[:]
        new.owner = self.owner
        new._active_key = self._active_key
        new.captured = [c[:] for c in self.captured]
        new.chips = self.chips[:]
        new.scout_show = self.scout_show[:]
        new.flips = self.flips[:]
        new.round_actions = self.round_actions
        new.totals = self.totals[:]
        new.results = self.results[:]
        new.deals = self.deals[:]
        new.log = self.log[:]
        new.events = self.events[:]
        new.revealed_flips = self.revealed_flips[:]
        return new

    # -- reading the state -------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def awaiting(self) -> tuple[Seat, ...]:
        """The seats whose decision the game waits for: all undecided seats during FLIP."""
        if self.phase is Phase.FLIP:
            return tuple(s for s, f in enumerate(self.flips) if f is None)
        if self.phase is Phase.PLAY:
            return (self.to_move,)
        return ()

    @property
    def outcome(self) -> Outcome | None:
        """The final standing, once the game is over."""
        if self.phase is not Phase.OVER:
            return None
        return Outcome(tuple(self.totals), competition_ranks(self.totals))

    @property
    def active_key(self) -> SetKey | None:
        """Strength of the active set; None when there is none or it was scouted empty."""
        return self._active_key

    # -- legal actions -------------------------------------------------------------------------

    def legal_actions(self, seat: Seat | None = None) -> LegalActions:
        """Everything `seat` (default: whoever the game waits for) may do now; empty if nothing.

        Order is stable, the one docs/protocol.md states: shows by start (runs before groups, each
        shortest first), then scouts, then scout & shows.
        """
        p = self.to_move
        if self.phase is not _PLAY or (seat is not None and seat != p):
            if self.phase is Phase.FLIP:
                return LegalActions(FLIPS if self.flips[p if seat is None else seat] is None else ())
            return LegalActions(())
        hand = self.hands[p]
        shows = shows_right_to_left(map(_TOP, reversed(hand)), len(hand), self._active_key)
        active = self.active
        if not active or (self.rules.players == 2 and not self.chips[p]):
            return LegalActions(shows)
        scouts = SCOUTS[len(hand)][len(active) == 1]
        if not self.scout_show[p]:
            return LegalActions(shows, scouts)
        return LegalActions(shows, scouts, ScoutShows(tuple([c[0] for c in hand]), scouts, active))

    # -- applying actions ------------------------------------------------------------------------

    def apply(self, seat: Seat, action: Action) -> None:
        """Apply `seat`'s action, or raise `IllegalAction` with the reason and change nothing."""
        if seat == self.to_move and self.phase is _PLAY:
            # The hot path: shows and scouts are checked here, and only when a check fails does
            # `_check_show` or `_check_scout` run to say why. (`type(action) is Show`, not
            # isinstance: as fast as comparing classes, and it narrows the type alike.)
            if type(action) is Show:
                hand = self.hands[seat]
                start = action.start
                beat = self._active_key
                if action.length == 1 and 0 <= start < len(hand):
                    key: SetKey = (1, GROUP, hand[start][0])
                    if beat is not None and not key > beat:
                        self._check_show(hand, action, beat)
                else:
                    key = self._check_show(hand, action, beat)
                self.events.append(self._put_shown(seat, action, key))
                self._after_action(seat, action, True)
                return
            if type(action) is Scout:
                if not (
                    self.active
                    and (self.rules.players != 2 or self.chips[seat])
                    and action.end in _ENDS
                    and 0 <= action.position <= len(self.hands[seat])
                ):
                    self._check_scout(seat, action)
                self.events.append(self._take_scouted(seat, action))
                self._after_action(seat, action, False)
                return
        if self.phase is Phase.OVER:
            raise IllegalAction("the game is over")
        if not 0 <= seat < self.rules.players:
            raise IllegalAction(f"there is no seat {seat} at a {self.rules.players}-player table")
        if self.phase is Phase.FLIP:
            if type(action) is not Flip:
                raise IllegalAction("the round has not started: decide whether to flip your hand first")
            self._flip(seat, action.flip)
            return
        if type(action) is Flip:
            raise IllegalAction("hands can only be flipped before the round's first turn")
        if seat != self.to_move:
            raise IllegalAction(f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        if type(action) is ScoutShow:
            self._scout_show(seat, action)
        else:
            raise IllegalAction(f"{action!r} is not a SCOUT action")

    def _flip(self, seat: Seat, flip: bool) -> None:
        if self.flips[seat] is not None:
            raise IllegalAction(f"seat {seat} has already decided whether to flip this round")
        self.flips[seat] = flip
        if flip:
            self.hands[seat] = [TURNED[c] for c in self.hands[seat]]
        if None in self.flips:
            self.to_move = self.flips.index(None)
        else:
            revealed: tuple[bool, ...] = tuple(self.flips)  # type: ignore[arg-type]
            self.revealed_flips.append(revealed)
            self.events.append(FlipsRevealed(self.round, revealed))
            self.phase = Phase.PLAY
            self.to_move = self.round % self.rules.players

    def _check_show(self, hand: list[Card], show: Show, beat: SetKey | None) -> SetKey:
        start, length = show.start, show.length
        if length < 1 or start < 0 or start + length > len(hand):
            raise IllegalAction(f"cards {start}..{start + length - 1} are not in your hand of {len(hand)} cards")
        key = (1, GROUP, hand[start][0]) if length == 1 else set_key([c[0] for c in hand[start : start + length]])
        if key is None:
            raise IllegalAction(f"cards {start}..{start + length - 1} are neither a group nor a sequence")
        if beat is not None and not key > beat:
            raise IllegalAction("the set shown is not stronger than the active set")
        return key

    def _check_scout(self, seat: Seat, scout: Scout) -> None:
        if not self.active:
            what = "there is no active set" if self.owner is None else "the active set is empty"
            raise IllegalAction(f"cannot scout: {what}")
        if self.rules.players == 2 and not self.chips[seat]:
            raise IllegalAction("cannot scout: you have no scout chip left")
        if scout.end not in (End.LEFT, End.RIGHT):
            raise IllegalAction(f"scout end must be LEFT or RIGHT, not {scout.end!r}")
        if not 0 <= scout.position <= len(self.hands[seat]):
            raise IllegalAction(f"insert position {scout.position} is outside 0..{len(self.hands[seat])}")

    def _take_scouted(self, seat: Seat, scout: Scout) -> Scouted:
        """Move the scouted card into the hand and pay the chip; validation is done already."""
        active = self.active
        card = active.pop(-1 if scout.end and len(active) > 1 else 0)
        if scout.flip:
            card = TURNED[card]
        self.hands[seat].insert(scout.position, card)
        if self.rules.players == 2:
            self.chips[seat] -= 1
        else:
            self.chips[self.owner] += 1  # type: ignore[index]
        # What is left is a set of the same kind, one card shorter (a single is a group), whose
        # lowest value may have gone with the scouted card.
        n = len(active)
        key = self._active_key
        if n > 1:
            if key[1] == GROUP:  # type: ignore[index]
                self._active_key = (n, GROUP, key[2])  # type: ignore[index]
            else:
                first, last = active[0][0], active[-1][0]
                self._active_key = (n, SEQUENCE, first if first < last else last)
        else:
            self._active_key = (1, GROUP, active[0][0]) if n else None
        return new_scouted(seat, scout.end, scout.flip, card, scout.position)

    def _put_shown(self, seat: Seat, show: Show, key: SetKey) -> Shown:
        hand = self.hands[seat]
        start = show.start
        stop = start + show.length
        cards = hand[start:stop]
        del hand[start:stop]
        self.captured[seat] += self.active
        self.active = cards
        self.owner = seat
        self._active_key = key
        return new_shown(seat, start, tuple(cards))

    def _scout_show(self, seat: Seat, action: ScoutShow) -> None:
        if not self.rules.scout_and_show:
            raise IllegalAction("Scout & Show is not played with 2 players")
        if not self.scout_show[seat]:
            raise IllegalAction("you have already used your Scout & Show chip this round")
        if not self.active:
            raise IllegalAction("scout & show needs a non-empty active set")
        scout = action.scout
        self._check_scout(seat, scout)
        active = self.active
        card = active[-1] if scout.end and len(active) > 1 else active[0]
        if scout.flip:
            card = TURNED[card]
        hand_after = list(self.hands[seat])
        hand_after.insert(scout.position, card)
        rest = active[:-1] if scout.end and len(active) > 1 else active[1:]
        key = self._check_show(hand_after, action.show, set_key([c[0] for c in rest]))
        self.scout_show[seat] = False
        scouted = self._take_scouted(seat, scout)
        self.events.append(ScoutedAndShown(scouted, self._put_shown(seat, action.show, key)))
        self._after_action(seat, action, True)

    def _after_action(self, seat: Seat, action: Action, shown: bool) -> None:
        """Log the action and end the round or pass the turn: after every show, scout and scout &
        show (`shown`: the action put cards on the table)."""
        self.log.append((self.round, seat, action))
        self.round_actions += 1
        n = self.rules.players
        if shown and not self.hands[seat]:
            self._end_round(EndReason.EMPTY_HAND)
        elif n == 2:
            self._pass_turn_two_players(seat if not shown else 1 - seat)
        elif not shown and (seat + 1) % n == self.owner:
            self._end_round(EndReason.BACK_TO_OWNER)
        elif self.round_actions >= ROUND_ACTION_CAP:
            self._end_round(EndReason.ACTION_CAP)
        else:
            self.to_move = (seat + 1) % n

    def _pass_turn_two_players(self, mover: Seat) -> None:
        """2 players: the round ends when `mover` cannot answer (§6.2) or at the action cap."""
        if self._cannot_answer(mover):
            self._end_round(EndReason.CANNOT_ANSWER)
        elif self.round_actions >= ROUND_ACTION_CAP:
            self._end_round(EndReason.ACTION_CAP)
        else:
            self.to_move = mover

    def _cannot_answer(self, seat: Seat) -> bool:
        """2 players, §6.2: a non-empty set of the opponent's, no chip, and nothing stronger."""
        if not self.active or self.chips[seat]:
            return False
        return not hand_shows(self.hands[seat], self._active_key)

    # -- rounds --------------------------------------------------------------------------------

    def _set_position(self, position: Position) -> None:
        """Load `position` (see `Game.from_position`); a ValueError says what does not fit."""
        n = self.rules.players
        if position.rounds is not None:
            if not position.round < position.rounds <= self.rules.rounds:
                raise ValueError(
                    f"a game of round {position.round} lasts {position.round + 1}..{self.rules.rounds} rounds"
                )
            self.rules = replace(self.rules, rounds=position.rounds)
        if not 0 <= position.round < self.rules.rounds:
            raise ValueError(f"round {position.round} is outside 0..{self.rules.rounds - 1}")
        if position.phase is Phase.OVER:
            raise ValueError("a position is in the FLIP or PLAY phase")
        for name in ("captured", "chips", "scout_show", "flips", "totals"):
            value = getattr(position, name)
            if value is not None and len(value) != n:
                raise ValueError(f"{name} has {len(value)} entries for {n} seats")
        self.round = position.round
        self.phase = position.phase
        self.hands = [list(h) for h in position.hands]
        self.active = list(position.active)
        self.owner = position.owner
        self._active_key = set_key([c[0] for c in self.active]) if self.active else None
        captured = position.captured
        self.captured = [list(c) for c in captured] if captured is not None else [[] for _ in range(n)]
        self.chips = list(position.chips) if position.chips is not None else [self.rules.start_chips] * n
        self.scout_show = (
            list(position.scout_show) if position.scout_show is not None else [self.rules.scout_and_show] * n
        )
        if position.flips is not None:
            self.flips = list(position.flips)
        else:
            self.flips = [None if position.phase is Phase.FLIP else False] * n
        self.round_actions = position.round_actions
        if position.totals is not None:
            self.totals = list(position.totals)
        if position.phase is Phase.FLIP:
            if None not in self.flips:
                raise ValueError("a FLIP-phase position needs a seat that has not decided")
            self.to_move = self.flips.index(None)
        else:
            if None in self.flips:
                raise ValueError("in the PLAY phase every seat has decided whether to flip")
            self.to_move = self.round % n if position.to_move is None else position.to_move
            if not 0 <= self.to_move < n:
                raise ValueError(f"there is no seat {self.to_move} at a {n}-player table")

    def _start_round(self) -> None:
        rules = self.rules
        n = rules.players
        self.round += 1
        dealt, self._stock = deal_round(rules, self._rng, self.round, self._stock, self.kept)
        self.deals.append(dealt)
        self.hands = [list(h) for h in dealt]
        self.active = []
        self.owner = None
        self._active_key = None
        self.captured = [[] for _ in range(n)]
        self.chips = [rules.start_chips] * n
        self.scout_show = [rules.scout_and_show] * n
        self.flips = [None] * n
        self.round_actions = 0
        self.phase = Phase.FLIP
        self.to_move = 0
        self.events.append(RoundStarted(self.round, self.round % n, rules.hand_size))

    def _end_round(self, reason: EndReason) -> None:
        exempt = self.owner if reason in (EndReason.BACK_TO_OWNER, EndReason.CANNOT_ANSWER) else None
        sizes = tuple(len(h) for h in self.hands)
        scores = tuple(
            len(self.captured[s]) + self.chips[s] - (0 if s == exempt else sizes[s]) for s in range(self.rules.players)
        )
        for s, points in enumerate(scores):
            self.totals[s] += points
        self.results.append(RoundResult(self.round, reason, scores, sizes, exempt))
        self.events.append(RoundEnded(self.round, reason, scores, sizes))
        if self.round + 1 < self.rules.rounds:
            self._start_round()
        else:
            self.phase = Phase.OVER
