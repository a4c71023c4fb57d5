"""Shaw et al. (2018) relative positions: query i meets key j at the offset R[i, j] = clip(j − i, −k, k).

The 2k + 1 offsets −k, …, k index a learned table through R + k (tensor2tensor's
``_generate_relative_positions_matrix``). The checks take the matrix as a callable
``relative_positions(n_q, n_k, max_distance)`` and return a `CheckResult` with tolerance 0 (integers).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np

from .checking import CheckResult

RelativePositions = Callable[[int, int, int], np.ndarray]


def clipped_relative_positions(n_q: int, n_k: int, max_distance: int) -> np.ndarray:
    """R[i, j] = clip(j − i, −k, k) for i < n_q, j < n_k, k = max_distance: an (n_q, n_k) int64 matrix."""
    n_q, n_k = _require_nonnegative_int(n_q, "n_q"), _require_nonnegative_int(n_k, "n_k")
    k = _require_nonnegative_int(max_distance, "max_distance")
    offsets = np.arange(n_k, dtype=np.int64)[None, :] - np.arange(n_q, dtype=np.int64)[:, None]
    return np.clip(offsets, -k, k)


def relative_embedding_indices(n_q: int, n_k: int, max_distance: int) -> np.ndarray:
    """R + k: for each (i, j) the row, in 0, …, 2k, of a table of 2k + 1 relative embeddings."""
    return clipped_relative_positions(n_q, n_k, max_distance) + max_distance


def check_clipping(
    relative_positions: RelativePositions, n_q: int, n_k: int, max_distance: int
) -> CheckResult:
    """R[i, j] = j − i when |j − i| ≤ k and ±k beyond, entry by entry, against the definition written out."""
    got = _matrix(relative_positions, n_q, n_k, max_distance)
    k = max_distance
    expected = np.array([[min(max(j - i, -k), k) for j in range(n_k)] for i in range(n_q)], dtype=np.int64)
    errors = np.abs(got - expected.reshape(n_q, n_k))
    return _result(f"clipping R[i, j] = clip(j − i, −{k}, {k})", errors, got, expected)


def check_toeplitz(
    relative_positions: RelativePositions, n_q: int, n_k: int, max_distance: int
) -> CheckResult:
    """R[i + 1, j + 1] = R[i, j]: the matrix depends on j − i only, not on where the pair sits."""
    got = _matrix(relative_positions, n_q, n_k, max_distance)
    errors = np.zeros_like(got)
    errors[1:, 1:] = np.abs(got[1:, 1:] - got[:-1, :-1])
    shifted = np.zeros_like(got)
    shifted[1:, 1:] = got[:-1, :-1]
    return _result("Toeplitz structure R[i + 1, j + 1] = R[i, j]", errors, got, shifted)


def _require_nonnegative_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _matrix(relative_positions: RelativePositions, n_q: int, n_k: int, max_distance: int) -> np.ndarray:
    n_q, n_k = _require_nonnegative_int(n_q, "n_q"), _require_nonnegative_int(n_k, "n_k")
    _require_nonnegative_int(max_distance, "max_distance")
    matrix = np.asarray(relative_positions(n_q, n_k, max_distance))
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
