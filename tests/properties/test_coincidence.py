"""The intermediate-value root of document 003's argument: sin(ω·y0) = sin 1 for the encoding's own rows."""

from __future__ import annotations

from collections.abc import Iterable

import mpmath
import pytest

from pe_verify.properties.checks.exact_coincidence import intermediate_value_root
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


class ShiftedRows(Sinusoidal):
    """A broken row form: every position read one too far."""

    def rows_mp(self, positions: Iterable[object], dps: int = 50) -> list[list]:
        return super().rows_mp([p + 1 for p in positions], dps)


def test_the_root_gives_the_value_sin_one() -> None:
    root, residual = intermediate_value_root(Sinusoidal(6, 10000), 2)
    assert mpmath.nstr(root, 12) == "21.5443469003"
    assert residual < mpmath.mpf(10) ** -45
    with mpmath.workdps(50):
        assert abs(root - mpmath.asin(mpmath.sin(1)) * mpmath.cbrt(10000)) < mpmath.mpf(10) ** -45


def test_shifted_rows_miss_the_value() -> None:
    _, residual = intermediate_value_root(ShiftedRows(6, 10000), 2)
    assert residual > mpmath.mpf(10) ** -3


@pytest.mark.parametrize(("dim", "dps"), [(1, 50), (6, 50), (2, 20)])
def test_bad_input_is_rejected(dim: int, dps: int) -> None:
    with pytest.raises(ValueError):
        intermediate_value_root(Sinusoidal(6, 10000), dim, dps)
