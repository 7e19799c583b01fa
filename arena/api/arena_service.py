"""The servicer of the operators' and readers' `Arena` service: registration, games on demand, and,
for an arena that keeps a database, tournaments, ratings and game records.

Store errors become gRPC statuses (`STATUS_OF`) carrying their one-line message; database trouble
is UNAVAILABLE. An arena in memory serves only `IN_MEMORY_CALLS`; `arena.api.boundary` answers
the others UNIMPLEMENTED, naming what is missing.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from sqlalchemy.exc import DBAPIError

from arena import records
from arena.api import arena_wire
from arena.api.peers import Request, Response, bearer_token, peer_host
from arena.api.read_limits import BOOTSTRAP_RESAMPLES_PER_UNIT, EXPORT_GAMES_PER_UNIT, ITEMS_PER_UNIT, ReadGate
from arena.api.resources import DEFAULT_REGISTRATIONS_PER_MINUTE, ResourceLimits
from arena.directory import BotDirectory, NameTaken
from arena.documents import EXPORT_BATCH, game_line
from arena.errors import (
    AlreadyEntered,
    ArenaError,
    DatabaseUnreachable,
    DuplicateName,
    EntriesClosed,
    EntryCodeRefused,
    InvalidBootstrap,
    InvalidName,
    InvalidPage,
    InvalidSetting,
    NotEnoughEntrants,
    TournamentAlreadyStarted,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.fair_turns import FairTurns, TurnRefused
from arena.names import shown
from arena.page_tokens import Page, PageTokens
from arena.play.referee import Limits, Referee
from arena.play.sessions import AtCapacity, NotConnected
from arena.ratings.rank_confidence import MAX_RESAMPLES, RankStatistics
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.credentials import AdminGate
from arena.token_buckets import RateLimiter, address_key
from arena.tournaments.isolation import start_or_fail
from arena.tournaments.runner import TournamentRunner
from sdk.wire import arena_pb2 as pb
from sdk.wire import arena_pb2_grpc

log = logging.getLogger(__name__)

T = TypeVar("T")

TURN_WAIT_S = 30.0
"""The longest a registration or an entry waits for its turn (`ResourceLimits.global_entry_rate`),
if its own deadline is not sooner: as long as a write waits for the writer's queue."""

IN_MEMORY_CALLS = frozenset({"RegisterBot", "DescribeArena", "PlayGame"})
"""The calls an arena without a database serves."""

STATUS_OF: dict[type[ArenaError], grpc.StatusCode] = {
    InvalidName: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidSetting: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidBootstrap: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidPage: grpc.StatusCode.INVALID_ARGUMENT,
    DuplicateName: grpc.StatusCode.ALREADY_EXISTS,
    AlreadyEntered: grpc.StatusCode.ALREADY_EXISTS,
    UnknownBot: grpc.StatusCode.NOT_FOUND,
    UnknownTournament: grpc.StatusCode.NOT_FOUND,
    UnknownGame: grpc.StatusCode.NOT_FOUND,
    EntryCodeRefused: grpc.StatusCode.PERMISSION_DENIED,
    EntriesClosed: grpc.StatusCode.FAILED_PRECONDITION,
    NotEnoughEntrants: grpc.StatusCode.FAILED_PRECONDITION,
    TournamentAlreadyStarted: grpc.StatusCode.FAILED_PRECONDITION,
    DatabaseUnreachable: grpc.StatusCode.UNAVAILABLE,
}


def status_of(error: ArenaError) -> grpc.StatusCode:
    """The status a store error is reported with; FAILED_PRECONDITION for any other refusal."""
    for cls in type(error).__mro__:
        if cls in STATUS_OF:
            return STATUS_OF[cls]
    return grpc.StatusCode.FAILED_PRECONDITION


async def answer(context: grpc.aio.ServicerContext[Request, Response], work: Awaitable[T]) -> T:
    """`await work`, ending the call with the matching status if it raises a store error."""
    try:
        return await work
    except ArenaError as exc:
        await context.abort(status_of(exc), str(exc))
    except DBAPIError as exc:
        text = str(exc.orig).strip().splitlines()
        log.error("database error: %s", text[0] if text else type(exc.orig).__name__)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the arena's database is unavailable; try again later")
    raise AssertionError("context.abort raises")


