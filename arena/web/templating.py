"""The Jinja2 templates of the pages and the filters they format figures with.

Autoescaping is on for every template, so a bot or tournament name is always shown as text."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from arena.web.formats import format_of

TEMPLATES = Path(__file__).parent / "templates"


NONE = "\u2013"
"""What a cell without a value shows: an en dash."""


def when(moment: datetime | None) -> str:
    """`moment` in UTC to the minute, as the terminal tables show it; NONE for none."""
    return NONE if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def figure(value: float | None, digits: int = 2) -> str:
    """A number to `digits` decimals; NONE for none (a bot that has not played)."""
    return NONE if value is None else f"{value:.{digits}f}"


def percent(value: float | None) -> str:
    """A probability as a percentage; NONE for none (the first row of a table)."""
    return NONE if value is None else f"{100 * value:.0f}%"


def make_templates() -> Jinja2Templates:
    """The templates with the arena's filters."""
    templates = Jinja2Templates(directory=TEMPLATES)
    templates.env.filters.update(when=when, figure=figure, percent=percent)
    templates.env.globals.update(format_of=format_of)
    return templates


def render(
    templates: Jinja2Templates, request: Request, name: str, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """The page `name` rendered with `context`."""
    return templates.TemplateResponse(request, name, context, status_code=status_code)
