"""The path and query parameters the pages and the API share, with their bounds: a value out of
them is answered 422 before any route runs (`errors`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query
from pydantic import BeforeValidator

from arena.names import MAX_LOOKUP_NAME, MAX_PAGE_TOKEN
from arena.page_tokens import MAX_PAGE_SIZE
from arena.records import GameStatus

GameId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the game's id, as `games list` shows it")]
"""A game's id in a path (the database's ids are 32-bit)."""
Name = Annotated[str, Path(min_length=1, max_length=MAX_LOOKUP_NAME)]
"""A bot's or tournament's name in a path."""
PageSize = Annotated[int, Query(ge=0, le=MAX_PAGE_SIZE, description="0: the default page size")]
PageToken = Annotated[str, Query(max_length=MAX_PAGE_TOKEN, description="next_page_token of the page before")]
Filter = Annotated[str | None, Query(max_length=MAX_LOOKUP_NAME), BeforeValidator(lambda v: v or None)]
StatusFilter = Annotated[GameStatus | None, Query(), BeforeValidator(lambda v: v or None)]
"""Filters of a list by name or game state; an empty value (a form's "all") is no filter."""
