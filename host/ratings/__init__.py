"""Ratings of games between people, and the pages that show them."""
