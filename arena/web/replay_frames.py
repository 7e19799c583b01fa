"""A finished game as a list of frames, one per step, for the replay viewer (docs/rules.md §9).

The record is played again with the engine: a frame for each round's deal, for each seat's flip
decision, and for every show, scout and Scout & Show. Each frame holds the omniscient table (every
hand with both values, as oriented, the active set and its owner, chips, captured cards, the
finished rounds' scores) and, for each seat, what that seat saw then: `observe(game, seat)`, the
very function the referee builds its requests with, so a seat's view can hold no more than the
seat knew. The frame of a round's last action shows the table as that action left it (the engine
deals the next round at once; here a copy of the round, cut to end with it, is played instead).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.web.game_json import Json, cards_json, event_json, observation_json, round_result_json
from sdk.engine import (
    Action,
    Card,
    Event,
    Flip,
    Game,
    GameRecord,
    Observation,
    Phase,
    Position,
    RoundResult,
    Seat,
    action_to_dict,
    observe,
    replay,
)


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat as the omniscient view shows it."""

    seat: Seat
    hand: tuple[Card, ...]
    captured: tuple[Card, ...]
    scout_chips: int
    has_scout_show: bool
    flipped: bool | None
    """The seat's flip decision this round, as soon as it is made (the seats see it at the reveal)."""
    total: int


@dataclass(frozen=True, slots=True)
class Frame:
    """The game after one step; `move` is the decision just taken (None for a deal)."""

    index: int
    round: int
    phase: str
    """"flip", "play", "round_over" (the round's last action was just played) or "over"."""
    move: tuple[Seat, Action] | None
    events: tuple[Event, ...]
    """The public events this step caused, oldest first."""
    to_move: Seat | None
    awaiting: tuple[Seat, ...]
    """The seats whose decision the game waits for now."""
    active_set: tuple[Card, ...]
    active_owner: Seat | None
    seats: tuple[SeatState, ...]
    results: tuple[RoundResult, ...]
    """Every round finished so far."""
    views: tuple[Observation, ...]
    """What each seat saw at this moment, by seat: `observe(game, seat)`."""
    news: tuple[tuple[Event, ...], ...]
    """By seat: the events of its observation's history that are new at this step."""


def _position_before(game: Game) -> Position:
    """`game`'s state in the middle of its round, as a game that ends with this round."""
    return Position(
        hands=game.hands,
        round=game.round,
        to_move=game.to_move,
        active=game.active,
        owner=game.owner,
        captured=game.captured,
        chips=game.chips,
        scout_show=game.scout_show,
        flips=game.flips,
        round_actions=game.round_actions,
        totals=game.totals,
        rounds=game.round + 1,
    )


class _Builder:
    def __init__(self, record: GameRecord) -> None:
        self.game = record.start()
        self.frames: list[Frame] = []
        self.seen = [0] * record.players
        """By seat: how many events of its history earlier frames have shown."""
        self.events_seen = 0
        """How many of the game's events earlier frames have shown."""

    def add(self, state: Game, move: tuple[Seat, Action] | None, phase: str) -> None:
        """A frame of `state`: the game itself, or the copy of a round that ends with `move`,
        whose history starts at that round's end (it follows the `events_seen` events before)."""
        game = self.game
        offset = 0 if state is game else self.events_seen
        events = tuple(state.events[self.events_seen - offset :])
        self.events_seen = offset + len(state.events)
        views = tuple(observe(state, s, with_legal_actions=False) for s in range(state.players))
        news = []
        for s, view in enumerate(views):
            history = view.table.history
            news.append(tuple(history[self.seen[s] - offset :]))
            self.seen[s] = offset + len(history)
        self.frames.append(
            Frame(
                index=len(self.frames),
                round=state.round,
                phase=phase,
                move=move,
                events=events,
                to_move=state.to_move if state.phase is Phase.PLAY else None,
                awaiting=state.awaiting,
                active_set=tuple(state.active),
                active_owner=state.owner,
                seats=tuple(
                    SeatState(
                        s,
                        tuple(state.hands[s]),
                        tuple(state.captured[s]),
                        state.chips[s],
                        state.scout_show[s],
                        state.flips[s],
                        game.totals[s],
                    )
                    for s in range(state.players)
                ),
                results=tuple(game.results),
                views=views,
                news=tuple(news),
            )
        )


def replay_frames(record: GameRecord) -> list[Frame]:
    """Every step of the finished game `record`; ReplayMismatch if the record does not replay."""
    replay(record)
    b = _Builder(record)
    game = b.game
    b.add(game, None, "flip")
    actions = iter(record.actions)
    for round_, flips in enumerate(record.flips):
        for seat, flip in enumerate(flips):
            game.apply(seat, Flip(flip))
            b.add(game, (seat, Flip(flip)), game.phase.value)
        round_actions = [a for a in record.actions if a[0] == round_]
        for i, (_, seat, action) in enumerate(round_actions):
            next(actions)
            last = i == len(round_actions) - 1
            if not last or round_ + 1 == game.rules.rounds:
                game.apply(seat, action)
                b.add(game, (seat, action), "over" if game.is_over else "play")
                continue
            # The round ends here and the engine deals the next one within `apply`: play the
            # action again on a copy of the round that ends with it, to show the table it leaves.
            ending = Game.from_position(_position_before(game))
            ending.apply(seat, action)
            game.apply(seat, action)
            b.add(ending, (seat, action), "round_over")
            b.add(game, None, "flip")
    return b.frames


def _seat_json(s: SeatState) -> Json:
    return {
        "seat": s.seat,
        "hand": cards_json(s.hand),
        "captured": cards_json(s.captured),
        "scout_chips": s.scout_chips,
        "has_scout_show": s.has_scout_show,
        "flipped": s.flipped,
        "total": s.total,
    }


def frame_json(frame: Frame) -> Json:
    """A frame as the viewer gets it: `seats` is the omniscient table, `views[s]` seat s's view.

    Every seat's view has its own hand; its table and the events new to it are given once, as
    `public` and `events`, where they are the same for every seat (as they are whenever no seat
    has a flip decision the others have not seen yet), and in the view itself where they differ."""
    views = [
        {**observation_json(v, legal=False), "news": [event_json(e) for e in news]}
        for v, news in zip(frame.views, frame.news, strict=False)
    ]
    events = [event_json(e) for e in frame.events]
    public = views[0]["table"] if all(v["table"] == views[0]["table"] for v in views) else None
    for view in views:
        if public is not None:
            del view["table"]
        if view["news"] == events:
            del view["news"]
    return {
        "index": frame.index,
        "round": frame.round,
        "phase": frame.phase,
        "move": None if frame.move is None else {"seat": frame.move[0], "action": action_to_dict(frame.move[1])},
        "events": events,
        "to_move": frame.to_move,
        "awaiting": list(frame.awaiting),
        "active_set": cards_json(frame.active_set),
        "active_owner": frame.active_owner,
        "seats": [_seat_json(s) for s in frame.seats],
        "results": [round_result_json(r) for r in frame.results],
        "public": public,
        "views": views,
    }
