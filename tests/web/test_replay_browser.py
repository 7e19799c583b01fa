"""The replay viewer in Chromium: stepped by keys and buttons to known positions, the cards drawn
are the record's (docs/rules.md §1: both values, as oriented), and a seat's view hides the other hands
(docs/rules.md §9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import Session

from arena.storage import store
from arena.storage.database import open_database
from arena.web.replay_frames import Frame, replay_frames
from tests.storage.helpers import running_tournament
from tests.web.conftest import Served, screenshot, serve_in_thread

GAME = 1


def frames_of(served: Served, game_id: int = GAME) -> list[Frame]:
    with Session(served.engine) as session:
        record = store.show_game(session=session, game_id=game_id).record
    assert record is not None
    return replay_frames(record)


def drawn(page: Any, selector: str) -> list[tuple[int, int]]:
    """The face-up cards under `selector`, left to right, as (top, bottom)."""
    return [
        (int(c.get_attribute("data-top")), int(c.get_attribute("data-bottom")))
        for c in page.locator(f"{selector} .pcard:not(.back)").all()
    ]


def logged(page: Any) -> list[int]:
    """The steps the round log lists, in order."""
    return [int(item.get_attribute("data-step")) for item in page.locator("#log li").all()]


def logged_steps(frames: list[Frame], index: int) -> list[int]:
    """What the round log at step `index` must list: the steps of its round from the deal up to
    it, none still to come (every step after the deal says what happened)."""
    deal = max(f.index for f in frames if f.move is None and f.index <= index)
    return [f.index for f in frames[deal : index + 1] if f.move is not None or f.events]


def open_replay(served: Served, page: Any, fragment: str = "") -> None:
    page.goto(f"{served.url}games/{GAME}{fragment}")
    page.wait_for_selector("#replay[data-ready=true]")


def at_step(page: Any, index: int) -> None:
    page.wait_for_selector(f"#replay[data-step='{index}']")


def test_stepping_shows_the_records_cards_at_each_position(served: Served, page: Any) -> None:
    frames = frames_of(served)
    open_replay(served, page)
    at_step(page, 0)
    page.keyboard.press("End")
    at_step(page, len(frames) - 1)
    page.keyboard.press("Home")
    at_step(page, 0)
    target = min(12, len(frames) - 1)
    for _ in range(target):
        page.keyboard.press("ArrowRight")
    at_step(page, target)
    page.keyboard.press("ArrowLeft")
    at_step(page, target - 1)
    assert logged(page) == logged_steps(frames, target - 1)
    page.click("#next")
    at_step(page, target)
    assert logged(page) == logged_steps(frames, target)
    frame = frames[target]
    for s, seat in enumerate(frame.seats):
        assert drawn(page, f"[data-role=hand][data-seat='{s}']") == [tuple(c) for c in seat.hand]
    assert drawn(page, "[data-role=active-set]") == [tuple(c) for c in frame.active_set]
    assert page.locator(".pcard.back").count() == 0, "the omniscient view hides nothing"
    underlined = [int(v.inner_text()) for v in page.locator(".pcard .u").all()]
    plain = [int(v.inner_text()) for v in page.locator(".pcard .t:not(.u), .pcard .b:not(.u)").all()]
    assert underlined and set(underlined) <= {6, 9} and not {6, 9} & set(plain), "6 and 9 are underlined, as printed"
    screenshot(page, "replay")

    # A round jump lands on that round's deal: the hands as dealt, before the flips (§2, §3).
    page.click("[data-round='1']")
    deal = next(f for f in frames if f.round == 1 and f.move is None)
    at_step(page, deal.index)
    for s, seat in enumerate(deal.seats):
        assert drawn(page, f"[data-role=hand][data-seat='{s}']") == [tuple(c) for c in seat.hand]

    # The last step shows the final totals.
    page.click("#last")
    at_step(page, len(frames) - 1)
    totals = [page.locator(f".seat[data-seat='{s}'] .total").inner_text() for s in range(len(frames[-1].seats))]
    assert totals == [f"{t:+d}" for t in (s.total for s in frames[-1].seats)]


def test_a_seat_view_shows_its_own_hand_and_only_the_backs_of_the_others(served: Served, page: Any) -> None:
    frames = frames_of(served)
    target = next(f.index for f in frames if f.phase == "play" and f.active_set and f.index > 8)
    open_replay(served, page, f"#step={target + 1}")
    at_step(page, target)
    page.select_option("#view", "1")
    page.wait_for_selector("#replay[data-view='1']")
    frame = frames[target]
    view = frame.views[1]
    assert drawn(page, "[data-role=hand][data-seat='1']") == [tuple(c) for c in view.hand]
    for s, seat in enumerate(view.table.seats):
        if s == 1:
            continue
        hand = f"[data-role=hand][data-seat='{s}']"
        assert drawn(page, hand) == [], f"seat {s}'s cards are hidden from seat 1"
        assert page.locator(f"{hand} .pcard.back").count() == seat.hand_size
    assert drawn(page, "[data-role=active-set]") == [tuple(c) for c in view.table.active_set]
    hidden = {c.id for s in frame.seats if s.seat != 1 for c in s.hand}
    shown = {tuple(sorted(c)) for c in drawn(page, "#replay")}
    assert not hidden & shown - {c.id for c in frame.active_set}
    screenshot(page, "replay-seat-view")

    # Stepping keeps the seat's view; going back to all hands shows them again.
    page.keyboard.press("ArrowRight")
    at_step(page, target + 1)
    assert drawn(page, "[data-role=hand][data-seat='0']") == []
    page.select_option("#view", "all")
    page.wait_for_selector("#replay[data-view='all']")
    assert drawn(page, "[data-role=hand][data-seat='0']") == [tuple(c) for c in frames[target + 1].seats[0].hand]


def test_a_game_not_finished_has_no_replay_and_an_unknown_one_is_a_404_page(tmp_path: Path, page: Any) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'running.db'}")
    with Session(engine) as session:
        running_tournament(session, 3, 3, name="open-cup")
        waiting = store.list_games(session=session)[0]
    try:
        with serve_in_thread(engine) as url:
            page.goto(f"{url}games/{waiting.id}")
            assert page.locator("#replay").count() == 0
            assert "published once it is finished" in page.inner_text("main")
            screenshot(page, "replay-not-finished")
            for data in ("record", "frames"):
                response = page.goto(f"{url}api/games/{waiting.id}/{data}")
                assert response.status == 409
                assert "its record is published once it is finished" in page.inner_text("body")
            response = page.goto(f"{url}games/999999")
            assert response.status == 404
            assert "there is no game 999999" in page.inner_text("main")
    finally:
        engine.dispose()
