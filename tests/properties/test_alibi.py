"""ALiBi: the derivations verify, the reference `Alibi` passes every check, broken twins fail it.

A broken twin is an `Alibi` subclass overriding the one form it breaks: `exponents` for a wrong slope rule
(every other slope form and the bias follow it), `slopes` for a float64 rule, `bias` for a wrong bias.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import find, given
from hypothesis import strategies as st

from pe_verify.proofs import alibi as alibi_proofs
from pe_verify.proofs.derivation import Derivation
from pe_verify.properties.encodings.alibi import (
    Alibi,
    alibi_bias,
    alibi_slopes,
    alibi_slopes_exact,
    check_bias_depends_on_offset,
    check_slopes_exact,
    check_slopes_geometric,
    check_softmax_weight_ratio,
    has_geometric_exponents,
    has_slopes,
    interleaves_two_geometric_sequences,
)
from pe_verify.properties.numerics.checking import EPS64

DERIVATIONS = [value for value in vars(alibi_proofs).values() if isinstance(value, Derivation)]

heads = st.integers(min_value=1, max_value=16)
lengths = st.integers(min_value=2, max_value=40)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _largest_power_of_two(n: int) -> int:
    return 1 << (n.bit_length() - 1)


class FairseqStyle(Alibi):
    """The reference rule in the floating-point form of fairseq's get_slopes: start·ratio^i."""

    def slopes(self, n_heads: int) -> np.ndarray:
        return np.array(self._fairseq(n_heads))

    def _fairseq(self, n: int) -> list[float]:
        if math.log2(n).is_integer():
            start = 2 ** (-(2 ** -(math.log2(n) - 3)))
            return [start * start**i for i in range(n)]
        closest = _largest_power_of_two(n)
        return self._fairseq(closest) + self._fairseq(2 * closest)[0::2][: n - closest]


class SlopesFromZero(Alibi):
    """Broken: h counted from 0, so the first head has slope 2^0 = 1."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(-8 * h, n_heads) for h in range(n_heads))


class NaiveFormula(Alibi):
    """Broken for n not a power of two: 2^(−8h/n) for every n, ignoring the reference rule."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(-8 * h, n_heads) for h in range(1, n_heads + 1))


class OddEntries(Alibi):
    """Broken for n not a power of two: the extra slopes taken from entries 1, 3, 5, … of the 2c sequence."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        c = _largest_power_of_two(n_heads)
        return super().exponents(c) + super().exponents(2 * c)[1::2][: n_heads - c]


class WithoutEveryOther(Alibi):
    """Broken for n not a power of two: the first n − c slopes of the 2c sequence, not every other one."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        c = _largest_power_of_two(n_heads)
        return super().exponents(c) + super().exponents(2 * c)[: n_heads - c]


def _offsets(n_q: int, n_k: int) -> np.ndarray:
    return np.arange(n_q)[:, None] - np.arange(n_k)[None, :]


def _masked(values: np.ndarray, offset: np.ndarray) -> np.ndarray:
    return np.where(offset[None] < 0, -np.inf, values)


class SignFlipped(Alibi):
    """Broken: +m·(i − j), which rewards distance (still a function of i − j)."""

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        offset = _offsets(n_q, n_k)
        return _masked(self.slopes(n_heads)[:, None, None] * offset[None], offset)


class PlusQueryPenalty(Alibi):
    """Broken: −m·(i − j) − m·i, which depends on the query position i as well as on i − j."""

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        penalty = self.slopes(n_heads)[:, None, None] * np.arange(n_q)[None, :, None]
        return super().bias(n_q, n_k, n_heads) - penalty


class FairseqRows(Alibi):
    """fairseq's tensor: m·j on row i, keys j > i masked (that is −m·(i − j) plus the row constant m·i)."""

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        row = self.slopes(n_heads)[:, None, None] * np.arange(n_k)[None, None, :]
        return _masked(np.broadcast_to(row, (n_heads, n_q, n_k)), _offsets(n_q, n_k))


class HeadsReversed(Alibi):
    """Broken: the bias of head h uses the slope of head n − 1 − h."""

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        return super().bias(n_q, n_k, n_heads)[::-1]


class MasksDiagonal(Alibi):
    """Broken: an off-by-one mask that hides the query's own key (j ≥ i masked instead of j > i)."""

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        return np.where(_offsets(n_q, n_k)[None] <= 0, -np.inf, super().bias(n_q, n_k, n_heads))


@pytest.mark.slow
@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = derivation.verify()
    assert result.verified, [(s.claim, s.error) for s in result.steps if not s.holds]


