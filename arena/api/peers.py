"""Who is calling a gRPC method: its host (`peer_host`, what the per-peer token buckets of
`arena.token_buckets` are keyed by) and its bearer token (`bearer_token`)."""

from __future__ import annotations

from typing import TypeVar

import grpc


def peer_host(peer: str) -> str:
    """The host part of a gRPC peer string: 'ipv4:127.0.0.1:5000' -> '127.0.0.1',
    'ipv6:[::1]:5000' -> '::1'; a peer of another form (a unix socket, say) is kept whole.

    >>> peer_host("ipv4:127.0.0.1:5000"), peer_host("ipv6:[::1]:5000"), peer_host("ipv6:%5B::1%5D:5000")
    ('127.0.0.1', '::1', '::1')
    """
    kind, _, address = peer.partition(":")
    if kind not in ("ipv4", "ipv6") or not address:
        return peer
    address = address.replace("%5B", "[").replace("%5D", "]")
    if address.startswith("["):
        return address[1 : address.find("]")]
    return address.rpartition(":")[0] or address


Request = TypeVar("Request")
Response = TypeVar("Response")


def bearer_token(context: grpc.aio.ServicerContext[Request, Response]) -> str | None:
    """The token of the `authorization: Bearer <token>` metadata entry, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None
