"""Protocol fuzzing against the live arena process: generated and mutated BotBatch messages, and
raw bytes that are no protobuf at all. Every decodable message must get exactly the reply an
independent oracle (below) predicts, in order; nothing may crash or hang the arena (every read is
bounded); and the arena must still serve a healthy bot afterwards."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sdk.wire import arena_pb2, game_pb2
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import READ_TIMEOUT_S
from tests.conftest import HEALTHY_MOVE_MS
from tests.reliability.conftest import Arena, Healthy, check_against_replay

PLAY = "/scout.arena.v1.BotSession/Play"
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SENTINEL = "fuzz-sentinel"
"""The game id of a well-formed Decision sent after each fuzzed batch: its UNKNOWN_GAME error
marks the end of the replies to the batch, so a batch that yields no reply is still bounded."""

INT32 = st.integers(-(2**31), 2**31 - 1)
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


def expected_error(msg: pb.BotMessage, bot: str) -> tuple[int, str]:
    """What the arena must answer to `msg` from `bot`, which plays no game (RULES-independent:
    written from docs/protocol.md's message rules, not from the arena's code)."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        return pb.ERROR_CODE_MALFORMED, "a BotMessage must set hello or decision"
    if kind == "hello":
        return pb.ERROR_CODE_PROTOCOL, "Hello may only be the first message of a stream"
    # A Decision is routed by its ids whatever its action holds: malformed or not, one for a
    # game the bot does not play is refused as such.
    d = msg.decision
    return pb.ERROR_CODE_UNKNOWN_GAME, f"bot {bot!r} is not playing a game {d.game_id!r}"


ENDS = st.one_of(st.sampled_from([0, 1, 2]), INT32)
SCOUTS = st.builds(game_pb2.Scout, end=ENDS, flip=st.booleans(), position=INT32)
SHOWS = st.builds(game_pb2.Show, start=INT32, length=INT32)
ACTIONS = st.one_of(
    st.just(game_pb2.Action()),
    st.builds(lambda f: game_pb2.Action(flip=game_pb2.Flip(flip=f)), st.booleans()),
    st.builds(lambda s: game_pb2.Action(show=s), SHOWS),
    st.builds(lambda s: game_pb2.Action(scout=s), SCOUTS),
    st.builds(
        lambda sc, sh: game_pb2.Action(scout_show=game_pb2.ScoutShow(scout=sc, show=sh)),
        st.none() | SCOUTS,
        st.none() | SHOWS,
    ),
)
DECISIONS = st.builds(
    lambda g, r, a: pb.Decision(game_id=g, request_id=r, action=a),
    st.one_of(TEXT, st.just("")),
    st.integers(0, 2**64 - 1),
    st.none() | ACTIONS,
)
MESSAGES = st.one_of(
    st.just(pb.BotMessage()),
    st.builds(
        lambda h: pb.BotMessage(hello=h),
        st.builds(pb.Hello, bot_name=TEXT, bot_version=TEXT, capacity=INT32, want_legal_actions=st.booleans()),
    ),
    st.builds(lambda d: pb.BotMessage(decision=d), DECISIONS),
)
BATCHES = st.lists(MESSAGES, min_size=0, max_size=6)


class RawBytesStream:
    """A Play call that writes caller-supplied bytes and reads undecoded bytes (identity
    serializers), so a test can send what no generated client would."""

    def __init__(self, target: str, token: str) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        self.call = self.channel.stream_stream(PLAY)(metadata=(("authorization", f"Bearer {token}"),))

    async def write(self, data: bytes) -> None:
        await self.call.write(data)

    async def read(self) -> pb.ArenaBatch:
        data = await asyncio.wait_for(self.call.read(), READ_TIMEOUT_S)
        assert data is not grpc.aio.EOF, "the arena ended the stream"
        return pb.ArenaBatch.FromString(data)

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


def hello_bytes() -> bytes:
    return pb.BotBatch(messages=[pb.BotMessage(hello=pb.Hello(bot_name="fuzz", capacity=1))]).SerializeToString()


def sentinel_bytes() -> bytes:
    decision = pb.Decision(game_id=SENTINEL, request_id=1, action=game_pb2.Action(flip=game_pb2.Flip(flip=True)))
    return pb.BotBatch(messages=[pb.BotMessage(decision=decision)]).SerializeToString()


async def replies_until_sentinel(stream: RawBytesStream, bot: str) -> list[tuple[int, str]]:
    """Every Error the arena sends before the sentinel's; any other kind fails the test."""
    sentinel = (pb.ERROR_CODE_UNKNOWN_GAME, f"bot {bot!r} is not playing a game {SENTINEL!r}")
    got: list[tuple[int, str]] = []
    while True:
        for msg in (await stream.read()).messages:
            assert msg.WhichOneof("kind") == "error", msg
            reply = (msg.error.code, msg.error.message)
            if reply == sentinel:
                return got
            got.append(reply)


async def exchange(arena: Arena, token: str, bot: str, body: bytes) -> list[tuple[int, str]]:
    """Open a session, send `body` as one raw write, and collect the replies to it."""
    stream = RawBytesStream(arena.target, token)
    try:
        await stream.write(hello_bytes())
        assert (await stream.read()).messages[0].WhichOneof("kind") == "welcome"
        await stream.write(body)
        await stream.write(sentinel_bytes())
        return await replies_until_sentinel(stream, bot)
    finally:
        await stream.close()


