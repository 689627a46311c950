"""Events: tournaments over many games (round robin, Swiss, tables, the Hillbert cup):
their pairings, standings and exports, and the service that runs their rounds."""
