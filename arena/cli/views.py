"""How `scout-arena` shows things: rich tables of tournaments, bots, ratings and games.

Times are shown in UTC, to the minute, so every reader sees the same table. Names and other stored
text are escaped (`rich.markup.escape`): a name is never read as markup, so one such as `[/]` (a
tournament from before the name rule may have it) is shown as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.play.results import ForfeitCause, PolicyDecision, SeatResult
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameInfo, SeedReveal, Tournament, VoidedAttempt
from arena.tournaments.failure_policy import FailureAction
from arena.tournaments.stop_rule import PairCheck, StopOutcome, Verdict

_ACTIONS = {
    FailureAction.FORFEIT: "forfeit the seat",
    FailureAction.VOID: "void the game and play it again",
}


def when(moment: datetime | None) -> str:
    """`moment` in UTC, to the minute (an aware time of any zone)."""
    return "-" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def progress(t: Tournament) -> str:
    """'done/total games', or what the tournament waits for, or why it failed."""
    if t.failure is not None:
        return f"failed: {escape(t.failure)}"
    if t.games.total == 0:
        return f"{len(t.entrants)} entered; the schedule is made at the start"
    return f"{t.games.finished}/{t.games.total} games"


def tournaments_table(tournaments: Sequence[Tournament]) -> Table:
    table = Table(title="Tournaments")
    for column in ("name", "status", "seats", "games/table", "starts", "entrants", "progress"):
        table.add_column(
            column,
            justify="right" if column in ("seats", "games/table", "entrants") else "left",
            no_wrap=column == "name",
        )
    for t in tournaments:
        table.add_row(
            escape(t.name),
            t.status.value,
            str(t.table_size),
            str(t.games_per_table),
            when(t.starts_at),
            str(len(t.entrants)),
            progress(t),
        )
    return table


def tournament_view(t: Tournament) -> RenderableType:
    """One tournament: its options, failure policy, entrants and progress."""
    policy = t.failure_policy
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for label, value in (
        ("tournament", t.name),
        ("status", t.status.value),
        ("table size", f"{t.table_size} seats"),
        ("games per table", str(t.games_per_table)),
        ("starts", when(t.starts_at)),
        ("started", when(t.started_at)),
        ("finished", when(t.finished_at)),
        ("move limit", f"{t.move_limit_ms} ms"),
        ("concurrency", f"{t.concurrency} games at once"),
        ("seed commitment", t.seed_commitment),
        ("seed", _secret(t.seed, "the tournament")),
        *((("seed nonce", t.seed_nonce),) if t.seed_nonce is not None else ()),
        ("format", _format(t)),
        *_stop_facts(t),
        ("entry", f"{'invite only (entry code), ' if t.invite_only else ''}at most {t.max_entrants} bots"),
        ("absent bots", f"waited for {policy.absent_wait_ms} ms"),
        ("disconnects", f"{policy.grace_ms} ms grace"),
        ("time bank", f"{policy.time_bank_ms} ms per game"),
        ("invalid answers", f"{policy.max_invalid} to one request fail the seat"),
        *((f"on {cause.value}", _ACTIONS[policy.action(cause)]) for cause in ForfeitCause),
        ("replays", f"a game is voided at most {policy.max_replays} times, then its failures forfeit"),
        ("voids per bot", f"a bot may cause {policy.max_voids_per_bot} voids, then its failures forfeit"),
        ("spectators", f"see each move {t.spectator_delay_s} s after it is played"),
        ("entrants", ", ".join(t.entrants) or "none yet"),
        ("progress", progress(t)),
    ):
        facts.add_row(label, escape(value))
    if t.games.total == 0:
        return facts
    bar = ProgressBar(total=t.games.total, completed=t.games.finished, width=40)
    played = f"{t.games.played} played (waiting to be counted in schedule order), " if t.games.played else ""
    counts = Text(f" {t.games.finished} finished, {played}{t.games.running} running, {t.games.scheduled} waiting")
    return Group(facts, _row(bar, counts))


def _format(t: Tournament) -> str:
    schedule = "full round robin" if t.rounds is None else f"{t.rounds} rounds, each bot once in every seat per round"
    if t.stop_rule is None:
        return schedule
    return f"stop rule: a {schedule} after another until settled"


_OUTCOMES = {
    StopOutcome.PLAYING: "not settled yet: playing on",
    StopOutcome.SETTLED: "settled",
    StopOutcome.CAP_REACHED: "game cap reached before it settled",
}


def _stop_facts(t: Tournament) -> list[tuple[str, str]]:
    """The stop rule's settings and, once started, its standing: rounds played, the outcome and
    each adjacent pair of the top places with its head-to-head tally."""
    rule = t.stop_rule
    if rule is None:
        return []
    places = "all places" if rule.top is None else f"the first {rule.top} places"
    equal = (
        f"neither above the other {50 + 100 * rule.margin:g}% of the time (margin {rule.margin:g})"
        if rule.margin
        else "never: every pair must be ordered"
    )
    facts = [
        ("stop rule", f"settle {places} at {rule.confidence:g} confidence, at most {rule.max_games} games"),
        ("equal bots", equal),
    ]
    verdict = t.stop
    if verdict is not None:
        facts.append(("rounds played", f"{verdict.rounds} ({verdict.games} games): {_OUTCOMES[verdict.outcome]}"))
        facts += [(f"places {place}-{place + 1}", pair_line(p)) for place, p in enumerate(verdict.pairs, start=1)]
    return facts


def pair_line(p: PairCheck) -> str:
    """One adjacent pair of a stop-rule tournament: settled, equal or open, its tally and, while
    open, about how many more games it needs."""
    tally = f"finished above {p.above}, below {p.below} in their shared games"
    if p.settled:
        return f"{p.upper} above {p.lower}: settled ({tally})"
    if p.equal:
        return f"{p.upper} and {p.lower}: equal ({tally})"
    needed = "" if p.games_needed is None else f"; about {p.games_needed} more games"
    return f"{p.upper} above {p.lower}: open ({tally}{needed})"


def _secret(seed: int | None, what: str) -> str:
    return f"secret until {what} finishes" if seed is None else str(seed)


def seeds_view(reveal: SeedReveal) -> RenderableType:
    """The organiser's view of a tournament's secret seeds: seed, nonce, commitment, attempts."""
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for label, value in (
        ("tournament", reveal.tournament),
        ("seed", str(reveal.seed)),
        ("seed nonce", reveal.seed_nonce),
        ("seed commitment", reveal.seed_commitment),
    ):
        facts.add_row(label, value)
    table = Table(title="Deal seeds (the last attempt of an unfinished game is its next)")
    for column in ("id", "table", "game", "attempt", "seed"):
        table.add_column(column, justify="right")
    for g in reveal.games:
        table.add_row(str(g.game_id), str(g.table_index + 1), str(g.game_index + 1), str(g.attempt), str(g.seed))
    return Group(facts, table)


def _row(*cells: RenderableType) -> Table:
    grid = Table.grid()
    grid.add_row(*cells)
    return grid


def bots_table(bots: Sequence[BotRecord]) -> Table:
    table = Table(title="Bots")
    table.add_column("bot", no_wrap=True)
    table.add_column("registered")
    for bot in bots:
        table.add_row(escape(bot.name), when(bot.created_at))
    return table


SHARED_WINS = "wins: a first place shared by k bots counts 1/k of a win for each"
"""The rating table's caption when some bot's wins are a fraction."""


def win_decimals(wins: Sequence[float]) -> int:
    """Decimals that show every count of wins in one column alike: 0 when all are whole, 1 when all
    are halves (two bots shared a first place), else 2."""
    for decimals in (0, 1):
        if all(abs(w * 10**decimals - round(w * 10**decimals)) < 1e-9 for w in wins):
            return decimals
    return 2


def ratings_table(rows: Sequence[RatingRow], title: str, stop: Verdict | None = None) -> RenderableType:
    """The rating table (rank by mu - 3 sigma, then mu, sigma, games, wins, averages; wins have one
    number of decimals down the column, and a caption explains them when they are fractions), and
    under it how sure each rank is: the ranks the bot could hold at 95%, the probability that the
    bot one row up is stronger, and when asked for, the bootstrap's share of the same. Two tables,
    so each fits a terminal of 80 columns; a stop-rule tournament's `stop` adds its pairs
    (`stop_table`), which say which neighbours are proven in order and which proven equal."""
    decimals = win_decimals([r.wins for r in rows])
    table = Table(title=escape(title), caption=SHARED_WINS if decimals else None)
    for column in ("#", "bot", "μ", "σ", "μ−3σ", "games", "wins", "avg pts", "avg place"):
        table.add_column(column, justify="left" if column == "bot" else "right", no_wrap=column == "bot")
    for r in rows:
        table.add_row(
            str(r.rank),
            escape(r.bot),
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"{r.conservative:.2f}",
            str(r.games),
            f"{r.wins:.{decimals}f}",
            "-" if r.average_points is None else f"{r.average_points:.1f}",
            "-" if r.average_placing is None else f"{r.average_placing:.2f}",
        )
    if stop is None:
        return Group(table, rank_confidence_table(rows))
    return Group(table, rank_confidence_table(rows), stop_table(stop))


def stop_table(verdict: Verdict) -> Table:
    """A stop-rule tournament's adjacent pairs in the rule's order: which are settled, equal or
    still open, as `tournament show` lists them."""
    table = Table(title=f"Stop rule after {verdict.rounds} rounds: {_OUTCOMES[verdict.outcome]}")
    for column in ("places", "pair", "state", "above-below", "more games"):
        table.add_column(column, justify="left" if column in ("pair", "state") else "right")
    for place, p in enumerate(verdict.pairs, start=1):
        link = "and" if p.equal and not p.settled else "above"
        needed = "" if p.games_needed is None or p.decided else f"~{p.games_needed}"
        table.add_row(
            f"{place}-{place + 1}", escape(f"{p.upper} {link} {p.lower}"), p.state, f"{p.above}-{p.below}", needed
        )
    return table


def rank_confidence_table(rows: Sequence[RatingRow]) -> Table:
    """How sure each rank of a rating table is, row by row in the table's order."""
    bootstrap = any(r.bootstrap_confidence is not None for r in rows)
    table = Table(title="How sure the ranks are", caption=_RANKS_CAPTION + (_BOOTSTRAP_CAPTION if bootstrap else ""))
    for column in ("#", "bot", "rank 95%", "P(above stronger)", *(("bootstrap",) if bootstrap else ())):
        table.add_column(column, justify="left" if column == "bot" else "right", no_wrap=column == "bot")
    for r in rows:
        table.add_row(
            str(r.rank),
            escape(r.bot),
            _interval(r),
            _share(r.confidence),
            *((_share(r.bootstrap_confidence),) if bootstrap else ()),
        )
    return table


