"""Lists a page at a time, with the signed page tokens of `arena.page_tokens` (the gRPC lists' own):
a token continues only the list (and filters) it was issued for, and a page holds at most
`arena.page_tokens.MAX_PAGE_SIZE` items."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from arena.page_tokens import PageTokens
from arena.records import GameStatus

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Paged(Generic[T]):
    """One page of a list, and the token of the next (None on the last page)."""

    items: list[T]
    next_token: str | None


async def paged(
    tokens: PageTokens,
    listing: str,
    size: int,
    token: str,
    fetch: Callable[[int | None, int], Awaitable[list[T]]],
    cursor: Callable[[T], int],
) -> Paged[T]:
    """The page `token` asks of `listing` (`size` 0: the default size). `fetch(after, limit)` reads
    up to `limit` items after the cursor `after`; `cursor(item)` is an item's. InvalidPage for a
    size out of range or a token not issued for this list."""
    page = tokens.page(listing, size, token)
    items = await fetch(page.cursor, page.size + 1)
    if len(items) <= page.size:
        return Paged(items, None)
    items = items[: page.size]
    return Paged(items, tokens.next_token(listing, cursor(items[-1])))


def games_listing(tournament: str | None, bot: str | None, status: GameStatus | None) -> str:
    """The list a games page token belongs to: the games list with these filters."""
    return f"games\0{tournament}\0{bot}\0{status}"


def sliced(tokens: PageTokens, listing: str, size: int, token: str, rows: Sequence[T]) -> Paged[T]:
    """The page `token` asks of a list held whole (a rating table: its cursor is an offset, as the
    gRPC Ratings call's)."""
    page = tokens.page(listing, size, token)
    start = page.cursor or 0
    items = list(rows[start : start + page.size])
    end = start + len(items)
    return Paged(items, tokens.next_token(listing, end) if end < len(rows) else None)
