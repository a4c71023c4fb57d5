"""Near collisions: accurate values, the nearest-pair scan, its certificate, and whole-vector near repeats."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_verify.properties.analyses import near_collision as nc
from pe_verify.properties.encodings.sinusoidal import Sinusoidal, sinusoidal_encoding

bases = st.one_of(st.sampled_from([10000.0, 500000.0, 4.0, 100.0]), st.floats(1.5, 1e6))


@st.composite
def scan_inputs(draw: st.DrawFn, max_n: int = 25, max_d: int = 8) -> tuple[int, int, float, np.ndarray]:
    d = draw(st.integers(2, max_d))
    n = draw(st.integers(2, max_n))
    flags = draw(st.lists(st.booleans(), min_size=d * d, max_size=d * d))
    return n, d, draw(bases), np.array(flags).reshape(d, d)


def _has_valid_pair(d: int, mask: np.ndarray) -> bool:
    return not nc.invalid_dimension_pairs(d, mask).all()


# --- accurate float64 values ------------------------------------------------------------------------------


@given(
    positions=st.lists(st.integers(0, nc.MAX_POSITION - 1), min_size=1, max_size=6),
    d=st.integers(1, 16),
    base=bases,
)
def test_rows_are_within_value_error(positions: list[int], d: int, base: float) -> None:
    encoding = Sinusoidal(d, base)
    rows = encoding.rows(positions)
    with mpmath.workdps(40):
        errors = [
            abs(mpmath.mpf(float(rows[r, j])) - encoding.value_mp(p, j))
            for r, p in enumerate(positions)
            for j in range(d)
        ]
    assert max(errors) <= encoding.error == nc.VALUE_ERROR


def test_plain_float64_values_are_not_within_value_error() -> None:
    position = 2**31 + 12345
    plain = sinusoidal_encoding([position], 6)[0]
    with mpmath.workdps(40):
        exact = np.array([float(Sinusoidal(6).value_mp(position, j)) for j in range(6)])
    assert np.max(np.abs(plain - exact)) > 1000 * nc.VALUE_ERROR


@pytest.mark.parametrize("positions", [[-1], [2**32], [1.5], [float("nan")]])
def test_positions_outside_the_exact_range_are_rejected(positions: list[float]) -> None:
    with pytest.raises(ValueError, match="positions must be"):
        nc.sin_cos_at_integers(positions, nc.frequencies_mp(6, 10000.0))


# --- nearest cross-dimension pair -------------------------------------------------------------------------


@given(scan_inputs())
def test_scan_equals_naive(inputs: tuple[int, int, float, np.ndarray]) -> None:
    n, d, base, mask = inputs
    if not _has_valid_pair(d, mask):
        with pytest.raises(ValueError, match="no valid pair"):
            nc.nearest_cross_dimension_pair(Sinusoidal(d, base), n, exclude=mask)
        return
    fast = nc.nearest_cross_dimension_pair(Sinusoidal(d, base), n, exclude=mask, dps=30)
    naive = nc.nearest_cross_dimension_pair_naive(Sinusoidal(d, base), n, exclude=mask, dps=30)
    assert fast.candidates == naive.candidates
    assert fast.evidence == naive.evidence


def _brute_force_gap(n: int, d: int, base: float, mask: np.ndarray) -> mpmath.mpf:
    """The least valid gap by evaluating every pair at 30 digits, independently of the scan."""
    invalid = nc.invalid_dimension_pairs(d, mask)
    entries = [((p, j), Sinusoidal(d, base).value_mp(p, j)) for p in range(n) for j in range(d)]
    return min(
        abs(x - y) for (a, x) in entries for (b, y) in entries if a[0] < b[0] and not invalid[a[1], b[1]]
    )


@settings(max_examples=30)
@given(scan_inputs(max_n=10, max_d=5))
def test_scan_finds_the_brute_force_minimum(inputs: tuple[int, int, float, np.ndarray]) -> None:
    n, d, base, mask = inputs
    if not _has_valid_pair(d, mask):
        return
    found = nc.nearest_cross_dimension_pair(Sinusoidal(d, base), n, exclude=mask, dps=30)
    with mpmath.workdps(30):
        assert abs(found.nearest.gap - _brute_force_gap(n, d, base, mask)) <= mpmath.mpf(10) ** -25


@dataclass(frozen=True)
class Planted(Sinusoidal):
    """The sinusoidal encoding with some entries (position, dim) replaced by given values, in every form."""

    plants: tuple[tuple[tuple[int, int], float], ...] = ()

    def rows(self, positions: np.ndarray) -> np.ndarray:
        out = super().rows(positions)
        for (p, j), value in self.plants:
            out[np.asarray(positions) == p, j] = value
        return out

    def value_mp(self, position: int, dim: int) -> mpmath.mpf:
        plants = dict(self.plants)
        if (position, dim) in plants:
            return mpmath.mpf(plants[position, dim])
        return super().value_mp(position, dim)

    def row_balls(self, position: int) -> list[flint.arb]:
        plants, row = dict(self.plants), super().row_balls(position)
        return [flint.arb(plants[position, j]) if (position, j) in plants else row[j] for j in range(self.d)]


def _planted(plants: dict[tuple[int, int], float]) -> Planted:
    return Planted(6, plants=tuple(plants.items()))


class FloatOnly(Sinusoidal):
    """Float64 rows only: no high-precision values and no balls."""

    value_mp = None
    row_balls = None


class NegativeError(Sinusoidal):
    error = -1.0


class WrongShape(Sinusoidal):
    def rows(self, positions: np.ndarray) -> np.ndarray:
        return np.zeros((1, 1))


C = 0.123456789


@pytest.mark.parametrize("first, second", [((3, 0), (17, 2)), ((5, 1), (30, 4)), ((0, 5), (39, 0))])
def test_planted_near_pair_is_found(first: tuple[int, int], second: tuple[int, int]) -> None:
    encoding = _planted({first: C, second: C + 1e-12})
    found = nc.nearest_cross_dimension_pair(encoding, 40)
    assert (found.nearest.first, found.nearest.second) == tuple(sorted([first, second]))
    assert found.evidence == nc.CONFIRMED
    assert abs(found.nearest.gap - 1e-12) < 1e-15


def test_excluded_dimension_pair_is_left_out() -> None:
    encoding = _planted({(3, 0): C, (17, 2): C + 1e-12})
    mask = np.zeros((6, 6), dtype=bool)
    mask[2, 0] = True
    found = nc.nearest_cross_dimension_pair(encoding, 40, exclude=mask)
    assert found.nearest.gap > 1e-9
    predicate = nc.nearest_cross_dimension_pair(encoding, 40, exclude=lambda a, b: {a, b} == {0, 2})
    assert predicate.candidates == found.candidates


def _adjacent_only(n: int, d: int, encoding: Sinusoidal) -> tuple[tuple[int, int], tuple[int, int]]:
    """A broken scan: the nearest valid pair among neighbours in sorted order only."""
    values = encoding.rows(np.arange(n)).reshape(-1)
    order = np.argsort(values)
    best = min(
        (values[b] - values[a], a, b)
        for a, b in zip(order[:-1].tolist(), order[1:].tolist(), strict=True)
        if a // d != b // d and a % d != b % d
    )
    return tuple(sorted([divmod(best[1], d), divmod(best[2], d)]))


def test_scan_looks_past_an_invalid_neighbour() -> None:
    # sorted: (5,0) then (5,1) (same position) then (7,1) (same dim as its neighbour); (5,0)–(7,1) is valid
    encoding = _planted({(5, 0): C, (5, 1): C + 1e-13, (7, 1): C + 3e-13})
    found = nc.nearest_cross_dimension_pair(encoding, 40)
    assert (found.nearest.first, found.nearest.second) == ((5, 0), (7, 1))
    assert nc.nearest_cross_dimension_pair_naive(encoding, 40).candidates == found.candidates
    assert _adjacent_only(40, 6, encoding) != ((5, 0), (7, 1))


def test_exact_coincidences_of_d8_are_zero_and_sin_cos_pairs_are_not() -> None:
    found = nc.nearest_cross_dimension_pair(Sinusoidal(8), 12)
    assert found.evidence == nc.ZERO
    (p1, j1), (p2, j2) = found.nearest.first, found.nearest.second
    assert p2 == 10 * p1 and j2 - j1 == 2 and j1 % 2 == j2 % 2  # sin(p·10^−i) = sin(10p·10^−(i+1))
    same_parity = np.equal.outer(np.arange(8) % 2, np.arange(8) % 2)
    sin_cos = nc.nearest_cross_dimension_pair(Sinusoidal(8), 12, exclude=same_parity)
    assert sin_cos.evidence in (nc.CONFIRMED, nc.TIE)
    assert sin_cos.nearest.gap > 1e-6


def test_float_only_encoding_is_ranked_by_float64() -> None:
    found = nc.nearest_cross_dimension_pair(FloatOnly(6), 30)
    assert found.evidence == nc.FLOAT64
    reference = nc.nearest_cross_dimension_pair(Sinusoidal(6), 30)
    assert abs(found.nearest.float_gap - float(reference.nearest.gap)) <= 4 * nc.VALUE_ERROR


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n": 1, "d": 6}, "no valid pair"),
        ({"n": 10, "d": 1}, "no valid pair"),
        ({"n": 10, "d": 3, "exclude": np.ones((3, 3), dtype=bool)}, "no valid pair"),
        ({"n": 10, "d": 3, "exclude": np.zeros((2, 2), dtype=bool)}, "3×3 boolean mask"),
        ({"n": 10, "d": 3, "exclude": np.zeros((3, 3))}, "3×3 boolean mask"),
        ({"n": 10, "d": 6, "base": 1.0}, "base must be"),
        ({"n": 10, "d": 6, "dps": 15}, "dps must be at least 20"),
        ({"n": 0, "d": 6}, "n must be a positive integer"),
        ({"n": 10, "encoding": NegativeError(6)}, "encoding.error"),
        ({"n": 10, "encoding": WrongShape(6)}, "shape"),
    ],
)
def test_scan_rejects_bad_input(kwargs: dict[str, object], message: str) -> None:
    kwargs = dict(kwargs)
    d, base, encoding = kwargs.pop("d", 6), kwargs.pop("base", 10000.0), kwargs.pop("encoding", None)
    with pytest.raises(ValueError, match=message):
        nc.nearest_cross_dimension_pair(encoding or Sinusoidal(d, base), **kwargs)


# --- the equidistribution prediction ----------------------------------------------------------------------


def test_arcsine_pair_probability_has_the_derived_constant() -> None:
    g = 1e-7
    derived = 2 * g / math.pi**2 * (math.log(1 / g) + nc.ARCSINE_PAIR_CONSTANT)
    without_constant = 2 * g / math.pi**2 * (math.log(1 / g) + 1)
    quadrature = float(nc.arcsine_close_pair_probability(g))
    assert abs(quadrature - derived) <= 1e-9 * derived
    assert abs(quadrature - without_constant) > 0.05 * derived


@pytest.mark.slow
def test_predicted_minimum_gap_matches_random_arcsine_samples() -> None:
    m = 1000
    samples = np.sort(np.cos(np.pi * np.random.default_rng(7).uniform(size=(2000, m))), axis=1)
    observed = float(np.diff(samples, axis=1).min(axis=1).mean())
    ratio = observed / nc.predicted_minimum_gap(m * (m - 1) // 2)
    assert 0.95 < ratio < 1.2  # the Poisson model is ≈ 9% low at this size (clumping near ±1)


def _brute_force_close_count(n: int, d: int, base: float, invalid: np.ndarray, g: float) -> int:
    values = Sinusoidal(d, base).rows(np.arange(n)).reshape(-1)
    position, dim = np.divmod(np.arange(values.size), d)
    valid = (position[:, None] != position[None, :]) & ~invalid[dim[:, None], dim[None, :]]
    return int(np.triu(valid & (np.abs(values[:, None] - values[None, :]) <= g), 1).sum())


def _count_within(m: np.ndarray, labels: np.ndarray, d: int, invalid: np.ndarray, g: float) -> int:
    """How many valid pairs the scan finds with float gap at most g (the fixed threshold `close_pair_count`
    reads before deciding the pairs near it)."""
    return int(nc._valid_pairs_within(m, labels, d, invalid, lambda _: g, math.inf)[0].size)


@given(scan_inputs(), st.floats(1e-4, 0.3))
def test_close_pair_count_equals_brute_force(inputs: tuple[int, int, float, np.ndarray], g: float) -> None:
    n, d, base, mask = inputs
    invalid = nc.invalid_dimension_pairs(d, mask)
    values = Sinusoidal(d, base).rows(np.arange(n)).reshape(-1)
    m, labels = _full_argsort(values)
    count = _count_within(m, labels, d, invalid, g)
    assert count == _brute_force_close_count(n, d, base, invalid, g)


# --- candidate window: one sort of value + i·label, labels kept for the candidates only --------------------


@st.composite
def value_arrays(draw: st.DrawFn) -> tuple[np.ndarray, int, np.ndarray]:
    """Flat values p·d + j with many ties and equal values (few distinct levels, ±0.0), and an exclusion."""
    d = draw(st.integers(2, 6))
    n = draw(st.integers(2, 30))
    levels = draw(st.sampled_from([3, 8, 50, 10**6]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = rng.integers(-levels, levels + 1, size=n * d) / levels + draw(st.sampled_from([0.0, 1e-17]))
    values[rng.random(values.size) < 0.1] = -0.0 if draw(st.booleans()) else 0.0
    flags = np.array(draw(st.lists(st.booleans(), min_size=d * d, max_size=d * d))).reshape(d, d)
    return values, d, nc.invalid_dimension_pairs(d, flags & draw(st.booleans()))


def _full_argsort(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference order: every value sorted by a stable argsort, with its label."""
    labels = np.argsort(values, kind="stable")
    return values[labels], labels


