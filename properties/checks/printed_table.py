"""A printed table of decimals against the values it stands for: round(x, n) decided in ball arithmetic.

A value x printed to n decimals is right when |x − printed| < ½·10^(−n). For an arb ball containing x that
margin is a ball too: when it is certainly positive the rounding is decided, when it straddles zero x is too
close to a rounding boundary to tell at the working precision. A float table (the document's code) is
compared with the same exact balls: the bound on its largest error, and its own four-decimal rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np

from ..numerics.validation import require_positive_int

#: (position, dim, printed, reference) for an entry where two tables differ.
Difference = tuple[int, int, str, str | None]


def decimal_text(value: float, decimals: int = 4) -> str:
    """`value` rounded to `decimals` decimals as Python prints it (−0 printed as 0)."""
    return f"{value + 0.0:.{decimals}f}"


@dataclass(frozen=True)
class Rounding:
    """A value rounded to n decimals, and its distance to the nearest rounding boundary (ball arithmetic);
    `text` is None when the ball straddles a boundary, so the rounding is not decided."""

    text: str | None
    margin: flint.arb
    digits: str


def certified_rounding(ball: flint.arb, prec: int, decimals: int = 4) -> Rounding:
    """Round the value to `decimals` decimals, proving at `prec` bits that it lies within ½·10^(−decimals) of
    the rounded text; `digits` is the value to ten significant digits."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        text = decimal_text(float(ball.mid()), decimals)
        margin = flint.arb(1) / (2 * 10**decimals) - abs(ball - flint.arb(text))
        return Rounding(text if bool(margin > 0) else None, margin, ball.str(10, radius=False))


@dataclass(frozen=True)
class TableRounding:
    """Every entry of a table of balls rounded to n decimals, and the entry closest to a rounding boundary."""

    entries: tuple[tuple[Rounding, ...], ...]
    closest: tuple[int, int]

    @property
    def texts(self) -> list[list[str | None]]:
        """The rounded entries (None where the rounding is not decided)."""
        return [[entry.text for entry in row] for row in self.entries]

    @property
    def decided(self) -> bool:
        """Every entry's rounding is decided."""
        return all(entry.text is not None for row in self.entries for entry in row)

    @property
    def margin(self) -> flint.arb:
        """The closest entry's distance to its rounding boundary."""
        p, j = self.closest
        return self.entries[p][j].margin


def table_rounding(balls: Sequence[Sequence[flint.arb]], prec: int, decimals: int = 4) -> TableRounding:
    """`certified_rounding` of every ball of the table, and the (position, dim) whose margin is least."""
    entries = tuple(tuple(certified_rounding(ball, prec, decimals) for ball in row) for row in balls)
    cells = [(p, j) for p, row in enumerate(entries) for j in range(len(row))]
    closest = min(cells, key=lambda cell: float(entries[cell[0]][cell[1]].margin.mid()))
    return TableRounding(entries, closest)


def rounded_table(values: np.ndarray, decimals: int = 4) -> list[list[str]]:
    """A float table rounded to `decimals` decimals, entry by entry, as it would be printed."""
    return [[decimal_text(float(value), decimals) for value in row] for row in values]


def table_error_bound(values: np.ndarray, balls: Sequence[Sequence[flint.arb]], prec: int) -> flint.arb:
    """An upper bound on max |value − exact| over a float table against the balls of its exact values."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        errors = [
            abs(flint.arb(float(value)) - ball)
            for row, ball_row in zip(values, balls, strict=True)
            for value, ball in zip(row, ball_row, strict=True)
        ]
        return max(errors, key=lambda ball: float(ball.mid())).abs_upper()


def table_differences(
    printed: Sequence[Sequence[str]], reference: Sequence[Sequence[str | None]]
) -> list[Difference]:
    """(position, dim, printed, reference) wherever the printed entry differs from the reference one."""
    return [
        (p, j, printed[p][j], reference[p][j])
        for p in range(len(printed))
        for j in range(len(printed[p]))
        if printed[p][j] != reference[p][j]
    ]
