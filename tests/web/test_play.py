"""The Play page's choice of rivals (issue #15): the house bots, and the connected bots whose
Hello accepts casual games, a busy one (at its capacity) shown so and not choosable."""

from __future__ import annotations

from types import SimpleNamespace

from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from arena.play.house_pool import house_bots
from arena.play.sessions import SessionHub
from arena.web.app import create_app
from sdk.protocol import Hello


def test_connected_bots_that_accept_casual_games_are_offered_busy_or_free(engine: Engine) -> None:
    hub = SessionHub()
    hub.open("alice", Hello("a", "1", 1, False, (), True), "s1")
    hub.open("bea", Hello("b", "1", 2, False, (), True), "s2")
    hub.open("shy", Hello("s", "1", 4, False), "s3")
    hub.seat(SimpleNamespace(game_id="casual-1"), ["alice"])  # a game in play: alice is at her capacity
    with TestClient(create_app(engine, arena=SimpleNamespace(hub=hub)), raise_server_exceptions=False) as client:
        page = client.get("/play").text
        refused = client.post("/api/play/games", json={"rivals": ["bot:alice"]})
        hidden = client.post("/api/play/games", json={"rivals": ["bot:shy"]})
    for bot in house_bots():
        assert f'<option value="{bot}"' in page
    assert '<option value="bot:alice" disabled>alice (busy)</option>' in page
    assert '<option value="bot:bea" >bea</option>' in page
    assert "shy" not in page
    assert "read-only view" not in page
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == "bot 'alice' is busy: it plays 1 games, its capacity"
    assert hidden.status_code == 422
    assert hidden.json()["error"]["message"] == "bot 'shy' is not connected for casual games"


def test_a_bot_with_its_most_casual_games_is_busy_for_casual_games_only(engine: Engine) -> None:
    hub = SessionHub()
    hub.open("bea", Hello("b", "1", 4, False, (), True), "s1")
    for game_id in ("casual-1", "casual-2"):  # two casual games, the most one bot takes (`--play-per-bot`)
        hub.seat(SimpleNamespace(game_id=game_id), ["bea"], lambda bot: None)
    with TestClient(create_app(engine, arena=SimpleNamespace(hub=hub)), raise_server_exceptions=False) as client:
        page = client.get("/play").text
        refused = client.post("/api/play/games", json={"rivals": ["bot:bea"]})
    assert '<option value="bot:bea" disabled>bea (busy)</option>' in page
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == "bot 'bea' is busy: it plays 2 casual games, the most it takes at once"
    hub.check("cup-1", ["bea"])  # while its tournament games have all its capacity
