"""The Play room is shared between addresses (issue #30): 30 visitors from 3 addresses fill its
places (and queue behind them); a visitor from a fourth address is given a queue place, first in
line, never a refusal, and the first place to free is theirs. Against a real `scout-arena serve`
process, each address a loopback address of its own (`tests.play.casual_arena`)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

from tests.play.casual_arena import Visitor, WebArena

PLACES = 20
PER_ADDRESS = 8
"""More than a third of the places, so that three addresses can fill the room and the queue is what
a newcomer meets (with the default share, 4, three addresses hold 12 of the 20 and a newcomer
simply gets a seat)."""
SEAT_S = 120.0


def test_a_visitor_from_a_new_address_gets_a_queue_place_and_the_next_seat(tmp_path: Path) -> None:
    arena = WebArena(tmp_path, "--play-games", str(PLACES), "--play-places-per-address", str(PER_ADDRESS))
    try:
        answers: dict[str, list[int]] = {}
        running: list[tuple[Visitor, str]] = []
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            for _ in range(10):
                visitor = Visitor(arena.web, address)
                visitor.open_play()
                status, body = visitor.start(["random"])
                answers.setdefault(address, []).append(status)
                if status == 201:
                    running.append((visitor, body["game_id"]))
        assert answers["127.0.0.2"] == [201] * PER_ADDRESS + [202] * 2
        assert answers["127.0.0.3"] == [201] * PER_ADDRESS + [202] * 2
        assert answers["127.0.0.4"] == [201] * (PLACES - 2 * PER_ADDRESS) + [202] * (10 - PLACES + 2 * PER_ADDRESS)

        newcomer = Visitor(arena.web, "127.0.0.5")
        assert "it is shown to anyone on the game's replay page" in re.sub(r"\s+", " ", newcomer.open_play())
        status, body = newcomer.start(["random"])
        assert status == 202, body
        assert body["place"] == 1 and body["retry_ms"] > 0, body
        assert body["message"] == f"Every place of the Play room ({PLACES}) is taken: you are number 1 in the queue"

        # One of the 20 plays its game to the end; the place it frees is the newcomer's.
        player, game_id = running[0]
        ended: list[dict[str, Any]] = []
        thread = threading.Thread(target=lambda: ended.append(player.play_out(game_id)), daemon=True)
        thread.start()
        polls = []
        deadline = time.monotonic() + SEAT_S
        while status == 202:
            assert time.monotonic() < deadline, f"no seat in {SEAT_S:g} s: {polls[-5:]}"
            time.sleep(body["retry_ms"] / 1000)
            status, body = newcomer.start(["random"])
            polls.append((status, body.get("place")))
            assert status in (201, 202) and body.get("place", 1) == 1, body
        assert status == 201 and body["players"][0] == "guest", body
        thread.join(30)
        assert ended and ended[0]["type"] == "over", ended
    finally:
        arena.stop()
