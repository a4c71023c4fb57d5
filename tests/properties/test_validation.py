"""Input checks: each user mistake is a ValueError that names what was wrong and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from pe_verify.properties.numerics.validation import (
    require_base,
    require_even_dimension,
    require_positions,
    require_positive_int,
    require_positive_real,
)


@pytest.mark.parametrize("value", [0, -3, 2.0, 2.5, True, "8", None])
def test_positive_int_rejects(value: object) -> None:
    with pytest.raises(ValueError, match="d must be a positive integer"):
        require_positive_int(value, "d")


def test_positive_int_accepts_numpy_integers() -> None:
    assert require_positive_int(np.int64(6), "d") == 6


def test_even_dimension_says_why() -> None:
    with pytest.raises(ValueError, match=r"must be even .*pairs.*got 7"):
        require_even_dimension(7)


@pytest.mark.parametrize("value", [1, 0.5, -2, float("nan"), float("inf"), "10000", True])
def test_base_rejects(value: object) -> None:
    with pytest.raises(ValueError, match=r"base must be a .*greater than 1"):
        require_base(value)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf")])
def test_positive_real_rejects(value: object) -> None:
    with pytest.raises(ValueError, match=r"scale must be a .*positive real number"):
        require_positive_real(value, "scale")


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        ([0.0, float("nan")], "finite"),
        ([float("inf")], "finite"),
        (["a"], "real numbers"),
        ([True, False], "real numbers"),
        ([2**53 + 2], "2\\*\\*53"),
        ([1, 2**80], "2\\*\\*53"),
    ],
)
def test_positions_reject(positions: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        require_positions(positions)


def test_positions_accept_negative_and_large_exact_integers() -> None:
    array = require_positions([-(2**53), 0, 2**53])
    assert array.dtype == np.float64
    assert array.tolist() == [-(2.0**53), 0.0, 2.0**53]
