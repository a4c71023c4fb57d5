"""Which sinusoidal encoding values coincide: the exact mask, count and first witness agree with every dim
pair decided one by one, a witness is confirmed only when the values agree, and `analyse` refuses settings
beyond its limits (or a base it cannot factor) before anything is computed."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from pe_verify.proofs.uniqueness import ValuePair, coinciding_dim_pairs
from pe_verify.properties.analyses import collisions
from pe_verify.properties.analyses.finite_precision import StoredEncoding, common_code_encoding
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

GIB = collisions.GIB


@pytest.mark.parametrize("base", [Fraction(10000), Fraction(500000), Fraction(9, 4), Fraction(4096)])
def test_mask_count_and_witness_are_those_of_every_pair_decided_one_by_one(base: Fraction) -> None:
    for d in range(1, 25):
        verdicts = coinciding_dim_pairs(d, base)
        mask = np.zeros((d, d), dtype=bool)
        for verdict in verdicts:
            mask[verdict.dim1, verdict.dim2] = mask[verdict.dim2, verdict.dim1] = True
        smallest = min(
            (v.witness for v in verdicts),
            key=lambda w: (max(abs(w.p1), abs(w.p2)), w.dim1, w.dim2),
            default=None,
        )
        assert np.array_equal(collisions.exact_coincidence_mask(d, base), mask), d
        assert collisions.coinciding_pair_count(d, base) == len(verdicts), d
        assert collisions.first_witness(d, base) == smallest, d


def test_the_d8_witness_is_confirmed_at_50_digits() -> None:
    answer = collisions._cross_dim_witness(8, Fraction(10000))
    assert answer.value == {"p1": 1, "dim1": 0, "p2": 10, "dim2": 2}
    assert answer.evidence == collisions.EXACT and "agree to 50 digits" in answer.summary


def test_a_planted_wrong_witness_is_not_confirmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collisions, "first_witness", lambda d, base: ValuePair(1, 0, 11, 2))
    answer = collisions._cross_dim_witness(8, Fraction(10000))
    assert answer.evidence == collisions.DIGITS and "DO NOT agree" in answer.summary


class ShiftedFrequencies(Sinusoidal):
    """A broken twin: every frequency after the first is off by one part in 10^30."""

    def frequencies_mp(self, dps: int) -> list[mpmath.mpf]:
        exact = super().frequencies_mp(dps)
        with mpmath.workdps(dps):
            return [exact[0], *(omega * (1 + mpmath.mpf(10) ** -30) for omega in exact[1:])]


def test_a_witness_on_a_twin_with_shifted_frequencies_is_not_confirmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collisions, "Sinusoidal", ShiftedFrequencies)
    answer = collisions._cross_dim_witness(8, Fraction(10000))
    assert answer.evidence == collisions.DIGITS and "DO NOT agree" in answer.summary


@pytest.fixture
def nothing_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the first answer fail loudly: a refusal must come before anything is computed."""

    def computed(*args: object) -> None:
        raise AssertionError("an answer was computed")

    monkeypatch.setattr(collisions, "position_collision", computed)


@pytest.mark.parametrize(
    ("d", "max_pos", "scan_values", "resource", "message"),
    [
        (100000, 2, 2 * 10**7, collisions.MEMORY, "cross_dim_nearest needs about 37.3 GiB"),
        (4096, 100000000, 2 * 10**7, collisions.MEMORY, "vector_collision needs about"),
        (4096, 2621440, 2 * 10**7, collisions.TIME, "would take about"),
    ],
)
def test_settings_beyond_the_limits_are_refused_before_any_work(
    nothing_computed: None, d: int, max_pos: int, scan_values: int, resource: str, message: str
) -> None:
    with pytest.raises(collisions.LimitExceeded, match=message) as refused:
        collisions.analyse(
            d, Fraction(10000), max_pos, "float32", scan_values, max_bytes=4 * GIB, max_seconds=600
        )
    assert refused.value.resource == resource and "--" not in str(refused.value)


def test_the_estimates_grow_with_the_settings() -> None:
    small = {need.answer: need for need in collisions.plan(64, Fraction(10000), 1024, 2 * 10**7)}
    large = {need.answer: need for need in collisions.plan(64, Fraction(10000), 8192, 2 * 10**7)}
    assert small.keys() == large.keys() and set(small) <= set(collisions.ANSWERS)
    assert all(large[key].bytes >= small[key].bytes for key in small)
    assert all(large[key].seconds >= small[key].seconds for key in small)
    assert "vector_nearest" not in {need.answer for need in collisions.plan(7, Fraction(10000), 64, 10**6)}


@pytest.mark.parametrize(
    ("base", "message"),
    [
        (Fraction(1), "greater than 1"),
        (1.5, "rational number"),
        (Fraction(10**400), "beyond the largest float64"),
        (Fraction(10**19 + 1, 10**19), "its nearest float64 is 1.0"),
        (Fraction(700000000000000087596000000000000142383971), "cannot be factored quickly"),
    ],
)
def test_a_base_the_analysis_cannot_use_is_refused(base: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        collisions.require_analysable_base(base)


def test_only_a_large_composite_that_is_no_prime_power_is_left_unfactored() -> None:
    composite, prime = 24137931034482761641241379310344832495999, 10**20 + 39
    assert collisions.unfactored_part(Fraction(6 * composite)) == composite
    assert collisions.unfactored_part(Fraction(7, 29 * composite)) == composite
    assert collisions.unfactored_part(Fraction(prime**3, 2)) is None
    assert collisions.unfactored_part(Fraction(10000)) is None


def test_the_stored_table_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """vector_collision and same_dim_collisions share one pass over the float32 table: every row is computed
    once (no two rows share a hash here, so the exact comparison reads none again)."""
    computed: list[int] = []

    def counted(d: int, dtype: str, base: float) -> StoredEncoding:
        table = common_code_encoding(d, dtype, base)

        def rows(positions: np.ndarray) -> np.ndarray:
            computed.append(len(positions))
            return table.stored_rows(positions)

        return StoredEncoding(table.label, d, dtype, rows)

    monkeypatch.setattr(collisions, "common_code_encoding", counted)
    answers = collisions.analyse(6, Fraction(10000), 500, "float32", 10**6, max_bytes=GIB, max_seconds=600)
    assert sum(computed) == 500
    assert answers["vector_collision"].value is None and answers["same_dim_collisions"].value["dtype"]


def test_every_answer_is_given_in_order() -> None:
    done: list[str] = []
    answers = collisions.analyse(
        6, Fraction(10000), 16, "float32", 10**6, max_bytes=GIB, max_seconds=600, on_answer=done.append
    )
    assert tuple(answers) == tuple(done) == collisions.ANSWERS
    assert answers["cross_dim_exact_exists"].value is False and answers["cross_dim_witness"].value is None


@pytest.mark.parametrize(
    ("d", "said"),
    [
        (1, "d = 1 has a single dimension"),
        (2, "the two dims share the one frequency"),
        (6, "every ratio of two different frequencies is irrational"),
        (8, "dim pairs have a rational frequency ratio"),
    ],
)
def test_the_exact_answer_speaks_of_the_frequencies_d_has(d: int, said: str) -> None:
    """d = 1 and 2 have one frequency, so no ratio of frequencies is spoken of; d = 8 coincides."""
    assert said in collisions._cross_dim_exact_exists(d, Fraction(10000)).summary
