"""Reading the README and the docs: fenced code blocks, shell commands, and parsing a command line
against a Typer app without running it."""

from __future__ import annotations

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


@dataclass(frozen=True)
class Block:
    """One fenced code block and the heading it sits under."""

    lang: str
    text: str
    section: str


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
    for match in _FENCE.finditer(text):
        headings = _HEADING.findall(text, 0, match.start())
        found.append(Block(match.group(1), match.group(2), headings[-1] if headings else ""))
    return found


def commands(path: Path = README) -> list[Command]:
    """Every command line of the bash blocks, in order; continuation lines joined, comments dropped."""
    found = []
    for block in blocks(path):
        if block.lang not in ("bash", "sh", "shell", "console"):
            continue
        for line in block.text.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line and not line.startswith("#"):
                found.append(Command(line, block.section))
    return found


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

    command = get_command(app)
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


def envvars(app: typer.Typer) -> set[str]:
    """Every environment variable any option of any command of `app` reads."""
    found: set[str] = set()

    def walk(command: Any) -> None:
        for param in command.params:
            value = getattr(param, "envvar", None)
            if isinstance(value, str):
                found.add(value)
            elif value:
                found.update(value)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(get_command(app))
    return found
