"""The web during a tournament: nothing of a game in play leaks, at every phase (before the
start, each game state of a running tournament, a voided attempt of a game not yet finished, the
end), and the tournament page follows the progress without a reload.

A leak is looked for in every page, fragment and API answer the app has a GET route for (every
route, with every tournament, bot and game filled into its path): the deal seed of every attempt
of a game not finished at that phase, the tournament's seed and nonce before it is finished, and
the cards a voided attempt dealt while its game is unfinished must appear in none of them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.results import ForfeitCause, PolicyDecision
from arena.records import GameStatus, TournamentStatus
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from arena.web.app import create_app
from tests.storage.helpers import random_result, running_tournament
from tests.web.conftest import get_paths, serve_in_thread

LIVE = "live-cup"
SEED = 8_123_456_789_012_345_678
"""Large, so that its digits cannot turn up by chance in a page."""


@pytest.fixture
def live_engine(tmp_path: Path) -> Iterator[Engine]:
    """A database with a started tournament LIVE, none of its games played yet."""
    engine = open_database(f"sqlite:///{tmp_path / 'live.db'}")
    with Session(engine) as session:
        running_tournament(session, 4, 3, 2, seed=SEED, name=LIVE)
    yield engine
    engine.dispose()


def every_get_path(client: TestClient, engine: Engine) -> list[str]:
    """Every GET route of the app, each path parameter filled with every value it can take."""
    with Session(engine) as session:
        values = {
            "name": [t.name for t in store.list_tournaments(session=session)]
            + [b.name for b in store.list_bots(session=session)],
            "game_id": [str(g.id) for g in store.list_games(session=session)],
        }
    values["id"] = values["game_id"]
    values["casual_id"] = []  # a casual game is stored once finished: none is ever in play here
    paths = []
    for route in get_paths(client.app.routes):  # type: ignore[attr-defined]
        names = [n for _, n, _, _ in string.Formatter().parse(route) if n]
        assert len(names) <= 1, route
        options = [{}] if not names else [{names[0]: v} for v in values[names[0]]]
        paths += [route.format(**o) for o in options]
    paths += [
        f"/games?tournament={LIVE}",
        f"/api/games?tournament={LIVE}&page_size=1000",
        f"/api/games?tournament={LIVE}&status=running",
        "/games?status=running",
    ]
    return paths


def secrets_of(engine: Engine) -> tuple[set[str], set[str]]:
    """(seeds, their hiding places): every attempt seed of an unfinished game, and the
    tournament's seed and nonce if it is not finished."""
    with Session(engine) as session:
        t = store.show_tournament(session=session, tournament=LIVE)
        revealed = store.reveal_seeds(session=session, tournament=LIVE)
        unfinished = {
            g.id for g in store.list_games(session=session, tournament=LIVE) if g.status is not GameStatus.FINISHED
        }
    seeds = {str(g.seed) for g in revealed.games if g.game_id in unfinished}
    if t.status is not TournamentStatus.FINISHED:
        seeds |= {str(revealed.seed), revealed.seed_nonce}
    return seeds, {str(u) for u in unfinished}


def assert_no_leak(client: TestClient, engine: Engine, also: set[str] = frozenset()) -> int:  # type: ignore[assignment]
    seeds, _ = secrets_of(engine)
    checked = 0
    for path in every_get_path(client, engine):
        response = client.get(path)
        # 409: the record or frames of a game not finished; 503: live events with no arena to play them.
        assert response.status_code in (200, 404, 409, 503), (path, response.status_code, response.text[:300])
        for secret in seeds | also:
            assert secret not in response.text, f"{path} shows {secret}"
        checked += 1
    return checked


def play(session: Session, n: int) -> None:
    for waiting in store.next_games(session=session, tournament=LIVE, limit=n):
        game = store.mark_game_running(session=session, game_id=waiting.id)
        store.commit_game(session=session, game_id=game.id, result=random_result(game))


def test_no_page_or_answer_shows_a_game_in_play_at_any_phase(live_engine: Engine) -> None:
    client = TestClient(create_app(live_engine, page_ttl_s=0), raise_server_exceptions=False)
    assert assert_no_leak(client, live_engine) > 20  # started, nothing played
    with Session(live_engine) as session:
        play(session, 3)
        waiting = store.next_games(session=session, tournament=LIVE, limit=3)
        running = store.mark_game_running(session=session, game_id=waiting[0].id)
        played = store.mark_game_running(session=session, game_id=waiting[1].id)
        store.mark_game_played(session=session, game_id=played.id)
        voided = store.mark_game_running(session=session, game_id=waiting[2].id)
        result = random_result(voided, (0,), ForfeitCause.DISCONNECT, PolicyDecision.VOID)
        store.void_attempt(session=session, game_id=voided.id, result=result)
    # The voided attempt's hands: each round's deal, as the record holds it, for a seat.
    hands = {re.sub(r"\s", "", str(list(hand))) for deal in result.record.deals for hand in deal}
    assert_no_leak(client, live_engine, {str(running.seed), str(played.seed), str(voided.seed)})
    body = client.get(f"/api/tournaments/{LIVE}/forfeits").json()
    assert body["total"] == 0  # the voided attempt's forfeit shows once its game is finished
    for path in (f"/api/games?tournament={LIVE}&page_size=1000", f"/games?tournament={LIVE}"):
        text = re.sub(r"\s", "", client.get(path).text)
        assert not any(hand in text for hand in hands if len(hand) > 20), path
    with Session(live_engine) as session:
        store.commit_game(session=session, game_id=running.id, result=random_result(running))
        assert store.show_tournament(session=session, tournament=LIVE).games.played == 1
    assert_no_leak(client, live_engine)
    with Session(live_engine) as session:
        store.commit_game(session=session, game_id=played.id, result=random_result(played))
        while store.next_games(session=session, tournament=LIVE, limit=1):
            play(session, 5)
        assert store.show_tournament(session=session, tournament=LIVE).status is TournamentStatus.FINISHED
    assert_no_leak(client, live_engine)
    finished = client.get(f"/api/tournaments/{LIVE}").json()
    assert finished["seed"] == SEED  # now public, for anyone to check against the commitment
    assert client.get(f"/api/tournaments/{LIVE}/forfeits").json()["items"][0]["attempt"] == 1


