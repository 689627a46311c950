"""The PostgreSQL backend: the same repositories as SQLite's, for several bot processes
(shards) on one database server."""
