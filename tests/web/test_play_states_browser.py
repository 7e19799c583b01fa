"""Every state of the Play page says what happened and what the person can do (issue #35), in
Chromium: a game's address opened in another browser (while it is played, then once it is over,
with its replay to watch), an address the arena does not know, a seat forfeited while its person
was away (told on coming back, the game followed to its end), and a finished game reopened, with
its players' names and the person's forfeit. Screenshots: play-elsewhere, play-elsewhere-over,
play-unknown, play-forfeited, play-forfeited-over, play-reopened (tests/web/screenshots/)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from arena.play.casual import PERSON_LIMITS, CasualGame
from arena.web.play_room import PlayRoom
from tests.timeouts import PLAY_S
from tests.web.conftest import LAPTOP, screenshot
from tests.web.test_play_browser import RECORD_MESSAGES, play_game

GRACE_MS = 300
REASON = f"disconnected: not back within the {GRACE_MS} ms grace period"


def _start(page: Any, url: str, rivals: list[str], move_ms: int) -> str:
    """Start a game on /play; returns its id once the page asks for the round's flip."""
    page.goto(url + "play")
    for i, rival in enumerate(rivals):
        page.select_option(f"select[data-rival='{i}']", rival)
    page.fill("input[name=move_ms]", str(move_ms))
    page.click("#start")
    page.wait_for_function("document.body.dataset.phase === 'flip'", timeout=30_000)
    return str(page.evaluate("location.hash")).removeprefix("#game=")


def _forfeited(casual: CasualGame) -> None:
    """Wait until the referee has played the person's round-start flip for them: the grace is
    over and the seat forfeited (the page left at the flip, so nothing else decides it)."""
    deadline = time.monotonic() + PLAY_S
    while (game := casual.game) is None or (game.round == 0 and game.flips[casual.seat] is None):
        assert time.monotonic() < deadline, "the person's seat was never forfeited"
        time.sleep(0.05)


def _errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def test_another_browser_is_told_whose_game_it_is_and_gets_the_replay_once_it_is_over(
    browser: Any, page: Any, room: tuple[str, PlayRoom]
) -> None:
    url, play_room = room
    play_room.limits = replace(PERSON_LIMITS, grace_ms=GRACE_MS)
    game = _start(page, url, ["greedy"], 0)
    other = browser.new_context(viewport=LAPTOP).new_page()
    errors = _errors(other)
    other.goto(f"{url}play#game={game}")
    other.wait_for_selector("#notice:not([hidden])")
    assert other.inner_text("#notice-title") == "This game is being played in another browser"
    assert "cannot be played from here" in other.inner_text("#notice-text")
    assert other.get_attribute("#notice-links a", "href") == "/play"
    assert other.locator("#table").is_hidden() and other.locator("#setup").is_hidden()
    screenshot(other, "play-elsewhere")
    # The API says as much, and no more, even to a caller without any session cookie.
    bare = browser.new_context().request.get(f"{url}api/play/games/{game}")
    assert bare.status == 200 and bare.json() == {"game_id": game, "yours": False, "state": "playing", "replay": None}

    page.goto("about:blank")  # the person leaves: after the grace their seat is forfeited, the bots play on
    other.wait_for_selector("#notice-title:has-text('This game is over')", timeout=PLAY_S * 1000)
    (casual,) = play_room.games.values()
    assert casual.replay is not None
    assert other.get_attribute("#notice-links a >> nth=0", "href") == casual.replay
    assert other.inner_text("#notice-links a >> nth=0") == "Watch its replay"
    screenshot(other, "play-elsewhere-over")
    other.click("#notice-links a >> nth=0")
    other.wait_for_selector("#replay[data-ready='true']")
    assert not errors, errors


