"""`properties/analyses/base_bound.py`: the float64 scan of B(m) = Σ cos(m·θ_i) within its a-priori bound, its
sign decisions against a direct sum and against balls, the search over two-digit bases, and broken criteria (a
wrong frequency exponent, a dropped term, a bound too tight to hold) that must change the outcome."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import replace
from fractions import Fraction

import flint
import numpy as np
import pytest

from pe_verify.properties.analyses import base_bound as bb
from pe_verify.properties.encodings.frequencies import frequencies, frequency_arb


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
    return bb.CosineSum(
        base, d, theta, lambda ball: [frequency_arb(i, d, ball * ball) for i in range(d // 2)]
    )


def last_term_dropped(base: Fraction | int, d: int = 128) -> bb.CosineSum:
    """A broken criterion: the sum stops at i = d/2 − 2, the slowest frequency left out."""
    good = bb.cosine_sum(base, d)
    return bb.CosineSum(good.base, d, good.theta[:-1], lambda ball: good.frequency_balls(ball)[:-1])


@pytest.mark.slow
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


@pytest.mark.slow
def test_balls_that_disagree_with_the_floats_decide_the_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every value sent to the balls, a ball of the wrong frequencies moves the first negative."""
    monkeypatch.setattr(bb, "scan_error", lambda limit, base, terms: 100.0)
    good = bb.cosine_sum(20)
    wrong = bb.CosineSum(
        good.base,
        good.d,
        good.theta,
        lambda ball: [frequency_arb(i, good.d, ball * ball) for i in range(good.d // 2)],
    )
    assert bb.scan(good, 300).first_negative == int(np.flatnonzero(direct_sums(20.0, 300) < 0)[0])
    assert bb.scan(wrong, 300).first_negative == int(np.flatnonzero(direct_sums(400.0, 300) < 0)[0])


def test_a_sign_the_balls_cannot_decide_is_an_error() -> None:
    zero = bb.CosineSum(Fraction(2), 2, np.array([np.pi / 2]), lambda ball: [flint.arb.pi() / 2])
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_published_table_is_checked_row_by_row() -> None:
    table = bb.recompute_table({1024: Fraction(4300), 4096: Fraction(27000), 4000: Fraction(27000)})
    assert table[1024].agrees and table[1024].published.admissible
    assert not table[4096].agrees and not table[4096].published.admissible
    assert table[4000].agrees


@pytest.mark.slow
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


def admissible_direct(base: Fraction, length: int) -> bool:
    return bool(direct_sums(float(base), length).min() > 0)


@pytest.mark.slow
def test_the_islands_between_two_digit_bases_are_found() -> None:
    """At L = 2048 the two-digit bases 1.1e4 … 1.5e4 all fail, yet islands lie between them: the scan shows
    each, and the direct sum confirms a base inside the first and fails the bases around it."""
    cells = bb.island_scan(2048, Fraction(11000), Fraction(12000))
    found = bb.islands(cells)
    assert len(found) == 1
    low, high = found[0]
    assert 11587 < low < 11588 and 11649 < high < 11650
    assert admissible_direct(Fraction(11600), 2048)
    assert not admissible_direct(Fraction(11000), 2048) and not admissible_direct(Fraction(12000), 2048)
    assert all(cell.state != bb.UNDECIDED or cell.high / cell.low < 1 + 2 * bb.RESOLUTION for cell in cells)


@pytest.mark.slow
def test_every_base_of_a_decided_cell_has_the_cell_s_state() -> None:
    """The Lipschitz reach, checked by direct sums at bases spread over decided cells near L = 1024."""
    cells = [
        cell for cell in bb.island_scan(1024, Fraction(4200), Fraction(4300)) if cell.state != bb.UNDECIDED
    ]
    assert {cell.state for cell in cells} == {bb.ADMISSIBLE, bb.FAILS}
    for cell in cells[:: max(1, len(cells) // 30)]:
        for t in (0, Fraction(1, 3), 1):
            base = cell.low + t * (cell.high - cell.low)
            assert admissible_direct(base, 1024) == (cell.state == bb.ADMISSIBLE), (cell, base)


@pytest.mark.slow
def test_a_scan_with_too_small_a_slope_misses_an_island(monkeypatch: pytest.MonkeyPatch) -> None:
    """A twin whose Lipschitz bound is 200 times too small steps over the island [11587.24, 11649.35] at
    L = 2048; the direct sum finds a base in it below the twin's answer."""
    good = bb.infimum(2048, Fraction(12000), start=Fraction(11000))
    real = bb.slope
    monkeypatch.setattr(bb, "slope", lambda cosine, low: real(cosine, low) / 200)
    twin = bb.islands(bb.island_scan(2048, Fraction(11000), Fraction(12000)))
    assert 11587 < good.low < good.high < 11588
    assert not any(low <= 11600 <= high for low, high in twin)
    assert admissible_direct(Fraction(11600), 2048)


@pytest.mark.slow
def test_the_infimum_is_certified_and_rounds_to_the_published_digits() -> None:
    found = bb.infimum(1024, Fraction(4300))
    assert found.low < found.high and (found.high - found.low) / found.high < Fraction(1, 10**12)
    assert 4293.4375 < float(found.low) < 4293.4376 and found.steps > 0 and found.witness <= 1024
    assert admissible_direct(found.high * (1 + Fraction(1, 10**9)), 1024)
    assert not admissible_direct(found.low * (1 - Fraction(1, 10**9)), 1024)
    ball = found.ball
    assert ball.contains(flint.arb(found.low.numerator) / found.low.denominator)
    assert ball.contains(flint.arb(found.high.numerator) / found.high.denominator)
    assert found.rounded(2) == 4300 and found.rounded(4) == 4293
    edge = next(index for index, cell in enumerate(found.cells) if cell.state != bb.FAILS)
    assert found.cells[edge].state == bb.UNDECIDED and found.cells[edge].low <= found.low


def test_a_failing_middle_base_counts_only_where_its_b_m_rises(monkeypatch: pytest.MonkeyPatch) -> None:
    cosine = bb.cosine_sum(Fraction(4293))
    assert bb.rises(cosine, 1009, Fraction(4293), Fraction(4294))
    assert not bb.rises(cosine, 0, Fraction(4293), Fraction(4294))
    monkeypatch.setattr(bb, "rises", lambda *args: False)
    with pytest.raises(ArithmeticError, match="certified to fail"):
        bb.infimum(1024, Fraction(4300), start=Fraction(4200))


def test_an_infimum_across_a_rounding_boundary_is_not_rounded() -> None:
    cells = (bb.Cell(Fraction(4200), Fraction(4300), bb.ADMISSIBLE),)
    across = bb.Infimum(1024, Fraction(1), Fraction(424999, 100), Fraction(425001, 100), 1, 1, cells)
    assert across.rounded(2) is None and across.rounded(3) == 4250
    assert bb._round(Fraction(4250), 2) == 4300 and bb._round(Fraction(4249), 2) == 4200


@pytest.mark.slow
def test_a_sweep_that_stops_past_the_first_island_keeps_the_cells_below_and_the_infimum() -> None:
    """With `beyond`, the sweep ends that far in ln b past its first admissible cell's low end: the cells
    below are the full sweep's, the last one is cut there, and the infimum is the same."""
    full = bb.island_scan(2048, Fraction(11000), Fraction(13000))
    near = bb.island_scan(2048, Fraction(11000), Fraction(13000), beyond=0.05)
    first = next(cell for cell in near if cell.state == bb.ADMISSIBLE)
    end = float(first.low) * math.exp(0.05)
    assert near[:-1] == full[: len(near) - 1] and near[-1].low == full[len(near) - 1].low
    assert float(near[-1].high) == pytest.approx(end, rel=1e-12) and near[-1].high < full[-1].high
    assert len(bb.islands(full)) == 2 and len(bb.islands(near)) == 1
    found = bb.infimum(2048, Fraction(13000), start=Fraction(11000), beyond=0.05)
    whole = bb.infimum(2048, Fraction(13000), start=Fraction(11000))
    assert (found.low, found.high) == (whole.low, whole.high)


def test_an_island_scan_of_bad_bounds_is_refused() -> None:
    with pytest.raises(ValueError):
        bb.island_scan(1024, Fraction(4300), Fraction(4200))
    with pytest.raises(ValueError, match="past the first island"):
        bb.island_scan(1024, Fraction(4200), Fraction(4300), beyond=0)
    with pytest.raises(ValueError):
        bb.island_scan(1024, Fraction(1, 2), Fraction(4200))


def test_the_slope_s_exponents_are_read_where_they_are_exact() -> None:
    """S at b = 1 is Σ 2i/d = 31.5 for d = 128; read off the frequencies of a base a part in 10^9 above 1 the
    exponents would be off by far more than the slope's margin, so they are read at base 2^10."""
    exact = sum(2 * i / 128 for i in range(64))
    assert bb.slope(bb._exponent_sum(bb.cosine_sum, 128), Fraction(1)) == pytest.approx(exact, rel=2e-9)
    near_one = bb.slope(bb.cosine_sum(1 + Fraction(1, 10**9)), Fraction(1))
    assert abs(near_one / exact - 1) > 1e-8
    with pytest.raises(ValueError, match="resolution"):
        bb.island_scan(1024, Fraction(4200), Fraction(4300), resolution=1e-15)


@functools.cache
def small_infimum() -> bb.Infimum:
    """L = 1024 from b = 3000 (to 4300, past the infimum 4293.4375…): a short certificate to tamper with."""
    return bb.infimum(1024, Fraction(4300), start=Fraction(3000))


@pytest.mark.slow
def test_a_certificate_reads_back_to_its_infimum_and_checks() -> None:
    found = small_infimum()
    text = bb.certificate_text(found)
    assert text.startswith(bb.CERTIFICATE_HEADER + "\nlength 1024 d 128 start 3000.0 ")
    assert bb.read_certificate(text) == (found, 128)
    bb.check_infimum(found)
    bb.check_infimum(found, every_cell=True)
    assert len(found.failing) > 10 and found.bisected and found.bisected[-1].witness == found.witness


def tampered_witness(found: bb.Infimum) -> bb.Infimum:
    cells = list(found.cells)
    cells[5] = replace(cells[5], witness=0)  # B(0) = d/2 > 0 at every base
    return replace(found, cells=tuple(cells))


def without_a_cell(found: bb.Infimum) -> bb.Infimum:
    return replace(found, cells=found.cells[:3] + found.cells[4:])


def widened(found: bb.Infimum) -> bb.Infimum:
    """The first failing cell stretched over the following cells up to a base where its own witness's B(m)
    is clearly positive: a claim that is false, so no sound check can pass it."""
    first, cells = found.cells[0], found.cells
    end = next(
        j
        for j in range(1, len(found.failing))
        if np.cos(first.witness * frequencies(128, float(cells[j].high), count=64)).sum() > 0.1
    )
    return replace(found, cells=(replace(first, high=cells[end].high), *cells[end + 1 :]))


def bisection_witness_changed(found: bb.Infimum) -> bb.Infimum:
    return replace(found, bisected=(replace(found.bisected[0], witness=0), *found.bisected[1:]))


def low_shifted(found: bb.Infimum) -> bb.Infimum:
    return replace(found, low=found.bisected[-1].low)


def failing_top(found: bb.Infimum) -> bb.Infimum:
    """The top replaced by a base above the infimum that fails: 4400 (B(1019) < 0 at L = 1024)."""
    assert bb.scan(bb.cosine_sum(Fraction(4400)), 1024).negative is not None
    return replace(found, high=Fraction(4400))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tamper", "step"),
    [
        (tampered_witness, "is not shown to fail"),
        (without_a_cell, "gap"),
        (widened, "is not shown to fail"),
        (bisection_witness_changed, "is not shown negative"),
        (low_shifted, "low end"),
        (failing_top, "is not admissible"),
    ],
)
def test_a_tampered_certificate_is_caught(tamper, step: str) -> None:
    """Each step of the proof broken in turn; read from its text, where the cells always join up (a cell
    removed widens the one below), the twin is caught too."""
    twin = tamper(small_infimum())
    with pytest.raises(ArithmeticError, match=step):
        bb.check_infimum(twin)
    with pytest.raises(ArithmeticError):
        bb.check_infimum(bb.read_certificate(bb.certificate_text(twin))[0])


def test_an_admissible_cell_claimed_too_wide_is_caught_by_the_cell_by_cell_check() -> None:
    found = small_infimum()
    index = next(k for k, cell in enumerate(found.cells) if cell.state == bb.ADMISSIBLE)
    cells = list(found.cells)
    cells[index : index + 2] = [replace(cells[index], high=cells[index + 1].high)]
    twin = replace(found, cells=tuple(cells))
    bb.check_infimum(twin)  # the cells past the first island are only checked cell by cell
    with pytest.raises(ArithmeticError, match="admissible cell"):
        bb.check_infimum(twin, every_cell=True)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not a certificate\n",
        bb.CERTIFICATE_HEADER + "\nlength 1024\nsteps 1 witness 3\ncells\nbisected\n",
        bb.CERTIFICATE_HEADER + "\nlength x d 128 start 1.0 low 2.0 high 3.0\nsteps 1 witness 3\ncells\n",
        bb.CERTIFICATE_HEADER
        + "\nlength 9 d 128 start 1.0 low 2.0 high 3.0\nsteps 1 witness 3\ncells\nF 2.0\n",
        bb.CERTIFICATE_HEADER
        + "\nlength 9 d 128 start 1.0 low 2.0 high 3.0\nsteps 1 witness 3\ncells\nQ 2.0\n",
        bb.CERTIFICATE_HEADER
        + "\nlength 9 d 128 start 1.0 low 2.0 high 3.0\nsteps 1 witness 3\ncells\nU 2.0 1.5\n",
        bb.CERTIFICATE_HEADER
        + "\nlength 9 d 128 start 1.0 low 2.0 high 3/0\nsteps 1 witness 3\ncells\nbisected\n",
    ],
)
def test_a_text_that_is_no_certificate_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a base-bound certificate"):
        bb.read_certificate(text)


def test_a_checked_scan_refuses_a_float64_cos_that_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A platform whose cos is off by 1e-9 (far beyond the 4 ulp the error bound allows): the plain scan takes
    its word, the checked scan (the certificates' top base) names the value instead of trusting it."""
    cosine = bb.cosine_sum(10000)
    assert bb.scan(cosine, 1024, checked=True).admissible
    real = np.cos
    monkeypatch.setattr(np, "cos", lambda x, *args, **kwargs: real(x, *args, **kwargs) + 1e-9)
    assert bb.scan(cosine, 1024).admissible
    with pytest.raises(ArithmeticError, match=r"float64 cos\(0·θ_0\) = 1\.000000001 is not within"):
        bb.scan(cosine, 1024, checked=True)
