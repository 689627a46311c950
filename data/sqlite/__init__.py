"""The SQLite backend: the repositories on one database file, the embedded default for
one bot process."""
