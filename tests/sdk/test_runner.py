"""Runner pieces that need no server: legal actions rebuilt from an observation, back-off, answers."""

import asyncio
import logging
import random
from collections.abc import Callable

import grpc
import pytest

from arena.api import bot_session_wire as arena_convert
from sdk import Action, Bot, Observation, runner
from sdk.engine import Flip, Game, observe
from sdk.protocol import (
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    GameOver,
    GameStarted,
    PublicEvent,
    TournamentEnd,
    TournamentOver,
)
from sdk.runner import Backoff, local_legal_actions
from sdk.wire import bot_session as sdk_convert
from sdk.wire import bot_session_pb2 as session_pb
from tests.api.bot_process import RandomBot


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


def test_a_superseded_stream_stops_the_runner_instead_of_reconnecting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arena ends a stream a newer session of the bot took over with FAILED_PRECONDITION:
    reconnecting would take the seats back and the two sessions would displace each other."""
    calls: list[str] = []

    async def connection(session: object, channel: object, token: str) -> None:
        calls.append(token)
        if len(calls) > 1:
            raise asyncio.CancelledError
        raise grpc.aio.AioRpcError(
            grpc.StatusCode.FAILED_PRECONDITION,
            grpc.aio.Metadata(),
            grpc.aio.Metadata(),
            "superseded by a newer session of this bot",
        )

    monkeypatch.setattr(runner, "_play_stream", connection)
    with pytest.raises(runner.ArenaRefused, match=r"^FAILED_PRECONDITION: superseded by a newer session of this bot$"):
        asyncio.run(runner.run_async(RandomBot(delay=0.0), target="127.0.0.1:9", token="t", backoff=Backoff(0.0, 0.0)))
    assert calls == ["t"]


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


class SyncBot(Bot):
    """Answers with whatever `answer` gives it: an action, garbage, or an exception."""

    def __init__(self, answer: Callable[[Observation], object]) -> None:
        super().__init__()
        self.answer = answer

    def choose(self, obs: Observation) -> Action:
        return self.answer(obs)  # type: ignore[return-value]


def asked(bot: Bot) -> tuple[runner._Session, DecisionRequest]:
    """A session that has received one action request of a started game."""
    game = Game(3, 5)
    for seat in game.awaiting:
        game.apply(seat, Flip(False))
    seat = game.to_move
    session = runner._Session(bot, capacity=1, want_legal_actions=False, max_games=None)
    session.handle(GameStarted("g", seat, ("a", "b", "c"), 1000, 0))
    for seq, event in enumerate(game.events):
        session.handle(PublicEvent("g", seq, event))
    req = DecisionRequest("g", 7, DecisionKind.ACTION, observe(game, seat, with_legal_actions=False), 1000, 0)
    return session, req


def test_a_sync_bot_answers_at_once_with_the_history_and_local_legal_actions() -> None:
    seen: list[Observation] = []
    session, req = asked(SyncBot(lambda obs: seen.append(obs) or obs.legal_actions[0]))
    session.handle(req)
    assert session.outbox.get_nowait() == Decision("g", 7, seen[0].legal_actions[0])
    assert not session.tasks
    assert len(seen[0].table.history) == len(req.observation.table.history) > 0
    assert list(seen[0].legal_actions) == list(local_legal_actions(req.observation))


@pytest.mark.parametrize("answer", [lambda obs: "show me", lambda obs: 1 / 0])
def test_a_sync_bot_without_an_action_sends_nothing(
    answer: Callable[[Observation], object], caplog: pytest.LogCaptureFixture
) -> None:
    """The arena's clock then forfeits the seat (docs/bot-guide.md); the runner must not crash."""
    session, req = asked(SyncBot(answer))
    with caplog.at_level(logging.ERROR, logger="sdk.runner"):
        session.handle(req)
    assert session.outbox.empty() and not session.tasks
    assert "the arena will time it out" in caplog.text


def test_an_async_bot_answers_from_a_task() -> None:
    async def scenario() -> Decision:
        session, req = asked(RandomBot(delay=0.0))
        session.handle(req)
        assert len(session.tasks) == 1 and session.outbox.empty()
        return await asyncio.wait_for(session.outbox.get(), 5)

    decision = asyncio.run(scenario())
    assert decision.game_id == "g" and decision.request_id == 7