def test_a_scheduled_tournament_shows_its_commitment_only(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'soon.db'}")
    with Session(engine) as session:
        store.register_bot(session=session, name="solo")
        created = store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name=LIVE,
                table_size=2,
                games_per_table=1,
                starts_at=datetime.now(UTC),
                move_limit_ms=500,
                seed=SEED,
            ),
        )
        store.enter_tournament(session=session, tournament=LIVE, bot="solo")
    client = TestClient(create_app(engine, page_ttl_s=0), raise_server_exceptions=False)
    assert assert_no_leak(client, engine) > 10
    assert created.seed_commitment in client.get(f"/tournaments/{LIVE}").text
    engine.dispose()


def test_the_tournament_page_follows_the_games_without_a_reload(live_engine: Engine, page: Any) -> None:
    with serve_in_thread(live_engine) as url:
        page.goto(f"{url}tournaments/{LIVE}")
        page.evaluate("window.notReloaded = true")
        finished = page.locator("[data-testid=progress] [data-testid=finished]")
        assert finished.inner_text() == "0"
        total = int(page.locator("[data-testid=progress] [data-testid=total]").inner_text())
        with Session(live_engine) as session:
            play(session, 2)
        page.wait_for_function(
            "document.querySelector('[data-testid=progress] [data-testid=finished]').textContent === '2'",
            timeout=20_000,
        )
        with Session(live_engine) as session:
            while store.next_games(session=session, tournament=LIVE, limit=1):
                play(session, 5)
        page.wait_for_function(
            f"document.querySelector('[data-testid=progress] [data-testid=finished]').textContent === '{total}'",
            timeout=20_000,
        )
        assert page.evaluate("window.notReloaded") is True
        assert page.locator("[data-testid=progress] .badge.finished").count() == 1
        # Finished: the fragment no longer asks for itself.
        assert page.locator("[data-testid=progress][hx-trigger]").count() == 0


def test_cached_figures_follow_each_committed_game(live_engine: Engine) -> None:
    client = TestClient(create_app(live_engine, page_ttl_s=0), raise_server_exceptions=False)
    paths = [
        f"/api/tournaments/{LIVE}/standings",
        "/api/ladder",
        f"/api/tournaments/{LIVE}/crosstable",
        f"/api/tournaments/{LIVE}/schedule",
        "/api/bots/bot00/history",
    ]
    before = [client.get(path).json() for path in paths]
    assert sum(r["games"] for r in before[0]["items"]) == 0 and before[2]["pairs"] == []
    with Session(live_engine) as session:
        play(session, 1)
        seated = store.list_games(session=session, tournament=LIVE, status=GameStatus.FINISHED)[0].seats
    after = [client.get(path).json() for path in paths]
    assert sum(r["games"] for r in after[0]["items"]) == sum(r["games"] for r in after[1]["items"]) == len(seated)
    assert len(after[2]["pairs"]) == len(seated) * (len(seated) - 1) // 2
    assert sum(t["finished"] for t in after[3]["tables"]) == 1
    assert len(after[4]["items"]) == ("bot00" in seated)
    with Session(live_engine) as session:
        store.register_bot(session=session, name="late")
    assert "late" in [r["bot"] for r in client.get("/api/ladder").json()["items"]]


def test_kept_pages_are_answered_again_once_the_arena_changes(live_engine: Engine) -> None:
    client = TestClient(create_app(live_engine, page_ttl_s=3600), raise_server_exceptions=False)
    first = client.get(f"/tournaments/{LIVE}").text
    with Session(live_engine) as session:
        play(session, 1)
    assert client.get(f"/tournaments/{LIVE}").text == first  # kept: the version is not asked again yet
    fresh = TestClient(create_app(live_engine, page_ttl_s=0), raise_server_exceptions=False)
    assert fresh.get(f"/tournaments/{LIVE}").text != first
    assert fresh.get("/tournaments/no-such-cup").status_code == 404  # errors are never kept
