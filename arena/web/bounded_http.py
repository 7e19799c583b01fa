"""uvicorn's HTTP/1.1 protocol (httptools) held to `WebLimits` on every connection.

uvicorn bounds none of this itself: its `limit_concurrency` counts requests, not connections (and
answers 503 only once a request's headers are in), and its keep-alive time-out starts only after an
answer, so a connection that never sends a request, or trickles its headers, was kept for ever; a
request body was read whole into memory by the app. Here each connection is admitted by the
server's `ConnectionBook` when it is accepted and its time-outs are armed on the parser's events,
before the app sees anything:

- idle: from the connection's start, and from the end of each answer, until a request's first
  byte (uvicorn's own keep-alive handle, so its own cancellations apply);
- head: from a request's first byte (or any byte while none is in progress) until its headers are
  complete, while counting its bytes;
- body: from the headers until the request is complete, while counting the body's bytes;
- stall: while the transport has paused our writes because the client does not read.

A refused request is answered (408, 413, 431) only while nothing else has been sent for it, and
its connection is closed after lingering (`LINGER_S`), so the answer is not lost to a reset; an app
already working on it sees the client gone (its body read ends in `http.disconnect`), so it neither
writes after the refusal nor logs an error. A connection refused at admission (503) is closed at
once: it is not counted, so it must hold nothing. A connection whose answer the client has not
taken is aborted rather than closed, since a close waits for the client to read first.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from arena.web.limits import MAX_HEAD_BYTES, WebLimits

LINGER_S = 1.0
LINGER_BYTES = 1024 * 1024
"""After a refusal the connection is kept (and counted) this long, or until this much more has come,
reading and throwing away what the client still sends: closed at once with unread data, it would be
reset, and a client still sending its request would lose the answer before reading it."""

_REASONS = {
    408: b"Request Timeout",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    503: b"Service Unavailable",
}


def _plain(status: int, message: str, retry_after_s: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer with a plain-text body, closing the connection."""
    body = message.encode() + b"\n"
    head = [
        b"HTTP/1.1 %d %s" % (status, _REASONS[status]),
        b"content-type: text/plain; charset=utf-8",
        b"content-length: %d" % len(body),
        b"connection: close",
    ]
    if retry_after_s is not None:
        head.append(b"retry-after: %d" % retry_after_s)
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class ConnectionBook:
    """The connections of one web server: who is connected from which address, and which are
    waiting idle for a request, the longest-waiting first (the one to close for a newcomer)."""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self._address: dict[BoundedHttp, str] = {}
        self._per_address: Counter[str] = Counter()
        self._idle: dict[BoundedHttp, None] = {}
        """Insertion-ordered: the first waited longest."""

    def admit(self, conn: BoundedHttp, address: str) -> str | None:
        """Count `conn` in, closing the longest-idle connection if the cap is reached; the
        reason to refuse it instead, if every connection is busy or its address has its share."""
        if self._per_address[address] >= self.limits.max_connections_per_address:
            return f"too many connections from {address}"
        if len(self._address) >= self.limits.max_connections:
            if not self._idle:
                return "too many connections"
            oldest = next(iter(self._idle))
            self.leave(oldest)
            oldest.drop()
        self._address[conn] = address
        self._per_address[address] += 1
        return None

    def idle(self, conn: BoundedHttp) -> None:
        """`conn` waits for a request, from now: the newest idle one."""
        if conn in self._address:
            self._idle.pop(conn, None)
            self._idle[conn] = None

    def busy(self, conn: BoundedHttp) -> None:
        """`conn` has begun a request: not to be closed for a newcomer."""
        self._idle.pop(conn, None)

    def leave(self, conn: BoundedHttp) -> None:
        """`conn` is gone (or going): count it out."""
        self._idle.pop(conn, None)
        address = self._address.pop(conn, None)
        if address is not None:
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]


