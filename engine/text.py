"""The one place player-facing text becomes words, in the reader's language.

Every message shown to a player (move errors, choice labels, outcome reasons, and the
host's and the pictures' words) is a `Text`: an English template plus its parameters.
`str()` gives it in the language of the current context (`speaking`), looked up in that
language's catalogue; English, the language of the templates, needs none. A language
without a catalogue, or a template its catalogue lacks, falls back to English.

Text that names a count is written with `tn`: the singular and plural templates travel
together with the count, and the catalogue picks the form by its own plural rule (Polish
has three: 1 ruch, 2 ruchy, 5 ruchów). Parameters that are `Text` themselves are put in
the same language.

Catalogues are installed by whoever runs the engine (the host loads gettext catalogues):
the engine knows nothing of files or of any language but English.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

#: The language of the templates.
ENGLISH = "en"


class Catalogue(Protocol):
    """A language's translations, as `gettext` gives them."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


_catalogues: dict[str, Catalogue] = {}
_language: ContextVar[str] = ContextVar("hilltop_language", default=ENGLISH)


def install(language: str, catalogue: Catalogue) -> None:
    """Make `language` speakable, with its catalogue."""
    _catalogues[language] = catalogue


def languages() -> tuple[str, ...]:
    """The languages text can be put in: English and every installed one."""
    return (ENGLISH, *sorted(_catalogues))


def current_language() -> str:
    return _language.get()


@contextmanager
def speaking(language: str) -> Iterator[str]:
    """Put text in `language` within the block (English if it has no catalogue); gives
    the language used."""
    chosen = language if language in _catalogues else ENGLISH
    token = _language.set(chosen)
    try:
        yield chosen
    finally:
        _language.reset(token)


@dataclass(frozen=True)
class Text:
    template: str
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: The plural template, for text chosen by the count `params["n"]`.
    plural: str | None = None

    def __str__(self) -> str:
        return self.in_language(_language.get())

    def in_language(self, language: str) -> str:
        catalogue = _catalogues.get(language)
        n = self.params.get("n")
        if self.plural is None:
            template = catalogue.gettext(self.template) if catalogue else self.template
        elif catalogue is not None and isinstance(n, int):
            template = catalogue.ngettext(self.template, self.plural, n)
        else:
            template = self.template if n == 1 else self.plural
        if not self.params:
            return template
        params = {
            key: value.in_language(language) if isinstance(value, Text) else value
            for key, value in self.params.items()
        }
        return template.format(**params)


def t(template: str, /, **params: Any) -> Text:
    """Mark `template` as player-facing text, formatted with `params`."""
    return Text(template, params)


def tn(singular: str, plural: str, /, n: int, **params: Any) -> Text:
    """Player-facing text that depends on the count `n`: "1 run", "3 runs"."""
    return Text(singular, {"n": n, **params}, plural)


def joined(parts: Sequence[Text | str], separator: str = ", ") -> Text:
    """`parts` one after another, `separator` between them: a list of items, not a
    sentence (the separator is punctuation, not translated), each item put in the language
    the whole is put in. Write a sentence as one template instead."""
    if not parts:
        return Text("{nothing}", {"nothing": ""})
    names = [f"part{i}" for i in range(len(parts))]
    gap = separator.replace("{", "{{").replace("}", "}}")
    return Text(gap.join("{" + name + "}" for name in names), dict(zip(names, parts, strict=True)))
