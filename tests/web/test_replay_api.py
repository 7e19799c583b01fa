"""The replay viewer's data over HTTP: a finished game's record (download) and frames; nothing of
a game not finished (docs/rules.md §9: hands are published once the game is over); clear errors; a
casual game replayed the same at `casual-N`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.records import GameToPlay
from arena.storage import store
from arena.storage.database import open_database
from arena.storage.store.casual import CASUAL, save_casual_game
from arena.web import replay as replay_routes
from arena.web.app import create_app
from sdk.engine import GameRecord, replay
from tests.storage.helpers import START, random_result, running_tournament


def test_the_record_is_the_stored_one_and_downloads_as_a_file(client: TestClient, engine: Engine) -> None:
    response = client.get("/api/games/2/record")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="game-2.json"'
    with Session(engine) as session:
        stored = store.show_game(session=session, game_id=2).record
    assert stored is not None
    assert GameRecord.from_json(response.text) == stored
    assert replay(GameRecord.from_json(response.text)).totals == list(stored.totals)


def test_the_frames_are_the_same_compressed_or_not(client: TestClient, engine: Engine) -> None:
    compressed = client.get("/api/games/2/frames")
    plain = client.get("/api/games/2/frames", headers={"Accept-Encoding": "identity"})
    assert compressed.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert compressed.json() == plain.json() == json.loads(plain.content)
    with Session(engine) as session:
        stored = store.show_game(session=session, game_id=2)
    assert stored.record is not None
    doc = plain.json()
    assert doc["game"]["seats"] == list(stored.info.seats)
    assert [s["total"] for s in doc["frames"][-1]["seats"]] == list(stored.record.totals)
    again = client.get("/api/games/2/frames")  # from the app's cache
    assert again.content == compressed.content


def test_the_frames_of_the_games_replayed_lately_are_kept_at_most_so_many(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_routes, "FRAMES_CACHED", 2)
    for game in (1, 2, 1, 3):
        assert client.get(f"/api/games/{game}/frames").status_code == 200
    assert set(client.app.state.replay_frames) == {"1", "3"}, "1 was replayed again after 2, so 2 was dropped"  # type: ignore[attr-defined]


def test_a_game_not_finished_has_no_record_frames_or_hands(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'running.db'}")
    with Session(engine) as session:
        running_tournament(session, 3, 3, name="open-cup")
        game = store.list_games(session=session)[0]
    try:
        with TestClient(create_app(engine), raise_server_exceptions=False) as client:
            for path in (f"/api/games/{game.id}/record", f"/api/games/{game.id}/frames"):
                response = client.get(path)
                assert response.status_code == 409
                assert response.json()["error"]["message"] == (
                    f"game {game.id} is scheduled: its record is published once it is finished"
                )
            page = client.get(f"/games/{game.id}")
        assert page.status_code == 200
        assert "published once it is finished" in page.text
        assert 'id="replay"' not in page.text and "data-top" not in page.text
    finally:
        engine.dispose()


def test_unknown_and_bad_game_ids_are_404_and_422(client: TestClient) -> None:
    for path in ("/games/999999", "/api/games/999999/record", "/api/games/999999/frames", "/games/999999/live"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "there is no game 999999" in response.text
    for path in ("/games/abc", "/api/games/0/record", "/api/games/99999999999/frames"):
        assert client.get(path).status_code == 422, path


def test_a_casual_game_is_replayed_at_its_own_id(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'casual.db'}")
    seats = ("ann", "greedy", "random")
    result = random_result(GameToPlay(0, CASUAL, 0, 0, 99, seats, 1000))
    with Session(engine) as session:
        casual_id = save_casual_game(
            session=session, result=result, seat_kinds=("person", "house", "house"), move_ms=0, started_at=START
        )
    try:
        with TestClient(create_app(engine), raise_server_exceptions=False) as client:
            record = client.get(f"/api/games/casual-{casual_id}/record")
            frames = client.get(f"/api/games/casual-{casual_id}/frames").json()
            page = client.get(f"/games/casual-{casual_id}")
            missing = [client.get(p).status_code for p in ("/games/casual-7", "/api/games/casual-7/frames")]
            bad = client.get("/games/casual-x").status_code
    finally:
        engine.dispose()
    assert record.headers["content-disposition"] == f'attachment; filename="game-casual-{casual_id}.json"'
    assert GameRecord.from_json(record.text) == result.record
    assert replay(GameRecord.from_json(record.text)).totals == [s.points for s in result.seats]
    assert frames["game"]["seats"] == list(seats)
    assert [s["total"] for s in frames["frames"][-1]["seats"]] == list(result.record.totals)
    assert f'data-frames="/api/games/casual-{casual_id}/frames"' in page.text and "counts for no rating" in page.text
    assert "/bots/ann" not in page.text
    assert "rated nowhere" in page.text and "read-only view" not in page.text
    assert (missing, bad) == ([404, 404], 422)
