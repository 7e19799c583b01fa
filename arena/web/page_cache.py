"""The answers of the pages and the API kept whole, so a flood of page loads costs the arena
next to nothing: an ASGI middleware answers a GET of one of the app's own read routes from its
last answer as long as nothing it could show has changed (`reads.play_version`).

The version is asked of the database at most once every `ttl_s` seconds, and a page is rendered
at most once per version and `ttl_s`, however many ask for it meanwhile. When the version has
moved on and the page's older answer is kept, that answer is served at once while the page is
rendered again in the background (stale while revalidating: an older answer shows less than the
new one would, never more), so no load waits for a render but a URL's first; a page lags the
arena by `ttl_s` and one render at most. With `ttl_s` 0 every load waits for the current answer
(one renders, the others wait for it). Only routes of this app's own
`pages` and `api` routers are kept (no streams, no other module's routes), only 200 answers,
keyed by path and the query parameters the route declares (`KeptRoute`): any other parameter is
dropped from the query before the route sees it, so it changes neither the answer nor the key, and
a flood of made-up query strings is answered from one kept answer. (Ignored rather than refused
422: links shared with a tracking parameter added keep working, and a page cannot show what it
does not read.) Every caller gets the same answer for the same key (the pages have no
per-caller content), so keeping one can never show anyone more than the public read models do,
and an answer is never kept past a change of the version: what a game, a tournament's seed or a
record reveals only becomes public with such a change, never the other way round.

Each kept answer has an ETag (a digest of its body); a browser that sends it back in
If-None-Match gets a 304 without the body. The kept answers are bounded in number and in bytes,
the least recently used dropped first.

A render spends from the web port's shared render budget (`rate_limits.WebGate.render`); when it
is spent, a URL whose older answer is still kept gets that one (it shows less than the new one
would, never more), any other a 429 with Retry-After.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from re import Pattern
from typing import Any
from urllib.parse import parse_qsl, urlencode

from cachetools import LRUCache
from fastapi import params
from fastapi.dependencies.utils import get_flat_params
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.storage.async_store import AsyncStore
from arena.storage.reads import play_version
from arena.web.rate_limits import WebGate, refuse

log = logging.getLogger(__name__)

KEPT_ANSWERS = 512
"""Answers kept at most."""
KEPT_BYTES = 32 * 1024 * 1024
"""Bytes of kept bodies at most; a body above a quarter of it is answered but not kept."""
REVALIDATE = (b"cache-control", b"no-cache")
"""Kept answers tell browsers to ask again each time (with their ETag): a page changes with the arena."""


@dataclass(frozen=True, slots=True)
class KeptRoute:
    """A route whose answers may be kept: its path pattern and the query parameters it reads."""

    path: Pattern[str]
    params: tuple[str, ...]

    def query(self, query_string: bytes) -> bytes:
        """`query_string` with only this route's parameters, each with its last value (the one
        the route reads), in the route's order: the same for every query the route reads alike."""
        given = dict(parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))
        return urlencode([(name, given[name]) for name in self.params if name in given]).encode("latin-1")


@dataclass(frozen=True, slots=True)
class _Answer:
    version: tuple[Any, ...]
    start: Message
    body: bytes
    etag: bytes


