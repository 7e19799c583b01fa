"""A cluster node's tournament runner: it claims games from the shared PostgreSQL database instead
of playing each tournament's schedule itself (`serve --nats`; docs/scale-out.md).

* **Claim.** While this node referees fewer than its `games` games, it claims the next one
  (`store.claim_game`: SKIP LOCKED, so no two nodes get one game), preferring games whose bots are
  connected to this node and skipping those with a bot whose seats are all taken. A claim holds a
  lease (this node, a token, an expiry on the database's clock).
* **Renew.** Every third of the lease, one statement renews every lease this node holds
  (`store.renew_leases`). A lease the database no longer renews was lost (it expired: this node
  was frozen, or cut off from the database, for longer than the lease): its game is dropped at
  once. So is one not renewed for a whole lease by this node's own monotonic clock, which runs on
  while the process is stopped: a node resumed after SIGSTOP stops those games before it writes.
* **Play.** A claimed game is seated and refereed as a single arena's runner does it (the bots
  local or on other nodes through the hub, `arena.cluster.remote_bots`), judged by its tournament's
  failure policy (the voids per bot read from the database, so every node counts the same), and
  stored with the lease token: `store.commit_game` commits the record, the seats' results, the
  fixture's state and both ratings only while the lease holds, else nothing (LeaseLost). A voided
  attempt goes back to the queue for any node to replay. A game whose lease expired is claimed by
  another node and played again as an interrupted attempt, dealt the same cards.
* **Commit order.** Games commit as they finish, not in schedule order: `commit_seq` records the
  order the ratings were applied in, and recomputing the ratings from the records replays it.
* **Fixtures.** Each tick the node starts due tournaments (closing their entries; one node wins)
  and, for a running tournament whose schedule is not stored whole, takes its schedule lease and
  stores it (`store.take_schedule_lease`, `store_schedule` fenced by the lease's epoch); a node
  that dies part way is taken over when its lease expires. No game is claimed before its
  tournament's schedule is done. A stop-rule tournament's next round is decided by the node that
  commits its round's last game, or by any node's tick if that node died in between.
* **NATS lost.** Games with a bot on another node are interrupted (their leases given up, so any
  node replays them) and nothing is claimed until NATS is back and presence has been heard again.
* **Database lost.** Storage calls are retried with back-off; leases that ran out meanwhile are
  lost and their games replayed, the rest go on.
* **Stop.** The node gives up its leases as it stops, so other nodes replay its games at once.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from arena import records
from arena.cluster.join import Cluster
from arena.errors import GameAlreadyFinished, LeaseLost, NotEnoughEntrants, TournamentAlreadyStarted
from arena.play.referee import Referee
from arena.play.sessions import SessionHub
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.tournaments.isolation import Outage, fail, is_transient, reason, retrying, start_or_fail
from arena.tournaments.runner import ENDS, TournamentRunner, wait_at_most
from arena.tournaments.stop_rule import StopOutcome

log = logging.getLogger(__name__)

DEFAULT_LEASE_S = 10.0
"""How long a claim holds without renewal: how soon another node replays the games of a node that died."""
DEFAULT_NODE_GAMES = 64
"""How many games a node referees at once by default."""
CLAIM_POLL_S = 0.5
"""How often an idle node looks for a game to claim."""
PRESENCE_SETTLE_S = 2.0
"""How long after joining (or NATS coming back) a node waits before claiming: presence hears every
other node's bots within a heartbeat (1 s), and a game claimed before would find them absent."""


@dataclass
class _Held:
    """A game this node plays under a lease."""

    lease: str
    seats: tuple[str, ...]
    task: asyncio.Task[None]
    deadline: float
    """Loop time by which the lease must have been renewed, or this node drops the game."""
    storing: bool = False
    """Its result is being stored: the store's own fencing decides now (a renewal that misses it
    may only mean it has just been committed)."""


