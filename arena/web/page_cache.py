"""The answers of the pages and the API kept whole, so a flood of page loads costs the arena
next to nothing: an ASGI middleware answers a GET of one of the app's own read routes from its
last answer as long as nothing it could show has changed (`reads.play_version`).

The version is asked of the database at most once every `ttl_s` seconds, so a page may lag the
arena by that much (half a second by default: the pages of a live tournament poll every 2 s).
Only routes of this app's own `pages` and `api` routers are kept (no streams, no other module's
routes), only 200 answers, keyed by path and query; every caller gets the same answer for the
same URL (the pages have no per-caller content), so keeping one can never show anyone more than
the public read models do.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from re import Pattern
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.storage.async_store import AsyncStore
from arena.web.reads import play_version

KEPT_ANSWERS = 512
"""Answers kept at most, the least recently used dropped first."""


@dataclass(frozen=True, slots=True)
class _Answer:
    version: tuple[Any, ...]
    start: Message
    body: bytes


class PageCache:
    """The middleware: `routes` are the path patterns whose GET answers may be kept."""

    def __init__(self, app: ASGIApp, db: AsyncStore, routes: Iterable[Pattern[str]], ttl_s: float = 0.5) -> None:
        self._app = app
        self._db = db
        self._routes = tuple(routes)
        self._ttl_s = ttl_s
        self._answers: OrderedDict[tuple[str, bytes], _Answer] = OrderedDict()
        self._version: tuple[Any, ...] | None = None
        self._asked = -float("inf")
        self._asking: asyncio.Lock | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not self._keeps(scope["path"]):
            await self._app(scope, receive, send)
            return
        key = (scope["path"], scope["query_string"])
        version = await self._current()
        held = self._answers.get(key)
        if held is not None and held.version == version:
            self._answers.move_to_end(key)
            await send(held.start)
            await send({"type": "http.response.body", "body": held.body})
            return
        await self._answer_and_keep(scope, receive, send, key, version)

    def _keeps(self, path: str) -> bool:
        return any(route.match(path) for route in self._routes)

    async def _current(self) -> tuple[Any, ...]:
        """The arena's version, asked again once it is `ttl_s` old (one caller asks, the rest wait)."""
        if self._asking is None:
            self._asking = asyncio.Lock()
        async with self._asking:
            if self._version is None or time.monotonic() - self._asked >= self._ttl_s:
                self._version = await self._db(play_version)
                self._asked = time.monotonic()
            return self._version

    async def _answer_and_keep(
        self, scope: Scope, receive: Receive, send: Send, key: tuple[str, bytes], version: tuple[Any, ...]
    ) -> None:
        start: Message | None = None
        chunks: list[bytes] = []
        whole = True

        async def keeping(message: Message) -> None:
            nonlocal start, whole
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                whole = whole and not message.get("more_body", False)
            await send(message)

        await self._app(scope, receive, keeping)
        if start is not None and start["status"] == 200 and whole:
            self._answers[key] = _Answer(version, start, b"".join(chunks))
            self._answers.move_to_end(key)
            while len(self._answers) > KEPT_ANSWERS:
                self._answers.popitem(last=False)


def route_patterns(routers: Iterable[Any]) -> list[Pattern[str]]:
    """The path patterns of every route of `routers` (FastAPI APIRouters)."""
    return [route.path_regex for router in routers for route in router.routes if hasattr(route, "path_regex")]
