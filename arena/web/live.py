"""Live games (`/games/{id}/live`): a running game as a spectator sees it, pushed to the page as
Server-Sent Events (`/api/games/{id}/events`) after the tournament's spectator delay.

The stream carries public events only, and the table folded from them (`live_stream`): never a
hand, never the seed (docs/rules.md §9). Live games exist where the app is served inside the arena
(`scout-arena serve`): its referee publishes them to the arena's `SpectatorHub`. Served over a
database alone there is nothing live, and the stream says so.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from arena.play.spectators import Crowded, SpectatorHub
from arena.records import GameStatus
from arena.storage import store
from arena.token_buckets import address_key
from arena.web.context import Web, WebContext
from arena.web.errors import error_response
from arena.web.live_stream import EventStream, LiveCursor, sse
from arena.web.params import GameId
from arena.web.templating import render

router = APIRouter()


def spectators(web: WebContext) -> SpectatorHub | None:
    """The hub of the arena the app is served in; None over a database alone."""
    referee = getattr(web.arena, "referee", None)
    hub: SpectatorHub | None = getattr(referee, "spectators", None)
    return hub


async def _ended(game_id: int) -> AsyncIterator[bytes]:
    yield sse(("end", {"game_id": game_id, "finished": True}))


@router.get("/games/{game_id}/live", response_class=HTMLResponse, include_in_schema=False)
async def live_page(request: Request, web: Web, game_id: GameId) -> HTMLResponse:
    """A game as spectators follow it while it runs; a finished game's page points to its replay."""
    detail = await web.db(store.show_game, game_id=game_id)
    hub = spectators(web)
    feed = None if hub is None else hub.feed(game_id)
    return render(
        web.templates,
        request,
        "live.html",
        info=detail.info,
        served_live=hub is not None,
        delay_s=None if feed is None else feed.delay_s,
        finished=detail.info.status is GameStatus.FINISHED,
        nav="games",
    )


@router.get(
    "/api/games/{game_id}/events",
    tags=["games"],
    response_class=Response,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def live_events(request: Request, web: Web, game_id: GameId) -> Response:
    """The game's public events as Server-Sent Events, each released the tournament's spectator
    delay after it was played: `game` (an attempt starts: seats, delay), `event` (one public
    event and the public table after it), `waiting` (not playing now), `end`. No hand, no seed.
    429 with Retry-After when the arena has as many spectators as it takes, from this address or
    in all (its last places are kept for addresses watching nothing yet)."""
    detail = await web.db(store.show_game, game_id=game_id)
    hub = spectators(web)
    if hub is None:
        return error_response(request, 503, "this server shows a database alone: no game is live here")
    try:
        ticket = hub.admit(address_key(request.client.host) if request.client else "")
    except Crowded as exc:
        refused = error_response(request, 429, str(exc))
        refused.headers["retry-after"] = str(math.ceil(exc.retry_after_s))
        return refused
    if detail.info.status is GameStatus.FINISHED and hub.feed(game_id) is None:
        return EventStream(_ended(game_id), ticket)
    return EventStream(LiveCursor(hub, game_id).chunks(), ticket)
