"""Floating-point storage types: float64, float32, float16 and bfloat16, with the widths the formulas use."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

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


def _numpy(scalar: type) -> Callable[[], DtypeSpec]:
    return lambda: _spec(np.dtype(scalar).name, scalar, np.finfo(scalar))


def _bfloat16() -> DtypeSpec:
    import ml_dtypes

    return _spec("bfloat16", ml_dtypes.bfloat16, ml_dtypes.finfo(ml_dtypes.bfloat16))


class _Registry(Mapping[str, DtypeSpec]):
    """The dtypes by name, each built when first asked for: ml_dtypes, which bfloat16 needs, takes most of a
    second to import, which a process that never meets bfloat16 (a worker of `pe-verify separation`) is
    spared."""

    def __init__(self, builders: Mapping[str, Callable[[], DtypeSpec]]) -> None:
        self._builders = dict(builders)
        self._built: dict[str, DtypeSpec] = {}

    def __getitem__(self, name: str) -> DtypeSpec:
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


DTYPES: Mapping[str, DtypeSpec] = _Registry(
    {
        "float64": _numpy(np.float64),
        "float32": _numpy(np.float32),
        "float16": _numpy(np.float16),
        "bfloat16": _bfloat16,
    }
)


def dtype_spec(dtype: str | DtypeSpec) -> DtypeSpec:
    """The registered dtype of that name (a `DtypeSpec` passes through unchanged)."""
    if isinstance(dtype, DtypeSpec):
        return dtype
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
    return DTYPES[dtype]
