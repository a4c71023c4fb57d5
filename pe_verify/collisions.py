"""`pe-verify collisions`: the settings read from the command line and the analysis of
`properties.analyses.collisions` run on them, with every refusal stated in terms of the command's flags.

The parser has checked the range of every setting (`pe_verify.inputs`). The analysis estimates what each
answer needs before anything is allocated and refuses settings beyond the memory and time limits; here such a
refusal also names the flags that lower the estimate or raise the limit. A base is echoed as typed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from pe_verify.inputs import MAX_MEMORY_GIB, MAX_MINUTES, SCAN_VALUES, Base
from pe_verify.properties.analyses import collisions
from pe_verify.properties.analyses.collisions import (
    GIB,
    MEMORY,
    TIME,
    Answer,
    LimitExceeded,
    require_analysable_base,
)

#: What to change when the estimate of each resource exceeds its limit.
ADVICE = {
    MEMORY: "lower --d, --max-pos or --scan-values, or raise --max-memory",
    TIME: "lower --d or --max-pos, or raise --max-minutes",
}


@dataclass(frozen=True)
class CollisionsRecord:
    """What `collisions --json` answers: the base exactly (an integer, else a ratio as text) and as float64,
    and each answer under its name."""

    base: int | str
    base_float64: float
    answers: dict[str, Answer]


def parse_base(text: str) -> Fraction:
    """A base given as text ("10000", "5e5", "1.5", "3/2") as the exact rational it denotes.

    It must exceed 1, and so must its nearest float64 (`inputs.Base`: the dtype experiments and scans compute
    in floating point); its numerator and denominator must factor quickly (the exact answers need the
    factorisation). Messages echo the text as given.
    """
    return require_analysable_base(Base().value(text), text.strip())


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
    """`properties.analyses.collisions.analyse` on settings from the command line (the parser has checked
    their ranges, `inputs`): a ValueError for settings beyond the limits adds what to change (`ADVICE`)."""
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
