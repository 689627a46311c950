"""Where and how the pages are served: `HILLTOP_WEB` (the address to listen on),
`HILLTOP_WEB_URL` (the address people use, for links), and Discord's OAuth2 application
(`DISCORD_CLIENT_ID`, `DISCORD_CLIENT_SECRET`) for servers that show their pages to their
members only."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

DEFAULT_LISTEN = "127.0.0.1:8080"
DISCORD_API = "https://discord.com/api/v10"
DISCORD_AUTHORIZE = "https://discord.com/oauth2/authorize"


@dataclass(frozen=True, slots=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    #: The address people open, without a trailing slash (links, the OAuth2 redirect).
    url: str = "http://127.0.0.1:8080"
    client_id: str = ""
    client_secret: str = ""
    #: Discord's API and its authorize page (a fake Discord's in tests).
    discord_api: str = DISCORD_API
    discord_authorize: str = DISCORD_AUTHORIZE
    #: The games are the console's: there is no Discord message to link back to.
    console: bool = False

    @property
    def sign_in(self) -> bool:
        """Whether people can sign in with Discord here."""
        return bool(self.client_id and self.client_secret)

    @property
    def secure(self) -> bool:
        return self.url.startswith("https://")

    @property
    def cookie_key(self) -> bytes:
        """The key that signs the session cookie: the same in every process that has the
        application's secret, and no use to anyone who has not."""
        return hashlib.sha256(b"hilltop web session\0" + self.client_secret.encode()).digest()

    @classmethod
    def from_env(cls, listen: str | None = None, *, console: bool = False) -> WebConfig:
        """The settings from the environment; `listen` overrides `HILLTOP_WEB`."""
        address = (listen or os.environ.get("HILLTOP_WEB", "") or DEFAULT_LISTEN).strip()
        host, _, port_text = address.rpartition(":")
        if not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
            raise ValueError(
                f"HILLTOP_WEB={address!r}: give the address to listen on as host:port, "
                f"e.g. {DEFAULT_LISTEN}"
            )
        port = int(port_text)
        url = os.environ.get("HILLTOP_WEB_URL", "").strip().rstrip("/")
        if not url:
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
            url = f"http://{shown}:{port}"
        return cls(
            host=host,
            port=port,
            url=url,
            client_id=os.environ.get("DISCORD_CLIENT_ID", "").strip(),
            client_secret=os.environ.get("DISCORD_CLIENT_SECRET", "").strip(),
            discord_api=os.environ.get("HILLTOP_DISCORD_API", "").strip() or DISCORD_API,
            discord_authorize=(
                os.environ.get("HILLTOP_DISCORD_AUTHORIZE", "").strip() or DISCORD_AUTHORIZE
            ),
            console=console,
        )
