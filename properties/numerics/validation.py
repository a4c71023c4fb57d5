"""Input checks shared by every encoder: a user's mistake becomes a ValueError that says what is allowed."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

#: Largest integer up to which every integer is exactly representable in float64.
FLOAT64_EXACT_INT = 2**53


def require_positive_int(value: object, name: str) -> int:
    """`value` as an int when it is a positive integer (bools and non-integral floats rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def require_even_dimension(value: object, name: str = "d") -> int:
    """`value` as an int when it is a positive even integer (RoPE rotates coordinates in pairs)."""
    d = require_positive_int(value, name)
    if d % 2:
        raise ValueError(f"{name} must be even (coordinates are rotated in pairs), got {d}")
    return d


def require_base(value: object, name: str = "base") -> float:
    """`value` as a float when it is a finite real number greater than 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number greater than 1, got {value!r}")
    if not math.isfinite(float(value)) or value <= 1:
        raise ValueError(f"{name} must be a finite real number greater than 1, got {value}")
    return float(value)


def require_positive_real(value: object, name: str) -> float:
    """`value` as a float when it is a finite real number greater than 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive real number, got {value!r}")
    if not math.isfinite(float(value)) or value <= 0:
        raise ValueError(f"{name} must be a finite positive real number, got {value}")
    return float(value)


def require_positions(positions: object, name: str = "positions") -> np.ndarray:
    """Positions as a float64 array: finite, real, and exactly representable (|p| ≤ 2**53 for integers)."""
    try:
        array = np.asarray(positions)
    except Exception as exc:
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from None
    if array.dtype == object and all(isinstance(p, numbers.Integral) for p in array.reshape(-1)):
        raise _beyond_float64(name)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(f"{name} must be real numbers, got dtype {array.dtype}")
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite; got NaN or infinity")
    if array.size and (array.max() > FLOAT64_EXACT_INT or array.min() < -FLOAT64_EXACT_INT):
        raise _beyond_float64(name)
    return array.astype(np.float64)


def _beyond_float64(name: str) -> ValueError:
    return ValueError(
        f"{name} beyond 2**53 are not exactly representable in float64; "
        "use the mpmath encoder for larger positions"
    )


def exact_decimal(value: Fraction) -> str | None:
    """`value` written out as an exact decimal ("12.5", "10000"), or None when its expansion does not end
    (its denominator has a prime factor other than 2 and 5)."""
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        return None
    places = max(twos, fives)
    digits = str(abs(value.numerator * 10**places // value.denominator)).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return sign + (digits if not places else f"{digits[:-places]}.{digits[-places:]}")
