"""Client strings at the boundary: what a hostile client sends never reaches a log line raw, is never
echoed back at length, and a request that is not one is one log line.

Each test runs an arena in its own process, so `caplog` holds every line the arena logged.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import grpc
import pytest
from google.protobuf.message_factory import GetMessageClass

from arena.api.boundary import ARENA, HELLO_TOURNAMENTS, STRING_CAPS, string_fields
from arena.startup.arena import log_loop_error
from sdk import Bot
from sdk.runner import ArenaRefused, run_async
from sdk.wire import arena_pb2, arena_pb2_grpc
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot, flip
from tests.security.helpers import (
    admin,
    assert_log_is_clean,
    assert_short_and_plain,
    refusal,
    running_arena,
    target,
)

FORGED_LINE = "ok\n2026-01-01 12:00:00 INFO arena.api.arena_service: registered bot 'admin'"
TERMINAL = "\x1b[2J\x1b[31mred\x1b]0;pwned\x07"
HUGE = "x" * 60_000
"""Each a string a client may send; HUGE still fits the arena's 64 KiB receive limit."""
HOSTILE = {"a forged log line": FORGED_LINE, "terminal escapes": TERMINAL, "60 kB": HUGE}


def test_every_string_field_of_every_request_has_a_cap() -> None:
    fields = {f.full_name for method in ARENA.methods for f in string_fields(method.input_type)}
    assert fields | {HELLO_TOURNAMENTS} == set(STRING_CAPS)


@pytest.mark.parametrize(
    ("name", "version"),
    [
        *((text, "1.0") for text in HOSTILE.values()),
        *(("bot", text) for text in HOSTILE.values()),
        ("bot", "1.0 beta"),
        ("-bot", "1.0"),
    ],
    ids=[
        *(f"name: {k}" for k in HOSTILE),
        *(f"version: {k}" for k in HOSTILE),
        "version: a space",
        "name: a dash first",
    ],
)
def test_a_hello_breaking_the_name_rules_is_refused_briefly_and_nothing_raw_is_logged(
    caplog: pytest.LogCaptureFixture, name: str, version: str
) -> None:
    caplog.set_level(logging.INFO)

    async def scenario() -> grpc.aio.AioRpcError:
        async with running_arena() as arena:
            token = await arena.directory.register("hello-probe")
            bot = RawBot(target(arena), token)
            await bot.write(pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version=version, capacity=1)))
            try:
                return await refusal(bot.read())
            finally:
                await bot.close()

    refused = asyncio.run(scenario())
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.details().startswith(("Hello.bot_name ", "Hello.bot_version "))
    assert_short_and_plain(refused.details(), "the refusal")
    assert_log_is_clean(caplog.records)
    assert "connected" not in caplog.text


def test_a_hello_within_the_rules_is_welcomed_and_logged_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)

    async def scenario() -> str:
        async with running_arena() as arena:
            token = await arena.directory.register("hello-fine")
            bot = RawBot(target(arena), token)
            await bot.write(pb.BotMessage(hello=pb.Hello(bot_name="My_Bot.2", bot_version="1.2.0-rc.1+b5", capacity=1)))
            welcome = await bot.read()
            await bot.close()
            return welcome.welcome.bot_name

    assert asyncio.run(scenario()) == "hello-fine"
    assert "program 'My_Bot.2', version '1.2.0-rc.1+b5'" in caplog.text


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_register_bot_refuses_a_hostile_name_briefly_and_logs_nothing_raw(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, name: str
) -> None:
    caplog.set_level(logging.INFO)

    async def scenario() -> grpc.aio.AioRpcError:
        async with running_arena(tmp_path / "arena.db") as arena, grpc.aio.insecure_channel(target(arena)) as channel:
            return await refusal(arena_pb2_grpc.ArenaStub(channel).RegisterBot(arena_pb2.RegisterBotRequest(name=name)))

    refused = asyncio.run(scenario())
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert_short_and_plain(refused.details(), "the refusal")
    assert_log_is_clean(caplog.records)
    assert "registered" not in caplog.text


def test_every_capped_string_is_refused_without_being_echoed(tmp_path: Path) -> None:
    """A 60 kB string in any string field of any request (bot token or admin token given) is
    INVALID_ARGUMENT with a short message; it is never quoted back."""

    async def scenario() -> list[str]:
        failures = []
        async with running_arena(tmp_path / "arena.db") as arena, grpc.aio.insecure_channel(target(arena)) as channel:
            for method in ARENA.methods:
                request_class = GetMessageClass(method.input_type)
                path = f"/{ARENA.full_name}/{method.name}"
                kind = channel.unary_stream if method.server_streaming else channel.unary_unary
                call = kind(
                    path,
                    request_serializer=request_class.SerializeToString,
                    response_deserializer=GetMessageClass(method.output_type).FromString,
                )
                for field in method.input_type.fields:
                    if field.full_name not in STRING_CAPS:
                        continue
                    request = request_class(**{field.name: [HUGE] if field.is_repeated else HUGE})
                    answer = call(request, metadata=admin(arena), timeout=10)
                    try:
                        if method.server_streaming:
                            async for _ in answer:
                                pass
                        else:
                            await answer
                    except grpc.aio.AioRpcError as exc:
                        if exc.code() != grpc.StatusCode.INVALID_ARGUMENT or len(exc.details()) > 200:
                            failures.append(
                                f"{field.full_name}: {exc.code().name} {exc.details()[:100]!r} "
                                f"({len(exc.details())} characters)"
                            )
                    else:
                        failures.append(f"{field.full_name}: accepted")
        return failures

    assert asyncio.run(scenario()) == []


