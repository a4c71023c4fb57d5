"""ALiBi: the derivations verify, the reference slopes and bias pass every check, broken ones fail it."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from pe_verify.proofs import alibi as alibi_proofs
from pe_verify.proofs.derivation import Derivation
from pe_verify.properties.alibi import (
    alibi_bias,
    alibi_slopes,
    alibi_slopes_exact,
    check_bias_depends_on_offset,
    check_slopes_exact,
    check_slopes_geometric,
    check_softmax_weight_ratio,
)

DERIVATIONS = [value for value in vars(alibi_proofs).values() if isinstance(value, Derivation)]

heads = st.integers(min_value=1, max_value=16)
lengths = st.integers(min_value=2, max_value=40)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def fairseq_style_slopes(n: int) -> list[float]:
    """The reference rule in the floating-point form of fairseq's get_slopes: start·ratio^i."""
    if math.log2(n).is_integer():
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]
    closest = 2 ** math.floor(math.log2(n))
    return fairseq_style_slopes(closest) + fairseq_style_slopes(2 * closest)[0::2][: n - closest]


def slopes_from_zero(n: int) -> np.ndarray:
    """Broken: h counted from 0, so the first head has slope 2^0 = 1."""
    return 2.0 ** (-8.0 * np.arange(n) / n)


def slopes_naive_formula(n: int) -> np.ndarray:
    """Broken for n not a power of two: 2^(−8h/n) for every n, ignoring the reference rule."""
    return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)


def slopes_odd_entries(n: int) -> np.ndarray:
    """Broken for n not a power of two: the extra slopes taken from entries 1, 3, 5, … of the 2c sequence."""
    c = 2 ** math.floor(math.log2(n))
    return np.concatenate([alibi_slopes(c), alibi_slopes(2 * c)[1::2][: n - c]])


def slopes_without_every_other(n: int) -> np.ndarray:
    """Broken for n not a power of two: the first n − c slopes of the 2c sequence, not every other one."""
    c = 2 ** math.floor(math.log2(n))
    return np.concatenate([alibi_slopes(c), alibi_slopes(2 * c)[: n - c]])


def _offsets(n_q: int, n_k: int) -> np.ndarray:
    return np.arange(n_q)[:, None] - np.arange(n_k)[None, :]


def _masked(values: np.ndarray, offset: np.ndarray) -> np.ndarray:
    return np.where(offset[None] < 0, -np.inf, values)


def bias_sign_flipped(n_q: int, n_k: int, slopes: np.ndarray) -> np.ndarray:
    """Broken: +m·(i − j), which rewards distance (still a function of i − j)."""
    offset = _offsets(n_q, n_k)
    return _masked(slopes[:, None, None] * offset[None], offset)


def bias_plus_query_penalty(n_q: int, n_k: int, slopes: np.ndarray) -> np.ndarray:
    """Broken: −m·(i − j) − m·i, which depends on the query position i as well as on i − j."""
    return alibi_bias(n_q, n_k, slopes) - slopes[:, None, None] * np.arange(n_q)[None, :, None]


def bias_fairseq_rows(n_q: int, n_k: int, slopes: np.ndarray) -> np.ndarray:
    """fairseq's tensor: m·j on row i, keys j > i masked (that is −m·(i − j) plus the row constant m·i)."""
    offset = _offsets(n_q, n_k)
    return _masked(slopes[:, None, None] * np.arange(n_k)[None, None, :], offset)


def bias_heads_reversed(n_q: int, n_k: int, slopes: np.ndarray) -> np.ndarray:
    """Broken: head h gets the slope of head n − 1 − h."""
    return alibi_bias(n_q, n_k, slopes[::-1])


def bias_masks_diagonal(n_q: int, n_k: int, slopes: np.ndarray) -> np.ndarray:
    """Broken: an off-by-one mask that hides the query's own key (j ≥ i masked instead of j > i)."""
    offset = _offsets(n_q, n_k)
    return np.where(offset[None] <= 0, -np.inf, alibi_bias(n_q, n_k, slopes))


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = derivation.verify()
    assert result.verified, [(s.claim, s.error) for s in result.steps if not s.holds]


def test_every_alibi_claim_has_a_derivation() -> None:
    assert {d.id for d in DERIVATIONS} == {
        "alibi.offset_only", "alibi.softmax_ratio", "alibi.slopes_power_of_two", "alibi.slopes_other_counts",
    }


def test_exact_slopes_of_six_heads_follow_the_reference_rule() -> None:
    assert [str(e) for e in alibi_slopes_exact(6)] == ["-2", "-4", "-6", "-8", "-1", "-3"]


def test_reference_slopes_match_the_exact_variant_for_every_head_count_up_to_256() -> None:
    assert [n for n in range(1, 257) if not check_slopes_exact(alibi_slopes, n)] == []


def test_fairseq_floating_point_slopes_pass_within_the_slope_tolerance() -> None:
    assert [n for n in range(1, 257) if not check_slopes_exact(fairseq_style_slopes, n)] == []
    assert all(check_slopes_geometric(fairseq_style_slopes, 2**k) for k in range(9))


@given(k=st.integers(min_value=0, max_value=10))
def test_slopes_for_powers_of_two_are_geometric(k: int) -> None:
    result = check_slopes_geometric(alibi_slopes, 2**k)
    assert result, result


@given(k=st.integers(min_value=0, max_value=10))
def test_slopes_counted_from_zero_fail_both_slope_checks(k: int) -> None:
    assert not check_slopes_geometric(slopes_from_zero, 2**k)
    assert not check_slopes_exact(slopes_from_zero, 2**k)


