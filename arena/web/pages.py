"""The HTML pages: the ladder, tournaments, bots and games, each a view of the read models in
`reads` (the JSON API in `api` serves the same data). Fragments under `/parts/` are what htmx
polls while a tournament runs, so its progress and table move without a reload."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.page_tokens import MAX_PAGE_SIZE
from arena.records import GameStatus, TournamentStatus
from arena.storage import reads, store
from arena.web.context import Web
from arena.web.paging import games_listing, paged
from arena.web.params import Filter, Name, PageToken, StatusFilter
from arena.web.tables import Order, SortKey, natural_order, sort_table
from arena.web.templating import render

router = APIRouter(include_in_schema=False)

LIVE = (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING)
"""Tournament states whose pages poll for their progress."""


def _sorting(sort: SortKey, order: Order | None) -> dict[str, Any]:
    """What a sortable table's template needs: the column and order in force, and `flip(key)`,
    the order a click on a column's header asks for."""
    current = order or natural_order(sort)

    def flip(key: str) -> str:
        column = SortKey(key)
        if column is sort:
            return (Order.ASC if current is Order.DESC else Order.DESC).value
        return natural_order(column).value

    return {"sort": sort.value, "order": current.value, "flip": flip}


@router.get("/", response_class=HTMLResponse)
async def ladder(request: Request, web: Web, sort: SortKey = SortKey.RANK, order: Order | None = None) -> HTMLResponse:
    """The global ladder: every bot's rating over all tournaments."""
    rows = await web.reads.cached(store.rating_table)
    return render(
        web.templates, request, "ladder.html", rows=sort_table(rows, sort, order), **_sorting(sort, order), nav="ladder"
    )


@router.get("/tournaments", response_class=HTMLResponse)
async def tournaments(request: Request, web: Web, page_token: PageToken = "") -> HTMLResponse:
    """Every tournament by start time, a page at a time."""
    listed = await paged(
        web.tokens,
        "tournaments",
        0,
        page_token,
        lambda after, limit: web.reads.live(store.list_tournaments, after=after, limit=limit),
        lambda t: t.id,
    )
    return render(web.templates, request, "tournaments.html", page=listed, nav="tournaments")


@router.get("/tournaments/{name}", response_class=HTMLResponse)
async def tournament(
    request: Request, web: Web, name: Name, sort: SortKey = SortKey.RANK, order: Order | None = None
) -> HTMLResponse:
    """One tournament: its facts, progress, table, crosstable, forfeits and schedule."""
    view = await web.reads.tournament_view(name)
    return render(
        web.templates,
        request,
        "tournament.html",
        t=view.tournament,
        rows=sort_table(view.rows, sort, order),
        crosstable=view.crosstable,
        forfeits=view.forfeits,
        tables=view.tables,
        live=view.tournament.status in LIVE,
        **_sorting(sort, order),
        nav="tournaments",
    )


@router.get("/parts/tournaments/{name}/progress", response_class=HTMLResponse)
async def tournament_progress(request: Request, web: Web, name: Name) -> HTMLResponse:
    """The progress box of a tournament's page: htmx swaps it in every few seconds while the
    tournament is scheduled or running (the fragment stops asking once it is over)."""
    shown = await web.reads.live(store.show_tournament, tournament=name)
    return render(web.templates, request, "partials/progress.html", t=shown, live=shown.status in LIVE)


@router.get("/bots", response_class=HTMLResponse)
async def bots(request: Request, web: Web, page_token: PageToken = "") -> HTMLResponse:
    """Every registered bot, a page at a time, with its ladder row."""
    listed = await paged(
        web.tokens,
        "bots",
        0,
        page_token,
        lambda after, limit: web.reads(store.list_bots, after=after, limit=limit),
        lambda b: b.id,
    )
    ladder = {row.bot: row for row in await web.reads.cached(store.rating_table)}
    return render(web.templates, request, "bots.html", page=listed, ladder=ladder, nav="bots")


@router.get("/bots/{name}", response_class=HTMLResponse)
async def bot(request: Request, web: Web, name: Name) -> HTMLResponse:
    """One bot: its ratings, their history, its latest games and its forfeits."""
    standings = await web.reads.cached(reads.bot_standings, bot=name)
    recent = await web.reads(reads.games, bot=name, latest_first=True, limit=reads.RECENT_GAMES)
    return render(
        web.templates,
        request,
        "bot.html",
        standings=standings,
        recent=recent,
        forfeits=await web.reads.forfeits(bot=name),
        nav="bots",
    )


@router.get("/games", response_class=HTMLResponse)
async def games(
    request: Request,
    web: Web,
    tournament: Filter = None,
    bot: Filter = None,
    status: StatusFilter = None,
    page_token: PageToken = "",
) -> HTMLResponse:
    """Games in play order, filtered by tournament, bot and state, a page at a time."""
    listed = await paged(
        web.tokens,
        games_listing(tournament, bot, status),
        0,
        page_token,
        lambda after, limit: web.reads(
            reads.games, tournament=tournament, bot=bot, status=status, after=after, limit=limit
        ),
        lambda g: g.id,
    )
    choices = await web.reads(store.list_tournaments)
    names = await web.reads(store.list_bots)
    query = urlencode({k: v for k, v in (("tournament", tournament), ("bot", bot), ("status", status)) if v})
    return render(
        web.templates,
        request,
        "games.html",
        page=listed,
        query=query,
        tournament=tournament,
        bot=bot,
        status=status,
        tournaments=choices,
        bots=names,
        statuses=list(GameStatus),
        nav="games",
    )


@router.get("/api", response_class=HTMLResponse)
async def api_index(request: Request, web: Web) -> HTMLResponse:
    """What the JSON API offers, read from its own OpenAPI document: each operation with its method."""
    endpoints = [
        (
            method.upper(),
            path,
            operation.get("summary", ""),
            [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"],
        )
        for path, methods in request.app.openapi()["paths"].items()
        for method, operation in methods.items()
    ]
    return render(web.templates, request, "api_index.html", endpoints=endpoints, max_page=MAX_PAGE_SIZE, nav="api")
