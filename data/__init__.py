"""Persistence: SQLite schema, migrations and repositories."""