@given(n=st.integers(min_value=3, max_value=256).filter(lambda n: n & (n - 1)))
def test_wrong_rules_for_other_head_counts_fail(n: int) -> None:
    assert not check_slopes_exact(slopes_naive_formula, n)
    assert not check_slopes_exact(slopes_odd_entries, n)


def test_taking_the_2c_sequence_without_skipping_fails_from_two_extra_heads_on() -> None:
    def extra_heads(n: int) -> int:
        return n - 2 ** math.floor(math.log2(n))

    failing = find(st.integers(min_value=1, max_value=256),
                   lambda n: not check_slopes_exact(slopes_without_every_other, n))
    assert extra_heads(failing) >= 2
    # With one extra head both rules take 2^(−4/c); from two on they differ, for every n up to 256.
    assert all(bool(check_slopes_exact(slopes_without_every_other, n)) == (extra_heads(n) <= 1)
               for n in range(1, 257))


@given(n_heads=heads, n_q=lengths, n_k=lengths, causal=st.booleans())
def test_reference_bias_depends_on_offset_only(n_heads: int, n_q: int, n_k: int, causal: bool) -> None:
    result = check_bias_depends_on_offset(partial(alibi_bias, causal=causal), alibi_slopes(n_heads), n_q, n_k)
    assert result, result


@given(n_heads=heads, n_q=lengths, n_k=lengths)
def test_bias_depending_on_query_position_fails_the_offset_check(n_heads: int, n_q: int, n_k: int) -> None:
    assert not check_bias_depends_on_offset(bias_plus_query_penalty, alibi_slopes(n_heads), n_q, n_k)


@given(n_heads=heads, n=lengths, scale=st.floats(min_value=0.0, max_value=20.0), seed=seeds)
def test_softmax_weight_ratio_is_exp_of_slope_times_distance(
    n_heads: int, n: int, scale: float, seed: int
) -> None:
    # Content scores up to 20 and biases up to m·40 < 40 keep every weight far from float64 underflow.
    content = np.random.default_rng(seed).uniform(-scale, scale, size=(n, n))
    result = check_softmax_weight_ratio(alibi_bias, alibi_slopes(n_heads), n, content)
    assert result, result
    assert result.witness["underflowed_pairs"] == 0


@given(n_heads=heads, n=lengths)
def test_sign_flipped_bias_fails_the_softmax_ratio_check(n_heads: int, n: int) -> None:
    assert check_bias_depends_on_offset(bias_sign_flipped, alibi_slopes(n_heads), n, n)
    assert not check_softmax_weight_ratio(bias_sign_flipped, alibi_slopes(n_heads), n)


@given(n_heads=st.integers(min_value=2, max_value=16), n=lengths)
def test_slopes_on_the_wrong_heads_fail_the_softmax_ratio_check(n_heads: int, n: int) -> None:
    assert not check_softmax_weight_ratio(bias_heads_reversed, alibi_slopes(n_heads), n)


def test_mask_hiding_the_diagonal_fails_the_softmax_ratio_check() -> None:
    result = check_softmax_weight_ratio(bias_masks_diagonal, alibi_slopes(8), 12)
    assert not result
    assert result.max_error == math.inf


@given(n_heads=heads, n=lengths)
def test_fairseq_row_constant_bias_gives_alibi_attention_but_is_not_a_function_of_offset(
    n_heads: int, n: int
) -> None:
    slopes = alibi_slopes(n_heads)
    assert check_softmax_weight_ratio(bias_fairseq_rows, slopes, n)
    assert check_softmax_weight_ratio(bias_plus_query_penalty, slopes, n)
    assert not check_bias_depends_on_offset(bias_fairseq_rows, slopes, n, n)


def test_non_causal_bias_is_the_symmetric_variant() -> None:
    bias = alibi_bias(3, 3, [0.5], causal=False)[0]
    assert bias.tolist() == [[0.0, -0.5, -1.0], [-0.5, 0.0, -0.5], [-1.0, -0.5, 0.0]]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: alibi_slopes(0), "n_heads must be a positive integer"),
    (lambda: alibi_slopes(-4), "n_heads must be a positive integer"),
    (lambda: alibi_slopes(8.0), "n_heads must be a positive integer"),
    (lambda: alibi_slopes_exact(True), "n_heads must be a positive integer"),
    (lambda: alibi_bias(-1, 4, [0.5]), "n_q must be a positive integer"),
    (lambda: alibi_bias(4, 2.5, [0.5]), "n_k must be a positive integer"),
    (lambda: alibi_bias(4, 4, [0.5, math.nan]), "slopes must be finite"),
    (lambda: alibi_bias(4, 4, []), "slopes must be a non-empty 1-D array"),
    (lambda: alibi_bias(4, 4, [[0.5]]), "slopes must be a non-empty 1-D array"),
    (lambda: alibi_bias(4, 4, [-0.5]), "slopes must be positive"),
    (lambda: alibi_bias(4, 4, ["a"]), "slopes must be real numbers"),
    (lambda: alibi_bias(4, 4, [0.5], causal="yes"), "causal must be True or False"),
    (lambda: check_slopes_geometric(alibi_slopes, 6), "n_heads must be a power of two"),
    (lambda: check_bias_depends_on_offset(alibi_bias, [0.5], 1, 4), "need n_q ≥ 2 and n_k ≥ 2"),
    (lambda: check_softmax_weight_ratio(alibi_bias, [0.5], 1), "need at least 2 positions"),
    (lambda: check_softmax_weight_ratio(alibi_bias, [0.5], 3, np.ones((2, 2))),
     r"content must be an \(3, 3\) array"),
])
def test_bad_input_is_rejected_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