def test_a_name_looked_up_is_quoted_escaped(tmp_path: Path) -> None:
    async def scenario() -> grpc.aio.AioRpcError:
        async with running_arena(tmp_path / "arena.db") as arena, grpc.aio.insecure_channel(target(arena)) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            return await refusal(stub.ShowTournament(arena_pb2.ShowTournamentRequest(name=TERMINAL)))

    refused = asyncio.run(scenario())
    assert refused.code() == grpc.StatusCode.NOT_FOUND
    assert refused.details() == f"there is no tournament named {TERMINAL!r}"
    assert_short_and_plain(refused.details(), "the refusal")


def test_a_60_kB_game_id_in_a_decision_gets_a_short_error() -> None:
    async def scenario() -> pb.Error:
        async with running_arena() as arena:
            bot = await RawBot.connect(target(arena), await arena.directory.register("long-id"))
            await bot.answer(HUGE, 1, flip(True))
            error = (await bot.next("error")).error
            await bot.close()
            return error

    error = asyncio.run(scenario())
    assert error.code == pb.ERROR_CODE_MALFORMED
    assert error.message == "the Decision for request 1 names a game id of 60000 characters; game ids have at most 64"
    assert error.game_id == ""


@pytest.mark.parametrize(
    ("method", "data"),
    [
        ("RegisterBot", b"\xff\xff\xff\xff"),
        ("ShowTournament", b"\x0a\x02\xc3\x28"),
        ("ExportGames", b"\x0a\x05ab"),
    ],
    ids=["corrupt", "bad UTF-8", "truncated"],
)
def test_a_corrupt_request_is_one_log_line_without_a_traceback_and_invalid_argument(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, method: str, data: bytes
) -> None:
    async def scenario() -> grpc.aio.AioRpcError:
        async with running_arena(tmp_path / "arena.db") as arena, grpc.aio.insecure_channel(target(arena)) as channel:
            raw = (channel.unary_stream if method == "ExportGames" else channel.unary_unary)(
                f"/{ARENA.full_name}/{method}"
            )
            caplog.clear()
            caplog.set_level(logging.INFO)
            if method == "ExportGames":
                try:
                    async for _ in raw(data, timeout=10):
                        pass
                except grpc.aio.AioRpcError as exc:
                    return exc
                raise AssertionError("the call succeeded")
            return await refusal(raw(data, timeout=10))

    refused = asyncio.run(scenario())
    request = f"scout.arena.v1.{method}Request"
    assert (refused.code(), refused.details()) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        f"the request is not a serialized {request}",
    )
    about = [r for r in caplog.records if method in r.getMessage() or r.exc_info is not None]
    assert len(about) == 1, [r.getMessage() for r in about]
    assert about[0].getMessage().endswith(f"{len(data)} bytes that are not a serialized {request}; refused")
    assert_log_is_clean(caplog.records)


def test_the_sdk_runner_stops_with_the_rule_when_its_bot_name_breaks_it() -> None:
    class Spaced(Bot):
        name = "my bot"

        def choose(self, obs):  # type: ignore[no-untyped-def]
            raise AssertionError("a refused bot is never asked")

    async def scenario() -> None:
        async with running_arena() as arena:
            token = await arena.directory.register("spaced")
            await asyncio.wait_for(run_async(Spaced(), target=target(arena), token=token), 10)

    with pytest.raises(ArenaRefused, match=r"^INVALID_ARGUMENT: Hello.bot_name 'my bot' is not a name: use 1 to 40 "):
        asyncio.run(scenario())


def test_an_error_only_the_event_loop_saw_is_one_escaped_line(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio's own handler logs a callback's error (grpc's poller's, under load) over several
    lines with a traceback; the arena's logs it as one line, and installs it when it starts."""

    async def scenario() -> object:
        async with running_arena():
            loop = asyncio.get_running_loop()
            loop.call_exception_handler(
                {"message": "Exception in callback Poller()\nhandle: <Handle>", "exception": OSError("bad\x1b[2J fd")}
            )
            return loop.get_exception_handler()

    assert asyncio.run(scenario()) is log_loop_error
    (record,) = [r for r in caplog.records if r.getMessage().startswith("event loop: ")]
    assert "OSError" in record.getMessage() and record.exc_info is None
    assert_log_is_clean(caplog.records)
