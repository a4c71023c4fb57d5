"""Certified separation over a range of offsets: the enclosures against mpmath, the 128-bit turn positions
against exact integers, the search against brute force, twins whose bounds overstate caught, the command."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from fractions import Fraction

import flint
import ml_dtypes
import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_verify import cli
from pe_verify.properties.analyses import separation
from pe_verify.properties.analyses.near_collision import offset_squared_distance_mp
from pe_verify.properties.analyses.separation import (
    ANCHOR_FACTOR_ERROR,
    ChordBounds,
    LeafProducts,
    TurnTable,
    add_turns,
    anchor_factors,
    arc_lower_bounds,
    audit_separation,
    certified_separation,
    chord_lower,
    chord_upper,
    decimal_floor,
    longest_excludable_interval,
    point_upper_bounds,
    search_shape,
    separation_seconds,
    squared_distance_ball,
)
from pe_verify.properties.encodings.sinusoidal import FIXED_POINT_DPS, Sinusoidal, sin_cos_at_integers
from pe_verify.properties.numerics.validation import exact_decimal


def _chord(x: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        return 4 * mpmath.sin(mpmath.pi * mpmath.mpf(x)) ** 2


@given(st.floats(0, 0.5))
def test_the_chord_enclosures_hold_and_are_tight(x: float) -> None:
    low, high = float(chord_lower(np.array([x]))[0]), float(chord_upper(np.array([x]))[0])
    true = _chord(x)
    assert low <= true <= high
    assert high - low <= 1e-9 * true + 1e-297


@given(st.floats(0, 1, exclude_max=True), st.floats(0, 1))
def test_the_arc_bound_is_below_the_chord_everywhere_on_the_arc(turn: float, advance: float) -> None:
    bound = float(arc_lower_bounds(np.array([turn]), np.array([advance]))[0])
    for x in np.linspace(turn, turn + advance, 33):
        assert bound <= _chord(float(x))
    assert bound <= _chord(turn) and bound <= _chord(turn + advance)


def test_the_arc_bound_is_zero_only_when_the_arc_may_reach_an_integer() -> None:
    bounds = arc_lower_bounds(np.array([0.1, 0.9, 0.5, 0.0]), np.array([0.2, 0.2, 0.0, 0.1]))
    assert bounds[0] > 0.38 and bounds[1] == 0 and bounds[2] > 3.99 and bounds[3] == 0


@given(st.floats(0, 1, exclude_max=True))
def test_the_point_upper_bound_holds(turn: float) -> None:
    assert _chord(turn) <= float(point_upper_bounds(np.array([turn]))[0])


@given(st.integers(0, 2**62 - 1), st.integers(0, 2**62 - 1))
def test_turn_positions_are_exact_128_bit_products_and_add(first: int, second: int) -> None:
    table = TurnTable.of(Sinusoidal(8, "10000"))
    hi, lo = table.at(first)
    assert [(int(h) << 64) | int(w) for h, w in zip(hi, lo, strict=True)] == [
        first * f % 2**128 for f in table.fixed
    ]
    total_hi, total_lo = add_turns(hi, lo, *table.at(second))
    expected_hi, expected_lo = table.at(first + second)
    assert np.array_equal(total_hi, expected_hi) and np.array_equal(total_lo, expected_lo)


def test_turn_rates_are_the_frequencies_over_two_pi() -> None:
    encoding = Sinusoidal(16, "10000")
    table = TurnTable.of(encoding)
    with mpmath.workdps(FIXED_POINT_DPS):
        for rate, omega in zip(table.rates, encoding.frequencies_mp(FIXED_POINT_DPS), strict=True):
            assert abs(rate - float(omega / (2 * mpmath.pi))) <= 1e-16 * rate
    steps_hi, steps_lo = table.steps(1000, 5)
    assert np.array_equal(steps_hi[3], table.at(3000)[0]) and np.array_equal(steps_lo[3], table.at(3000)[1])


@pytest.mark.slow
def test_numpy_float32_cos_and_sin_are_within_the_assumed_error_on_minus_pi_to_pi() -> None:
    """The assumption behind ANCHOR_FACTOR_ERROR, on every float32 of a dense grid (and the ends)."""
    angle = np.linspace(-np.pi, np.pi, 2**22).astype(np.float32)
    wide = angle.astype(np.float64)
    for function in (np.cos, np.sin):
        error = float(np.abs(function(angle).astype(np.float64) - function(wide)).max())
        assert 2.0**-26 < error <= 2.0**-22 - 2.0**-50


def test_the_anchor_factors_are_within_their_error_of_the_exact_turn_positions() -> None:
    table = TurnTable.of(Sinusoidal(512, "10000"))
    offsets = [*np.random.default_rng(3).integers(1, 2**62, size=16).tolist(), 0, 1]
    hi = np.stack([table.at(k)[0] for k in offsets])
    cos_a, sin_a = anchor_factors(hi)
    with mpmath.workdps(40):
        for column, k in enumerate(offsets):
            for i in range(0, 256, 15):
                turn = mpmath.mpf(k * table.fixed[i] % 2**128) / 2**128
                assert abs(cos_a[i, column] - mpmath.cos(2 * mpmath.pi * turn)) <= ANCHOR_FACTOR_ERROR
                assert abs(sin_a[i, column] - mpmath.sin(2 * mpmath.pi * turn)) <= ANCHOR_FACTOR_ERROR


def _screen_error(products: LeafProducts, encoding: Sinusoidal, half: int, anchors: np.ndarray) -> float:
    """The largest |Ŝ − S| of the screen's sums for offsets a ± b, 0 ≤ b ≤ half, against float64."""
    omegas = encoding.frequencies_mp(FIXED_POINT_DPS)
    table = TurnTable.of(encoding)
    sin_b, cos_b = sin_cos_at_integers(np.arange(half + 1), omegas)
    sin_a, cos_a = sin_cos_at_integers(anchors, omegas)
    x, y = products.sums(*anchor_factors(np.stack([table.at(int(a))[0] for a in anchors])))
    n = encoding.d // 2
    error = 0.0
    for sign in (1, -1):
        screened = 2 * n - 2 * (x - sign * y).astype(np.float64)
        exact = 2 * n - 2 * (cos_b @ cos_a.T - sign * (sin_b @ sin_a.T))
        error = max(error, float(np.abs(screened - exact).max()))
    return error