@pytest.fixture(scope="module")
def fuzz_bot(arena: Arena) -> tuple[str, str]:
    return arena.register("fuzz")


@FUZZ
@given(batch=BATCHES)
def test_every_generated_message_gets_exactly_its_error(
    arena: Arena, fuzz_bot: tuple[str, str], batch: list[pb.BotMessage]
) -> None:
    name, token = fuzz_bot
    body = pb.BotBatch(messages=batch).SerializeToString()
    replies = asyncio.run(exchange(arena, token, name, body))
    assert replies == [expected_error(msg, name) for msg in batch]


def mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    """Apply (kind, position, value) edits: 0 overwrites a byte, 1 inserts one, 2 deletes one,
    3 truncates; positions wrap around the current length."""
    out = bytearray(data)
    for kind, position, value in edits:
        if not out:
            break
        i = position % len(out)
        if kind == 0:
            out[i] = value
        elif kind == 1:
            out.insert(i, value)
        elif kind == 2:
            del out[i]
        else:
            del out[i:]
    return bytes(out)


EDITS = st.lists(
    st.tuples(st.sampled_from([0, 0, 0, 1, 2, 3]), st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=3
)
"""Mostly overwrites, and few edits per example, so that a good share still decodes."""


@settings(FUZZ, max_examples=150)
@given(batch=BATCHES.filter(bool), edits=EDITS)
def test_every_mutated_batch_that_decodes_gets_exactly_its_errors(
    arena: Arena, fuzz_bot: tuple[str, str], batch: list[pb.BotMessage], edits: list[tuple[int, int, int]]
) -> None:
    """Mutated bytes that still decode as a BotBatch (protobuf is lenient) are answered message by
    message; bytes that do not decode are the next tests' subject."""
    name, token = fuzz_bot
    body = mutate(pb.BotBatch(messages=batch).SerializeToString(), edits)
    try:
        decoded = pb.BotBatch.FromString(body)
        decoded.SerializeToString()  # a string field with invalid UTF-8 may only fail here
    except Exception:
        event("undecodable")
        return
    event("decoded")
    replies = asyncio.run(exchange(arena, token, name, body))
    assert replies == [expected_error(msg, name) for msg in decoded.messages]


UNDECODABLE = b"\xff\xff\xff\xff"
"""Field 0 / wire type 7: no protobuf parser accepts it."""


def test_undecodable_bytes_never_crash_or_hang_the_arena(
    arena: Arena, healthy: Healthy, fuzz_bot: tuple[str, str]
) -> None:
    """As a first message or mid-stream, bytes that are no BotBatch end in bounded time (the
    first-message case with a non-OK status) and the arena keeps serving."""
    _, token = fuzz_bot

    async def first_message() -> grpc.StatusCode:
        stream = RawBytesStream(arena.target, token)
        await stream.write(UNDECODABLE)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await stream.read()
        await stream.close()
        return ended.value.code()

    assert asyncio.run(first_message()) != grpc.StatusCode.OK

    async def mid_stream() -> None:
        stream = RawBytesStream(arena.target, token)
        await stream.write(hello_bytes())
        assert (await stream.read()).messages[0].WhichOneof("kind") == "welcome"
        await stream.write(UNDECODABLE)
        await stream.close()

    asyncio.run(mid_stream())
    healthy.check_still_served(seed=201)


def test_undecodable_first_message_ends_the_call_with_invalid_argument(arena: Arena, fuzz_bot: tuple[str, str]) -> None:
    async def scenario() -> grpc.StatusCode:
        stream = RawBytesStream(arena.target, fuzz_bot[1])
        await stream.write(UNDECODABLE)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await stream.read()
        await stream.close()
        return ended.value.code()

    assert asyncio.run(scenario()) == grpc.StatusCode.INVALID_ARGUMENT


def test_undecodable_bytes_mid_stream_end_the_call_with_invalid_argument(
    arena: Arena, fuzz_bot: tuple[str, str]
) -> None:
    async def scenario() -> grpc.StatusCode:
        stream = RawBytesStream(arena.target, fuzz_bot[1])
        await stream.write(hello_bytes())
        assert (await stream.read()).messages[0].WhichOneof("kind") == "welcome"
        await stream.write(UNDECODABLE)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(stream.call.read(), 3)  # the status is due at once; bounded
        await stream.close()
        return ended.value.code()

    assert asyncio.run(scenario()) == grpc.StatusCode.INVALID_ARGUMENT


def test_undecodable_bytes_mid_game_forfeit_only_that_seat(arena: Arena, healthy: Healthy) -> None:
    """A bot that sends bytes the arena cannot decode while seated is disconnected at once and, not
    coming back within the grace period, loses that seat; the game completes for the others."""
    name, token = arena.register("garbage")

    async def scenario() -> arena_pb2.PlayGameResponse:
        stream = RawBytesStream(arena.target, token)
        await stream.write(hello_bytes())
        assert (await stream.read()).messages[0].WhichOneof("kind") == "welcome"
        game = asyncio.create_task(
            asyncio.to_thread(
                arena.play, [healthy.names[0], name], 202, move_limit_ms=HEALTHY_MOVE_MS, time_bank_ms=0, grace_ms=300
            )
        )
        while not any(m.WhichOneof("kind") == "decision_request" for m in (await stream.read()).messages):
            pass
        await stream.write(UNDECODABLE)
        response = await game
        await stream.close()
        return response

    response = asyncio.run(scenario())
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit.split(":")[0] == "disconnected"
    healthy.check_still_served(seed=203)
