"""Rows at the first position collision of a dtype, and a-priori error bounds of the float64 table."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.analyses.table_precision import float64_table_bounds, rows_at_position_collision
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


@pytest.mark.parametrize(("dtype", "position"), [("float16", 2048), ("bfloat16", 256)])
def test_positions_held_in_the_dtype_give_identical_rows(dtype: str, position: int) -> None:
    found = rows_at_position_collision(common_code_encoding(16, dtype, positions_in_dtype=True))
    assert found.position == position and found.stored_value == position
    assert found.identical and found.agrees


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_exact_positions_keep_the_rows_apart(dtype: str) -> None:
    """The broken input: positions not rounded to the dtype, so p and p + 1 stay different."""
    assert not rows_at_position_collision(common_code_encoding(16, dtype)).identical


class Perturbed(Sinusoidal):
    """A broken float64 table: one entry of row 3 off by 1e-9."""

    def float64_rows(self, positions: np.ndarray) -> np.ndarray:
        rows = super().float64_rows(positions).copy()
        rows[3, 1] += 1e-9
        return rows


def _exact_errors(encoding: Sinusoidal, table: np.ndarray) -> np.ndarray:
    exact = Sinusoidal(encoding.d, encoding.base).rows_mp(range(table.shape[0]), dps=40)
    with mpmath.workdps(40):
        return np.array(
            [
                [float(abs(mpmath.mpf(v) - e)) for v, e in zip(row, ex, strict=True)]
                for row, ex in zip(table, exact, strict=True)
            ]
        )


@pytest.mark.parametrize("d", [6, 16])
def test_the_bounds_contain_the_float64_errors(d: int) -> None:
    encoding = Sinusoidal(d, 10000)
    table, bounds = float64_table_bounds(encoding, 32)
    assert table.shape == bounds.shape == (32, d)
    assert np.all(_exact_errors(encoding, table) <= bounds)
    assert bounds[0].tolist() == [0.0 if v == 0 else np.finfo(np.float64).eps * abs(v) for v in table[0]]


def test_a_perturbed_table_exceeds_its_bounds() -> None:
    table, bounds = float64_table_bounds(Perturbed(6, 10000), 8)
    assert not np.all(_exact_errors(Perturbed(6, 10000), table) <= bounds)
