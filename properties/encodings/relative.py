"""Shaw et al. (2018) relative positions: query i meets key j at the offset R[i, j] = clip(j − i, −k, k).

One object per variant, `ClippedRelative(max_distance)`, declares k and offers the forms the checks read:

* `positions(n_q, n_k)`: the (n_q, n_k) int64 matrix R;
* `indices(n_q, n_k)`: R + k, the rows 0, …, 2k of a learned table of 2k + 1 relative embeddings
  (tensor2tensor's ``_generate_relative_positions_matrix``);
* `offset_exact(i, j)`: the SymPy expression clip(j − i, −k, k) for symbolic or exact i, j.

A broken twin (an implementation a check must reject) is a subclass overriding `positions`. The checks take
the object and return a `CheckResult` with tolerance 0 (integers).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..numerics.checking import CheckResult


@dataclass(frozen=True)
class ClippedRelative:
    """Relative positions clipped at distance k = `max_distance` (k ≥ 0), in every form."""

    max_distance: int

    def __post_init__(self) -> None:
        _require_nonnegative_int(self.max_distance, "max_distance")

    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        """R[i, j] = clip(j − i, −k, k) for i < n_q, j < n_k: an (n_q, n_k) int64 matrix."""
        n_q, n_k = _require_nonnegative_int(n_q, "n_q"), _require_nonnegative_int(n_k, "n_k")
        offsets = np.arange(n_k, dtype=np.int64)[None, :] - np.arange(n_q, dtype=np.int64)[:, None]
        return np.clip(offsets, -self.max_distance, self.max_distance)

    def indices(self, n_q: int, n_k: int) -> np.ndarray:
        """R + k: for each (i, j) the row, in 0, …, 2k, of a table of 2k + 1 relative embeddings."""
        return self.positions(n_q, n_k) + self.max_distance

    def offset_exact(self, i: sp.Expr | int, j: sp.Expr | int) -> sp.Expr:
        """clip(j − i, −k, k) as a SymPy expression."""
        k = sp.Integer(self.max_distance)
        return sp.Min(sp.Max(sp.sympify(j) - sp.sympify(i), -k), k)


def check_clipping(relative: ClippedRelative, n_q: int, n_k: int) -> CheckResult:
    """R[i, j] = j − i when |j − i| ≤ k and ±k beyond, entry by entry, against the definition written out."""
    got = _matrix(relative, n_q, n_k)
    k = relative.max_distance
    expected = np.array([[min(max(j - i, -k), k) for j in range(n_k)] for i in range(n_q)], dtype=np.int64)
    errors = np.abs(got - expected.reshape(n_q, n_k))
    return _result(f"clipping R[i, j] = clip(j − i, −{k}, {k})", errors, got, expected)


def check_toeplitz(relative: ClippedRelative, n_q: int, n_k: int) -> CheckResult:
    """R[i + 1, j + 1] = R[i, j]: the matrix depends on j − i only, not on where the pair sits."""
    got = _matrix(relative, n_q, n_k)
    errors = np.zeros_like(got)
    errors[1:, 1:] = np.abs(got[1:, 1:] - got[:-1, :-1])
    shifted = np.zeros_like(got)
    shifted[1:, 1:] = got[:-1, :-1]
    return _result("Toeplitz structure R[i + 1, j + 1] = R[i, j]", errors, got, shifted)


def _require_nonnegative_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _matrix(relative: ClippedRelative, n_q: int, n_k: int) -> np.ndarray:
    n_q, n_k = _require_nonnegative_int(n_q, "n_q"), _require_nonnegative_int(n_k, "n_k")
    matrix = np.asarray(relative.positions(n_q, n_k))
    if matrix.shape != (n_q, n_k):
        raise ValueError(f"the relative-position matrix must have shape {(n_q, n_k)}, got {matrix.shape}")
    if matrix.dtype.kind not in "iu":
        raise ValueError(f"the relative-position matrix must hold integers, got dtype {matrix.dtype}")
    return matrix.astype(np.int64)


def _result(name: str, errors: np.ndarray, got: np.ndarray, expected: np.ndarray) -> CheckResult:
    if errors.size == 0:
        return CheckResult(name, True, 0.0, 0.0)
    i, j = np.unravel_index(int(np.argmax(errors)), errors.shape)
    witness = {"i": int(i), "j": int(j), "got": int(got[i, j]), "expected": int(expected[i, j])}
    max_error = float(errors[i, j])
    return CheckResult(name, max_error == 0, max_error, 0.0, witness)


def t5_buckets(offsets: np.ndarray, num_buckets: int, max_distance: int, bidirectional: bool) -> np.ndarray:
    """T5's bucket of each relative offset j − i (Raffel et al. 2020; transformers'
    ``T5Attention._relative_position_bucket``): half the buckets per direction when `bidirectional`; within a
    direction, offsets below half its buckets get one bucket each, larger ones share log-spaced buckets up
    to `max_distance`, and every offset from there on falls in the last bucket. Computed in float64 (the
    reference takes the logarithm in float32)."""
    relative = np.asarray(offsets, dtype=np.int64)
    buckets = np.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative > 0).astype(np.int64) * num_buckets
        distance = np.abs(relative)
    else:
        distance = -np.minimum(relative, 0)
    exact = num_buckets // 2
    small = distance < exact
    with np.errstate(divide="ignore"):
        large = exact + (
            np.log(np.maximum(distance, 1) / exact) / math.log(max_distance / exact) * (num_buckets - exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return buckets + np.where(small, distance, large)
