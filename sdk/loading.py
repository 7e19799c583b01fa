"""Find a bot from a command-line argument: a file, a module, or either with a name after ':'.

>>> load_bot("bots.greedy:GreedyBot").name
'GreedyBot'

Accepted forms:

* ``path/to/bot.py`` or ``package.module``: the module's ``bot`` attribute (a Bot instance or
  subclass) if it has one, else its ``Bot`` attribute if that is a subclass of its own, else the
  one concrete `Bot` subclass the module defines;
* ``path/to/bot.py:Name`` or ``package.module:Name``: that attribute.

Any of them may end in constructor options, ``my_bot.py(depth=3,greedy=true)``, which are passed
to the class as keyword arguments (``parse_value`` says how values are read); so may be given apart
(`load_bot`'s `args`, the CLI's ``--bot-arg``). A class whose constructor takes ``seed`` is given
the caller's seed unless an option sets it. Every failure is a `BotLoadError` whose message says
what to fix, in one line.

>>> load_bot("bots.random_bot(seed=3)")._rng.random() == load_bot("bots.random_bot", seed=3)._rng.random()
True
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from .bot import Bot

BotArgs = Mapping[str, object]
"""Keyword arguments for a bot's constructor."""
BotMaker = Callable[[int | None], Bot]
"""Makes a fresh bot, given the seed to pass to a constructor that takes one."""

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


class BotLoadError(ValueError):
    """The bot could not be found or created; the message says why, in one line."""


EXAMPLE_GROUP = "scout_arena.bots"
"""The entry-point group of bots offered by a short name: this project's examples, and any a
package installs (``[project.entry-points."scout_arena.bots"] mybot = "mypackage.bot:MyBot"``).
pyproject.toml's entries in it are the one list of the example bots."""
EXAMPLE_PACKAGE = "bots"
"""The package of this project's example bots: its entries in `EXAMPLE_GROUP` are `own_examples`."""
SEARCH_OPTION = "move_time"
"""The constructor option of a bot that searches for as long as it is given (`searches`)."""


def example_bots() -> dict[str, str]:
    """Short bot names and the ``module:Class`` each stands for, from `EXAMPLE_GROUP`; so the SDK
    finds the example bots without importing them. Empty only in an install made before the
    entry points were (reinstall it: ``pip install -e .``)."""
    return {entry.name: entry.value for entry in entry_points(group=EXAMPLE_GROUP)}


def own_examples() -> dict[str, str]:
    """This project's example bots among `example_bots`: those of the `EXAMPLE_PACKAGE` package."""
    return {name: spec for name, spec in example_bots().items() if spec.split(".")[0] == EXAMPLE_PACKAGE}


def searches(spec: str) -> bool:
    """Whether the bot `spec` names searches for a given time, taking the `SEARCH_OPTION`; this
    imports its module."""
    found, _ = find_bot(spec)
    params = _parameters(found) if inspect.isclass(found) else []
    return params is not None and SEARCH_OPTION in params


def load_bot(spec: str, args: BotArgs | None = None, seed: int | None = None) -> Bot:
    """A ready Bot instance from ``file.py``, ``module``, ``file.py:Name`` or ``module:Name``,
    optionally ending in ``(key=value,...)``; `args` adds constructor options."""
    return bot_maker(spec, args)(seed)


def bot_maker(spec: str, args: BotArgs | None = None) -> BotMaker:
    """What `load_bot` would create, found and checked once (the file runs once) and made anew on
    each call: several seats, or games, each get their own instance."""
    where, options = split_bot_spec(spec)
    options = merge_args(options, args or {}, spec)
    found, label = find_bot(where)
    check_args(found, options, label)
    return lambda seed: create_bot(found, options, seed)


def find_bot(spec: str) -> tuple[object, str]:
    """The Bot class or instance `spec` (without options) names, and its label for messages."""
    where, _, name = spec.rpartition(":") if _names_attribute(spec) else (spec, "", "")
    module = _load_file(Path(where)) if _is_path(where) else _load_module(where)
    if name:
        if not hasattr(module, name):
            raise BotLoadError(f"{where} has no attribute {name!r}")
        found, label = getattr(module, name), f"{where}:{name}"
    else:
        found, label = _pick(module, where), where
    if not isinstance(found, Bot) and not (inspect.isclass(found) and issubclass(found, Bot)):
        raise BotLoadError(f"{label} is {type(found).__name__}, not a Bot subclass or instance")
    return found, label


def check_args(found: object, args: BotArgs, label: str) -> None:
    """Refuse options the bot cannot take, naming the ones it can."""
    if not args:
        return
    if isinstance(found, Bot):
        raise BotLoadError(
            f"{label} is a ready Bot instance, which takes no options; name its class as {label}:ClassName"
        )
    assert inspect.isclass(found)
    params = _parameters(found)
    if params is None:
        return
    unknown = [key for key in args if key not in params]
    if unknown:
        takes = f"it takes {', '.join(params)}" if params else "it takes none"
        raise BotLoadError(f"{found.__name__}() takes no option {unknown[0]!r} ({takes})")


