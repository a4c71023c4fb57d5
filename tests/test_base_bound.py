"""`properties/base_bound.py`: the float64 scan of B(m) = Σ cos(m·θ_i) within its a-priori bound, its sign
decisions against a direct sum and against balls, the search over two-digit bases, and broken criteria (a
wrong frequency exponent, a dropped term, a bound too tight to hold) that must change the outcome."""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import numpy as np
import pytest

from pe_verify.properties import base_bound as bb
from pe_verify.properties.frequencies import frequencies, frequency_arb


def direct_sums(base: float, limit: int, d: int = 128) -> np.ndarray:
    """B(m), m ≤ limit, as np.cos of every angle summed: the oracle the blocked matrix products must match."""
    theta = frequencies(d, base, count=d // 2)
    return np.cos(np.outer(np.arange(limit + 1, dtype=np.float64), theta)).sum(axis=1)


def scanned_values(cosine: bb.CosineSum, limit: int) -> np.ndarray:
    return np.concatenate([values for _, values in bb.float_blocks(cosine.theta, limit)])


def double_exponent(base: Fraction | int, d: int = 128) -> bb.CosineSum:
    """A broken criterion: θ_i = b^(−4i/d), the exponent doubled (frequencies of the base squared)."""
    base = Fraction(base)
    theta = frequencies(d, float(base) ** 2, count=d // 2)
    return bb.CosineSum(base, d, theta, lambda i, ball: frequency_arb(i, d, ball * ball))


def last_term_dropped(base: Fraction | int, d: int = 128) -> bb.CosineSum:
    """A broken criterion: the sum stops at i = d/2 − 2, the slowest frequency left out."""
    good = bb.cosine_sum(base, d)
    return bb.CosineSum(good.base, d, good.theta[:-1], good.frequency)


@pytest.mark.parametrize("base", [Fraction(11, 10), Fraction(4300), Fraction(640000), Fraction(35 * 10**7)])
def test_the_blocked_values_are_within_the_bound_of_balls_at_sampled_positions(base: Fraction) -> None:
    limit = 2**20
    cosine = bb.cosine_sum(base)
    values, bound = scanned_values(cosine, limit), bb.scan_error(limit, base, 64)
    assert values.shape == (limit + 1,)
    rng = np.random.default_rng(7)
    for m in [0, 1, 255, 256, 257, limit, *rng.integers(0, limit, 40)]:
        ball = cosine.ball(int(m))
        assert abs(float(ball.mid()) - values[m]) <= bound, (base, m)


def test_the_blocked_values_match_the_direct_sum() -> None:
    cosine = bb.cosine_sum(27000)
    values = scanned_values(cosine, 5000)
    assert np.max(np.abs(values - direct_sums(27000.0, 5000))) <= 2 * bb.scan_error(5000, Fraction(27000), 64)


@pytest.mark.parametrize(("base", "limit"), [(27000, 4096), (27000, 4000), (4300, 1024), (4400, 1024)])
def test_the_first_negative_position_is_the_direct_sum_s(base: int, limit: int) -> None:
    found = bb.scan(bb.cosine_sum(base), limit)
    direct = direct_sums(float(base), limit)
    negative = np.flatnonzero(direct < 0)
    if negative.size:
        assert found.first_negative == negative[0] and found.negative.ball < 0
        assert not found.admissible and found.survives == negative[0]
    else:
        assert found.admissible and found.survives == limit + 1
        assert found.least_at == int(np.argmin(direct)) and found.least.ball > 0


def test_values_within_the_bound_are_decided_in_balls(monkeypatch: pytest.MonkeyPatch) -> None:
    reference = bb.scan(bb.cosine_sum(27000), 4096)
    monkeypatch.setattr(bb, "scan_error", lambda limit, base, terms: 0.5)
    wide = bb.scan(bb.cosine_sum(27000), 4096)
    assert wide.in_balls > 0 and wide.first_negative == reference.first_negative


def test_balls_that_disagree_with_the_floats_decide_the_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every value sent to the balls, a ball of the wrong frequencies moves the first negative."""
    monkeypatch.setattr(bb, "scan_error", lambda limit, base, terms: 100.0)
    good = bb.cosine_sum(20)
    wrong = bb.CosineSum(good.base, good.d, good.theta, lambda i, ball: frequency_arb(i, good.d, ball * ball))
    assert bb.scan(good, 300).first_negative == int(np.flatnonzero(direct_sums(20.0, 300) < 0)[0])
    assert bb.scan(wrong, 300).first_negative == int(np.flatnonzero(direct_sums(400.0, 300) < 0)[0])


def test_a_sign_the_balls_cannot_decide_is_an_error() -> None:
    zero = bb.CosineSum(Fraction(2), 2, np.array([np.pi / 2]), lambda i, ball: flint.arb.pi() / 2)
    with pytest.raises(ArithmeticError, match="not decided"):
        bb.scan(zero, 3)


def test_the_error_bound_grows_with_the_positions_and_the_base() -> None:
    assert bb.scan_error(2**20, Fraction(10**8), 64) > bb.scan_error(1024, Fraction(10**8), 64)
    assert bb.scan_error(1024, Fraction(10**8), 64) > bb.scan_error(1024, Fraction(10), 64)
    assert bb.scan_error(2**20, Fraction(10**9), 64) < 1e-5


def test_candidate_bases_are_every_two_digit_base_above_one_in_order() -> None:
    first = [base for _, base in zip(range(100), bb.candidate_bases(), strict=False)]
    assert first[:3] == [Fraction(11, 10), Fraction(12, 10), Fraction(13, 10)]
    assert first[88:91] == [Fraction(99, 10), Fraction(10), Fraction(11)]
    assert all(a < b for a, b in itertools.pairwise(first))
    three = bb.candidate_bases(3)
    assert [next(three) for _ in range(2)] == [Fraction(101, 100), Fraction(102, 100)]


def test_the_lowest_base_passes_every_smaller_candidate_fails_and_a_larger_one_fails() -> None:
    lowest = bb.lowest_bases([1024, 2048])
    for length, found in lowest.items():
        assert found.scan.admissible and found.scan.limit == length
        assert direct_sums(float(found.base), length).min() > 0
        smaller = [base for _, base in zip(range(found.rejected), bb.candidate_bases(), strict=False)]
        assert len(smaller) == found.rejected and smaller[-1] < found.base
        for base in smaller[-5:]:
            assert direct_sums(float(base), length).min() < 0
        larger = found.larger_failing
        assert larger is not None and larger.base > found.base
        assert not larger.admissible and larger.first_negative <= length and larger.negative.ball < 0


def test_the_published_table_is_checked_row_by_row() -> None:
    table = bb.recompute_table({1024: Fraction(4300), 4096: Fraction(27000), 4000: Fraction(27000)})
    assert table[1024].agrees and table[1024].published.admissible
    assert not table[4096].agrees and not table[4096].published.admissible
    assert table[4000].agrees


@pytest.mark.parametrize("broken", [double_exponent, last_term_dropped], ids=["exponent", "dropped term"])
def test_a_broken_criterion_gives_other_bounds_and_other_verdicts_on_the_table(broken) -> None:
    published = {1024: Fraction(4300), 8192: Fraction(84000)}
    good, bad = bb.recompute_table(published), bb.recompute_table(published, build=broken)
    assert all(entry.agrees for entry in good.values())
    assert any(bad[length].lowest.base != good[length].lowest.base for length in published)
    assert not all(entry.agrees for entry in bad.values())


def test_a_criterion_no_base_meets_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bb, "CEILING", Fraction(100))
    with pytest.raises(LookupError, match="no admissible base"):
        bb.lowest_bases([1024])


@pytest.mark.parametrize(
    "call",
    [
        lambda: bb.cosine_sum(1),
        lambda: bb.cosine_sum(10, 127),
        lambda: bb.scan(bb.cosine_sum(10), 0),
        lambda: bb.lowest_bases([0]),
        lambda: next(bb.candidate_bases(0)),
    ],
)
def test_bad_input_is_refused(call) -> None:
    with pytest.raises(ValueError):
        call()


@pytest.mark.slow
def test_three_digits_find_admissible_bases_below_two_digit_ones() -> None:
    """The infimum of the admissible bases can lie below the two-digit answer: at L = 2048 the smallest
    admissible three-digit base is more than 5 % below it, so it rounds, at two digits, to a smaller base
    (half a unit of c·10^e is at most 5 % of it); the direct sum confirms it meets the criterion."""
    two, three = bb.lowest_bases([2048])[2048], bb.lowest_bases([2048], digits=3)[2048]
    assert three.base < two.base * Fraction(19, 20)
    assert direct_sums(float(three.base), 2048).min() > 0
