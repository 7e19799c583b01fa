"""Nothing about a deal leaves the arena before its game is finished (issue #11; docs/architecture.md
boundary 2: "nothing from which a deal can be derived (a seed, a nonce, a voided attempt's record)
leaves the arena before its game is finished, through any channel"; docs/rules.md §2, the seeded deal).

A real arena process plays a real tournament with three bots in this process (SDK runners that
hold their answers until the test lets them go). At every phase - created, started (games
scheduled), running, a game voided and waiting for its replay, finished - every public read call
is made, with the replies to the organiser's calls, the errors and every message the bots
received on their streams; only once the tournament is finished does the organiser's RevealSeeds
call tell the test what to look for. Before a game is finished, no seed of it, no tournament
seed or nonce and no hand of its voided attempt may appear anywhere, and an entrant that tries to
foresee the hands from every number it could read (as a seed, and through the published
derivation) must fail; given the real seed, the same predictor deals every hand, so it works.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from arena.cli import remote_wire as client_wire
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.fairness import attempt_seed, commitment
from arena.tournaments.schedule import game_seed
from arena.tournaments.settings import TournamentSettings
from sdk import Action, Bot, Observation
from sdk import runner as sdk_runner
from sdk.engine import GameRecord, deal_rounds
from sdk.wire import arena_pb2 as pb
from sdk.wire import arena_pb2_grpc
from tests.cli.conftest import arena_cli
from tests.tournaments.arena_process import ArenaProcess
from tests.tournaments.conftest import wait_until

BOTS = ("ann", "bob", "cy")
NAME = "secret-cup"
WAIT_S = 60.0
POLICY = FailurePolicy(absent_wait_ms=600_000, grace_ms=300)
"""A bot gone mid-game forfeits after 0.3 s (the attempt is voided); its replay waits for it."""


class GatedBot(Bot):
    """Plays the first legal action, but only once its gate is open."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    async def _wait(self) -> None:
        while not self.gate.is_set():
            await asyncio.sleep(0.02)

    async def choose(self, obs: Observation) -> Action:
        await self._wait()
        return obs.legal_actions[0]

    async def flip(self, obs: Observation) -> bool:
        await self._wait()
        return False


class Bots:
    """The three bots' SDK runners on an event loop of their own thread."""

    def __init__(self, target: str, tokens: dict[str, str]) -> None:
        self.target, self.tokens = target, tokens
        self.gates = {name: threading.Event() for name in tokens}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.tasks: dict[str, asyncio.Future[int]] = {}

    def connect(self, name: str) -> None:
        bot = GatedBot(self.gates[name])
        self.tasks[name] = asyncio.run_coroutine_threadsafe(
            sdk_runner.run_async(bot, target=self.target, token=self.tokens[name], capacity=2), self.loop
        )

    def drop(self, name: str) -> None:
        """Cut the bot's stream as a crash would (its runner is cancelled)."""
        self.loop.call_soon_threadsafe(self.tasks[name].cancel)

    def stop(self) -> None:
        for task in self.tasks.values():
            self.loop.call_soon_threadsafe(task.cancel)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


class Reader:
    """Every public read call, no token, as anyone can make them; replies and errors kept."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = arena_pb2_grpc.ArenaStub(self.channel)  # type: ignore[no-untyped-call]

    def call(self, method: str, request: Message, token: str | None = None) -> list[object]:
        """The reply (each message of a stream), or the error's code and message."""
        metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        try:
            reply = getattr(self.stub, method)(request, metadata=metadata, timeout=10)
            return list(reply) if method == "ExportGames" else [reply]
        except grpc.RpcError as exc:
            return [exc.code().name, exc.details()]

    def everything(self) -> list[object]:
        seen: list[object] = []
        seen += self.call("ListTournaments", pb.ListTournamentsRequest())
        seen += self.call("ShowTournament", pb.ShowTournamentRequest(name=NAME))
        seen += self.call("ShowTournament", pb.ShowTournamentRequest(name="nope"))
        seen += self.call("ListBots", pb.ListBotsRequest())
        seen += self.call("Ratings", pb.RatingsRequest())
        seen += self.call("Ratings", pb.RatingsRequest(tournament=NAME))
        seen += self.call("Ratings", pb.RatingsRequest(tournament=NAME, bootstrap_resamples=5))
        seen += self.call("HeadToHead", pb.HeadToHeadRequest())
        seen += self.call("HeadToHead", pb.HeadToHeadRequest(tournament=NAME))
        listed = self.call("ListGames", pb.ListGamesRequest())
        seen += listed
        seen += self.call("ListGames", pb.ListGamesRequest(tournament=NAME))
        for status in (pb.GAME_STATUS_SCHEDULED, pb.GAME_STATUS_RUNNING, pb.GAME_STATUS_FINISHED):
            seen += self.call("ListGames", pb.ListGamesRequest(tournament=NAME, status=status))
        ids = [g.id for g in listed[0].games] if isinstance(listed[0], pb.ListGamesResponse) else []
        for game_id in [*ids, 10_000, -1]:
            seen += self.call("ShowGame", pb.ShowGameRequest(id=game_id))
        seen += self.call("ExportGames", pb.ExportGamesRequest())
        seen += self.call("ExportGames", pb.ExportGamesRequest(tournament=NAME))
        seen += self.call("RevealSeeds", pb.RevealSeedsRequest(tournament=NAME))
        seen += self.call("RevealSeeds", pb.RevealSeedsRequest(tournament=NAME), token="not-the-admin-token")
        seen += self.call("StartTournament", pb.StartTournamentRequest(name=NAME))
        return seen