def create_bot(found: object, args: BotArgs, seed: int | None = None) -> Bot:
    """An instance: `found` itself, or the class called with `args` (and `seed`, if it takes one
    and `args` does not set it)."""
    if isinstance(found, Bot):
        return found
    assert inspect.isclass(found) and issubclass(found, Bot)
    params = _parameters(found)
    options = dict(args)
    if seed is not None and "seed" not in options and params is not None and "seed" in params:
        options["seed"] = seed
    try:
        return found(**options)
    except Exception as exc:
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        raise BotLoadError(f"cannot create {found.__name__}({shown}): {type(exc).__name__}: {exc}") from None


def _parameters(cls: type) -> list[str] | None:
    """The keyword parameters of `cls`'s constructor; None when it takes any (``**kwargs``)."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return []
    names = []
    for param in signature.parameters.values():
        if param.kind is param.VAR_KEYWORD:
            return None
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            names.append(param.name)
    return names


def parse_value(text: str) -> object:
    """A command-line option value: ``true``/``false`` a bool, ``none`` None (any case), an
    integer an int, a decimal (``0.5``, ``1e-3``) a float, anything else a str; quotes
    (``'3'``, ``"true"``) keep it a str.

    >>> [parse_value(t) for t in ("3", "-0.5", "True", "none", "fast", "'3'")]
    [3, -0.5, True, None, 'fast', '3']
    """
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def parse_bot_arg(text: str) -> tuple[str, object]:
    """``key=value`` as (key, parsed value); a BotLoadError says what is wrong with it."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise BotLoadError(f"bot option {text!r} is not KEY=VALUE with KEY a Python name (e.g. depth=3)")
    return key, parse_value(value.strip())


def split_bot_spec(text: str) -> tuple[str, dict[str, object]]:
    """``spec(key=value,...)`` as (spec, options); a spec without parentheses has none."""
    text = text.strip()
    if not text.endswith(")"):
        return text, {}
    opening = text.rfind("(")  # options hold no parentheses; a path may
    if opening <= 0:
        raise BotLoadError(f"{text!r} ends in ')' but has no BOT(key=value,...) before it")
    options: dict[str, object] = {}
    for item in text[opening + 1 : -1].split(","):
        if item.strip():
            options = merge_args(options, dict([parse_bot_arg(item)]), text)
    return text[:opening], options


def merge_args(first: BotArgs, more: BotArgs, label: str) -> dict[str, object]:
    """Both sets of options; a key given twice is a mistake, not an override."""
    twice = sorted(set(first) & set(more))
    if twice:
        raise BotLoadError(f"bot option {twice[0]!r} is given twice for {label}")
    return {**first, **more}


def split_bot_list(text: str) -> list[str]:
    """A comma-separated list of bot specs, commas inside ``(...)`` belonging to their options.

    >>> split_bot_list("greedy, my_bot.py(depth=3,fast=true),random")
    ['greedy', 'my_bot.py(depth=3,fast=true)', 'random']
    """
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def _names_attribute(spec: str) -> bool:
    """True when `spec` ends in ':Name' (and the colon is not a Windows drive letter)."""
    head, sep, tail = spec.rpartition(":")
    return bool(sep) and tail.isidentifier() and len(head) > 1


def _is_path(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where or Path(where).is_file()


def _load_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise BotLoadError(f"no such file: {path}")
    module_name = f"_scout_bot_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {path} as Python source")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so the bot can import its own helper modules
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise BotLoadError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:
        del sys.modules[module_name]
        raise BotLoadError(f"importing {path} failed: {type(exc).__name__}: {exc}") from None
    return module


def _load_module(name: str) -> ModuleType:
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise BotLoadError(f"{name!r} is neither a .py file nor a module name like package.module")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise BotLoadError(f"no module named {name!r} (and no file of that name)") from None
        raise BotLoadError(f"importing {name} failed: ModuleNotFoundError: {exc}") from None
    except SyntaxError as exc:
        raise BotLoadError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:
        raise BotLoadError(f"importing {name} failed: {type(exc).__name__}: {exc}") from None


def _pick(module: ModuleType, where: str) -> object:
    """The module's `bot`, its own `Bot` subclass, or the one Bot subclass it defines."""
    if hasattr(module, "bot"):
        return module.bot
    own = getattr(module, "Bot", None)
    if inspect.isclass(own) and issubclass(own, Bot) and own is not Bot:
        return own
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Bot) and obj.__module__ == module.__name__
    ]
    concrete = [cls for cls in found if not inspect.isabstract(cls)]
    found = concrete or found  # only abstract ones: picking it explains what is missing
    if not found:
        raise BotLoadError(f"{where} defines no Bot subclass (nor a `bot` attribute)")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise BotLoadError(f"{where} defines several Bot subclasses ({names}): pick one as {where}:NAME")
    return found[0]
