"""Commands that answer a person: buttons, lists and offers, over the announcer."""