def _sorted_entries(values: np.ndarray) -> np.ndarray:
    entries = values + 1j * np.arange(values.size)
    entries.sort()
    return entries


def _pairs(m: np.ndarray, labels: np.ndarray, d: int, invalid: np.ndarray, slack: float) -> set:
    return _labelled_pairs(labels, nc.close_valid_pairs(m, labels, d, invalid, slack))


def _labelled_pairs(labels: np.ndarray, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> set:
    a, b, gaps = pairs
    ends = zip(labels[a].tolist(), labels[b].tolist(), gaps.tolist(), strict=True)
    return {(min(x, y), max(x, y), gap) for x, y, gap in ends}


def _brute_force_pairs(values: np.ndarray, d: int, invalid: np.ndarray, slack: float) -> set:
    label = np.arange(values.size)
    valid = (label[:, None] < label[None, :]) & nc._is_valid(
        label[:, None], label[None, :], d, invalid.reshape(-1)
    )
    gaps = np.where(valid, np.abs(values[None, :] - values[:, None]), np.inf)
    a, b = np.nonzero(gaps <= nc._threshold(float(gaps.min()), slack))
    return {(int(x), int(y), float(gaps[x, y])) for x, y in zip(a, b, strict=True)}


@given(value_arrays())
def test_sorted_entries_are_the_stable_argsort(arrays: tuple[np.ndarray, int, np.ndarray]) -> None:
    values = arrays[0]
    entries = _sorted_entries(values)
    m, labels = _full_argsort(values)
    assert np.array_equal(entries.real, m) and np.array_equal(entries.imag, labels)


@pytest.mark.parametrize("n, d", [(40, 6), (7, 512)])
def test_labelled_values_are_the_rows_with_their_labels(n: int, d: int) -> None:
    entries = nc._labelled_values(n, Sinusoidal(d))
    assert np.array_equal(entries.real, Sinusoidal(d).rows(np.arange(n)).reshape(-1))
    assert np.array_equal(entries.imag, np.arange(n * d))


@pytest.mark.slow
@settings(max_examples=300)
@given(
    value_arrays(), st.sampled_from([0.0, 1e-3, 0.05]), st.sampled_from([0.0, 0.01, 0.2]), st.integers(1, 5)
)
def test_candidate_window_finds_the_same_pairs_as_the_full_argsort(
    arrays: tuple[np.ndarray, int, np.ndarray], slack: float, floor: float, rank: int
) -> None:
    values, d, invalid = arrays
    if invalid.all():
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nc, "_WINDOW_RANK", rank)  # small first windows: the second window must be taken too
        window_m, window_labels, pairs = nc._candidate_values(
            _sorted_entries(values), d, invalid, slack, floor
        )
    m, labels = _full_argsort(values)
    expected = _pairs(m, labels, d, invalid, slack)
    assert expected == _brute_force_pairs(values, d, invalid, slack)
    assert np.array_equal(window_m, values[window_labels]) and np.all(np.diff(window_m) >= 0)
    assert _labelled_pairs(window_labels, pairs) == expected
    assert _pairs(window_m, window_labels, d, invalid, slack) == expected
    for g in {floor, floor / 2}:
        count = _count_within(window_m, window_labels, d, invalid, g)
        assert count == _count_within(m, labels, d, invalid, g)


