"""Correctly rounded elementary functions in a low-precision dtype: round_p(f(x)), a property of the format.

A platform's float32 sin, cos, exp or pow may be off the exact value by a few units in the last place, and
which few depends on the CPU and the library (numpy picks SIMD kernels at run time). The correctly rounded
value — the exact f(x) rounded to nearest in the dtype — is the same everywhere, so measurements built from it
are properties of the dtype, not of the machine.

It is computed as float64 f(x) rounded to the dtype, which is the correct rounding unless the exact value
and the float64 one lie on different sides of a rounding midpoint. Any libm is within 2^(−40) relative of
the exact value, so only values within that distance of a midpoint can be wrong (within 2^(−22) for dtypes
narrower than float32, which ml_dtypes rounds through float32, twice); those few are decided again at
`CHECK_BITS` bits with mpmath, choosing the nearest of the neighbouring values of the dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np

from .dtypes import DtypeSpec, dtype_spec

#: Relative distance from a rounding midpoint below which the float64 value does not decide the rounding:
#: the libm's error, and for dtypes narrower than float32 the first of the two roundings through float32.
MARGIN = 2.0**-40
NARROW_MARGIN = 2.0**-22
#: Working precision (bits) of the mpmath recomputation near a midpoint.
CHECK_BITS = 160
#: Mantissa bits a float64 loses when rounded to a normal float32.
_FLOAT32_DROPPED_BITS = 52 - 23

_FUNCTIONS: dict[str, tuple[Callable[..., np.ndarray], Callable[..., mpmath.mpf]]] = {
    "sin": (np.sin, mpmath.sin),
    "cos": (np.cos, mpmath.cos),
    "exp": (np.exp, mpmath.exp),
    "pow": (np.power, mpmath.power),
}


def _spacing(values: np.ndarray, spec: DtypeSpec) -> tuple[np.ndarray, np.ndarray]:
    """The spacing of the dtype above |v| and whether |v| is a normal power of two (where the spacing
    below is half of it), for values v of the dtype held in float64: read off the bits of the float64, which
    hold every value of a dtype narrower than float64 exactly (zero gets the subnormal spacing)."""
    bits = np.abs(values).view(np.int64)
    floor_log2 = np.maximum((bits >> 52) - 1023, spec.min_exponent)
    power_of_two = (bits & ((1 << 52) - 1) == 0) & (floor_log2 > spec.min_exponent)
    return ((floor_log2 - spec.nmant + 1023) << 52).view(np.float64), power_of_two


def _neighbours(values: np.ndarray, spec: DtypeSpec) -> tuple[np.ndarray, np.ndarray]:
    """The values of the dtype next below and next above each v."""
    above, power_of_two = _spacing(values, spec)
    below = np.where(power_of_two, above / 2, above)
    negative = values < 0
    return values - np.where(negative, above, below), values + np.where(negative, below, above)


def correctly_rounded(name: str, dtype: str | DtypeSpec, *args: np.ndarray) -> np.ndarray:
    """f(*args) correctly rounded to `dtype` (round to nearest), for f in sin, cos, exp, pow (x ** y).

    The arguments are taken as the exact values they hold (cast them to the dtype first to model code that
    computes in it); the result is an array of the dtype.
    """
    if name not in _FUNCTIONS:
        raise ValueError(f"function must be one of {', '.join(_FUNCTIONS)}, got {name!r}")
    spec = dtype_spec(dtype)
    if spec.nmant > 23:
        raise ValueError(f"correct rounding is computed for float32 and narrower dtypes, not {spec.name}")
    inputs = np.broadcast_arrays(*(np.asarray(arg, dtype=np.float64) for arg in args))
    approx = np.asarray(_FUNCTIONS[name][0](*inputs), dtype=np.float64)
    if not np.all(np.isfinite(approx)):
        raise ValueError(f"{name} overflows float64 on these arguments")
    rounded = np.asarray(spec.cast(approx))
    flat = rounded.reshape(-1)
    doubtful = _doubtful(approx.reshape(-1), flat, spec)
    held = flat[doubtful].astype(np.float64)
    lower, upper = _neighbours(held, spec)
    flat_inputs = [arg.reshape(-1) for arg in inputs]
    exact = _FUNCTIONS[name][1]
    with mpmath.workprec(CHECK_BITS):
        for index, low, value_held, high in zip(doubtful, lower, held, upper, strict=True):
            value = exact(*(mpmath.mpf(float(arg[index])) for arg in flat_inputs))
            flat[index] = min((low, value_held, high), key=lambda c: abs(mpmath.mpf(c) - value))
    return rounded


def _doubtful(approx: np.ndarray, rounded: np.ndarray, spec: DtypeSpec) -> np.ndarray:
    """The indices of the float64 values `approx` whose exact value may round to another value of the dtype
    than `rounded` (their rounding): those within the libm's error of a rounding midpoint."""
    if spec.nmant != 23:
        return np.flatnonzero(_near_midpoint(approx, rounded.astype(np.float64), spec, NARROW_MARGIN))
    # A float32 midpoint in the binade of a normal value v is a float64 whose low 29 mantissa bits are 2^28.
    # The exact value is within 2^(−40)·|v| < 2^13 float64 ulps of v, so only a v whose low bits lie within
    # 2^13 of 2^28 can round otherwise (a midpoint of another binade is 2^(−25)·|v| away). Values outside
    # float32's normal range take the general test.
    bits = approx.view(np.int64)
    ulps = int(MARGIN * 2.0**53)
    low_bits = (bits + (ulps - (1 << (_FLOAT32_DROPPED_BITS - 1)))) & ((1 << _FLOAT32_DROPPED_BITS) - 1)
    exponent = (bits >> 52) & 2047
    top = math.frexp(spec.max_finite)[1] - 1
    near = low_bits <= 2 * ulps
    abnormal = np.flatnonzero((exponent < 1023 + spec.min_exponent) | (exponent > 1023 + top))
    if abnormal.size:
        near[abnormal] = _near_midpoint(approx[abnormal], rounded[abnormal].astype(np.float64), spec, MARGIN)
    return np.flatnonzero(near)


def _near_midpoint(approx: np.ndarray, rounded: np.ndarray, spec: DtypeSpec, margin: float) -> np.ndarray:
    """Whether each exact value may lie across a rounding midpoint from `approx`: |approx − rounded| within
    `margin`·|rounded| of half the spacing above |rounded| or of half the spacing below (a quarter of the one
    above at a power of two); both are tested, which flags a few more values than the side the residual lies
    on."""
    half = _spacing(rounded, spec)[0] / 2
    residual = np.abs(approx - rounded)
    allowed = margin * np.maximum(np.abs(rounded), 2.0**spec.min_exponent)
    return (np.abs(residual - half) <= allowed) | (np.abs(residual - half / 2) <= allowed)
