"""The web application: `create_app` puts the pages, the JSON API, the static assets and the
error pages together over one database.

Routers are the rooms of the site: `pages` (ladders, tournaments, bots, games), `api` (the same
data as JSON under /api/, described at /api/openapi.json and listed at /api), `replay`
(a finished game's viewer), `live` (a running game as a spectator sees it) and `play` (a
person's seat against house bots, the one room that takes POSTs). Each route gets
the shared `context.WebContext` through the `context.Web` dependency. Every route only reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from sqlalchemy.engine import Engine

from arena.page_tokens import PageTokens
from arena.storage.async_store import AsyncStore
from arena.storage.reads import CachedReads
from arena.web import api, live, pages, play, replay
from arena.web.context import WebContext
from arena.web.errors import install_error_handlers
from arena.web.limits import WebLimits
from arena.web.page_cache import PageCache, kept_route, route_patterns
from arena.web.play_room import PlayRoom
from arena.web.rate_limits import RateLimits, WebGate
from arena.web.templating import make_templates

STATIC = Path(__file__).parent / "static"
PAGE_TTL_S = 1.0
"""How far behind the arena a page may be: how often the page cache asks whether anything changed,
so while a tournament commits games a page is rendered at most once a second."""


def create_app(
    engine: Engine,
    *,
    arena: Any = None,
    page_ttl_s: float = PAGE_TTL_S,
    store_casual: bool | None = None,
    limits: WebLimits | None = None,
) -> FastAPI:
    """The web app over the arena database `engine` (read through worker threads, never on the
    event loop). `arena` is the running arena it is served in, for live games; None serves the
    database alone. Answers of the pages and the API are kept until the arena changes, which is
    looked at every `page_ttl_s` seconds (`page_cache`; 0: at every request). Finished casual
    games are stored when `store_casual` says so (None: when served in an arena, since `scout-arena
    web` serves its database read-only). Requests are rate-limited as `limits` says (its rate and
    burst fields), per address and for everyone (`rate_limits`); None: not at all, for a caller that
    bounds them itself (the commands that serve the pages pass theirs)."""
    app = FastAPI(
        title="Scout Arena",
        summary="Ladders, tournaments, bots and games of a Scout Arena, read-only.",
        version="1",
        openapi_url="/api/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    db = AsyncStore(engine)
    app.state.web = WebContext(
        db=db, reads=CachedReads(db), templates=make_templates(), tokens=PageTokens(), arena=arena
    )
    install_error_handlers(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    keep = arena is not None if store_casual is None else store_casual
    app.state.play = PlayRoom(db if keep else None, getattr(arena, "hub", None), getattr(arena, "casual", None))
    for module in (pages, api, replay, live, play):
        app.include_router(module.router)
    kept = route_patterns([pages.router, api.router])
    gate = None if limits is None else WebGate(limits)
    app.add_middleware(PageCache, db=db, routes=kept, ttl_s=page_ttl_s, gate=gate)
    if gate is not None:
        app.add_middleware(RateLimits, gate=gate, kept=lambda scope: kept_route(kept, scope) is not None)
    return app