def test_a_narrowed_candidate_window_misses_the_nearest_pair() -> None:
    """The equivalence tests have teeth: candidates of a window below the least valid gap B (a broken search)
    lose the nearest pair that the full argsort and the correct window find."""
    values, d = nc._row_values(300, Sinusoidal(6)), 6
    invalid = nc.invalid_dimension_pairs(d)
    entries = _sorted_entries(values)
    expected = _pairs(*_full_argsort(values), d, invalid, 0.0)
    assert _pairs(*nc._candidate_values(entries, d, invalid, 0.0, 0.0)[:2], d, invalid, 0.0) == expected
    best = min(gap for _, _, gap in expected)
    assert _pairs(*nc._window(entries, nc._threshold(best, 0.0)), d, invalid, 0.0) == expected
    broken = nc._window(entries, best / 2)
    found = _pairs(*broken, d, invalid, 0.0) if broken[1].size > 1 else set()
    assert not expected & found


def test_a_window_without_valid_pairs_grows_to_all_values() -> None:
    """The closest values share a position (invalid): the first window holds no valid pair, and the second
    takes every value, also those far from any other, rather than miss the valid pairs."""
    values = np.array([0.0, 1e-9, 0.5, 0.5 + 1e-9, 0.9, 0.95])  # d = 2: positions 0, 1, 2
    invalid = nc.invalid_dimension_pairs(2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nc, "_WINDOW_RANK", 1)
        m, labels, pairs = nc._candidate_values(_sorted_entries(values), 2, invalid, 0.0, 0.0)
    assert labels.tolist() == list(range(6)) and m.tolist() == values.tolist()
    expected = _brute_force_pairs(values, 2, invalid, 0.0)
    assert _labelled_pairs(labels, pairs) == expected == {(3, 4, 0.9 - (0.5 + 1e-9))}


