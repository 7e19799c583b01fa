"""Reading the README and the docs: fenced code blocks, shell commands, and parsing a command line
against a Typer app without running it."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup
from typer.main import get_command

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FIRST_BOT = ROOT / "docs" / "examples" / "first_bot.py"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
_SAVE_AS = re.compile(r"[Ss]ave (?:this|it) as `([^`]+)`")


@dataclass(frozen=True)
class Block:
    """One fenced code block and the heading it sits under."""

    lang: str
    text: str
    section: str
    saved_as: str | None = None
    """The file the prose just before the block tells the reader to save it as ("Save this as `x.py`")."""


@dataclass(frozen=True)
class Command:
    """One shell command of a bash block, split into words as the shell would (no expansion)."""

    line: str
    section: str

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.line)

    def __str__(self) -> str:
        return self.line


def blocks(path: Path = README) -> list[Block]:
    text = path.read_text()
    found = []
    prose_start = 0
    for match in _FENCE.finditer(text):
        headings = _HEADING.findall(text, 0, match.start())
        saved = _SAVE_AS.findall(text, prose_start, match.start())
        found.append(
            Block(match.group(1), match.group(2), headings[-1] if headings else "", saved[-1] if saved else None)
        )
        prose_start = match.end()
    return found


def commands(path: Path = README) -> list[Command]:
    """Every command line of the bash blocks, in order; continuation lines joined, comments dropped."""
    return [command for block in blocks(path) for command in commands_of(block)]


def commands_of(block: Block) -> list[Command]:
    """The command lines of a shell block (none for another language)."""
    if block.lang not in ("bash", "sh", "shell", "console"):
        return []
    found = []
    for line in block.text.replace("\\\n", " ").splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            found.append(Command(line, block.section))
    return found


@functools.cache
def _command(app: typer.Typer) -> Any:
    """The Click command of `app`, built once (building it walks every option of every command)."""
    return get_command(app)


class NoSuchOption(Exception):
    """A command line names an option its command does not have."""

    def __init__(self, path: str, option: str) -> None:
        super().__init__(f"{path} has no option {option}")
        self.path = path
        self.option = option


def parse(app: typer.Typer, prog: str, args: list[str]) -> tuple[str, Any]:
    """Parse `args` as `app` would, down to the leaf command, without invoking anything.

    Returns the command path ("scout-arena tournament create") and the leaf's parsed context; raises
    NoSuchOption for an option the command lacks and the Typer/Click usage error for anything else.
    """
    from typer._click import exceptions

    command = _command(app)
    path = [prog]
    try:
        ctx = command.make_context(prog, list(args))
        while isinstance(command, TyperGroup):
            rest = [*ctx._protected_args, *ctx.args]
            name, sub, rest = command.resolve_command(ctx, rest)
            assert sub is not None and name is not None
            path.append(name)
            command = sub
            ctx = command.make_context(name, rest, parent=ctx)
    except exceptions.NoSuchOption as exc:
        raise NoSuchOption(" ".join(path), exc.option_name) from exc
    return " ".join(path), ctx


def option_names(app: typer.Typer, path: list[str]) -> Iterator[str]:
    """Every option spelling of the command at `path` (subcommand names below the program)."""
    command: Any = get_command(app)
    for name in path:
        command = command.commands[name]
    for param in command.params:
        yield from getattr(param, "opts", ())


def _names(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    return set(value or ())


def option_envvars(app: typer.Typer, option: str) -> set[str]:
    """The environment variables that the option spelt `option` reads, in any command of `app`."""
    found: set[str] = set()

    def walk(command: Any) -> None:
        for param in command.params:
            if option in getattr(param, "opts", ()):
                found.update(_names(getattr(param, "envvar", None)))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(get_command(app))
    return found


def envvars(app: typer.Typer) -> set[str]:
    """Every environment variable any option of any command of `app` reads."""
    found: set[str] = set()

    def walk(command: Any) -> None:
        for param in command.params:
            found.update(_names(getattr(param, "envvar", None)))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(get_command(app))
    return found
