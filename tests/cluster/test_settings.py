"""`serve --nats URL --node NAME`: a node of a cluster; a bad combination is one line naming the flag."""

from __future__ import annotations

from typing import Any

import pytest

from arena.startup.settings import ClusterSettings, InvalidOption
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.startup.test_settings import options

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def test_nats_and_node_make_a_node_of_a_cluster() -> None:
    settings = options(database_url=PG, nats_url="nats://10.0.0.5:4222", node="east-1")
    assert settings.cluster == ClusterSettings("nats://10.0.0.5:4222", "east-1")
    assert options(database_url=PG).cluster is None, "without --nats the arena is one process"
    named = options(database_url=PG, nats_url="nats://a:4222,nats://b:4222").cluster
    assert named is not None and named.node, "the node is named after its host by default"
    assert (named.lease_s, named.node_games) == (10.0, 64)
    tuned = options(database_url=PG, nats_url="nats://a:4222", node="w", lease_s=3.0, node_games=8).cluster
    assert tuned == ClusterSettings("nats://a:4222", "w", 3.0, 8)


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        ({"nats_url": "nats://a:4222"}, "--nats needs --db postgresql+psycopg://"),
        ({"nats_url": "nats://a:4222", "database_url": None}, "--nats needs --db postgresql+psycopg://"),
        ({"node": "east-1", "database_url": PG}, "--node names a node of a cluster: give --nats too"),
        ({"nats_url": "a:4222", "database_url": PG}, "--nats must be nats://HOST:PORT"),
        ({"nats_url": "nats://a:4222", "database_url": PG, "node": "no spaces"}, "--node must be 1 to 40 letters"),
        ({"lease_s": 5.0, "database_url": PG}, "--lease-s is an option of a cluster's node: give --nats too"),
        ({"node_games": 8, "database_url": PG}, "--node-games is an option of a cluster's node: give --nats too"),
        ({"nats_url": "nats://a:4222", "database_url": PG, "lease_s": 0.2}, "--lease-s must be within 1..600 seconds"),
        ({"nats_url": "nats://a:4222", "database_url": PG, "node_games": 0}, "--node-games must be within 1..100000"),
    ],
    ids=lambda v: str(v) if isinstance(v, dict) else None,
)
def test_a_bad_cluster_option_is_named_by_its_flag(changed: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOption) as raised:
        options(**changed)
    assert str(raised.value).startswith(message), raised.value


def test_serve_prints_one_line_when_nats_has_no_postgresql() -> None:
    code, output = arena_cli("serve", "--in-memory", "--port", "0", "--nats", "nats://127.0.0.1:4222")
    assert code == 1
    assert_one_line_error(output, "--nats needs --db postgresql+psycopg://")
