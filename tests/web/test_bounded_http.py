"""The web port's protocol (arena.web.bounded_http) on a small app in this process, with small limits so a
few sockets reach them: the connection caps and who is closed for a newcomer, the time-outs, the
size caps, and what honest use keeps (many requests on one connection, a feed longer than every
time-out)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from arena.web.limits import MAX_HEAD_BYTES, WebLimits
from arena.web.serving import WebServer, bind, start_web

T = TypeVar("T")
BOUND_S = 10.0
"""Bound on every wait for the server to act; the time-outs under test are well below it."""
SHORT = WebLimits(idle_timeout_ms=400, header_timeout_ms=400, body_timeout_ms=400)
FEED_S = 1.5

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Started(BaseModel):
    rivals: list[str]


def small_app() -> FastAPI:
    app = FastAPI()
    app.state.bodies = []

    @app.get("/")
    async def root() -> dict[str, int]:
        return {"ok": 1}

    @app.post("/start")
    async def start(body: Started) -> dict[str, int]:
        app.state.bodies.append(body)
        return {"rivals": len(body.rivals)}

    @app.get("/feed")
    async def feed() -> StreamingResponse:
        async def events() -> AsyncIterator[str]:
            began = time.monotonic()
            while time.monotonic() - began < FEED_S:
                yield "data: {}\n\n"
                await asyncio.sleep(0.1)
            yield "data: over\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.get("/big")
    async def big(request: Request) -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(400):
                yield b"x" * 65536

        return StreamingResponse(chunks())

    return app


def with_server(limits: WebLimits, test: Callable[[WebServer, FastAPI], Awaitable[T]]) -> T:
    async def main() -> T:
        app = small_app()
        web = await start_web(app, bind("127.0.0.1", 0), limits)
        try:
            return await test(web, app)
        finally:
            await web.stop()

    return asyncio.run(main())


async def connect(web: WebServer, host: str = "127.0.0.1") -> Streams:
    return await asyncio.open_connection("127.0.0.1", web.port, local_addr=(host, 0))


async def answer(streams: Streams) -> bytes:
    """Everything the server sends until it closes the connection (within BOUND_S)."""
    try:
        return await asyncio.wait_for(streams[0].read(), BOUND_S)
    except ConnectionError:
        return b""


async def get(web: WebServer, path: str = "/") -> bytes:
    reader, writer = await connect(web)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
    try:
        return await answer((reader, writer))
    finally:
        writer.close()


async def is_closed(streams: Streams, within_s: float = 0.5) -> bool:
    try:
        return await asyncio.wait_for(streams[0].read(1), within_s) == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True


def test_past_the_cap_the_longest_idle_connection_makes_room_and_busy_ones_are_kept() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        feed = await connect(web)
        feed[1].write(b"GET /feed HTTP/1.1\r\nHost: t\r\n\r\n")
        await feed[0].readuntil(b"data:")
        idle = [await connect(web) for _ in range(2)]
        await asyncio.sleep(0.1)
        newcomer = await connect(web)
        assert await is_closed(idle[0]), "the longest idle connection was kept"
        assert not await is_closed(idle[1], 0.1) and not await is_closed(feed, 0.1)
        newcomer[1].write(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        assert b'{"ok":1}' in await asyncio.wait_for(newcomer[0].readuntil(b"}"), BOUND_S)
        for reader, writer in (idle[1], newcomer):
            writer.write(b"GET /feed HTTP/1.1\r\nHost: t\r\n\r\n")
            await reader.readuntil(b"data:")
        refused = await answer(await connect(web))
        assert refused.startswith(b"HTTP/1.1 503 ") and b"too many connections" in refused, refused
        assert b"data: over" in await asyncio.wait_for(feed[0].readuntil(b"data: over"), BOUND_S)

    with_server(WebLimits(max_connections=3, idle_timeout_ms=60_000), test)


def test_one_address_past_its_share_is_refused_while_another_is_served() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        held = [await connect(web, "127.0.0.2") for _ in range(2)]
        refused = await answer(await connect(web, "127.0.0.2"))
        assert refused.startswith(b"HTTP/1.1 503 ") and b"127.0.0.2" in refused, refused
        assert (await get(web)).startswith(b"HTTP/1.1 200 ")
        assert not await is_closed(held[0], 0.1)

    with_server(WebLimits(max_connections_per_address=2, idle_timeout_ms=60_000), test)


def test_a_connection_that_says_nothing_is_closed_at_the_idle_time_out() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        fresh = await connect(web)
        kept = await connect(web)
        kept[1].write(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        await kept[0].readuntil(b"}")
        began = time.monotonic()
        assert await answer(fresh) == b"" and await answer(kept) == b""
        assert 0.2 <= time.monotonic() - began <= BOUND_S

    with_server(SHORT, test)


def test_trickled_headers_and_bodies_are_answered_408_and_closed() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        for start, trickled in (
            (b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ", b"a"),
            (b"\r\n", b"\r\n"),
            (b"POST /start HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{", b" "),
            (b"POST /start HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", b"1\r\n \r\n"),
        ):
            reader, writer = await connect(web)
            writer.write(start)

            async def trickle(writer: asyncio.StreamWriter = writer, piece: bytes = trickled) -> None:
                while True:
                    await asyncio.sleep(0.05)
                    writer.write(piece)

            trickling = asyncio.create_task(trickle())
            try:
                got = await answer((reader, writer))
            finally:
                trickling.cancel()
                writer.close()
            assert got.startswith(b"HTTP/1.1 408 "), (start, got)
        assert app.state.bodies == []

    with_server(SHORT, test)


def test_bodies_past_the_limit_are_refused_413_without_reaching_the_app() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        head = b"POST /start HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        reader, writer = await connect(web)
        writer.write(head + b"Content-Length: 1001\r\n\r\n")
        assert (await answer((reader, writer))).startswith(b"HTTP/1.1 413 ")
        reader, writer = await connect(web)
        writer.write(head + b"Transfer-Encoding: chunked\r\n\r\n")
        writer.write(b"".join(b"64\r\n" + b" " * 100 + b"\r\n" for _ in range(11)))
        assert (await answer((reader, writer))).startswith(b"HTTP/1.1 413 ")
        body = b'{"rivals": ["a"]}'.ljust(1000)
        reader, writer = await connect(web)
        writer.write(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        assert (await answer((reader, writer))).startswith(b"HTTP/1.1 200 ")
        assert len(app.state.bodies) == 1

    with_server(WebLimits(max_body_bytes=1000), test)


def test_headers_past_their_cap_are_refused_431() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        reader, writer = await connect(web)
        writer.write(b"GET / HTTP/1.1\r\nHost: t\r\n")
        for _ in range(MAX_HEAD_BYTES // 1000 + 2):
            writer.write(b"X-Pad: " + b"a" * 1000 + b"\r\n")
        got = await answer((reader, writer))
        assert got.startswith(b"HTTP/1.1 431 "), got[:100]

    with_server(WebLimits(), test)


def test_honest_use_is_untouched_many_requests_on_one_connection_and_a_feed_longer_than_the_time_outs() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        reader, writer = await connect(web)
        for _ in range(3 * MAX_HEAD_BYTES // 1000):
            writer.write(b"GET / HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * 1000 + b"\r\n\r\n")
            assert b'{"ok":1}' in await asyncio.wait_for(reader.readuntil(b"}"), BOUND_S)
        body = b'{"rivals": ["a", "b"]}'
        json_head = b"POST /start HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        writer.write(json_head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert b'{"rivals":2}' in await asyncio.wait_for(reader.readuntil(b"}"), BOUND_S)
        writer.write(b"GET /feed HTTP/1.1\r\nHost: t\r\n\r\n")
        began = time.monotonic()
        await asyncio.wait_for(reader.readuntil(b"data: over"), BOUND_S)
        assert time.monotonic() - began >= FEED_S
        writer.close()

    with_server(SHORT, test)


def test_an_answer_the_client_stops_reading_is_dropped() -> None:
    async def test(web: WebServer, app: FastAPI) -> None:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", web.port))
            sock.send(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")  # and never read
            connections = web.server.server_state.connections
            deadline = time.monotonic() + BOUND_S
            while not connections and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert connections, "the connection was never made"
            while connections and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert not connections, "the stalled connection was kept"

    with_server(SHORT, test)
