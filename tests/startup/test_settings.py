"""`ArenaSettings.from_options`: every `serve` option checked once, a bad one named by its flag."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from arena.api.resources import ResourceLimits
from arena.api.tls import TlsConfigError
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Limits
from arena.startup.settings import ArenaSettings, InvalidOption
from arena.web.limits import WebLimits
from tests.cli.conftest import arena_cli, assert_one_line_error


def options(**changed: Any) -> ArenaSettings:
    given: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "admin_token": None,
        "database_url": "sqlite:///arena.db",
        "http_port": 0,
        "tls_cert": None,
        "tls_key": None,
        "registrations_per_minute": 60,
        "log_level": "info",
        "limits": {},
        "resources": {},
        "web": {},
        "casual": {},
    }
    return ArenaSettings.from_options(**{**given, **changed})


def test_the_parts_are_built_from_their_fields() -> None:
    settings = options(
        limits={"move_ms": 500},
        resources={"read_concurrency": 3},
        web={"render_burst": 7, "max_connections": 9},
        casual={"queue": 4},
        log_level="warning",
    )
    assert settings.limits == Limits(move_ms=500)
    assert settings.resources == ResourceLimits(read_concurrency=3)
    assert settings.web_limits == WebLimits(render_burst=7, max_connections=9)
    assert settings.casual == CasualLimits(queue=4)
    assert settings.log_level == logging.WARNING
    assert settings.serves_web and settings.tls is None
    assert not options(database_url=None).serves_web, "the pages need a database"
    assert not options(http_port=None).serves_web


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        ({"limits": {"move_ms": 1}}, "--move-ms must be within"),
        ({"resources": {"read_burst": 0}}, "--read-burst must be positive, not 0"),
        ({"web": {"burst": 0}}, "--web-burst must be positive, not 0"),
        ({"web": {"max_connections": -1}}, "--web-max-connections must be positive, not -1"),
        ({"casual": {"max_games": -1}}, "--play-games must be within"),
        ({"casual": {"per_bot": -1}}, "--play-per-bot must be within"),
        ({"log_level": "loud"}, "--log-level must be DEBUG, INFO, WARNING or ERROR, not 'loud'"),
    ],
    ids=lambda v: str(v) if isinstance(v, dict) else None,
)
def test_a_bad_option_is_named_by_its_flag(changed: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOption) as raised:
        options(**changed)
    assert str(raised.value).startswith(message), raised.value
    assert "\n" not in str(raised.value)


def test_one_tls_file_without_the_other_is_refused() -> None:
    with pytest.raises(TlsConfigError, match="--tls-cert needs --tls-key too"):
        options(tls_cert="cert.pem")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--web-render-rate", "0"], "--web-render-rate must be positive, not 0.0"),
        (["--play-queue", "-1"], "--play-queue must be within"),
        (["--grace-ms", "-5"], "--grace-ms must be within"),
        (["--log-level", "chatty"], "--log-level must be DEBUG, INFO, WARNING or ERROR, not 'chatty'"),
    ],
    ids=" ".join,
)
def test_serve_prints_one_line_for_a_bad_option(args: list[str], message: str) -> None:
    code, output = arena_cli("serve", "--in-memory", "--port", "0", *args)
    assert code == 1
    assert_one_line_error(output, message)