def test_an_address_the_arena_does_not_know_says_so(page: Any, room: tuple[str, PlayRoom]) -> None:
    url, _ = room
    errors = _errors(page)
    page.goto(f"{url}play#game=casual-000000000000")
    page.wait_for_selector("#notice:not([hidden])")
    assert page.inner_text("#notice-title") == "No such game here"
    assert page.inner_text("#notice-text") == (
        "There is no game 'casual-000000000000' here: a game's address lasts while it is played and for the"
        " latest 200 finished games, until the arena restarts."
    )
    assert page.inner_text("#notice-links") == "Start a new game"
    screenshot(page, "play-unknown")
    assert not errors, errors


def test_a_person_back_after_the_grace_is_told_the_seat_was_forfeited_and_follows_the_game_to_its_end(
    page: Any, room: tuple[str, PlayRoom]
) -> None:
    url, play_room = room
    play_room.limits = replace(PERSON_LIMITS, grace_ms=GRACE_MS)
    page.add_init_script(RECORD_MESSAGES)
    errors = _errors(page)
    game = _start(page, url, ["random", "random"], 300)
    page.goto("about:blank")
    (casual,) = play_room.games.values()
    _forfeited(casual)
    page.goto(f"{url}play#game={game}")
    page.wait_for_function("document.body.dataset.phase === 'forfeited'", timeout=30_000)
    assert not casual.done.is_set(), "the game ended before the person came back: the test saw no forfeit in play"
    notice = page.inner_text("#seat-notice")
    assert notice.startswith(f"Your seat was forfeited ({REASON}). The referee plays it from here to the end")
    assert page.inner_text("#status") == "Your seat was forfeited: the bots play on."
    assert page.locator(".play-buttons").is_hidden() and page.locator("#flip-choice").is_hidden()
    screenshot(page, "play-forfeited")
    moves = page.locator("#log li").count()
    page.wait_for_selector("#result .ranking li", timeout=PLAY_S * 1000)
    assert page.locator("#log li").count() > moves, "the page stopped following the game"
    assert page.inner_text("#forfeit-note") == (
        f"Your seat was forfeited ({REASON}): the referee played it to the end, and a forfeited seat ranks last."
    )
    ranking = page.locator("#result .ranking li").all_inner_texts()
    assert ranking[-1].startswith("3. You: ") and ranking[-1].endswith(f"(forfeited: {REASON})"), ranking
    assert page.locator("#seat-notice").is_hidden()
    screenshot(page, "play-forfeited-over")
    assert [m["type"] for m in page.evaluate("window.__messages")][:2] == ["started", "forfeited"]

    page.reload()  # the finished game reopened: its result with its players' names, nothing blank
    page.wait_for_selector("#result .ranking li")
    assert page.inner_text("#status") == "This game is over: here is its result, and its moves are in the replay."
    again = page.locator("#result .ranking li").all_inner_texts()
    assert again == ranking
    assert {line.split(": ")[0].split(". ")[1] for line in again} == {"You", "random 1", "random 2"}
    assert page.inner_text("#forfeit-note").startswith("Your seat was forfeited")
    for hidden in ("#rivals", ".play-area", ".play-hand", "#moves", "#flip-choice"):
        assert page.locator(hidden).is_hidden(), hidden
    assert page.get_attribute("#replay", "href") == casual.replay
    screenshot(page, "play-reopened")
    assert not errors, errors


def test_a_game_played_to_its_end_reopened_shows_its_result(page: Any, room: tuple[str, PlayRoom]) -> None:
    url, play_room = room
    play_game(page, url, ["greedy"], "reopened")
    ranking = page.locator("#result .ranking li").all_inner_texts()
    page.reload()
    page.wait_for_selector("#result .ranking li")
    assert page.locator("#result .ranking li").all_inner_texts() == ranking
    assert any(line.startswith(("1. greedy: ", "2. greedy: ")) for line in ranking), ranking
    assert page.locator("#forfeit-note").is_hidden()
    (casual,) = play_room.games.values()
    assert page.get_attribute("#replay", "href") == casual.replay
    assert page.evaluate("document.body.dataset.phase") == "over"
