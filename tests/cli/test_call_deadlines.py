"""How long the command line waits for a server (arena/cli/remote.py): an ordinary call gives up
after CALL_TIMEOUT_S with one readable line, while a tournament's start, which stores the whole
schedule before it answers, waits START_TIMEOUT_S (a 50,000-game field's start took over 30 s on
a slow, busy machine, and the command said the arena did not answer while the arena went on)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from arena.api.arena_wire import tournament_to_pb
from arena.cli import remote
from arena.cli.clients import ServerUnreachable
from arena.cli.remote import RemoteArena
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests.cli.records_fixtures import tournament

SLOW_S = 1.0
"""How long the stand-in arena takes to answer: four times the ordinary deadline the test sets."""


class SlowArena(arena_pb2_grpc.ArenaServicer):
    """An Arena service that answers a start and a show after SLOW_S."""

    def StartTournament(
        self, request: arena_pb2.StartTournamentRequest, context: grpc.ServicerContext
    ) -> arena_pb2.StartTournamentResponse:
        time.sleep(SLOW_S)
        return arena_pb2.StartTournamentResponse(tournament=tournament_to_pb(tournament(name=request.name)))

    def ShowTournament(
        self, request: arena_pb2.ShowTournamentRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ShowTournamentResponse:
        time.sleep(SLOW_S)
        return arena_pb2.ShowTournamentResponse(tournament=tournament_to_pb(tournament(name=request.name)))


@pytest.fixture
def slow_arena() -> Iterator[str]:
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    arena_pb2_grpc.add_ArenaServicer_to_server(SlowArena(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(grace=None)


def test_a_start_waits_past_the_deadline_that_ends_an_ordinary_call(
    slow_arena: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote, "CALL_TIMEOUT_S", SLOW_S / 4)
    client = RemoteArena(slow_arena)
    try:
        with pytest.raises(ServerUnreachable, match=f"^the arena at {slow_arena} did not answer in time$"):
            client.tournament("cup")
        assert client.start_tournament("cup").name == "cup"
    finally:
        client.close()