_RANKS_CAPTION = (
    "rank 95%: the ranks the bot holds in 95% of draws of every bot's skill from its rating; "
    "P(above stronger): the probability that the bot one row up is stronger than this one"
)
_BOOTSTRAP_CAPTION = "; bootstrap: the share of resampled game lists in which the bot one row up comes out ahead"


def _interval(r: RatingRow) -> str:
    if r.rank_low is None or r.rank_high is None:
        return "-"
    return str(r.rank_low) if r.rank_low == r.rank_high else f"{r.rank_low}–{r.rank_high}"


def _share(p: float | None) -> str:
    """A probability to two places, but never rounded to a certainty it is not."""
    if p is None:
        return "-"
    if p > 0.995 and p < 1:
        return ">0.99"
    if 0 < p < 0.005:
        return "<0.01"
    return f"{p:.2f}"


SIGNIFICANT = 0.05
"""A crosstable cell is bold below this sign-test p-value."""


def crosstable_view(rows: Sequence[RatingRow], table: Crosstable, title: str) -> RenderableType:
    """The crosstable of the bots that shared games, in rating-table order: each cell is the row
    bot's above-below(-ties) record against the column bot (bold where the sign test gives p < 0.05),
    then every pair's games, mean point difference and p-value.

    Numbers are never cut to fit a narrow terminal: their columns keep their width and long bot names
    fold onto a second line instead; a matrix too wide to show whole gives way to a line saying so,
    since the pairs below it hold the same records."""
    if not table.pairs:
        return Text(f"{title}: no games finished yet, so no head-to-head records.")
    played = set(table.bots)
    order = [r.bot for r in rows if r.bot in played]
    order += sorted(played.difference(order))  # none in a table read with its crosstable; kept if one is
    too_wide = f"{title}: the crosstable of {len(order)} bots is wider than this terminal; each pair's record is below."
    return Group(_WhenItFits(_matrix(order, table, title), Text(too_wide)), _pairs(order, table))


