"""The JSON API in process: the store's figures, pages and their tokens, the OpenAPI document,
and every bad request answered 404 or 422 with a message (a page under /, JSON under /api/),
never a traceback."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.cli.views import games_table
from arena.page_tokens import MAX_PAGE_SIZE
from arena.storage import reads, store
from tests.cli.test_views import text_of
from tests.web.conftest import BOTS, GAMES_PER_TABLE, TOURNAMENT, UPCOMING, get_paths


def test_the_ladder_is_the_stores_rating_table(client: TestClient, engine: Engine) -> None:
    body = client.get("/api/ladder").json()
    with Session(engine) as session:
        table = store.rating_table(session=session)
    assert body["next_page_token"] is None
    fields = ("bot", "rank", "mu", "sigma", "games", "confidence", "rank_low")
    assert [tuple(r[f] for f in fields) for r in body["items"]] == [tuple(getattr(r, f) for f in fields) for r in table]


def test_a_table_sorts_by_any_column_with_the_missing_last(client: TestClient, engine: Engine) -> None:
    with Session(engine) as session:
        table = store.rating_table(session=session, tournament=TOURNAMENT)
    by_mu = client.get(f"/api/tournaments/{TOURNAMENT}/standings", params={"sort": "mu"}).json()["items"]
    assert [r["bot"] for r in by_mu] == [r.bot for r in sorted(table, key=lambda r: -r.mu)]
    ascending = client.get(
        f"/api/tournaments/{TOURNAMENT}/standings", params={"sort": "confidence", "order": "asc"}
    ).json()["items"]
    assert ascending[-1]["confidence"] is None  # the first row's, which has no row above
    assert [r["confidence"] for r in ascending[:-1]] == sorted(r.confidence for r in table[1:])


def test_pages_follow_each_other_and_cover_the_list_once(client: TestClient, engine: Engine) -> None:
    seen, token = [], ""
    while True:
        body = client.get("/api/games", params={"page_size": 3, "page_token": token}).json()
        assert len(body["items"]) <= 3
        seen += [g["id"] for g in body["items"]]
        token = body["next_page_token"]
        if token is None:
            break
    with Session(engine) as session:
        assert seen == [g.id for g in store.list_games(session=session)]
    ladder = client.get("/api/ladder", params={"page_size": 2}).json()
    rest = client.get("/api/ladder", params={"page_size": 10, "page_token": ladder["next_page_token"]}).json()
    assert len(ladder["items"]) == 2 and len(rest["items"]) == BOTS - 2 and rest["next_page_token"] is None


def test_a_token_continues_only_its_own_list(client: TestClient) -> None:
    token = client.get("/api/games", params={"page_size": 2}).json()["next_page_token"]
    refused = client.get("/api/games", params={"page_size": 2, "page_token": token, "bot": "bot01"})
    assert refused.status_code == 422
    assert "not issued by this arena for this list" in refused.json()["error"]["message"]


def test_the_games_filters(client: TestClient, engine: Engine) -> None:
    games = client.get("/api/games", params={"bot": "bot01", "status": "finished"}).json()["items"]
    with Session(engine) as session:
        expected = reads.games(session=session, bot="bot01")
    assert [g["id"] for g in games] == [g.id for g in expected] and games
    assert all("bot01" in g["seats"] and g["results"] for g in games)
    assert client.get("/api/games", params={"tournament": UPCOMING}).json()["items"] == []


def test_the_crosstable_is_the_stores_head_to_head(client: TestClient, engine: Engine) -> None:
    with Session(engine) as session:
        expected = store.head_to_head(session=session, tournament=TOURNAMENT)
        ladder = store.head_to_head(session=session)
    pairs = client.get(f"/api/tournaments/{TOURNAMENT}/crosstable").json()["pairs"]
    assert [(p["bot"], p["other"], p["games"], p["above"], p["below"], p["ties"]) for p in pairs] == [
        (p.bot, p.other, p.games, p.above, p.below, p.ties) for p in expected.pairs
    ]
    assert [p["point_difference"] for p in pairs] == pytest.approx([p.point_difference for p in expected.pairs])
    assert [p["p_value"] for p in pairs] == pytest.approx([p.p_value for p in expected.pairs])
    assert len(client.get("/api/crosstable").json()["pairs"]) == len(ladder.pairs)


def test_a_tournament_its_schedule_and_forfeits(client: TestClient) -> None:
    t = client.get(f"/api/tournaments/{TOURNAMENT}").json()
    assert t["status"] == "finished" and t["progress"]["total"] == t["progress"]["counts"]["finished"]
    assert t["seed"] is not None  # finished: the seed is public, to check against the commitment
    tables = client.get(f"/api/tournaments/{TOURNAMENT}/schedule").json()["tables"]
    assert sum(table["games"] for table in tables) == t["progress"]["total"]
    assert {table["games"] for table in tables} == {GAMES_PER_TABLE}
    forfeits = client.get(f"/api/tournaments/{TOURNAMENT}/forfeits").json()
    assert forfeits["total"] == 1 and forfeits["items"][0]["cause"] == "timeout"
    bot = forfeits["items"][0]["bot"]
    assert client.get(f"/api/bots/{bot}/forfeits").json()["total"] == 1
    upcoming = client.get(f"/api/tournaments/{UPCOMING}").json()
    assert upcoming["seed"] is None and upcoming["seed_nonce"] is None and upcoming["seed_commitment"]


def test_a_bot_and_its_rating_history(client: TestClient, engine: Engine) -> None:
    body = client.get("/api/bots/bot01").json()
    history = client.get("/api/bots/bot01/history").json()["items"]
    assert len(history) == body["ladder"]["games"] > 0
    assert history[-1]["mu"] == body["ladder"]["mu"] and history[-1]["sigma"] == body["ladder"]["sigma"]
    assert list(body["tournaments"]) == [TOURNAMENT]
    in_cup = client.get("/api/bots/bot01/history", params={"tournament": TOURNAMENT}).json()["items"]
    assert in_cup[-1]["mu"] == body["tournaments"][TOURNAMENT]["mu"]


def test_the_openapi_document_describes_every_api_path(client: TestClient) -> None:
    document = client.get("/api/openapi.json").json()
    api_routes = {path for path in get_paths(client.app.routes) if path.startswith("/api/")}  # type: ignore[attr-defined]
    assert len(api_routes) > 10 and api_routes - {"/api/openapi.json"} <= set(document["paths"])
    assert "RatingRow" in document["components"]["schemas"]
    assert not any(
        path.startswith(("/tournaments", "/bots", "/games", "/parts", "/play")) for path in document["paths"]
    )
    listed = client.get("/api")
    assert listed.status_code == 200 and "/api/ladder" in listed.text


def test_the_api_page_lists_each_operation_with_its_own_method(client: TestClient) -> None:
    """The Play page's POSTs and DELETE were listed as GET (issue #35)."""
    rows = re.findall(
        r'<td class="mono" data-col="method">(\w+)</td><td class="mono" data-col="path">([^<]+)</td>',
        client.get("/api").text,
    )
    document = client.get("/api/openapi.json").json()
    assert sorted(rows) == sorted((m.upper(), path) for path, ops in document["paths"].items() for m in ops)
    assert ("POST", "/api/play/games") in rows and ("POST", "/api/play/games/{game_id}/decisions") in rows
    assert ("DELETE", "/api/play/queue") in rows and ("GET", "/api/ladder") in rows
    assert ("GET", "/api/play/games") not in rows


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/tournaments/no-such-cup", 404, "no tournament named 'no-such-cup'"),
        ("/api/tournaments/no-such-cup/standings", 404, "no tournament named"),
        ("/api/bots/nobody", 404, "no bot named 'nobody'"),
        ("/api/bots/nobody/history", 404, "no bot named"),
        ("/api/bots/bot01/history?tournament=nope", 404, "no tournament named"),
        ("/api/tournaments/no-such-cup/crosstable", 404, "no tournament named"),
        ("/api/tournaments/no-such-cup/forfeits", 404, "no tournament named"),
        ("/api/tournaments/no-such-cup/schedule", 404, "no tournament named"),
        ("/api/bots/nobody/forfeits", 404, "no bot named"),
        ("/api/bots/a%00b", 404, "no bot named 'a\\x00b'"),
        ("/api/games?bot=nobody", 404, "no bot named"),
        ("/api/games?tournament=no-such-cup", 404, "no tournament named"),
        ("/api/games/999999/record", 404, "no game 999999"),
        ("/api/games/abc/frames", 422, "game_id"),
        ("/api/nothing-here", 404, "no page /api/nothing-here"),
        (f"/api/games?page_size={MAX_PAGE_SIZE + 1}", 422, "page_size"),
        ("/api/games?page_size=-1", 422, "page_size"),
        (f"/api/games?page_size={10**30}", 422, "page_size"),
        (f"/api/ladder?page_size={MAX_PAGE_SIZE * 100}", 422, "page_size"),
        ("/api/games?page_size=1e3", 422, "page_size"),
        ("/api/games?page_size=lots", 422, "page_size"),
        ("/api/games?status=won", 422, "status"),
        ("/api/games?page_token=12.abc", 422, "page_token"),
        ("/api/ladder?sort=luck", 422, "sort"),
        ("/api/ladder?order=sideways", 422, "order"),
        (f"/api/tournaments/{'x' * 5000}", 422, "name"),
        (f"/api/games?tournament={'x' * 5000}", 422, "tournament"),
    ],
)
def test_bad_api_requests_get_a_json_error(client: TestClient, path: str, status: int, words: str) -> None:
    response = client.get(path)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["status"] == status and words in error["message"]
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/tournaments/no-such-cup", 404),
        ("/bots/nobody", 404),
        ("/no/such/page", 404),
        ("/games?status=won", 422),
        ("/?sort=luck", 422),
        ("/games?page_token=forged", 422),
        (f"/bots/{'y' * 5000}", 422),
        ("/parts/tournaments/no-such-cup/progress", 404),
        ("/games?tournament=no-such-cup", 404),
        ("/games?bot=nobody", 404),
        ("/games/999999", 404),
        ("/games/999999/live", 404),
        ("/games/0", 422),
        (f"/games/{10**20}", 422),
        ("/games/abc/live", 422),
        ("/tournaments?page_token=forged", 422),
        ("/bots?page_token=%ff%fe", 422),
    ],
)
def test_bad_page_requests_get_an_error_page(client: TestClient, path: str, status: int) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert f'<p class="error-status">{status}</p>' in response.text and "Traceback" not in response.text