class BoundedHttp(HttpToolsProtocol):
    """One web connection under the book's limits; see the module docstring. A server's own
    subclass (`protocol_for`) carries its book."""

    book: ClassVar[ConnectionBook]

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        limits = self.book.limits
        self._idle_s = limits.idle_timeout_ms / 1000
        self._head_s = limits.header_timeout_ms / 1000
        self._body_s = limits.body_timeout_ms / 1000
        self._max_body = limits.max_body_bytes
        self._request_timer: asyncio.TimerHandle | None = None
        """The head's deadline, then the body's."""
        self._stall_timer: asyncio.TimerHandle | None = None
        self._in_head = True
        """Between requests or within one's line and headers (not in its body)."""
        self._head_bytes = 0
        self._heads = 0
        """Request heads completed on this connection."""
        self._body_bytes = 0
        self._refused = False
        self._discarded = 0
        """Bytes read and thrown away since a refusal."""

    # ---- the connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        refusal = self.book.admit(self, self.client[0] if self.client else "")
        if refusal is not None:
            self._refuse(503, refusal, retry_after_s=max(1, round(self._idle_s)))
            return
        self._wait_for_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self.book.leave(self)
        for timer in (self._request_timer, self._stall_timer):
            if timer is not None:
                timer.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self._discarded += len(data)
            if self._discarded > LINGER_BYTES:
                self.drop()
            return
        self.book.busy(self)
        heads = self._heads
        super().data_received(data)
        if self._refused or self.transport.is_closing() or not self._in_head:
            return
        if heads == self._heads:  # no head was completed in `data`: all of it is (part of) one
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse(431, f"request line and headers over {MAX_HEAD_BYTES} bytes")
                return
        if self._request_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._request_timer = self.loop.call_later(self._head_s, self._timed_out, "request headers")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.timeout_keep_alive_task is not None:  # armed by uvicorn: nothing pipelined, so it waits
            self.timeout_keep_alive_task.cancel()
            self._wait_for_request()

    def timeout_keep_alive_handler(self) -> None:
        self.drop()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self._body_s, self.drop)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def drop(self) -> None:
        """Close the connection; abort it if the client has not taken what was written."""
        self.book.leave(self)
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        elif not self.transport.is_closing():
            self.transport.close()

    # ---- the parser's events -------------------------------------------------------------------

    def on_message_begin(self) -> None:
        if not self._refused:
            super().on_message_begin()

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        length = 0
        has_body = False
        for name, value in self.headers:
            if name == b"content-length":
                has_body = True
                try:
                    length = int(value)
                except ValueError:
                    length = 0
            elif name == b"transfer-encoding":
                has_body = True
        if length > self._max_body:
            self._refuse(413, f"request body over {self._max_body} bytes")
            return
        super().on_headers_complete()
        self._in_head = False
        self._heads += 1
        self._head_bytes = self._body_bytes = 0
        self._cancel_request_timer()
        if has_body:
            self._request_timer = self.loop.call_later(self._body_s, self._timed_out, "request body")

    def on_body(self, body: bytes) -> None:
        if self._refused:
            return
        self._body_bytes += len(body)
        if self._body_bytes > self._max_body:
            self._refuse(413, f"request body over {self._max_body} bytes")
            return
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        super().on_message_complete()
        self._in_head = True
        self._cancel_request_timer()

    # ---- helpers -------------------------------------------------------------------------------

    def _wait_for_request(self) -> None:
        self.timeout_keep_alive_task = self.loop.call_later(self._idle_s, self.timeout_keep_alive_handler)
        self.book.idle(self)

    def _cancel_request_timer(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _timed_out(self, what: str) -> None:
        self._request_timer = None
        budget = self._head_s if what == "request headers" else self._body_s
        self._refuse(408, f"{what} not received within {budget:g} s")

    def _refuse(self, status: int, message: str, retry_after_s: int | None = None) -> None:
        """Answer `status` if nothing has been sent for the request at hand, then drop the
        connection; an app working on this connection's request sees its client gone."""
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        self._cancel_request_timer()
        cycle = self.cycle
        answered = False
        if cycle is not None and not cycle.response_complete:
            answered = cycle.response_started or self._in_head
            cycle.disconnected = True
            cycle.message_event.set()
        elif cycle is not None and not self._in_head:
            answered = True
        if not answered:
            self.transport.write(_plain(status, message, retry_after_s))
        if answered or status == 503:  # a connection refused at admission is not counted: no lingering
            self.drop()
            return
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.flow.resume_reading()
        self._request_timer = self.loop.call_later(LINGER_S, self.drop)


def protocol_for(limits: WebLimits) -> type[BoundedHttp]:
    """The protocol class of one web server (uvicorn's `Config.http`), with its own book."""

    class ServerConnection(BoundedHttp):
        book = ConnectionBook(limits)

    return ServerConnection
