"""The saved-token file: bot processes that register at the same time all keep their tokens."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sdk.tokens import save_token


def _save(args: tuple[Path, int]) -> None:
    path, i = args
    save_token("127.0.0.1:50051", f"bot-{i}", f"token-{i}", path)


def test_concurrent_saves_from_several_processes_lose_no_token(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    # spawn, not fork: other tests leave gRPC threads in this process, and forking them can hang.
    with ProcessPoolExecutor(max_workers=8, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_save, [(path, i) for i in range(40)]))
    saved = json.loads(path.read_text())["127.0.0.1:50051"]
    assert saved == {f"bot-{i}": f"token-{i}" for i in range(40)}
