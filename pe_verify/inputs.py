"""Numbers typed on the command line, read exactly and within stated ranges, and the default limits.

Nothing here imports the numerical libraries, so the command line can check its arguments (and print its
help) at once. A number is read from at most `MAX_TEXT` characters and with a decimal exponent of at most
`MAX_EXPONENT` in size, so that no input can make the exact arithmetic behind it run for long: `1e100000000`
is refused before any digit of it is computed. `nan` and `inf` are no numbers here. The rules:

- a whole-number option (`Whole`) is read exactly (`1e6` is 1000000, `2.5` is refused) and must lie in its
  range, which its help and its error message state;
- a real option (`Real`: limits in GiB or minutes) is read into float64, so it may be written with at most
  `FLOAT64_DIGITS` significant digits (17 tell any two float64 apart; more would be dropped silently), in
  each part of a ratio such as 3/2, and must lie in its range;
- a base (`Base`) must exceed 1, and so must its nearest float64, which must be finite: every command
  computes with it in floating point. `collisions` and `separation` otherwise read it exactly, every digit
  kept; `check` reads it into float64, so there the digit rule of real options applies too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

#: Values the cross-dimension scan sorts at most (positions × d); beyond it the scan covers fewer positions.
SCAN_VALUES = 2 * 10**7

#: Memory the collision analysis may plan to use, in GiB (`--max-memory`).
MAX_MEMORY_GIB = 4.0

#: Estimated running time a command may plan to take, in minutes (`--max-minutes`).
MAX_MINUTES = 10.0

#: Longest number text read, and the largest decimal exponent accepted (float64 ends near 1.8e308).
MAX_TEXT = 100
MAX_EXPONENT = 400

#: Significant digits a number read into float64 may have.
FLOAT64_DIGITS = 17

#: Largest d of `collisions` and `separation`: their estimates refuse far less at the default limits.
MAX_D = 2**20
#: Largest number of positions of `collisions` (`near_collision.MAX_POSITION`: accurate float64 values).
MAX_POSITIONS = 2**32
#: Largest offset bound of `separation` (`separation.MAX_SEPARATION_OFFSET`: 128-bit turn positions).
MAX_OFFSET = 2**62
#: Largest table `collisions` can be asked to scan: d × positions.
MAX_SCAN_VALUES = MAX_D * MAX_POSITIONS
#: Local worker processes of `separation --workers`, and chunks of a range (`--chunks`).
MAX_WORKERS = 256
MAX_CHUNKS = 2**16
#: Largest planned context of `model` (`model_setup.MAX_CONTEXT`: positions up to 2^24 are whole numbers in
#: float32; the Men et al. scan and the least-base search cover at most 2^23 offsets of a layer group).
MAX_MODEL_CONTEXT = 2**24
#: Largest d and positions of `check` (RoPE identification rotates d basis vectors at once, d² values, and
#: the sinusoidal distinct-rows scan covers every position), its largest ALiBi head count (a bias call
#: returns heads × 128² values) and its largest Hypothesis budget (the time estimate refuses much less at the
#: default limit).
CHECK_MAX_D = 4096
CHECK_MAX_POSITIONS = 2**24
#: `check`'s default and range of `--timeout` (seconds one call of the implementation may take) and of
#: `--target-memory` (GiB its child process may add).
TIMEOUT_SECONDS, TIMEOUT_RANGE = 10, (Fraction(1, 100), Fraction(3600))
TARGET_MEMORY_GIB, TARGET_MEMORY_RANGE = 4, (Fraction(1, 100), Fraction(1024))
CHECK_MAX_HEADS = 1024
CHECK_MAX_EXAMPLES = 10**9
#: Seeds of `check`: any 64-bit unsigned integer.
MAX_SEED = 2**64 - 1
#: Largest memory and time limits, in GiB and minutes; the least of each.
MAX_LIMIT = 10**6
MIN_LIMIT = Fraction(1, 1000)

#: Numbers are written in ASCII digits: `re.ASCII` keeps `\d` from matching the digits of other scripts
#: (１２３, ١٢٣), which int() and Fraction() would read.
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exponent>[+-]?\d+))?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)
_MANTISSA = re.compile(r"[eE]")


def shown(text: str, limit: int = 40) -> str:
    """`text` quoted for a message, cut to `limit` characters (the rest is counted, not echoed)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


