"""The sinusoidal encoding is length-free: one free symbol, prefix tables, d/2 norms; broken twins fail."""

from __future__ import annotations

from collections.abc import Iterable

import mpmath
import numpy as np
import pytest
import sympy as sp

from pe_verify.properties.checks.extrapolation import angle_free_symbols, squared_norm_error, table_is_prefix
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

P = sp.Symbol("p", integer=True)


class LengthScaled(Sinusoidal):
    """A broken table whose positions are divided by the table length (p/n, as if normalised)."""

    def float64_rows(self, positions: Iterable[float] | np.ndarray) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.float64)
        return super().float64_rows(positions / len(positions))


class Doubled(Sinusoidal):
    """A broken row form: every value twice too large."""

    def rows_mp(self, positions: Iterable[object], dps: int = 50) -> list[list]:
        return [[2 * value for value in row] for row in super().rows_mp(positions, dps)]


@pytest.mark.slow
def test_the_position_is_the_only_free_symbol() -> None:
    assert angle_free_symbols(Sinusoidal(512, 10000), P) == {P}
    omega = sp.Symbol("omega", positive=True)
    assert angle_free_symbols(Sinusoidal(2, omegas=(omega,)), P) == {P, omega}


def test_tables_are_prefixes_of_longer_tables() -> None:
    assert table_is_prefix(Sinusoidal(64, 10000), 256, 1024)
    assert not table_is_prefix(LengthScaled(64, 10000), 256, 1024)
    with pytest.raises(ValueError, match="long must be at least short"):
        table_is_prefix(Sinusoidal(8, 10000), 16, 8)


def test_the_norm_stays_d_over_two_far_away() -> None:
    assert squared_norm_error(Sinusoidal(512, 10000), 10**12) < mpmath.mpf(10) ** -40
    assert squared_norm_error(Doubled(8, 10000), 10**12) > 1
    with pytest.raises(ValueError, match="even d"):
        squared_norm_error(Sinusoidal(5, 10000), 3)
