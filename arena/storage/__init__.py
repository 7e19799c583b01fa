"""What the arena keeps: the database (SQLite or PostgreSQL), its tables and migrations, and the store
every other room reads and writes through."""

DEFAULT_DATABASE_URL = "sqlite:///scout-arena.db"
"""A file in the working directory: the embedded default. Here, not in `database`, so that the
command line names it without importing SQLAlchemy."""
