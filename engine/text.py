"""The one place the engine turns player-facing text into words.

Every message the engine shows a player (move errors, choice labels, outcome reasons) is a
`Text`: an English template plus its parameters. `str()` gives English; a later translator
looks the template up in a catalogue and formats the same parameters, without touching any
rule code.

Text that names a count is written with `tn`: the singular and plural templates travel
together with the count, so a translator can pick the right form for its language (Polish
has three).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    template: str
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: The plural template, for text chosen by the count `params["n"]`.
    plural: str | None = None

    def __str__(self) -> str:
        template = self.template
        if self.plural is not None and self.params.get("n") != 1:
            template = self.plural
        return template.format(**self.params) if self.params else template


def t(template: str, /, **params: Any) -> Text:
    """Mark `template` as player-facing text, formatted with `params`."""
    return Text(template, params)


def tn(singular: str, plural: str, /, n: int, **params: Any) -> Text:
    """Player-facing text that depends on the count `n`: "1 run", "3 runs"."""
    return Text(singular, {"n": n, **params}, plural)
