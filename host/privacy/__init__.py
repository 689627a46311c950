"""What is stored about a person: a copy for them, and forgetting them on request."""
