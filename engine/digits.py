"""Reading whole numbers from text: ASCII digits only.

`str.isdigit` and `str.isnumeric` (and `\\d` in a regular expression) also accept digits of
other scripts and superscripts ('٣', '²'), which `int` then reads as another number or
refuses with an error no caller expects. Notation and moves are written with 0-9 only.
"""

from __future__ import annotations


def is_digits(text: str) -> bool:
    """True when `text` is one or more of the ASCII digits 0-9 and nothing else."""
    return text.isascii() and text.isdigit()


def read_natural(text: str, maximum: int) -> int | None:
    """The value of `text` when it is ASCII digits for a number from 0 to `maximum`, else
    None. Long digit strings are refused before `int` sees them: it refuses more than
    4300 digits with a ValueError of its own."""
    if not is_digits(text) or len(text.lstrip("0")) > len(str(maximum)):
        return None
    value = int(text)
    return value if value <= maximum else None
