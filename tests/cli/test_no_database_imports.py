"""The views, JSON documents, replays, exports and wire conversion read `arena.records` only: importing
them loads no database code (SQLModel, SQLAlchemy), so showing a game never depends on storage."""

from __future__ import annotations

import subprocess
import sys

import pytest

READERS = [
    "arena.records",
    "arena.cli.views",
    "arena.documents",
    "arena.cli.replay",
    "arena.api.bot_session_wire",
    "arena.api.arena_wire",
    "arena.api.arena_codecs",
    "arena.cli.remote_wire",
]


@pytest.mark.parametrize("module", READERS)
def test_importing_it_loads_no_database_code(module: str) -> None:
    code = (
        f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlmodel', 'sqlalchemy')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", f"{module} imports {done.stdout.strip()}"


def test_the_check_sees_a_module_that_does_load_them() -> None:
    code = "import sys, arena.storage.store; print('sqlmodel' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "True"