class ClusterNode(TournamentRunner):
    """The runner of cluster node `node`: `run` until cancelled."""

    def __init__(
        self,
        db: AsyncStore,
        referee: Referee,
        hub: SessionHub,
        node: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        games: int = DEFAULT_NODE_GAMES,
    ) -> None:
        super().__init__(db, referee, hub)
        self._cluster: Cluster | None = None
        self._node = node
        self._lease_s = lease_s
        self._capacity = games
        self._held: dict[int, _Held] = {}
        self._schedules: dict[int, int] = {}
        """The schedule leases this node holds: tournament id to epoch."""
        self._generating: dict[str, asyncio.Task[None]] = {}
        self._known: dict[str, records.Tournament] = {}
        """The running tournaments as the last tick read them, by name."""
        self._room = asyncio.Event()
        self._claims_from = 0.0
        """Loop time before which nothing is claimed (presence is being heard)."""
        self._nats_up = True
        self._outage = Outage()

    def join(self, cluster: Cluster) -> None:
        """The cluster this node has joined (before `run`): its presence and NATS connection."""
        self._cluster = cluster
        cluster.on_lost(self._nats_lost)
        cluster.on_restored(self._nats_restored)

    @property
    def cluster(self) -> Cluster:
        assert self._cluster is not None, "a cluster node runs only once it has joined the cluster"
        return self._cluster

    async def run(self) -> None:
        """Tick, claim and renew until cancelled; then give up every lease held."""
        loop = asyncio.get_running_loop()
        self._claims_from = loop.time() + PRESENCE_SETTLE_S
        helpers = [
            asyncio.create_task(self._claims(), name=f"node {self._node} claims"),
            asyncio.create_task(self._renewals(), name=f"node {self._node} renewals"),
        ]
        try:
            await super().run()
        finally:
            for task in helpers + list(self._generating.values()):
                task.cancel()
            await asyncio.gather(*helpers, *self._generating.values(), return_exceptions=True)
            await self._give_up(list(self._held))

    async def _tick(self) -> None:
        now = datetime.now(UTC)
        for name in await self._db(store.due_tournaments, now=now):
            try:
                await self._db(start_or_fail, tournament=name, now=now, schedule=False)
                log.info("node %s started tournament %r", self._node, name)
            except NotEnoughEntrants as exc:
                if name not in self._short_of_entrants:
                    self._short_of_entrants.add(name)
                    log.warning("tournament %r is due but waits for entrants: %s", name, exc)
            except TournamentAlreadyStarted:
                pass  # another node started it, or it failed (logged where it did)
        listed = await self._db(store.list_tournaments)
        if self._hub.watching():
            self._hub.tournaments_over({t.name: ENDS[t.status] for t in listed if t.status in ENDS})
        running = [t for t in listed if t.status is records.TournamentStatus.RUNNING]
        self._known = {t.name: t for t in running}
        owners = await self._db(store.schedule_owners)
        for t in running:
            done = owners.get(t.name, (None, 0, False))[2]
            if not done and t.name not in self._generating:
                task = asyncio.create_task(self._generate(t), name=f"schedule of {t.name}")
                task.add_done_callback(functools.partial(self._generated, t.name))
                self._generating[t.name] = task
            elif done and t.stop_rule is not None and not (t.games.scheduled or t.games.running or t.games.played):
                await self._advance(t.name)

    def _generated(self, name: str, task: asyncio.Task[None]) -> None:
        self._generating.pop(name, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("storing the schedule of %r stopped: %s; trying again at the next tick", name, task.exception())

    async def _generate(self, t: records.Tournament) -> None:
        """Store `t`'s schedule under its schedule lease, if no other node holds it."""
        fence = await self._store(
            t.name, store.take_schedule_lease, tournament=t.name, node=self._node, ttl_s=self._lease_s
        )
        if fence is None:
            return
        self._schedules[fence.tournament_id] = fence.epoch
        try:
            tables = await self._store(t.name, store.store_schedule, tournament=t.name, fence=fence)
            await self._store(t.name, store.finish_schedule_lease, fence=fence)
            log.info("node %s stored the schedule of %r (epoch %d): %d tables", self._node, t.name, fence.epoch, tables)
            self._room.set()
        except LeaseLost as exc:
            log.warning("node %s: %s", self._node, exc)
        except Exception as exc:
            if is_transient(exc):
                raise
            await self._db(fail, tournament=t.name, exc=exc, when="starting")
        finally:
            self._schedules.pop(fence.tournament_id, None)

    async def _advance(self, tournament: str) -> None:
        """Ask a stop-rule tournament's rule for its next round (idempotent: `store.advance_stop_rule`)."""
        try:
            verdict = await self._store(tournament, store.advance_stop_rule, tournament=tournament)
        except TournamentAlreadyStarted:
            return  # finished or failed meanwhile
        if verdict.outcome is not StopOutcome.PLAYING:
            log.info("tournament %r: the stop rule ends it (%s)", tournament, verdict.outcome.value)
        self._room.set()

    async def _claims(self) -> None:
        """Claim games while this node has room for them."""
        loop = asyncio.get_running_loop()
        while True:
            self._room.clear()
            free = self._capacity - len(self._held)
            self.cluster.presence.set_free(free)
            claimed = None
            if free > 0 and self._nats_up and loop.time() >= self._claims_from:
                claimed = await self._claim()
            if claimed is None:
                await wait_at_most(self._room, CLAIM_POLL_S)
                continue
            game = claimed.game
            if claimed.interrupted:
                log.warning(
                    "node %s took over game %d of %r from an expired lease: playing it again, dealt as before",
                    self._node,
                    game.id,
                    game.tournament,
                )
            self._reserved.update(game.seats)
            task = asyncio.create_task(self._play_claimed(claimed), name=f"game {game.id}")
            task.add_done_callback(functools.partial(self._ended_game, game.id))
            self._held[game.id] = _Held(claimed.lease, game.seats, task, loop.time() + self._lease_s)

    async def _claim(self) -> store.ClaimedGame | None:
        local = {c.name for c in self._hub.bots() if c.connected and self._hub.local(c.name)}
        full = {c.name for c in self._hub.bots() if c.connected and c.held + self._reserved[c.name] >= c.capacity}
        try:
            claimed = await self._db(store.claim_game, node=self._node, ttl_s=self._lease_s, prefer=local, avoid=full)
        except Exception as exc:
            if not is_transient(exc):
                raise
            if not self._outage.logged:
                self._outage.logged = True
                log.warning("node %s cannot claim games: the database is unavailable: %s", self._node, reason(exc))
            return None
        if self._outage.logged:
            self._outage.logged = False
            log.info("node %s: the database answers again", self._node)
        return claimed

    def _ended_game(self, game_id: int, task: asyncio.Task[None]) -> None:
        held = self._held.get(game_id)
        if held is not None and held.task is task:  # not a later claim of the same game
            del self._held[game_id]
        self._room.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("%s stopped: %s", task.get_name(), task.exception(), exc_info=task.exception())

    async def _play_claimed(self, claimed: store.ClaimedGame) -> None:
        """Play the claimed attempt and store it under its lease: committed, or voided back to the queue."""
        game, lease = claimed.game, claimed.lease
        try:
            t = self._known.get(game.tournament)
            if t is None:
                t = await self._store(game.tournament, store.show_tournament, tournament=game.tournament)
            policy = t.failure_policy
            self._delays[t.name] = t.spectator_delay_s
            attempt = await self._referee_game(game, game, policy.limits(t.move_limit_ms), policy.absent_wait_ms / 1000)
            bot_voids = (
                Counter(await self._store(t.name, store.voids_by_bot, tournament=t.name))
                if any(s.forfeit is not None for s in attempt.seats)
                else Counter[str]()
            )
            result = policy.judge(attempt, game.voided, bot_voids)
            held = self._held.get(game.id)
            if held is not None and held.lease == lease:
                held.storing = True
            if result.voided:
                voided = await self._store(t.name, store.void_attempt, game_id=game.id, result=result, lease=lease)
                log.warning(
                    "%s: game %d voided by the failure policy (%d so far): queued again", t.name, game.id, voided
                )
                return
            await self._store(t.name, store.mark_game_played, game_id=game.id, lease=lease)
            commit = functools.partial(self._db, store.commit_game, game_id=game.id, result=result, lease=lease)
            await retrying(
                commit,
                f"tournament {t.name!r}",
                self._outages.setdefault(t.name, Outage()),
                done_if=GameAlreadyFinished,
            )
            seats = ", ".join(f"{s.bot} {s.points}" for s in result.seats)
            log.info(
                "%s: game %d (table %d, game %d) done on node %s: %s",
                t.name,
                game.id,
                game.table_index,
                game.game_index,
                self._node,
                seats,
            )
            if t.stop_rule is not None:
                await self._advance(t.name)
        except LeaseLost as exc:
            log.warning("node %s: %s", self._node, exc)

    async def _renewals(self) -> None:
        """Renew every lease this node holds, a third of a lease apart; drop the games of the lost ones."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._lease_s / 3)
            self._drop_overdue(loop.time())
            games = {game_id: held.lease for game_id, held in self._held.items()}
            schedules = dict(self._schedules)
            if not games and not schedules:
                continue
            sent = loop.time()
            try:
                renewed, kept = await self._db(
                    store.renew_leases, games=games, ttl_s=self._lease_s, schedules=schedules
                )
            except Exception as exc:
                if not is_transient(exc):
                    raise
                continue  # the database is away: leases run out by the clock (`_drop_overdue`)
            for game_id in games:
                held = self._held.get(game_id)
                if held is None:
                    continue
                if game_id in renewed:
                    held.deadline = sent + self._lease_s
                elif held.lease == games[game_id] and not held.storing:
                    log.warning(
                        "node %s lost its lease on game %d: dropping it (another node plays it again)",
                        self._node,
                        game_id,
                    )
                    held.task.cancel()
            for tournament_id in schedules.keys() - kept:
                for name, task in self._generating.items():
                    if (t := self._known.get(name)) is not None and t.id == tournament_id:
                        task.cancel()

    def _drop_overdue(self, now: float) -> None:
        """Cancel the games whose leases ran out by this node's clock (it was stopped, or the database away)."""
        for game_id, held in list(self._held.items()):
            if now > held.deadline and not held.storing:
                log.warning("node %s: its lease on game %d ran out unrenewed: dropping it", self._node, game_id)
                held.task.cancel()

    async def _give_up(self, game_ids: list[int]) -> None:
        """Cancel these games and hand their leases back, so any node replays them at once."""
        leases = {game_id: held.lease for game_id in game_ids if (held := self._held.get(game_id)) is not None}
        tasks = [self._held[game_id].task for game_id in leases]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if leases:
            try:
                await self._db(store.release_leases, games=leases)
            except Exception as exc:  # they run out by themselves
                log.warning("node %s could not hand back %d leases: %s", self._node, len(leases), reason(exc))

    def _nats_lost(self) -> None:
        self._nats_up = False
        remote = [
            game_id for game_id, held in self._held.items() if not all(self._hub.local(bot) for bot in held.seats)
        ]
        if remote:
            log.warning("node %s lost NATS: interrupting %d games with bots on other nodes", self._node, len(remote))
            asyncio.get_running_loop().create_task(self._give_up(remote))

    def _nats_restored(self) -> None:
        self._nats_up = True
        self._claims_from = asyncio.get_running_loop().time() + PRESENCE_SETTLE_S
