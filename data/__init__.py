"""Persistence: the repository interfaces the host talks to and the records they return,
two backends implementing them side by side (SQLite in `data.sqlite` for one bot
process, PostgreSQL in `data.postgresql` for several on one server), what the two share,
the schema's migrations for both, and `data.storage`, which opens the one a deployment
names."""