def _matrix(order: Sequence[str], table: Crosstable, title: str) -> Table:
    grid = table.grid()
    cells: list[list[str]] = []
    for bot in order:
        row = []
        for other in order:
            record = grid.get((bot, other))
            if bot == other or record is None:
                row.append("·" if bot == other else "-")
                continue
            text = f"{record.above}-{record.below}" + (f"-{record.ties}" if record.ties else "")
            row.append(f"[bold]{text}[/]" if record.p_value < SIGNIFICANT else text)
        cells.append(row)
    matrix = Table(
        title=escape(title),
        caption="a cell: games the row's bot finished above-below(-tied) the "
        "column's; bold: p < 0.05 (two-sided sign test, ties left out)",
    )
    matrix.add_column("#", justify="right", no_wrap=True)
    matrix.add_column("bot", no_wrap=True)
    for i in range(len(order)):
        matrix.add_column(str(i + 1), justify="center", width=_widest([str(i + 1)] + [r[i] for r in cells]))
    for i, (bot, row) in enumerate(zip(order, cells, strict=True)):
        matrix.add_row(str(i + 1), escape(bot), *row)
    return matrix


def _pairs(order: Sequence[str], table: Crosstable) -> Table:
    place = {bot: i for i, bot in enumerate(order)}
    lines = [
        (
            p.bot,
            p.other,
            str(p.games),
            str(p.above),
            str(p.below),
            str(p.ties),
            f"{p.point_difference:+.1f}",
            _p_value(p.p_value),
        )
        for p in sorted(
            (p if place[p.bot] < place[p.other] else p.flipped() for p in table.pairs),
            key=lambda p: (place[p.bot], place[p.other]),
        )
    ]
    pairs = Table(
        title="Head to head",
        caption="diff: the bot's mean points minus the other's in the games they "
        "shared; p: two-sided sign test of above against below",
    )
    for i, column in enumerate(("bot", "other", "games", "above", "below", "tied", "diff", "p")):
        if column in ("bot", "other"):
            pairs.add_column(column, overflow="fold")
        else:
            pairs.add_column(column, justify="right", width=_widest([column] + [line[i] for line in lines]))
    for line in lines:
        pairs.add_row(escape(line[0]), escape(line[1]), *line[2:])
    return pairs


