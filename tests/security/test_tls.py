"""TLS end to end, with certificates made here (`tests.security.certs`): real arena processes
serving TLS (`scout-arena serve` with `--tls-cert`/`--tls-key`), bots
that play a tournament through them with `scout-bot run --tls-ca`, the `scout-arena` commands and
the Docker health check over TLS, and every mismatch refused at once with one line: a plaintext
client to a TLS arena, a CA that did not sign the arena's certificate, a certificate for another
name, a TLS client to a plaintext arena, and certificate files that cannot be served."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli.app import app as arena_app
from sdk.cli import app as bot_app
from sdk.runner import ArenaRefused, register
from sdk.tls import ClientTls, TlsConfigError
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.docs.readme import ROOT, commands, parse
from tests.security.certs import Pki, make_pki
from tests.tournaments.arena_process import ArenaProcess

BIN = Path(sys.executable).parent
HEALTHCHECK = ROOT / "docker" / "healthcheck.py"
GUIDE = ROOT / "docs" / "operator-guide.md"
PLAY_TIMEOUT_S = 120.0
REFUSAL_TIMEOUT_S = 30.0
"""A refused client must end well within this; the runner would otherwise retry for ever."""


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def arena_process(tmp: Path, *args: str) -> ArenaProcess:
    return ArenaProcess(f"sqlite:///{tmp / 'arena.db'}", tmp / "arena.log", *args)


@pytest.fixture(scope="module")
def tls_arena(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    """An arena serving TLS with the certificate for 127.0.0.1 and localhost."""
    server = arena_process(tmp_path_factory.mktemp("tls"), "--tls-cert", str(pki.cert), "--tls-key", str(pki.key))
    yield server
    assert server.stop() == 0


@pytest.fixture(scope="module")
def named_arena(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    """An arena serving TLS with a certificate for arena.example only."""
    server = arena_process(
        tmp_path_factory.mktemp("named"), "--tls-cert", str(pki.named), "--tls-key", str(pki.named_key)
    )
    yield server
    assert server.stop() == 0


@pytest.fixture(scope="module")
def plain_arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    server = arena_process(tmp_path_factory.mktemp("plain"))
    yield server
    assert server.stop() == 0


def scout_bot(log: Path, tokens: Path, *args: str) -> subprocess.Popen[bytes]:
    """`scout-bot ARGS` as its own process, saving tokens in `tokens`; no TLS setting inherited."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOUT_")}
    return subprocess.Popen(
        [sys.executable, "-m", "sdk.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        env={**env, "SCOUT_ARENA_TOKENS": str(tokens)},
    )


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + PLAY_TIMEOUT_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def last_line(log: Path) -> str:
    return log.read_text().strip().splitlines()[-1]


# ---- a whole tournament over TLS --------------------------------------------------------------------


def test_the_arena_logs_whether_it_serves_tls(tls_arena: ArenaProcess, plain_arena: ArenaProcess) -> None:
    """The log line follows the announcement on stdout: wait for it."""
    wait_for(
        lambda: f"arena listening on 127.0.0.1:{tls_arena.port} with TLS" in tls_arena.log.read_text(),
        "the TLS arena's log line",
    )
    wait_for(
        lambda: f"arena listening on 127.0.0.1:{plain_arena.port} without TLS" in plain_arena.log.read_text(),
        "the plaintext arena's log line",
    )


def test_bots_play_a_tournament_over_tls_run_by_scout_arena_commands(
    pki: Pki, tls_arena: ArenaProcess, tmp_path: Path
) -> None:
    """Two `scout-bot run --tls-ca` processes register, enter and play every game of a tournament
    that `scout-arena --tls-ca` commands create, start and read, all through the TLS arena."""
    ca = ("--tls-ca", str(pki.ca))
    server = ("--server", tls_arena.target)
    admin = (*server, "--admin-token", tls_arena.admin_token or "")
    code, output = arena_cli(
        *ca,
        "tournament",
        "create",
        "secure",
        "--table-size",
        "2",
        "--games-per-table",
        "2",
        "--starts-at",
        "+1h",
        "--seed",
        "7",
        *admin,
    )
    assert code == 0, output
    tokens = tmp_path / "tokens.json"
    bots = [
        scout_bot(
            tmp_path / "ann.log",
            tokens,
            "run",
            "greedy",
            "--name",
            "ann",
            "--tournament",
            "secure",
            "--target",
            tls_arena.target,
            *ca,
        ),
        # by name, as the certificate names it too
        scout_bot(
            tmp_path / "bob.log",
            tokens,
            "run",
            "random",
            "--name",
            "bob",
            "--tournament",
            "secure",
            "--target",
            f"localhost:{tls_arena.port}",
            *ca,
        ),
    ]
    try:
        wait_for(lambda: "ann, bob" in arena_cli(*ca, "tournament", "show", "secure", *server)[1], "the bots to enter")
        code, output = arena_cli(*ca, "tournament", "start", "secure", *admin)
        assert code == 0 and "4 games scheduled among 2 entrants" in output, output
        for bot in bots:
            bot.wait(timeout=PLAY_TIMEOUT_S)  # each stops once the tournament has finished
        assert [bot.returncode for bot in bots] == [0, 0], [last_line(tmp_path / f"{n}.log") for n in ("ann", "bob")]
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
    code, output = arena_cli(*ca, "ratings", "--tournament", "secure", *server)
    assert code == 0 and "ann" in output and "bob" in output, output
    code, output = arena_cli(*ca, "games", "list", "--tournament", "secure", "--status", "finished", *server)
    assert code == 0 and output.count("finished") >= 4, output
    assert "with TLS" in (tmp_path / "ann.log").read_text()


def test_the_sdk_registers_over_tls_and_the_system_roots_work(
    pki: Pki, tls_arena: ArenaProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(register("sdk-ca", target=tls_arena.target, tls=ClientTls(str(pki.ca)))) == 64
    monkeypatch.setenv("SCOUT_ARENA_TLS", "1")
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))  # the system's CAs, as Python's ssl module finds them
    assert len(register("sdk-system", target=tls_arena.target, tls=ClientTls())) == 64
    code, output = arena_cli("bot", "list", "--server", tls_arena.target)
    assert code == 0 and "sdk-ca" in output and "sdk-system" in output, output


