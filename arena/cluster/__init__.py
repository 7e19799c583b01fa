"""Cluster mode: several arena nodes on one PostgreSQL database and one NATS server (docs/scale-out.md).

Only `scout-arena serve --nats` imports this package, and only it needs the `cluster` extra (nats-py):
without it the arena is one process, as it always was.
"""
