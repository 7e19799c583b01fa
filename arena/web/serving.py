"""Running the web app under uvicorn inside an event loop that is already running: the arena's
own (`scout-arena serve`, next to the gRPC server) or one of its own (`scout-arena web`).

The socket is bound before uvicorn starts, so a taken port fails with a one-line OSError and
port 0 tells which port it got. Every connection is held to the server's `WebLimits` (caps,
time-outs and body size: `arena.web.bounded_http`), the web port's counterpart of the gRPC
port's `ResourceLimits`. uvicorn's own SIGINT/SIGTERM handlers are left out: the arena
owns the signals and stops the web server (`WebServer.stop`) as part of its own shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from arena.web.bounded_http import protocol_for
from arena.web.limits import BACKLOG, WebLimits

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 2.0
"""How long open connections (a live feed, say) get to finish when the web server stops."""


class _EmbeddedServer(uvicorn.Server):
    """uvicorn's server without its signal handlers (see the module docstring)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class WebServer:
    """A running web server: its address and the task serving it."""

    host: str
    port: int
    server: uvicorn.Server
    task: asyncio.Task[None]

    @property
    def url(self) -> str:
        """The address to open in a browser."""
        host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    async def stop(self) -> None:
        """Stop accepting, give open requests SHUTDOWN_GRACE_S, then end the task and the app's
        casual games (their feeds are open requests too)."""
        self.server.should_exit = True
        room = getattr(getattr(self.server.config.app, "state", None), "play", None)
        if room is not None:
            await room.close()
        await asyncio.gather(self.task, return_exceptions=True)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (0: a free port); OSError naming the address if taken.

    It has TCP_NODELAY, which the connections it accepts inherit: asyncio sets it only on sockets
    made with proto IPPROTO_TCP, which `socket.create_server` does not make, and without it every
    answer on a kept-alive connection waited ~40 ms (uvicorn writes the headers and the body
    separately: Nagle holds the body back until the browser's delayed ACK of the headers)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
    except OSError as exc:
        raise OSError(f"the web pages cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


async def start_web(app: FastAPI, sock: socket.socket, limits: WebLimits | None = None) -> WebServer:
    """Serve `app` on the listening socket `sock` (`bind`) in the running loop, held to `limits`
    (None: the defaults); returns once it accepts connections. WebSocket upgrades are off: the
    pages use none, and an upgraded connection would leave the limits' protocol."""
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app,
        http=protocol_for(limits or WebLimits()),
        ws="none",
        backlog=BACKLOG,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=int(SHUTDOWN_GRACE_S),
    )
    server = _EmbeddedServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="web server")
    while not server.started:
        if task.done():
            sock.close()
            task.result()
            raise OSError(f"the web pages did not start on {host}:{port}")
        await asyncio.sleep(0.01)
    log.info("web pages on http://%s:%d/", host, port)
    return WebServer(host, port, server, task)


async def serve_database(
    app: FastAPI, sock: socket.socket, announce: Callable[[WebServer], None], limits: WebLimits | None = None
) -> None:
    """Serve `app` on `sock`, held to `limits`, until SIGINT or SIGTERM (`scout-arena web`);
    `announce` says where once it listens."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    web = await start_web(app, sock, limits)
    announce(web)
    await stop.wait()
    await web.stop()
