"""The console front-end: play locally, a line per command, boards saved as PNG files.
Like the Discord layer beside it, it talks to the service's face (`host.face`) only."""
