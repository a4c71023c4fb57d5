"""Operation counts of RoPE's rotation and of an additive encoding; a rotation doing nothing costs nothing."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import sympy as sp

from pe_verify.properties.checks.operation_counts import (
    addition_operations,
    dense_operations,
    rotation_operations,
)
from pe_verify.properties.encodings.rope import Rope


class NoRotation(Rope):
    """A broken RoPE: returns the vector unrotated."""

    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        return x


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["interleaved", "half_split"])
@pytest.mark.parametrize("d", [2, 8, 16])
def test_rope_costs_three_operations_per_coordinate(layout: str, d: int) -> None:
    assert rotation_operations(Rope(d, layout=layout)) == 3 * d


def test_partial_rotary_counts_only_the_rotated_dims() -> None:
    assert rotation_operations(Rope(8, layout="half_split", rotary_fraction=0.5)) == 3 * 4


def test_a_rope_that_does_not_rotate_costs_nothing() -> None:
    assert rotation_operations(NoRotation(8, layout="half_split")) == 0


def test_adding_a_position_vector_costs_one_operation_per_coordinate() -> None:
    assert addition_operations(8) == 8 and addition_operations(1) == 1
    with pytest.raises(ValueError, match="d must be a positive integer"):
        addition_operations(0)


def test_dense_operations_follow_the_layer_formula() -> None:
    assert dense_operations(1, 1, 1) == 2 * (12 + 2)
    assert dense_operations(4096, 32, 2048) == 2 * (12 * 4096**2 + 2 * 2048 * 4096) * 32
    with pytest.raises(ValueError, match="layers must be a positive integer"):
        dense_operations(8, 0, 8)
