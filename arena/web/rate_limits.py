"""How often the web port answers whom: token buckets per address and for everyone together,
answered 429 with Retry-After, and a budget of the work behind the answers.

The pages and the JSON API need no login, so anyone who can reach the port can loop them. Every
request but a static asset's spends from three buckets (`arena.token_buckets.RateLimiter`, the one
the gRPC read calls use):

- its address's (`WebLimits.rate`/`burst`, `arena.web.limits`): a person clicking around never notices
  it, a loop from one address is slowed to the refill rate;
- everyone's (`global_rate`/`global_burst`): however many addresses a flood comes from, the port
  answers at most that many requests a second, a 429 costing far less than an answer;
- and, when the answer is work (a page or an API answer rendered, not one the page cache keeps;
  a replay or a live page read), the render budget everyone shares (`render_rate`/
  `render_burst`): a render reads the database and builds the page, a kept answer is a copy.

The address's and everyone's buckets are asked in that order, so a flooder refused by its own
bucket spends nothing of everyone's. The Play room's own requests (`/play`, `/api/play/`) and
the live feeds (`/api/games/{id}/events`) spend from the first two only: each has its own caps
(the room's places, the spectators' places), and a page flood must not take a person's casual
game or a crowd's live view away. A refusal is a 429 with Retry-After (whole seconds), a JSON error under /api/
and a short page elsewhere, made without touching the app or the database.

An address is the connection's peer (an IPv6 one counted by its /64, a host's usual allocation).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from arena.token_buckets import RateLimiter, address_key
from arena.web.limits import WebLimits

UNLIMITED_PATHS = ("/static/",)
"""Paths that spend from no bucket: the static assets, files a browser keeps."""
PLAY_PAGE = "/play"
PLAY_API = "/api/play/"
"""The Play room's page and calls: not charged to the render budget (see the module docstring)."""
LIVE_FEED = re.compile(r"/api/games/[^/]+/events")
"""A live feed: not charged to the render budget either (its places are capped)."""
EVERYONE = ""
"""The key of the buckets every address shares."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is refused, and how long to wait before asking again."""

    message: str
    wait_s: float


class WebGate:
    """The buckets of one web app, as `limits` sets them (its rate and burst fields)."""

    def __init__(self, limits: WebLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self._addresses = RateLimiter(limits.rate, limits.burst, clock=clock)
        self._everyone = RateLimiter(limits.global_rate, limits.global_burst, clock=clock)
        self._renders = RateLimiter(limits.render_rate, limits.render_burst, clock=clock)

    def admit(self, address: str) -> Refusal | None:
        """Spend one request of `address` and of everyone; the refusal if either bucket is empty."""
        key = address_key(address)
        if not self._addresses.allow(key):
            return Refusal(
                f"too many requests from {key} (at most {self._addresses.rate:g} a second, "
                f"{self._addresses.burst} at once)",
                self._addresses.retry_after(key),
            )
        if not self._everyone.allow(EVERYONE):
            return Refusal(
                f"the arena is answering as many requests as it takes ({self._everyone.rate:g} a second)",
                self._everyone.retry_after(EVERYONE),
            )
        return None

    def render(self) -> Refusal | None:
        """Spend one render of everyone's budget; the refusal if it is spent."""
        if self._renders.allow(EVERYONE):
            return None
        return Refusal(
            f"the arena is rendering as many pages as it takes ({self._renders.rate:g} a second)",
            self._renders.retry_after(EVERYONE),
        )


async def refuse(scope: Scope, send: Send, refusal: Refusal) -> None:
    """Answer 429 with Retry-After: the API's JSON error under /api/, a short page elsewhere."""
    wait = max(1, math.ceil(refusal.wait_s))
    message = f"{refusal.message}: try again in {wait} s"
    if scope["path"].startswith("/api/"):
        body = json.dumps({"error": {"status": 429, "message": message}}).encode()
        kind = b"application/json"
    else:
        body = f"<!doctype html><title>Too many requests</title><h1>Too many requests</h1><p>{message}</p>\n".encode()
        kind = b"text/html; charset=utf-8"
    headers = [
        (b"content-type", kind),
        (b"content-length", b"%d" % len(body)),
        (b"retry-after", b"%d" % wait),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RateLimits:
    """The middleware: every request but a static asset's is admitted by `gate` (its address's
    and everyone's buckets); one that `kept(scope)` does not say the page cache may answer, and
    that is not the Play room's, spends a render too (the page cache charges its own renders)."""

    def __init__(self, app: ASGIApp, gate: WebGate, kept: Callable[[Scope], bool]) -> None:
        self._app = app
        self._gate = gate
        self._kept = kept

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(UNLIMITED_PATHS):
            await self._app(scope, receive, send)
            return
        client: Any = scope.get("client")
        refusal = self._gate.admit(client[0] if client else "")
        capped = path == PLAY_PAGE or path.startswith(PLAY_API) or LIVE_FEED.fullmatch(path) is not None
        if refusal is None and not capped and not self._kept(scope):
            refusal = self._gate.render()
        if refusal is not None:
            await refuse(scope, send, refusal)
            return
        await self._app(scope, receive, send)
