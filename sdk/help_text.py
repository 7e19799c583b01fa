"""One fix to the help of both command-line programs (`scout-bot`, `scout-arena`).

Typer 0.29's rich help writes a value type beside every option, flags included, so `--tls <bool>`
and `--help <bool>` read as if the flag took a value. Its plain-text help knows better
(`TyperOption.get_help_record` writes no type for a flag): `hide_flag_types` makes the rich help
agree. `tests/cli/test_help.py` reads every command's help, so a Typer that renders flags another
way is noticed.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperOption

_typed = TyperOption.display_type_rich


def _type_unless_flag(option: TyperOption, ctx: Any) -> str | None:
    """An option's type as the help shows it: none for a flag, which takes no value."""
    return None if option.is_flag else _typed(option, ctx)


def hide_flag_types() -> None:
    """Show no type beside flags in every rich help of this process (idempotent)."""
    TyperOption.display_type_rich = _type_unless_flag  # type: ignore[method-assign, assignment]
