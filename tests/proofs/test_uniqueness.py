"""Document 003's three proofs decided exactly, and every exact verdict confirmed or refuted at 50 digits.

D3.3 (whole vectors), D3.4 (one dimension), D3.5 (two dimensions): derivations verify and fail for broken
frequencies; verdicts agree with brute force; witnesses agree to all digits, non-witnesses differ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import integer_nthroot

from pe_verify.proofs import number_theory as nt
from pe_verify.proofs import uniqueness as un
from pe_verify.proofs.derivation import Derivation, Step, render_markdown
from pe_verify.properties.checks import exact_coincidence as co
from pe_verify.properties.encodings.sinusoidal import Sinusoidal, sinusoidal_encoding_mp

DERIVATIONS = [value for value in vars(un).values() if isinstance(value, Derivation)]
BASES = [10000, 4096, 64, 729, 1000, 500000, 10, Fraction(9, 4)]


def reference(base: int | Fraction, d: int) -> Sinusoidal:
    """The reference encoding with an exact (decimal string) base."""
    return Sinusoidal(d, str(base) if isinstance(base, int) else "2.25")


def brute_rational(b: Fraction, s: Fraction) -> bool:
    """b^s ∈ ℚ by exact integer roots of b^u (s = u/q)."""
    power = b**s.numerator
    return bool(
        integer_nthroot(power.numerator, s.denominator)[1]
        and integer_nthroot(power.denominator, s.denominator)[1]
    )


def fails(steps: Sequence[Step]) -> bool:
    """True when some step's check rejects its claim."""
    return any(step.check() is False for step in steps)


# ---------------------------------------------------------------------------------------------------------
# Derivations
# ---------------------------------------------------------------------------------------------------------


def test_module_defines_the_expected_derivations() -> None:
    assert {derivation.id for derivation in DERIVATIONS} == {
        "uniqueness.one_coordinate",
        "uniqueness.distinct_positions",
        "uniqueness.ratio_argument",
        "uniqueness.sine_dimension",
        "uniqueness.cosine_dimension",
        "uniqueness.pi_side_condition",
        "uniqueness.sine_cosine_never",
        "uniqueness.same_type_coincidence",
        "uniqueness.coincidence_condition",
    }


@pytest.mark.slow
@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies_and_renders(derivation: Derivation) -> None:
    result = derivation.verify()
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]
    assert result.seconds < 5
    text = render_markdown(derivation, result)
    assert derivation.statement in text and "NOT verified" not in text


@pytest.mark.twin("uniqueness.sine_dimension", "uniqueness.cosine_dimension")
@pytest.mark.slow
def test_one_dimension_steps_fail_for_a_rational_multiple_of_pi() -> None:
    """With ω = π/3 the 'π would be algebraic' steps cannot be checked: the argument breaks, as it must."""
    assert not fails(list(un.sine_dimension_steps(un.OMEGA_I)))
    assert fails(list(un.sine_dimension_steps(sp.pi / 3)))
    assert fails(list(un.cosine_dimension_steps(sp.pi / 3)))


@pytest.mark.twin("uniqueness.sine_cosine_never")
@pytest.mark.slow
def test_sine_cosine_steps_fail_for_a_rational_multiple_of_pi() -> None:
    """ω_a = π/2 gives sin(1·ω_a) = cos(0) = 1; the steps must not verify."""
    assert fails(list(un.sine_cosine_steps(sp.pi / 2, un.OMEGA_J)))


@pytest.mark.twin("uniqueness.distinct_positions", "uniqueness.same_type_coincidence")
def test_zero_set_and_pi_steps_reject_false_claims() -> None:
    assert fails([un.zero_set_step(sp.sin(un.U / 2), 2 * sp.pi, sp.pi, "wrong offset")])
    assert fails([un.zero_set_step(sp.cos(un.U / 2), sp.pi, sp.pi / 2, "wrong spacing")])
    assert fails([un.not_pi_multiple(sp.pi * un.K, 2 * un.N_NONZERO, "algebraic", "kπ is a π multiple")])
    assert fails([un.not_pi_multiple(sp.sqrt(2) * un.K, 2 * un.N_NONZERO, "rational", "√2 k is irrational")])


# ---------------------------------------------------------------------------------------------------------
# D3.3: whole vectors
# ---------------------------------------------------------------------------------------------------------


