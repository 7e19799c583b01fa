"""Legal-action enumeration, the engine's hot path (docs/rules.md §4).

Two ideas keep it fast in pure Python:

* `legal_shows` finds every set in one right-to-left pass over the hand's top values, tracking the
  length of the equal, ascending and descending runs that start at each card; the shows that beat
  the active set from one start are then a contiguous range of lengths, taken as a slice of the
  precomputed `SHOWS` table.
* Scout & Show multiplies the scouts (up to 4 per insert position) by the shows of each resulting
  hand: hundreds of actions. `LegalActions` counts them without building them: a show in the new
  hand either avoids the inserted card (it is a show of the old hand that does not straddle the
  insert position) or contains it (found by extending runs around the insert position). Actions
  are built only when indexed or iterated, so `actions[rng.randrange(len(actions))]` stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress, count
from operator import itemgetter, sub
from typing import overload

from .actions import SHOWS, Action, Scout, ScoutShow, Show
from .cards import Card
from .sets import GROUP, SEQUENCE, SetKey, set_key

_NO_KEY: SetKey = (0, 0, 0)
_NEAR = frozenset((-1, 0, 1))
_WIDE = frozenset((-2, 2))
_BELOW_ALL = -(1 << 62)
"""Lower than any card value: what a single must beat when anything may be shown."""
_TOP = itemgetter(0)
SINGLES: tuple[Show, ...] = tuple(row[1] for row in SHOWS)
"""SINGLES[start]: the one-card show at `start`."""
_LONGER: tuple[tuple[tuple[Show, ...], ...], ...] = tuple(
    tuple(row[length:1:-1] for length in range(len(row))) for row in SHOWS
)
"""_LONGER[start][length]: the shows of 2..`length` cards from `start`, longest first."""


def legal_shows(tops: Sequence[int], key: SetKey | None) -> list[Show]:
    """Every show of a hand with these top values that beats `key` (None: any set may be shown).

    Ordered by start position; within a start, runs before groups (a single card is a group), each
    shortest first (the order docs/protocol.md states; tests/engine/test_legal_order.py checks it).
    """
    return shows_right_to_left(reversed(tops), len(tops), key)


def hand_shows(hand: Sequence[Card], key: SetKey | None) -> list[Show]:
    """`legal_shows` of a hand of cards, read straight off the cards (no list of tops is built)."""
    return shows_right_to_left(map(_TOP, reversed(hand)), len(hand), key)


def shows_right_to_left(values: Iterator[int], n: int, key: SetKey | None) -> list[Show]:
    """`legal_shows` given the hand's `n` top values right to left (`Game.legal_actions` passes
    them straight off the cards).

    One pass tracks the equal, ascending and descending runs that start at each card; the shows
    from one start are then a slice of the `SHOWS` row, built reversed and turned round at the end.
    An active set of at most one card (the usual case) is beaten by every set of two or more cards,
    so that case needs no strength test but the singles' value, and takes its slices ready-made
    from `_LONGER`; only one run of 2+ cards can start at a card, tracked as its step and length.
    """
    out: list[Show] = []
    i = n
    nxt = -9
    if key is None or key[0] < 2:
        kv = key[2] if key is not None and key[0] == 1 and key[1] == GROUP else _BELOW_ALL
        append = out.append
        singles, longer = SINGLES, _LONGER
        step = 9  # the step of the run that starts at the card to the right; 9: none
        run = 1
        for v in values:
            i -= 1
            d = nxt - v
            nxt = v
            if d > 1 or d < -1:
                step = 9
                if v > kv:
                    append(singles[i])
                continue
            if d == step:
                run += 1
            else:
                step = d
                run = 2
            if d:
                if v > kv:
                    append(singles[i])
                out += longer[i][run]
            else:
                out += longer[i][run]
                if v > kv:
                    append(singles[i])
        out.reverse()
        return out
    eq = up = down = 1
    kl, kk, kv = key
    for v in values:
        i -= 1
        d = nxt - v
        nxt = v
        if d == 0:
            eq += 1
            up = down = 1
        elif d == 1:
            up += 1
            eq = down = 1
        elif d == -1:
            down += 1
            eq = up = 1
        else:
            eq = up = down = 1
            continue
        row = SHOWS[i]
        if eq >= kl:
            lo = kl if (kk == SEQUENCE or v > kv) else kl + 1
            if lo <= eq:
                out += row[eq : lo - 1 : -1]
        elif up >= kl:
            lo = kl if (kk == SEQUENCE and v > kv) else kl + 1
            if lo <= up:
                out += row[up : lo - 1 : -1]
        elif down >= kl:
            lo = kl if (kk == SEQUENCE and v - kl + 1 > kv) else kl + 1
            if lo <= down:
                out += row[down : lo - 1 : -1]
    out.reverse()
    return out


def _through(a: int, b: int, step: int, v: int, key: SetKey | None) -> int:
    """How many sets of 2+ cards made of the inserted card (value `v`), 0..`a` cards of the run
    on its left and 0..`b` of the run on its right, beat `key`. `step` is the run's step left to
    right: 0 a group, +1 ascending, -1 descending."""
    if key is None or key[0] < 2:
        return (a + 1) * (b + 1) - 1
    kl, kk, kv = key
    count = 0
    for x in range(a + 1):
        low = kl - x
        if low <= b:
            count += b - (low if low > 0 else 0) + 1
        y = kl - 1 - x
        if 0 <= y <= b:
            if step == 0:
                count += kk == SEQUENCE or v > kv
            else:
                count += kk == SEQUENCE and (v - x if step > 0 else v - y) > kv
    return count


class ScoutShows:
    """The Scout & Show actions of one decision, counted exactly and built on demand.

    The scouts come in blocks of one (end, turned) pair, one scout per insert position `p`. The
    shows after a scout are the old hand's shows that beat what is left of the active set and do
    not straddle `p`, the scouted card alone if it beats that, and the sets of 2+ cards through
    the scouted card, which join the run of the same step ending just left of `p` and the one
    starting at `p`. Runs of 2+ cards are few, so the hand is read with C-level scans for the
    places where neighbours differ by at most one (`_near`) or by two (`_wide`), and only those are
    visited in Python. When what is left of the active set is at most one card, every set of 2+
    cards beats it, and a whole block is counted from sums over the hand (`_block_total`).
    """

    __slots__ = (
        "_diffs",
        "_ending",
        "_extra",
        "_multi",
        "_near",
        "_starting",
        "_straddles",
        "counts",
        "keys",
        "scouts",
        "tops",
        "total",
        "values",
    )

    def __init__(self, tops: tuple[int, ...], scouts: tuple[Scout, ...], active: list[Card]) -> None:
        self.tops = tops
        self.scouts = scouts
        first, last = active[0], active[-1]
        self.values = ((first[0], first[1]), (last[0], last[1]))
        rest = [c[0] for c in active]
        self.keys = (set_key(rest[1:]), set_key(rest[:-1]))
        n = len(tops)
        diffs = self._diffs = list(map(sub, tops[1:], tops))
        near = self._near = list(compress(count(), map(_NEAR.__contains__, diffs)))
        # _starting[step][i] / _ending[step][i]: the length of the run of that step (0, +1 or -1
        # as a tuple index) that starts / ends at card i, the card itself included.
        starting = self._starting = ([1] * n, [1] * n, [1] * n)
        ending = self._ending = ([1] * n, [1] * n, [1] * n)
        for i in near:
            run = ending[diffs[i]]
            run[i + 1] = run[i] + 1
        multi = straddles = 0
        for i in reversed(near):
            run = starting[diffs[i]]
            r = run[i] = run[i + 1] + 1
            if i == 0 or diffs[i - 1] != diffs[i]:
                multi += r * (r - 1) // 2  # sets of 2+ cards in a maximal run of r cards
                straddles += (r + 1) * r * (r - 1) // 6  # their lengths less one, summed
        self._multi, self._straddles = multi, straddles
        # By inserted value v: the sets of 2+ cards through it, summed over the insert positions,
        # beyond the two that each card within one of v gives (itself beside v, on either side;
        # `_block_total` adds those): longer runs beside it, and runs joined across it.
        extra: dict[int, int] = {}
        for j in set(near).union([i + 1 for i in near]):
            t = tops[j]
            for dv in (-1, 0, 1):
                more = ending[-dv][j] + starting[dv][j] - 2
                if more:
                    extra[t - dv] = extra.get(t - dv, 0) + more
        for i in near:
            if diffs[i] == 0:
                extra[tops[i]] = extra.get(tops[i], 0) + ending[0][i] * starting[0][i + 1]
        for i in compress(count(), map(_WIDE.__contains__, diffs)):
            v = (tops[i] + tops[i + 1]) // 2
            step = tops[i + 1] - v
            extra[v] = extra.get(v, 0) + ending[step][i] * starting[step][i + 1]
        self._extra = extra
        self.counts = [self._block_total(b) for b in range(len(scouts) // (n + 1))]
        self.total = sum(self.counts)

    def _block(self, block: int) -> tuple[SetKey | None, int]:
        """What is left of the active set and the scouted card's value, for one block."""
        scout = self.scouts[block * (len(self.tops) + 1)]
        return self.keys[scout.end], self.values[scout.end][scout.flip]

    def _base(self, key: SetKey | None, v: int) -> int:
        """What is left at most one card: the old hand's shows that beat it, and the scouted card
        alone if it does."""
        if key is None:
            return self._multi + len(self.tops) + 1
        u = key[2]
        return self._multi + sum(map(u.__lt__, self.tops)) + (v > u)

    def _block_total(self, block: int) -> int:
        key, v = self._block(block)
        tops = self.tops
        n1 = len(tops) + 1
        if key is not None and key[0] >= 2:
            shows = legal_shows(tops, key)
            return (
                n1 * len(shows)
                - sum(show.length - 1 for show in shows)
                + sum(self._through_at(p, v, key) for p in range(n1))
            )
        of = tops.count
        through = 2 * (of(v - 1) + of(v) + of(v + 1)) + self._extra.get(v, 0)
        return n1 * self._base(key, v) - self._straddles + through

    def _through_at(self, p: int, v: int, key: SetKey | None) -> int:
        """How many sets of 2+ cards through a card of value `v` inserted at `p` beat `key`."""
        tops = self.tops
        dl = tops[p - 1] - v if p else 9
        dr = tops[p] - v if p < len(tops) else 9
        a = self._ending[-dl][p - 1] if -1 <= dl <= 1 else 0
        b = self._starting[dr][p] if -1 <= dr <= 1 else 0
        if a and b and dl == -dr:
            return _through(a, b, dr, v, key)
        return (_through(a, 0, -dl, v, key) if a else 0) + (_through(0, b, dr, v, key) if b else 0)

    def _position_counts(self, block: int) -> Iterator[int]:
        """How many shows follow each scout of one block, by insert position: the old hand's
        shows that beat what is left less those straddling the position, plus `_through_at`."""
        tops = self.tops
        n = len(tops)
        key, v = self._block(block)
        starting, ending, diffs = self._starting, self._ending, self._diffs
        if key is None or key[0] < 2:
            base = self._base(key, v)
            straddling = None
        else:
            shows = legal_shows(tops, key)
            base = len(shows)
            straddling = [0] * (n + 2)
            for show in shows:
                straddling[show.start + 1] += 1
                straddling[show.start + show.length] -= 1
        inside = 0
        for p in range(n + 1):
            if straddling is not None:
                inside += straddling[p]
            elif 0 < p < n and -1 <= diffs[p - 1] <= 1:
                d = diffs[p - 1]
                inside = ending[d][p - 1] * starting[d][p]  # the runs through both neighbours
            else:
                inside = 0
            dl = tops[p - 1] - v if p else 9
            dr = tops[p] - v if p < n else 9
            if -1 <= dl <= 1 or -1 <= dr <= 1:
                yield base - inside + self._through_at(p, v, key)
            else:
                yield base - inside

    def __len__(self) -> int:
        return self.total

    def shows_after(self, scout: Scout) -> list[Show]:
        """The shows allowed once `scout` is done: on the new hand, beating what is left."""
        v = self.values[scout.end][scout.flip]
        pos = scout.position
        return legal_shows((*self.tops[:pos], v, *self.tops[pos:]), self.keys[scout.end])

    def at(self, index: int) -> ScoutShow:
        n1 = len(self.tops) + 1
        block = 0
        while block < len(self.counts) and index >= self.counts[block]:
            index -= self.counts[block]
            block += 1
        if block == len(self.counts) or index < 0:
            raise IndexError("scout & show index out of range")
        for position, size in enumerate(self._position_counts(block)):
            if index < size:
                scout = self.scouts[block * n1 + position]
                return ScoutShow(scout, self.shows_after(scout)[index])
            index -= size
        raise IndexError("scout & show index out of range")

    def __iter__(self) -> Iterator[ScoutShow]:
        for scout in self.scouts:
            for show in self.shows_after(scout):
                yield ScoutShow(scout, show)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, ScoutShow):
            return False
        scout = action.scout
        return scout in self.scouts and action.show in self.shows_after(scout)