@dataclass(slots=True)
class _Flight:
    """The render of one URL under way, and how many callers wait for it (then it is forgotten)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


class PageCache:
    """The middleware: `routes` are the routes whose GET answers may be kept; `gate`, if any,
    holds the render budget."""

    def __init__(
        self,
        app: ASGIApp,
        db: AsyncStore,
        routes: Iterable[KeptRoute],
        ttl_s: float = 1.0,
        max_bytes: int = KEPT_BYTES,
        gate: WebGate | None = None,
    ) -> None:
        self._app = app
        self._db = db
        self._routes = tuple(routes)
        self._gate = gate
        self._ttl_s = ttl_s
        self._max_bytes = max_bytes
        self._answers: LRUCache[tuple[str, bytes], _Answer] = LRUCache(max_bytes, getsizeof=_body_bytes)
        """Bounded by their bodies' bytes here, by their number in `_keep` (used on the event loop alone)."""
        self._rendering: dict[tuple[str, bytes], _Flight] = {}
        self._refreshing: set[asyncio.Task[None]] = set()
        self._version: tuple[Any, ...] | None = None
        self._asked = -float("inf")
        self._asking: asyncio.Lock | None = None

    @property
    def kept_bytes(self) -> int:
        """Bytes of the bodies kept now."""
        return int(self._answers.currsize)

    @property
    def kept(self) -> int:
        """Answers kept now."""
        return len(self._answers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = kept_route(self._routes, scope)
        if route is None:
            await self._app(scope, receive, send)
            return
        scope = {**scope, "query_string": route.query(scope["query_string"])}
        key = (scope["path"], scope["query_string"])
        version = await self._current()
        held = self._fresh(key, version)
        if held is None and self._ttl_s > 0 and (held := self._answers.get(key)) is not None:
            self._refresh(scope, key, version)
        if held is None:
            flight = self._rendering.setdefault(key, _Flight())
            flight.callers += 1
            try:
                async with flight.lock:
                    held = self._fresh(key, version)
                    if held is None:
                        refusal = None if self._gate is None else self._gate.render()
                        if refusal is None:
                            held = await self._render(scope, receive, send, key, version)
                        elif (held := self._answers.get(key)) is None:
                            await refuse(scope, send, refusal)
            finally:
                flight.callers -= 1
                if not flight.callers:
                    del self._rendering[key]
            if held is None:
                return
        await self._send(scope, send, held)

    def _refresh(self, scope: Scope, key: tuple[str, bytes], version: tuple[Any, ...]) -> None:
        """Render `key` again for `version` in the background (unless a render of it is under
        way, or the render budget is spent), while its older answer is served meanwhile."""
        if key in self._rendering:
            return
        flight = self._rendering[key] = _Flight(callers=1)

        async def render() -> None:
            try:
                async with flight.lock:
                    if self._gate is None or self._gate.render() is None:
                        await self._render(scope, _no_body, _discard, key, version)
            except Exception:
                log.exception("the page %s could not be rendered again", scope["path"])
            finally:
                del self._rendering[key]

        task = asyncio.create_task(render(), name=f"render {scope['path']}")
        self._refreshing.add(task)
        task.add_done_callback(self._refreshing.discard)

    def _fresh(self, key: tuple[str, bytes], version: tuple[Any, ...]) -> _Answer | None:
        held = self._answers.get(key)
        if held is None or held.version != version:
            return None
        return held

    async def _current(self) -> tuple[Any, ...]:
        """The arena's version, asked again once it is `ttl_s` old (one caller asks, the rest wait)."""
        if self._asking is None:
            self._asking = asyncio.Lock()
        async with self._asking:
            if self._version is None or time.monotonic() - self._asked >= self._ttl_s:
                self._version = await self._db(play_version)
                self._asked = time.monotonic()
            return self._version

    async def _send(self, scope: Scope, send: Send, held: _Answer) -> None:
        """The kept answer, or 304 if the browser holds it already (its ETag in If-None-Match)."""
        asked = next((value for name, value in scope["headers"] if name == b"if-none-match"), None)
        if asked is not None and held.etag in (tag.strip() for tag in asked.split(b",")):
            headers = [(b"etag", held.etag), REVALIDATE]
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        await send(held.start)
        await send({"type": "http.response.body", "body": held.body})

    async def _render(
        self, scope: Scope, receive: Receive, send: Send, key: tuple[str, bytes], version: tuple[Any, ...]
    ) -> _Answer | None:
        """Run the app; a whole 200 answer is kept and returned (to be sent by the caller, with
        its ETag), anything else is sent on as it comes and None returned."""
        start: Message | None = None
        chunks: list[bytes] = []
        passing = False

        async def keeping(message: Message) -> None:
            nonlocal start, passing
            if passing:
                await send(message)
            elif message["type"] == "http.response.start":
                start = message
                if message["status"] != 200:
                    passing = True
                    await send(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                passing = True

        await self._app(scope, receive, keeping)
        if start is None or start["status"] != 200:
            return None
        body = b"".join(chunks)
        etag = b'"' + hashlib.blake2b(body, digest_size=12).hexdigest().encode() + b'"'
        headers = [(name, value) for name, value in start.get("headers", []) if name not in (b"etag", b"cache-control")]
        held = _Answer(version, {**start, "headers": [*headers, (b"etag", etag), REVALIDATE]}, body, etag)
        self._keep(key, held)
        return held

    def _keep(self, key: tuple[str, bytes], held: _Answer) -> None:
        if len(held.body) > self._max_bytes // 4:
            return
        self._answers[key] = held
        while len(self._answers) > KEPT_ANSWERS:
            self._answers.popitem()


def _body_bytes(held: _Answer) -> int:
    return len(held.body)


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _discard(message: Message) -> None:
    """Where a background render's answer goes when it is not kept (an error, say): nowhere."""


def kept_route(routes: Iterable[KeptRoute], scope: Scope) -> KeptRoute | None:
    """The route of `routes` whose answer to the request of `scope` may be kept: a GET of its path."""
    if scope["type"] != "http" or scope["method"] != "GET":
        return None
    return next((route for route in routes if route.path.match(scope["path"])), None)


def route_patterns(routers: Iterable[Any]) -> list[KeptRoute]:
    """Every route of `routers` (FastAPI APIRouters): its path pattern and the query parameters it
    declares (its own and its dependencies')."""
    return [
        KeptRoute(
            route.path_regex,
            tuple(f.alias for f in get_flat_params(route.dependant) if isinstance(f.field_info, params.Query)),
        )
        for router in routers
        for route in router.routes
        if hasattr(route, "path_regex") and hasattr(route, "dependant")
    ]
