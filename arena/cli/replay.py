"""A finished game told move by move, as plain lines, by replaying its record with the engine.

The record is played again from its seed (`sdk.engine.replay` checks it reproduces), and every
public event is written out with the bots' names: each round's deal (hands are public once the game
is over), the flips, every show, scout and Scout & Show with what it captured, why each round
ended and its scores, then the final points, ranks and forfeits.

Cards in hand read `top/bottom`; in a set only the top counts, so sets show top values.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.records import GameDetail
from sdk.engine import (
    Card,
    End,
    Flip,
    FlipsRevealed,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
    replay,
)


def _hand(cards: Sequence[Card]) -> str:
    return " ".join(f"{c.top}/{c.bottom}" for c in cards)


def _set(cards: Sequence[Card]) -> str:
    return " ".join(str(c.top) for c in cards)


def _scouted(names: Sequence[str], e: Scouted) -> str:
    end = "left" if e.end is End.LEFT else "right"
    turned = " (turned over)" if e.flip else ""
    return f"{names[e.seat]} scouts {e.card.top}{turned} from the {end} end into hand position {e.position + 1}"


def _shown(names: Sequence[str], e: Shown, captured: int) -> str:
    capture = f", capturing {captured} card{'s' * (captured != 1)}" if captured else ""
    return f"{names[e.seat]} shows {_set(e.cards)} (from hand position {e.start + 1}){capture}"


def replay_lines(detail: GameDetail) -> list[str]:
    """The game of `detail`, move by move; only a finished game (one with a record) has them."""
    record = detail.record
    if record is None:
        return [f"game {detail.info.id} is {detail.info.status.value}: its moves are shown once it is finished"]
    replay(record)
    names = detail.info.seats
    width = max(len(n) for n in names)
    game = record.start()
    lines: list[str] = []
    seen = 0
    turn = 0

    def tell(captured: int = 0) -> None:
        """Write the events since the last call; `captured`: the active set's size before the move."""
        nonlocal seen, turn
        for event in game.events[seen:]:
            if isinstance(event, RoundStarted):
                lines.append("")
                lines.append(f"Round {event.round + 1}: {names[event.first_player]} plays first; the deal:")
                lines.extend(f"  {names[s]:<{width}}  {_hand(h)}" for s, h in enumerate(record.deals[event.round]))
                turn = 0
            elif isinstance(event, FlipsRevealed):
                flipped = [names[s] for s, f in enumerate(event.flips) if f]
                lines.append(f"  flips: {', '.join(flipped) if flipped else 'nobody'} turned the hand over")
            elif isinstance(event, RoundEnded):
                scores = ", ".join(f"{names[s]} {p:+d}" for s, p in enumerate(event.scores))
                lines.append(f"  round over: {event.reason.value}; scores: {scores}")
            else:
                turn += 1
                lines.append(f"  {turn:>3}. {_move(names, event, captured)}")
        seen = len(game.events)

    tell()
    actions = iter(record.actions)
    for flips in record.flips:
        for seat, flip in enumerate(flips):
            game.apply(seat, Flip(flip))
        tell()
        round_ = game.round
        while not game.is_over and game.round == round_:
            _, seat, action = next(actions)
            captured = len(game.active)
            game.apply(seat, action)
            tell(captured)
    lines.append("")
    lines.append("Result:")
    for s in sorted(detail.info.results, key=lambda s: (s.rank, s.seat)):
        forfeit = f"  (forfeited: {s.forfeit})" if s.forfeit else ""
        lines.append(f"  {s.rank}. {s.bot:<{width}}  {s.points:+d} points{forfeit}")
    return lines


def _move(names: Sequence[str], event: object, taken: int) -> str:
    if isinstance(event, Shown):
        return _shown(names, event, taken)
    if isinstance(event, Scouted):
        return _scouted(names, event)
    assert isinstance(event, ScoutedAndShown)
    return f"{_scouted(names, event.scouted)}, then {_shown(names, event.shown, taken - 1)}"
