"""`unrotated_pairs`: the frequency pairs that never complete a turn over the trained range."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.checks.unseen_angles import unrotated_pairs


def float_count(d: int, length: int, base: float = 10000.0) -> list[int]:
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    return [int(i) for i in np.flatnonzero((length - 1) * theta < 2 * np.pi)]


def test_unrotated_pairs_match_the_float_count() -> None:
    assert unrotated_pairs(128, 2048) == float_count(128, 2048)


def _twice(half: int) -> int:
    return 2 * half


@given(st.integers(1, 80).map(_twice), st.integers(1, 5000))
def test_the_unrotated_pairs_are_the_slowest_ones(d: int, length: int) -> None:
    pairs = unrotated_pairs(d, length)
    assert pairs == list(range(d // 2 - len(pairs), d // 2))


def test_the_counts_of_the_two_settings_the_catalog_uses() -> None:
    assert len(unrotated_pairs(512, 512)) == 133
    assert len(unrotated_pairs(128, 2048)) == 23


def test_every_pair_is_unrotated_over_one_position_and_none_at_base_one() -> None:
    assert unrotated_pairs(8, 1) == [0, 1, 2, 3]
    assert unrotated_pairs(8, 10, base=1) == []


@pytest.mark.parametrize(("d", "length"), [(0, 10), (8, 0), (8.0, 10), (True, 10)])
def test_bad_input_is_rejected(d: object, length: object) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        unrotated_pairs(d, length)  # type: ignore[arg-type]
