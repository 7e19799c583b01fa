"""The compiled rollout's interface (bots/_playout.c); `bots.playout.LinearPlayout` calls it."""

from collections.abc import Sequence
from typing import overload

SOURCE_SHA256: str
"""The SHA-256 of the bots/_playout.c this module was compiled from."""

Move = tuple[int, int, int, int, int, int]

@overload
def play_rounds(
    hands: Sequence[Sequence[tuple[int, int]]],
    active: Sequence[tuple[int, int]],
    owner: int | None,
    to_move: int,
    chips: Sequence[int],
    scout_show: Sequence[bool],
    captured: Sequence[Sequence[object]],
    round_actions: int,
    weights: Sequence[float],
    cap: int,
    firsts: Sequence[Move | None],
    /,
) -> list[tuple[tuple[int, ...], int]]: ...
@overload
def play_rounds(
    hands: Sequence[Sequence[tuple[int, int]]],
    active: Sequence[tuple[int, int]],
    owner: int | None,
    to_move: int,
    chips: Sequence[int],
    scout_show: Sequence[bool],
    captured: Sequence[Sequence[object]],
    round_actions: int,
    weights: Sequence[float],
    cap: int,
    firsts: Sequence[Move | None],
    worth: tuple[int, float, Sequence[int]],
    /,
) -> tuple[list[float], int]: ...
