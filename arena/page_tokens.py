"""Pages of the list and export calls: their size, and the tokens that continue a list.

A reply holds at most `page_size` items (0 asks for DEFAULT_PAGE_SIZE; more than MAX_PAGE_SIZE is
refused), so no single call makes the arena read or send a whole table. Lists are keyset-paginated:
a token names the last item sent (its id) and the next page starts after that item in the list's
order, so a page costs the same however deep it is and a list that grows while it is read (games
finishing) neither repeats nor skips what was already sent. The rating table is the exception:
its order is its ratings, which change as games finish, so its pages are offsets into the table as
it stands at each call.

A token is `<cursor>.<tag>`, the tag an HMAC of the cursor and the list it belongs to (the call and
its filters) under a key of this arena process: a token the arena did not issue, or one issued for
another list, is refused with InvalidPage. Tokens do not outlive the process that issued them (a
restarted arena refuses them; the client lists again from the start).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from arena.errors import InvalidPage

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_TOKEN = re.compile(r"(0|[1-9][0-9]{0,18})\.([0-9a-f]{32})")


@dataclass(frozen=True, slots=True)
class Page:
    """Which part of a list a call asks for: at most `size` items after `cursor` (None: from the
    start). The cursor is the last item's id, or the offset reached in the rating table."""

    size: int
    cursor: int | None = None


class PageTokens:
    """Reads page requests and issues the tokens of following pages, signed with this process's key."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def page(self, listing: str, size: int, token: str) -> Page:
        """The page a request asks for; InvalidPage if its size or token is not acceptable.
        `listing` names the list and its filters, as given to `next_token`."""
        if not 0 <= size <= MAX_PAGE_SIZE:
            raise InvalidPage(f"page_size must be 0 (the default, {DEFAULT_PAGE_SIZE}) to {MAX_PAGE_SIZE}, not {size}")
        size = size or DEFAULT_PAGE_SIZE
        if not token:
            return Page(size)
        match = _TOKEN.fullmatch(token)
        if match is None or not hmac.compare_digest(match[2], self._tag(listing, int(match[1]))):
            raise InvalidPage(
                "page_token was not issued by this arena for this list (or the arena restarted since): "
                "list again without it"
            )
        return Page(size, int(match[1]))

    def next_token(self, listing: str, cursor: int) -> str:
        """The token that continues `listing` after `cursor`."""
        return f"{cursor}.{self._tag(listing, cursor)}"

    def _tag(self, listing: str, cursor: int) -> str:
        return hmac.new(self._key, f"{listing}\0{cursor}".encode(), hashlib.sha256).hexdigest()[:32]