@pytest.mark.slow
def test_the_float32_screen_stays_within_its_error_bound_plain_and_low_rank() -> None:
    encoding = Sinusoidal(512, "10000")
    sin_b, cos_b = sin_cos_at_integers(np.arange(2049), encoding.frequencies_mp(FIXED_POINT_DPS))
    anchors = np.random.default_rng(7).integers(2**20, 2**31, size=32)
    plain, factored = LeafProducts.plain(cos_b, sin_b), LeafProducts.factored(cos_b, sin_b)
    assert plain.rank == 256 and factored is not None and factored.rank <= 128
    for products in (plain, factored):
        assert 0 < _screen_error(products, encoding, 2048, anchors) <= products.error < 0.1
    short = LeafProducts.factored(cos_b, sin_b, limit=2.0**-4)
    assert short is not None and short.rank < factored.rank
    assert factored.error < _screen_error(short, encoding, 2048, anchors) <= short.error


def test_low_rank_products_are_refused_where_they_would_not_pay() -> None:
    sin_b, cos_b = sin_cos_at_integers(np.arange(9), Sinusoidal(6, "10000").frequencies_mp(FIXED_POINT_DPS))
    assert LeafProducts.factored(cos_b, sin_b) is None


@pytest.mark.parametrize(
    ("d", "max_offset", "from_offset"),
    [(2, 5000, 1), (6, 100000, 3000), (8, 50000, 1), (64, 200000, 10000), (64, 30001, 29990)],
)
def test_the_search_agrees_with_brute_force_and_no_bound_overstates(
    d: int, max_offset: int, from_offset: int
) -> None:
    audit = audit_separation(Sinusoidal(d, "10000"), max_offset, from_offset)
    assert audit.holds, (audit.brute_force_offset, audit.overstated[:3], audit.failure)
    found = audit.separation
    assert found.by_bounds + found.by_screen + found.by_points + found.candidates == max_offset - from_offset
    with mpmath.workdps(60):
        omegas = Sinusoidal(d, "10000").frequencies_mp(60)
        least = mpmath.sqrt(offset_squared_distance_mp(found.argmin_offsets[0], omegas))
        assert abs(least - mpmath.mpf(found.minimum.str(55, radius=False))) < mpmath.mpf(10) ** -45


