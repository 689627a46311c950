"""The web front-end: a server's live games, its archive with replays, its tables and its
players' profiles, as pages over the same service as the Discord layer and the console."""
