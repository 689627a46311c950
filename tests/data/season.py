"""A season in a small server, played through the console front-end: games played to
their end and left running, a challenge, the daily hill; then every command that reads.
The console to play it on is the fixture `console` (tests/data/conftest.py)."""

from __future__ import annotations

#: What is played, line by line.
PLAYED = [
    "alice /play game:hokito opponent:bob seed:1",
    "bob /accept",
    "bob /press 1",
    "bob /press 1",
    "alice /press 1",
    "alice /press 1",
    "alice /resign",
    "alice /press Yes, resign",
    "#second alice /play game:molehill opponent:carol seed:2",
    "#second carol /accept",
    "#third bob /play game:hokito opponent:carol seed:3",
    "alice /daily",
    "alice /daily move:d",
    "#club root /tournament create game:hokito format:round-robin name:Club",
    "#club alice /tournament join",
    "#club bob /press Join",
    "#club root /tournament start",
    "carol /away days:2",
]
#: Every command that reads, after the season is played; each run alone answers in full.
READS = [
    "#second alice /board",
    "#second carol /moves",
    "alice /games here",
    "alice /games mine",
    "alice /history",
    "alice /history user:bob",
    "alice /history game:hokito",
    "alice /game id:1",
    "alice /replay id:1",
    "alice /leaderboard",
    "alice /leaderboard period:week",
    "alice /leaderboard period:all scope:global",
    "alice /stats",
    "alice /stats user:bob",
    "alice /ratings game:hokito",
    "alice /ratings game:hokito scope:global",
    "alice /profile",
    "alice /profile user:bob opponent:alice",
    "#club alice /tournament standings",
    "#club alice /tournament pairings",
    "#club alice /tournament list",
    "#club alice /tournament export file:trf",
    "carol /games mine",
    "bob /games here",
]
#: The whole season, ending with a challenge declined.
SEASON = [*PLAYED, *READS, "carol /back", "#third carol /decline"]
