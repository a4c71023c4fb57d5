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
    BEYOND_DOMAIN,
    CERTIFICATE,
    CORROBORATES,
    REFUTED,
    UNSETTLED,
    VERDICTS,
    Assessment,
    Claim,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.encodings.learned import LearnedPositionTable
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

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


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", ["D0.3a", "D0.7", "D0.12", "D0.16", "D0.18"])
def test_numeric_entries_are_deterministic(claim_id: str) -> None:
    assert BY_ID[claim_id].assess() == assessed(claim_id)


@pytest.mark.slow
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


def test_refuted_entries_name_their_witnesses() -> None:
    result = assessed("D0.15a")
    assert ("derivation", "sinusoidal.position_term_not_relative") in result.evidence[0].detail
    assert "0 for (i, j) = (1, 0) and 0.7651 for (2, 1)" in result.explanation


@pytest.mark.slow
def test_nearness_is_certified_and_the_dips_are_notes_beyond_the_claim() -> None:
    result = assessed("D0.7")
    dips = [e for e in result.evidence if "farther position is closer" in e.summary]
    assert len(dips) == 2 and "k = 0, …, 3" in dips[0].summary and "k = 0, …, 43" in dips[1].summary
    notes = [e for e in result.evidence if e.bearing == BEYOND_DOMAIN]
    assert len(notes) == 3 and all(e.holds and "does not claim monotonicity" in e.summary for e in notes)
    assert "3208 offsets come closer than k = 1" in notes[-1].summary and "first k = 6" in notes[-1].summary
    nearest = [e for e in result.evidence if e.kind == CERTIFICATE and "pe-verify separation" in e.summary]
    assert len(nearest) == 1 and nearest[0].holds and nearest[0].bearing == CORROBORATES
    assert (
        "d = 512, 1 ≤ k < 2^31: the least ‖PE(p+k) − PE(p)‖ is 3.71427036513 at k = 1," in nearest[0].summary
    )
    assert "not monotone" in result.explanation and "beyond the claim" in result.explanation


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


@pytest.mark.slow
def test_repeated_frequencies_that_bring_an_offset_back_unsettle_nearness(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Repeating(Sinusoidal):
        def frequencies_mp(self, dps: int) -> list[mpmath.mpf]:
            fastest = super().frequencies_mp(dps)[0]
            return [fastest] * len(super().frequencies_mp(dps))

    monkeypatch.setattr(document_000, "Sinusoidal", Repeating)
    monkeypatch.setattr(document_000, "SEPARATION_OFFSETS", 2**20)  # the twin defeats every interval bound
    assert document_000.d0_7.assess().verdict == UNSETTLED


def test_a_table_that_wraps_around_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    class Wrapping(LearnedPositionTable):
        def lookup(self, positions: object) -> np.ndarray:
            return self.weights[np.asarray(positions) % self.max_len]

    monkeypatch.setattr(document_000, "LearnedPositionTable", Wrapping)
    assert document_000.d0_10.assess().verdict == UNSETTLED


def test_a_half_precision_div_term_breaks_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    class HalfFrequencies(Sinusoidal):
        def code_frequencies(self) -> np.ndarray:
            return super().code_frequencies().astype(np.float16).astype(np.float32)

    monkeypatch.setattr(
        document_000, "common_code_encoding", lambda d, dtype: HalfFrequencies(d, dtype=dtype)
    )
    assert document_000.d0_3a.assess().verdict == UNSETTLED


def test_frequencies_in_reverse_order_swap_fast_and_slow(monkeypatch: pytest.MonkeyPatch) -> None:
    class ReversedPairs(Sinusoidal):
        def row_balls(self, position: int) -> list[flint.arb]:
            row = super().row_balls(position)
            pairs = [row[j : j + 2] for j in range(0, self.d, 2)]
            return [value for pair in reversed(pairs) for value in pair]

    monkeypatch.setattr(document_000, "Sinusoidal", ReversedPairs)
    assert document_000.d0_13.assess().verdict == UNSETTLED


def test_a_head_whose_pairs_turn_at_other_frequencies_peaks_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class ReversedPairs(Sinusoidal):
        def row_balls(self, position: int) -> list[flint.arb]:
            row = super().row_balls(position)
            pairs = [row[j : j + 2] for j in range(0, self.d, 2)]
            return [value for pair in reversed(pairs) for value in pair]

    monkeypatch.setattr(document_000, "Sinusoidal", ReversedPairs)
    assert document_000.d0_16.assess().verdict == UNSETTLED


def test_pairs_that_do_not_share_a_frequency_are_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    class Unpaired(Sinusoidal):
        def frequency_index(self) -> np.ndarray:
            return np.arange(self.d)

    monkeypatch.setattr(document_000, "Sinusoidal", Unpaired)
    assert document_000.d0_4.assess().verdict == UNSETTLED


def test_positions_scaled_by_max_len_break_the_prefix_property(monkeypatch: pytest.MonkeyPatch) -> None:
    class Normalised(Sinusoidal):
        def stored_rows(self, positions: np.ndarray) -> np.ndarray:
            return super().stored_rows(positions * 8 // max(len(positions), 1))

    monkeypatch.setattr(document_000, "common_code_encoding", lambda d, dtype: Normalised(d, dtype=dtype))
    assert document_000.d0_11b.assess().verdict == UNSETTLED
