"""Playing a game: games in memory, starting, moves, computers, deadlines, buttons."""
