"""`properties/checks/interpolation_bounds.py`: position interpolation's bounds (Chen et al. 2023) and Liu et
al.'s critical dimension, in ball arithmetic — each check also fed a broken input that it must reject."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest

from pe_verify.properties.checks import interpolation_bounds as ib
from pe_verify.properties.checks.long_term_decay import relative_upper_bound

D, C = 128, 10000


@pytest.fixture(autouse=True)
def _precision():
    with flint.ctx.workprec(128):
        yield


# ------------------------------------------------------------------------------------------- decisions


def test_is_below_decides_or_raises() -> None:
    assert ib.is_below(flint.arb(1), 2) and not ib.is_below(flint.arb(3), Fraction(5, 2))
    with pytest.raises(ValueError, match="cannot decide"):
        ib.is_below(flint.arb("1 +/- 0.5"), Fraction(11, 10))


def test_rounds_to_reads_the_printed_digits_or_significant_figures() -> None:
    assert ib.rounds_to(flint.arb("294.7308"), "294.73")
    assert not ib.rounds_to(flint.arb("294.7358"), "294.73")
    assert ib.rounds_to(flint.arb("589.46"), "600", significant=1)
    assert not ib.rounds_to(flint.arb("518.35"), "600", significant=1)
    with pytest.raises(ValueError):
        ib.rounds_to(flint.arb("294.735 +/- 0.001"), "294.73")  # the ball straddles the rounding edge


def test_one_significant_figure_is_certified() -> None:
    assert ib.one_significant_figure(flint.arb("518.35")) == 500
    assert ib.one_significant_figure(flint.arb("589.46")) == 600
    with pytest.raises(ValueError):
        ib.one_significant_figure(flint.arb("550 +/- 1"))
    with pytest.raises(ValueError):
        ib.one_significant_figure(flint.arb(-3))


def test_an_integer_base_is_required() -> None:
    assert ib.theorem_constant(D, 10000.0).overlaps(ib.theorem_constant(D, 10000))
    for base in (10000.5, 1, True, "10000"):
        with pytest.raises(ValueError):
            ib.theorem_constant(D, base)


# ---------------------------------------------------------------------- the constants of Theorem 2.1


def test_the_printed_294_73_is_32_ln_c_and_a_wrong_base_misses_it() -> None:
    assert ib.rounds_to(flint.arb(D) / ib.theorem_constant(D, C), "294.73")
    assert not ib.rounds_to(flint.arb(D) / ib.theorem_constant(D, 20000), "294.73")


def test_the_curvature_constant_is_the_geometric_sum_of_eq_13() -> None:
    for d, c in ((D, C), (64, 500), (2, 10)):
        ratio = flint.arb(c) ** (flint.arb(-4) / d)
        closed = (1 - flint.arb(c) ** -2) / (1 - ratio)
        assert ib.curvature_constant(d, c).overlaps(closed)
        assert ib.is_below(ib.curvature_constant(d, c), 1 / (1 - ratio))


@pytest.mark.parametrize(("d", "c"), [(D, C), (64, 500000), (2, 10), (4096, 10000)])
def test_the_tangent_step_of_eq_14_fails_and_the_proof_constant_is_too_small(d: int, c: int) -> None:
    power, tangent = ib.tangent_step(d, c)
    assert ib.is_below(tangent, power)
    assert ib.is_below(ib.proof_constant(d, c), 1 / (1 - power))
    assert ib.is_below(1 / (1 - power), 1 + ib.proof_constant(d, c))


def test_the_largest_curvature_exceeds_the_proofs_m_at_llama_7b() -> None:
    assert ib.is_below(ib.proof_constant(D, C), ib.curvature_constant(D, C))


# ------------------------------------------------------------------------------ the exact worst case


def test_the_worst_query_and_key_have_unit_coefficients_e_to_the_minus_i_theta_over_2() -> None:
    h = ib.pair_coefficients(*ib.worst_case_query_key(D, C))
    for coefficient, theta in zip(h, ib.thetas(D, C), strict=True):
        assert abs(coefficient).overlaps(flint.arb(1))
        assert coefficient.overlaps(flint.acb(0, -theta / 2).exp())


def test_the_midpoint_error_from_the_definition_is_the_closed_form() -> None:
    h = ib.pair_coefficients(*ib.worst_case_query_key(D, C))
    error = ib.interpolation_error(h, Fraction(0), Fraction(1), Fraction(1, 2), D, C)
    closed = sum((2 * (theta / 4).sin() ** 2 for theta in ib.thetas(D, C)), flint.arb(0))
    assert error.overlaps(ib.midpoint_worst_case(D, C)) and error.overlaps(closed)


def test_no_random_unit_coefficients_beat_the_worst_case() -> None:
    rng = np.random.default_rng(7)
    worst = ib.midpoint_worst_case(16, C)
    for _ in range(20):
        phases, sizes = rng.uniform(0, 2 * math.pi, 8), rng.uniform(0, 1, 8)
        h = [flint.acb(0, float(p)).exp() * float(r) for p, r in zip(phases, sizes, strict=True)]
        error = ib.interpolation_error(h, Fraction(0), Fraction(1), Fraction(1, 2), 16, C)
        assert ib.is_below(error, worst)


def test_the_theorems_bound_fails_and_a_correct_bound_holds() -> None:
    stated = ib.check_midpoint_bound(ib.theorem_constant, D, C)
    assert not stated.holds and ib.is_below(stated.bound, stated.error)
    for correct in (
        lambda d, c: ib.curvature_constant(d, c) / 8,
        lambda d, c: (1 + ib.proof_constant(d, c)) / 8,
    ):
        assert ib.check_midpoint_bound(correct, D, C).holds


def test_a_bound_just_below_the_worst_case_is_rejected_and_equality_is_undecided() -> None:
    assert not ib.check_midpoint_bound(lambda d, c: ib.midpoint_worst_case(d, c) * 0.999, D, C).holds
    with pytest.raises(ValueError):
        ib.check_midpoint_bound(ib.midpoint_worst_case, D, C)


def test_interpolation_needs_s_inside_a_proper_step() -> None:
    h = ib.pair_coefficients(*ib.worst_case_query_key(4, C))
    for s1, s2, s in ((0, 1, 2), (1, 1, 1), (1, 0, Fraction(1, 2))):
        with pytest.raises(ValueError):
            ib.interpolation_error(h, Fraction(s1), Fraction(s2), Fraction(s), 4, C)
    with pytest.raises(ValueError):
        ib.score(h[:1], Fraction(0), 4, C)
    with pytest.raises(ValueError):
        ib.pair_coefficients([flint.arb(1)] * 4, [flint.arb(1)] * 2)


# ------------------------------------------------------------------------- the extrapolation bound's B(s)


def test_b_at_zero_is_the_sum_of_the_partial_counts() -> None:
    (_, ratio), *_ = ib.extrapolation_ratios(D, C, range(1))
    assert ratio.overlaps(flint.arb(sum(range(1, D // 2 + 1))) / D)


def test_b_agrees_with_the_float64_relative_upper_bound() -> None:
    distances = range(0, 4096, 97)
    floats = relative_upper_bound(np.array(distances), D, float(C)) / 2
    for (_, ratio), value in zip(ib.extrapolation_ratios(D, C, distances), floats, strict=True):
        assert abs(float(ratio.mid()) - value) < 1e-9


@pytest.mark.slow
def test_b_is_at_least_d_on_figure_5s_range() -> None:
    floor = ib.extrapolation_floor(D, C, range(4096))
    assert floor.holds and ib.is_below(flint.arb(1), floor.smallest)
    assert floor.smallest_at == ib.scan_floor_float(D, C, 4095).smallest_at


@pytest.mark.slow
def test_a_wrong_base_or_a_longer_range_breaks_b_at_least_d() -> None:
    assert not ib.extrapolation_floor(D, 100, range(300)).holds
    first = ib.first_below(D, C, range(4096, 32768))
    assert first is not None and not ib.extrapolation_floor(D, C, range(first[0], first[0] + 1)).holds
    assert ib.first_below(D, C, range(first[0])) is None


@pytest.mark.slow
def test_the_float64_scan_is_decided_and_agrees_with_the_balls() -> None:
    scan = ib.scan_floor_float(D, C, 32767)
    first = ib.first_below(D, C, range(4096, 32768))
    assert scan.decided and scan.below > 0 and first is not None and scan.first_below == first[0]
    (_, lowest), *_ = ib.extrapolation_ratios(D, C, range(scan.smallest_at, scan.smallest_at + 1))
    assert abs(float(lowest.mid()) - scan.smallest) <= scan.error
    assert ib.scan_floor_float(D, C, 4095).below == 0


@pytest.mark.slow
def test_the_float64_scan_of_pis_window_matches_ball_arithmetic_everywhere() -> None:
    scan = ib.scan_floor_float(D, C, 32767)
    with flint.ctx.workprec(64):
        ratios = list(ib.extrapolation_ratios(D, C, range(32768)))
    assert sum(ib.is_below(ratio, 1) for _, ratio in ratios) == scan.below
    assert min(ratios, key=lambda item: item[1].mid())[0] == scan.smallest_at


def test_extrapolation_inputs_are_checked() -> None:
    with pytest.raises(ValueError):
        ib.extrapolation_floor(D, C, range(0))
    with pytest.raises(ValueError):
        list(ib.extrapolation_ratios(D, C, range(-1, 1)))
    with pytest.raises(ValueError):
        list(ib.extrapolation_ratios(7, C, range(1)))


# ------------------------------------------------------------------------------- the critical dimension


def test_the_critical_dimension_of_llama2_and_llama() -> None:
    assert ib.critical_dimension(D, C, 4096) == 92
    assert ib.critical_dimension(D, C, 2048) == 82
    for length in (4096, 2048):
        assert ib.check_critical_dimension(ib.critical_dimension(D, C, length), D, C, length).holds


def test_a_floor_instead_of_the_ceiling_fails_the_period_check() -> None:
    for length in (4096, 2048):
        floored = 2 * int(ib.critical_exponent(D, C, length).floor().unique_fmpz())
        assert floored != ib.critical_dimension(D, C, length)
        assert not ib.check_critical_dimension(floored, D, C, length).holds


def test_a_wrong_base_or_length_changes_the_dimension_and_fails_the_check() -> None:
    for wrong in (ib.critical_dimension(D, 500000, 4096), ib.critical_dimension(D, C, 8192)):
        assert wrong != 92 and not ib.check_critical_dimension(wrong, D, C, 4096).holds
    assert not ib.check_critical_dimension(94, D, C, 4096).holds


def test_the_split_is_certified_next_to_an_integer_and_undecided_at_low_precision() -> None:
    split = ib.check_critical_dimension(90, D, C, 4080)  # x = 44.9997: pair 45's period is 4080.185
    assert split.holds and ib.critical_dimension(D, C, 4080) == 90
    assert ib.is_below(flint.arb(4080), split.shortest_incomplete)
    with flint.ctx.workprec(12), pytest.raises(ValueError, match="not certified"):
        ib.critical_dimension(D, C, 4080)


def test_a_training_length_below_every_period_leaves_no_dimension() -> None:
    split = ib.check_critical_dimension(0, D, C, 6)
    assert split.holds and split.complete_dims == 0 and split.longest_complete is None