# ---- refusals: one line each, at once -----------------------------------------------------------------


def test_a_plaintext_client_is_refused_by_a_tls_arena(tls_arena: ArenaProcess, tmp_path: Path) -> None:
    code, output = arena_cli("tournament", "list", "--server", tls_arena.target)
    assert code == 1
    assert_one_line_error(output, f"the arena at {tls_arena.target} serves TLS: connect with --tls (or --tls-ca FILE")
    with pytest.raises(ArenaRefused, match="serves TLS: connect with --tls"):
        register("plain-sdk", target=tls_arena.target)


@pytest.mark.parametrize("with_token", [False, True], ids=["registering", "with-a-token"])
def test_scout_bot_without_tls_ends_with_one_line_instead_of_retrying(
    tls_arena: ArenaProcess, tmp_path: Path, with_token: bool
) -> None:
    """Registering fails at once; with a token the runner's first connection fails, and a TLS
    mismatch, unlike a lost connection, ends it rather than being retried for ever."""
    args = ["run", "random", "--target", tls_arena.target, *(["--token", "0" * 64] if with_token else [])]
    bot = scout_bot(tmp_path / "bot.log", tmp_path / "tokens.json", *args)
    assert bot.wait(timeout=REFUSAL_TIMEOUT_S) == 1
    assert "serves TLS: connect with --tls" in last_line(tmp_path / "bot.log")
    assert last_line(tmp_path / "bot.log").startswith("error: ")


def test_a_ca_that_did_not_sign_the_certificate_is_refused(pki: Pki, tls_arena: ArenaProcess, tmp_path: Path) -> None:
    code, output = arena_cli("--tls-ca", str(pki.other_ca), "tournament", "list", "--server", tls_arena.target)
    assert code == 1
    assert_one_line_error(
        output, f"the arena at {tls_arena.target} presented a certificate that the CA in {pki.other_ca} did not sign"
    )
    with pytest.raises(ArenaRefused, match="did not sign"):
        register("wrong-ca", target=tls_arena.target, tls=ClientTls(str(pki.other_ca)))
    bot = scout_bot(
        tmp_path / "bot.log",
        tmp_path / "tokens.json",
        "run",
        "random",
        "--token",
        "0" * 64,
        "--target",
        tls_arena.target,
        "--tls-ca",
        str(pki.other_ca),
    )
    assert bot.wait(timeout=REFUSAL_TIMEOUT_S) == 1
    assert "did not sign" in last_line(tmp_path / "bot.log")


