"""Document 000's catalog entries: each computed verdict is the recorded one; breaking a check changes it."""

from __future__ import annotations

import functools
import re

import flint
import mpmath
import numpy as np
import pytest

from pe_verify.claims import document_000
from pe_verify.claims.model import (
    ARGUMENT_VERDICTS,
    PROVED,
    REFUTED,
    UNSETTLED,
    VERDICTS,
    Assessment,
    Claim,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.properties.finite_precision import common_code_encoding
from pe_verify.properties.learned import LearnedPositionTable
from pe_verify.properties.sinusoidal import Sinusoidal

CLAIMS = [value for value in vars(document_000).values() if isinstance(value, Claim)]
BY_ID = {item.id: item for item in CLAIMS}
INVENTORY = [f"D0.{n}" for n in range(1, 19)]
HEADINGS = {
    "(introduction)",
    "위치는 왜 embedding에 더해도 되는가",
    "sinusoidal positional encoding 공식 읽기",
    "왜 하필 sin과 cos인가",
    "학습되는 position embedding과의 차이",
    "작은 PyTorch 구현",
    "position 정보가 attention 안에서 쓰이는 방식",
    "요즘 모델은 RoPE를 더 많이 쓴다",
}


@functools.cache
def assessed(claim_id: str) -> Assessment:
    """The unmodified entry's assessment, computed once for the whole module."""
    return BY_ID[claim_id].assess()


def _order(claim_id: str) -> tuple[int, str]:
    number, suffix = re.fullmatch(r"D0\.(\d+)([a-z]?)", claim_id).groups()
    return int(number), suffix


def test_every_inventory_id_is_an_entry_and_the_entries_follow_the_document() -> None:
    ids = [item.id for item in CLAIMS]
    assert len(ids) == len(set(ids))
    assert set(INVENTORY) <= set(ids)
    assert ids == sorted(ids, key=_order)


@pytest.mark.parametrize("item", CLAIMS, ids=lambda item: item.id)
def test_entry_names_its_source_and_states_the_claim(item: Claim) -> None:
    assert item.source.document == document_000.DOC
    assert item.source.section in HEADINGS
    assert item.statement.strip() and item.formal.strip()
    assert item.expected in VERDICTS and item.expected != UNSETTLED
    assert item.expected_argument is None or item.expected_argument in ARGUMENT_VERDICTS
    for dependency in item.depends_on:
        assert _order(dependency) < _order(item.id)
        assert dependency in BY_ID


@pytest.mark.parametrize("claim_id", ["D0.3a", "D0.7", "D0.12", "D0.16", "D0.18"])
def test_numeric_entries_are_deterministic(claim_id: str) -> None:
    assert BY_ID[claim_id].assess() == assessed(claim_id)


def test_div_term_is_the_correctly_rounded_float32_exp_of_its_exponents() -> None:
    for d in (6, 512):
        exponents, computed = document_000.div_term_exponents(d), document_000.div_term_float32(d)
        assert computed.dtype == np.float32
        for x, value in zip(exponents, computed, strict=True):
            with mpmath.workprec(120):
                exact = mpmath.exp(mpmath.mpf(float(x)))
            with mpmath.workprec(24):
                assert float(value) == float(+exact)


@pytest.mark.parametrize("item", CLAIMS, ids=lambda item: item.id)
def test_no_entry_prints_uncertified_digits(item: Claim) -> None:
    result = assessed(item.id)
    texts = [result.explanation]
    for evidence in (*result.evidence, *result.argument_evidence):
        texts += [evidence.summary, *(value for _, value in evidence.detail)]
    assert not [text for text in texts if UNCERTIFIED in text]


def test_the_frequency_drift_names_correct_rounding_not_a_library() -> None:
    result = assessed("D0.3a")
    assert "correctly rounded" in result.explanation and "numpy's float32 exp" not in result.explanation
    assert "correctly rounded exp" in result.evidence[0].summary
    assert dict(result.evidence[0].measured)["d = 6: largest error (ulp)"] > 0


def test_refuted_and_caveat_entries_name_their_witnesses() -> None:
    assert "sin(1)*sin(2)" in assessed("D0.15a").evidence[0].summary
    dips = [e.summary for e in assessed("D0.7").evidence if "farther position is closer" in e.summary]
    assert len(dips) == 2 and "k = 0, …, 3" in dips[0] and "k = 0, …, 43" in dips[1]


# ---------------------------------------------------------------------------------------- mutations


def test_a_misprinted_table_entry_refutes_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    table = [list(row) for row in document_000.PRINTED_TABLE]
    table[1][0] = "0.8416"
    monkeypatch.setattr(document_000, "PRINTED_TABLE", tuple(tuple(row) for row in table))
    result = document_000.d0_12.assess()
    assert result.verdict == REFUTED
    assert "PE(1, 0) printed 0.8416, computed 0.8415" in result.evidence[1].summary


def test_a_table_from_another_base_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    def wrong_base(d: int, dtype: str) -> object:
        return common_code_encoding(d, dtype, base=1000.0)

    monkeypatch.setattr(document_000, "common_code_encoding", wrong_base)
    assert document_000.d0_12.assess().verdict == UNSETTLED


def test_a_distance_that_only_grows_removes_the_caveat(monkeypatch: pytest.MonkeyPatch) -> None:
    def growing(d: int, max_offset: int) -> list[flint.arb]:
        return [flint.arb(k) / 2 for k in range(max_offset + 1)]

    monkeypatch.setattr(document_000, "offset_distances", growing)
    assert document_000.d0_7.assess().verdict == PROVED


def test_an_all_sine_origin_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_000, "origin_encoding", document_000.sine_only_origin)
    assert document_000.d0_5.assess().verdict == UNSETTLED


