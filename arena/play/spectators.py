"""Live games for spectators: each running game's public events, held back by a delay.

The referee publishes every public event of a game it plays for a tournament to the arena's
`SpectatorHub` (`Referee(spectators=...)`): an append to that game's `GameFeed`, nothing more;
spectators poll the feeds at their own pace, so none can slow a game down. Spectators (the live
page's event stream, `arena.web.live`) read a feed with their own cursor and see an event only
once `delay_s` has passed since it was played: the organiser's setting per tournament, so that
nobody can relay a running game to one of its bots (docs/web.md, "Live games"). Feeds hold public
events only (sdk/engine/events.py: no hand, no seed); a game's feed stays a while after the game
so a late spectator sees how it ended.

Connections are capped in total and per address (`admit`), so a crowd of spectators costs the arena
a bounded amount of memory and sockets; the last places are kept for addresses not watching yet
(`newcomer_places`), so however many addresses fill the hub, a new one still finds a place until
each address holds one.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sdk.engine import Event

DEFAULT_SPECTATOR_DELAY_S = 30
"""A spectator sees a move half a minute after it is played: with the default 2 s move limit that
is many turns later, too late to be worth relaying to a bot, and still soon enough to follow a game."""
MAX_SPECTATOR_DELAY_S = 3600
MAX_EVENTS = 20_000
"""No game has more public events (5 rounds of at most 1,000 actions, docs/rules.md §6); more is a bug,
and the feed stops taking them rather than grow."""
KEEP_S = 300.0
"""How long a finished game's feed stays after its last event is released."""
MAX_SPECTATORS = 200
MAX_SPECTATORS_PER_ADDRESS = 8
NEWCOMER_SHARE = 4
"""One place in this many is kept for addresses that watch nothing yet: a second stream from an
address is admitted only while more places than that are free."""
CROWDED_RETRY_S = 15.0
"""What a refused spectator is told to wait: places come free as spectators leave, not on a clock."""


class Crowded(Exception):
    """Too many spectators already: in total, or from this address. `retry_after_s`: when to ask again."""

    def __init__(self, message: str, retry_after_s: float = CROWDED_RETRY_S) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True, slots=True)
class Watch:
    """What the referee needs to publish a game: its key for spectators (the stored game's id)
    and the tournament's delay."""

    game_id: int
    delay_s: float


@dataclass(frozen=True, slots=True)
class Published:
    """One public event and when it was played: `at` on the hub's clock, `wall` in Unix seconds."""

    seq: int
    at: float
    wall: float
    event: Event


class FeedRelay(Protocol):
    """Where a node of a cluster sends the feeds its referee writes, for the other nodes'
    spectators (`arena.cluster.fanout`)."""

    def opened(self, feed: GameFeed) -> None: ...

    def published(self, feed: GameFeed, event: Event) -> None: ...

    def ended(self, feed: GameFeed) -> None: ...


class GameFeed:
    """One attempt at a game, as spectators get it: its public events, each released `delay_s`
    after it was played."""

    def __init__(
        self,
        game_id: int,
        attempt: str,
        seats: Sequence[str],
        delay_s: float,
        clock: Callable[[], float],
        on_end: Callable[[GameFeed], None] | None = None,
    ) -> None:
        self.game_id = game_id
        self.attempt = attempt
        """The referee's id of this attempt: a voided game is played again under a new one."""
        self.seats = tuple(seats)
        self.delay_s = delay_s
        self._clock = clock
        self.started_at = clock()
        """Hub time the attempt began; spectators learn of it `delay_s` later, like its events."""
        self.events: list[Published] = []
        self._release_at: list[float] = []
        self.ended_at: float | None = None
        """Hub time the game ended (finished or stopped); None while it runs."""
        self.finished = False
        """True if it ended with its last round, False if it was stopped or abandoned."""
        self.relay: FeedRelay | None = None
        """Set for a feed this node's referee writes, in a cluster: the other nodes get it too."""
        self._on_end = on_end

    def publish(self, event: Event) -> None:
        """Add the next public event; never blocks, never grows past MAX_EVENTS."""
        if len(self.events) >= MAX_EVENTS:
            return
        now = self._clock()
        self.events.append(Published(len(self.events), now, time.time(), event))
        self._release_at.append(now + self.delay_s)
        if self.relay is not None:
            self.relay.published(self, event)

    def end(self, finished: bool) -> None:
        self.ended_at = self._clock()
        self.finished = finished
        if self._on_end is not None:
            self._on_end(self)
        if self.relay is not None:
            self.relay.ended(self)

    def released(self, now: float | None = None) -> int:
        """How many events spectators may have seen by `now` (default: the clock's now)."""
        return bisect.bisect_right(self._release_at, self._clock() if now is None else now)

    def next_release(self, seen: int) -> float | None:
        """When event `seen` is released, on the hub's clock; None if it has not been played."""
        return self._release_at[seen] if seen < len(self._release_at) else None

    @property
    def start_released_at(self) -> float:
        """When spectators learn the attempt began: its start, delayed like its events."""
        return self.started_at + self.delay_s

    @property
    def end_released_at(self) -> float | None:
        """When spectators learn the game ended: its end, delayed like its events."""
        return None if self.ended_at is None else self.ended_at + self.delay_s