def test_the_system_roots_do_not_trust_a_private_ca(tls_arena: ArenaProcess) -> None:
    code, output = arena_cli("--tls", "tournament", "list", "--server", tls_arena.target)
    assert code == 1
    assert_one_line_error(
        output,
        f"the arena at {tls_arena.target} presented a certificate that the system's CAs "
        "did not sign: give its CA with --tls-ca FILE",
    )


def test_a_certificate_for_another_name_needs_the_server_name(pki: Pki, named_arena: ArenaProcess) -> None:
    ca = ("--tls-ca", str(pki.ca))
    code, output = arena_cli(*ca, "tournament", "list", "--server", named_arena.target)
    assert code == 1
    assert_one_line_error(
        output,
        f"the arena at {named_arena.target} presented a certificate that is not for "
        "'127.0.0.1': connect by a name it holds, or pass --tls-server-name NAME",
    )
    code, output = arena_cli(
        *ca, "--tls-server-name", "arena.example", "tournament", "list", "--server", named_arena.target
    )
    assert code == 0 and "Tournaments" in output, output
    code, output = arena_cli(
        "tournament",
        "list",
        "--server",
        named_arena.target,
        env={"SCOUT_ARENA_TLS_CA": str(pki.ca), "SCOUT_ARENA_TLS_SERVER_NAME": "arena.example"},
    )
    assert code == 0 and "Tournaments" in output, output


def test_an_expired_certificate_is_refused_saying_so(pki: Pki, tmp_path: Path) -> None:
    server = arena_process(tmp_path, "--tls-cert", str(pki.expired), "--tls-key", str(pki.expired_key))
    try:
        code, output = arena_cli("--tls-ca", str(pki.ca), "tournament", "list", "--server", server.target)
    finally:
        assert server.stop() == 0
    assert code == 1
    assert_one_line_error(
        output, f"the arena at {server.target} presented a certificate that is not valid: certificate has expired"
    )


def test_a_tls_client_to_a_plaintext_arena_is_told_so(pki: Pki, plain_arena: ArenaProcess) -> None:
    code, output = arena_cli("--tls-ca", str(pki.ca), "tournament", "list", "--server", plain_arena.target)
    assert code == 1
    assert_one_line_error(output, f"the arena at {plain_arena.target} does not speak TLS: connect without --tls")
    code, output = arena_cli("tournament", "list", "--server", plain_arena.target)
    assert code == 0, output


def test_an_unusable_ca_file_is_one_line(pki: Pki, tls_arena: ArenaProcess, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    code, output = arena_cli("--tls-ca", str(missing), "tournament", "list", "--server", tls_arena.target)
    assert code == 1
    assert_one_line_error(output, f"cannot read the CA file {missing}: No such file or directory")
    code, output = arena_cli("--tls-ca", str(pki.key), "tournament", "list", "--server", tls_arena.target)
    assert code == 1
    assert_one_line_error(output, f"the CA file {pki.key} holds no PEM certificate")
    with pytest.raises(TlsConfigError, match="holds no PEM certificate"):
        register("bad-ca", target=tls_arena.target, tls=ClientTls(str(pki.key)))


def test_a_connection_option_after_the_command_says_where_it_goes(pki: Pki) -> None:
    code, output = arena_cli("tournament", "list", "--tls-ca", str(pki.ca))
    assert code == 2
    assert_one_line_error(output, "--tls-ca goes before the command, as in `scout-arena --tls-ca ... tournament list`")


# ---- the server's certificate and key ------------------------------------------------------------------


def serve_error(tmp_path: Path, *tls: str) -> str:
    """`scout-arena serve` with these TLS options must stop at once: its one error line."""
    db = tmp_path / "arena.db"
    code, output = arena_cli("serve", "--db", str(db), "--port", "0", *tls)
    assert code == 1, output
    assert not db.exists(), "the files are checked before the database is touched"
    return output


def test_unusable_certificate_files_stop_serve_with_one_line(pki: Pki, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    cases = {
        ("--tls-cert", str(pki.cert)): "--tls-cert needs --tls-key too",
        ("--tls-key", str(pki.key)): "--tls-key needs --tls-cert too",
        (
            "--tls-cert",
            str(missing),
            "--tls-key",
            str(pki.key),
        ): f"cannot read the TLS certificate file {missing}: No such file or directory",
        (
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(tmp_path),
        ): f"cannot read the TLS key file {tmp_path}: Is a directory",
        (
            "--tls-cert",
            str(pki.key),
            "--tls-key",
            str(pki.key),
        ): f"the TLS certificate file {pki.key} holds no PEM certificate",
        (
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.cert),
        ): f"the TLS key file {pki.cert} holds no PEM private key",
        (
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.other_key),
        ): f"the TLS key {pki.other_key} is not the key of the certificate {pki.cert}",
        (
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.encrypted_key),
        ): f"the TLS key {pki.encrypted_key} is encrypted",
    }
    for options, message in cases.items():
        assert_one_line_error(serve_error(tmp_path, *options), message)