def written(value: int | Fraction) -> str:
    """A range's end as people write it: 2^20, 2^64 − 1, 10^6, 0.001, 4096."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return str(float(value))
    number = int(value)
    if number >= 2**16 and number & (number - 1) == 0:
        return f"2^{number.bit_length() - 1}"
    if number >= 2**16 and number & (number + 1) == 0:
        return f"2^{number.bit_length()} − 1"
    if number >= 10**5 and str(number).rstrip("0") == "1":
        return f"10^{len(str(number)) - 1}"
    return str(number)


def parse_number(text: str, name: str) -> Fraction:
    """The exact rational a decimal ("10000", "5e5", "1.5") or a ratio ("3/2") in ASCII digits denotes;
    ValueError naming `name` for anything else (digits of other scripts such as "１２３" included), for text
    longer than MAX_TEXT and for exponents beyond ±MAX_EXPONENT."""
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


def significant_digits(text: str) -> int:
    """The significant digits of a number's text (`parse_number` accepts it): those from the first nonzero
    digit to the last, of the larger part of a ratio."""
    parts = text.strip().lstrip("+-").split("/")
    digits = (_MANTISSA.split(part)[0].replace(".", "").strip("0") for part in parts)
    return max(len(part) for part in digits)


def require_float64_digits(text: str, name: str) -> None:
    """ValueError when `text` has more significant digits than a number read into float64 may have."""
    if significant_digits(text) > FLOAT64_DIGITS:
        raise ValueError(
            f"{name} is read into float64 and may have at most {FLOAT64_DIGITS} significant digits, got "
            f"{shown(text.strip())}"
        )


@dataclass(frozen=True)
class Whole:
    """A whole-number option from `low` to `high` (only even numbers when `even`); calling it on the text
    typed gives the int, or a ValueError stating the range."""

    name: str
    low: int
    high: int
    even: bool = False

    @property
    def range(self) -> str:
        kind = "an even whole number" if self.even else "a whole number"
        return f"{kind} from {written(self.low)} to {written(self.high)}"

    def __call__(self, text: str) -> int:
        try:
            value = parse_integer(text, self.name)
        except ValueError:
            value = None
        if value is None or not self.low <= value <= self.high or (self.even and value % 2):
            raise ValueError(f"{self.name} must be {self.range}, got {shown(text.strip())}")
        return value


@dataclass(frozen=True)
class Real:
    """A real option from `low` to `high`, read into float64 (at most FLOAT64_DIGITS significant digits);
    calling it on the text typed gives the float, or a ValueError stating the range."""

    name: str
    low: Fraction
    high: Fraction

    @property
    def range(self) -> str:
        return f"a number from {written(self.low)} to {written(self.high)}"

    def __call__(self, text: str) -> float:
        try:
            value = parse_number(text, self.name)
        except ValueError:
            value = None
        if value is None or not self.low <= value <= self.high:
            raise ValueError(f"{self.name} must be {self.range}, got {shown(text.strip())}")
        require_float64_digits(text, self.name)
        return float(value)


@dataclass(frozen=True)
class Base:
    """A base option: a number greater than 1 whose nearest float64 is finite and greater than 1 (with at
    most FLOAT64_DIGITS significant digits when `float64`, as the command reads it into float64). Calling it
    gives the text typed, stripped (commands echo it); `value` the exact rational."""

    name: str = "base"
    float64: bool = False

    @property
    def range(self) -> str:
        return "a number greater than 1 (in float64 too) whose float64 value is finite"

    def __call__(self, text: str) -> str:
        self.value(text)
        return text.strip()

    def value(self, text: str) -> Fraction:
        """The exact rational `text` denotes, or a ValueError saying which rule it breaks."""
        value = parse_number(text, self.name)
        written_as = text.strip()
        if value <= 1:
            raise ValueError(f"{self.name} must be a number greater than 1, got {shown(written_as)}")
        if self.float64:
            require_float64_digits(text, self.name)
        try:
            nearest = float(value)
        except OverflowError:
            nearest = float("inf")
        if nearest == float("inf"):
            raise ValueError(
                f"{self.name} {written_as} is beyond the largest float64 (about 1.8e308), and the "
                "computations need its float64 value"
            )
        if nearest <= 1:
            raise ValueError(
                f"{self.name} {written_as} is greater than 1 but its nearest float64 is {nearest!r}, and the "
                "computations need a base whose float64 value exceeds 1"
            )
        return value
