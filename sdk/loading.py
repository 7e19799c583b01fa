"""Find a bot from a command-line argument: a file, a module, or either with a name after ':'.

>>> load_bot("bots.greedy:GreedyBot").name
'GreedyBot'

Accepted forms:

* ``path/to/bot.py`` or ``package.module``: the module's ``bot`` attribute (a Bot instance or
  subclass) if it has one, else its ``Bot`` attribute if that is a subclass of its own, else the
  one concrete `Bot` subclass the module defines;
* ``path/to/bot.py:Name`` or ``package.module:Name``: that attribute.

A class is instantiated without arguments. Every failure is a `BotLoadError` whose message says
what to fix, in one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from .bot import Bot


class BotLoadError(ValueError):
    """The bot could not be found or created; the message says why, in one line."""


def load_bot(spec: str) -> Bot:
    """A ready Bot instance from ``file.py``, ``module``, ``file.py:Name`` or ``module:Name``."""
    where, _, name = spec.rpartition(":") if _names_attribute(spec) else (spec, "", "")
    module = _load_file(Path(where)) if _is_path(where) else _load_module(where)
    if name:
        if not hasattr(module, name):
            raise BotLoadError(f"{where} has no attribute {name!r}")
        return _instantiate(getattr(module, name), f"{where}:{name}")
    return _instantiate(_pick(module, where), where)


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


def _instantiate(obj: object, label: str) -> Bot:
    if isinstance(obj, Bot):
        return obj
    if not (inspect.isclass(obj) and issubclass(obj, Bot)):
        raise BotLoadError(f"{label} is {type(obj).__name__}, not a Bot subclass or instance")
    try:
        return obj()
    except Exception as exc:
        raise BotLoadError(f"cannot create {obj.__name__}(): {type(exc).__name__}: {exc}") from None
