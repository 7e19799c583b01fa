"""Hidden information at the message level (docs/rules.md §9): over whole games, no message the arena
sends a seat contains a card of another seat's hand that had not been made public by then."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message

from sdk.engine import GameRecord
from sdk.wire import bot_session_pb2 as pb
from sdk.wire import game_pb2
from tests.api.rawclient import RawBot
from tests.conftest import Arena, check_against_replay

CardId = tuple[int, int]


def cards_in(msg: Message) -> Iterator[CardId]:
    """Every Card anywhere inside `msg`, as its unordered pair."""
    if isinstance(msg, game_pb2.Card):
        yield (min(msg.top, msg.bottom), max(msg.top, msg.bottom))
        return
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        for item in value if field.is_repeated else (value,):
            yield from cards_in(item)


def leaks(messages: list[pb.ArenaMessage], seat: int, record: GameRecord) -> list[str]:
    """Cards a seat was sent that were neither dealt to it this round nor made public this round."""
    found = []
    allowed: set[CardId] = set()
    for index, msg in enumerate(messages):
        if msg.WhichOneof("kind") == "public_event":
            event = msg.public_event.event
            if event.WhichOneof("kind") == "round_started":
                allowed = {c.id for c in record.deals[event.round_started.round][seat]}
            allowed.update(cards_in(event))
        found += [
            f"message {index} ({msg.WhichOneof('kind')}) holds hidden card {card}"
            for card in cards_in(msg)
            if card not in allowed
        ]
    return found


def play_captured(arena: Arena, players: int, seed: int) -> tuple[GameRecord, list[list[pb.ArenaMessage]]]:
    """Play one game with raw bots on every seat; return its record and every message per seat."""
    names, tokens = zip(*(arena.register("seen") for _ in range(players)), strict=True)

    async def scenario() -> tuple[GameRecord, list[list[pb.ArenaMessage]]]:
        bots = [await RawBot.connect(arena.target, token) for token in tokens]
        game = asyncio.create_task(asyncio.to_thread(arena.play, list(names), seed))
        await asyncio.gather(*(bot.play_to_the_end(random.Random(seed * 10 + i)) for i, bot in enumerate(bots)))
        record = check_against_replay(await game)
        for bot in bots:
            await bot.close()
        return record, [bot.received for bot in bots]

    return asyncio.run(scenario())


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_message_holds_a_hidden_card(arena: Arena, players: int) -> None:
    record, received = play_captured(arena, players, seed=40 + players)
    for seat, messages in enumerate(received):
        assert leaks(messages, seat, record) == []
        own = {c.id for deal in record.deals for c in deal[seat]}
        seen = {card for msg in messages for card in cards_in(msg)}
        assert own <= seen, "every dealt card of the seat's own hands reached it"
        assert any(m.WhichOneof("kind") == "game_over" for m in messages)


def test_the_check_catches_a_leaked_card(arena: Arena) -> None:
    record, received = play_captured(arena, 3, seed=7)
    messages = list(received[0])
    request = next(m for m in messages if m.WhichOneof("kind") == "decision_request")
    hidden = record.deals[0][1][0]
    leaked = pb.ArenaMessage()
    leaked.CopyFrom(request)
    leaked.decision_request.observation.hand.add(top=hidden.top, bottom=hidden.bottom)
    messages.insert(messages.index(request) + 1, leaked)
    assert leaks(messages, 0, record) == [
        f"message {messages.index(request) + 1} (decision_request) holds hidden card {hidden.id}"
    ]
