"""What the arena really sends about a bot's tournaments and seats (docs/protocol.md, "Tournaments
and leaving", "Several seats"): TournamentOver for the tournaments a Hello names, once they have
ended, and to no other stream; leaving by half-closing the stream; one bot in several seats of a game."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from sqlmodel import Session

from arena import records
from arena.cli.local import LocalArena
from arena.play.results import ForfeitCause
from arena.storage import store
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.settings import TournamentSettings
from bots.greedy import GreedyBot
from sdk.protocol import TournamentEnd
from sdk.runner import play_until_over_async, register
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot
from tests.conftest import Arena
from tests.tournaments.arena_process import ArenaProcess

LATER = datetime.now(UTC) + timedelta(hours=1)
WAIT_S = 60.0


class Organiser:
    """An arena process on a database, and the organiser's hands on that database."""

    def __init__(self, tmp: Path) -> None:
        db = tmp / "arena.db"
        self.server = ArenaProcess(f"sqlite:///{db}", tmp / "server.log")
        self.local = LocalArena.open(str(db))

    def bots(self, *names: str) -> list[str]:
        """Register `names` at the arena; their tokens."""
        return [register(name, target=self.server.target) for name in names]

    def tournament(self, name: str, entrants: list[str], **policy: int) -> None:
        settings = TournamentSettings(name, 2, 1, LATER, 2000, concurrency=1, seed=5, policy=FailurePolicy(**policy))
        self.local.create_tournament(settings)
        with Session(self.local.engine) as session:
            for bot in entrants:
                store.enter_tournament(session=session, tournament=name, bot=bot)

    def results(self, tournament: str) -> list[records.GameInfo]:
        return self.local.games(tournament, records.GameStatus.FINISHED)


@pytest.fixture
def organiser(tmp_path: Path) -> Iterator[Organiser]:
    made = Organiser(tmp_path)
    yield made
    made.local.close()
    assert made.server.stop() == 0


def over(msg: pb.ArenaMessage) -> tuple[str, str]:
    return msg.tournament_over.tournament, pb.TournamentEnd.Name(msg.tournament_over.end)


async def play_games(bot: RawBot, rng: random.Random, games: int) -> None:
    for _ in range(games):
        await bot.play_until(rng, "game_over")


def test_a_bot_that_names_its_tournament_hears_it_is_over_after_its_last_game(organiser: Organiser) -> None:
    ann, bob = organiser.bots("ann", "bob")
    organiser.tournament("cup", ["ann", "bob"])
    target = organiser.server.target

    async def scenario() -> None:
        watcher = await RawBot.connect(target, ann, tournaments=("cup",))
        old = await RawBot.connect(target, bob)  # an older client: its Hello names no tournament
        organiser.local.start_tournament("cup")
        old_plays = asyncio.create_task(play_games(old, random.Random(2), 2))
        told = await watcher.play_until(random.Random(1), "tournament_over")
        assert over(told) == ("cup", "TOURNAMENT_END_FINISHED")
        kinds = watcher.kinds()
        assert kinds.count("game_over") == 2 and kinds[-2] == "game_over" and kinds.count("tournament_over") == 1
        await old_plays
        assert await old.leave() == grpc.StatusCode.OK
        assert "tournament_over" not in old.kinds() and old.kinds().count("game_over") == 2
        assert await watcher.leave() == grpc.StatusCode.OK
        assert watcher.kinds().count("tournament_over") == 1  # once per stream

        late = await RawBot.connect(target, ann, tournaments=("cup",))  # after the end: told at once
        assert over(await asyncio.wait_for(late.next("tournament_over"), WAIT_S)) == ("cup", "TOURNAMENT_END_FINISHED")
        await late.close()

    asyncio.run(scenario())