class ArenaService(arena_pb2_grpc.ArenaServicer):
    """The Arena service: registration and games on demand always; tournaments, ratings and records
    with a database (`db` and `runner`)."""

    def __init__(
        self,
        directory: BotDirectory,
        referee: Referee,
        admin: AdminGate,
        limits: Limits,
        registrations_per_minute: int = DEFAULT_REGISTRATIONS_PER_MINUTE,
        resources: ResourceLimits | None = None,
        *,
        db: AsyncStore | None = None,
        runner: TournamentRunner | None = None,
    ) -> None:
        self._directory = directory
        self._referee = referee
        self._admin = admin
        self._limits = limits
        self._registrations = RateLimiter(registrations_per_minute / 60, registrations_per_minute)
        self._store = db
        self._tournaments = runner
        resources = resources or ResourceLimits()
        self._reads = ReadGate(resources, directory, admin)
        self._entries = FairTurns(resources.global_entry_rate, resources.global_entry_burst)
        self._pages = PageTokens()
        self._rank_statistics = RankStatistics()
        """Remembers the figures of the rating tables read lately: clients page through them."""

    def serves(self, method: str) -> bool:
        """Whether this arena answers the Arena call `method` (the rest need a database)."""
        return self._store is not None or method in IN_MEMORY_CALLS

    @property
    def _db(self) -> AsyncStore:
        assert self._store is not None, "a call that needs the database reached an arena without one"
        return self._store

    @property
    def _runner(self) -> TournamentRunner:
        assert self._tournaments is not None, "a call that needs the database reached an arena without one"
        return self._tournaments

    async def require_admin(self, call: str, context: grpc.aio.ServicerContext[Request, Response]) -> None:
        """End the call UNAUTHENTICATED unless it carries the arena's admin token."""
        token = bearer_token(context)
        if token is None or not await self._admin.allows(token):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{call} needs the arena's admin token as 'authorization: Bearer <token>'",
            )

    async def take_turn(self, call: str, context: grpc.aio.ServicerContext[Request, Response]) -> None:
        """Wait for the call's turn in the registrations and entries of every caller together
        (`arena.fair_turns`), or end it RESOURCE_EXHAUSTED."""
        if self._entries.now():
            return
        host = address_key(peer_host(context.peer()))
        remaining = context.time_remaining()
        patience = TURN_WAIT_S if remaining is None else min(TURN_WAIT_S, remaining)
        try:
            await asyncio.wait_for(self._entries.turn(host), patience)
        except TurnRefused as exc:
            whose = f" from {host[:64]}" if exc.own else ""
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{call}: too many registrations and entries are waiting{whose}: try again in a few seconds",
            )
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{call}: the arena takes {self._entries.rate:g} registrations and entries a second and this "
                f"call's turn did not come within {patience:.0f} s: try again later",
            )

    async def RegisterBot(
        self,
        request: pb.RegisterBotRequest,
        context: grpc.aio.ServicerContext[pb.RegisterBotRequest, pb.RegisterBotResponse],
    ) -> pb.RegisterBotResponse:
        host = peer_host(context.peer())
        if not self._registrations.allow(host):
            wait = math.ceil(self._registrations.retry_after(host))
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED, f"too many registrations from {host[:64]}: try again in {wait} s"
            )
        await self.take_turn("RegisterBot", context)
        name = request.name
        try:
            token = await self._directory.register(name)
        except InvalidName as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except NameTaken as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        log.info("registered bot %s", shown(name))
        return arena_wire.reply(pb.RegisterBotResponse, name=name, token=token)

    async def DescribeArena(
        self,
        request: pb.DescribeArenaRequest,
        context: grpc.aio.ServicerContext[pb.DescribeArenaRequest, pb.DescribeArenaResponse],
    ) -> pb.DescribeArenaResponse:
        return arena_wire.reply(pb.DescribeArenaResponse, arena_id=await self._admin.identity())

    async def PlayGame(
        self, request: pb.PlayGameRequest, context: grpc.aio.ServicerContext[pb.PlayGameRequest, pb.PlayGameResponse]
    ) -> pb.PlayGameResponse:
        await self.require_admin("PlayGame", context)
        try:
            bots, seed, limits = arena_wire.play_request_from_pb(request, self._limits)
        except ValueError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        game_id = uuid.uuid4().hex[:16]
        try:
            result = await self._referee.play(game_id, bots, seed, limits)
        except NotConnected as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        except AtCapacity as exc:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except ValueError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return arena_wire.play_response_to_pb(game_id, result)

    async def CreateTournament(
        self,
        request: pb.CreateTournamentRequest,
        context: grpc.aio.ServicerContext[pb.CreateTournamentRequest, pb.CreateTournamentResponse],
    ) -> pb.CreateTournamentResponse:
        await self.require_admin("CreateTournament", context)
        try:
            settings = arena_wire.settings_from_pb(request)
        except InvalidSetting as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        tournament = await answer(context, self._db(store.create_tournament, settings=settings))
        log.info(
            "tournament %s created: starts %s",
            shown(tournament.name),
            tournament.starts_at.isoformat(timespec="seconds"),
        )
        self._runner.wake()
        return arena_wire.reply(pb.CreateTournamentResponse, tournament=tournament)

    async def StartTournament(
        self,
        request: pb.StartTournamentRequest,
        context: grpc.aio.ServicerContext[pb.StartTournamentRequest, pb.StartTournamentResponse],
    ) -> pb.StartTournamentResponse:
        await self.require_admin("StartTournament", context)
        name = request.name
        tournament = await answer(context, self._db(start_or_fail, tournament=name))
        self._runner.wake()
        return arena_wire.reply(pb.StartTournamentResponse, tournament=tournament)

    async def EnterTournament(
        self,
        request: pb.EnterTournamentRequest,
        context: grpc.aio.ServicerContext[pb.EnterTournamentRequest, pb.EnterTournamentResponse],
    ) -> pb.EnterTournamentResponse:
        token = bearer_token(context)
        if token is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "EnterTournament needs the bot's own token as 'authorization: Bearer <token>'",
            )
        await self.take_turn("EnterTournament", context)
        bot = await answer(context, self._directory.authenticate(token))
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown bot token: register the bot to get one")
        assert bot is not None
        name, code = arena_wire.enter_request_from_pb(request)
        try:
            await self._db(store.enter_tournament, tournament=name, bot=bot, entry_code=code)
            log.info("bot %s entered tournament %s", shown(bot), shown(name))
        except (AlreadyEntered, EntriesClosed) as exc:
            entered = await answer(context, self._db(store.show_tournament, tournament=name))
            if bot not in entered.entrants:
                await context.abort(status_of(exc), str(exc))
        except ArenaError as exc:
            await context.abort(status_of(exc), str(exc))
        tournament = await answer(context, self._db(store.show_tournament, tournament=name))
        return arena_wire.reply(pb.EnterTournamentResponse, bot=bot, tournament=tournament)

    # The read calls: each is admitted by the read gate (per-caller limits), works on the database
    # within its bound, and lists one page at a time (arena.page_tokens).

    async def ListTournaments(
        self,
        request: pb.ListTournamentsRequest,
        context: grpc.aio.ServicerContext[pb.ListTournamentsRequest, pb.ListTournamentsResponse],
    ) -> pb.ListTournamentsResponse:
        page = await self._admit_page("ListTournaments", context, "tournaments", request)
        found = await self._read(context, store.list_tournaments, after=page.cursor, limit=page.size + 1)
        return arena_wire.page_reply(
            pb.ListTournamentsResponse, *self._split("tournaments", found, page, lambda t: t.id)
        )

    async def ShowTournament(
        self,
        request: pb.ShowTournamentRequest,
        context: grpc.aio.ServicerContext[pb.ShowTournamentRequest, pb.ShowTournamentResponse],
    ) -> pb.ShowTournamentResponse:
        await self._reads.admit("ShowTournament", context, bearer_token(context))
        shown = await self._read(context, store.show_tournament, tournament=request.name)
        return arena_wire.reply(pb.ShowTournamentResponse, tournament=shown)

    async def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.aio.ServicerContext[pb.ListBotsRequest, pb.ListBotsResponse]
    ) -> pb.ListBotsResponse:
        page = await self._admit_page("ListBots", context, "bots", request)
        found = await self._read(context, store.list_bots, after=page.cursor, limit=page.size + 1)
        return arena_wire.page_reply(pb.ListBotsResponse, *self._split("bots", found, page, lambda b: b.id))

    async def Ratings(
        self, request: pb.RatingsRequest, context: grpc.aio.ServicerContext[pb.RatingsRequest, pb.RatingsResponse]
    ) -> pb.RatingsResponse:
        """A page of the table; a bootstrap costs a read unit more per BOOTSTRAP_RESAMPLES_PER_UNIT
        resamples, asked for (the work limit bounds it per call; an unchanged table's is remembered)."""
        scope = arena_wire.scope_from_pb(request)
        listing = repr(("ratings", scope))
        bootstrap = request.bootstrap_resamples
        if not 0 <= bootstrap <= MAX_RESAMPLES:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"bootstrap_resamples must be 0 to {MAX_RESAMPLES}, not {bootstrap}"
            )
        extra = bootstrap * ITEMS_PER_UNIT // BOOTSTRAP_RESAMPLES_PER_UNIT
        page = await self._admit_page("Ratings", context, listing, request, extra)
        offset = page.cursor or 0
        rows = await self._read(
            context,
            store.rating_table,
            tournament=scope,
            offset=offset,
            limit=page.size + 1,
            bootstrap=bootstrap,
            statistics=self._rank_statistics,
        )
        return arena_wire.page_reply(
            pb.RatingsResponse, *self._split(listing, rows, page, lambda _: offset + page.size)
        )

    async def HeadToHead(
        self,
        request: pb.HeadToHeadRequest,
        context: grpc.aio.ServicerContext[pb.HeadToHeadRequest, pb.HeadToHeadResponse],
    ) -> pb.HeadToHeadResponse:
        """A page of the pairs: offsets into the crosstable, as the rating table's pages are."""
        scope = arena_wire.scope_from_pb(request)
        listing = repr(("head-to-head", scope))
        page = await self._admit_page("HeadToHead", context, listing, request)
        offset = page.cursor or 0
        table = await self._read(context, store.head_to_head, tournament=scope)
        pairs = table.pairs[offset : offset + page.size + 1]
        return arena_wire.page_reply(
            pb.HeadToHeadResponse, *self._split(listing, pairs, page, lambda _: offset + page.size)
        )

    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext[pb.ListGamesRequest, pb.ListGamesResponse]
    ) -> pb.ListGamesResponse:
        tournament, status = arena_wire.games_request_from_pb(request)
        listing = repr(("games", tournament, status))
        page = await self._admit_page("ListGames", context, listing, request)
        games = await self._read(
            context, store.list_games, tournament=tournament, status=status, after=page.cursor, limit=page.size + 1
        )
        return arena_wire.page_reply(pb.ListGamesResponse, *self._split(listing, games, page, lambda g: g.id))

    async def ShowGame(
        self, request: pb.ShowGameRequest, context: grpc.aio.ServicerContext[pb.ShowGameRequest, pb.ShowGameResponse]
    ) -> pb.ShowGameResponse:
        await self._reads.admit("ShowGame", context, bearer_token(context))
        return arena_wire.game_detail_to_pb(await self._read(context, store.show_game, game_id=request.id))

    async def ExportGames(
        self,
        request: pb.ExportGamesRequest,
        context: grpc.aio.ServicerContext[pb.ExportGamesRequest, pb.ExportGamesResponse],
    ) -> AsyncIterator[pb.ExportGamesResponse]:
        """Up to a page of games, listed EXPORT_BATCH at a time (never the whole list at once), each
        game paid for as it is sent."""
        tournament = arena_wire.scope_from_pb(request)
        listing = repr(("export", tournament))
        page = await self._page(context, listing, request)
        caller = await self._reads.admit("ExportGames", context, bearer_token(context))
        sent, cursor = 0, page.cursor
        while sent < page.size:
            batch = min(EXPORT_BATCH, page.size - sent)
            games = await self._read(
                context,
                store.list_games,
                tournament=tournament,
                status=records.GameStatus.FINISHED,
                after=cursor,
                limit=batch,
            )
            for info in games:
                if sent:
                    await self._reads.pace(caller, EXPORT_GAMES_PER_UNIT)
                detail = await self._read(context, store.show_game, game_id=info.id)
                yield arena_wire.reply(
                    pb.ExportGamesResponse,
                    game_json=game_line(detail),
                    page_token=self._pages.next_token(listing, info.id),
                )
                sent += 1
            if len(games) < batch:
                return
            cursor = games[-1].id

    async def _page(
        self, context: grpc.aio.ServicerContext[Request, Response], listing: str, request: arena_wire.PagedRequest
    ) -> Page:
        try:
            return self._pages.page(listing, request.page_size, request.page_token)
        except InvalidPage as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        raise AssertionError("context.abort raises")

    async def _admit_page(
        self,
        call: str,
        context: grpc.aio.ServicerContext[Request, Response],
        listing: str,
        request: arena_wire.PagedRequest,
        extra: int = 0,
    ) -> Page:
        """The page a list call asks for, once the read gate admits a call of that size (and of
        `extra` items of work besides)."""
        page = await self._page(context, listing, request)
        await self._reads.admit(call, context, bearer_token(context), page.size + extra)
        return page

    async def _read(
        self, context: grpc.aio.ServicerContext[Request, Response], fn: Callable[..., T], /, **kwargs: Any
    ) -> T:
        return await answer(context, self._reads.run(self._db, fn, **kwargs))

    def _split(self, listing: str, found: Sequence[T], page: Page, cursor: Callable[[T], int]) -> tuple[list[T], str]:
        """A page of `found` (fetched one longer than the page) and the token of the next, if any."""
        if len(found) <= page.size:
            return list(found), ""
        return list(found[: page.size]), self._pages.next_token(listing, cursor(found[page.size - 1]))

    async def RevealSeeds(
        self,
        request: pb.RevealSeedsRequest,
        context: grpc.aio.ServicerContext[pb.RevealSeedsRequest, pb.RevealSeedsResponse],
    ) -> pb.RevealSeedsResponse:
        await self.require_admin("RevealSeeds", context)
        name = request.tournament
        reveal = await answer(context, self._db(store.reveal_seeds, tournament=name))
        log.info("the seeds of tournament %r were revealed to the organiser", name)
        return arena_wire.reveal_to_pb(reveal)
