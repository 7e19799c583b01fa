"""A TCP relay that makes loopback connections come from another loopback address (127.0.0.N).

Connecting to 127.0.0.N still arrives from 127.0.0.1, so a test or benchmark that stands many
hosts for an arena's per-address limits routes each host's connections through a relay whose
upstream side is bound to that address (tests/tournaments/large_field.py, benchmarks/read_flood.py).
"""

from __future__ import annotations

import asyncio


async def relay(address: str, target: str, opened: set[asyncio.StreamWriter]) -> int:
    """A TCP relay on a free port of 127.0.0.1 whose every connection goes on to `target`
    from `address` (its source bound there): returns the relay's port. The writers of both sides
    of each connection are added to `opened`, for closing them at the end."""
    host, port = target.rsplit(":", 1)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 16):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream = await asyncio.open_connection(host, int(port), local_addr=(address, 0))
        except OSError:
            writer.close()
            return
        opened.update((writer, upstream[1]))
        await asyncio.gather(pipe(reader, upstream[1]), pipe(upstream[0], writer), return_exceptions=True)

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    bound: int = server.sockets[0].getsockname()[1]
    return bound
