"""Committing changes of games: games in memory, starting, moves, offers, deadlines, and
a typed value of each change; nothing drawn or formatted."""
