"""The Play page: a person takes a seat against house bots (`arena.play.casual`).

`GET /play` is the page (and gives the browser its session cookie); the game is driven by
`POST /api/play/games` (start), `GET /api/play/games/{id}` (what the game's address holds, for
whoever opens it: the page asks before it follows the feed), `GET /api/play/games/{id}/feed` (the seat's messages as
Server-Sent Events, one JSON object each) and `POST /api/play/games/{id}/decisions` (an answer to
the seat's open request, judged by the referee); once it is over, it is stored and replayed at `/games/casual-N`
(the `replay` of its last message), and `GET /api/play/games/{id}/record` is its game record. A
game answers only its own session's cookie.

A start may find the room full: it is answered 202 with the person's place in the queue, and the
page asks again (the same POST) every `retry_ms` until the game starts (`play_room`). A game whose
connected bot was needed by a tournament game ends early (`casual.CasualGame.give_way`): its feed's
last message is `{"type": "stopped", "message": ...}`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from arena.play.casual import BOT_MOVE_MS, PERSON_LIMITS, CasualGame
from arena.play.house_pool import house_bots
from arena.play.sessions import Answer, AtCapacity, MalformedDecision
from arena.token_buckets import address_key
from arena.web.context import Web
from arena.web.play_room import FINISHED_KEPT, QUEUE_POLL_S, PlayLimit, PlayRoom, Queued
from arena.web.seat_json import message_json, reply_json
from arena.web.templating import render
from sdk.engine.actions import action_from_dict
from sdk.protocol import ArenaMessage, Decision

router = APIRouter()

COOKIE = "scout_play"
GUEST = "guest"
"""The person's name in the game's record and replay when they give none (the page says "You")."""
KEEPALIVE_S = 15.0
"""How often an idle feed sends a comment, so proxies keep the connection open."""


class StartGame(BaseModel):
    rivals: list[str] = Field(min_length=1, max_length=4)
    move_ms: int = 800
    name: str = Field(default="", max_length=24)


class Answered(BaseModel):
    request_id: int
    action: dict[str, Any]


def _room(request: Request) -> PlayRoom:
    room: PlayRoom = request.app.state.play
    return room


def _session(request: Request) -> str:
    session = request.cookies.get(COOKIE, "")
    if not session:
        raise HTTPException(403, "no play session: open /play first (it sets the session cookie)")
    return session


def _game(request: Request, game_id: str) -> CasualGame:
    casual = _room(request).find(game_id, _session(request))
    if casual is None:
        raise HTTPException(404, f"you are not playing a game {game_id!r}")
    return casual


@router.get("/play", response_class=HTMLResponse, include_in_schema=False)
async def play_page(request: Request, web: Web) -> Response:
    response = render(
        web.templates,
        request,
        "play.html",
        nav="play",
        bots=house_bots(),
        connected=[(c.name, not _room(request).takes(c)) for c in _room(request).casual_bots()],
        move_range=BOT_MOVE_MS,
        person_move_s=PERSON_LIMITS.move_ms // 1000,
        person_bank_s=PERSON_LIMITS.time_bank_ms // 1000,
    )
    if not request.cookies.get(COOKIE):
        response.set_cookie(COOKIE, secrets.token_urlsafe(18), httponly=True, samesite="strict")
    return response


@router.post("/api/play/games")
async def start_game(request: Request, body: StartGame) -> JSONResponse:
    address = address_key(request.client.host) if request.client else "?"  # an IPv6 host by its /64
    name = " ".join(body.name.split()) or GUEST
    try:
        casual = await _room(request).start(_session(request), address, name, body.rivals, body.move_ms)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    except AtCapacity as exc:
        raise HTTPException(409, str(exc)) from None
    except PlayLimit as exc:
        return JSONResponse(
            {"error": {"status": 429, "message": str(exc)}},
            status_code=429,
            headers={"Retry-After": str(max(1, round(exc.retry_s)))},
        )
    except Queued as exc:
        retry_ms = round(QUEUE_POLL_S * 1000)
        return JSONResponse(
            {"queued": True, "place": exc.place, "reason": exc.reason, "message": str(exc), "retry_ms": retry_ms},
            status_code=202,
            headers={"Retry-After": str(round(QUEUE_POLL_S))},
        )
    return JSONResponse({"game_id": casual.game_id, "players": list(casual.seat_names)}, status_code=201)


@router.delete("/api/play/queue", status_code=204)
async def leave_queue(request: Request) -> Response:
    """The person no longer waits: their queue place goes to the next at once."""
    _room(request).leave(_session(request))
    return Response(status_code=204)


@router.get("/api/play/games/{game_id}/feed")
async def feed(request: Request, game_id: str) -> StreamingResponse:
    casual = _game(request, game_id)
    return StreamingResponse(_events(casual), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def _events(casual: CasualGame) -> AsyncIterator[str]:
    """The seat's messages as they come; the seat's stream is open exactly while this runs."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def deliver(msg: ArenaMessage) -> None:
        out = message_json(msg, casual.view())
        if out is not None:
            queue.put_nowait(out)

    if casual.done.is_set():
        yield _sse(_ended(casual))
        return
    conn, stream = casual.attach(deliver)

    def stopped(_: object) -> None:
        if casual.stopped is not None:  # it ended without its seat hearing of it: it gave way
            queue.put_nowait(_ended(casual))

    ending = asyncio.ensure_future(casual.done.wait())
    ending.add_done_callback(stopped)
    try:
        while True:
            try:
                out = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                if casual.done.is_set():
                    break
                yield ": keepalive\n\n"
                continue
            if out["type"] == "over":
                await casual.done.wait()  # stored by now: the page links to its replay
                out["replay"] = casual.replay
            yield _sse(out)
            if out["type"] in ("over", "stopped") or (out["type"] == "error" and stream.closed):
                break
    finally:
        ending.cancel()
        casual.detach(conn, stream)