def test_no_excluded_interval_is_longer_than_the_arc_bound_allows() -> None:
    encoding = Sinusoidal(64, "10000")
    audit = audit_separation(encoding, 200000, 10000)
    longest = longest_excludable_interval(encoding, float(audit.separation.minimum.mid()) ** 2)
    lengths = audit.separation.pruned.lengths.tolist()
    assert 1 < max(lengths) <= longest < 200000


def test_the_default_leaves_agree_with_brute_force_on_an_unaligned_range() -> None:
    audit = audit_separation(Sinusoidal(32, "10000"), 3 * 4096 + 77, 5, leaf=4096, branching=16)
    assert audit.holds and audit.separation.by_screen > 0


class OverstatedArcs(ChordBounds):
    """Bounds over intervals of more than one offset are 30 % too large."""

    def interval(self, turns: np.ndarray, advance: np.ndarray) -> np.ndarray:
        return super().interval(turns, advance) * np.where(advance > 0, 1.3, 1.0)


class OverconfidentScreen(ChordBounds):
    """The float32 screen claims values one unit higher than it computed."""

    def screen_error(self, products: LeafProducts) -> float:
        return -1.0


class ShortRank(ChordBounds):
    """The low-rank screen neglects singular values up to 2^-4·√n instead of 2^-16·√n, and claims the
    error bound of the rank it needs."""

    def factored_products(self, cos_b: np.ndarray, sin_b: np.ndarray) -> LeafProducts | None:
        needed = super().factored_products(cos_b, sin_b)
        short = LeafProducts.factored(cos_b, sin_b, limit=2.0**-4)
        assert needed is not None and short is not None and short.rank < needed.rank
        return dataclasses.replace(short, error=needed.error)


@dataclasses.dataclass(frozen=True)
class SeenProducts(ChordBounds):
    """The bounds as they are, keeping the low-rank products the screen switched to."""

    seen: list = dataclasses.field(default_factory=list)

    def factored_products(self, cos_b: np.ndarray, sin_b: np.ndarray) -> LeafProducts | None:
        self.seen.append(super().factored_products(cos_b, sin_b))
        return self.seen[-1]


@pytest.mark.slow
def test_the_screen_switches_to_low_rank_products_and_agrees_with_brute_force() -> None:
    bounds = SeenProducts()
    audit = audit_separation(Sinusoidal(64, "10000"), 2**20, 10000, bounds=bounds, leaf=128, branching=16)
    assert audit.holds and audit.separation.by_screen > 2**19
    assert len(bounds.seen) == 1 and bounds.seen[0].rank < 32


@pytest.mark.slow
def test_a_low_rank_screen_short_of_its_rank_is_caught_by_brute_force() -> None:
    audit = audit_separation(
        Sinusoidal(64, "10000"), 2**20, 10000, bounds=ShortRank(), leaf=128, branching=16
    )
    assert not audit.holds and audit.overstated


