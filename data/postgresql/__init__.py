"""The PostgreSQL backend: the same repositories as SQLite's (`data.sqlite`), for several
bot processes (shards) on one database server."""
