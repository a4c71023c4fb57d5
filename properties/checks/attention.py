"""Self-attention without positions is permutation-equivariant: Attn(PX) = P·Attn(X), not invariant.

Permuting the tokens permutes the rows of Q, K and V alike, so every score, and every softmax weight, moves
with its pair of tokens; the outputs come out permuted the same way. A causal mask or a position-dependent
term breaks this. Invariance, Attn(PX) = Attn(X), holds only after pooling over the tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..numerics.checking import CheckResult

Attention = Callable[[np.ndarray], np.ndarray]

#: Default relative tolerance of the permutation checks (see `check_permutation_equivariance`).
PERMUTATION_RTOL = 1e-9


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax(s)_j = exp(s_j)/Σ_k exp(s_k), computed as exp(s_j − max s)/Σ_k exp(s_k − max s): no overflow.

    Entries equal to −∞ (masked scores) get weight 0; each slice along `axis` needs one finite score.
    """
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    weights = np.exp(shifted)
    return weights / np.sum(weights, axis=axis, keepdims=True)


def self_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    causal: bool = False,
) -> np.ndarray:
    """softmax(Q Kᵀ/√d_k) V with Q = x W_Q, K = x W_K, V = x W_V; row i is the output of token i (row i of x).

    With `causal`, token i attends only to tokens j ≤ i (scores with j > i are set to −∞ before the softmax).
    """
    x = _require_matrix(x, "x")
    n, d_model = x.shape
    w_q = _require_weights(w_q, "w_q", d_model)
    w_k = _require_weights(w_k, "w_k", d_model)
    w_v = _require_weights(w_v, "w_v", d_model)
    if w_q.shape != w_k.shape:
        raise ValueError(
            f"w_q and w_k must have the same shape (queries and keys share d_k), "
            f"got {w_q.shape} and {w_k.shape}"
        )
    scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(w_q.shape[1])
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    return softmax(scores) @ (x @ w_v)


def check_permutation_equivariance(
    attn: Attention,
    x: np.ndarray,
    perm: Sequence[int],
    rtol: float = PERMUTATION_RTOL,
) -> CheckResult:
    """attn(P x) = P attn(x), where (P x)_i = x_perm[i]: permuting the tokens permutes the outputs alike.

    The tolerance is rtol·max(1, largest |output|). Both sides are the same float64 operations in another
    order, so they differ by a few ε·(n + d) times the outputs' scale (ε ≈ 2.2·10⁻¹⁶), plus score errors
    that the softmax passes on at most linearly: rtol = 10⁻⁹ leaves room for scores up to about 10⁵,
    while a mask or a positional term changes outputs by amounts of the order of the outputs themselves.
    """
    x, perm = _require_matrix(x, "x"), _require_permutation(perm, len(x))
    output = np.asarray(attn(x), dtype=np.float64)
    if output.ndim == 0 or len(output) != len(x):
        raise ValueError(
            f"attn must return one row per token ({len(x)}) for equivariance to make sense, "
            f"got shape {output.shape}"
        )
    return _compare("attn(P x) = P attn(x)", attn(x[perm]), output[perm], rtol, perm)


def check_permutation_invariance(
    attn: Attention,
    x: np.ndarray,
    perm: Sequence[int],
    rtol: float = PERMUTATION_RTOL,
) -> CheckResult:
    """attn(P x) = attn(x): the output does not change at all when the tokens are permuted.

    Self-attention itself fails this whenever its output rows differ (it is equivariant, not invariant);
    a pooled output, such as the mean over tokens, passes. Tolerance as in `check_permutation_equivariance`.
    """
    x, perm = _require_matrix(x, "x"), _require_permutation(perm, len(x))
    return _compare("attn(P x) = attn(x)", attn(x[perm]), attn(x), rtol, perm)


def _compare(name: str, lhs: np.ndarray, rhs: np.ndarray, rtol: float, perm: np.ndarray) -> CheckResult:
    lhs, rhs = np.asarray(lhs, dtype=np.float64), np.asarray(rhs, dtype=np.float64)
    if lhs.shape != rhs.shape or not lhs.size:
        raise ValueError(
            f"attn must return non-empty arrays of one shape, got {lhs.shape} for the permuted "
            f"input and {rhs.shape} for x"
        )
    errors = np.abs(lhs - rhs)
    index = np.unravel_index(int(np.argmax(errors)), errors.shape)
    max_error = float(errors[index])
    tolerance = rtol * max(1.0, float(np.max(np.abs(lhs))), float(np.max(np.abs(rhs))))
    witness = {
        "perm": perm.tolist(),
        "entry": tuple(int(i) for i in index),
        "lhs": float(lhs[index]),
        "rhs": float(rhs[index]),
    }
    return CheckResult(name, bool(max_error <= tolerance), max_error, tolerance, witness)


def _require_matrix(value: object, name: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows × columns), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite; got NaN or infinity")
    return array.astype(np.float64)


def _require_weights(value: object, name: str, d_model: int) -> np.ndarray:
    w = _require_matrix(value, name)
    if w.shape[0] != d_model:
        raise ValueError(f"{name} must have one row per feature of x ({d_model}), got shape {w.shape}")
    return w


def _require_permutation(perm: Sequence[int], n: int) -> np.ndarray:
    order = np.asarray(perm)
    if order.dtype.kind not in "iu" or order.shape != (n,) or sorted(order.tolist()) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0, …, {n - 1} (one entry per token), got {perm!r}")
    return order
