"""Exact number theory against independent brute force: perfect powers and rational powers by integer roots,
frequency ratios pair by pair, degrees against SymPy's minimal polynomials, π-multiples, the cited facts."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import integer_nthroot

from pe_verify.proofs import number_theory as nt


def brute_exponent(b: Fraction) -> int:
    """The largest e for which numerator and denominator of b are both exact e-th powers (integer roots)."""
    top = max(b.numerator.bit_length(), b.denominator.bit_length())
    return next(
        e
        for e in range(top, 0, -1)
        if integer_nthroot(b.numerator, e)[1] and integer_nthroot(b.denominator, e)[1]
    )


def brute_rational_power(b: Fraction, s: Fraction) -> Fraction | None:
    """b^(u/q) = (b^u)^(1/q), rational exactly when numerator and denominator of b^u are exact q-th powers."""
    power = b**s.numerator
    top, top_exact = integer_nthroot(power.numerator, s.denominator)
    bottom, bottom_exact = integer_nthroot(power.denominator, s.denominator)
    return Fraction(top, bottom) if top_exact and bottom_exact else None


def as_fraction(value: sp.Rational | None) -> Fraction | None:
    return None if value is None else Fraction(int(value.p), int(value.q))


POWER_BASE = st.builds(pow, st.integers(2, 60), st.integers(1, 6))
INTEGER_BASE = POWER_BASE | st.integers(2, 10**9) | st.sampled_from([10000, 500000, 4096, 10**12, 2**30])


def _above_one(base: object) -> bool:
    return base > 1


def _fraction_power(numerator: int, denominator: int, exponent: int) -> Fraction:
    return Fraction(numerator, denominator) ** exponent


RATIONAL_BASE = st.builds(_fraction_power, st.integers(1, 40), st.integers(1, 40), st.integers(1, 4)).filter(
    _above_one
)
BASE = INTEGER_BASE | RATIONAL_BASE
EXPONENT = st.builds(Fraction, st.integers(-24, 24), st.integers(1, 24))


@given(b=INTEGER_BASE)
def test_perfect_power_of_an_integer_matches_integer_roots(b: int) -> None:
    root, power = nt.perfect_power(b)
    assert root**power == b
    assert power == brute_exponent(Fraction(b))


@given(b=RATIONAL_BASE)
def test_perfect_power_of_a_rational_matches_integer_roots(b: Fraction) -> None:
    root, power = nt.perfect_power(b)
    assert root**power == sp.Rational(b.numerator, b.denominator)
    assert power == brute_exponent(b)


@given(b=BASE, s=EXPONENT)
def test_rational_power_matches_integer_roots(b: int | Fraction, s: Fraction) -> None:
    """b^s ∈ ℚ ⇔ s·E ∈ ℤ agrees with taking exact integer roots, value included."""
    assert as_fraction(nt.rational_power(b, s)) == brute_rational_power(Fraction(b), s)


@settings(max_examples=25)
@given(
    b=st.sampled_from([10000, 500000, 64, 12, 2]) | RATIONAL_BASE,
    s=st.builds(Fraction, st.integers(-6, 6), st.integers(1, 8)),
)
def test_algebraic_degree_matches_sympy_minimal_polynomial(b: int | Fraction, s: Fraction) -> None:
    assert nt.algebraic_degree(b, s) == nt.minimal_polynomial_degree(b, s)
    assert (nt.algebraic_degree(b, s) == 1) == (nt.rational_power(b, s) is not None)


D = st.integers(1, 64)
FREQUENCY_BASE = st.sampled_from([10000, 500000, 4096, 64, 10, 2, Fraction(9, 4)]) | INTEGER_BASE


@given(d=D, base=FREQUENCY_BASE, data=st.data())
def test_frequency_ratio_matches_brute_force(d: int, base: int | Fraction, data: st.DataObject) -> None:
    """ω_i/ω_j = b^(2(j−i)/d), rational or not, against integer roots."""
    i, j = (data.draw(st.integers(0, (d + 1) // 2 - 1)) for _ in range(2))
    expected = brute_rational_power(Fraction(base), Fraction(2 * (j - i), d))
    assert as_fraction(nt.frequency_ratio(d, base, i, j)) == expected
    if expected is not None:
        quotient = nt.frequency(d, base, i) / nt.frequency(d, base, j)
        assert sp.simplify(quotient - sp.Rational(expected.numerator, expected.denominator)) == 0


@settings(max_examples=40)
@given(d=st.integers(1, 48), base=FREQUENCY_BASE)
def test_rational_ratio_pairs_match_a_scan_of_every_pair(d: int, base: int | Fraction) -> None:
    count = (d + 1) // 2
    brute = {
        (i, j, brute_rational_power(Fraction(base), Fraction(2 * (j - i), d)))
        for i in range(count)
        for j in range(i + 1, count)
    }
    expected = {(i, j, ratio) for i, j, ratio in brute if ratio is not None}
    assert {(i, j, as_fraction(ratio)) for i, j, ratio in nt.rational_ratio_pairs(d, base)} == expected


@given(d=st.integers(1, 200), base=FREQUENCY_BASE)
def test_ratio_step_is_the_least_rational_difference(d: int, base: int | Fraction) -> None:
    """d / gcd(d, 2E) is the least m ≥ 1 with b^(2m/d) rational (m = d always works)."""
    least = next(m for m in range(1, d + 1) if brute_rational_power(Fraction(base), Fraction(2 * m, d)))
    assert nt.ratio_step(d, base) == least


def test_known_decompositions_and_steps() -> None:
    assert nt.perfect_power(10000) == (10, 4)
    assert nt.perfect_power(500000) == (500000, 1)
    assert nt.prime_exponents(500000) == {2: 5, 5: 6}
    assert nt.perfect_power(Fraction(9, 4)) == (sp.Rational(3, 2), 2)
    assert nt.perfect_power(Fraction(1, 8)) == (sp.Rational(1, 2), 3)
    assert nt.ratio_step(512, 10000) == 64
    assert nt.ratio_step(4096, 500000) == 2048
    assert [nt.frequency(8, 10000, i) for i in range(4)] == [
        1,
        sp.Rational(1, 10),
        sp.Rational(1, 100),
        sp.Rational(1, 1000),
    ]
    assert nt.frequency(6, 10000, 1) == sp.Integer(10) ** sp.Rational(-4, 3)
    assert nt.rational_ratio_pairs(4096, 500000) == ()


def test_rational_power_of_one_and_unit_base() -> None:
    assert nt.rational_power(1, Fraction(1, 3)) == 1
    with pytest.raises(ValueError, match="different from 1"):
        nt.perfect_power(1)


@given(u=st.integers(-30, 30).filter(bool), v=st.integers(1, 30))
def test_pi_multiple_recovers_rational_multiples(u: int, v: int) -> None:
    assert nt.pi_multiple(sp.Rational(u, v) * sp.pi) == sp.Rational(u, v)


@pytest.mark.parametrize(
    "omega",
    [
        sp.Integer(1),
        sp.Integer(10) ** sp.Rational(-4, 3),
        sp.sqrt(2) * sp.pi,
        sp.Rational(1, 100),
        sp.sqrt(3) + 1,
    ],
)
def test_pi_multiple_is_none_when_irrational_over_pi(omega: sp.Expr) -> None:
    assert nt.pi_multiple(omega) is None


@pytest.mark.parametrize(
    "omega", [sp.E, sp.pi**2 + sp.E, 0.5, True, sp.Integer(0), sp.Symbol("w"), sp.I, "pi"]
)
def test_pi_multiple_rejects_what_it_cannot_decide_or_is_not_a_frequency(omega: object) -> None:
    with pytest.raises(ValueError):
        nt.pi_multiple(omega)


def test_cited_facts_are_confirmed_by_sympy() -> None:
    assert len({fact.name for fact in nt.FACTS}) == len(nt.FACTS)
    for fact in nt.FACTS:
        assert fact.check() is True, fact.name
        assert fact.statement and fact.source


def test_degree_fact_would_catch_a_rule_that_ignores_the_perfect_power() -> None:
    """Taking the degree of b^s to be denominator(s), forgetting E, disagrees with SymPy for 10000^(1/4)."""
    assert Fraction(1, 4).denominator != nt.minimal_polynomial_degree(10000, Fraction(1, 4)) == 1
    assert nt.algebraic_degree(10000, Fraction(1, 4)) == 1


def test_sympy_separates_algebraic_frequencies_from_pi_multiples() -> None:
    """The Lindemann-based facts are decided for the frequencies, and fail for a rational multiple of π."""
    assert nt.frequency(6, 10000, 1).is_algebraic is True
    assert (sp.pi / 3).is_algebraic is False


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nt.exact_rational(1.5, "b"), "not exact"),
        (lambda: nt.exact_rational(True, "b"), "exact rational"),
        (lambda: nt.exact_rational("10", "b"), "exact rational"),
        (lambda: nt.require_rational_base(1), "greater than 1"),
        (lambda: nt.require_rational_base(Fraction(1, 2)), "greater than 1"),
        (lambda: nt.perfect_power(-8), "positive rational"),
        (lambda: nt.frequency(0, 10000, 0), "positive integer"),
        (lambda: nt.frequency(8, 10000, 4), r"\[0, 4\)"),
        (lambda: nt.frequency(8, 10000, -1), r"\[0, 4\)"),
        (lambda: nt.frequency_ratio(8, 0.5, 0, 1), "not exact"),
        (lambda: nt.ratio_step(2.0, 10000), "positive integer"),
    ],
)
def test_bad_input_is_rejected_with_a_message(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_integral_float_base_is_accepted_as_exact() -> None:
    assert nt.require_rational_base(10000.0) == 10000


def test_periods_are_exact() -> None:
    assert nt.period(512, 10000, 0) == nt.period(512, 10000, 1) == 2 * sp.pi
    assert sp.simplify(nt.period(512, 10000, 511) - 2 * sp.pi * sp.Integer(10) ** sp.Rational(255, 64)) == 0
    assert nt.period_ratio(512, 10000, 0, 2) == sp.Integer(10) ** sp.Rational(1, 64)
    assert nt.period_ratio(512, 10000, 1, 511) == sp.Integer(10) ** sp.Rational(255, 64)
    with pytest.raises(ValueError, match="dimension dim must be an integer in"):
        nt.period(5, 10000, 5)


def test_the_period_formula_rejects_wrong_periods() -> None:
    dims = (0, 1, 6, 7, 510, 511)
    periods = {dim: nt.period(512, 10000, dim) for dim in dims}
    assert nt.follows_period_formula(periods, 512, 10000)
    other_base = {dim: nt.period(512, 10001, dim) for dim in dims}
    assert not nt.follows_period_formula(other_base, 512, 10000)
    by_dim = {dim: 2 * sp.pi * sp.Integer(10000) ** sp.Rational(2 * dim, 512) for dim in dims}
    assert not nt.follows_period_formula(by_dim, 512, 10000)
