"""Learned position table lookups and Shaw-style clipped relative positions, with mutation twins."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.encodings.learned import LearnedPositionTable
from pe_verify.properties.encodings.relative import ClippedRelative, check_clipping, check_toeplitz

LENGTH = st.integers(0, 60)
DISTANCE = st.integers(0, 70)

# ---------------------------------------------------------------- learned table


@given(st.integers(1, 50), st.integers(1, 16), st.integers(0, 2**32 - 1), st.data())
def test_lookup_returns_the_rows(length: int, d: int, seed: int, data: st.DataObject) -> None:
    weights = np.random.default_rng(seed).standard_normal((length, d))
    table = LearnedPositionTable(weights)
    positions = data.draw(st.lists(st.integers(0, length - 1), max_size=10))
    rows = table.lookup(positions)
    assert rows.shape == (len(positions), d)
    for row, p in zip(rows, positions, strict=True):
        np.testing.assert_array_equal(row, weights[p])
    assert table.max_len == length


def test_lookup_keeps_the_shape_of_the_positions() -> None:
    table = LearnedPositionTable(np.arange(12.0).reshape(4, 3))
    assert table.lookup(2).tolist() == [6.0, 7.0, 8.0]
    assert table.lookup([[0, 3], [1, 1]]).shape == (2, 2, 3)
    assert table.lookup(np.array([3.0])).tolist() == [[9.0, 10.0, 11.0]]


def test_table_is_a_read_only_copy() -> None:
    weights = np.zeros((3, 2))
    table = LearnedPositionTable(weights)
    weights[0, 0] = 5.0
    assert table.lookup(0).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="read-only"):
        table.weights[0, 0] = 1.0


@pytest.mark.parametrize(
    ("positions", "match"),
    [
        ([4], r"integers in \[0, 3\] \(the table has L = 4 rows\); got 4"),
        ([0, 1000], r"\[0, 3\].*got 1000"),
        ([-1], r"L = 4 rows\); got -1"),
        (np.array([1, -4]), "got -4"),
        ([1.5], "non-integer"),
        ([np.nan], "non-integer, NaN or infinity"),
        ([True], "got dtype bool"),
        (["a"], "got dtype <U1"),
    ],
)
def test_lookup_rejects_positions_outside_the_table(positions: object, match: str) -> None:
    table = LearnedPositionTable(np.ones((4, 2)))
    with pytest.raises(ValueError, match=match):
        table.lookup(positions)


def test_negative_position_is_not_wrapped() -> None:
    """numpy would return the last row for −1; the table refuses instead."""
    table = LearnedPositionTable(np.arange(8.0).reshape(4, 2))
    assert table.weights[-1].tolist() == [6.0, 7.0]
    with pytest.raises(ValueError, match="got -1"):
        table.lookup(-1)


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (np.ones(4), r"shape \(L, d\)"),
        (np.ones((0, 4)), r"L ≥ 1 and d ≥ 1"),
        (np.ones((4, 0)), r"L ≥ 1 and d ≥ 1"),
        (np.array([[1.0, np.inf]]), "finite"),
        (np.array([[True]]), "real numbers"),
    ],
)
def test_table_rejects_bad_weights(weights: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        LearnedPositionTable(weights)


# ---------------------------------------------------------------- clipped relative positions


def test_matrix_values() -> None:
    np.testing.assert_array_equal(
        ClippedRelative(2).positions(3, 5),
        [[0, 1, 2, 2, 2], [-1, 0, 1, 2, 2], [-2, -1, 0, 1, 2]],
    )
    np.testing.assert_array_equal(ClippedRelative(2).indices(3, 5), ClippedRelative(2).positions(3, 5) + 2)
    np.testing.assert_array_equal(ClippedRelative(0).positions(2, 2), np.zeros((2, 2)))
    assert ClippedRelative(3).positions(0, 4).shape == (0, 4)


@given(LENGTH, LENGTH, DISTANCE)
def test_reference_clips(n_q: int, n_k: int, k: int) -> None:
    result = check_clipping(ClippedRelative(k), n_q, n_k)
    assert result.holds, result


@given(LENGTH, LENGTH, DISTANCE)
def test_reference_is_toeplitz(n_q: int, n_k: int, k: int) -> None:
    result = check_toeplitz(ClippedRelative(k), n_q, n_k)
    assert result.holds, result


@given(st.integers(-80, 80), st.integers(-80, 80), DISTANCE)
def test_exact_offset_is_the_matrix_entry(i: int, j: int, k: int) -> None:
    assert ClippedRelative(k).offset_exact(i, j) == min(max(j - i, -k), k)


def test_exact_offset_of_symbols_depends_on_their_difference() -> None:
    i, j, t = sp.symbols("i j t", integer=True)
    relative = ClippedRelative(3)
    assert sp.simplify(relative.offset_exact(i + t, j + t) - relative.offset_exact(i, j)) == 0


@given(LENGTH, LENGTH, DISTANCE)
def test_indices_address_a_table_of_2k_plus_1_rows(n_q: int, n_k: int, k: int) -> None:
    indices = ClippedRelative(k).indices(n_q, n_k)
    assert indices.shape == (n_q, n_k)
    assert indices.size == 0 or (indices.min() >= 0 and indices.max() <= 2 * k)
    values = set(indices.ravel().tolist())
    assert (2 * k in values) == (n_q >= 1 and n_k - 1 >= k)
    assert (0 in values) == (n_k >= 1 and n_q - 1 >= k)


class ClippedOneShort(ClippedRelative):
    """Off-by-one clip: saturates at ±(k − 1)."""

    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        return np.clip(
            np.arange(n_k)[None, :] - np.arange(n_q)[:, None], 1 - self.max_distance, self.max_distance - 1
        )


class ClippedOneLong(ClippedRelative):
    """Off-by-one clip: saturates at ±(k + 1)."""

    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        return ClippedRelative(self.max_distance + 1).positions(n_q, n_k)


class ClippedBeforeSubtracting(ClippedRelative):
    """Clips the absolute positions, then subtracts: no longer a function of j − i."""

    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        k = self.max_distance
        return np.clip(np.arange(n_k), 0, k)[None, :] - np.clip(np.arange(n_q), 0, k)[:, None]


@pytest.mark.parametrize("twin", [ClippedOneShort, ClippedOneLong, ClippedBeforeSubtracting])
def test_twins_fail_clipping(twin: type[ClippedRelative]) -> None:
    result = check_clipping(twin(3), 8, 8)
    assert not result.holds, result
    assert result.witness["got"] != result.witness["expected"]


def test_twin_clipped_before_subtracting_fails_toeplitz() -> None:
    result = check_toeplitz(ClippedBeforeSubtracting(3), 8, 8)
    assert not result.holds, result


def test_off_by_one_clip_is_still_toeplitz() -> None:
    """Toeplitz structure alone cannot see the clip threshold; the clipping check does."""
    assert check_toeplitz(ClippedOneShort(3), 8, 8).holds


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((-1, 3, 2), "n_q must be a non-negative integer, got -1"),
        ((3, -2, 2), "n_k must be a non-negative integer, got -2"),
        ((3, 3, -1), "max_distance must be a non-negative integer, got -1"),
        ((3, 3, 1.5), "max_distance must be a non-negative integer, got 1.5"),
        ((True, 3, 1), "n_q must be a non-negative integer, got True"),
    ],
)
def test_relative_positions_reject_bad_input(args: tuple, match: str) -> None:
    n_q, n_k, k = args
    with pytest.raises(ValueError, match=match):
        ClippedRelative(k).positions(n_q, n_k)
    with pytest.raises(ValueError, match=match):
        ClippedRelative(k).indices(n_q, n_k)
    with pytest.raises(ValueError, match=match):
        check_clipping(ClippedRelative(k), n_q, n_k)


class WrongShape(ClippedRelative):
    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        return np.zeros((n_k, n_q), dtype=int)


class Floats(ClippedRelative):
    def positions(self, n_q: int, n_k: int) -> np.ndarray:
        return np.zeros((n_q, n_k))


def test_checks_reject_a_matrix_of_the_wrong_shape_or_type() -> None:
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        check_toeplitz(WrongShape(1), 3, 4)
    with pytest.raises(ValueError, match="must hold integers"):
        check_clipping(Floats(1), 3, 4)
