"""Per-peer token buckets (arena.api.peers): what a flooding caller is held to, and what it cannot grow."""

import pytest

from arena.api.peers import peer_host
from arena.token_buckets import RateLimiter, address_key


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("ipv4:127.0.0.1:50000", "127.0.0.1"),
        ("ipv6:[::1]:50000", "::1"),
        ("ipv6:%5B::1%5D:50000", "::1"),
        ("unix:/tmp/arena.sock", "unix:/tmp/arena.sock"),
    ],
)
def test_peer_host_drops_the_port(peer: str, host: str) -> None:
    assert peer_host(peer) == host


def test_a_burst_is_allowed_then_the_refill_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.retry_after("a") == pytest.approx(0.5)
    clock.now = 0.5
    assert limiter.allow("a") and not limiter.allow("a")
    clock.now = 100.0
    assert sum(limiter.allow("a") for _ in range(10)) == 3, "a bucket never holds more than its burst"


def test_peers_do_not_share_a_bucket() -> None:
    limiter = RateLimiter(rate=1.0, burst=1, clock=Clock())
    assert limiter.allow("a") and not limiter.allow("a")
    assert limiter.allow("b")


def test_the_limiter_forgets_the_least_recently_seen_peers() -> None:
    limiter = RateLimiter(rate=1.0, burst=1, max_peers=2, clock=Clock())
    for key in ("a", "b", "c"):
        assert limiter.allow(key)
    assert len(limiter) == 2
    assert limiter.allow("a"), "a forgotten peer starts again with a full bucket"
    assert not limiter.allow("c"), "c is still remembered, its bucket spent"
    assert limiter.allow("d") and not limiter.allow("c"), "c was seen after a, so a is the one forgotten for d"
    assert len(limiter) == 2


def test_nonsense_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="positive rate"):
        RateLimiter(rate=0, burst=1)


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("::1", "::1"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),
        ("::ffff:10.0.0.1", "::ffff:10.0.0.1"),
        ("testclient", "testclient"),
    ],
)
def test_an_ipv6_host_is_counted_by_its_64(host: str, key: str) -> None:
    assert address_key(host) == key
