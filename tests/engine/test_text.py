"""Player-facing text: templates, parameters and plural forms."""

from __future__ import annotations

from engine.text import t, tn


def test_text_formats_its_parameters() -> None:
    assert str(t("{name} played {move}.", name="alice", move="c2-c4")) == "alice played c2-c4."
    assert str(t("No parameters {here}")) == "No parameters {here}"


def test_plural_forms_follow_the_count() -> None:
    forms = [str(tn("{n} run", "{n} runs", n=n)) for n in (0, 1, 2, 21)]
    assert forms == ["0 runs", "1 run", "2 runs", "21 runs"]
    assert str(tn("{names} is playing", "{names} are playing", n=1, names="alice")) == (
        "alice is playing"
    )


def test_a_translator_sees_both_forms_and_the_count() -> None:
    text = tn("{n} day", "{n} days", n=3)
    assert (text.template, text.plural, text.params) == ("{n} day", "{n} days", {"n": 3})