def values(seen: list[object]) -> tuple[set[int], list[str]]:
    """Every integer and every string in `seen` (protobuf messages walked field by field), and
    every run of digits inside a string (JSON, messages) as an integer too."""
    numbers: set[int] = set()
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Message):
            for _, field_value in value.ListFields():
                if isinstance(field_value, (list, tuple)) or hasattr(field_value, "extend"):
                    for item in field_value:
                        walk(item)
                else:
                    walk(field_value)
        elif isinstance(value, bool):
            return
        elif isinstance(value, int):
            numbers.add(value)
        elif isinstance(value, str):
            texts.append(value)
            numbers.update(int(d) for d in re.findall(r"\d+", value))
        elif isinstance(value, bytes):
            walk(value.decode(errors="replace"))

    for item in seen:
        walk(item)
    return numbers, texts


class Predictor:
    """An entrant foreseeing deals: every number it could read is tried as a game seed, and as
    a tournament seed through the published derivation (every table, game and attempt 1..3). A
    seed that deals a seat's own first hand gives away every other hand of the game. A replay's
    kept hands (docs/security.md, "Voids cannot be bought") are handed to it too, as the bot that
    failed knows its own."""

    def __init__(self, candidates: set[int], players: int, tables: int, games: int) -> None:
        tries: set[int] = set()
        for c in candidates:
            if 0 <= c < 2**64:
                tries |= {c} | {game_seed(c, t, g) for t in range(tables) for g in range(games)}
                tries |= {attempt_seed(c, t, g, a) for t in range(tables) for g in range(games) for a in (2, 3)}
        self.players = players
        self.deals = {seed: deal_rounds(players, seed) for seed in tries}

    def deal(self, record: GameRecord) -> dict[int, tuple[Any, ...]]:
        """Every tried seed's deal of `record`'s game, with the hands it keeps."""
        if not record.kept:
            return self.deals
        return {seed: deal_rounds(self.players, seed, record.kept_hands()) for seed in self.deals}

    def foresee(self, record: GameRecord, seat: int) -> list[int]:
        """The seeds that deal `seat` its first hand of `record`, where the seat's hand is not kept."""
        hand = record.deals[0][seat]
        return [seed for seed, deal in self.deal(record).items() if seat not in record.kept and deal[0][seat] == hand]


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[ArenaProcess]:
    server = ArenaProcess(f"sqlite:///{tmp_path / 'arena.db'}", tmp_path / "server.log")
    yield server
    server.stop()