def test_ratio_argument_for_base_10000_up_to_16() -> None:
    """As written it fails for d ∈ {1, 2, 3, 4, 8}; using the sin-only frequency too, for d ∈ {1, 2, 4, 8}."""
    assert un.argument_failures(10000, 16) == (1, 2, 3, 4, 8)
    assert un.argument_failures(10000, 16, sin_only_case_split=True) == (1, 2, 4, 8)
    assert un.argument_failure_rule(10000) == (1, 2, 3, 4, 8)
    verdict = un.document_argument_holds(512, 10000)
    assert verdict.holds and verdict.pair == (0, 1) and "10000^(1/256) = 10^(1/64)" in verdict.reason
    assert un.document_argument_holds(4096, 500000).holds
    assert "rational" in un.document_argument_holds(8, 10000).reason


@pytest.mark.slow
@settings(max_examples=40)
@given(
    base=st.sampled_from(BASES) | st.builds(pow, st.integers(2, 12), st.integers(1, 12)),
    d_max=st.integers(1, 40),
    split=st.booleans(),
)
def test_divisor_rule_matches_deciding_every_d(base: int | Fraction, d_max: int, split: bool) -> None:
    assert un.rule_mismatches(lambda b: un.argument_failure_rule(b, split), base, d_max, split) == ()


def test_brute_force_catches_wrong_divisor_rules() -> None:
    """Forgetting the factor 2 (divisors of E), or the d = 3 gap of the argument as written, is caught."""
    assert un.rule_mismatches(lambda b: sp.divisors(nt.power_exponent(b)), 10000, 16) == (3, 8)
    assert un.rule_mismatches(lambda b: sp.divisors(2 * nt.power_exponent(b)), 10000, 16) == (3,)
    assert un.rule_mismatches(un.argument_failure_rule, 10000, 16, sin_only_case_split=True) == (3,)


@given(
    d=st.integers(1, 32),
    base=st.sampled_from(BASES),
    p=st.integers(-(10**6), 10**6),
    q=st.integers(-(10**6), 10**6),
)
def test_different_positions_have_different_encodings_at_50_digits(
    d: int, base: int | Fraction, p: int, q: int
) -> None:
    """PE(p) ≠ PE(q) for p ≠ q (uniqueness.distinct_positions): some dimension differs by ≥ 10^(−45)."""
    if p == q:
        return
    pairs = [(p, dim, q, dim) for dim in range(d)]
    differences = co.value_differences(reference(base, d), pairs)
    assert max(differences) >= co.agreement_tolerance(50)


# ---------------------------------------------------------------------------------------------------------
# D3.4: one dimension
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.slow
@given(d=st.integers(1, 24), base=st.sampled_from(BASES), data=st.data(), negative=st.booleans())
def test_one_dimension_verdicts_hold_at_50_digits(
    d: int, base: int | Fraction, data: st.DataObject, negative: bool
) -> None:
    dim = data.draw(st.integers(0, d - 1))
    low = -(10**6) if negative else 0
    p1, p2 = data.draw(st.lists(st.integers(low, 10**6), min_size=2, max_size=2, unique=True))
    verdict = un.dimension_collision(d, base, dim, negative)
    assert verdict.collides == (dim % 2 == 1 and negative)
    if verdict.collides:
        assert verdict.witness == (-1, 1)
        assert co.check_witnesses(reference(base, d), [(p1, dim, -p1, dim), (-1, dim, 1, dim)])
    if p1 != -p2 or not verdict.collides:
        assert co.check_distinct(reference(base, d), [(p1, dim, p2, dim)])


def mp_collisions(omega: sp.Expr, kind: str, level: int, negative: bool) -> list[tuple[int, int]]:
    """Every p1 < p2 with max |p| ≤ level whose values agree at 50 digits (independent of the congruences)."""
    low = -level if negative else 0
    with mpmath.workdps(60):
        w = mpmath.mpf(sp.N(omega, 70))
        f = mpmath.sin if kind == "sin" else mpmath.cos
        values = {p: f(p * w) for p in range(low, level + 1)}
        return [
            (p1, p2)
            for p1 in values
            for p2 in values
            if p1 < p2 and abs(values[p1] - values[p2]) < mpmath.mpf(10) ** -45
        ]


