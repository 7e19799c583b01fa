"""What the arena keeps: the database (SQLite or PostgreSQL), its tables and migrations, and the store
every other room reads and writes through."""
