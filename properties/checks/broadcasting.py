"""Adding a position table to token embeddings: [B, L, H] + [L, H] broadcasts to [B, L, H].

numpy follows the broadcasting rules of PyTorch: a [L, H] (or [1, L, H]) table added to a [B, L, H] batch is
added to every sequence of the batch, so the hidden size H stays what it was, while concatenating the table
would double it. Both forms run the addition on seeded random embeddings and a `sinusoidal.Sinusoidal`'s
table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encodings.sinusoidal import Sinusoidal


@dataclass(frozen=True)
class SumShapes:
    """Shapes of token embedding + PE (added), of the PE slice and of the concatenation, for one length."""

    seq_len: int
    added: tuple[int, ...]
    encoding_shape: tuple[int, ...]
    concatenated: tuple[int, ...]
    same_pe_in_every_sequence: bool


def embedding_plus_encoding(
    encoding: Sinusoidal, seq_len: int, batch: int = 2, vocab: int = 50, max_len: int = 512, seed: int = 0
) -> SumShapes:
    """Run x = token_embedding[token_ids] + positional_encoding[:seq_len] in numpy (float64), with a seeded
    embedding table of `vocab` rows of width d and the encoding's `float64_rows` for positions < max_len."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((vocab, encoding.d))
    token_ids = rng.integers(0, vocab, (batch, seq_len))
    pe = encoding.float64_rows(np.arange(max_len))[:seq_len]
    embedded = table[token_ids]
    x = embedded + pe
    concatenated = np.concatenate([embedded, np.broadcast_to(pe, embedded.shape)], axis=-1)
    same = all(np.array_equal(x[b], embedded[b] + pe) for b in range(batch))
    return SumShapes(seq_len, x.shape, pe.shape, concatenated.shape, same)


def adds_without_growing(shapes: SumShapes, batch: int, hidden: int) -> bool:
    """The sum keeps [batch, L, hidden], the PE slice is [L, hidden] (one row per position), concatenating
    gives [batch, L, 2·hidden], and every sequence of the batch got the same PE."""
    length = shapes.seq_len
    return (
        shapes.added == (batch, length, hidden)
        and shapes.encoding_shape == (length, hidden)
        and shapes.concatenated == (batch, length, 2 * hidden)
        and shapes.same_pe_in_every_sequence
    )


def broadcast_over_batch(
    encoding: Sinusoidal, batch: int, seq_len: int, seed: int = 0
) -> tuple[tuple[int, ...], bool]:
    """randn(batch, L, d) + pe.unsqueeze(0) in the encoding's stored dtype (float32 embeddings, seeded): the
    shape of the sum, and whether each sequence got the same pe added (bit for bit)."""
    embeddings = np.random.default_rng(seed).standard_normal((batch, seq_len, encoding.d)).astype(np.float32)
    pe = encoding.stored_rows(np.arange(seq_len))
    x = embeddings + pe[None]
    return x.shape, all(np.array_equal(x[b], embeddings[b] + pe) for b in range(batch))
