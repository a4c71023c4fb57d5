"""Learned position table lookups and Shaw-style clipped relative positions, with mutation twins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.learned import LearnedPositionTable
from pe_verify.properties.relative import (
    check_clipping,
    check_toeplitz,
    clipped_relative_positions,
    relative_embedding_indices,
)

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
        clipped_relative_positions(3, 5, 2),
        [[0, 1, 2, 2, 2],
         [-1, 0, 1, 2, 2],
         [-2, -1, 0, 1, 2]],
    )
    np.testing.assert_array_equal(relative_embedding_indices(3, 5, 2),
                                  clipped_relative_positions(3, 5, 2) + 2)
    np.testing.assert_array_equal(clipped_relative_positions(2, 2, 0), np.zeros((2, 2)))
    assert clipped_relative_positions(0, 4, 3).shape == (0, 4)


@given(LENGTH, LENGTH, DISTANCE)
def test_reference_clips(n_q: int, n_k: int, k: int) -> None:
    result = check_clipping(clipped_relative_positions, n_q, n_k, k)
    assert result.holds, result


@given(LENGTH, LENGTH, DISTANCE)
def test_reference_is_toeplitz(n_q: int, n_k: int, k: int) -> None:
    result = check_toeplitz(clipped_relative_positions, n_q, n_k, k)
    assert result.holds, result


@given(LENGTH, LENGTH, DISTANCE)
def test_indices_address_a_table_of_2k_plus_1_rows(n_q: int, n_k: int, k: int) -> None:
    indices = relative_embedding_indices(n_q, n_k, k)
    assert indices.shape == (n_q, n_k)
    assert indices.size == 0 or (indices.min() >= 0 and indices.max() <= 2 * k)
    values = set(indices.ravel().tolist())
    assert (2 * k in values) == (n_q >= 1 and n_k - 1 >= k)
    assert (0 in values) == (n_k >= 1 and n_q - 1 >= k)


def clipped_one_short(n_q: int, n_k: int, k: int) -> np.ndarray:
    """Off-by-one clip: saturates at ±(k − 1)."""
    offsets = np.arange(n_k)[None, :] - np.arange(n_q)[:, None]
    return np.clip(offsets, -(k - 1), k - 1)


def clipped_one_long(n_q: int, n_k: int, k: int) -> np.ndarray:
    """Off-by-one clip: saturates at ±(k + 1)."""
    offsets = np.arange(n_k)[None, :] - np.arange(n_q)[:, None]
    return np.clip(offsets, -(k + 1), k + 1)


def clipped_before_subtracting(n_q: int, n_k: int, k: int) -> np.ndarray:
    """Clips the absolute positions, then subtracts: no longer a function of j − i."""
    return np.clip(np.arange(n_k), 0, k)[None, :] - np.clip(np.arange(n_q), 0, k)[:, None]


@pytest.mark.parametrize("twin", [clipped_one_short, clipped_one_long, clipped_before_subtracting])
def test_twins_fail_clipping(twin) -> None:
    result = check_clipping(twin, 8, 8, 3)
    assert not result.holds, result
    assert result.witness["got"] != result.witness["expected"]


def test_twin_clipped_before_subtracting_fails_toeplitz() -> None:
    result = check_toeplitz(clipped_before_subtracting, 8, 8, 3)
    assert not result.holds, result


def test_off_by_one_clip_is_still_toeplitz() -> None:
    """Toeplitz structure alone cannot see the clip threshold; the clipping check does."""
    assert check_toeplitz(clipped_one_short, 8, 8, 3).holds


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
    with pytest.raises(ValueError, match=match):
        clipped_relative_positions(*args)
    with pytest.raises(ValueError, match=match):
        relative_embedding_indices(*args)
    with pytest.raises(ValueError, match=match):
        check_clipping(clipped_relative_positions, *args)


def test_checks_reject_a_matrix_of_the_wrong_shape_or_type() -> None:
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        check_toeplitz(lambda n_q, n_k, k: np.zeros((4, 3), dtype=int), 3, 4, 1)
    with pytest.raises(ValueError, match="must hold integers"):
        check_clipping(lambda n_q, n_k, k: np.zeros((3, 4)), 3, 4, 1)
