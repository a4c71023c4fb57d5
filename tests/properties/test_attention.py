"""Self-attention is permutation-equivariant, attn(P x) = P attn(x); a causal mask or positions break that.

It is not permutation-invariant: attn(P x) = attn(x) fails as soon as two output rows differ, and holds
only after pooling over the tokens.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pe_verify.properties.checks.attention import (
    check_permutation_equivariance,
    check_permutation_invariance,
    self_attention,
    softmax,
)
from pe_verify.properties.encodings.sinusoidal import sinusoidal_encoding

AttentionCase = tuple[np.ndarray, tuple[np.ndarray, ...], list[int]]


@st.composite
def attention_inputs(draw: st.DrawFn, bound: float = 3.0) -> AttentionCase:
    """n ≤ 6 tokens of d_model ≤ 5 features, weights to d_k, d_v ≤ 4, entries in ±`bound`, a permutation."""
    n, d_model, d_k, d_v = (draw(st.integers(1, top)) for top in (6, 5, 4, 4))
    entries = st.floats(-bound, bound, allow_subnormal=False)
    x = draw(arrays(np.float64, (n, d_model), elements=entries))
    weights = tuple(draw(arrays(np.float64, (d_model, width), elements=entries)) for width in (d_k, d_k, d_v))
    return x, weights, draw(st.permutations(range(n)))


def attention(weights: tuple[np.ndarray, ...], causal: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """The reference self-attention with these weights, as a function of the tokens."""
    return lambda x: self_attention(x, *weights, causal=causal)


def with_positions(weights: tuple[np.ndarray, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """Attention over x + PE: token i carries the sinusoidal encoding of position i."""
    return lambda x: self_attention(x + sinusoidal_encoding(np.arange(len(x)), x.shape[1]), *weights)


def pooled(weights: tuple[np.ndarray, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """The mean of the attention outputs over the tokens (one row)."""
    return lambda x: self_attention(x, *weights).mean(axis=0, keepdims=True)


IDENTITY_2 = (np.eye(2), np.eye(2), np.eye(2))


@pytest.mark.slow
@given(attention_inputs())
def test_self_attention_is_permutation_equivariant(case: AttentionCase) -> None:
    x, weights, perm = case
    result = check_permutation_equivariance(attention(weights), x, perm)
    assert result.holds, result


@given(attention_inputs())
def test_pooled_attention_is_permutation_invariant(case: AttentionCase) -> None:
    x, weights, perm = case
    result = check_permutation_invariance(pooled(weights), x, perm)
    assert result.holds, result


def test_self_attention_is_not_permutation_invariant() -> None:
    """Swapping two distinct tokens swaps their outputs, which differ: attn(P x) ≠ attn(x)."""
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert check_permutation_equivariance(attention(IDENTITY_2), x, [1, 0]).holds
    result = check_permutation_invariance(attention(IDENTITY_2), x, [1, 0])
    assert not result.holds, result


def test_causal_attention_is_not_equivariant() -> None:
    """Tokens e_0, e_1 with W = I: causally, the first output is the first token's value, v_0 = x_0.

    After swapping, the first output is x_1, while P·attn(x) puts there the second output a·x_0 + b·x_1
    with a > 0 (softmax weights are positive): they differ by a·(x_1 − x_0) ≠ 0.
    """
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    result = check_permutation_equivariance(attention(IDENTITY_2, causal=True), x, [1, 0])
    assert not result.holds, result
    a = 1 / (1 + np.exp(1 / np.sqrt(2)))  # token 1 scores token 0 at 0 and itself at 1/√2
    assert result.max_error == pytest.approx(a, rel=1e-12)


def test_attention_with_positions_is_not_equivariant() -> None:
    """x = 0 makes P x = x, so the check compares attn(x) with its own rows permuted.

    Without positions all rows are equal and the check passes; the positional term makes the three
    tokens' outputs differ, so the permuted rows no longer match.
    """
    x, weights = np.zeros((3, 4)), (np.eye(4), np.eye(4), np.eye(4))
    assert check_permutation_equivariance(attention(weights), x, [2, 0, 1]).holds
    result = check_permutation_equivariance(with_positions(weights), x, [2, 0, 1])
    assert not result.holds, result


@pytest.mark.parametrize(
    "broken", [lambda w: attention(w, causal=True), with_positions], ids=["causal mask", "positional term"]
)
def test_search_finds_inputs_that_break_equivariance(broken: Callable) -> None:
    """Hypothesis, drawing from the inputs of the equivariance test, finds a counterexample for each twin."""

    def breaks(case: AttentionCase) -> bool:
        x, weights, perm = case
        return not check_permutation_equivariance(broken(weights), x, perm).holds

    x, weights, perm = find(attention_inputs(), breaks, settings=settings(phases=[Phase.generate]))
    assert not check_permutation_equivariance(broken(weights), x, perm).holds


@given(attention_inputs(bound=1.0))
def test_self_attention_is_the_softmax_weighted_sum_of_values(case: AttentionCase) -> None:
    """Row i equals Σ_j exp(s_ij) v_j / Σ_j exp(s_ij) with s_ij = q_i·k_j/√d_k, computed token by token.

    Entries in [−1, 1] keep |s_ij| ≤ 4·5²/2 = 50, so the unshifted exponentials cannot overflow.
    """
    x, (w_q, w_k, w_v), _ = case
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    for i, row in enumerate(self_attention(x, w_q, w_k, w_v)):
        weights = np.exp([q[i] @ k[j] / np.sqrt(w_q.shape[1]) for j in range(len(x))])
        np.testing.assert_allclose(row, weights @ v / weights.sum(), rtol=1e-9, atol=1e-9)


def test_softmax_of_large_scores_does_not_overflow() -> None:
    weights = softmax(np.array([[1000.0, 999.0, -1000.0], [-np.inf, 5.0, 5.0]]))
    e = np.exp(-1)
    np.testing.assert_allclose(weights, [[1 / (1 + e), e / (1 + e), 0], [0, 0.5, 0.5]])


def test_causal_first_token_sees_only_itself() -> None:
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    w = np.array([[1.0, 0.5], [-0.5, 2.0]])
    out = self_attention(x, w, w, np.eye(2), causal=True)
    np.testing.assert_array_equal(out[0], x[0])


I3 = np.eye(3)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: self_attention(np.ones(3), I3, I3, I3), "x must be a non-empty 2-D array"),
        (lambda: self_attention(np.ones((0, 3)), I3, I3, I3), "x must be a non-empty 2-D"),
        (lambda: self_attention(np.ones((2, 3)), np.eye(2), I3, I3), "w_q must have one row per feature"),
        (
            lambda: self_attention(np.ones((2, 3)), np.ones((3, 2)), np.ones((3, 4)), I3),
            "w_q and w_k must have the same shape",
        ),
        (lambda: self_attention(np.ones((2, 3)), I3, I3, np.ones((3, 0))), "w_v must be a non-empty"),
        (lambda: self_attention(np.array([[np.nan, 0.0]]), *IDENTITY_2), "x must be finite"),
        (lambda: self_attention([["a", "b"]], *IDENTITY_2), "x must be an array of real numbers"),
        (
            lambda: check_permutation_equivariance(attention(IDENTITY_2), np.eye(2), [0, 0]),
            "perm must be a permutation of 0, …, 1",
        ),
        (lambda: check_permutation_equivariance(attention(IDENTITY_2), np.eye(2), [0, 1, 2]), "perm must be"),
        (
            lambda: check_permutation_equivariance(lambda x: x[:1], np.eye(2), [1, 0]),
            "attn must return one row",
        ),
        (
            lambda: check_permutation_invariance(lambda x: np.ones((0, 2)), np.eye(2), [1, 0]),
            "attn must return non-empty",
        ),
    ],
)
def test_bad_input_is_rejected(call: Callable, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