def test_a_table_that_wraps_around_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    class Wrapping(LearnedPositionTable):
        def lookup(self, positions: object) -> np.ndarray:
            return self.weights[np.asarray(positions) % self.max_len]

    monkeypatch.setattr(document_000, "LearnedPositionTable", Wrapping)
    assert document_000.d0_10.assess().verdict == UNSETTLED


def test_a_half_precision_div_term_breaks_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    original = document_000.div_term_float32

    def half(d: int) -> np.ndarray:
        return original(d).astype(np.float16).astype(np.float32)

    monkeypatch.setattr(document_000, "div_term_float32", half)
    assert document_000.d0_3a.assess().verdict == UNSETTLED


def test_frequencies_in_reverse_order_swap_fast_and_slow(monkeypatch: pytest.MonkeyPatch) -> None:
    class ReversedPairs(Sinusoidal):
        def row_balls(self, position: int) -> list[flint.arb]:
            row = super().row_balls(position)
            pairs = [row[j : j + 2] for j in range(0, self.d, 2)]
            return [value for pair in reversed(pairs) for value in pair]

    monkeypatch.setattr(document_000, "Sinusoidal", ReversedPairs)
    assert document_000.d0_13.assess().verdict == UNSETTLED


def test_a_head_without_the_shift_peaks_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_000, "_shift_back", lambda row, omegas: row)
    assert document_000.d0_16.assess().verdict == UNSETTLED


def test_pairs_that_do_not_share_a_frequency_are_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_000, "pair_index", lambda d: np.arange(d))
    assert document_000.d0_4.assess().verdict == UNSETTLED


def test_positions_scaled_by_max_len_break_the_prefix_property(monkeypatch: pytest.MonkeyPatch) -> None:
    class Normalised(Sinusoidal):
        def stored_rows(self, positions: np.ndarray) -> np.ndarray:
            return super().stored_rows(positions * 8 // max(len(positions), 1))

    monkeypatch.setattr(document_000, "common_code_encoding", lambda d, dtype: Normalised(d, dtype=dtype))
    assert document_000.d0_11b.assess().verdict == UNSETTLED
