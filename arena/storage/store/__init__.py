"""Everything the arena keeps: bots, tournaments, the schedule, games, results and ratings.

Every function is keyword-only, takes the `Session` to work in, commits its own transaction (or
rolls it back and raises a specific `arena.errors.ArenaError`; a start commits several short ones,
`start_tournament`), and returns frozen read models
(`arena.records`), never table rows. `now` parameters default to the current UTC time; pass an
aware datetime. One module per area: `bots`, `tournaments`, `games`, `ratings`, `leases` (a cluster's
claims); `common` holds what they share.

Concurrency: state changes start with a conditional UPDATE that claims the row ("scheduled ->
running", "running -> finished"), so two callers can never both succeed, and it is the first
statement of its transaction, so SQLite takes its write lock (waiting out the busy timeout) before
reading anything. On PostgreSQL, `commit_game` also locks the tournament row and the rating rows
it updates (in id order), so concurrent commits neither lose an update nor deadlock, and its
`commit_seq` numbers games in the order their ratings were applied: `recompute_ratings` replays
that order.
"""

from arena.storage.store.bots import authenticate, list_bots, register_bot
from arena.storage.store.games import (
    commit_game,
    list_games,
    mark_game_played,
    mark_game_running,
    next_games,
    reveal_seeds,
    show_game,
    void_attempt,
    void_interrupted_games,
    voids_by_bot,
)
from arena.storage.store.leases import (
    ClaimedGame,
    ScheduleFence,
    claim_game,
    finish_schedule_lease,
    release_leases,
    renew_leases,
    schedule_owners,
    take_schedule_lease,
)
from arena.storage.store.ratings import head_to_head, played_games, rating_table, recompute_ratings
from arena.storage.store.tournaments import (
    MAX_FAILURE_LENGTH,
    advance_stop_rule,
    close_entries,
    create_tournament,
    due_tournaments,
    enter_tournament,
    fail_tournament,
    list_tournaments,
    show_schedule,
    show_tournament,
    start_tournament,
    store_schedule,
)

__all__ = [
    "MAX_FAILURE_LENGTH",
    "ClaimedGame",
    "ScheduleFence",
    "advance_stop_rule",
    "authenticate",
    "claim_game",
    "close_entries",
    "commit_game",
    "create_tournament",
    "due_tournaments",
    "enter_tournament",
    "fail_tournament",
    "finish_schedule_lease",
    "head_to_head",
    "list_bots",
    "list_games",
    "list_tournaments",
    "mark_game_played",
    "mark_game_running",
    "next_games",
    "played_games",
    "rating_table",
    "recompute_ratings",
    "register_bot",
    "release_leases",
    "renew_leases",
    "reveal_seeds",
    "schedule_owners",
    "show_game",
    "show_schedule",
    "show_tournament",
    "start_tournament",
    "store_schedule",
    "take_schedule_lease",
    "void_attempt",
    "void_interrupted_games",
    "voids_by_bot",
]
