"""The Discord-free application service shared by the Discord layer and the console."""
