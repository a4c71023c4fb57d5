"""The code's float32 frequencies: correctly rounded exp, drift within 2|x_i| ulps + 3; float16 breaks it."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.checks.frequency_drift import float32_ulps, frequency_drift, reference_error_bound
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


class HalfFrequencies(Sinusoidal):
    """div_term rounded through float16 on the way."""

    def code_frequencies(self) -> np.ndarray:
        return super().code_frequencies().astype(np.float16).astype(np.float32)


@pytest.mark.parametrize("d", [6, 512])
def test_div_term_is_the_correctly_rounded_float32_exp_of_its_exponents(d: int) -> None:
    encoding = common_code_encoding(d, "float32")
    exponents, computed = encoding.code_exponents(), encoding.code_frequencies()
    assert computed.dtype == np.float32 and exponents.dtype == np.float32
    for x, value in zip(exponents, computed, strict=True):
        with mpmath.workprec(120):
            exact = mpmath.exp(mpmath.mpf(float(x)))
        with mpmath.workprec(24):
            assert float(value) == float(+exact)


@pytest.mark.slow
@pytest.mark.parametrize("d", [6, 512, 4096])
def test_the_drift_is_explained_by_the_rounded_exponent(d: int) -> None:
    drift = frequency_drift(common_code_encoding(d, "float32"))
    assert drift.excess_over_exponent_error <= 3.0 and drift.exp_ulps <= 0.5 + 1e-9
    assert drift.max_ulps > 0 and drift.max_relative < 1e-5


def test_a_half_precision_div_term_breaks_the_bound() -> None:
    assert frequency_drift(HalfFrequencies(512, dtype="float32")).excess_over_exponent_error > 3.0


def test_ulps_are_counted_in_the_exact_value_s_binade() -> None:
    assert float32_ulps(1.0 + 2.0**-23, mpmath.mpf(1)) == pytest.approx(1.0)
    assert reference_error_bound(4.0) == 2.0**-50 + 1e-40
