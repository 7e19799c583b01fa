"""What the Play page tells a person (issue #30), in Chromium against a real `scout-arena serve`:
that the name they give is public; that their game with a connected bot ended because a
tournament needed the bot; and, the room being full, their place in the queue. Screenshots of
each go to tests/web/screenshots/ (play-public-name, play-gave-way, play-queue): look at them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.play.casual_arena import Visitor, WebArena, in_thread
from tests.web.conftest import screenshot


def _offered(page: Any, url: str, bot: str) -> None:
    """Reload /play until the connected `bot` is offered (its program takes a moment to connect)."""
    deadline = time.monotonic() + 60
    while True:
        page.goto(url)
        if page.locator(f"option[value='bot:{bot}']:not([disabled])").count():
            return
        assert time.monotonic() < deadline, f"bot {bot} was never offered on /play"
        time.sleep(0.5)


def test_the_play_page_says_the_name_is_public_a_game_gave_way_and_the_queue_place(page: Any, tmp_path: Path) -> None:
    arena = WebArena(tmp_path, "--play-games", "1")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        in_thread(lambda: arena.bot("cas", 1, casual=True))
        in_thread(lambda: arena.bot("bea", 1))
        in_thread(lambda: arena.tournament("cup", ["bea", "cas"], 1, concurrency=1))
        url = arena.web + "play"
        _offered(page, url, "cas")
        notice = page.locator("#name-public")
        assert notice.is_visible()
        assert "The name you give is public" in notice.inner_text()
        assert page.get_attribute("input[name=name]", "aria-describedby") == "name-public"
        screenshot(page, "play-public-name")

        page.select_option("select[data-rival='0']", "bot:cas")
        page.fill("input[name=move_ms]", "0")
        page.fill("input[name=name]", "ann")
        page.click("#start")
        page.wait_for_function("['flip', 'turn'].includes(document.body.dataset.phase)", timeout=30_000)
        in_thread(lambda: arena.local.start_tournament("cup"))  # cas's only seat is needed now: the person's game ends
        page.wait_for_selector("#result.stopped", timeout=60_000)
        text = page.inner_text("#result")
        assert "Game ended early" in text
        assert "a tournament game needed cas's seat, and tournament games come first" in text
        assert page.inner_text("#status") == "The game was ended early."
        assert page.locator(".play-hand").is_hidden() and page.locator("#flip-choice").is_hidden()
        assert page.evaluate("document.body.dataset.phase") == "stopped"
        screenshot(page, "play-gave-way")

        holder = Visitor(arena.web)  # takes the room's one place
        holder.open_play()
        status, body = holder.start(["random"])
        assert status == 201, body
        page.click("#result a[href='/play']")
        page.select_option("select[data-rival='0']", "random")
        page.click("#start")
        page.wait_for_selector("#queue:not([hidden])")
        assert page.inner_text("#queue-place") == "You are next in the queue."
        assert page.inner_text("#queue-message") == "Every place of the Play room (1) is taken."
        assert page.is_disabled("#start")
        screenshot(page, "play-queue")
        page.wait_for_function("document.body.dataset.queue === '1'")
        with page.expect_response("**/api/play/queue"):
            page.click("#queue-leave")
        assert page.locator("#queue").is_hidden() and not page.is_disabled("#start")
        after = Visitor(arena.web)  # the place the page gave up is the next comer's
        after.open_play()
        status, body = after.start(["random"])
        assert status == 202 and body["place"] == 1, body
        assert not errors, errors
    finally:
        arena.stop()