def test_a_failed_tournament_is_over_too_and_a_name_no_tournament_has_never_is(organiser: Organiser) -> None:
    (ann,) = organiser.bots("ann")
    organiser.tournament("doomed", ["ann"])

    async def scenario() -> None:
        bot = await RawBot.connect(organiser.server.target, ann, tournaments=("nope", "doomed"))
        with Session(organiser.local.engine) as session:  # whoever ends it: here not the arena itself
            assert store.fail_tournament(session=session, tournament="doomed", reason="called off")
        assert over(await asyncio.wait_for(bot.next("tournament_over"), WAIT_S)) == ("doomed", "TOURNAMENT_END_FAILED")
        assert await bot.leave() == grpc.StatusCode.OK
        assert [over(m) for m in bot.received if m.WhichOneof("kind") == "tournament_over"] == [
            ("doomed", "TOURNAMENT_END_FAILED")
        ]

    asyncio.run(scenario())


def test_a_bot_that_left_is_absent_for_its_games(organiser: Organiser) -> None:
    """Half-closing is leaving: the arena ends the call with OK, and the games due after it
    forfeit the bot's seat as absent (after the tournament's absent_wait_ms)."""
    ann, bob, cy = organiser.bots("ann", "bob", "cy")
    organiser.tournament("left", ["ann", "bob", "cy"], absent_wait_ms=200)
    target = organiser.server.target

    async def scenario() -> list[TournamentEnd]:
        leaver = await RawBot.connect(target, ann, tournaments=("left",))
        assert await leaver.leave() == grpc.StatusCode.OK
        assert leaver.kinds() == ["welcome"]
        players = [
            play_until_over_async(GreedyBot(), target=target, token=token, tournament="left") for token in (bob, cy)
        ]
        organiser.local.start_tournament("left")
        return list(await asyncio.wait_for(asyncio.gather(*players), WAIT_S))

    assert asyncio.run(scenario()) == [TournamentEnd.FINISHED, TournamentEnd.FINISHED]
    games = organiser.results("left")
    assert len(games) == 6
    for game in games:
        for seat in game.results:
            assert (seat.cause is ForfeitCause.ABSENT) == (seat.bot == "ann"), game
            assert seat.forfeit is None or seat.forfeit.startswith("absent: not connected within 0.2 s")


def test_the_hello_may_name_16_tournaments_each_of_at_most_64_characters(arena: Arena) -> None:
    _, token = arena.register("many")

    async def refusal(tournaments: tuple[str, ...]) -> tuple[grpc.StatusCode, str]:
        bot = RawBot(arena.target, token)
        await bot.write(pb.BotMessage(hello=pb.Hello(capacity=1, tournaments=tournaments)))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.read()
        await bot.close()
        return refused.value.code(), refused.value.details()

    async def scenario() -> None:
        assert await refusal(tuple(f"t{i}" for i in range(17))) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "Hello.tournaments may name at most 16 tournaments, not 17",
        )
        assert await refusal(("x" * 65,)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "a tournament name may have at most 64 characters, not 65 (Hello.tournaments)",
        )
        bot = await RawBot.connect(arena.target, token, tournaments=tuple("x" * 64 for _ in range(16)))
        assert await bot.leave() == grpc.StatusCode.OK

    asyncio.run(scenario())


def test_one_bot_in_two_seats_gets_a_game_started_per_seat_and_the_events_once(arena: Arena) -> None:
    (twice, twice_token), (other, other_token) = arena.register("twice"), arena.register("other")

    async def scenario() -> RawBot:
        bot, rival = await RawBot.connect(arena.target, twice_token), await RawBot.connect(arena.target, other_token)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [twice, other, twice], 9))
        rival_done = asyncio.create_task(rival.play_to_the_end(random.Random(4)))
        await bot.play_to_the_end(random.Random(3))
        await rival_done
        response = await game
        assert [s.bot for s in response.seats] == [twice, other, twice]
        await rival.close()
        assert await bot.leave() == grpc.StatusCode.OK
        return bot

    bot = asyncio.run(scenario())
    started = [m.game_started for m in bot.received if m.WhichOneof("kind") == "game_started"]
    assert sorted(s.seat for s in started) == [0, 2] and all(list(s.players) == [twice, other, twice] for s in started)
    seqs = [m.public_event.seq for m in bot.received if m.WhichOneof("kind") == "public_event"]
    assert seqs == list(range(len(seqs))) and len(seqs) > 3  # every event once, in order
    seats = {m.decision_request.observation.seat for m in bot.received if m.WhichOneof("kind") == "decision_request"}
    assert seats == {0, 2}
    assert bot.kinds().count("game_over") == 1
