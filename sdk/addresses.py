"""Where the SDK and both command lines look for an arena when nothing names one.

A module of its own, importing nothing: `scout-bot --help` and `scout-arena --help` show the default
without importing gRPC (`sdk.runner`, which uses it too)."""

DEFAULT_TARGET = "127.0.0.1:50051"
"""The arena's HOST:PORT unless `--target`/`--server` or SCOUT_ARENA_SERVER says otherwise."""