class LegalActions(Sequence[Action]):
    """The legal actions of one decision: shows (or flips), then scouts, then scout & shows.

    A read-only sequence (len, index, iterate, `in`) that builds Scout & Show actions only when
    they are looked at. It is a snapshot: it does not change when the game moves on.
    """

    __slots__ = ("_head", "_len", "_scout_shows", "_scouts")

    def __init__(
        self,
        head: Sequence[Action],
        scouts: tuple[Scout, ...] = (),
        scout_shows: ScoutShows | None = None,
    ) -> None:
        self._head = head
        self._scouts = scouts
        self._scout_shows = scout_shows
        self._len = len(head) + len(scouts) + (scout_shows.total if scout_shows is not None else 0)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._len
            if index < 0:
                raise IndexError("legal action index out of range")
        head = self._head
        if index < len(head):
            return head[index]
        index -= len(head)
        scouts = self._scouts
        if index < len(scouts):
            return scouts[index]
        if self._scout_shows is None:
            raise IndexError("legal action index out of range")
        return self._scout_shows.at(index - len(scouts))

    def __iter__(self) -> Iterator[Action]:
        yield from self._head
        yield from self._scouts
        if self._scout_shows is not None:
            yield from self._scout_shows

    def __contains__(self, action: object) -> bool:
        kind = type(action)
        if kind is Scout:
            return action in self._scouts
        if kind is ScoutShow:
            return self._scout_shows is not None and action in self._scout_shows
        return action in self._head

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"LegalActions({list(self)!r})"
