"""What a player can do: the hand-flip decision, Show, Scout and Scout & Show (docs/rules.md §3-§4).

Actions are small immutable values; equal actions compare equal, so `action in legal_actions`
works. The engine hands out shared instances from precomputed tables, which keeps legal-action
enumeration cheap; constructing your own instances is just as valid.

>>> Show(start=2, length=3)
Show(start=2, length=3)
>>> Scout(End.LEFT, flip=True, position=0) in [Scout(End.LEFT, True, 0)]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeAlias


class End(IntEnum):
    """Which end of the active set a scout takes, in the set's left-to-right order."""

    LEFT = 0
    RIGHT = 1


@dataclass(frozen=True, slots=True)
class Flip:
    """The round-start decision: `flip=True` turns the whole hand upside down (docs/rules.md §3)."""

    flip: bool

    def __str__(self) -> str:
        return "flip" if self.flip else "keep"


@dataclass(frozen=True, slots=True)
class Show:
    """Play the `length` cards of your hand starting at index `start` (docs/rules.md §4.1)."""

    start: int
    length: int

    def __str__(self) -> str:
        return f"show {self.start}+{self.length}"


@dataclass(frozen=True, slots=True)
class Scout:
    """Take the card at `end` of the active set, turned over if `flip`, into hand index `position`.

    `position` ranges over 0..len(hand): 0 puts the card leftmost (docs/rules.md §4.2).
    """

    end: End
    flip: bool
    position: int

    def __str__(self) -> str:
        turned = " turned" if self.flip else ""
        return f"scout {End(self.end).name.lower()}{turned} to {self.position}"


@dataclass(frozen=True, slots=True)
class ScoutShow:
    """Scout & Show as one action; `show` indexes the hand *after* the scouted card is inserted."""

    scout: Scout
    show: Show

    def __str__(self) -> str:
        return f"{self.scout}, then {self.show}"


Action: TypeAlias = Flip | Show | Scout | ScoutShow

MAX_HAND = 45
"""No hand can hold more cards than the largest deck."""

SHOWS: tuple[tuple[Show, ...], ...] = tuple(
    tuple(Show(start, length) for length in range(MAX_HAND + 1)) for start in range(MAX_HAND + 1)
)
"""SHOWS[start][length]: shared Show instances (length 0 is never legal but keeps indexing flat)."""

SCOUTS: tuple[tuple[tuple[Scout, ...], tuple[Scout, ...]], ...] = tuple(
    (
        tuple(Scout(end, flip, pos) for end in End for flip in (False, True) for pos in range(n + 1)),
        tuple(Scout(End.LEFT, flip, pos) for flip in (False, True) for pos in range(n + 1)),
    )
    for n in range(MAX_HAND + 1)
)
"""SCOUTS[hand length][0] lists every scout from a set of 2+ cards; [1] from a one-card set,
whose two ends are the same card and so listed once, as LEFT (docs/rules.md §4.2, Decision: encoding)."""

FLIPS: tuple[Flip, Flip] = (Flip(False), Flip(True))


def action_to_dict(action: Action) -> dict[str, Any]:
    """A JSON-ready form of an action, used in game records."""
    if isinstance(action, Flip):
        return {"flip": bool(action.flip)}
    if isinstance(action, Show):
        return {"show": [action.start, action.length]}
    if isinstance(action, Scout):
        return {"scout": [End(action.end).name.lower(), bool(action.flip), action.position]}
    return {"scout": action_to_dict(action.scout)["scout"], "show": [action.show.start, action.show.length]}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Inverse of `action_to_dict`; a ValueError says what is malformed."""
    try:
        if "flip" in data:
            return Flip(bool(data["flip"]))
        show = Show(int(data["show"][0]), int(data["show"][1])) if "show" in data else None
        if "scout" in data:
            end, flip, position = data["scout"]
            scout = Scout(End[str(end).upper()], bool(flip), int(position))
            return ScoutShow(scout, show) if show else scout
        if show:
            return show
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"malformed action {data!r}: {exc}") from None
    raise ValueError(f"malformed action {data!r}: expected a 'flip', 'show' or 'scout' key")
