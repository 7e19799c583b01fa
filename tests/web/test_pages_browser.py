"""The pages in Chromium: each one loads without a script error and is screenshotted at a laptop
and a phone width; the ladder sorts and shows the store's figures; the history plot draws every
rated game; the games filters narrow the list; each page's links lead to pages that exist."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from arena.storage import reads, store
from arena.web.templating import figure
from tests.web.conftest import BOTS, TOURNAMENT, UPCOMING, Served, screenshot

PAGES = {
    "ladder": "/",
    "tournaments": "/tournaments",
    "tournament": f"/tournaments/{TOURNAMENT}",
    "tournament-upcoming": f"/tournaments/{UPCOMING}",
    "bots": "/bots",
    "bot": "/bots/bot01",
    "games": "/games",
    "games-filtered": "/games?bot=bot01&status=finished",
    "api": "/api",
    "not-found": "/tournaments/no-such-cup",
}


def watch_errors(page: Any) -> list[str]:
    """Script errors and failed requests of `page` from now on (a 404 page's own status aside)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"script error: {exc}"))
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url}"))
    return errors


@pytest.mark.parametrize("name", PAGES)
def test_each_page_loads_and_is_screenshotted(served: Served, page: Any, name: str) -> None:
    errors = watch_errors(page)
    response = page.goto(served.url.rstrip("/") + PAGES[name])
    page.wait_for_load_state("networkidle")
    assert response.status == (404 if name == "not-found" else 200)
    assert page.locator("nav.nav a").count() == 6
    assert page.locator("h1").first.inner_text().strip()
    # Nothing on the page is loaded from anywhere but the arena.
    external = page.evaluate(
        "() => [...document.querySelectorAll('script[src], link[href], img[src]')]"
        ".map(e => e.src || e.href).filter(u => !u.startsWith(location.origin))"
    )
    assert external == []
    screenshot(page, name)
    assert [e for e in errors if "404" not in e or name != "not-found"] == []


def _column(page: Any, col: str) -> list[str]:
    return page.locator(f"[data-testid=rating-table] tbody td[data-col={col}]").all_inner_texts()


def test_the_ladder_shows_the_stores_figures(served: Served, page: Any) -> None:
    page.goto(served.url)
    with Session(served.engine) as session:
        table = store.rating_table(session=session)
    assert page.locator("[data-testid=rating-table] tbody tr").count() == BOTS
    shown = page.locator("[data-testid=rating-table] tbody tr").evaluate_all("rows => rows.map(r => r.dataset.bot)")
    assert shown == [r.bot for r in table]
    assert _column(page, "mu") == [figure(r.mu) for r in table]
    assert _column(page, "conservative") == [figure(r.conservative) for r in table]
    assert _column(page, "games") == [str(r.games) for r in table]
    assert _column(page, "confidence")[1:] == [f"{100 * r.confidence:.0f}%" for r in table[1:]]


def test_sorting_the_ladder_by_a_column_and_back(served: Served, page: Any) -> None:
    page.goto(served.url)
    with Session(served.engine) as session:
        table = store.rating_table(session=session)
    page.click("[data-testid=rating-table] th a[data-sort=sigma]")
    page.wait_for_url("**sort=sigma**")
    assert _column(page, "sigma") == [figure(r.sigma) for r in sorted(table, key=lambda r: r.sigma)]
    page.click("[data-testid=rating-table] th a[data-sort=sigma]")
    page.wait_for_url("**order=desc**")
    assert _column(page, "sigma") == [figure(r.sigma) for r in sorted(table, key=lambda r: -r.sigma)]
    page.click("[data-testid=rating-table] th a[data-sort=bot]")
    assert page.locator("[data-testid=rating-table] tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.bot)"
    ) == sorted(r.bot for r in table)


def test_the_history_plot_draws_every_rated_game(served: Served, page: Any) -> None:
    page.goto(f"{served.url}bots/bot01")
    plot = page.locator("[data-testid=history-plot]")
    plot.locator("canvas").wait_for()
    with Session(served.engine) as session:
        history = reads.rating_history(session=session, bot="bot01")
    assert len(history) > 1
    assert plot.get_attribute("data-state") == "drawn"
    assert plot.get_attribute("data-points") == str(len(history))


def test_the_games_filters_narrow_the_list(served: Served, page: Any) -> None:
    page.goto(f"{served.url}games")
    everything = page.locator("[data-testid=games] tbody tr").count()
    page.select_option("select[name=bot]", "bot01")
    page.click("[data-testid=filters] button")
    page.wait_for_url("**bot=bot01**")
    rows = page.locator("[data-testid=games] tbody tr")
    with Session(served.engine) as session:
        expected = reads.games(session=session, bot="bot01")
    assert 0 < rows.count() == len(expected) < everything
    assert all("bot01" in text for text in rows.all_inner_texts())
    assert rows.evaluate_all("rows => rows.map(r => Number(r.dataset.game))") == [g.id for g in expected]


def test_the_tournament_page_links_lead_somewhere(served: Served, page: Any) -> None:
    page.goto(f"{served.url}tournaments/{TOURNAMENT}")
    hrefs = set(page.locator("main a[href^='/']").evaluate_all("links => links.map(a => a.getAttribute('href'))"))
    own = {h for h in hrefs if not h.startswith("/games/")}  # /games/{id} is the replay viewer's
    assert own
    for href in sorted(own):
        assert page.request.get(served.url.rstrip("/") + href).status == 200, href