def _widest(texts: Sequence[str]) -> int:
    """The width of a column that must never be cut: its widest cell, markup left out."""
    return max(Text.from_markup(t).cell_len for t in texts)


@dataclass(frozen=True)
class _WhenItFits:
    """`table` where it fits whole, `instead` where rich would have to cut its cells."""

    table: Table
    instead: Text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fits = Measurement.get(console, options.update(width=_UNBOUNDED), self.table).maximum <= options.max_width
        yield self.table if fits else self.instead


_UNBOUNDED = 10_000
"""Wide enough to measure any table at its natural width."""


def _p_value(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def games_table(games: Sequence[GameInfo]) -> Table:
    table = Table(title="Games")
    for column in ("id", "tournament", "table", "game", "status", "seats: points (rank)"):
        table.add_column(
            column,
            justify="right" if column in ("id", "table", "game") else "left",
            no_wrap=column != "seats: points (rank)",
        )
    for g in games:
        if g.results:
            seats = ", ".join(f"{s.bot}: {s.points} ({s.rank}{_forfeit(s)})" for s in g.results)
        else:
            seats = ", ".join(g.seats)
        table.add_row(
            str(g.id),
            escape(g.tournament),
            str(g.table_index + 1),
            str(g.game_index + 1),
            g.status.value,
            escape(seats),
        )
    return table


def _forfeit(s: SeatResult) -> str:
    """', forfeit' with its cause and, when it was not a plain forfeit, the policy's decision."""
    if s.cause is None:
        return ""
    decision = "" if s.policy is None or s.policy is PolicyDecision.FORFEIT else f", {s.policy.value}"
    return f", forfeit: {s.cause.value}{decision}"


def game_header(g: GameInfo) -> str:
    retried = f", played {g.attempts} times (the others were interrupted or voided)" if g.attempts > 1 else ""
    return (
        f"Game {g.id}: tournament {g.tournament}, table {g.table_index + 1}, game {g.game_index + 1}, "
        f"seed {_secret(g.seed, 'the game')}, {len(g.seats)} players: {', '.join(g.seats)}{retried}"
    )


def voided_lines(voided: Sequence[VoidedAttempt]) -> list[str]:
    """One line per attempt the failure policy voided: when, and who failed how."""
    return [
        f"Attempt {v.attempt} (seed {v.seed}) voided {when(v.voided_at)}: "
        + "; ".join(
            f"{s.bot} (seat {s.seat}) {s.forfeit} [{s.policy.value if s.policy else '-'}]"
            for s in v.result.seats
            if s.forfeit is not None
        )
        for v in voided
    ]
