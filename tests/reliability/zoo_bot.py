"""The broken-bot zoo: bot programs that fail as whole processes, for tests/reliability/test_zoo.py.

    python tests/reliability/zoo_bot.py --target HOST:PORT --token TOKEN --behaviour B [--after N]

crash-at-connect: Hello, reads the Welcome, then the process exits with EXIT_CODE (raw gRPC).
crash-at-start:   connects and exits with EXIT_CODE as soon as a GameStarted arrives (raw gRPC).
crash-mid-game:   an SDK-runner bot that plays random legal actions and exits the process with
                  EXIT_CODE on its decision number `--after` (no clean close: the socket just dies).
raises:           an SDK-runner bot whose every decision raises; the runner keeps the session.
Every behaviour logs "zoo: <what happened>" lines to stderr, which the tests wait for.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys

import grpc

from sdk import Action, Bot, Observation
from sdk.runner import run
from sdk.wire import bot_session_pb2 as pb
from sdk.wire import bot_session_pb2_grpc

EXIT_CODE = 3
"""What a crashing zoo bot exits with, so tests can tell its crash from any other end."""
READ_TIMEOUT_S = 30.0


def say(text: str) -> None:
    print(f"zoo: {text}", file=sys.stderr, flush=True)


async def raw_session(target: str, token: str, until: str | None) -> None:
    """Open a raw Play stream, read the Welcome, then read until a message of kind `until` (if
    any) and exit the process hard, as a crash does."""
    channel = grpc.aio.insecure_channel(target)
    call = bot_session_pb2_grpc.BotSessionStub(channel).Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.BotBatch(messages=[pb.BotMessage(hello=pb.Hello(bot_name="zoo", capacity=4))]))
    while True:
        batch = await asyncio.wait_for(call.read(), READ_TIMEOUT_S)
        if batch is grpc.aio.EOF:
            say("the arena ended the stream")
            os._exit(1)
        for msg in batch.messages:
            kind = msg.WhichOneof("kind")
            say(f"received {kind}")
            if (until is None and kind == "welcome") or kind == until:
                say("crashing")
                os._exit(EXIT_CODE)


class CrashingBot(Bot):
    """Random legal actions; the process dies on decision number `after`."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after
        self.decisions = 0
        self.rng = random.Random(after)

    def _count(self) -> None:
        self.decisions += 1
        if self.decisions >= self.after:
            say(f"crashing on decision {self.decisions}")
            os._exit(EXIT_CODE)
        say(f"decision {self.decisions}")

    def choose(self, obs: Observation) -> Action:
        self._count()
        return self.rng.choice(obs.legal_actions)

    def flip(self, obs: Observation) -> bool:
        self._count()
        return False


class RaisingBot(Bot):
    """Every decision raises, as a buggy bot does."""

    def choose(self, obs: Observation) -> Action:
        say("raising")
        raise RuntimeError("zoo: this bot is broken")

    def flip(self, obs: Observation) -> bool:
        say("raising")
        raise RuntimeError("zoo: this bot is broken")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument(
        "--behaviour", required=True, choices=("crash-at-connect", "crash-at-start", "crash-mid-game", "raises")
    )
    parser.add_argument("--after", type=int, default=5, help="crash-mid-game: the decision that crashes")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.behaviour == "crash-at-connect":
        asyncio.run(raw_session(args.target, args.token, None))
    elif args.behaviour == "crash-at-start":
        asyncio.run(raw_session(args.target, args.token, "game_started"))
    elif args.behaviour == "crash-mid-game":
        run(CrashingBot(args.after), target=args.target, token=args.token, capacity=4)
    else:
        run(RaisingBot(), target=args.target, token=args.token, capacity=4)


if __name__ == "__main__":
    main()
