"""The replay viewer of a finished game (`/games/{id}`) and its data: the game's frames
(`/api/games/{id}/frames`, built by `replay_frames`) and its stored record as JSON
(`/api/games/{id}/record`). A game that is not finished has neither: its hands are secret until
it ends (docs/rules.md §9), so its page says so and points to the live view. A casual game (a person's
game on the Play page, `arena.storage.store.casual`) is replayed the same, under the id
`casual-N`."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Awaitable, Callable

from cachetools import LRUCache
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from arena.records import GameDetail, GameStatus
from arena.storage import store
from arena.storage.store.casual import show_casual_game
from arena.web.context import Web
from arena.web.errors import error_response
from arena.web.game_json import Json
from arena.web.params import GameId
from arena.web.replay_frames import frame_json, replay_frames
from arena.web.templating import render

router = APIRouter()

FRAMES_CACHED = 32
"""Finished games never change, so their frames are built once; this many are kept, per app."""
CASUAL_PREFIX = "casual-"
"""A casual game's id in paths is this and its number, apart from the tournament games' numbers."""


def casual_key(casual_id: int) -> str:
    """The id a casual game's pages use: `/games/casual-N`."""
    return f"{CASUAL_PREFIX}{casual_id}"


def _cache(request: Request) -> LRUCache[str, bytes]:
    """The app's frames of the games replayed lately, as JSON, by game id (used on the event loop
    alone, so without a lock)."""
    state = request.app.state
    if not hasattr(state, "replay_frames"):
        state.replay_frames = LRUCache(FRAMES_CACHED)
    cache: LRUCache[str, bytes] = state.replay_frames
    return cache


def _summary(detail: GameDetail) -> Json:
    info = detail.info
    return {
        "id": info.id,
        "tournament": info.tournament,
        "table": info.table_index,
        "game": info.game_index,
        "seats": list(info.seats),
        "rounds": len(detail.record.flips) if detail.record else 0,
        "results": [
            {"seat": s.seat, "bot": s.bot, "points": s.points, "rank": s.rank, "forfeit": s.forfeit}
            for s in info.results
        ],
    }


def _frames_json(detail: GameDetail) -> bytes:
    """The frames document, gzipped: a long game's frames are megabytes of JSON, and a tenth of
    that compressed."""
    assert detail.record is not None
    frames = [frame_json(f) for f in replay_frames(detail.record)]
    return gzip.compress(json.dumps({"game": _summary(detail), "frames": frames}, separators=(",", ":")).encode(), 6)


def _not_finished(request: Request, detail: GameDetail, key: str) -> Response | None:
    if detail.record is not None and detail.info.status is GameStatus.FINISHED:
        return None
    return error_response(
        request,
        409,
        f"game {key} is {detail.info.status.value}: its record is published once it is finished",
    )


Read = Callable[[], Awaitable[GameDetail]]
"""Reads one game from the store (when its frames are not cached)."""


def _page(request: Request, web: Web, detail: GameDetail, key: str, casual: bool) -> HTMLResponse:
    finished = detail.record is not None and detail.info.status is GameStatus.FINISHED
    ranked = sorted(detail.info.results, key=lambda s: (s.rank, s.seat))
    return render(
        web.templates,
        request,
        "replay.html",
        info=detail.info,
        key=key,
        casual=casual,
        finished=finished,
        ranked=ranked,
        rounds=len(detail.record.flips) if detail.record else 0,
        nav="play" if casual else "games",
    )


async def _frames(request: Request, key: str, read: Read) -> Response:
    frames = _cache(request)
    cached = frames.get(key)
    if cached is None:
        detail = await read()
        refused = _not_finished(request, detail, key)
        if refused is not None:
            return refused
        cached = await asyncio.to_thread(_frames_json, detail)
        frames[key] = cached
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            cached, media_type="application/json", headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        )
    return Response(gzip.decompress(cached), media_type="application/json", headers={"Vary": "Accept-Encoding"})


def _record(request: Request, detail: GameDetail, key: str) -> Response:
    refused = _not_finished(request, detail, key)
    if refused is not None:
        return refused
    assert detail.record is not None
    return Response(
        detail.record.to_json(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="game-{key}.json"'},
    )


# The casual routes come first: `/games/{game_id}` would take `casual-N` and refuse it as no number.
@router.get(f"/games/{CASUAL_PREFIX}{{casual_id}}", response_class=HTMLResponse, include_in_schema=False)
async def casual_page(request: Request, web: Web, casual_id: GameId) -> HTMLResponse:
    """A casual game's replay viewer (casual games are stored once finished)."""
    detail = await web.db(show_casual_game, casual_id=casual_id)
    return _page(request, web, detail, casual_key(casual_id), casual=True)


@router.get(f"/api/games/{CASUAL_PREFIX}{{casual_id}}/frames", tags=["games"])
async def casual_frames(request: Request, web: Web, casual_id: GameId) -> Response:
    """Every step of a casual game, as `/api/games/{game_id}/frames` has a tournament game's."""
    return await _frames(request, casual_key(casual_id), lambda: web.db(show_casual_game, casual_id=casual_id))


@router.get(f"/api/games/{CASUAL_PREFIX}{{casual_id}}/record", tags=["games"])
async def casual_record(request: Request, web: Web, casual_id: GameId) -> Response:
    """The stored record of a casual game, which sdk.engine.replay plays back exactly."""
    key = casual_key(casual_id)
    return _record(request, await web.db(show_casual_game, casual_id=casual_id), key)


@router.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def game_page(request: Request, web: Web, game_id: GameId) -> HTMLResponse:
    """A finished game's replay viewer; for a game not finished, what is known of it."""
    detail = await web.db(store.show_game, game_id=game_id)
    return _page(request, web, detail, str(game_id), casual=False)


@router.get("/api/games/{game_id}/frames", tags=["games"])
async def game_frames(request: Request, web: Web, game_id: GameId) -> Response:
    """Every step of a finished game: the omniscient table and each seat's own view (what the
    referee showed that seat), for the replay viewer. 409 while the game is not finished."""
    return await _frames(request, str(game_id), lambda: web.db(store.show_game, game_id=game_id))


@router.get("/api/games/{game_id}/record", tags=["games"])
async def game_record(request: Request, web: Web, game_id: GameId) -> Response:
    """The stored record of a finished game (players, seed, every deal and decision, results):
    enough to replay it exactly (sdk.engine.replay). 409 while the game is not finished."""
    return _record(request, await web.db(store.show_game, game_id=game_id), str(game_id))
