"""The announcer: what people are told of each committed change of a game."""
