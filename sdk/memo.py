"""How the SDK, the bots and the arena cache what depends on the game: `memoised`, made and held by
the object that needs the cache, never at module level.

A cache of game-dependent values belongs to what uses it (a bot, a connection's encoder, a ratings
reader): it is made in that object's `__init__`, bounded, and goes when the object goes, so nothing
cached is shared between arenas, bots or tests in one process, and a reader finds each cache next
to its reason. Only pure functions are memoised: their arguments are the whole key.

The one exception is a constant of the program itself, the same for every arena and bounded by its
own domain: the wire bytes of a card or of an action (`arena.api.bot_session_wire`,
`sdk.wire.bot_session`) and the migration scripts shipped with the package
(`arena.storage.database`) are cached by functools at module level.

>>> class Squares:
...     def __init__(self) -> None:
...         self.square = memoised(lambda n: n * n, size=2)
>>> s = Squares()
>>> s.square(3), s.square(3), s.square.cache_info().hits
(9, 9, 1)
>>> Squares().square.cache_info().hits
0
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def memoised(fn: F, *, size: int) -> F:
    """`fn` with a least-recently-used memo of at most `size` results of its own: functools'
    lru_cache (in C: a hit costs about a dict lookup), with its `cache_info` and `cache_clear`.
    Each call makes a new, empty memo."""
    if size < 1:
        raise ValueError(f"a memo holds at least 1 result, not {size}")
    return cast(F, lru_cache(maxsize=size)(fn))
