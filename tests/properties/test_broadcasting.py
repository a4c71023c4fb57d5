"""Adding the position table keeps the hidden size; a table with one row for every position does not pass."""

from __future__ import annotations

import numpy as np

from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.checks.broadcasting import (
    adds_without_growing,
    broadcast_over_batch,
    embedding_plus_encoding,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


class OneRow(Sinusoidal):
    """Returns PE(0) alone whatever the positions: it still broadcasts, but encodes no position."""

    def float64_rows(self, positions: object) -> np.ndarray:
        return super().float64_rows(np.arange(1))


def test_the_sum_keeps_the_hidden_size_for_every_length() -> None:
    for seq_len in (1, 8, 512):
        shapes = embedding_plus_encoding(Sinusoidal(768), seq_len, batch=2)
        assert adds_without_growing(shapes, batch=2, hidden=768)
        assert shapes.concatenated == (2, seq_len, 1536)


def test_a_single_row_table_is_not_one_vector_per_position() -> None:
    shapes = embedding_plus_encoding(OneRow(768), 8, batch=2)
    assert shapes.added == (2, 8, 768) and not adds_without_growing(shapes, batch=2, hidden=768)


def test_the_batch_axis_of_the_stored_table_broadcasts() -> None:
    shape, same = broadcast_over_batch(common_code_encoding(6, "float32"), batch=2, seq_len=8)
    assert shape == (2, 8, 6) and same