@given(value_arrays())
def test_least_adjacent_valid_gap_equals_brute_force(arrays: tuple[np.ndarray, int, np.ndarray]) -> None:
    values, d, invalid = arrays
    m, labels = _full_argsort(values)
    valid = nc._is_valid(labels[:-1], labels[1:], d, invalid.reshape(-1))
    expected = float(np.diff(m)[valid].min()) if valid.any() else math.inf
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nc, "_PROBE", 1)
        assert nc._least_adjacent_valid_gap(m, labels, d, invalid) == expected


@pytest.mark.slow
def test_gap_against_n_rows() -> None:
    rows = nc.gap_against_n(Sinusoidal(6), [10, 40])
    assert [row.values for row in rows] == [60, 240]
    assert rows[1].valid_pairs == nc.valid_pair_count(40, 6) == 15 * 40 * 39
    assert rows[1].nearest.candidates == nc.nearest_cross_dimension_pair(Sinusoidal(6), 40).candidates
    assert all(row.predicted > 0 and row.close == 100 * row.predicted for row in rows)
    invalid = nc.invalid_dimension_pairs(6)
    assert [row.observed_close for row in rows] == [
        _brute_force_close_count(row.n, 6, 10000.0, invalid, row.close) for row in rows
    ]
    assert rows[1].expected_close == pytest.approx(
        rows[1].valid_pairs * float(nc.arcsine_close_pair_probability(rows[1].close))
    )


