"""The JSON API under /api/: the pages' data, a page at a time, described by the OpenAPI document
at /api/openapi.json. Lists take `page_size` (0: the default, at most `arena.page_tokens.MAX_PAGE_SIZE`)
and `page_token` (the `next_page_token` of the page before), as the gRPC lists do; errors are
`{"error": {"status": N, "message": "..."}}` (`errors`)."""

from __future__ import annotations

from fastapi import APIRouter

from arena.storage import reads, store
from arena.web import schemas
from arena.web.context import Web
from arena.web.paging import games_listing, paged, sliced
from arena.web.params import Filter, Name, PageSize, PageToken, StatusFilter
from arena.web.tables import Order, SortKey, sort_table

router = APIRouter(
    prefix="/api",
    tags=["arena"],
    responses={
        404: {"model": schemas.ErrorBody, "description": "No such tournament, bot or game"},
        422: {"model": schemas.ErrorBody, "description": "A query value or page token that is not valid"},
    },
)


async def _table(
    web: Web, tournament: str | None, page_size: int, page_token: str, sort: SortKey, order: Order | None
) -> schemas.RatingPage:
    rows = sort_table(await web.reads.cached(store.rating_table, tournament=tournament), sort, order)
    page = sliced(web.tokens, f"ratings\0{tournament}\0{sort}\0{order}", page_size, page_token, rows)
    return schemas.RatingPage(items=page.items, next_page_token=page.next_token)


@router.get("/ladder", response_model=schemas.RatingPage)
async def ladder(
    web: Web,
    page_size: PageSize = 0,
    page_token: PageToken = "",
    sort: SortKey = SortKey.RANK,
    order: Order | None = None,
) -> schemas.RatingPage:
    """The global ladder, sorted as asked (by rank unless told), with each rank's 95% interval and
    the probability that the row above is stronger."""
    return await _table(web, None, page_size, page_token, sort, order)


@router.get("/crosstable", response_model=schemas.CrosstableOut)
async def crosstable(web: Web) -> schemas.CrosstableOut:
    """Head-to-head over every tournament: each pair of bots that shared a finished game."""
    return schemas.CrosstableOut(pairs=list((await web.reads.crosstable()).pairs))


@router.get("/tournaments", response_model=schemas.TournamentPage)
async def tournaments(web: Web, page_size: PageSize = 0, page_token: PageToken = "") -> schemas.TournamentPage:
    """Every tournament by start time."""
    page = await paged(
        web.tokens,
        "tournaments",
        page_size,
        page_token,
        lambda after, limit: web.reads.live(store.list_tournaments, after=after, limit=limit),
        lambda t: t.id,
    )
    return schemas.TournamentPage(
        items=[schemas.TournamentOut.of(t) for t in page.items], next_page_token=page.next_token
    )


@router.get("/tournaments/{name}", response_model=schemas.TournamentOut)
async def tournament(web: Web, name: Name) -> schemas.TournamentOut:
    """One tournament: format, state, entrants, progress; its seed once it is finished."""
    return schemas.TournamentOut.of(await web.reads.live(store.show_tournament, tournament=name))


@router.get("/tournaments/{name}/standings", response_model=schemas.RatingPage)
async def standings(
    web: Web,
    name: Name,
    page_size: PageSize = 0,
    page_token: PageToken = "",
    sort: SortKey = SortKey.RANK,
    order: Order | None = None,
) -> schemas.RatingPage:
    """A tournament's rating table, as the ladder."""
    return await _table(web, name, page_size, page_token, sort, order)


@router.get("/tournaments/{name}/crosstable", response_model=schemas.CrosstableOut)
async def tournament_crosstable(web: Web, name: Name) -> schemas.CrosstableOut:
    """A tournament's head-to-head records."""
    return schemas.CrosstableOut(pairs=list((await web.reads.crosstable(name)).pairs))


@router.get("/tournaments/{name}/forfeits", response_model=schemas.ForfeitList)
async def tournament_forfeits(web: Web, name: Name) -> schemas.ForfeitList:
    """The forfeited seats of a tournament's finished games, latest first, with their causes."""
    found = await web.reads.forfeits(tournament=name)
    return schemas.ForfeitList(items=list(found.items), total=found.total)


@router.get("/tournaments/{name}/schedule", response_model=schemas.ScheduleOut)
async def schedule(web: Web, name: Name) -> schemas.ScheduleOut:
    """A started tournament's tables and their progress (none before it starts)."""
    return schemas.ScheduleOut(tables=await web.reads.table_progress(name))


@router.get("/bots", response_model=schemas.BotPage)
async def bots(web: Web, page_size: PageSize = 0, page_token: PageToken = "") -> schemas.BotPage:
    """Every registered bot, oldest first."""
    page = await paged(
        web.tokens,
        "bots",
        page_size,
        page_token,
        lambda after, limit: web.reads(store.list_bots, after=after, limit=limit),
        lambda b: b.id,
    )
    return schemas.BotPage(items=page.items, next_page_token=page.next_token)


@router.get("/bots/{name}", response_model=schemas.BotOut)
async def bot(web: Web, name: Name) -> schemas.BotOut:
    """A bot with its ladder row and its row in each tournament it played."""
    return schemas.BotOut.of(await web.reads.cached(reads.bot_standings, bot=name))


@router.get("/bots/{name}/history", response_model=schemas.History)
async def history(web: Web, name: Name, tournament: Filter = None) -> schemas.History:
    """A bot's mu and sigma after each of its games: on the ladder, or in `tournament`."""
    points = await web.reads.cached(reads.rating_history, bot=name, tournament=tournament or None)
    return schemas.History(bot=name, tournament=tournament or None, items=points)


@router.get("/bots/{name}/forfeits", response_model=schemas.ForfeitList)
async def bot_forfeits(web: Web, name: Name) -> schemas.ForfeitList:
    """A bot's forfeits in finished games, latest first."""
    found = await web.reads.forfeits(bot=name)
    return schemas.ForfeitList(items=list(found.items), total=found.total)


@router.get("/games", response_model=schemas.GamePage)
async def games(
    web: Web,
    tournament: Filter = None,
    bot: Filter = None,
    status: StatusFilter = None,
    page_size: PageSize = 0,
    page_token: PageToken = "",
) -> schemas.GamePage:
    """Games in play order, of one tournament and/or bot and/or state. An unfinished game shows
    only its seats; a finished one its points and ranks (its record: /games/{id})."""
    page = await paged(
        web.tokens,
        games_listing(tournament, bot, status),
        page_size,
        page_token,
        lambda after, limit: web.reads(
            reads.games, tournament=tournament, bot=bot, status=status, after=after, limit=limit
        ),
        lambda g: g.id,
    )
    return schemas.GamePage(items=page.items, next_page_token=page.next_token)
