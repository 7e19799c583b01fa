"""Registrations and entries of every caller together are paced, and waiting addresses take turns
(arena.fair_turns; docs/security.md, "Entry and registration"): the budget on its own, in virtual
time, then against a real `scout-arena serve` with its registrations coming from several loopback
addresses."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from arena.fair_turns import FairTurns, TurnRefused
from sdk.wire import arena_pb2_grpc
from sdk.wire.arena_client import REGISTER_BOT
from tests.relay import relay
from tests.timeouts import CALL_S
from tests.tournaments.arena_process import ArenaProcess


class VirtualTime:
    """A clock the budget's own waits move forward: a test of rates that runs at once."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)  # the calls let through so far run at the time they were let through
        self.now += seconds


def turns(rate: float, burst: int, time: VirtualTime, **bounds: int) -> FairTurns:
    return FairTurns(rate, burst, clock=time.clock, sleep=time.sleep, **bounds)


async def admitted(budget: FairTurns, calls: list[str], time: VirtualTime) -> list[tuple[str, float]]:
    """Each call's key and the virtual time its turn came, in the order they came."""
    order: list[tuple[str, float]] = []

    async def call(key: str) -> None:
        await budget.turn(key)
        order.append((key, time.now))

    await asyncio.gather(*(call(key) for key in calls))
    return order


def test_a_burst_goes_at_once_and_then_the_rate_holds() -> None:
    time = VirtualTime()
    order = asyncio.run(admitted(turns(10.0, 3, time), ["a"] * 6, time))
    assert [when for _, when in order] == pytest.approx([0.0, 0.0, 0.0, 0.1, 0.2, 0.3])


def test_waiting_addresses_take_turns_whatever_each_has_waiting() -> None:
    time = VirtualTime()
    order = asyncio.run(admitted(turns(1.0, 1, time), ["flood"] * 8 + ["newcomer"], time))
    keys = [key for key, _ in order]
    # The flood's first call takes the burst, its second is first in line, then it is the newcomer's turn.
    assert keys.index("newcomer") == 2, keys
    assert [when for _, when in order] == pytest.approx([float(i) for i in range(9)])


def test_too_many_waiting_calls_are_refused_at_once() -> None:
    async def fill() -> None:
        budget = turns(1.0, 1, VirtualTime(), waiting=3, waiting_per_key=2)
        await budget.turn("a")  # the burst
        waiting = [asyncio.create_task(budget.turn(key)) for key in ("a", "a", "b")]
        await asyncio.sleep(0)
        assert budget.waiting == 3
        with pytest.raises(TurnRefused) as own:
            await budget.turn("a")
        assert own.value.own
        with pytest.raises(TurnRefused) as everyone:
            await budget.turn("c")
        assert not everyone.value.own
        await asyncio.gather(*waiting)
        assert budget.waiting == 0

    asyncio.run(fill())


def test_a_call_that_gives_up_leaves_its_place_and_spends_nothing() -> None:
    time = VirtualTime()

    async def give_up() -> list[tuple[str, float]]:
        budget = turns(1.0, 1, time)
        await budget.turn("a")
        quitter = asyncio.create_task(budget.turn("quitter"))
        await asyncio.sleep(0)
        quitter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await quitter
        assert budget.waiting == 0
        return await admitted(budget, ["b", "c"], time)

    # The quitter's token goes to the next call: b at 1 s, not 2 s.
    assert asyncio.run(give_up()) == [("b", pytest.approx(1.0)), ("c", pytest.approx(2.0))]


FLOOD_HOSTS = 3
FLOOD_CALLS = 8
RATE = 8.0


def test_a_newcomer_registers_within_a_turn_of_a_flood_from_many_addresses(tmp_path: Path) -> None:
    """Three addresses each send eight registrations at once to an arena taking eight a second;
    a fourth address's one registration, sent once each of them has been served, is answered
    before most of the rest: it waits a turn of each address waiting, not behind their 21 calls."""
    arena = ArenaProcess(
        f"sqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "arena.log",
        "--global-entry-rate",
        str(RATE),
        "--global-entry-burst",
        "1",
    )
    answered: list[str] = []
    every_host_served = asyncio.Event()

    async def flood() -> None:
        opened: set[asyncio.StreamWriter] = set()
        ports = [await relay(f"127.0.0.{h + 2}", arena.target, opened) for h in range(FLOOD_HOSTS + 1)]
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p}") for p in ports]

        async def register(host: int, name: str) -> None:
            stub = arena_pb2_grpc.ArenaStub(channels[host])
            await REGISTER_BOT.ask(stub, name=name, timeout=CALL_S)
            answered.append(name)
            if len({n.split("-")[0] for n in answered}) == FLOOD_HOSTS:
                every_host_served.set()

        flooding = [
            asyncio.create_task(register(h, f"flood{h}-{i}")) for h in range(FLOOD_HOSTS) for i in range(FLOOD_CALLS)
        ]
        try:
            await asyncio.wait_for(every_host_served.wait(), CALL_S)  # so each address has calls waiting
            await register(FLOOD_HOSTS, "newcomer")
            await asyncio.gather(*flooding)
        finally:
            for channel in channels:
                await channel.close()
            for writer in opened:
                writer.close()

    try:
        asyncio.run(flood())
    finally:
        arena.stop()
    assert len(answered) == FLOOD_HOSTS * FLOOD_CALLS + 1
    place = answered.index("newcomer")
    assert place <= 2 * FLOOD_HOSTS + 1, f"the newcomer was answered after {place} of the flood's calls"
