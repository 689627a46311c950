"""Board images with Pillow, from engine states only."""