def test_every_alibi_claim_has_a_derivation() -> None:
    assert {d.id for d in DERIVATIONS} == {
        "alibi.offset_only",
        "alibi.softmax_ratio",
        "alibi.slopes_power_of_two",
        "alibi.slopes_other_counts",
        "alibi.linear_penalty",
        "alibi.slope_reach",
    }


@pytest.mark.twin("alibi.linear_penalty")
def test_a_quadratic_penalty_fails_the_linearity_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(alibi_proofs, "penalty", lambda i, j: -alibi_proofs.SLOPE * (i - j) ** 2)
    assert not alibi_proofs.linear_penalty.verify().verified


@pytest.mark.twin("alibi.offset_only")
@pytest.mark.slow
def test_a_bias_of_i_plus_j_fails_the_offset_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    def absolute(i: sp.Expr, j: sp.Expr) -> sp.Expr:
        return sp.Piecewise((-alibi_proofs.SLOPE * (i + j), j <= i), (-sp.oo, True))

    monkeypatch.setattr(alibi_proofs, "causal_bias", absolute)
    holds = [step.holds for step in alibi_proofs.offset_only.verify().steps]
    assert not holds[0] and all(holds[1:])


@pytest.mark.twin("alibi.slopes_other_counts")
@pytest.mark.slow
def test_one_geometric_sequence_for_every_count_fails_the_other_counts_derivation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def one_sequence(n: int) -> list[sp.Expr]:
        return [sp.Integer(2) ** sp.Rational(-8 * h, n) for h in range(1, n + 1)]

    monkeypatch.setattr(alibi_proofs, "interleaved_slopes", one_sequence)
    assert not alibi_proofs.slopes_other_counts.verify().verified


@pytest.mark.twin("alibi.slope_reach")
@pytest.mark.slow
def test_weights_normalised_without_the_exponential_fail_the_reach_derivation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(alibi_proofs, "softmax", lambda logits: [x / sp.Add(*logits) for x in logits])
    holds = [step.holds for step in alibi_proofs.slope_reach_order.verify().steps]
    assert not holds[0] and all(holds[1:])


def test_slope_reach_is_exact_and_falls_with_the_slope() -> None:
    slopes = Alibi().slopes_exact(8)
    reach = alibi_proofs.slope_reach(slopes, 100)
    assert [m for m, _, _ in reach] == slopes
    assert all(sp.simplify(sp.exp(-m * r) - sp.Rational(1, 10)) == 0 for m, r, _ in reach)
    ordered = sorted(reach, key=lambda head: head[0])
    assert all(bool(a[1] > b[1]) and bool(a[2] < b[2]) for a, b in itertools.pairwise(ordered))


def test_exact_slopes_of_six_heads_follow_the_reference_rule() -> None:
    assert [str(e) for e in Alibi().exponents(6)] == ["-2", "-4", "-6", "-8", "-1", "-3"]


def test_module_conveniences_are_the_reference_object() -> None:
    for n in (1, 6, 8, 12):
        assert alibi_slopes_exact(n) == Alibi().exponents(n)
        assert np.array_equal(alibi_slopes(n), Alibi().slopes(n))
        for causal in (True, False):
            assert np.array_equal(alibi_bias(5, 7, alibi_slopes(n), causal), Alibi(causal).bias(5, 7, n))


@pytest.mark.slow
def test_float64_mpmath_and_sympy_slopes_agree_with_the_exact_exponents() -> None:
    alibi = Alibi()
    for n in range(1, 65):
        exponents = alibi.exponents(n)
        floats, mps, exact = alibi.slopes(n), alibi.slopes_mp(n, dps=50), alibi.slopes_exact(n)
        assert floats.dtype == np.float64 and len(floats) == len(mps) == len(exact) == len(exponents) == n
        for e, x, y, z in zip(exponents, floats, mps, exact, strict=True):
            assert z**e.denominator == sp.Integer(2) ** e.numerator, (n, e, z)  # z = 2^e exactly
            with mpmath.workdps(60):
                true = mpmath.power(2, mpmath.mpf(e.numerator) / e.denominator)
                assert abs(mpmath.mpf(str(sp.N(z, 60))) / true - 1) <= mpmath.mpf(10) ** -55, (n, e)
                assert abs(y / true - 1) <= mpmath.mpf(10) ** -48, (n, e)
                assert abs(mpmath.mpf(float(x)) / true - 1) <= EPS64, (n, e)


@pytest.mark.slow
def test_reference_slopes_match_the_exact_variant_for_every_head_count_up_to_256() -> None:
    assert [n for n in range(1, 257) if not check_slopes_exact(Alibi(), n)] == []