@given(u=st.integers(1, 12), v=st.integers(1, 12), kind=st.sampled_from(un.KINDS), negative=st.booleans())
def test_rational_multiples_of_pi_collide_at_the_smallest_witness(
    u: int, v: int, kind: str, negative: bool
) -> None:
    """ω = (u/v)π must collide; the witness is the least by max |p| and the period is the least full turn."""
    omega = sp.Rational(u, v) * sp.pi
    verdict = un.frequency_collision(omega, kind, negative)
    assert verdict.collides
    level = max(abs(p) for p in verdict.witness)
    found = mp_collisions(omega, kind, level, negative)
    assert verdict.witness in found
    assert all(max(abs(p) for p in pair) == level for pair in found)
    with mpmath.workdps(60):
        w = mpmath.mpf(sp.N(omega, 70))
        turns = [
            k for k in range(1, verdict.period + 1) if abs(mpmath.cos(k * w) - 1) < mpmath.mpf(10) ** -45
        ]
    assert turns[0] == verdict.period
    dim = un.KINDS.index(kind)
    p1, p2 = verdict.witness
    assert co.check_witnesses(Sinusoidal(2, omegas=tuple([omega])), [(p1, dim, p2, dim)])


@pytest.mark.parametrize(
    "omega", [sp.sqrt(2), sp.Integer(1), sp.Integer(10) ** sp.Rational(-8, 3), sp.pi * sp.sqrt(3)]
)
def test_frequencies_irrational_over_pi_never_collide_in_sin(omega: sp.Expr) -> None:
    verdict = un.frequency_collision(omega, "sin", allow_negative=True)
    assert not verdict.collides and verdict.witness is None
    assert co.check_distinct(
        Sinusoidal(1, omegas=tuple([omega])), [(p, 0, p + k, 0) for p in (-7, 0, 3) for k in (1, 2, 6, 44)]
    )


def test_pi_over_three_collides_as_in_the_side_condition() -> None:
    """The mutation the document's π step overlooks: ω = π/3 gives sin(1ω) = sin(2ω), sin(0) = sin(3ω)."""
    verdict = un.frequency_collision(sp.pi / 3, "sin")
    assert verdict.collides and verdict.witness == (1, 2) and verdict.period == 6
    witnesses = [(1, 0, 2, 0), (0, 0, 3, 0), (2, 1, 4, 1)]
    assert co.check_witnesses(Sinusoidal(2, omegas=tuple([sp.pi / 3])), witnesses)


# ---------------------------------------------------------------------------------------------------------
# D3.5: two dimensions
# ---------------------------------------------------------------------------------------------------------


