"""Tournament play is never held by casual play (issue #30): an entrant that also takes casual
games, all of whose seats visitors of the Play page hold without ever answering, plays its
tournament games at once, each taking a casual game's seat; the casual games end, and their
pages say why. Against a real `scout-arena serve` process, with the bots as processes."""

from __future__ import annotations

import time
from pathlib import Path

from arena import records
from tests.play.casual_arena import Visitor, WebArena, wait_for

GAMES = 6
CAPACITY = 2
FINISH_S = 120.0
"""A bound a loaded machine keeps: the games take a few seconds; held by the casual games, the
tournament would wait for the visitors' clocks (six minutes each) before its first game."""


def test_visitors_holding_every_seat_of_a_casual_bot_never_hold_its_tournament(tmp_path: Path) -> None:
    arena = WebArena(tmp_path)
    try:
        arena.bot("cas", CAPACITY, casual=True)
        arena.bot("bea", CAPACITY)
        arena.bot("cid", CAPACITY)
        arena.tournament("cup", ["bea", "cas", "cid"], GAMES, concurrency=CAPACITY)
        scout = Visitor(arena.web)
        wait_for(lambda: 'value="bot:cas"' in scout.open_play(), "cas to be offered on /play", 60)
        visitors = [Visitor(arena.web, f"127.0.0.{n}") for n in range(2, 2 + CAPACITY)]
        games = []
        for visitor in visitors:
            visitor.open_play()
            status, body = visitor.start(["bot:cas"])
            assert status == 201, body
            games.append(body["game_id"])
        late = Visitor(arena.web, "127.0.0.9")
        assert '<option value="bot:cas" disabled>cas (busy)</option>' in late.open_play()
        status, body = late.start(["bot:cas"])
        assert status == 409 and "bot 'cas' is busy" in body["error"]["message"], body

        started = time.monotonic()
        arena.local.start_tournament("cup")
        cup = "cup"
        wait_for(
            lambda: arena.local.tournament(cup).status is records.TournamentStatus.FINISHED,
            "the tournament to finish",
            FINISH_S,
        )
        took = time.monotonic() - started
        played = arena.local.games(cup, records.GameStatus.FINISHED)
        assert len(played) == arena.local.tournament(cup).games.finished >= GAMES
        assert all(seat.forfeit is None for game in played for seat in game.results), played
        for visitor, game_id in zip(visitors, games, strict=True):
            message = visitor.first_message(game_id)
            assert message["type"] == "stopped", message
            assert "a tournament game needed cas's seat, and tournament games come first" in message["message"]
        print(f"{len(played)} games in {took:.1f} s with every casual seat of cas held by a visitor")
    finally:
        arena.stop()
