"""What every web route reads from: the database (through worker threads), the cached read
models and the templates; `web_context` hands it to a route as a FastAPI dependency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates

from arena.page_tokens import PageTokens
from arena.storage.async_store import AsyncStore
from arena.storage.reads import CachedReads


@dataclass(frozen=True)
class WebContext:
    """The web app's shared parts: `tokens` signs the page tokens of its lists; `arena` is the
    running arena the app is served in (its live games), None when a database is served alone
    (`scout-arena web`)."""

    db: AsyncStore
    reads: CachedReads
    templates: Jinja2Templates
    tokens: PageTokens
    arena: Any = None


def web_context(request: Request) -> WebContext:
    """The app's `WebContext` (set by `create_app`)."""
    context: WebContext = request.app.state.web
    return context


Web = Annotated[WebContext, Depends(web_context)]
"""A route parameter of this type receives the app's `WebContext`."""
