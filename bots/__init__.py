"""Example bots; each is a runnable program (`python -m bots.greedy --help`) and a reference
opponent for local play and the conformance kit. `strong` (bots/strong.py) is the search bot
meant to be the strongest; `montecarlo` and `greedy` are the reference opponents it is measured
against (docs/benchmarks.md).

Which bots there are is pyproject.toml's `scout_arena.bots` entry points (`sdk.loading.own_examples`),
the one list: `EXAMPLES` maps their short names to the bot classes, and each class is also an
attribute by its own name (`from bots import GreedyBot`). They are imported on first use, so that
`python -m bots.greedy` executes its module once, as `__main__`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from sdk.bot import Bot
from sdk.loading import load_bot, own_examples

if TYPE_CHECKING:
    # For type checkers only, which cannot read entry points; at run time the names come from them.
    from .greedy import GreedyBot as GreedyBot
    from .montecarlo import MonteCarloBot as MonteCarloBot
    from .random_bot import RandomBot as RandomBot
    from .strong import StrongBot as StrongBot

    EXAMPLES: dict[str, type[Bot]]


def _class(spec: str) -> object:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> object:
    if name.startswith("_"):  # a submodule being looked for (`from . import _playout`), a dunder
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    specs = own_examples()
    if name == "EXAMPLES":
        value: object = {short: _class(spec) for short, spec in specs.items()}
    else:
        spec = next((spec for spec in specs.values() if spec.partition(":")[2] == name), None)
        if spec is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = _class(spec)
    globals()[name] = value
    return value


def make_example(name: str, seed: int | None = None) -> Bot:
    """A fresh example bot; `seed` fixes its randomness when it has any. KeyError if unknown."""
    return load_bot(own_examples()[name], seed=seed)
