"""The environment variables of `scout-bot` and `scout-arena`: one scheme for both.

Every variable is `SCOUT_ARENA_*`, and one thing has one name in both programs (the arena's
address is SCOUT_ARENA_SERVER whether `scout-arena` or a bot connects to it). The table, with what
each stands for, is in docs/operator-guide.md ("Environment variables") and docs/bot-guide.md.

`scout-bot`'s names from before the scheme (`DEPRECATED`) are still read, after the new name, and
a value taken from one prints a one-line warning naming its replacement (`warn_if_deprecated`, an
option callback). They will be dropped in a later release.
"""

from __future__ import annotations

import os
from typing import Any

import typer

SERVER = "SCOUT_ARENA_SERVER"
"""The arena's HOST:PORT (`scout-arena --server`, `scout-bot run --target`)."""
ADMIN_TOKEN = "SCOUT_ARENA_ADMIN_TOKEN"
"""The organiser's token (`scout-arena --admin-token`, `serve --admin-token`)."""
BOT_TOKEN = "SCOUT_ARENA_BOT_TOKEN"
"""A bot's token (`scout-bot run --token`)."""
TOKENS = "SCOUT_ARENA_TOKENS"
"""The file where `scout-bot run` saves the tokens of the bots it registers (`sdk.tokens`)."""
ENTRY_CODE = "SCOUT_ARENA_ENTRY_CODE"
"""The entry code of an invite-only tournament (`scout-bot run --entry-code`)."""
TLS = "SCOUT_ARENA_TLS"
"""Connect with TLS, trusting the system's CAs (`--tls`; 1 or true)."""
TLS_CA = "SCOUT_ARENA_TLS_CA"
"""Connect with TLS, trusting only this PEM file's CAs (`--tls-ca`)."""
TLS_SERVER_NAME = "SCOUT_ARENA_TLS_SERVER_NAME"
"""The name to expect in the arena's certificate (`--tls-server-name`)."""
TLS_CERT = "SCOUT_ARENA_TLS_CERT"
"""The certificate `scout-arena serve` serves TLS with (`--tls-cert`)."""
TLS_KEY = "SCOUT_ARENA_TLS_KEY"
"""Its private key (`serve --tls-key`)."""
HTTP_PORT = "SCOUT_ARENA_HTTP_PORT"
"""The port of the arena's web pages (`scout-arena serve --http-port`, `demo --http-port`; 0: a free one)."""

DEPRECATED = {
    "SCOUT_TARGET": SERVER,
    "SCOUT_TOKEN": BOT_TOKEN,
    "SCOUT_ENTRY_CODE": ENTRY_CODE,
    "SCOUT_TLS": TLS,
    "SCOUT_TLS_CA": TLS_CA,
    "SCOUT_TLS_SERVER_NAME": TLS_SERVER_NAME,
}
"""Old name -> its replacement: the names `scout-bot` read before one scheme covered both programs."""


def names(variable: str) -> list[str]:
    """`variable` and the deprecated names it replaces, in the order they are read (an option's `envvar`)."""
    return [variable, *(old for old, new in DEPRECATED.items() if new == variable)]


def warn_if_deprecated(ctx: typer.Context, param: Any, value: Any) -> Any:
    """An option callback: if the value came from a deprecated variable, say which one replaces it."""
    source = ctx.get_parameter_source(param.name)
    if source is not None and source.name == "ENVIRONMENT" and not os.environ.get(param.envvar[0]):
        used = next((name for name in param.envvar[1:] if os.environ.get(name)), None)
        if used is not None:
            typer.echo(f"warning: {used} is deprecated and will stop working: set {DEPRECATED[used]} instead", err=True)
    return value
