"""Finished games: the history, a game's record and its replay."""