def sent(game: Game, seat: int, request_id: int) -> bytes:
    """The batch the arena writes to `seat`'s bot for `game` so far and a request."""
    messages: list[ArenaMessage] = [GameStarted("g", seat, tuple("abcd"[: game.players]), 1000, 0)]
    messages += [PublicEvent("g", seq, event) for seq, event in enumerate(game.events)]
    obs = observe(game, seat, with_legal_actions=False)
    messages.append(DecisionRequest("g", request_id, DecisionKind.ACTION, obs, 1000, 0))
    return arena_convert.arena_batch_bytes(messages, legal_actions=False)


def received(game: Game, seat: int, request_id: int) -> list[ArenaMessage]:
    """`sent`, read back as the runner reads it."""
    data = sent(game, seat, request_id)
    decoded, skipped = sdk_convert.arena_batch_from_pb(session_pb.ArenaBatch.FromString(data), lazy_events=True)
    assert skipped == []
    return decoded


def test_the_history_a_bot_sees_is_the_games_events_and_behaves_as_a_tuple() -> None:
    """docs/rules.md §9: the history is public; over the wire it is rebuilt from the arena's events."""
    game, rng = Game(4, 21), random.Random(21)
    while len(game.events) < 30:
        seat = game.awaiting[0]
        actions = game.legal_actions(seat)
        game.apply(seat, actions[rng.randrange(len(actions))])
    seen: list[Observation] = []
    session = runner._Session(SyncBot(lambda obs: seen.append(obs) or obs.legal_actions[0]), 1, False, None)
    for msg in received(game, game.to_move, 9):
        session.handle(msg)
    history, events = seen[0].table.history, tuple(game.events)
    assert isinstance(history, runner.History)
    assert history == events and events == history and list(history) == list(events)
    assert len(history) == len(events) and history[0] == events[0] and history[-1] == events[-1]
    assert history[3:7] == events[3:7] and history[::-5] == events[::-5]
    assert repr(history) == repr(events)
    with pytest.raises(IndexError):
        history[len(events)]
    with pytest.raises(TypeError):
        hash(history)


