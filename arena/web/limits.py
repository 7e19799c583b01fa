"""What the web port lets its clients hold: connections, time, request bytes and requests a second
(`WebLimits`).

Anyone who can reach the port can open connections and send requests as slowly or as large as
they like, so each is bounded (`arena.web.bounded_http` enforces them on every connection):

- `max_connections`: connections at once. When a new one would pass it, the connection that has
  waited longest for a request is closed to make room (a silent one, or a browser's kept-alive one,
  which it reopens by itself); if every connection is busy with a request, the new one is answered
  503 and closed at once. Each is a file descriptor, which the open-file check at start-up counts
  (`arena.api.resources.fit_open_file_limit`).
- `max_connections_per_address`: connections of one client address; one more is answered 503 and
  closed at once. A browser opens about six per site, so this leaves room for a few dozen people
  behind one address.
- `idle_timeout_ms`: a connection that has sent nothing of a request for that long (a new one, or
  one kept alive after an answer) is closed. An answer in progress, such as a live feed, is never
  idle.
- `header_timeout_ms`: a request's line and headers must arrive whole within that of its first byte
  (a client trickling its headers, slowloris, is answered 408 and closed), and they may take
  `MAX_HEAD_BYTES` at most (431).
- `body_timeout_ms`: a request's body must arrive whole within that of its headers, and an answer
  the client has stopped reading is dropped once it has not moved for that long.
- `max_body_bytes`: the largest request body, by Content-Length (refused 413 before any of it is
  read) or counted as a chunked body streams in (413 once it passes); the JSON API's bodies (the
  Play page's starts and answers) are a few hundred bytes.
- `rate`/`burst`, `global_rate`/`global_burst` and `render_rate`/`render_burst`: the token buckets
  of one address, of every address together and of the renders everyone shares
  (`arena.web.rate_limits` says what each counts).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

MAX_HEAD_BYTES = 32 * 1024
"""The most a request's line and headers may take: a browser's are one or two kilobytes."""
BACKLOG = 128
"""Connections the kernel queues for the web port. The event loop accepts up to this many at once
before any is closed for the cap, so the open-file check counts them (`FD_RESERVE`)."""


@dataclass(frozen=True)
class WebLimits:
    """The caps of the web port; see the module docstring for what each bounds."""

    max_connections: int = 1000
    max_connections_per_address: int = 128
    idle_timeout_ms: int = 5_000
    """uvicorn's own keep-alive default; a browser reopens a closed idle connection by itself."""
    header_timeout_ms: int = 10_000
    body_timeout_ms: int = 10_000
    max_body_bytes: int = 16 * 1024
    rate: float = 20.0
    """Web requests per second of one address (static assets not counted; `rate_limits`)."""
    burst: int = 200
    """...and how many it may make at once (a page and its assets, a few tabs opened together)."""
    global_rate: float = 500.0
    """Web requests per second of every address together."""
    global_burst: int = 1000
    render_rate: float = 25.0
    """Web answers rendered per second for every address together (answers the page cache keeps are
    not counted): the share of the arena's work a page flood from any number of addresses can take."""
    render_burst: int = 100

    def __post_init__(self) -> None:
        for f in fields(self):
            if not getattr(self, f.name) > 0:
                raise ValueError(f"{f.name} must be positive, not {getattr(self, f.name)}")

    @classmethod
    def from_options(cls, values: dict[str, Any]) -> WebLimits:
        """From command-line values by field name (None: the default); ValueError naming the option."""
        try:
            return cls(**{k: v for k, v in values.items() if v is not None})
        except ValueError as exc:
            name = str(exc).split(" ", 1)[0]
            raise ValueError(str(exc).replace(name, web_option(name), 1)) from None


WEB_OPTION_HELP = {
    "max_connections": (
        "Most web connections at once; past it the one idle longest is closed, or the new one if none is idle."
    ),
    "max_connections_per_address": "Most web connections from one address; one more is answered 503 and closed.",
    "idle_timeout_ms": "Close a web connection that has sent nothing of a request for this long.",
    "header_timeout_ms": "Close a web connection whose request headers have not all come this long after they began.",
    "body_timeout_ms": (
        "Close a web connection whose request body has not all arrived this long after its headers, "
        "or whose answer has not been read for this long."
    ),
    "max_body_bytes": "Largest web request body; a larger one is answered 413 without being read.",
    "rate": "Web requests per second of one address (static files not counted); beyond it 429.",
    "burst": "Web requests one address may make at once.",
    "global_rate": "Web requests per second of every address together; beyond it 429.",
    "global_burst": "Web requests every address together may make at once.",
    "render_rate": "Web answers rendered per second for every address together (kept answers not counted).",
    "render_burst": "Web answers rendered at once for every address together.",
}
"""The command-line help of each field, for `scout-arena serve` and `scout-arena web`."""


def web_option(name: str) -> str:
    """The command-line option of a field: max_connections -> --web-max-connections."""
    return "--web-" + name.replace("_", "-")