def test_serve_json_refuses_a_mismatched_key_with_one_line(pki: Pki, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--json",
            "--in-memory",
            "--port",
            "0",
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.other_key),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"error: the TLS key {pki.other_key} is not the key of the certificate {pki.cert}\n"


def test_scout_arena_serve_says_it_serves_tls(pki: Pki, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            str(BIN / "scout-arena"),
            "serve",
            "--db",
            str(tmp_path / "a.db"),
            "--port",
            "0",
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.key),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready
        first = proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    assert first.startswith("Scout Arena listening on 127.0.0.1:") and f" with TLS ({pki.cert}), database " in first


def test_serve_json_reports_tls_and_takes_the_admin_token_from_the_environment(pki: Pki) -> None:
    env = {**os.environ, "SCOUT_ARENA_ADMIN_TOKEN": "f" * 64}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--json",
            "--in-memory",
            "--port",
            "0",
            "--tls-cert",
            str(pki.cert),
            "--tls-key",
            str(pki.key),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready
        first = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    assert first["tls"] is True and first["admin_token"] == "f" * 64


# ---- the Docker image's health check ---------------------------------------------------------------------


def healthcheck(port: int, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SCOUT_")}
    return subprocess.run(
        [sys.executable, str(HEALTHCHECK)],
        env={**clean, "SCOUT_PORT": str(port), **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_the_healthcheck_checks_a_tls_arena_as_scout_arena_connects(
    pki: Pki, tls_arena: ArenaProcess, named_arena: ArenaProcess
) -> None:
    assert healthcheck(tls_arena.port, SCOUT_ARENA_TLS_CA=str(pki.ca)).returncode == 0
    done = healthcheck(named_arena.port, SCOUT_ARENA_TLS_CA=str(pki.ca), SCOUT_ARENA_TLS_SERVER_NAME="arena.example")
    assert done.returncode == 0, done.stderr
    done = healthcheck(tls_arena.port)
    assert done.returncode == 1
    assert (
        done.stderr.startswith("unhealthy: the arena at 127.0.0.1:") and "serves TLS: connect with --tls" in done.stderr
    )
    assert done.stderr.count("\n") == 1, done.stderr


# ---- the operator's guide ----------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the guide's commands need the openssl command line")
def test_the_operator_guides_commands_make_a_certificate_it_serves_and_clients_trust(tmp_path: Path) -> None:
    """The TLS section's openssl commands, run as written, make a CA and a certificate that
    `scout-arena serve` accepts and a `--tls-ca` client (by IP, and by the certificate's name
    through `--tls-server-name`) trusts; its `scout-arena` and `scout-bot` lines parse."""
    section = [c for c in commands(GUIDE) if c.section == "TLS"]
    shell = [c.line for c in section if c.argv[0] in ("openssl", "printf", "chmod")]
    assert len(shell) == 5, shell
    for line in shell:
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{line}: {done.stderr}"
    for command in section:
        if command.argv[0] in ("scout-arena", "scout-bot"):
            parse(arena_app if command.argv[0] == "scout-arena" else bot_app, command.argv[0], command.argv[1:])
    assert stat.S_IMODE((tmp_path / "arena.key").stat().st_mode) == 0o600
    server = ArenaProcess(
        f"sqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "arena.log",
        "--tls-cert",
        str(tmp_path / "arena.pem"),
        "--tls-key",
        str(tmp_path / "arena.key"),
    )
    try:
        ca = ("--tls-ca", str(tmp_path / "ca.pem"))
        assert arena_cli(*ca, "bot", "list", "--server", server.target)[0] == 0
        assert (
            arena_cli(*ca, "--tls-server-name", "arena.example.org", "bot", "list", "--server", server.target)[0] == 0
        )
    finally:
        assert server.stop() == 0