@pytest.mark.slow
def test_fairseq_floating_point_slopes_pass_within_the_slope_tolerance() -> None:
    assert [n for n in range(1, 257) if not check_slopes_exact(FairseqStyle(), n)] == []
    assert all(check_slopes_geometric(FairseqStyle(), 2**k) for k in range(9))


@given(k=st.integers(min_value=0, max_value=10))
def test_slopes_for_powers_of_two_are_geometric(k: int) -> None:
    result = check_slopes_geometric(Alibi(), 2**k)
    assert result, result


@given(k=st.integers(min_value=0, max_value=10))
def test_slopes_counted_from_zero_fail_both_slope_checks(k: int) -> None:
    assert not check_slopes_geometric(SlopesFromZero(), 2**k)
    assert not check_slopes_exact(SlopesFromZero(), 2**k)


def _not_a_power_of_two(n: int) -> bool:
    return bool(n & (n - 1))


@given(n=st.integers(min_value=3, max_value=256).filter(_not_a_power_of_two))
def test_wrong_rules_for_other_head_counts_fail(n: int) -> None:
    assert not check_slopes_exact(NaiveFormula(), n)
    assert not check_slopes_exact(OddEntries(), n)


@pytest.mark.slow
def test_taking_the_2c_sequence_without_skipping_fails_from_two_extra_heads_on() -> None:
    def extra_heads(n: int) -> int:
        return n - _largest_power_of_two(n)

    twin = WithoutEveryOther()
    failing = find(st.integers(min_value=1, max_value=256), lambda n: not check_slopes_exact(twin, n))
    assert extra_heads(failing) >= 2
    # With one extra head both rules take 2^(−4/c); from two on they differ, for every n up to 256.
    assert all(bool(check_slopes_exact(twin, n)) == (extra_heads(n) <= 1) for n in range(1, 257))


@given(n_heads=heads, n_q=lengths, n_k=lengths, causal=st.booleans())
def test_reference_bias_depends_on_offset_only(n_heads: int, n_q: int, n_k: int, causal: bool) -> None:
    result = check_bias_depends_on_offset(Alibi(causal=causal), n_heads, n_q, n_k)
    assert result, result


@given(n_heads=heads, n_q=lengths, n_k=lengths)
def test_bias_depending_on_query_position_fails_the_offset_check(n_heads: int, n_q: int, n_k: int) -> None:
    assert not check_bias_depends_on_offset(PlusQueryPenalty(), n_heads, n_q, n_k)


@given(n_heads=heads, n=lengths, scale=st.floats(min_value=0.0, max_value=20.0), seed=seeds)
def test_softmax_weight_ratio_is_exp_of_slope_times_distance(
    n_heads: int, n: int, scale: float, seed: int
) -> None:
    # Content scores up to 20 and biases up to m·40 < 40 keep every weight far from float64 underflow.
    content = np.random.default_rng(seed).uniform(-scale, scale, size=(n, n))
    result = check_softmax_weight_ratio(Alibi(), n_heads, n, content)
    assert result, result
    assert result.witness["underflowed_pairs"] == 0


@given(n_heads=heads, n=lengths)
def test_sign_flipped_bias_fails_the_softmax_ratio_check(n_heads: int, n: int) -> None:
    assert check_bias_depends_on_offset(SignFlipped(), n_heads, n, n)
    assert not check_softmax_weight_ratio(SignFlipped(), n_heads, n)


@given(n_heads=st.integers(min_value=2, max_value=16), n=lengths)
def test_slopes_on_the_wrong_heads_fail_the_softmax_ratio_check(n_heads: int, n: int) -> None:
    assert not check_softmax_weight_ratio(HeadsReversed(), n_heads, n)


def test_mask_hiding_the_diagonal_fails_the_softmax_ratio_check() -> None:
    result = check_softmax_weight_ratio(MasksDiagonal(), 8, 12)
    assert not result
    assert result.max_error == math.inf


@given(n_heads=heads, n=lengths)
def test_fairseq_row_constant_bias_gives_alibi_attention_but_is_not_a_function_of_offset(
    n_heads: int, n: int
) -> None:
    assert check_softmax_weight_ratio(FairseqRows(), n_heads, n)
    assert check_softmax_weight_ratio(PlusQueryPenalty(), n_heads, n)
    assert not check_bias_depends_on_offset(FairseqRows(), n_heads, n, n)


def test_non_causal_bias_is_the_symmetric_variant() -> None:
    assert alibi_bias(3, 3, [0.5], causal=False)[0].tolist() == [
        [0.0, -0.5, -1.0],
        [-0.5, 0.0, -0.5],
        [-1.0, -0.5, 0.0],
    ]
    assert Alibi(causal=False).bias(3, 3, 8)[0].tolist() == [  # m_1 = 2^(−1) for 8 heads
        [0.0, -0.5, -1.0],
        [-0.5, 0.0, -0.5],
        [-1.0, -0.5, 0.0],
    ]


