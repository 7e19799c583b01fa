"""The SDK on other platforms and in a bot author's install, simulated in subprocesses: no POSIX-only
import at module level (Windows has no `fcntl`), a stop on Ctrl-C where the event loop has no
`add_signal_handler` (Windows), and none of the server's dependencies, nor grpcio-tools, imported by
`import sdk` or by `scout-bot play`, `check` and `run`."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from sdk.loading import EXAMPLE_GROUP, example_bots, own_examples

ROOT = Path(__file__).resolve().parents[2]
SERVER_ONLY = (
    "sqlmodel",
    "sqlalchemy",
    "psycopg",
    "psycopg_binary",
    "trueskill",
    "alembic",
    "cachetools",
    "grpc_health",
    "grpc_reflection",
)
CODEGEN_ONLY = ("grpc_tools",)

BLOCK = '''
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))
class Blocked(importlib.abc.MetaPathFinder):
    """As if these packages were not installed."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None
for loaded in [m for m in sys.modules if m.split(".")[0] in BLOCKED]:
    del sys.modules[loaded]
sys.meta_path.insert(0, Blocked())
'''


def run_without(blocked: tuple[str, ...], body: str, **popen: object) -> subprocess.CompletedProcess[str]:
    """Run `body` in a fresh interpreter in which importing any of `blocked` fails."""
    return subprocess.run(
        [sys.executable, "-c", BLOCK + textwrap.dedent(body), ",".join(blocked)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        **popen,  # type: ignore[call-overload]
    )


def test_the_sdk_and_its_local_commands_need_neither_the_server_nor_codegen_packages() -> None:
    done = run_without(
        SERVER_ONLY + CODEGEN_ONLY,
        """
        import sys
        import sdk, sdk.runner, sdk.submit, sdk.reach, sdk.tokens, sdk.local, sdk.conformance
        from sdk.cli import app
        for args in (["play", "greedy", "--games", "2", "--players", "3", "--against", "random,greedy"],
                     ["check", "random", "--games", "1"], ["run", "--help"]):
            try:
                app(args)
            except SystemExit as exc:
                assert exc.code == 0, (args, exc.code)
        print("imported:", sorted({m.split(".")[0] for m in sys.modules} & BLOCKED))
    """,
    )
    assert done.returncode == 0, done.stderr
    assert "2 games, 3 players" in done.stdout and "PASS RandomBot" in done.stdout
    assert done.stdout.strip().endswith("imported: []")


def test_the_arena_runs_without_grpcio_tools() -> None:
    done = run_without(
        CODEGEN_ONLY,
        """
        import arena.cli.app, arena.startup.arena
        from arena.cli.app import app
        try:
            app(["serve", "--help"])
        except SystemExit as exc:
            assert exc.code == 0, exc.code
    """,
    )
    assert done.returncode == 0, done.stderr


def test_grpcio_tools_is_only_for_code_generation_and_tests() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def named(requirements: list[str]) -> set[str]:
        return {r.split("=")[0].split(">")[0].split("<")[0].split("[")[0].strip() for r in requirements}

    assert "grpcio-tools" not in named(project["dependencies"])
    assert "grpcio-tools" in named(project["optional-dependencies"]["codegen"])
    assert "grpcio-tools" in named(project["optional-dependencies"]["test"])


def test_tokens_are_saved_and_read_without_fcntl(tmp_path: Path) -> None:
    """Windows has no fcntl: the token file's lock must not need it (filelock picks what the platform has)."""
    done = run_without(
        ("fcntl",),
        f"""
        from pathlib import Path
        import sdk.cli
        from sdk.tokens import save_token, saved_token
        path = Path({str(tmp_path / "tokens.json")!r})
        save_token("arena:one", "MyBot", "secret-1", path)
        save_token("arena:one", "Other", "secret-2", path)
        assert saved_token("arena:one", "MyBot", path) == "secret-1"
        assert saved_token("arena:one", "Other", path) == "secret-2"
        import sys
        assert "fcntl" not in sys.modules
        print("saved")
    """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "saved"


WITHOUT_ADD_SIGNAL_HANDLER = """
    import asyncio, signal, sys
    def missing(self, sig, callback, *args):
        raise NotImplementedError  # what Windows event loops do
    asyncio.SelectorEventLoop.add_signal_handler = missing
    from sdk.runner import run_until_signal

    async def forever() -> str:
        print("ready", flush=True)
        await asyncio.Event().wait()
        return "finished"

    print(run_until_signal(forever(), stopped="stopped"), flush=True)
    print("SIGINT handler restored:", signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_stops_the_runner_where_add_signal_handler_is_missing(sig: signal.Signals) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", BLOCK + textwrap.dedent(WITHOUT_ADD_SIGNAL_HANDLER), "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ},
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    assert out.splitlines() == ["stopped", "SIGINT handler restored: True"]


IMPORTED_FROM = {"grpc": "grpcio", "google": "protobuf", "typer": "typer", "rich": "rich", "filelock": "filelock"}
"""The distributions that the third-party packages sdk/ and bots/ import come from."""
TRAINING_ONLY = {"numpy"}
"""Imported by bots/train_*.py's fitting commands alone (the `train` extra), never by playing."""


def test_the_sdk_distribution_requires_what_sdk_and_bots_import() -> None:
    """sdk/pyproject.toml (`pip install ./sdk`) names the distributions of every third-party package
    sdk/ and bots/ import, and nothing else; tests/sdk/test_sdk_install.py installs and plays it."""
    imported = set()
    for path in sorted([*(ROOT / "sdk").rglob("*.py"), *(ROOT / "bots").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"sdk", "bots", "__future__"} - TRAINING_ONLY
    assert third_party <= IMPORTED_FROM.keys(), (
        f"imported from an unknown distribution: {third_party - IMPORTED_FROM.keys()}"
    )
    hook = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())["tool"]["hatch"]["metadata"]["hooks"]["custom"]
    assert sorted(hook["dependencies"]) == sorted(IMPORTED_FROM[name] for name in third_party)


def test_the_sdk_never_imports_the_example_bots_nor_the_arena() -> None:
    """Example bots are found by name through the `scout_arena.bots` entry points, not imported;
    the arena is another distribution, which the SDK's install (`pip install ./sdk`) does not hold."""
    importing = []
    for path in sorted((ROOT / "sdk").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            )
            importing += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in ("bots", "arena")]
    assert importing == []


def test_this_projects_examples_are_registered_as_entry_points() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"][EXAMPLE_GROUP]
    assert (
        example_bots()
        == declared
        == {
            "random": "bots.random_bot:RandomBot",
            "greedy": "bots.greedy:GreedyBot",
            "montecarlo": "bots.montecarlo:MonteCarloBot",
            "strong": "bots.strong:StrongBot",
        }
    )


def test_the_entry_points_are_the_only_list_of_example_bots() -> None:
    """No collection literal in sdk/, bots/ or arena/ names two example bots: every list of them
    (the CLI's names, `bots.EXAMPLES`, the demo's choices, the house bots) derives from pyproject.toml."""
    names = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][EXAMPLE_GROUP])
    listing = []
    for path in sorted(p for package in ("sdk", "bots", "arena") for p in (ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
                if len(named) >= 2:
                    listing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(named)}")
    assert listing == []


def test_the_house_and_search_bots_and_bots_examples_come_from_the_entry_points() -> None:
    import bots
    from arena.play.house_pool import house_bots, search_bots

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][EXAMPLE_GROUP]
    assert own_examples() == declared
    assert set(house_bots()) == set(declared) == set(bots.EXAMPLES)
    assert search_bots() == ("montecarlo", "strong"), "the bots taking a move_time"
    assert house_bots()[-2:] == search_bots()
    assert all(bots.EXAMPLES[name].__name__ == spec.partition(":")[2] for name, spec in declared.items())


def test_another_package_can_offer_bots_by_name(tmp_path: Path) -> None:
    """A distribution registering a `scout_arena.bots` entry point: its bot plays by its short name."""
    (tmp_path / "nimble_bot.py").write_text(
        "from sdk import Bot\n\nclass Nimble(Bot):\n    def choose(self, obs):\n        return obs.legal_actions[0]\n"
    )
    info = tmp_path / "nimble-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nimble\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[scout_arena.bots]\nnimble = nimble_bot:Nimble\n")
    done = run_without(
        ("bots",),
        """
        from sdk.cli import app
        try:
            app(["play", "nimble", "--against", "nimble", "--players", "2", "--games", "2"])
        except SystemExit as exc:
            assert exc.code == 0, exc.code
    """,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert "│ Nimble " in done.stdout and "│ Nimble 2 " in done.stdout
