"""Client strings: the one name rule, the length caps, and how a client's text is shown.

Every name a client chooses (a bot's, a tournament's, a Hello's program name) follows NAME_RULE,
so a name fits a log line, a terminal table and a command line without quoting. Every other
string a client sends has a cap (`arena.api.boundary` applies them to every request), and whatever
of it reaches a log line or an error message goes through `shown`: escaped and short, so a client
can neither forge a log line, drive an operator's terminal, nor make the arena echo a 60 kB
string back.
"""

from __future__ import annotations

import re

from arena.errors import InvalidName

MAX_NAME = 40
NAME_PATTERN = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_NAME - 1}}}")
NAME_RULE = "1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit"
"""Bots and tournaments are created under such names; a Hello's bot_name is one, or empty."""

MAX_LOOKUP_NAME = 64
"""Longest name a lookup may give: tournaments created before NAME_RULE (any 1 to 64 printable
characters) keep their names and stay addressable."""

MAX_VERSION = 40
VERSION_PATTERN = re.compile(rf"[A-Za-z0-9.+_-]{{0,{MAX_VERSION}}}")
VERSION_RULE = "at most 40 letters, digits, '.', '+', '_' or '-' (such as 1.2.0-rc.1+build.5)"
"""A Hello's bot_version: empty, or a version string without spaces."""

MAX_GAME_ID = 64
"""Game ids are the arena's own (16 or so characters): a Decision naming a longer one is malformed."""
MAX_PAGE_TOKEN = 256
MAX_ENTRY_CODE = 128

SHOWN_PREFIX = 24
"""How much of an over-long string `shown` keeps."""


def check_name(name: str, what: str = "bot") -> None:
    """Raise InvalidName unless `name` follows NAME_RULE; `what` names the thing ('tournament')."""
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidName(f"invalid {what} name {shown(name)}: use {NAME_RULE}")


def shown(value: str) -> str:
    """`value` as a log line or an error message may quote it: Python's repr, which escapes
    control characters, terminal escapes and line breaks, of up to MAX_LOOKUP_NAME characters (any
    name); a longer one is cut to its first SHOWN_PREFIX and says how long it was.

    >>> shown("cup"), shown("a\\nb\\x1b[2J")
    ("'cup'", "'a\\\\nb\\\\x1b[2J'")
    >>> shown("x" * 60_000)
    "'xxxxxxxxxxxxxxxxxxxxxxxx'… (60000 characters)"
    """
    if len(value) <= MAX_LOOKUP_NAME:
        return repr(value)
    return f"{value[:SHOWN_PREFIX]!r}… ({len(value)} characters)"
