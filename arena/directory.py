"""Who may connect as which bot: registration hands out a token, authentication maps it back.

`BotDirectory` is the whole interface the server needs; `InMemoryBotDirectory` serves tests and
single-process arenas, and a database-backed directory implements the same two methods. Only a
hash of each token is kept: tokens are 256 random bits, so one SHA-256 is enough (no slow KDF
needed against guessing), and a leaked directory does not leak credentials.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

from arena.names import check_name, shown


class NameTaken(ValueError):
    """Another bot is registered under that name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the bot name {shown(name)} is taken: choose another")


class BotDirectory(Protocol):
    """Bot registration and token checks; async so an implementation may use a database."""

    async def register(self, name: str) -> str:
        """Register `name` and return its new token; `arena.errors.InvalidName` (the name breaks
        `arena.names.NAME_RULE`) or NameTaken otherwise."""
        ...

    async def authenticate(self, token: str) -> str | None:
        """The name of the bot that owns `token`, or None if no bot does."""
        ...


def new_token() -> str:
    """A fresh secret token: 256 random bits as hex (never starts with '-', so it is safe as a
    command-line argument)."""
    return secrets.token_hex(32)


def token_hash(token: str) -> str:
    """What a directory stores in place of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


class InMemoryBotDirectory:
    """A BotDirectory held in a dict: gone when the process ends."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        """token hash -> bot name"""
        self._taken: set[str] = set()

    async def register(self, name: str) -> str:
        check_name(name)
        if name in self._taken:
            raise NameTaken(name)
        token = new_token()
        self._names[token_hash(token)] = name
        self._taken.add(name)
        return token

    async def authenticate(self, token: str) -> str | None:
        return self._names.get(token_hash(token))
