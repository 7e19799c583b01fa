"""Hidden information over many games at every seat count, including the resync path.

tests/security/test_hidden_information.py checks one game per seat count with its `leaks`
function; this reuses that function over many concurrent games per seat count, and in every game
one seat drops its stream at one of its first three decisions and reconnects, so the messages a
resumed session gets (GameStarted, every event again, the pending request) are checked too. The default run plays
GAMES games per seat count; the slow run SLOW_GAMES.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from sdk.engine import GameRecord
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot
from tests.reliability.conftest import Arena, check_against_replay
from tests.security.test_hidden_information import leaks

GAMES = 3
SLOW_GAMES = 40


CONCURRENT = 3
"""Games played at once: each blocks one thread of asyncio's default pool in `Arena.play`, and
every bot's read is bounded, so a game must not wait long for a free thread."""

RELAXED_MOVE_MS = 10_000
"""Timeouts are not under test here: a loaded machine must not forfeit a seat and end the game early."""


async def seat_loop(
    bot: RawBot, target: str, token: str, rng: random.Random, drop_after: int | None
) -> list[pb.ArenaMessage]:
    """Play one seat with random legal actions; after answer number `drop_after` close the stream
    and carry on over a new one. Returns every message of every stream, in order."""
    streams = [bot]
    answered = 0
    while True:
        msg = await bot.read()
        kind = msg.WhichOneof("kind")
        if kind == "decision_request":
            req = msg.decision_request
            await bot.answer(req.game_id, req.request_id, rng.choice(req.legal_actions))
            answered += 1
            if answered == drop_after:
                await bot.close()
                bot = await RawBot.connect(target, token)
                streams.append(bot)
        elif kind == "game_over":
            break
        elif kind in ("action_rejected", "error"):
            raise AssertionError(f"unexpected {msg}")
    await bot.close()
    return [m for stream in streams for m in stream.received]


async def one_game(
    arena: Arena, players: int, seed: int, slots: asyncio.Semaphore
) -> tuple[GameRecord, list[list[pb.ArenaMessage]]]:
    rng = random.Random(seed)
    async with slots:
        names, tokens = zip(*[await asyncio.to_thread(arena.register, "leak") for _ in range(players)], strict=True)
        bots = [await RawBot.connect(arena.target, token) for token in tokens]
        dropper = rng.randrange(players)
        loops = [
            asyncio.create_task(
                seat_loop(
                    bot, arena.target, token, random.Random(seed * 10 + i), rng.randint(1, 3) if i == dropper else None
                )
            )
            for i, (bot, token) in enumerate(zip(bots, tokens, strict=True))
        ]
        response = await asyncio.to_thread(arena.play, list(names), seed, move_limit_ms=RELAXED_MOVE_MS)
        received = await asyncio.gather(*loops)
    return check_against_replay(response), received


def check_games(arena: Arena, players: int, games: int) -> None:
    async def scenario() -> list[tuple[GameRecord, list[list[pb.ArenaMessage]]]]:
        slots = asyncio.Semaphore(CONCURRENT)
        return await asyncio.gather(*(one_game(arena, players, 500 * players + g, slots) for g in range(games)))

    for record, received in asyncio.run(scenario()):
        for seat, messages in enumerate(received):
            assert leaks(messages, seat, record) == [], f"seed {record.seed} seat {seat}"
        starts = [sum(m.WhichOneof("kind") == "game_started" for m in messages) for messages in received]
        assert sorted(starts) == [1] * (players - 1) + [2], "exactly one seat resumed over a second stream"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_message_holds_a_hidden_card_over_games_with_a_reconnect(arena: Arena, players: int) -> None:
    check_games(arena, players, GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_message_holds_a_hidden_card_over_many_games(arena: Arena, players: int) -> None:
    check_games(arena, players, SLOW_GAMES)