@pytest.mark.slow
def test_an_offset_excluded_twice_is_caught_by_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that records every excluded interval twice (so its tallies would count offsets twice)."""
    keep = separation._Search._keep

    def twice(
        self: separation._Search, starts: np.ndarray, lengths: np.ndarray | int, lower: np.ndarray
    ) -> None:
        keep(self, starts, lengths, lower)
        keep(self, starts, lengths, lower)

    encoding = Sinusoidal(6, "10000")
    assert audit_separation(encoding, 100000, 3000).holds
    monkeypatch.setattr(separation._Search, "_keep", twice)
    audit = audit_separation(encoding, 100000, 3000)
    assert audit.agrees and not audit.overstated and audit.twice > 0 and not audit.holds


class UnderstatedPoints(ChordBounds):
    """Upper bounds at single offsets are 10 % too small."""

    def point_upper(self, turns: np.ndarray) -> np.ndarray:
        return super().point_upper(turns) * 0.9


@pytest.mark.slow
@pytest.mark.parametrize("twin", [OverstatedArcs(), OverconfidentScreen(), UnderstatedPoints()])
@pytest.mark.parametrize(("d", "max_offset", "from_offset"), [(6, 100000, 3000), (64, 200000, 10000)])
def test_a_bound_that_overstates_is_caught_by_brute_force(
    twin: ChordBounds, d: int, max_offset: int, from_offset: int
) -> None:
    assert not audit_separation(Sinusoidal(d, "10000"), max_offset, from_offset, bounds=twin).holds


def test_the_audit_refuses_ranges_brute_force_cannot_do() -> None:
    with pytest.raises(ValueError, match="below 2\\^24"):
        audit_separation(Sinusoidal(8, "10000"), 2**24)


def test_at_d_512_the_unit_step_is_the_nearest_offset_below_2_to_the_24() -> None:
    found = certified_separation(Sinusoidal(512, "10000"), 2**24)
    assert found.certified and found.argmin_offsets == (1,)
    assert found.by_bounds > 0.99 * 2**24
    assert found.next_lower_bound > found.lower_bound


def test_the_ball_of_an_offset_matches_mpmath_for_a_decimal_base() -> None:
    encoding = Sinusoidal(10, "12.5")
    ball = squared_distance_ball(encoding, 12345, 220)
    with mpmath.workdps(60):
        expected = offset_squared_distance_mp(12345, encoding.frequencies_mp(60))
        assert abs(mpmath.mpf(ball.str(55, radius=False)) - expected) < mpmath.mpf(10) ** -50


def _distance_mp(omegas: list[mpmath.mpf], offset: int) -> mpmath.mpf:
    """√(Σ_i 4 sin²(kω_i/2)), from the frequencies as mpmath numbers at the current precision."""
    return mpmath.sqrt(mpmath.fsum(4 * mpmath.sin(offset * omega / 2) ** 2 for omega in omegas))


def test_given_frequencies_give_their_own_distance_not_the_default_ones() -> None:
    encoding = Sinusoidal(4, omegas=(1, sp.Rational(1, 7)))
    found = certified_separation(encoding, 100, 2)
    with mpmath.workdps(90):
        omegas = [mpmath.mpf(1), mpmath.mpf(1) / 7]
        distances = {k: _distance_mp(omegas, k) for k in range(2, 100)}
        nearest = min(distances, key=distances.__getitem__)
        assert found.certified and found.argmin_offsets == (nearest,) == (44,)
        assert abs(mpmath.mpf(found.minimum.str(55, radius=False)) - distances[44]) < mpmath.mpf(10) ** -45
        assert mpmath.mpf(found.minimum.str(55, radius=False)) < 0.018
        bound = found.lower_bound
        assert mpmath.mpf(bound.numerator) / bound.denominator <= distances[44]


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-400, 400), st.integers(1, 97), st.booleans()), min_size=1, max_size=3),
    st.integers(1, 2**62),
)
def test_the_ball_of_given_frequencies_contains_the_mpmath_distance(
    drawn: list[tuple[int, int, bool]], offset: int
) -> None:
    """ω = p/q or p·π/q: the ball at `offset`, against the distance recomputed in mpmath from p, q alone."""
    exact = tuple(sp.Rational(p, q) * (sp.pi if turn else 1) for p, q, turn in drawn)
    ball = squared_distance_ball(Sinusoidal(2 * len(drawn), omegas=exact), offset, 300)
    with mpmath.workdps(120):
        omegas = [mpmath.mpf(p) / q * (mpmath.pi if turn else 1) for p, q, turn in drawn]
        expected = _distance_mp(omegas, offset) ** 2
        assert abs(mpmath.mpf(ball.mid().str(60, radius=False)) - expected) < mpmath.mpf(10) ** -30
        assert mpmath.mpf(ball.rad().str(5, radius=False)) < mpmath.mpf(10) ** -30


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 300), st.integers(1, 97)), min_size=2, max_size=2))
def test_the_search_over_given_frequencies_finds_the_mpmath_minimiser(drawn: list[tuple[int, int]]) -> None:
    encoding = Sinusoidal(4, omegas=tuple(sp.Rational(p, q) for p, q in drawn))
    found = certified_separation(encoding, 300, 1)
    with mpmath.workdps(40):
        omegas = [mpmath.mpf(p) / q for p, q in drawn]
        distances = sorted((_distance_mp(omegas, k), k) for k in range(1, 300))
        (least, k), (second, _) = distances[:2]
        assert abs(mpmath.mpf(found.minimum.str(30, radius=False)) - least) < mpmath.mpf(10) ** -25
        if second - least > mpmath.mpf(10) ** -20:
            assert found.certified and found.argmin_offsets == (k,)


def test_a_float_base_is_read_at_its_binary_value_like_the_turn_table() -> None:
    """1.1 as a float is not 11/10: at k = 10^15 the two differ by about 0.1 in S."""
    encoding = Sinusoidal(4, 1.1)
    ball = squared_distance_ball(encoding, 10**15, 200)
    with mpmath.workdps(60):
        expected = _distance_mp([mpmath.mpf(1), mpmath.mpf(1.1) ** -0.5], 10**15) ** 2
        assert abs(mpmath.mpf(ball.str(40, radius=False)) - expected) < mpmath.mpf(10) ** -25


def test_frequencies_the_turn_table_cannot_hold_are_refused() -> None:
    with pytest.raises(ValueError, match="2\\^64"):
        certified_separation(Sinusoidal(2, omegas=(sp.Integer(2) ** 70,)), 100)


def _tallies(found: separation.Separation) -> int:
    return found.by_bounds + found.by_screen + found.by_points + found.candidates


def test_a_range_up_to_2_to_the_62_is_searched_without_wrapping_offsets() -> None:
    """ω/2π = 2^-61 and 1/4096 from 2^61 + 5·4096: S vanishes only at 2^61, so the least S of the range is at
    the last multiple of 4096, 2^62 − 4096, with √S = 2 sin(π·2^-49). The root interval of 2^64 offsets
    has children from 2^61 + 6·2^60 = 2^63 on, beyond int64."""
    encoding = Sinusoidal(4, omegas=(sp.pi / 2**60, sp.pi / 2048))
    first = 2**61 + 5 * 4096
    found = certified_separation(encoding, 2**62, first, leaf=4096, branching=16)
    assert found.certified and found.argmin_offsets == (2**62 - 4096,)
    assert _tallies(found) == 2**62 - first
    with mpmath.workdps(60):
        expected = 2 * mpmath.sin(mpmath.pi * mpmath.mpf(2) ** -49)
        assert abs(mpmath.mpf(found.minimum.str(55, radius=False)) - expected) < mpmath.mpf(10) ** -60


@pytest.mark.slow
def test_the_command_at_max_offset_2_to_the_62_decides_every_offset(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every offset of the range tallied once, the minimiser the one of an mpmath evaluation of each."""
    first = 2**62 - 2000
    argv = ["separation", "--d", "20", "--max-offset", str(2**62), "--from-offset", str(first), "--json"]
    assert cli.main(argv) == 0
    report = json.loads(capsys.readouterr().out)["separation"]
    assert sum(report["decided"].values()) == 2000 and report["certified"] is True
    with mpmath.workdps(75):  # 19 of the digits go to k ≈ 2^62
        omegas = Sinusoidal(20, "10000").frequencies_mp(75)[:10]
        distances = sorted((_distance_mp(omegas, k), k) for k in range(first, 2**62))
        (least, k), (second, _) = distances[:2]
        assert report["argmin_offsets"] == [k]
        assert abs(mpmath.mpf(report["minimum_distance"]) - least) < mpmath.mpf(10) ** -20
        assert mpmath.mpf(report["lower_bound"]) <= least + mpmath.mpf(10) ** -40
        assert mpmath.mpf(report["next_lower_bound"]) <= second