def _state(casual: CasualGame) -> str:
    if not casual.done.is_set():
        return "playing"
    if casual.stopped is not None:
        return "stopped"
    return "failed" if casual.result is None else "over"


@router.get("/api/play/games/{game_id}")
async def game_state(request: Request, game_id: str) -> JSONResponse:
    """What a game's address holds for whoever opens it: whether it is this browser's game
    (`yours`), its `state` (playing, over, stopped: ended early, or failed) and, once it is stored,
    its public `replay`. Nothing else of another browser's game: its seat and its feed are the
    session's that started it, and a game in play shows nobody but its player anything of it."""
    casual = _room(request).games.get(game_id)
    if casual is None:
        raise HTTPException(
            404,
            f"there is no game {game_id!r} here: a game's address lasts while it is played and for the"
            f" latest {FINISHED_KEPT} finished games, until the arena restarts",
        )
    session = request.cookies.get(COOKIE, "")
    yours = bool(session) and casual.owner == session
    return JSONResponse({"game_id": game_id, "yours": yours, "state": _state(casual), "replay": casual.replay})


def _ended(casual: CasualGame) -> dict[str, Any]:
    if casual.stopped is not None:
        return {
            "type": "stopped",
            "message": f"This game ended early: {casual.stopped}. It is not kept, since it did not finish.",
        }
    if casual.result is None:
        return {"type": "error", "message": casual.error or "the game did not finish"}
    seats = casual.result.seats
    return {
        "type": "over",
        "totals": [s.points for s in seats],
        "ranks": [s.rank for s in seats],
        "forfeits": [[s.seat, s.forfeit] for s in seats if s.forfeit],
        "players": list(casual.seat_names),
        "seat": casual.seat,
        "replay": casual.replay,
    }


def _sse(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, separators=(',', ':'))}\n\n"


@router.post("/api/play/games/{game_id}/decisions")
async def decide(request: Request, game_id: str, body: Answered) -> JSONResponse:
    casual = _game(request, game_id)
    answer: Answer
    try:
        answer = Decision(game_id, body.request_id, action_from_dict(body.action))
    except ValueError as exc:
        answer = MalformedDecision(game_id, body.request_id, str(exc))
    reply = casual.submit(answer)
    if reply is None:
        raise HTTPException(409, f"game {game_id!r} is over")
    return JSONResponse(reply_json(reply))


@router.get("/api/play/games/{game_id}/record")
async def record(request: Request, game_id: str) -> Response:
    """The finished game's record (`GameRecord.to_json`), which `sdk.engine.replay` plays back."""
    casual = _game(request, game_id)
    if casual.result is None:
        raise HTTPException(409, f"game {game_id!r} is not over: its record would show the hands in play")
    return Response(casual.result.record.to_json(), media_type="application/json")