def test_events_are_decoded_only_when_the_bot_reads_its_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bot is sent every event of its games; one that never reads them never decodes them."""
    decoded: list[object] = []
    decode = sdk_convert.event_from_pb
    monkeypatch.setattr(sdk_convert, "event_from_pb", lambda msg: decoded.append(msg) or decode(msg))
    game = Game(3, 4)
    for seat in game.awaiting:
        game.apply(seat, Flip(False))
    seen: list[Observation] = []
    session = runner._Session(SyncBot(lambda obs: seen.append(obs) or obs.legal_actions[0]), 1, False, None)
    for msg in received(game, game.to_move, 3):
        session.handle(msg)
    assert len(seen) == 1 and decoded == []
    assert list(seen[0].table.history) == game.events
    assert len(decoded) == len(game.events)
    assert list(seen[0].table.history) == game.events
    assert len(decoded) == len(game.events), "an event read twice was decoded twice"


def test_an_event_of_a_kind_this_sdk_does_not_know_is_skipped_and_reported() -> None:
    batch = session_pb.ArenaBatch()
    batch.messages.add().public_event.game_id = "g"
    messages, skipped = sdk_convert.arena_batch_from_pb(batch, lazy_events=True)
    assert (messages, skipped) == ([], ["unknown event kind None"])


def test_a_session_for_a_tournament_names_it_in_its_hello_and_is_done_when_it_is_over() -> None:
    session = runner._Session(RandomBot(delay=0.0), 2, False, None, tournament="cup")
    sent = session_pb.BotBatch.FromString(sdk_convert.bot_batch_bytes([session.hello])).messages[0].hello
    assert list(sent.tournaments) == ["cup"]
    assert arena_convert.bot_message_from_pb(session_pb.BotMessage(hello=sent)) == session.hello
    session.handle(TournamentOver("other", TournamentEnd.FINISHED))
    assert not session.done
    session.handle(TournamentOver("cup", TournamentEnd.FAILED))
    assert session.done and session.ended is TournamentEnd.FAILED
    assert not runner._Session(RandomBot(delay=0.0), 2, False, None).hello.tournaments


@pytest.mark.parametrize("end", list(TournamentEnd))
def test_tournament_over_reads_back_as_the_arena_sent_it(end: TournamentEnd) -> None:
    data = arena_convert.arena_batch_bytes([TournamentOver("cup", end)], legal_actions=False)
    messages, skipped = sdk_convert.arena_batch_from_pb(session_pb.ArenaBatch.FromString(data))
    assert (messages, skipped) == ([TournamentOver("cup", end)], [])


def test_a_tournament_end_this_sdk_does_not_know_is_skipped_and_reported() -> None:
    batch = session_pb.ArenaBatch()
    batch.messages.add().tournament_over.tournament = "cup"
    assert sdk_convert.arena_batch_from_pb(batch) == ([], ["unknown tournament end 0 of tournament 'cup'"])


def test_the_runner_keeps_every_seat_a_game_gives_its_bot(caplog: pytest.LogCaptureFixture) -> None:
    session = runner._Session(RandomBot(delay=0.0), 1, False, None)
    for seat in (0, 2, 0):  # the GameStarted of seat 0 again, as after a reconnect
        session.handle(GameStarted("g", seat, ("a", "b", "a"), 1000, 0))
    assert session.games["g"].seats == [0, 2]
    with caplog.at_level(logging.INFO, logger="sdk.runner"):
        session.handle(GameOver("g", (5, 3, -1), (1, 2, 3), (), ()))
    assert "game g over: seat 0 has 5 points, rank 1, seat 2 has -1 points, rank 3 of 3" in caplog.text
    assert session.finished == 1 and not session.games


class AnswerInFlightCall:
    """A Play stream whose arena ends the game while the bot's answer is still being written.

    Like a grpc.aio call, it is cancelled as a whole when a task awaiting `write` is cancelled,
    and reading a cancelled call raises CancelledError."""

    def __init__(self, batches: list[session_pb.ArenaBatch]) -> None:
        self.batches = batches
        self.writes = 0
        self.answer_written = asyncio.Event()
        self.answer_sending = asyncio.Event()
        self.cancelled = False
        self.cancelled_before_leaving: bool | None = None

    async def write(self, data: bytes) -> None:
        self.writes += 1
        if self.writes == 2:
            self.answer_sending.set()
            try:
                await self.answer_written.wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise

    async def read(self) -> object:
        if self.cancelled:
            raise asyncio.CancelledError
        if not self.batches:
            return grpc.aio.EOF
        if len(self.batches) == 1:
            await self.answer_sending.wait()
            asyncio.get_running_loop().call_later(0.05, self.answer_written.set)
        return self.batches.pop(0)

    async def done_writing(self) -> None:
        self.cancelled_before_leaving = self.cancelled

    def cancel(self) -> None:
        self.cancelled = True


def test_a_game_that_ends_while_the_answer_is_written_leaves_the_stream_cleanly() -> None:
    """The runner stops writing once its games are done, but never cuts a write short: with
    grpc.aio that cancelled the call, and the runner reported 0 games played (tests/bots/
    test_programs.py saw it once)."""
    game = Game(2, 3)
    for seat in game.awaiting:
        game.apply(seat, Flip(False))
    seat = game.to_move
    over = arena_convert.arena_batch_bytes([GameOver("g", (1, 0), (1, 2), (), ())], legal_actions=False)
    call = AnswerInFlightCall([session_pb.ArenaBatch.FromString(data) for data in (sent(game, seat, 1), over)])

    class Channel:
        def stream_stream(self, *args: object, **kwargs: object) -> Callable[..., AnswerInFlightCall]:
            return lambda **kw: call

    session = runner._Session(SyncBot(lambda obs: obs.legal_actions[0]), 1, False, max_games=1)
    asyncio.run(asyncio.wait_for(runner._play_stream(session, Channel(), "t"), 5))  # type: ignore[arg-type]
    assert session.done and session.finished == 1
    assert call.writes == 2 and call.answer_written.is_set()
    assert call.cancelled_before_leaving is False
