"""No gain from causing a void (issue #11; DESIGN.md boundary 4, "an interrupted game is void and
replayed", and boundary 2): a replay is dealt afresh, so what a bot saw of the voided deal is
useless for it, and a bot may cause at most `max_voids_per_bot` voids in a tournament, after which
its voiding failures forfeit (bot-void-cap-reached). A bot that drops its connection whenever its
hand is weak therefore does not gain rating over many games against the same bot playing every
hand out (benchmarks/void_gain.py measures it over more games). Without the cap the same cheater
does gain, which shows the cheater works and the cap is what stops it."""

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
    assert cheat.forfeits(PolicyDecision.BOT_VOID_CAP_REACHED) == cheat.drops - cheat.voids
    assert cheat.rating.mu < honest.rating.mu and cheat.rating.conservative < honest.rating.conservative
    assert cheat.points < honest.points
    assert honest.voids == honest.drops == 0


def test_each_voided_attempt_was_dealt_apart_from_its_replay(engine: Engine) -> None:
    """The replay's deal is fresh: its seed is the next attempt's, and no hand repeats."""
    cheat = play(engine, "fresh", CHEATER, 2, SEED, FailurePolicy(absent_wait_ms=0))
    voided = [(g, v) for g in cheat.games for v in g.voided]
    assert voided
    for game, v in voided:
        assert game.record is not None and v.seed == v.result.record.seed != game.info.seed
        assert game.info.attempts == v.attempt + 1 or any(o.attempt > v.attempt for o in game.voided)
        later = game.record.deals
        assert all(hand not in {h for d in later for h in d} for d in v.result.record.deals for hand in d)
    deals = [
        attempt_seed(SEED, g.info.table_index, g.info.game_index, d)
        for g in cheat.games
        for d in range(1, len(g.voided) + 2)
    ]
    assert len(set(deals)) == len(deals) == sum(g.info.attempts for g in cheat.games)


def test_without_the_cap_the_same_cheater_gains(engine: Engine) -> None:
    """The control: fresh deals with (almost) no cap let the cheater re-deal its weak hands and
    score more points than its honest twin (benchmarks/void_gain.py shows the rating over more
    games)."""
    policy = FailurePolicy(absent_wait_ms=0, max_replays=MAX_REPLAYS, max_voids_per_bot=MAX_VOIDS_PER_BOT)
    cheat = play(engine, "uncapped", CHEATER, GAMES_PER_TABLE, SEED, policy)
    honest = play(engine, "twin", HONEST, GAMES_PER_TABLE, SEED, policy)
    assert cheat.voids == cheat.drops and cheat.forfeits(PolicyDecision.BOT_VOID_CAP_REACHED) == 0
    assert cheat.points > honest.points, "re-dealt weak hands score more (the rating is too noisy to show it here)"


def test_the_cap_counts_per_bot_from_the_stored_voids(engine: Engine) -> None:
    """The count survives a restart: it is read from the stored voided attempts."""
    from sqlmodel import Session

    from arena.storage import store

    cheat: Outcome = play(engine, "counted", CHEATER, 2, SEED, FailurePolicy(absent_wait_ms=0, max_voids_per_bot=1))
    with Session(engine) as session:
        assert store.voids_by_bot(session=session, tournament="counted") == {CHEATER: cheat.voids} == {CHEATER: 1}
    causes = Counter(s.cause for g in cheat.games for s in g.info.results if s.bot == CHEATER and s.forfeit)
    assert set(causes) <= {ForfeitCause.DISCONNECT}
