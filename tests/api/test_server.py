"""The server process's standard services, its receive-size bound, and the time bank."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from arena.api.reflection import V1_REQUEST, V1_RESPONSE
from arena.play.sessions import MAX_QUEUED
from sdk.wire import bot_session_pb2 as pb
from sdk.wire import game_pb2
from tests.api.rawclient import RawBot, flip
from tests.conftest import Arena, check_against_replay

SERVICES = ["scout.arena.v1.BotSession", "scout.arena.v1.Arena"]


@pytest.mark.parametrize("service", ["", *SERVICES])
def test_health_reports_serving(arena: Arena, service: str) -> None:
    with grpc.insecure_channel(arena.target) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_describes_the_protocol(arena: Arena) -> None:
    """v1alpha, through grpcio-reflection's own client."""
    with grpc.insecure_channel(arena.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert set(SERVICES) <= set(database.get_services())
        service = DescriptorPool(database).FindServiceByName("scout.arena.v1.BotSession")
        play = service.methods_by_name["Play"]
        assert (play.input_type.name, play.output_type.name) == ("BotBatch", "ArenaBatch")


def test_reflection_is_served_as_v1_too(arena: Arena) -> None:
    """What tools that speak grpc.reflection.v1 (grpcurl, Postman) ask: the services, and the file
    that defines one, with its dependencies."""
    assert V1_REQUEST.DESCRIPTOR.full_name == "grpc.reflection.v1.ServerReflectionRequest"
    with grpc.insecure_channel(arena.target) as channel:
        info = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=V1_REQUEST.SerializeToString,
            response_deserializer=V1_RESPONSE.FromString,
        )
        listed, described = info(
            iter(
                [
                    V1_REQUEST(list_services=""),
                    V1_REQUEST(file_containing_symbol="scout.arena.v1.BotSession"),
                ]
            ),
            timeout=10,
        )
    names = {s.name for s in listed.list_services_response.service}
    assert set(SERVICES) | {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= names
    files = [FileDescriptorProto.FromString(b) for b in described.file_descriptor_response.file_descriptor_proto]
    assert "scout/arena/v1/bot_session.proto" in {f.name for f in files}


@pytest.mark.parametrize("method", ["scout.arena.v1.Arena.DescribeArena", "scout.arena.v1.BotSession.Play"])
def test_reflection_describes_a_method_under_v1alpha(arena: Arena, method: str) -> None:
    """What `grpcurl describe SERVICE.METHOD` asks: the file containing the method's symbol,
    through grpcio-reflection's own client; a method that is not there stays unknown."""
    with grpc.insecure_channel(arena.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        found = database.FindFileContainingSymbol(method)
        service, _, name = method.rpartition(".")
        assert name in [m.name for s in found.service if f"{found.package}.{s.name}" == service for m in s.method]
        with pytest.raises(KeyError):  # a fresh client: this one finds names in the files it holds
            ProtoReflectionDescriptorDatabase(channel).FindFileContainingSymbol(f"{service}.NoSuchMethod")


def test_reflection_describes_a_method_under_v1(arena: Arena) -> None:
    """The same under grpc.reflection.v1, which grpcurl asks first: the method's file with its
    dependencies, answering the request as asked."""
    method = "scout.arena.v1.Arena.DescribeArena"
    with grpc.insecure_channel(arena.target) as channel:
        info = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=V1_REQUEST.SerializeToString,
            response_deserializer=V1_RESPONSE.FromString,
        )
        (described,) = info(iter([V1_REQUEST(file_containing_symbol=method)]), timeout=10)
    assert described.original_request.file_containing_symbol == method
    files = {
        f.name: f for f in map(FileDescriptorProto.FromString, described.file_descriptor_response.file_descriptor_proto)
    }
    assert {"scout/arena/v1/arena.proto", "scout/arena/v1/game.proto"} <= set(files)
    (arena_service,) = files["scout/arena/v1/arena.proto"].service
    described_method = next(m for m in arena_service.method if m.name == "DescribeArena")
    assert described_method.input_type == ".scout.arena.v1.DescribeArenaRequest"


def test_an_oversized_message_is_refused(arena: Arena) -> None:
    token = arena.register("big")[1]

    async def scenario() -> None:
        bot = RawBot(arena.target, token)
        await bot.write(pb.BotMessage(hello=pb.Hello(bot_name="x" * 100_000, capacity=1)))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.read()
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

    asyncio.run(scenario())


def test_a_slow_answer_draws_on_the_time_bank_and_the_bank_running_out_forfeits(arena: Arena) -> None:
    (a, a_token), (b, b_token) = arena.register("slow"), arena.register("quick")

    async def scenario() -> pb.GameOver:
        bot_a, bot_b = await RawBot.connect(arena.target, a_token), await RawBot.connect(arena.target, b_token)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [a, b], 31, move_limit_ms=100, time_bank_ms=1500))
        started = (await bot_a.next("game_started")).game_started
        assert (started.move_limit_ms, started.time_bank_ms) == (100, 1500)
        b_done = asyncio.create_task(bot_b.play_to_the_end(random.Random(8)))
        first = (await bot_a.next("decision_request")).decision_request
        assert (first.time_left_ms, first.time_bank_ms) == (1600, 1500)
        await asyncio.sleep(0.3)
        await bot_a.answer(first.game_id, first.request_id, flip(False))
        assert (await bot_a.read()).action_accepted.request_id == first.request_id
        second = (await bot_a.next("decision_request")).decision_request
        assert second.time_bank_ms < 1500, "the 200+ ms past the move limit came out of the bank"
        error = (await bot_a.next("error")).error
        assert error.code == pb.ERROR_CODE_SEAT_FORFEITED
        await b_done
        response = await game
        check_against_replay(response, forfeited={0})
        assert response.seats[0].forfeit.startswith(f"timeout: no legal answer to request {second.request_id} within ")
        assert response.seats[0].cause == game_pb2.FORFEIT_CAUSE_TIMEOUT
        return (await bot_a.next("game_over")).game_over

    over = asyncio.run(scenario())
    assert [(f.seat, f.cause, f.reason.split(":")[0]) for f in over.forfeits] == [
        (0, game_pb2.FORFEIT_CAUSE_TIMEOUT, "timeout")
    ]


def test_a_bot_that_stops_reading_is_cut_off(arena: Arena) -> None:
    token = arena.register("deaf")[1]

    async def scenario() -> tuple[grpc.StatusCode, str]:
        bot = await RawBot.connect(arena.target, token)
        stale = pb.BotBatch(messages=[pb.BotMessage(decision=pb.Decision(game_id="none", action=flip(False)))] * 1000)
        for _ in range(200):
            if bot.call.done():
                break
            try:
                await bot.call.write(stale)
            except grpc.aio.AioRpcError:
                break
        with pytest.raises(grpc.aio.AioRpcError) as cut:
            while True:
                await bot.read()
        return cut.value.code(), cut.value.details()

    assert asyncio.run(scenario()) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"{MAX_QUEUED} messages for this bot were left unread: read your stream",
    )