def test_the_machine_s_float32_cos_sin_and_products_pass_their_run_time_checks() -> None:
    found = certified_separation(Sinusoidal(64, "10000"), 200000, 10000)
    assert found.certified and found.reason is None and found.failed_assumptions == ()
    assert separation.trig_failure(np.cos, np.sin) is None


def test_a_float32_cos_with_a_larger_error_makes_the_answer_uncertified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cos = np.cos

    def rough_cos(x: np.ndarray, *args: object, **kwargs: object) -> np.ndarray:
        value = cos(x, *args, **kwargs)
        return value + np.float32(2.0**-20) if getattr(value, "dtype", None) == np.float32 else value

    monkeypatch.setattr(np, "cos", rough_cos)
    found = certified_separation(Sinusoidal(64, "10000"), 200000, 10000)
    assert not found.certified and len(found.argmin_offsets) == 1
    assert "float32 cos" in found.reason


def test_a_float64_sin_with_a_larger_error_is_caught_by_the_same_check() -> None:
    def rough_sin(x: np.ndarray) -> np.ndarray:
        value = np.sin(x)
        return value + 2.0**-28 if value.dtype == np.float64 else value

    assert "float64 sin" in separation.trig_failure(np.cos, rough_sin)


def _bf16_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A float32 product on inputs rounded to bfloat16 first (as a bf16 matrix unit does)."""
    return a.astype(ml_dtypes.bfloat16).astype(np.float32) @ b.astype(ml_dtypes.bfloat16).astype(np.float32)


def test_a_product_on_bf16_rounded_inputs_makes_the_answer_uncertified(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(separation, "float32_product", _bf16_product)
    argv = [
        "separation",
        "--d",
        "64",
        "--max-offset",
        "200000",
        "--from-offset",
        "10000",
        "--json",
        "--quiet",
    ]
    assert cli.main(argv) == 0
    report = json.loads(capsys.readouterr().out)["separation"]
    assert report["certified"] is False and "float32 matrix product" in report["reason"]
    assert separation.product_failure(np.matmul, 2049, 32) is None


def test_the_collisions_answer_is_not_called_certified_when_a_check_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pe_verify.properties.analyses.collisions import _vector_nearest

    monkeypatch.setattr(separation, "float32_product", _bf16_product)
    answer = _vector_nearest(64, Fraction(10000), 100000)
    assert answer.value["certified"] is False and "float32 matrix product" in answer.value["reason"]
    assert "NOT certified" in answer.summary


def test_ball_ends_are_rounded_outwards_to_floats() -> None:
    """1 + 2^-60 rounds to 1.0 at the nearest float: the early stop and the bounds need the float above it
    (and, for the lower end, below it)."""
    with flint.ctx.workprec(100):
        above, below = flint.arb(1) + flint.arb(2) ** -60, -flint.arb(1) - flint.arb(2) ** -60
    assert separation.float_up(above) == np.nextafter(1.0, 2.0) and float(above) == 1.0
    assert separation.float_down(below) == -np.nextafter(1.0, 2.0)
    assert separation.float_down(above) == 1.0 == separation.float_up(flint.arb(1))


def test_the_lower_bound_covers_every_ball_of_an_undecided_minimum() -> None:
    """ω = π/2: S(1) = S(3) = 2 exactly, so their balls overlap and neither is certified the minimiser; the
    bound for every offset must hold for both balls, not only for the one of least midpoint."""
    encoding = Sinusoidal(2, omegas=(sp.pi / 2,))
    found = certified_separation(encoding, 4, 1)
    assert found.argmin_offsets == (1, 3) and not found.certified
    assert found.least_lower is not None and found.lower_bound <= found.least_lower
    assert float(found.lower_bound) == pytest.approx(2**0.5)


def test_decimal_floor_rounds_down() -> None:
    assert decimal_floor(Fraction(2, 3), 5) == "0.66666"
    assert decimal_floor(Fraction(123456), 3) == "123000"
    assert decimal_floor(Fraction(1, 1000), 2) == "0.0010"
    assert decimal_floor(Fraction(0), 4) == "0"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_offset": 10, "from_offset": 10}, "from_offset < max_offset"),
        ({"max_offset": 2**62 + 1}, "2\\^62"),
        ({"max_offset": 100, "leaf": 7}, "even"),
        ({"max_offset": 100, "branching": 1}, "at least 2"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        certified_separation(Sinusoidal(8, "10000"), **kwargs)


def test_odd_d_is_refused() -> None:
    with pytest.raises(ValueError, match="even"):
        certified_separation(Sinusoidal(7, "10000"), 100)


def test_the_command_prints_the_certified_minimum_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["separation", "--d", "6", "--max-offset", "1e6", "--from-offset", "3000", "--json"]
    assert cli.main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    report = document["separation"]
    assert report["argmin_offsets"] == [428708] and report["certified"] is True
    assert report["minimum_distance"].startswith("0.0228243414991472745890")
    assert len(report["minimum_distance"].replace("0.0", "", 1).lstrip("0")) == 50
    assert Fraction(report["lower_bound"]) <= Fraction(report["minimum_distance"])
    assert Fraction(report["next_lower_bound"]) > Fraction(report["minimum_distance"])
    assert sum(report["decided"].values()) >= 10**6 - 3000
    assert {"base", "seconds"} <= report.keys()
    settings = document["settings"]
    assert (settings["d"], settings["from-offset"], settings["max-offset"]) == (6, 3000, 10**6)


def test_the_command_prints_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["separation", "--d", "512", "--max-offset", "1e6", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "minimum 3.71427036512880388161872770675875581982658514421" in out and "k = 1 (certified)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d", "7", "--max-offset", "100"], "even"),
        (["--d", "8", "--max-offset", "100", "--from-offset", "100"], "from-offset < max-offset"),
        (["--d", "8", "--max-offset", "100", "--base", "4/3"], "finite decimal"),
        (["--d", "8", "--max-offset", "100", "--base", "1"], "greater than 1"),
        (["--d", "4096", "--max-offset", "100", "--max-memory", "0.01"], "raise --max-memory"),
        (["--d", "512", "--from-offset", "60612", "--max-offset", "2**40"], "max-offset must be"),
        (["--d", "6", "--max-offset", "1000", "--workers", "0"], "workers"),
        (["--d", "6", "--max-offset", "1000", "--workers", "1000"], "workers"),
        (["--d", "6", "--max-offset", "1000", "--chunks", "0"], "chunks"),
        (
            ["--d", "6", "--max-offset", "1000", "--workers", "2", "--scheduler", "tcp://h:1"],
            "cannot be combined",
        ),
    ],
)
def test_bad_command_settings_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["separation", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (Fraction(10000), "10000"),
        (Fraction(25, 2), "12.5"),
        (Fraction(1, 1000), "0.001"),
        (Fraction(-5, 8), "-0.625"),
        (Fraction(4, 3), None),
        (Fraction(float(4 / 3)), "1.3333333333333332593184650249895639717578887939453125"),
    ],
)
def test_exact_decimals_are_written_out_and_endless_ones_refused(
    value: Fraction, written: str | None
) -> None:
    text = exact_decimal(value)
    assert text == written and (text is None or Fraction(text) == value)


@pytest.mark.slow
def test_the_default_search_shape_follows_d_and_gives_the_answer_of_any_other_shape() -> None:
    """Few frequencies get short leaves; the answer (minimum, its offsets, the certificate) is the same
    whatever the leaves and branching."""
    assert [search_shape(d) for d in (2, 6, 8, 12, 16, 20, 512)] == [
        (4, 4),
        (16, 4),
        (64, 4),
        (256, 4),
        (1024, 4),
        (4096, 16),
        (4096, 16),
    ]
    encoding = Sinusoidal(6)
    default = certified_separation(encoding, 2**22, 2917)
    other = certified_separation(encoding, 2**22, 2917, leaf=4096, branching=16)
    assert default.argmin_offsets == other.argmin_offsets
    assert default.minimum.mid() == other.minimum.mid()
    assert default.certified and other.certified
    assert default.by_bounds > other.by_bounds


def test_a_range_of_one_offset_is_answered(capsys: pytest.CaptureFixture[str]) -> None:
    """No other offset to bound: the bound on the others is absent, not an internal error."""
    found = certified_separation(Sinusoidal(6, "10000"), 2)
    assert found.argmin_offsets == (1,) and found.certified and found.next_lower_bound is None
    assert cli.main(["separation", "--d", "6", "--max-offset", "2", "--quiet"]) == 0
    assert "every other offset: none in the range" in capsys.readouterr().out
    assert (
        cli.main(["separation", "--d", "6", "--from-offset", "3000", "--max-offset", "3001", "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)["separation"]
    assert report["argmin_offsets"] == [3000] and report["next_lower_bound"] is None


#: The configurations of docs/collisions.md's separation table, with the seconds it reports (all under the
#: default limit of 10 minutes), and the d = 512 far range to 2^40 it puts at about 1.5 h.
README_RUNS = [
    (512, "10000", 1, 2**31, 0.4),
    (512, "10000", 60612, 2**31, 10.7),
    (6, "10000", 1, 2**31, 1.6),
    (6, "10000", 2917, 2**40, 397),
    (768, "500000", 1, 2**31, 0.1),
    (768, "500000", 3036050, 2**31, 13.7),
    (4096, "500000", 1, 2**31, 0.6),
    (4096, "500000", 3121528, 2**28, 7.0),
]


@pytest.mark.parametrize(("d", "base", "first", "stop", "seconds"), README_RUNS)
def test_the_time_estimate_lets_every_run_of_the_readme_through(
    d: int, base: str, first: int, stop: int, seconds: float
) -> None:
    estimate = separation_seconds(d, float(base), stop, first)
    assert seconds <= estimate <= 60 * cli.MAX_MINUTES


def test_the_time_estimate_refuses_the_far_range_the_readme_puts_at_an_hour_and_a_half(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert separation_seconds(512, 1e4, 2**40, 60612) > 3600
    argv = ["separation", "--d", "512", "--from-offset", "60612", "--max-offset", "1099511627776"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(separation, "certified_separation", _never)
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "would take about 9" in err and "raise --max-minutes" in err and err.count("\n") == 1
        assert cli.main([*argv, "--max-minutes", "200"]) == 3
        assert "the search started" in capsys.readouterr().err


def _never(*args: object, **kwargs: object) -> None:
    raise RuntimeError("the search started")


#: The estimates at d = 10^12, far beyond what the command accepts, in a process capped at 1.5 GiB.
ESTIMATES = """
import resource
from fractions import Fraction
from pe_verify.properties.analyses import collisions, separation

resource.setrlimit(resource.RLIMIT_AS, (3 * 2**29, 3 * 2**29))
d = 10**12
assert separation.search_shape(d) == (4096, 16)
print(separation.separation_memory(d, 2**62), separation.separation_seconds(d, 1.7e308, 2**62))
print(sum(need.bytes for need in collisions.plan(d, Fraction(10**4), 2**32, 2**52)))
"""


@pytest.mark.slow
def test_the_estimates_are_closed_form_for_any_size() -> None:
    """Nothing of the requested size is built: no 4^(d/4) before a min, no list of d frequencies."""
    done = subprocess.run([sys.executable, "-c", ESTIMATES], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(float(number) > 0 for number in done.stdout.split())