def test_exact_coincidences_for_base_10000() -> None:
    """d ≤ 16: exactly d ∈ {4, 8, 12, 16}; d = 8: sin(1·ω_0) = sin(10·ω_1); d = 512: ratios 10, 100, 1000."""
    assert [d for d in range(1, 17) if un.cross_dim_exact_exists(d, 10000)] == [4, 8, 12, 16]
    verdict = un.cross_dimension_coincidence(8, 10000, 0, 2)
    assert verdict.coincide and verdict.witness == (1, 0, 10, 2) and verdict.ratio == sp.Rational(1, 10)
    pairs = un.coinciding_dim_pairs(512, 10000)
    assert len(pairs) == 768
    assert {1 / verdict.ratio for verdict in pairs} == {10, 100, 1000}
    assert all((verdict.dim2 // 2 - verdict.dim1 // 2) % 64 == 0 for verdict in pairs)
    assert un.coinciding_dim_pairs(6, 10000) == () and not un.cross_dim_exact_exists(6, 10000)
    assert un.coinciding_dim_pairs(4096, 500000) == () and not un.cross_dim_exact_exists(4096, 500000)


@given(d=st.integers(1, 200), base=st.sampled_from(BASES))
def test_exact_existence_rule_matches_brute_force(d: int, base: int | Fraction) -> None:
    """Some |a − b| < ⌈d/2⌉ with b^(2|a−b|/d) ∈ ℚ, found by integer roots, ⇔ cross_dim_exact_exists."""
    brute = any(brute_rational(Fraction(base), Fraction(2 * m, d)) for m in range(1, (d + 1) // 2))
    assert un.cross_dim_exact_exists(d, base) == brute == bool(un.coinciding_dim_pairs(d, base))


@pytest.mark.slow
@pytest.mark.parametrize(("d", "base"), [(8, 10000), (6, 10000), (12, 10000), (9, 64), (10, Fraction(9, 4))])
def test_divisor_rule_pairs_equal_minimal_polynomial_pairs(d: int, base: int | Fraction) -> None:
    """The pairs from d / gcd(d, 2E) equal those SymPy's minimal polynomials find on the exact frequencies
    (an even-length list; for odd d the sin-only frequency's cos dimension is dropped)."""
    omegas = [nt.frequency(d, base, i) for i in range(nt.frequency_count(d))]
    from_polynomials = [v for v in un.frequency_list_coincidences(omegas) if v.dim2 < d]
    assert un.coinciding_dim_pairs(d, base) == tuple(from_polynomials)


@given(d=st.integers(2, 32), base=st.sampled_from(BASES), data=st.data(), negative=st.booleans())
def test_two_dimension_verdicts_hold_at_50_digits(
    d: int, base: int | Fraction, data: st.DataObject, negative: bool
) -> None:
    """'Never' ⇒ random positions differ; a coinciding pair ⇒ positions off its family differ."""
    dim1, dim2 = data.draw(st.lists(st.integers(0, d - 1), min_size=2, max_size=2, unique=True))
    low = -(10**5) if negative else 0
    p1, p2 = data.draw(st.lists(st.integers(low, 10**5), min_size=2, max_size=2, unique=True))
    verdict = un.cross_dimension_coincidence(d, base, dim1, dim2, negative)
    rational = brute_rational(Fraction(base), Fraction(2 * (dim1 // 2 - dim2 // 2), d))
    assert verdict.coincide == (dim1 % 2 == dim2 % 2 and rational)
    if verdict.coincide and on_family(verdict, p1, p2):
        assert co.check_witnesses(reference(base, d), [(p1, dim1, p2, dim2)])
    else:
        assert co.check_distinct(reference(base, d), [(p1, dim1, p2, dim2)])


def on_family(verdict: un.CoincidenceVerdict, p1: int, p2: int) -> bool:
    """p1·ω_a = p2·ω_b (or = −p2·ω_b for cos with negative positions): p1·n = ±p2·m with ω_b/ω_a = m/n."""
    m, n = verdict.ratio.p, verdict.ratio.q
    cos_negative = verdict.allow_negative and verdict.dim1 % 2 == 1
    return p1 * n == p2 * m or (cos_negative and p1 * n == -p2 * m)


WITH_COINCIDENCES = [(d, base) for d in range(2, 33) for base in BASES if un.cross_dim_exact_exists(d, base)]


@given(setting=st.sampled_from(WITH_COINCIDENCES), data=st.data(), negative=st.booleans())
def test_witness_families_agree_at_50_digits(
    setting: tuple[int, int | Fraction], data: st.DataObject, negative: bool
) -> None:
    """Every member of a coinciding pair's family agrees to all digits; nearby positions off it differ."""
    d, base = setting
    pair = data.draw(st.sampled_from(un.coinciding_dim_pairs(d, base)))
    dim1, dim2 = (pair.dim1, pair.dim2) if data.draw(st.booleans()) else (pair.dim2, pair.dim1)
    verdict = un.cross_dimension_coincidence(d, base, dim1, dim2, negative)
    assert verdict.coincide and verdict.witness.dim1 == dim1
    t = data.draw(st.integers(1, 50)) * (data.draw(st.sampled_from([1, -1])) if negative else 1)
    sign = data.draw(st.sampled_from([1, -1])) if negative and dim1 % 2 else 1
    member = verdict.member(t, sign)
    assert on_family(verdict, member.p1, member.p2)
    assert co.check_witnesses(reference(base, d), [verdict.witness, member])
    off = (member.p1, dim1, member.p2 + data.draw(st.sampled_from([1, -1])), dim2)
    assert not on_family(verdict, off[0], off[2])
    assert co.check_distinct(reference(base, d), [off])


@given(d=st.integers(2, 32), base=st.sampled_from(BASES), data=st.data())
def test_sine_and_cosine_never_coincide(d: int, base: int | Fraction, data: st.DataObject) -> None:
    dim1 = 2 * data.draw(st.integers(0, (d - 1) // 2))
    dim2 = 2 * data.draw(st.integers(0, d // 2 - 1)) + 1
    verdict = un.cross_dimension_coincidence(d, base, dim1, dim2, allow_negative=True)
    assert not verdict.coincide and "never" in verdict.reason
    ps = data.draw(st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=2))
    assert co.check_distinct(reference(base, d), [(ps[0], dim1, ps[1], dim2), (ps[0], dim1, ps[0], dim2)])


def test_planted_rational_ratio_yields_a_confirmed_witness() -> None:
    """d = 6, base 10000 has no coincidence; replacing ω_2 = 10^(−8/3) by 1/100 plants ω_2/ω_0 = 1/100."""
    omegas = [nt.frequency(6, 10000, i) for i in range(3)]
    assert un.frequency_list_coincidences(omegas) == ()
    planted = [*omegas[:2], sp.Rational(1, 100)]
    verdicts = un.frequency_list_coincidences(planted, allow_negative=True)
    assert [(v.dim1, v.dim2) for v in verdicts] == [(0, 4), (1, 5)]
    witnesses = [v.witness for v in verdicts] + [verdicts[1].member(2, -1)]
    assert witnesses[0] == (1, 0, 100, 4)
    assert co.check_witnesses(Sinusoidal(6, omegas=tuple(planted)), witnesses)
    assert co.check_distinct(reference(10000, 6), witnesses)
    assert not co.check_distinct(Sinusoidal(6, omegas=tuple(planted)), witnesses)


def test_family_members_are_validated() -> None:
    sin_pair = un.cross_dimension_coincidence(8, 10000, 0, 2)
    assert sin_pair.member(3) == (3, 0, 30, 2)
    cos_pair = un.cross_dimension_coincidence(8, 10000, 1, 3, allow_negative=True)
    assert cos_pair.member(-2, -1) == (-2, 1, 20, 3)
    never = un.cross_dimension_coincidence(8, 10000, 0, 3)
    for call in (
        lambda: sin_pair.member(0),
        lambda: sin_pair.member(-1),
        lambda: sin_pair.member(1, -1),
        lambda: never.member(1),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: un.cross_dimension_coincidence(8, 10000, 2, 2), "must differ"),
        (lambda: un.cross_dimension_coincidence(8, 10000, 0, 8), r"\[0, 8\)"),
        (lambda: un.cross_dimension_coincidence(0, 10000, 0, 1), "positive integer"),
        (lambda: un.cross_dimension_coincidence(8, 1, 0, 2), "greater than 1"),
        (lambda: un.dimension_collision(8, 10000, -1), r"\[0, 8\)"),
        (lambda: un.frequency_collision(sp.pi, "tan"), "'sin' or 'cos'"),
        (lambda: un.frequency_collision(1.0, "sin"), "exact SymPy number"),
        (lambda: un.document_argument_holds(8, 10000.5), "not exact"),
        (lambda: un.argument_failures(10000, 0), "positive integer"),
        (lambda: un.frequency_list_coincidences([sp.pi / 3]), "algebraic"),
        (lambda: un.frequency_list_coincidences([]), "at least one"),
    ],
)
def test_bad_input_is_rejected_with_a_message(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


# ---------------------------------------------------------------------------------------------------------
# 50-digit confirmation for d = 8, 512 (base 10000) and d = 4096 (base 500000)
# ---------------------------------------------------------------------------------------------------------


def all_witnesses(d: int, base: int) -> list[un.ValuePair]:
    """The smallest witness of every coinciding pair and, for cos pairs, the member with p2 < 0."""
    verdicts = un.coinciding_dim_pairs(d, base, allow_negative=True)
    return [v.witness for v in verdicts] + [v.member(1, -1) for v in verdicts if v.dim1 % 2]


@pytest.mark.slow
@pytest.mark.parametrize("d", [8, 512])
def test_every_exact_witness_agrees_and_neighbours_differ(d: int) -> None:
    witnesses = all_witnesses(d, 10000)
    assert co.check_witnesses(reference(10000, d), witnesses)
    neighbours = [(p1, dim1, p2 + 1, dim2) for p1, dim1, p2, dim2 in witnesses]
    assert co.check_distinct(reference(10000, d), neighbours)


@pytest.mark.slow
def test_d4096_base_500000_has_only_near_misses() -> None:
    """500000 = 2^5·5^6 (E = 1): no ratio is rational, so even the best-rounded positions differ."""
    assert un.coinciding_dim_pairs(4096, 500000) == ()
    pairs = [
        pair
        for dims in ((0, 4094), (2, 2048), (100, 3000))
        for pair in co.near_misses(4096, 500000, *dims, count=1)
    ]
    assert len(pairs) == 3
    assert co.check_distinct(reference(500000, 4096), pairs)


@dataclass(frozen=True)
class Mutant(Sinusoidal):
    """An encoding whose mpmath rows use a broken frequency rule ω(i, d), or have sin and cos swapped."""

    omega_of: Callable[[int, int], mpmath.mpf] | None = None
    layout_swapped: bool = False

    def rows_mp(self, positions: Iterable[object], dps: int = 50) -> list[list[object]]:
        d = self.d
        with mpmath.workdps(dps):
            omegas = [self.omega_of(i, d) for i in range((d + 1) // 2)]  # type: ignore[misc]
            first, second = (mpmath.cos, mpmath.sin) if self.layout_swapped else (mpmath.sin, mpmath.cos)
            return [
                [(first if j % 2 == 0 else second)(p * omegas[j // 2]) for j in range(d)] for p in positions
            ]


def _mutant(omega_of: Callable[[int, int], mpmath.mpf], layout_swapped: bool = False) -> Mutant:
    return Mutant(8, omega_of=omega_of, layout_swapped=layout_swapped)


MUTANTS = {
    "wrong base 10001": _mutant(lambda i, d: mpmath.mpf(10001) ** (mpmath.mpf(-2 * i) / d)),
    "exponent −i/d": _mutant(lambda i, d: mpmath.mpf(10000) ** (mpmath.mpf(-i) / d)),
    "exponent sign flipped": _mutant(lambda i, d: mpmath.mpf(10000) ** (mpmath.mpf(2 * i) / d)),
    "sin and cos swapped": _mutant(lambda i, d: mpmath.mpf(10000) ** (mpmath.mpf(-2 * i) / d), True),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_broken_encodings_fail_the_witness_check(name: str) -> None:
    reference = _mutant(lambda i, d: mpmath.mpf(10000) ** (mpmath.mpf(-2 * i) / d))
    witnesses = all_witnesses(8, 10000)
    assert co.check_witnesses(reference, witnesses)
    result = co.check_witnesses(MUTANTS[name], witnesses)
    assert not result and result.max_error > result.tolerance


def test_reference_rows_match_the_shared_encoder() -> None:
    rows = reference(10000, 6).rows_mp([3, -7], 50)
    assert rows == sinusoidal_encoding_mp([3, -7], 6, "10000", 50)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: co.check_witnesses(reference(10000, 8), [(1, 0, 10, 2)], dps=30), "at least 50"),
        (lambda: co.check_witnesses(reference(10000, 8), []), "must not be empty"),
        (lambda: co.check_distinct(reference(10000, 8), [(1, 0, 10, 8)]), r"\[0, 8\)"),
        (lambda: co.check_distinct(reference(10000, 8), [(1.5, 0, 10, 2)]), "four integers"),
        (lambda: co.near_misses(8, 10000, 0, 9), r"\[0, 8\)"),
        (lambda: Sinusoidal(2, omegas=()), "non-empty"),
        (lambda: Sinusoidal(8, "1"), "greater than 1"),
    ],
)
def test_coincidence_checks_reject_bad_input(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


@pytest.mark.slow
@pytest.mark.parametrize(("base", "d_max"), [(10000, 64), (500000, 64), (Fraction(9, 4), 40)])
def test_the_exact_coincidence_rule_lists_the_brute_force_dims(base: int | Fraction, d_max: int) -> None:
    rule = un.dims_with_exact_coincidence(base, d_max)
    assert rule == un.dims_with_exact_coincidence(base, d_max, brute_force=True)
    assert rule == tuple(d for d in range(1, d_max + 1) if un.coinciding_dim_pairs(d, base))


def test_base_10000_coincides_for_multiples_of_four_only() -> None:
    assert un.dims_with_exact_coincidence(10000, 512) == tuple(range(4, 513, 4))
    assert un.dims_with_exact_coincidence(500000, 256) == ()


@pytest.mark.twin("uniqueness.coincidence_condition")
@pytest.mark.slow
def test_the_coincidence_condition_fails_for_a_wrong_rule_or_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    assert un._slack_signs_decided() and not un._slack_signs_decided((0, 2))
    monkeypatch.setattr(un, "cross_dim_exact_exists", lambda d, base: d % 2 == 0)
    monkeypatch.setattr(un, "pair_index", lambda d: list(range(d)))
    result = un.coincidence_condition.verify()
    assert [step.holds for step in result.steps] == [False, True, True, False, True]
