"""The tournament runner: inside the arena process, it starts tournaments and plays their games.

* **Starting.** Every tick (`TICK_S`, or at once when woken after a StartTournament call) it
  starts the scheduled tournaments whose start time has come: `store.start_tournament` closes the
  entries and stores the schedule with every game's seed. One with fewer entrants than seats at a
  table stays open for entries and is tried again.
* **Playing.** Each running tournament has one task that plays its scheduled games with the
  referee, at most the tournament's `concurrency` at once, and never more at once for a bot than
  the capacity its session declared (its games in other tournaments and PlayGame calls count too).
* **Committing in schedule order.** A finished game is committed with `store.commit_game` (record,
  results and both rating scopes in one transaction) only after every game before it in the
  schedule, and games start only among the first `concurrency * COMMIT_WINDOW` uncommitted ones;
  one that waits for its commit is marked played (`store.mark_game_played`), so progress counts
  tell it from the games being played.
  TrueSkill updates depend on their order; committing in a fixed order makes a tournament's rating
  table a function of its seeds and of the bots' play alone, not of which game finished first -
  the same after a crash and resume as without one.
* **Absent bots.** A bot that is not connected when its game is due is waited for up to the
  tournament's `absent_wait_ms`; then the game is played with its seat forfeited from the start
  (the reason is recorded), and so are its next games, at once, until it connects again. A game
  waiting for a bot deals nothing and polls nothing: the session hub wakes it when the bot connects
  (`SessionHub.changed`), and the referee asks the hub before it deals (`SessionHub.check`).
* **Failure policy.** A finished game with a forfeited seat is judged by the tournament's
  `FailurePolicy`: each forfeit's cause either forfeits the seat, or voids the attempt. A voided
  attempt is stored (`store.void_attempt`: record, seats, causes, seed; not rated) and the same
  game is played again (`arena.tournaments.fairness`: the failing seats keep their hands, the others
  are dealt afresh from `attempt_seed`), in its place in the
  schedule, so the commit order and with it the ratings stay a function of the seeds and the
  play. After `max_replays` voids of one game its failures forfeit (`void-cap-reached`), so a
  tournament always ends; after `max_voids_per_bot` voids caused by one bot, that bot's do
  (`bot-void-cap-reached`), so a bot that keeps failing costs its opponents few replays. The
  count per bot is read from the stored voided attempts when the tournament's play (re)starts and
  kept up to date as attempts are judged.
* **Stop rule.** A stop-rule tournament (`arena.tournaments.stop_rule`) has one round scheduled at a time.
  When its games are all committed, `store.advance_stop_rule` decides from the committed complete
  rounds alone: it stores the next round, which is played the same way, or finishes the
  tournament (settled, or its game cap reached). A crash between the last commit of a round and
  that decision leaves a running tournament with nothing to play; resuming it decides again, the
  same way.
* **Isolation.** Each due tournament is started on its own, and each running one played by a
  task of its own: a start or a play that fails for any reason but the database being unavailable
  marks that tournament failed with a one-line reason (`arena.tournaments.isolation`), and the runner goes on
  with the others.
* **Storage.** The runner's writes are play: they go before every other write on the writer
  (`arena.storage.writer`). A storage call of a tournament's play that fails because the database
  is unavailable (locked, busy, connection lost) is tried again with back-off, logged once
  (`arena.tournaments.isolation.retrying`): the tournament waits, it is never stopped or failed for
  it. Before a running tournament is played, what a start left unstored of its schedule is stored
  (`store.store_schedule`).
* **Telling bots.** Every tick, each bot stream whose Hello named a tournament that has ended
  (finished or failed, whoever ended it) is sent a TournamentOver for it, once
  (`SessionHub.tournaments_over`), so within TICK_S of the end.
* **Resume.** At start-up the server voids interrupted games (`store.void_interrupted_games`);
  the runner then finds the running tournaments and plays their remaining games in the same order
  from the same deals. A game counts once it is committed, and is committed once (a commit retried
  after its answer was lost, which finds its game finished, counts as done). If a tournament's play
  task ends with an error all the same, its games in play are abandoned and the next tick picks the
  tournament up again the same way.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from arena import records
from arena.errors import GameAlreadyFinished, NotEnoughEntrants, TournamentAlreadyStarted
from arena.play.referee import Limits, Referee
from arena.play.results import GameResult, PolicyDecision
from arena.play.sessions import AtCapacity, NotConnected, SessionHub
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S, Watch
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.isolation import Outage, fail, is_transient, retrying, start_or_fail
from arena.tournaments.stop_rule import StopOutcome, Verdict
from sdk.protocol import TournamentEnd

log = logging.getLogger(__name__)
T = TypeVar("T")

ENDS = {
    records.TournamentStatus.FINISHED: TournamentEnd.FINISHED,
    records.TournamentStatus.FAILED: TournamentEnd.FAILED,
}
"""The statuses of a tournament that is over, as TournamentOver tells them (`SessionHub.tournaments_over`)."""
TICK_S = 1.0
"""How often due tournaments are looked for when nothing wakes the runner."""
POLL_S = 0.2
"""How often a tournament looks again for room in its next games when no game of it has ended;
a game waiting for an absent bot does not poll: the hub wakes it when the bot connects
(`SessionHub.changed`)."""
COMMIT_WINDOW = 4
"""Games start only among the first `concurrency * COMMIT_WINDOW` not yet committed: a slow game
holds up the commits behind it, never more than that many."""


@dataclass
class _Slot:
    """A game of the window: not started (task None), playing, or finished and awaiting commit."""

    game: records.GameToPlay
    task: asyncio.Task[GameResult] | None = None


async def wait_at_most(wake: asyncio.Event | Awaitable[object], seconds: float) -> None:
    """Until `wake` (an event set, or an awaitable done) or `seconds` have passed. Not
    `asyncio.wait_for`: on Python 3.11 it swallows a cancellation that arrives as the event is set,
    and the runner would never stop."""
    try:
        async with asyncio.timeout(seconds):
            await (wake.wait() if isinstance(wake, asyncio.Event) else wake)
    except TimeoutError:
        pass


class TournamentRunner:
    """Starts due tournaments and plays every running one; `run` until cancelled."""

    def __init__(self, db: AsyncStore, referee: Referee, hub: SessionHub) -> None:
        self._db = db.for_play()
        self._referee = referee
        self._hub = hub
        self._wake = asyncio.Event()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._reserved: Counter[str] = Counter()
        """Games a bot was given that have not seated it yet: they count against its capacity."""
        self._absent_since: dict[str, float] = {}
        self._short_of_entrants: set[str] = set()
        self._outages: dict[str, Outage] = {}
        """Per tournament, whether its storage calls are failing now (logged once: `retrying`)."""
        self._delays: dict[str, int] = {}
        """Each tournament's spectator delay, by name, for the games it plays."""

    def wake(self) -> None:
        """Look for tournaments to start and play now rather than at the next tick."""
        self._wake.set()

    async def run(self) -> None:
        """Start and play tournaments until cancelled; cancelling abandons the games in play
        (still marked running: the next start voids and replays them)."""
        failing = False
        try:
            while True:
                self._wake.clear()
                try:
                    await self._tick()
                except Exception as exc:  # the database may be down for a while: try again next tick
                    if not (failing and is_transient(exc)):
                        log.error("cannot look for tournaments to start (trying again every %g s): %s", TICK_S, exc)
                    failing = is_transient(exc)
                else:
                    if failing:
                        log.info("looking for tournaments to start again")
                    failing = False
                await wait_at_most(self._wake, TICK_S)
        finally:
            tasks = list(self._tasks.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _tick(self) -> None:
        now = datetime.now(UTC)
        for name in await self._db(store.due_tournaments, now=now):
            try:
                await self._db(start_or_fail, tournament=name, now=now)
            except NotEnoughEntrants as exc:
                if name not in self._short_of_entrants:
                    self._short_of_entrants.add(name)
                    log.warning("tournament %r is due but waits for entrants: %s", name, exc)
            except TournamentAlreadyStarted:
                pass  # started by a StartTournament call meanwhile, or failed (logged when it did)
            except Exception as exc:  # the database is unavailable: try this one again next tick
                log.error("cannot start tournament %r now (trying again in %g s): %s", name, TICK_S, exc)
        listed = await self._db(store.list_tournaments)
        if self._hub.watching():
            self._hub.tournaments_over({t.name: ENDS[t.status] for t in listed if t.status in ENDS})
        for t in listed:
            if t.status is records.TournamentStatus.RUNNING and t.name not in self._tasks:
                task = asyncio.create_task(self._isolated(t), name=f"tournament {t.name}")
                task.add_done_callback(functools.partial(self._forget, t.name))
                task.add_done_callback(self._ended)
                self._tasks[t.name] = task

    def _forget(self, name: str, _: asyncio.Task[None]) -> None:
        """Drop an ended tournament's task, so that a later tick may resume the tournament."""
        self._tasks.pop(name, None)

    @staticmethod
    def _ended(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error(
                "%s stopped: %s; resuming it at the next tick",
                task.get_name(),
                task.exception(),
                exc_info=task.exception(),
            )

    async def _isolated(self, t: records.Tournament) -> None:
        """Play `t`; if that fails other than for want of the database, mark it failed. Its
        storage calls wait out an unavailable database (`_store`), so that never ends the task."""
        try:
            await self._play_tournament(t)
        except Exception as exc:
            if is_transient(exc):
                raise
            await self._db(fail, tournament=t.name, exc=exc, when="playing")

    async def _play_tournament(self, t: records.Tournament) -> None:
        """Play the scheduled games; a stop-rule tournament then asks its rule for the next round
        (`store.advance_stop_rule`) and plays it, until the rule finishes the tournament."""
        policy = t.failure_policy
        limits = policy.limits(t.move_limit_ms)
        self._delays[t.name] = t.spectator_delay_s
        # A start that stopped part way (or is still going on) left part of the schedule to store.
        if await self._store(t.name, store.store_schedule, tournament=t.name):
            t = await self._store(t.name, store.show_tournament, tournament=t.name)
        # Any game of this tournament still marked running was left by a task that is gone.
        await self._store(t.name, store.void_interrupted_games, tournament=t.name)
        bot_voids = Counter(await self._store(t.name, store.voids_by_bot, tournament=t.name))
        done = t.games.finished
        log.info(
            "tournament %r %s: %d of %d games played, %d at once, %d-seat tables, entrants %s",
            t.name,
            "resumed" if done else "started",
            done,
            t.games.total,
            t.concurrency,
            t.table_size,
            ", ".join(t.entrants),
        )
        while True:
            queue = deque(await self._store(t.name, store.next_games, tournament=t.name))
            done = await self._play_games(t, queue, policy, limits, bot_voids, done)
            if t.stop_rule is None:
                break
            verdict = await self._store(t.name, store.advance_stop_rule, tournament=t.name)
            if verdict.outcome is not StopOutcome.PLAYING:
                _log_stop(t.name, verdict)
                break
            log.info(
                "tournament %r: round %d played (%d games), not settled: playing round %d",
                t.name,
                verdict.rounds,
                verdict.games,
                verdict.rounds + 1,
            )
        log.info("tournament %r finished: %d games", t.name, done)

    async def _play_games(
        self,
        t: records.Tournament,
        queue: deque[records.GameToPlay],
        policy: FailurePolicy,
        limits: Limits,
        bot_voids: Counter[str],
        done: int,
    ) -> int:
        """Play and commit the games of `queue` in order; returns how many of the tournament's
        games are committed now (`done` before)."""
        total = done + len(queue)
        window: list[_Slot] = []
        changed = asyncio.Event()
        try:
            while queue or window:
                changed.clear()
                while queue and len(window) < t.concurrency * COMMIT_WINDOW:
                    window.append(_Slot(queue.popleft()))
                while window and window[0].task is not None and window[0].task.done():
                    slot = window.pop(0)
                    assert slot.task is not None
                    result = slot.task.result()
                    commit = functools.partial(self._db, store.commit_game, game_id=slot.game.id, result=result)
                    outage = self._outages.setdefault(t.name, Outage())
                    await retrying(commit, f"tournament {t.name!r}", outage, done_if=GameAlreadyFinished)
                    done += 1
                    _log_game(t.name, slot.game, result, done, total)
                playing = sum(1 for s in window if s.task is not None and not s.task.done())
                for slot in window:
                    if playing >= t.concurrency:
                        break
                    if slot.task is None and self._has_room(slot.game.seats):
                        slot.task = self._start(slot.game, policy, limits, bot_voids)
                        slot.task.add_done_callback(lambda _: changed.set())
                        playing += 1
                if window and not (window[0].task is not None and window[0].task.done()):
                    await wait_at_most(changed, POLL_S)
        finally:
            started = [s.task for s in window if s.task is not None]
            for task in started:
                task.cancel()
            await asyncio.gather(*started, return_exceptions=True)
        return done

    async def _store(self, tournament: str, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """`self._db(fn, **kwargs)` for `tournament`'s play, retried while the database is
        unavailable (`arena.tournaments.isolation.retrying`): a transient storage error holds the
        tournament up, never stops or fails it."""
        outage = self._outages.setdefault(tournament, Outage())
        return await retrying(functools.partial(self._db, fn, **kwargs), f"tournament {tournament!r}", outage)

    def _has_room(self, bots: Sequence[str]) -> bool:
        """False if a connected bot has no capacity left (its casual games give way: they do not
        count, `SessionHub.seat`); absent bots are waited for in the game."""
        for bot in bots:
            conn = self._hub.get(bot)
            if conn is not None and conn.connected:
                self._absent_since.pop(bot, None)
                if conn.held + self._reserved[bot] >= conn.capacity:
                    return False
        return True

    def _start(
        self, game: records.GameToPlay, policy: FailurePolicy, limits: Limits, bot_voids: Counter[str]
    ) -> asyncio.Task[GameResult]:
        self._reserved.update(game.seats)
        return asyncio.create_task(self._play(game, policy, limits, bot_voids), name=f"game {game.id}")

    async def _play(
        self, game: records.GameToPlay, policy: FailurePolicy, limits: Limits, bot_voids: Counter[str]
    ) -> GameResult:
        """Play the game until an attempt counts: the result to commit, with the policy's decision
        on each forfeit. An attempt the policy voids is stored and the game played again (its
        seats reserved again, as when it was first started). `bot_voids`, the tournament's voids
        by bot, is counted up as soon as an attempt is judged void, so games judged at about the
        same time cannot both let a bot past its cap."""
        voided = game.voided
        while True:
            attempt = await self._attempt(game, limits, policy.absent_wait_ms / 1000)
            result = policy.judge(attempt, voided, bot_voids)
            if not result.voided:
                await self._store(game.tournament, store.mark_game_played, game_id=game.id)
                return result
            bot_voids.update(s.bot for s in result.seats if s.policy is PolicyDecision.VOID)
            voided = await self._store(game.tournament, store.void_attempt, game_id=game.id, result=result)
            _log_void(game, result, voided, policy.max_replays)
            self._reserved.update(game.seats)

    async def _attempt(self, game: records.GameToPlay, limits: Limits, absent_wait_s: float) -> GameResult:
        """Mark the game running, then play it (`_referee_game`)."""
        try:
            playing = await self._store(game.tournament, store.mark_game_running, game_id=game.id)
        except BaseException:
            self._reserved.subtract(game.seats)
            raise
        return await self._referee_game(game, playing, limits, absent_wait_s)

    async def _referee_game(
        self, game: records.GameToPlay, playing: records.GameToPlay, limits: Limits, absent_wait_s: float
    ) -> GameResult:
        """Wait for the absent bots of the running attempt `playing` (bounded), then play it; the
        seats' reservation (taken when the game was started) ends when the referee seats them, or
        with the attempt."""
        reserved = True
        try:
            # A fresh id for every attempt: a bot still holding the state of an interrupted
            # attempt is not confused by the replay.
            game_id = f"{game.id}-{secrets.token_hex(3)}"
            while True:
                missing, awaited_until = self._absent(game.seats, absent_wait_s)
                if awaited_until is not None:
                    await wait_at_most(self._hub.changed(missing), awaited_until - asyncio.get_running_loop().time())
                    continue
                reason = f"absent: not connected within {absent_wait_s:g} s of the game being due"
                absent = dict.fromkeys(missing, reason)
                self._reserved.subtract(game.seats)
                reserved = False
                try:
                    watch = Watch(game.id, self._delays.get(game.tournament, DEFAULT_SPECTATOR_DELAY_S))
                    return await self._referee.play(
                        game_id, game.seats, playing.seed, limits, absent, watch, kept=playing.kept
                    )
                except NotConnected:
                    pass  # gone since `_absent` looked: the next look waits for it
                except AtCapacity:
                    await self._hub.changed(game.seats)  # a PlayGame call or another tournament holds its seats
                self._reserved.update(game.seats)
                reserved = True
        finally:
            if reserved:
                self._reserved.subtract(game.seats)

    def _absent(self, bots: Sequence[str], wait_s: float) -> tuple[list[str], float | None]:
        """The game's bots that are not connected, and until when (loop time) the game waits for
        them; None once every one of them has been absent for `wait_s` (they forfeit)."""
        now = asyncio.get_running_loop().time()
        missing = []
        for bot in dict.fromkeys(bots):
            conn = self._hub.get(bot)
            if conn is not None and conn.connected:
                self._absent_since.pop(bot, None)
            else:
                missing.append(bot)
                self._absent_since.setdefault(bot, now)
        until = max((self._absent_since[bot] + wait_s for bot in missing), default=now)
        return missing, until if until > now else None


def _log_stop(tournament: str, verdict: Verdict) -> None:
    if verdict.outcome is StopOutcome.SETTLED:
        log.info("tournament %r settled after %d rounds (%d games)", tournament, verdict.rounds, verdict.games)
        return
    open_pairs = ", ".join(f"{p.upper} above {p.lower} ({p.above}-{p.below})" for p in verdict.unsettled)
    log.warning(
        "tournament %r reached its game cap after %d rounds (%d games), not settled: %s",
        tournament,
        verdict.rounds,
        verdict.games,
        open_pairs,
    )


def _log_void(game: records.GameToPlay, result: GameResult, voided: int, cap: int) -> None:
    failures = "; ".join(f"{s.bot} seat {s.seat}: {s.forfeit}" for s in result.seats if s.forfeit is not None)
    log.warning(
        "%s: game %d voided by the failure policy (%d of at most %d), playing it again: %s",
        game.tournament,
        game.id,
        voided,
        cap,
        failures,
    )


_CAPPED = {
    PolicyDecision.CAP_REACHED: " (the game was voided as often as allowed)",
    PolicyDecision.BOT_VOID_CAP_REACHED: " (the bot caused as many voids as allowed)",
}


def _log_game(tournament: str, game: records.GameToPlay, result: GameResult, done: int, total: int) -> None:
    seats = ", ".join(f"{s.bot} {s.points}" for s in result.seats)
    log.info(
        "%s: game %d (table %d, game %d) done [%d/%d]: %s",
        tournament,
        game.id,
        game.table_index,
        game.game_index,
        done,
        total,
        seats,
    )
    for s in result.seats:
        if s.forfeit is not None:
            capped = _CAPPED.get(s.policy, "") if s.policy is not None else ""
            log.warning(
                "%s: game %d: %s forfeited seat %d%s: %s", tournament, game.id, s.bot, s.seat, capped, s.forfeit
            )
