"""A bot author's "submit": enter a bot in a tournament and play its games until the tournament ends.

    scout-bot run my_bot.py --tournament friday --target arena.example:50051 [--entry-code CODE]

`bot_token` finds the bot's token: the one given, else the one saved for this arena and name
(`sdk.tokens`), else it registers the name and saves the new token. `play_tournament` enters the
tournament (entering again is fine, so a restarted bot simply carries on), plays every game the
arena gives the bot (`sdk.runner.play_until_over_async`), and stops once the tournament has finished
(or failed), which the arena says on the bot's stream (TournamentOver); an arena restart is ridden
out like the runner's reconnects.
"""

from __future__ import annotations

import logging

from .bot import Bot
from .runner import ask_any, play_until_over_async, register, run_until_signal
from .tls import ClientTls
from .tokens import save_token, saved_token
from .wire.arena_client import ENTER_TOURNAMENT

log = logging.getLogger(__name__)

CALL_TIMEOUT_S = 10.0
ENDED = ("finished", "failed")
"""Statuses after which a tournament plays no more games."""


def bot_token(
    name: str,
    target: str,
    token: str | None = None,
    tls: ClientTls | None = None,
    *,
    arena: str | None = None,
    afresh: bool = False,
) -> tuple[str, bool]:
    """(the bot's token, whether it was registered just now). `arena` is the key the arena's
    tokens are saved under (`sdk.reach.arena_key_async`; default `target`); a token saved under
    `target` by an older SDK is found too, and saved under `arena` from then on. `afresh`
    registers even if a token is saved, replacing it. Raises ArenaRefused if registering fails (a
    taken name, say) and `sdk.tokens.TokenFileError` if the token file is unusable."""
    if token:
        return token, False
    arena = arena or target
    if not afresh:
        saved = saved_token(arena, name)
        if saved is None and arena != target and (saved := saved_token(target, name)) is not None:
            save_token(arena, name, saved)
        if saved is not None:
            return saved, False
    token = register(name, target=target, tls=tls)
    save_token(arena, name, token)
    return token, True


async def play_tournament_async(
    bot: Bot,
    *,
    target: str,
    token: str,
    tournament: str,
    capacity: int = 4,
    tls: ClientTls | None = None,
    entry_code: str | None = None,
) -> str:
    """Enter `tournament` (with its `entry_code`, if invite-only), then play until it ends; returns
    its status then ('finished' or 'failed').

    Raises ArenaRefused if the arena refuses the entry (unknown tournament or token, entries
    closed, the tournament full, a missing or wrong entry code) or the bot's session.
    """
    auth = (("authorization", f"Bearer {token}"),)
    entry = await ask_any(
        target,
        tls,
        lambda stub: ENTER_TOURNAMENT.ask(
            stub, tournament=tournament, entry_code=entry_code, metadata=auth, timeout=CALL_TIMEOUT_S
        ),
    )
    log.info("%s is entered in tournament %r (%s)", entry.bot, tournament, entry.status)
    if entry.status in ENDED:
        return entry.status
    end = await play_until_over_async(
        bot, target=target, token=token, tournament=tournament, capacity=capacity, tls=tls
    )
    return end.value


def play_tournament(
    bot: Bot,
    *,
    target: str,
    token: str,
    tournament: str,
    capacity: int = 4,
    tls: ClientTls | None = None,
    entry_code: str | None = None,
) -> str:
    """The blocking form of `play_tournament_async`; SIGINT or SIGTERM stops it ('stopped')."""
    return run_until_signal(
        play_tournament_async(
            bot, target=target, token=token, tournament=tournament, capacity=capacity, tls=tls, entry_code=entry_code
        ),
        stopped="stopped",
    )
