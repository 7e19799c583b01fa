"""Example bots; each is a runnable program (`python -m bots.greedy --help`) and a reference
opponent for local play and the conformance kit. `strong` (bots/strong.py) is the search bot
meant to be the strongest; `montecarlo` and `greedy` are the reference opponents it is measured
against (docs/benchmarks.md).

`EXAMPLES` maps the short names the `scout-bot` CLI accepts to the bot classes. The classes are
imported on first use, so that `python -m bots.greedy` executes its module once, as `__main__`.
"""

from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING

from sdk.bot import Bot

if TYPE_CHECKING:
    from .greedy import GreedyBot
    from .montecarlo import MonteCarloBot
    from .random_bot import RandomBot
    from .strong import StrongBot

    EXAMPLES: dict[str, type[Bot]]

_MODULE_OF = {"RandomBot": "random_bot", "GreedyBot": "greedy", "MonteCarloBot": "montecarlo", "StrongBot": "strong"}
_CLASS_OF = {"random": "RandomBot", "greedy": "GreedyBot", "montecarlo": "MonteCarloBot", "strong": "StrongBot"}


def __getattr__(name: str) -> object:
    if name in _MODULE_OF:
        value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    elif name == "EXAMPLES":
        value = {short: __getattr__(cls) for short, cls in _CLASS_OF.items()}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def make_example(name: str, seed: int | None = None) -> Bot:
    """A fresh example bot; `seed` fixes its randomness when it has any. KeyError if unknown."""
    cls: type[Bot] = __getattr__(_CLASS_OF[name])  # type: ignore[assignment]
    return cls(seed=seed) if "seed" in inspect.signature(cls).parameters else cls()  # type: ignore[call-arg]


__all__ = ["EXAMPLES", "GreedyBot", "MonteCarloBot", "RandomBot", "StrongBot", "make_example"]
