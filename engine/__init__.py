"""Game rules: immutable states, moves, notation. Standard library only."""
