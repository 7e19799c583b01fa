"""No gain from causing a void (issue #11 and #30; docs/architecture.md boundary 4, "an interrupted game is
void and replayed", and boundary 2; docs/security.md, "Voids cannot be bought"): the replay deals
the failing seat its hands again and the others fresh ones, so dropping on a weak hand buys no
better hand and what the others showed in the voided attempt is useless; and a bot may cause at
most `max_voids_per_bot` voids in a tournament, after which its voiding failures forfeit
(bot-void-cap-reached). A bot that drops its connection whenever its hand is weak therefore ends
below the same bot playing every hand out, even with the caps at their maximum
(benchmarks/void_gain.py measures it over more games, and a thrifty cheater that spends only the
voids it is allowed)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage.database import open_database
from arena.tournaments.failure_policy import MAX_REPLAYS, MAX_VOIDS_PER_BOT, FailurePolicy
from arena.tournaments.fairness import attempt_seed
from tests.security.void_play import CHEATER, HONEST, Outcome, play

GAMES_PER_TABLE = 8
"""4 entrants at 3-seat tables: 4 tables, 32 games, 24 of them the subject's."""
SEED = 2026


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return open_database(f"sqlite:///{tmp_path / 'arena.db'}")


def test_a_bot_that_drops_weak_hands_gains_nothing_under_the_default_cap(engine: Engine) -> None:
    policy = FailurePolicy(absent_wait_ms=0)
    cheat = play(engine, "cheat", CHEATER, GAMES_PER_TABLE, SEED, policy)
    honest = play(engine, "honest", HONEST, GAMES_PER_TABLE, SEED, policy)
    assert cheat.drops > policy.max_voids_per_bot, "the cheater must have had weak hands to drop"
    assert cheat.voids == policy.max_voids_per_bot == 2
    capped = cheat.forfeits(PolicyDecision.BOT_VOID_CAP_REACHED) + cheat.forfeits(PolicyDecision.CAP_REACHED)
    assert capped == cheat.drops - cheat.voids
    assert cheat.rating.mu < honest.rating.mu and cheat.rating.conservative < honest.rating.conservative
    assert cheat.points < honest.points
    assert honest.voids == honest.drops == 0


def test_a_replay_keeps_the_failing_seats_hands_and_deals_the_others_afresh(engine: Engine) -> None:
    """The replay's seed is the next attempt's; the seat whose drop voided the attempt holds the
    same hand in every round, and no other seat is dealt a hand of the voided attempt."""
    cheat = play(engine, "fresh", CHEATER, 2, SEED, FailurePolicy(absent_wait_ms=0))
    voided = [(g, v) for g in cheat.games for v in g.voided]
    assert voided
    for game, v in voided:
        assert game.record is not None and v.seed == v.result.record.seed != game.info.seed
        assert game.info.attempts == v.attempt + 1 or any(o.attempt > v.attempt for o in game.voided)
        (failed,) = [s.seat for s in v.result.seats if s.policy is PolicyDecision.VOID]
        assert game.record.kept == (failed,) and game.record.results
        before, after = v.result.record.deals, game.record.deals
        assert all(after[r][failed] == before[r][failed] for r in range(len(after)))
        others = [s for s in range(3) if s != failed]
        assert all(after[r][s] not in {h for d in before for h in d} for r in range(len(after)) for s in others)
    deals = [
        attempt_seed(SEED, g.info.table_index, g.info.game_index, d)
        for g in cheat.games
        for d in range(1, len(g.voided) + 2)
    ]
    assert len(set(deals)) == len(deals) == sum(g.info.attempts for g in cheat.games)


def test_without_the_caps_dropping_a_weak_hand_is_dealt_it_again(engine: Engine) -> None:
    """The control of issue #11 was a cheater that gained once voids were (almost) uncapped: with
    kept hands it draws the same weak hand at every replay, drops it again until the game's
    replay cap forfeits it, and scores less than its honest twin."""
    policy = FailurePolicy(absent_wait_ms=0, max_replays=MAX_REPLAYS, max_voids_per_bot=MAX_VOIDS_PER_BOT)
    cheat = play(engine, "uncapped", CHEATER, GAMES_PER_TABLE, SEED, policy)
    honest = play(engine, "twin", HONEST, GAMES_PER_TABLE, SEED, policy)
    assert cheat.forfeits(PolicyDecision.CAP_REACHED) > 0, "every replay of a dropped hand is dropped again"
    replayed = [g for g in cheat.games if g.voided]
    assert replayed and all(
        s.policy in (PolicyDecision.CAP_REACHED, PolicyDecision.BOT_VOID_CAP_REACHED)
        for g in replayed
        for s in g.info.results
        if s.bot == CHEATER
    ), "no replay dealt it a hand it played out: each game it dropped ended with its forfeit at a cap"
    assert cheat.points < honest.points


def test_a_thrifty_cheater_spends_its_voids_on_hands_it_is_dealt_again(engine: Engine) -> None:
    """The cheater of issue #30 drops only the weak hands its void allowance covers, then plays
    on: every hand it dropped comes back to it in the replay (benchmarks/void_gain.py measures
    that it gains nothing)."""
    policy = FailurePolicy(absent_wait_ms=0)
    cheat = play(engine, "thrifty", CHEATER, GAMES_PER_TABLE, SEED, policy, thrifty=True)
    assert cheat.voids == cheat.drops == policy.max_voids_per_bot
    assert cheat.forfeits(PolicyDecision.BOT_VOID_CAP_REACHED) == 0
    for game in (g for g in cheat.games if g.voided):
        (v,) = game.voided
        (seat,) = [s.seat for s in v.result.seats if s.bot == CHEATER]
        assert game.record is not None and game.record.kept == (seat,)
        assert [d[seat] for d in game.record.deals] == [d[seat] for d in v.result.record.deals]


def test_the_cap_counts_per_bot_from_the_stored_voids(engine: Engine) -> None:
    """The count survives a restart: it is read from the stored voided attempts."""
    from sqlmodel import Session

    from arena.storage import store

    cheat: Outcome = play(engine, "counted", CHEATER, 2, SEED, FailurePolicy(absent_wait_ms=0, max_voids_per_bot=1))
    with Session(engine) as session:
        assert store.voids_by_bot(session=session, tournament="counted") == {CHEATER: cheat.voids} == {CHEATER: 1}
    causes = Counter(s.cause for g in cheat.games for s in g.info.results if s.bot == CHEATER and s.forfeit)
    assert set(causes) <= {ForfeitCause.DISCONNECT}
