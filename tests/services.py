"""The external services some tests need (PostgreSQL, NATS), each named by an environment variable,
and the server programs the tests that restart one run privately (`program`).

Elsewhere a test that needs one skips, saying the command that runs it; under CI (`CI=true`, which
`.ci/run` sets) a missing variable or program fails the test instead, so CI cannot go green without
running them. A variable that is set but names a service that does not answer fails the test everywhere."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

POSTGRES_URL_VARIABLE = "SCOUT_TEST_POSTGRES_URL"
POSTGRES_EXAMPLE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
NATS_URL_VARIABLE = "SCOUT_TEST_NATS_URL"
NATS_EXAMPLE = "nats://127.0.0.1:4222"


def service_url(variable: str, example: str, what: str) -> str:
    """The URL in `variable`; if unset, fail under CI and skip elsewhere, saying how to enable it."""
    url = os.environ.get(variable)
    if url:
        return url
    if _under_ci():
        pytest.fail(f"{variable} is not set: CI runs the {what} tests against the machine's {what}", pytrace=False)
    pytest.skip(f"{variable} is not set: the {what} tests need a server; run them with `{variable}={example} pytest`")


def program(name: str, *places: Path, what: str) -> Path:
    """The executable `name` on PATH or in one of `places`; if there is none, fail under CI and skip
    elsewhere, saying what `what` needs it for."""
    found = shutil.which(name) or next((str(p / name) for p in places if (p / name).is_file()), None)
    if found:
        return Path(found)
    message = f"{name} is not installed (not on PATH nor in {', '.join(map(str, places))}): {what}"
    if _under_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"
