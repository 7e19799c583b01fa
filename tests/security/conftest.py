"""Fixtures for the security tests: the storage tests' databases, on SQLite and PostgreSQL."""

from tests.storage.conftest import database_url

__all__ = ["database_url"]
