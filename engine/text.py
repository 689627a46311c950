"""The one place the engine turns player-facing text into words.

Every message the engine shows a player (move errors, choice labels, outcome reasons) is a
`Text`: an English template plus its parameters. `str()` gives English; a later translator
looks the template up in a catalogue and formats the same parameters, without touching any
rule code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    template: str
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return self.template.format(**self.params) if self.params else self.template


def t(template: str, /, **params: Any) -> Text:
    """Mark `template` as player-facing text, formatted with `params`."""
    return Text(template, params)
