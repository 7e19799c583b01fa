"""Legal-action enumeration, the engine's hot path (RULES.md §4).

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
from typing import overload

from .actions import SHOWS, Action, Scout, ScoutShow, Show
from .cards import Card
from .sets import SEQUENCE, SetKey, set_key

_NO_KEY: SetKey = (0, 0, 0)


def legal_shows(tops: Sequence[int], key: SetKey | None) -> list[Show]:
    """Every show of a hand with these top values that beats `key` (None: any set may be shown).

    Ordered by start position; within a start, runs before groups (a single card is a group), each
    shortest first (the order docs/protocol.md states; tests/engine/test_legal_order.py checks it).
    """
    kl, kk, kv = _NO_KEY if key is None else key
    out: list[Show] = []
    eq = up = down = 0
    nxt = -9
    for i in range(len(tops) - 1, -1, -1):
        v = tops[i]
        if nxt == v:
            eq += 1
            up = down = 1
        elif nxt == v + 1:
            up += 1
            eq = down = 1
        elif nxt == v - 1:
            down += 1
            eq = up = 1
        else:
            eq = up = down = 1
        nxt = v
        if kl > eq and kl > up and kl > down:
            continue
        row = SHOWS[i]
        lo = kl if (kk == SEQUENCE or v > kv) else kl + 1
        if lo <= eq:
            out += row[eq : (lo or 1) - 1 : -1]
        if up > 1:
            lo = kl if (kk == SEQUENCE and v > kv) else kl + 1
            if lo <= up:
                out += row[up : (lo if lo > 2 else 2) - 1 : -1]
        elif down > 1:
            lo = kl if (kk == SEQUENCE and v - kl + 1 > kv) else kl + 1
            if lo <= down:
                out += row[down : (lo if lo > 2 else 2) - 1 : -1]
    out.reverse()
    return out


def _containing(tops: Sequence[int], v: int, p: int, key: SetKey | None) -> int:
    """How many sets of 2+ cards that contain a card of value `v` inserted at `p` beat `key`."""
    kl, kk, kv = _NO_KEY if key is None else key
    n = len(tops)
    count = 0
    for left_step, right_step in ((0, 0), (-1, 1), (1, -1)):
        a = 0
        while p - 1 - a >= 0 and tops[p - 1 - a] == v + left_step * (a + 1):
            a += 1
        b = 0
        while p + b < n and tops[p + b] == v + right_step * (b + 1):
            b += 1
        for x in range(a + 1):
            for y in range(b + 1):
                length = x + y + 1
                if length == 1 or length < kl:
                    continue
                if length > kl:
                    count += 1
                elif left_step == 0:
                    count += kk == SEQUENCE or v > kv
                else:
                    low = v - x if left_step < 0 else v - y
                    count += kk == SEQUENCE and low > kv
    return count


class ScoutShows:
    """The Scout & Show actions of one decision, counted exactly and built on demand."""

    __slots__ = ("tops", "scouts", "values", "keys", "counts", "total")

    def __init__(self, tops: tuple[int, ...], scouts: tuple[Scout, ...], active: list[Card]) -> None:
        self.tops = tops
        self.scouts = scouts
        self.values = ((active[0][0], active[0][1]), (active[-1][0], active[-1][1]))
        self.keys = (
            set_key([c[0] for c in active[1:]]),
            set_key([c[0] for c in active[:-1]]),
        )
        self.counts = self._count_per_end_and_flip()
        self.total = sum(self.counts)

    def _count_per_end_and_flip(self) -> list[int]:
        tops = self.tops
        n1 = len(tops) + 1
        by_key: dict[SetKey | None, tuple[int, int]] = {}
        totals = []
        for index in range(0, len(self.scouts), n1):
            scout = self.scouts[index]
            key = self.keys[scout.end]
            v = self.values[scout.end][scout.flip]
            if key not in by_key:
                shows = legal_shows(tops, key)
                by_key[key] = (len(shows), sum(s.length - 1 for s in shows))
            beating, straddles = by_key[key]
            single = key is None or (1, 1, v) > key
            total = n1 * (beating + single) - straddles
            for p in range(n1):
                if (p and abs(tops[p - 1] - v) <= 1) or (p < n1 - 1 and abs(tops[p] - v) <= 1):
                    total += _containing(tops, v, p, key)
            totals.append(total)
        return totals

    def _counts_by_position(self, block: int) -> list[int]:
        """How many shows follow each scout of one (end, flip) block: the old hand's shows that
        beat what is left and do not straddle the insert position, plus those containing the
        scouted card (the terms `_count_per_end_and_flip` sums)."""
        tops = self.tops
        n1 = len(tops) + 1
        scout = self.scouts[block * n1]
        key = self.keys[scout.end]
        v = self.values[scout.end][scout.flip]
        shows = legal_shows(tops, key)
        base = len(shows) + (key is None or (1, 1, v) > key)
        straddling = [0] * (n1 + 1)
        for show in shows:
            if show.length > 1:
                straddling[show.start + 1] += 1
                straddling[show.start + show.length] -= 1
        counts = []
        inside = 0
        for p in range(n1):
            inside += straddling[p]
            count = base - inside
            if (p and abs(tops[p - 1] - v) <= 1) or (p < n1 - 1 and abs(tops[p] - v) <= 1):
                count += _containing(tops, v, p, key)
            counts.append(count)
        return counts

    def __len__(self) -> int:
        return self.total

    def shows_after(self, scout: Scout) -> list[Show]:
        """The shows allowed once `scout` is done: on the new hand, beating what is left."""
        v = self.values[scout.end][scout.flip]
        pos = scout.position
        return legal_shows(self.tops[:pos] + (v,) + self.tops[pos:], self.keys[scout.end])

    def at(self, index: int) -> ScoutShow:
        n1 = len(self.tops) + 1
        for block, count in enumerate(self.counts):
            if index < count:
                break
            index -= count
        else:
            raise IndexError("scout & show index out of range")
        for position, count in enumerate(self._counts_by_position(block)):
            if index < count:
                scout = self.scouts[block * n1 + position]
                return ScoutShow(scout, self.shows_after(scout)[index])
            index -= count
        raise IndexError("scout & show index out of range")

    def __iter__(self) -> Iterator[ScoutShow]:
        for scout in self.scouts:
            for show in self.shows_after(scout):
                yield ScoutShow(scout, show)

    def __contains__(self, action: ScoutShow) -> bool:
        scout = action.scout
        return scout in self.scouts and action.show in self.shows_after(scout)


class LegalActions(Sequence[Action]):
    """The legal actions of one decision: shows (or flips), then scouts, then scout & shows.

    A read-only sequence (len, index, iterate, `in`) that builds Scout & Show actions only when
    they are looked at. It is a snapshot: it does not change when the game moves on.
    """

    __slots__ = ("_head", "_scouts", "_scout_shows", "_len")

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
