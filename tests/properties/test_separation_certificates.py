"""Chunk certificates: the turn positions the check re-derives are exact, a search's certificate tiles its
range within its memory estimate and checks, and a search that misses offsets or overstates is caught (the
twins of chunks merged from certificates are in test_separation_chunks.py)."""

from __future__ import annotations

import dataclasses

import flint
import numpy as np
import pytest

from pe_verify.properties.analyses.separation import (
    TurnTable,
    beyond_longest_wavelength,
    certified_separation,
    decision_precision,
    squared_distance_ball,
    tiling_memory,
)
from pe_verify.properties.analyses.separation_certificates import (
    VALUE_ERROR,
    _Rederived,
    check_chunks,
    sector_table,
    turn_cos_sin,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


def test_the_turn_positions_of_many_offsets_are_the_exact_ones() -> None:
    table = TurnTable.of(Sinusoidal(64, "10000"))
    rng = np.random.default_rng(7)
    edges = [0, 1, 2, 12345, 2**32 - 1, 2**32, 2**40 + 7, 987654321987, 2**62 - 1]
    offsets = np.concatenate([np.array(edges), rng.integers(0, 2**62, size=200)]).astype(np.int64)
    columns = np.array([0, 5, 31])
    for chosen in (None, columns):
        high = table.high_words(offsets, chosen)
        for row, offset in enumerate(offsets.tolist()):
            exact = table.at(offset)[0]
            assert (high[row] == (exact if chosen is None else exact[columns])).all()


def _checked(encoding: Sinusoidal, first: int, stop: int, tiling) -> tuple:
    found = certified_separation(encoding, stop, first, certify=True)
    prec = decision_precision(encoding, stop, 50)
    tiling = found.tiling if tiling is None else tiling(found.tiling)
    wanted = found.next_squared * (1 - 2.0**-38)
    return found, check_chunks(
        encoding, [(first, stop, tiling)], found.minimum, found.minimum_at, found.argmin_offsets, prec, wanted
    )


@pytest.mark.parametrize(
    ("d", "far", "stop"), [(6, False, 200_000), (6, True, 200_000), (64, False, 2**22), (512, True, 100_000)]
)
def test_a_searchs_certificate_tiles_its_range_within_its_estimate_and_checks(
    d: int, far: bool, stop: int
) -> None:
    encoding = Sinusoidal(d, "10000")
    first = beyond_longest_wavelength(encoding) if far else 1
    found, checked = _checked(encoding, first, stop, None)
    assert checked.problems == () and found.certified
    assert found.tiling.nbytes <= tiling_memory(d, stop - first) // 2
    assert checked.evaluated >= 1 and checked.next_squared >= found.next_squared * (1 - 2.0**-38)


def _short(tiling):
    """The certificate with its last piece one offset short."""
    lengths = tiling.lengths.copy()
    lengths[-1] -= 1
    return dataclasses.replace(tiling, lengths=lengths)


def test_twin_a_certificate_that_stops_short_or_claims_too_much_is_rejected() -> None:
    encoding = Sinusoidal(6, "10000")
    _, short = _checked(encoding, 1, 100_000, _short)
    assert short.problems == ("chunk 1 ≤ k < 100000: its certificate ends at k = 99999, not 100000",)
    _, high = _checked(
        encoding, 1, 100_000, lambda tiling: dataclasses.replace(tiling, bounds=tiling.bounds + 1)
    )
    assert high.problems and "claims S ≥" in high.problems[0]


def test_the_checks_cos_and_sin_of_turn_positions_hold_their_bound() -> None:
    """`turn_cos_sin` against arb on random and edge turn words (sector boundaries, the ends of a turn): every
    value within VALUE_ERROR of the exact cos and sin of 2π·hi/2^64."""
    rng = np.random.default_rng(11)
    edges = [0, 1, 2**53 - 1, 2**53, 2**63 - 1, 2**63, 2**64 - 2**53, 2**64 - 1]
    hi = np.concatenate([np.array(edges, dtype=np.uint64), rng.integers(0, 2**64, 500, dtype=np.uint64)])
    cos, sin = turn_cos_sin(hi, sector_table())
    with flint.ctx.workprec(192):
        turn = flint.arb.pi() * 2 / flint.arb(2) ** 64
        for word, c, s in zip(hi.tolist(), cos.tolist(), sin.tolist(), strict=True):
            angle = flint.arb(word) * turn
            assert abs(angle.cos() - c) <= VALUE_ERROR and abs(angle.sin() - s) <= VALUE_ERROR


@pytest.mark.parametrize("d", [6, 64, 512])
def test_the_block_products_bound_each_offset_below_its_distance_and_name_those_short(d: int) -> None:
    """The product bound at every offset of leaves near k = 1, beyond the longest wavelength and near 2^40
    (of even and odd lengths, so that the anchor's two sides differ) lies below S (a ball) by at most twice
    `product_error`; with a leaf's threshold just above its least S, exactly the offsets below it are handed
    back to be bounded alone."""
    encoding = Sinusoidal(d, "10000")
    rederived = _Rederived(encoding)
    starts = np.array([1, beyond_longest_wavelength(encoding), 2**40 + 3, 2**40 + 999])
    lengths = np.array([64, 37, 64, 2])
    exact = [
        np.array([float(squared_distance_ball(encoding, int(s) + j, 128).mid()) for j in range(length)])
        for s, length in zip(starts, lengths, strict=True)
    ]
    _, _, lowest = rederived.products(starts, lengths, np.zeros(starts.size), -1.0)
    least = min(values.min() for values in exact)
    assert least - 2 * rederived.error <= lowest <= least
    threshold = np.array([values.min() for values in exact]) + 4 * rederived.error
    alone, pieces, _ = rederived.products(starts, lengths, threshold, -1.0)

    def offsets(margin: float) -> set[int]:
        return {
            int(s) + j
            for s, values, limit in zip(starts, exact, threshold, strict=True)
            for j in range(values.size)
            if values[j] < limit + margin
        }

    assert len(offsets(0.0)) >= starts.size and offsets(0.0) <= set(alone.tolist()) <= offsets(
        2 * rederived.error
    )
    assert ((starts[pieces] <= alone) & (alone < starts[pieces] + lengths[pieces])).all()
