"""The daily challenge: the hill of the day, its runs, par, boards and replays."""
