"""Every failed request gets a page or a JSON error naming what was wrong, never a traceback.

Under `/api/` the answer is `{"error": {"status": N, "message": "..."}}`; elsewhere it is the
error page. Unknown names and ids are 404, bad query values and page tokens 422 (FastAPI's own
validation errors included), and anything unexpected is logged here and answered 500 with no
detail of the server's insides.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from arena.errors import ArenaError, InvalidBootstrap, InvalidPage, UnknownBot, UnknownGame, UnknownTournament
from arena.web.templating import render

log = logging.getLogger(__name__)

_STATUS: dict[type[ArenaError], int] = {
    UnknownBot: 404,
    UnknownTournament: 404,
    UnknownGame: 404,
    InvalidPage: 422,
    InvalidBootstrap: 422,
}
_TITLES = {404: "Not found", 405: "Not allowed", 422: "Not a valid request", 500: "Something went wrong"}


def error_response(request: Request, status: int, message: str) -> Response:
    """The JSON error (under /api/) or the error page for `status`."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"status": status, "message": message}}, status_code=status)
    templates = request.app.state.web.templates
    title = _TITLES.get(status, "Error")
    return render(templates, request, "error.html", status_code=status, status=status, title=title, message=message)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("query", "path"))
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid")))
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    """Answer arena errors, HTTP errors, validation errors and the unexpected as described above."""

    async def arena_error(request: Request, exc: Exception) -> Response:
        status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 422)
        return error_response(request, status, str(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = (
            exc.detail
            if exc.status_code != 404 or exc.detail != "Not Found"
            else (f"there is no page {request.url.path}")
        )
        return error_response(request, exc.status_code, str(message))

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(request, 422, _validation_message(exc))

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("web request %s failed", request.url.path)
        return error_response(request, 500, "the arena could not answer this request; it is logged")

    app.add_exception_handler(ArenaError, arena_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(Exception, unexpected)