def test_no_public_call_reveals_a_deal_before_its_game_is_finished(
    arena: ArenaProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = arena.admin_token
    assert admin is not None
    received: list[Message] = []
    decode = sdk_runner.arena_batch_from_pb

    def recording(batch: Any, lazy_events: bool = False) -> Any:
        received.append(batch)
        return decode(batch, lazy_events=lazy_events)

    monkeypatch.setattr(sdk_runner, "arena_batch_from_pb", recording)
    reader = Reader(arena.target)
    phases: dict[str, list[object]] = {}

    def snapshot(phase: str, *extra: object) -> None:
        phases[phase] = [*extra, *reader.everything(), *received]

    settings = TournamentSettings(
        NAME, 3, 2, datetime.now(UTC) + timedelta(days=1), 60_000, concurrency=1, policy=POLICY
    )
    created = reader.call("CreateTournament", client_wire.settings_to_pb(settings), admin)
    assert isinstance(created[0], pb.CreateTournamentResponse), created
    tokens = {name: reader.stub.RegisterBot(pb.RegisterBotRequest(name=name), timeout=10).token for name in BOTS}
    entered = [
        r
        for name in BOTS
        for r in reader.call("EnterTournament", pb.EnterTournamentRequest(tournament=NAME), tokens[name])
    ]
    snapshot("created", *created, *entered)

    bots = Bots(arena.target, tokens)
    try:
        for name in BOTS:
            bots.connect(name)
        wait_until(lambda: all(f"bot {n!r} connected" in arena.log.read_text() for n in BOTS), "the bots", WAIT_S)
        started = reader.call("StartTournament", pb.StartTournamentRequest(name=NAME), admin)
        assert isinstance(started[0], pb.StartTournamentResponse), started
        snapshot("started", *started)

        def requests() -> int:
            return sum(m.WhichOneof("kind") == "decision_request" for b in received for m in b.messages)

        wait_until(lambda: requests() >= 3, "every seat's first request", WAIT_S)
        snapshot("running")

        bots.drop("cy")
        bots.gates["ann"].set()
        bots.gates["bob"].set()
        db = tmp_path / "arena.db"

        def voided() -> bool:
            with sqlite3.connect(db) as conn:
                return bool(conn.execute("SELECT count(*) FROM voided_attempts").fetchone()[0])

        wait_until(voided, "the first game's attempt to be voided", WAIT_S)
        late = reader.stub.RegisterBot(pb.RegisterBotRequest(name="late"), timeout=10).token
        snapshot(
            "voided, waiting for its replay",
            *reader.call("EnterTournament", pb.EnterTournamentRequest(tournament=NAME), late),
        )

        bots.gates["cy"].set()
        bots.connect("cy")

        def finished() -> bool:
            reply = reader.stub.ShowTournament(pb.ShowTournamentRequest(name=NAME), timeout=10)
            return bool(reply.tournament.status == pb.TOURNAMENT_STATUS_FINISHED)

        wait_until(finished, "the tournament to finish", WAIT_S)
    finally:
        bots.stop()
    snapshot("finished")

    reveal = reader.stub.RevealSeeds(
        pb.RevealSeedsRequest(tournament=NAME), metadata=(("authorization", f"Bearer {admin}"),), timeout=10
    )
    assert reveal.seed_commitment == commitment(reveal.seed, reveal.seed_nonce)
    shown = reader.stub.ShowTournament(pb.ShowTournamentRequest(name=NAME), timeout=10).tournament
    assert (shown.seed, shown.seed_nonce, shown.seed_commitment) == (
        reveal.seed,
        reveal.seed_nonce,
        reveal.seed_commitment,
    )
    games = [
        reader.stub.ShowGame(pb.ShowGameRequest(id=g.id), timeout=10)
        for g in reader.stub.ListGames(pb.ListGamesRequest(tournament=NAME), timeout=10).games
    ]
    tables = len({g.game.table_index for g in games})
    assert len(games) == 2 * tables, "3 entrants at 3-seat tables: every seat once each, 2 games a table"
    assert [len(g.voided_attempts) for g in games] == [1] + [0] * (len(games) - 1)
    assert [g.game.attempts for g in games] == [2] + [1] * (len(games) - 1)
    attempt_seeds = {g.seed for g in reveal.games}
    assert attempt_seeds == {g.game.seed for g in games} | {v.seed for g in games for v in g.voided_attempts}
    records = [GameRecord.from_json(g.record_json) for g in games]
    records += [GameRecord.from_json(v.record_json) for g in games for v in g.voided_attempts]
    hands = {json.dumps([list(c) for c in hand], separators=(",", ":")) for r in records for d in r.deals for hand in d}

    secrets_ = {reveal.seed, *attempt_seeds}
    for phase, seen in phases.items():
        if phase == "finished":
            continue
        numbers, texts = values(seen)
        assert not numbers & secrets_, f"{phase}: a seed was readable"
        assert not any(reveal.seed_nonce in t or str(reveal.seed) in t for t in texts), f"{phase}: the seed or nonce"
        assert not any(h in t for h in hands for t in texts), f"{phase}: a dealt hand was readable"
        predictor = Predictor(numbers, 3, tables, 2)
        for record in records:
            for seat in range(record.players):
                assert predictor.foresee(record, seat) == [], f"{phase}: seat {seat} foresaw the deal"
    given_the_seed = Predictor({reveal.seed}, 3, tables, 2)
    assert any(record.kept for record in records), "the voided game's replay keeps the failing seat's hands"
    for record in records:
        assert given_the_seed.deal(record)[record.seed] == record.deals, "the predictor deals every hand from the seed"
        for seat in set(range(record.players)) - set(record.kept):
            assert given_the_seed.foresee(record, seat) == [record.seed]
    numbers, _ = values(phases["finished"])
    assert secrets_ <= numbers, "once finished, every seed is public"
    log = arena.log.read_text()
    assert str(reveal.seed) not in log and reveal.seed_nonce not in log
    code, output = arena_cli("games", "verify", "--tournament", NAME, "--server", arena.target)
    assert code == 0 and output.startswith(f"tournament {NAME!r} verified"), output


def test_reveal_seeds_is_for_the_organiser_only(arena: ArenaProcess) -> None:
    reader = Reader(arena.target)
    request = pb.RevealSeedsRequest(tournament="nope")
    code, message = reader.call("RevealSeeds", request)
    assert code == "UNAUTHENTICATED" and "admin token" in str(message)
    assert reader.call("RevealSeeds", request, arena.admin_token) == [
        "NOT_FOUND",
        "there is no tournament named 'nope'",
    ]
