"""Where the SDK and both command lines look for an arena when nothing names one.

A module of its own, importing nothing: `scout-bot --help` and `scout-arena --help` show the default
without importing gRPC (`sdk.runner`, which uses it too).

An address may name several arenas, comma-separated (`A:50051,B:50051`): the nodes of one cluster,
which answer alike. A bot connects to the first that answers and moves to the next when its node
goes (`sdk.runner`); a command asks the first that answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

DEFAULT_TARGET = "127.0.0.1:50051"
"""The arena's HOST:PORT unless `--target`/`--server` or SCOUT_ARENA_SERVER says otherwise."""


def split_targets(target: str | Sequence[str]) -> list[str]:
    """The addresses `target` names: one HOST:PORT, several comma-separated, or a sequence of them.
    ValueError if it names none."""
    parts = target.split(",") if isinstance(target, str) else [p for t in target for p in t.split(",")]
    addresses = [p.strip() for p in parts if p.strip()]
    if not addresses:
        raise ValueError(f"no arena address in {target!r}: give HOST:PORT, or several comma-separated")
    return addresses