class SpectatorHub:
    """The arena's live games, by stored game id, and the spectators watching them."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        max_total: int = MAX_SPECTATORS,
        max_per_address: int = MAX_SPECTATORS_PER_ADDRESS,
    ) -> None:
        self.clock = clock
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.newcomer_places = max_total // NEWCOMER_SHARE
        """Places only an address watching nothing yet may take."""
        self._attempts: dict[int, list[GameFeed]] = {}
        """Each game's attempts, oldest first: the newest, and those spectators may still be shown
        because the starts of the ones after them are not released yet."""
        self._forgettable: list[tuple[float, int, int]] = []
        """A heap of (when, tie-break, game id), one per ended feed: when its game may be
        forgotten, if that feed is still the game's newest. Pruning pops only what is due, where a
        scan of every kept game cost each new game time in proportion to the games of the last
        minutes (40% of the interpreter's time two minutes into a 50 games/s tournament,
        docs/benchmarks.md)."""
        self._ends = itertools.count()
        self._watching: dict[str, int] = {}
        self.relay: FeedRelay | None = None
        """Set on a node of a cluster: the feeds this node's referee opens go to the other nodes too."""

    def open(self, watch: Watch, attempt: str, seats: Sequence[str]) -> GameFeed:
        """A new feed for an attempt at `watch.game_id` refereed here, replacing an earlier attempt's."""
        feed = self.mirror(watch, attempt, seats)
        if self.relay is not None:
            feed.relay = self.relay
            self.relay.opened(feed)
        return feed

    def mirror(self, watch: Watch, attempt: str, seats: Sequence[str]) -> GameFeed:
        """A new feed for an attempt at `watch.game_id`, replacing an earlier attempt's; on its own
        (without `open`'s relay), the copy of a feed another node of a cluster writes."""
        self._prune()
        feed = GameFeed(watch.game_id, attempt, seats, watch.delay_s, self.clock, self._ended)
        attempts = self._attempts.setdefault(watch.game_id, [])
        if attempts and attempts[-1].ended_at is None:
            attempts[-1].end(False)
        attempts.append(feed)
        _drop_replaced(attempts, self.clock())
        return feed

    def feed(self, game_id: int) -> GameFeed | None:
        """The game's latest feed that spectators may know of, if it is playing or ended recently.
        An attempt is known only `delay_s` after it began, like its events, so that neither a game's
        start nor a void's replay is told early; until then, the attempt it replaced."""
        self._prune()
        attempts = self._attempts.get(game_id)
        if not attempts:
            return None
        now = self.clock()
        _drop_replaced(attempts, now)
        return attempts[0] if attempts[0].start_released_at <= now else None

    def live(self) -> list[GameFeed]:
        """Feeds of games still playing."""
        return [attempts[-1] for attempts in self._attempts.values() if attempts[-1].ended_at is None]

    def _ended(self, feed: GameFeed) -> None:
        assert feed.end_released_at is not None
        heapq.heappush(self._forgettable, (feed.end_released_at + KEEP_S, next(self._ends), feed.game_id))

    def _prune(self) -> None:
        """Forget the games whose newest attempt ended more than KEEP_S before spectators were told."""
        now = self.clock()
        while self._forgettable and self._forgettable[0][0] < now:
            game_id = heapq.heappop(self._forgettable)[2]
            newest = self._attempts[game_id][-1] if game_id in self._attempts else None
            if newest is not None and newest.end_released_at is not None and newest.end_released_at + KEEP_S < now:
                del self._attempts[game_id]

    @property
    def spectators(self) -> int:
        return sum(self._watching.values())

    def admit(self, address: str) -> Ticket:
        """A spectator's place, held until `Ticket.release`; Crowded if the caps are reached, or
        if `address` watches already and only the places kept for newcomers are left."""
        total, mine = self.spectators, self._watching.get(address, 0)
        if total >= self.max_total:
            raise Crowded(
                f"the arena has {self.max_total} spectators already, one or more per address: try again later"
            )
        if mine >= self.max_per_address:
            raise Crowded(f"at most {self.max_per_address} live streams per address: close one first")
        if mine and self.max_total - total <= self.newcomer_places:
            raise Crowded(
                f"the arena's last {self.newcomer_places} spectator places are kept for addresses watching nothing "
                f"yet, and this address has {mine} live stream{'s' if mine > 1 else ''}: close one or try again later"
            )
        self._watching[address] = self._watching.get(address, 0) + 1
        return Ticket(self, address)

    def _leave(self, address: str) -> None:
        self._watching[address] -= 1
        if not self._watching[address]:
            del self._watching[address]


def _drop_replaced(attempts: list[GameFeed], now: float) -> None:
    """Drop a game's attempts that spectators can no longer be shown: those before the latest
    one whose start is released (starts are released in the order the attempts began)."""
    known = bisect.bisect_right([f.start_released_at for f in attempts], now)
    if known > 1:
        del attempts[: known - 1]


class Ticket:
    """One spectator's place in the hub's caps."""

    def __init__(self, hub: SpectatorHub, address: str) -> None:
        self._hub: SpectatorHub | None = hub
        self.address = address

    def release(self) -> None:
        """Give the place back; once only, however often it is called."""
        if self._hub is not None:
            self._hub._leave(self.address)
            self._hub = None
