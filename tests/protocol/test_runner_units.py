"""Runner pieces that need no server: legal actions rebuilt from an observation, back-off."""

import asyncio
import random

import grpc
import pytest

from sdk import runner
from sdk.engine import Game, observe
from sdk.runner import Backoff, local_legal_actions
from tests.protocol.bot_process import RandomBot


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_local_legal_actions_equal_the_referees(players: int) -> None:
    for seed in range(3):
        game, rng = Game(players, seed), random.Random(seed)
        while not game.is_over:
            seat = game.awaiting[0]
            actions = game.legal_actions(seat)
            assert list(local_legal_actions(observe(game, seat))) == list(actions)
            game.apply(seat, actions[rng.randrange(len(actions))])


def test_backoff_grows_exponentially_with_jitter_up_to_the_maximum() -> None:
    backoff = Backoff(initial=0.1, maximum=1.0)
    for attempt, ceiling in enumerate([0.1, 0.2, 0.4, 0.8, 1.0, 1.0]):
        delays = {backoff.delay(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1


def test_backoff_restarts_after_a_connection_the_arena_welcomed(monkeypatch: pytest.MonkeyPatch) -> None:
    """After an arena crash the bot retries quickly again, not at the back-off reached before."""
    welcomed = iter([False, False, True, False])
    attempts: list[int] = []

    async def connection(session: object, channel: object, token: str) -> None:
        session.welcomed = next(welcomed, None)  # type: ignore[attr-defined]
        if session.welcomed is None:  # type: ignore[attr-defined]
            raise asyncio.CancelledError
        raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "gone")

    class Recorded(Backoff):
        def delay(self, attempt: int) -> float:
            attempts.append(attempt)
            return 0.0

    monkeypatch.setattr(runner, "_play_stream", connection)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(runner.run_async(RandomBot(delay=0.0), target="127.0.0.1:9", token="t", backoff=Recorded()))
    assert attempts == [0, 1, 0, 1]