def test_nothing_on_the_web_writes(client: TestClient) -> None:
    for path in ("/api/ladder", "/api/tournaments", f"/tournaments/{TOURNAMENT}", "/"):
        assert client.post(path).status_code == 405
        assert client.delete(path).status_code == 405


def test_the_cli_and_the_pages_number_tables_and_games_alike(client: TestClient, engine: Engine) -> None:
    """From 1 wherever a person reads them (issue #35: the CLI counted from 0, the pages from 1);
    the JSON documents keep the schedule's indices, from 0, as docs/operator-guide.md says."""
    with Session(engine) as session:
        games = store.list_games(session=session, tournament=TOURNAMENT)
    cli = {
        int(cells[0]): (cells[2], cells[3])
        for line in text_of(games_table(games)).splitlines()
        if (cells := [c.strip() for c in line.split("│")[1:-1]]) and cells[0].isdigit()
    }
    web = {
        int(game): (table, of_table)
        for game, table, of_table in re.findall(
            r'<tr data-game="(\d+)">\s*<td>.*?</td>\s*<td>.*?</td>\s*'
            r'<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>',
            client.get("/games", params={"tournament": TOURNAMENT}).text,
            re.S,
        )
    }
    assert len(cli) == len(games) > 1 and cli == web
    assert {(g.id, str(g.table_index + 1), str(g.game_index + 1)) for g in games} == {(i, *n) for i, n in cli.items()}
    assert client.get("/api/games", params={"tournament": TOURNAMENT}).json()["items"][0]["table_index"] == 0
