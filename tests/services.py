"""The external services some tests need (PostgreSQL, NATS), each named by an environment variable.

Elsewhere a test that needs one skips, saying the command that runs it; under CI (`CI=true`, which
`.ci/run` sets) a missing variable fails the test instead, so CI cannot go green without running them.
A variable that is set but names a service that does not answer fails the test everywhere."""

from __future__ import annotations

import os

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
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{variable} is not set: CI runs the {what} tests against the machine's {what}", pytrace=False)
    pytest.skip(f"{variable} is not set: the {what} tests need a server; run them with `{variable}={example} pytest`")
