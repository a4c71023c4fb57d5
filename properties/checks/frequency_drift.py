"""The common code's float32 frequencies against the exact ω_i = base^(−2i/d): exp magnifies the exponent's
rounding.

The code computes ω_i as exp(x_i) with x_i = 2i·float32(−ln base/d) in float32. Rounding x_i moves it by up to
about |x_i|·2^−24 (the constant, then the product), and exp turns an absolute error δ of its argument into a
relative error δ of its value: about 2|x_i| float32 ulps, on top of exp's own rounding. The drift is measured
against a 50-digit mpmath reference, entry by entry, from a `sinusoidal.Sinusoidal`'s `code_exponents` and
`code_frequencies`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath

from ..encodings.sinusoidal import Sinusoidal

#: Digits of the mpmath reference.
REFERENCE_DPS = 50


@dataclass(frozen=True)
class FrequencyDrift:
    """How far the float32 frequencies are from the exact base^(−2i/d), in float32 ulps, against a bound."""

    d: int
    max_ulps: float
    at_index: int | None
    max_relative: float
    excess_over_exponent_error: float
    exp_ulps: float


def float32_ulps(value: float, exact: mpmath.mpf) -> float:
    """|value − exact| in float32 ulps of the exact value (whose binade fixes the ulp)."""
    return float(abs(mpmath.mpf(value) - exact)) / 2.0 ** (math.frexp(float(exact))[1] - 24)


def reference_error_bound(value: float) -> float:
    """The error bound of a float computed from the 50-digit reference (an error in ulps, a relative error):
    its final rounding to float64, plus far more than the reference's own error (about 10^(−50) relative)."""
    return 2.0**-52 * abs(value) + 1e-40


def frequency_drift(encoding: Sinusoidal) -> FrequencyDrift:
    """Each frequency's error in float32 ulps of the exact base^(−2i/d) (mpmath, 50 digits); how far it
    exceeds the 2|x_i| ulps that the rounding of the exponent x_i = −2i·ln(base)/d explains; and the error of
    the float32 exp alone, measured on the rounded exponents it was given. The index of the largest error is
    kept only when no other comes within the measurement's error bound of it."""
    d, base = encoding.d, float(encoding.base)
    exponents, computed = encoding.code_exponents(), encoding.code_frequencies()
    errors, relative, excess, library = [], 0.0, -math.inf, 0.0
    with mpmath.workdps(REFERENCE_DPS):
        exact_frequencies = encoding.frequencies_mp(REFERENCE_DPS)
        for i, (x, value, exact) in enumerate(zip(exponents, computed, exact_frequencies, strict=True)):
            ulps = float32_ulps(float(value), exact)
            errors.append(ulps)
            excess = max(excess, ulps - 2 * (2 * i * math.log(base) / d) * (1 + 2.0**-20))
            relative = max(relative, float(abs(mpmath.mpf(float(value)) - exact) / exact))
            library = max(library, float32_ulps(float(value), mpmath.exp(mpmath.mpf(float(x)))))
    worst = max(errors)
    bound = reference_error_bound(worst)
    ranked = sorted(errors)
    at = errors.index(worst) if len(ranked) < 2 or ranked[-1] - ranked[-2] > 2 * bound else None
    return FrequencyDrift(d, worst, at, relative, excess, library)
