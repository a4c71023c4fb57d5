"""Floating-point storage types: float64, float32, float16 and bfloat16, with the widths the formulas use."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class DtypeSpec:
    """A floating-point storage type: its numpy scalar type, the mantissa width m the formulas use, its
    largest finite value and the exponent of its smallest normal number."""

    name: str
    scalar: type
    nmant: int
    max_finite: float
    min_exponent: int

    def cast(self, values: object) -> np.ndarray:
        """`values` rounded to this dtype (beyond the largest finite value they become inf, as numpy does)."""
        with np.errstate(over="ignore"):
            return np.asarray(values).astype(self.scalar)

    @property
    def bits(self) -> type:
        """The unsigned integer type of the same width, to compare stored values bit for bit."""
        return np.dtype(f"u{np.dtype(self.scalar).itemsize}").type


def _spec(name: str, scalar: type, info: np.finfo) -> DtypeSpec:
    return DtypeSpec(name, scalar, int(info.nmant), float(info.max), int(info.minexp))


DTYPES: dict[str, DtypeSpec] = {
    "float64": _spec("float64", np.float64, np.finfo(np.float64)),
    "float32": _spec("float32", np.float32, np.finfo(np.float32)),
    "float16": _spec("float16", np.float16, np.finfo(np.float16)),
    "bfloat16": _spec("bfloat16", ml_dtypes.bfloat16, ml_dtypes.finfo(ml_dtypes.bfloat16)),
}


def dtype_spec(dtype: str | DtypeSpec) -> DtypeSpec:
    """The registered dtype of that name (a `DtypeSpec` passes through unchanged)."""
    if isinstance(dtype, DtypeSpec):
        return dtype
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
    return DTYPES[dtype]