def test_a_twin_with_bad_slopes_fails_instead_of_raising() -> None:
    class NegativeSlopes(Alibi):
        def slopes(self, n_heads: int) -> np.ndarray:
            return -super().slopes(n_heads)

    for result in (
        check_slopes_exact(NegativeSlopes(), 4),
        check_softmax_weight_ratio(NegativeSlopes(), 4, 5),
    ):
        assert not result and result.witness["reason"] == "not n finite slopes"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Alibi().slopes(0), "n_heads must be a positive integer"),
        (lambda: Alibi().slopes(-4), "n_heads must be a positive integer"),
        (lambda: alibi_slopes(8.0), "n_heads must be a positive integer"),
        (lambda: Alibi().exponents(True), "n_heads must be a positive integer"),
        (lambda: Alibi().slopes_exact(0), "n_heads must be a positive integer"),
        (lambda: Alibi().slopes_mp(4, dps=0), "dps must be a positive integer"),
        (lambda: Alibi().bias(4, 4, 0), "n_heads must be a positive integer"),
        (lambda: Alibi().bias(-1, 4, 1), "n_q must be a positive integer"),
        (lambda: alibi_bias(-1, 4, [0.5]), "n_q must be a positive integer"),
        (lambda: alibi_bias(4, 2.5, [0.5]), "n_k must be a positive integer"),
        (lambda: alibi_bias(4, 4, [0.5, math.nan]), "slopes must be finite"),
        (lambda: alibi_bias(4, 4, []), "slopes must be a non-empty 1-D array"),
        (lambda: alibi_bias(4, 4, [[0.5]]), "slopes must be a non-empty 1-D array"),
        (lambda: alibi_bias(4, 4, [-0.5]), "slopes must be positive"),
        (lambda: alibi_bias(4, 4, ["a"]), "slopes must be real numbers"),
        (lambda: alibi_bias(4, 4, [0.5], causal="yes"), "causal must be True or False"),
        (lambda: Alibi(causal="yes"), "causal must be True or False"),
        (lambda: check_slopes_geometric(Alibi(), 6), "n_heads must be a power of two"),
        (lambda: check_bias_depends_on_offset(Alibi(), 1, 1, 4), "need n_q ≥ 2 and n_k ≥ 2"),
        (lambda: check_bias_depends_on_offset(Alibi(), 0, 4, 4), "n_heads must be a positive integer"),
        (lambda: check_softmax_weight_ratio(Alibi(), 1, 1), "need at least 2 positions"),
        (
            lambda: check_softmax_weight_ratio(Alibi(), 1, 3, np.ones((2, 2))),
            r"content must be an \(3, 3\) array",
        ),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------ exact slope sequences


@pytest.mark.slow
def test_powers_of_two_have_geometric_exponents_and_other_counts_do_not() -> None:
    assert all(has_geometric_exponents(Alibi(), 2**k) for k in range(11))
    assert not any(has_geometric_exponents(Alibi(), n) for n in range(3, 257) if n & (n - 1))


@given(k=st.integers(min_value=0, max_value=10))
def test_slopes_counted_from_zero_are_not_the_geometric_sequence(k: int) -> None:
    assert not has_geometric_exponents(SlopesFromZero(), 2**k)


@pytest.mark.slow
def test_other_counts_interleave_two_geometric_sequences() -> None:
    assert all(interleaves_two_geometric_sequences(Alibi(), n) for n in range(1, 257))


@given(n=st.integers(min_value=3, max_value=256).filter(_not_a_power_of_two))
def test_wrong_rules_do_not_interleave_two_geometric_sequences(n: int) -> None:
    assert not interleaves_two_geometric_sequences(NaiveFormula(), n)
    assert not interleaves_two_geometric_sequences(OddEntries(), n)
    extra = n - _largest_power_of_two(n)
    assert interleaves_two_geometric_sequences(WithoutEveryOther(), n) == (extra == 1)  # one extra: the same


def test_the_reference_slopes_are_fairseqs_computed_exactly() -> None:
    for n in (*(2**k for k in range(7)), 3, 5, 6, 7, 12, 20, 24, 40):
        assert has_slopes(Alibi(), n, alibi_proofs.reference_slopes(n)), n
    assert not has_slopes(SlopesFromZero(), 8, alibi_proofs.reference_slopes(8))
    assert not has_slopes(NaiveFormula(), 6, alibi_proofs.reference_slopes(6))
    assert not has_slopes(Alibi(), 8, alibi_proofs.reference_slopes(8)[:-1])
