"""How often a caller may: per-address token buckets, the one rate-limit mechanism of both ports
(the gRPC read calls, `arena.api.read_limits`, and the web pages, `arena.web.rate_limits`).

Anyone who can reach a port may call what needs no token, so each kind of call gets a
`RateLimiter` keyed by the caller (its address, through `address_key`). A bucket holds `burst`
calls and refills at `rate` calls per second, so a person at a terminal never notices it while a
loop is slowed to the refill rate. The limiter forgets the least recently seen keys beyond
`max_peers`, so a flood from many addresses cannot grow it without bound either.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass

from cachetools import LRUCache


def address_key(host: str) -> str:
    """What a per-address limit counts a host by: an IPv4 address as it is, an IPv6 one by its
    /64 (one machine's usual allocation, so a host cannot dodge its bucket by hopping addresses
    within it); anything else as it is.

    >>> address_key("127.0.0.1"), address_key("2001:db8::1:2"), address_key("unix:/tmp/s")
    ('127.0.0.1', '2001:db8::/64', 'unix:/tmp/s')
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None and not address.is_loopback:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """A token bucket per key: `allow(key)` spends one call if the key's bucket has one."""

    def __init__(
        self, rate: float, burst: int, *, max_peers: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a rate limit needs a positive rate and a burst of at least 1, not {rate}/s and {burst}")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: LRUCache[str, _Bucket] = LRUCache(max_peers)

    def allow(self, key: str) -> bool:
        """Spend one call of `key`'s bucket; False (nothing spent) if it is empty."""
        bucket = self._refilled(key)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def __len__(self) -> int:
        """How many peers it currently remembers."""
        return len(self._buckets)

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may call again (0 if it may now)."""
        return max(0.0, (1 - self._refilled(key).tokens) / self.rate)

    def _refilled(self, key: str) -> _Bucket:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
        return bucket
