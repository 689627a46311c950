"""Discord adapters: slash commands, components and embeds over the host service."""