@pytest.mark.slow
def test_close_pairs_are_counted_from_the_exact_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against every valid pair's 50-digit gap, at thresholds far from every gap and at thresholds strictly
    between a pair's float64 gap and its true gap. Counting by the float64 gaps alone gets some of the
    latter wrong, so the decision at 50 digits is what makes them right."""
    d, n = 6, 30
    encoding = Sinusoidal(d)
    floats = encoding.rows(np.arange(n)).reshape(-1)
    with mpmath.workdps(50):
        value = {(p, j): encoding.value_mp(p, j) for p in range(n) for j in range(d)}
        pairs = sorted(
            (abs(value[a] - value[b]), a, b)
            for a, b in itertools.combinations(value, 2)
            if a[0] != b[0] and a[1] != b[1]
        )
        gaps = [gap for gap, _, _ in pairs]
        between = []
        for gap, a, b in pairs[:60]:
            rounded = abs(floats[a[0] * d + a[1]] - floats[b[0] * d + b[1]])
            middle = float((mpmath.mpf(rounded) + gap) / 2)
            if (middle - rounded) * (middle - gap) < 0:
                between.append(middle)
    assert between
    thresholds = [2e-3, float(gaps[10]), *between]
    exact = [sum(gap <= close for gap in gaps) for close in thresholds]
    assert [nc.close_pair_count(encoding, n, close) for close in thresholds] == [
        (count, 0) for count in exact
    ]
    monkeypatch.setattr(nc, "_close_window", lambda encoding, close: (close, close))
    assert [nc.close_pair_count(encoding, n, close)[0] for close in thresholds] != exact


# --- ball-arithmetic certificate ---------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=40)
@given(scan_inputs(max_n=12, max_d=6))
def test_certificate_never_claims_more_than_the_true_gap(inputs: tuple[int, int, float, np.ndarray]) -> None:
    n, d, base, mask = inputs
    if not _has_valid_pair(d, mask):
        return
    encoding = Sinusoidal(d, base)
    true_gap = nc.nearest_cross_dimension_pair(encoding, n, exclude=mask).nearest.gap
    above = float(true_gap) * (1 + 1e-9) + 1e-300
    certificate = nc.certify_cross_dimension_gap(encoding, n, above, exclude=mask)
    assert not certificate.holds
    assert certificate.lower_bound <= Fraction(above)
    assert float(certificate.lower_bound) >= float(true_gap) - 1e-15
    if true_gap > 1e-12:
        assert nc.certify_cross_dimension_gap(encoding, n, float(true_gap) / 2, exclude=mask).holds


def test_certificate_over_d6_positions_below_500() -> None:
    true_gap = float(nc.nearest_cross_dimension_pair(Sinusoidal(6), 500).nearest.gap)
    certificate = nc.certify_cross_dimension_gap(Sinusoidal(6), 500, true_gap * 0.999)
    assert certificate.holds, certificate.statement
    assert certificate.max_radius < Fraction(1, 2**53)
    assert not nc.certify_cross_dimension_gap(Sinusoidal(6), 500, true_gap * 1.001).holds


def test_certificate_fails_for_a_planted_near_pair() -> None:
    encoding = _planted({(3, 0): C, (17, 2): C + 1e-12})
    assert nc.certify_cross_dimension_gap(Sinusoidal(6), 40, 1e-9).holds
    assert not nc.certify_cross_dimension_gap(encoding, 40, 1e-9).holds


def test_certificate_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="delta must be a finite positive real"):
        nc.certify_cross_dimension_gap(Sinusoidal(6), 10, 0.0)
    with pytest.raises(ValueError, match="no row_balls"):
        nc.certify_cross_dimension_gap(FloatOnly(6), 10, 1e-9)


# --- whole-vector near repeats ------------------------------------------------------------------------------


def _twice(half: int) -> int:
    return 2 * half


@given(d=st.integers(1, 6).map(_twice), n=st.integers(3, 60), base=bases)
def test_offset_scan_agrees_with_all_pairs(d: int, n: int, base: float) -> None:
    fast = nc.nearest_vector_offsets(Sinusoidal(d, base), n, count=3, dps=30)
    naive = nc.nearest_vector_pairs_naive(Sinusoidal(d, base), n, count=3)
    omegas = nc.frequencies_mp(d, base)
    with mpmath.workdps(30):
        naive_best = mpmath.sqrt(nc.offset_squared_distance_mp(naive.repeats[0].offset, omegas))
        assert abs(naive_best - fast.repeats[0].distance) <= 1e-7
    assert abs(naive.repeats[0].float_distance - fast.repeats[0].float_distance) <= 1e-7


def test_planted_near_repeat_is_found() -> None:
    omegas = [2 * math.pi * 3 / 97, 2 * math.pi * 5 / 97 + 1e-9, 2 * math.pi * 11 / 97]
    planted = Sinusoidal(6, omegas=tuple(omegas))
    fast = nc.nearest_vector_offsets(planted, 300, count=3)
    naive = nc.nearest_vector_pairs_naive(planted, 300, count=3)
    assert fast.repeats[0].offset == naive.repeats[0].offset == 97
    assert fast.repeats[0].distance < 1e-6
    assert nc.nearest_vector_offsets(Sinusoidal(6), 300, count=1).repeats[0].distance > 0.1


def test_min_offset_leaves_out_the_small_offsets() -> None:
    everything = nc.nearest_vector_offsets(Sinusoidal(6), 3000, count=50)
    beyond = nc.nearest_vector_offsets(Sinusoidal(6), 3000, count=3, min_offset=1000)
    far = [r.offset for r in everything.repeats if r.offset >= 1000]
    assert [r.offset for r in beyond.repeats] == far[:3]


def test_offset_values_stay_within_the_error_bound_across_blocks() -> None:
    omegas = nc.frequencies_mp(6, 10000.0)
    n, block = 200_000, 64
    fast = nc.offset_squared_distances(n, omegas, block)
    drifting = _drifting_offset_squared_distances(n, omegas, block)
    sample = [*np.random.default_rng(3).integers(1, n, 40).tolist(), n - 1]
    with mpmath.workdps(30):
        exact = np.array([float(nc.offset_squared_distance_mp(k, omegas)) for k in sample])
    bound = nc.offset_error_bound(6)
    assert np.max(np.abs(fast[sample] - exact)) <= bound
    assert np.max(np.abs(drifting[sample] - exact)) > bound


def _drifting_offset_squared_distances(n: int, omegas: list[mpmath.mpf], block: int) -> np.ndarray:
    """A broken angle addition: each block's anchor is rotated from the previous one instead of recomputed."""
    omega = np.array([float(w) for w in omegas])
    sin_b, cos_b = np.sin(np.arange(block)[:, None] * omega), np.cos(np.arange(block)[:, None] * omega)
    step_cos, step_sin = np.cos(block * omega), np.sin(block * omega)
    anchor_cos, anchor_sin = np.ones_like(omega), np.zeros_like(omega)
    out = []
    for _ in range(-(-n // block)):
        out.append(2 * len(omega) - 2 * (cos_b @ anchor_cos - sin_b @ anchor_sin))
        anchor_cos, anchor_sin = (
            anchor_cos * step_cos - anchor_sin * step_sin,
            anchor_sin * step_cos + anchor_cos * step_sin,
        )
    return np.concatenate(out)[:n]


@given(d=st.integers(1, 8).map(_twice), n=st.integers(3, 50), base=bases)
def test_distance_depends_only_on_offset(d: int, n: int, base: float) -> None:
    assert nc.check_distance_depends_only_on_offset(Sinusoidal(d, base), n).holds


class CosUsesNextFrequency(Sinusoidal):
    """Cos dim 2i+1 uses ω_(i+1) instead of its sin partner's ω_i."""

    def rows(self, positions: np.ndarray) -> np.ndarray:
        d = self.d
        rows = Sinusoidal(d + 2, self.base).rows(positions)
        rows[:, 1:d:2] = rows[:, 3 : d + 2 : 2]
        return rows[:, :d]


@pytest.mark.parametrize(
    "encoding, least_error",
    [
        (CosUsesNextFrequency(6, 10000.0), 1e-3),
        (Sinusoidal(7, 2.0), 1e-3),
        (Sinusoidal(7, 10000.0), 1e-9),  # the unpaired frequency 10000^(−6/7) is slow: a small effect
    ],
    ids=["cos-off-by-one-frequency", "odd-d-fast-unpaired-sin", "odd-d-slow-unpaired-sin"],
)
def test_distance_check_fails_for_broken_encodings(encoding: Sinusoidal, least_error: float) -> None:
    result = nc.check_distance_depends_only_on_offset(encoding, 40)
    assert not result.holds
    assert result.max_error > least_error


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n": 10, "d": 7}, "must be even"),
        ({"n": 1, "d": 6}, "min_offset < n"),
        ({"n": 10, "d": 6, "min_offset": 10}, "min_offset < n"),
        ({"n": 10, "d": 6, "omegas": (1.0, 0.5)}, "needs 3 frequencies, got 2"),
        ({"n": 10, "d": 6, "omegas": (1.0, 0.5, -0.1)}, "positive"),
    ],
)
def test_vector_scan_rejects_bad_input(kwargs: dict[str, object], message: str) -> None:
    kwargs = dict(kwargs)
    d, omegas = kwargs.pop("d"), kwargs.pop("omegas", None)
    with pytest.raises(ValueError, match=message):
        nc.nearest_vector_offsets(Sinusoidal(d, omegas=omegas), **kwargs)
