"""Two fixes to what both command-line programs (`scout-bot`, `scout-arena`) print about options.

Typer 0.29's rich help writes a value type beside every option, flags included, so `--tls <bool>`
and `--help <bool>` read as if the flag took a value; its plain-text help knows better
(`TyperOption.get_help_record` writes no type for a flag). And an option read from several
environment variables (a current name, then deprecated ones: `sdk.env`) is named in a usage
error as the Python list of them. `fix_option_texts` makes the rich help show no type beside a
flag, and a usage error name the option's current variable only. `tests/cli/test_help.py` reads
every command's help, so a Typer that renders these another way is noticed.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperOption

_typed = TyperOption.display_type_rich


def _type_unless_flag(option: TyperOption, ctx: Any) -> str | None:
    """An option's type as the help shows it: none for a flag, which takes no value."""
    return None if option.is_flag else _typed(option, ctx)


def _error_hint(option: TyperOption) -> str:
    """How a usage error names an option: its flags, and the variable that may stand in for it."""
    hint = " / ".join(f"'{name}'" for name in option.opts or [option.display_name_raw])
    if option.show_envvar and option.envvar:
        variable = option.envvar if isinstance(option.envvar, str) else option.envvar[0]
        hint += f" (env var: '{variable}')"
    return hint


def fix_option_texts() -> None:
    """Apply both fixes to every Typer command of this process (idempotent)."""
    TyperOption.display_type_rich = _type_unless_flag  # type: ignore[method-assign, assignment]
    TyperOption.get_error_hint = _error_hint  # type: ignore[method-assign, assignment]
