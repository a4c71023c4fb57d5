"""`pe-verify collisions`: the settings read from the command line and the analysis of
`properties.collisions` run on them, with every refusal stated in terms of the command's flags.

The analysis estimates what each answer needs before anything is allocated and refuses settings beyond the
memory and time limits; here such a refusal also names the flags that lower the estimate or raise the limit.
Settings are named in messages as their flags are (`max-pos`, `scan-values`) and a base is echoed as typed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from pe_verify.inputs import MAX_MEMORY_GIB, MAX_MINUTES, SCAN_VALUES, parse_number, shown
from pe_verify.properties import collisions
from pe_verify.properties.collisions import GIB, MEMORY, TIME, Answer, LimitExceeded, require_analysable_base
from pe_verify.properties.near_collision import MAX_POSITION
from pe_verify.properties.validation import require_positive_int

#: What to change when the estimate of each resource exceeds its limit.
ADVICE = {
    MEMORY: "lower --d, --max-pos or --scan-values, or raise --max-memory",
    TIME: "lower --d or --max-pos, or raise --max-minutes",
}


def parse_base(text: str) -> Fraction:
    """A base given as text ("10000", "5e5", "1.5", "3/2") as the exact rational it denotes.

    It must exceed 1, and so must its nearest float64 (the dtype experiments and scans compute in floating
    point); its numerator and denominator must factor quickly (the exact answers need the factorisation).
    Messages echo the text as given.
    """
    value = parse_number(text, "base")
    if value <= 1:
        raise ValueError(f"base must be a number greater than 1, got {shown(text.strip())}")
    return require_analysable_base(value, text.strip())


def analyse(
    d: int,
    base: Fraction,
    max_pos: int,
    dtype: str,
    scan_values: int = SCAN_VALUES,
    *,
    max_bytes: float = MAX_MEMORY_GIB * GIB,
    max_seconds: float = MAX_MINUTES * 60,
    on_answer: Callable[[str], None] | None = None,
) -> dict[str, Answer]:
    """`properties.collisions.analyse` on settings from the command line: a ValueError for settings out of
    range names the flag, and one for settings beyond the limits adds what to change (`ADVICE`)."""
    require_positive_int(d, "d")
    max_pos = require_positive_int(max_pos, "max-pos")
    require_positive_int(scan_values, "scan-values")
    if max_pos < 2:
        raise ValueError(f"max-pos must be at least 2 (two positions to compare), got {max_pos}")
    if max_pos > MAX_POSITION:
        raise ValueError(
            f"max-pos must be at most 2^32 = {MAX_POSITION} (the scans' accurate float64 values need "
            f"positions below it), got {max_pos}"
        )
    try:
        return collisions.analyse(
            d,
            base,
            max_pos,
            dtype,
            scan_values,
            max_bytes=max_bytes,
            max_seconds=max_seconds,
            on_answer=on_answer,
        )
    except LimitExceeded as exc:
        raise LimitExceeded(f"{exc}: {ADVICE[exc.resource]}", exc.resource) from None
