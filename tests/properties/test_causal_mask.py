"""A causal mask spells out the positions of identical tokens; without the mask it does not."""

from __future__ import annotations

import sympy as sp

from pe_verify.proofs.attention import row_softmax
from pe_verify.properties.checks.causal_mask import causal_readout


def test_the_causal_outputs_of_identical_tokens_differ() -> None:
    readout = causal_readout(copies=3)
    assert readout.reads_positions
    assert readout.masked == (
        (sp.Rational(1, 2), sp.Rational(1, 2)),
        (sp.Rational(1, 3), sp.Rational(2, 3)),
        (sp.Rational(1, 4), sp.Rational(3, 4)),
    )
    assert set(readout.unmasked) == {(sp.Rational(1, 4), sp.Rational(3, 4))}


def test_a_mask_that_masks_nothing_reads_no_position() -> None:
    assert not causal_readout(copies=3, masked=row_softmax).reads_positions
