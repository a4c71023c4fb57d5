"""Numbers typed on the command line, read exactly and within bounds, and the default limits of the analysis.

Nothing here imports the numerical libraries, so the command line can check its arguments (and print its
help) at once. A number is read from at most `MAX_TEXT` characters and with a decimal exponent of at most
`MAX_EXPONENT` in size, so that no input can make the exact arithmetic behind it run for long: `1e100000000`
is refused before any digit of it is computed.
"""

from __future__ import annotations

import re
from fractions import Fraction

#: Values the cross-dimension scan sorts at most (positions × d); beyond it the scan covers fewer positions.
SCAN_VALUES = 2 * 10**7

#: Memory the collision analysis may plan to use, in GiB (`--max-memory`).
MAX_MEMORY_GIB = 4.0

#: Estimated running time the collision analysis may plan to take, in minutes (`--max-minutes`).
MAX_MINUTES = 10.0

#: Longest number text read, and the largest decimal exponent accepted (float64 ends near 1.8e308).
MAX_TEXT = 100
MAX_EXPONENT = 400

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exponent>[+-]?\d+))?")
_RATIO = re.compile(r"[+-]?\d+/\d+")


def shown(text: str, limit: int = 40) -> str:
    """`text` quoted for a message, cut to `limit` characters (the rest is counted, not echoed)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


def parse_number(text: str, name: str) -> Fraction:
    """The exact rational a decimal ("10000", "5e5", "1.5") or a ratio ("3/2") denotes; ValueError naming
    `name` for anything else, for text longer than MAX_TEXT and for exponents beyond ±MAX_EXPONENT."""
    stripped = text.strip()
    if len(stripped) > MAX_TEXT:
        raise ValueError(f"{name} must be a number of at most {MAX_TEXT} characters, got {shown(text)}")
    decimal = _DECIMAL.fullmatch(stripped)
    if decimal is None and _RATIO.fullmatch(stripped) is None:
        raise ValueError(f"{name} must be a number such as 10000, 5e5, 1.5 or 3/2, got {shown(text)}")
    if decimal is not None and decimal["exponent"] and abs(int(decimal["exponent"])) > MAX_EXPONENT:
        raise ValueError(f"{name} must have an exponent of at most {MAX_EXPONENT} in size, got {shown(text)}")
    try:
        return Fraction(stripped)
    except ZeroDivisionError:
        raise ValueError(f"{name} must be a number, got {shown(text)} (a zero denominator)") from None


def parse_integer(text: str, name: str) -> int:
    """A whole number given as digits or in scientific notation ("131072", "1e6"); ValueError otherwise."""
    value = parse_number(text, name)
    if value.denominator != 1:
        raise ValueError(f"{name} must be a whole number, got {shown(text)}")
    return value.numerator
