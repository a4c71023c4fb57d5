"""Catalog entries of document 001: computed verdicts equal the recorded ones; breaking a check changes
them."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from twins import FreeParameter, LearnedFunction, Unbounded

from pe_verify.claims import catalog, evidence
from pe_verify.claims import document_001 as doc
from pe_verify.claims.model import (
    CAVEAT,
    FLAWED,
    FLOAT,
    LIMITS,
    NUMERIC,
    PROVED,
    REFUTED,
    SUPPORTS,
    SYMBOLIC,
    UNSETTLED,
    Claim,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.proofs import alibi as alibi_proofs
from pe_verify.proofs import attention, trigonometry
from pe_verify.proofs.derivation import Derivation, Step
from pe_verify.properties.battery.torch_code import RotaryCache, SinusoidalTable, rotate_half
from pe_verify.properties.encodings.learned import LearnedPositionTable
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

CLAIMS = [value for value in vars(doc).values() if isinstance(value, Claim)]
SECTIONS = {doc.INTRODUCTION, doc.CODE, doc.TABLE, doc.SAY_IT, doc.MISTAKES}


def test_every_inventory_id_is_present_and_sources_are_document_001() -> None:
    ids = [entry.id for entry in CLAIMS]
    assert len(ids) == len(set(ids))
    assert {f"D1.{n}" for n in range(1, 9)} <= set(ids)
    assert all(entry.source.document == doc.DOC and entry.source.section in SECTIONS for entry in CLAIMS)


def test_assessments_are_deterministic() -> None:
    for entry in (doc.d1_4, doc.d1_5, doc.d1_5a):
        first, second = catalog.assessment(entry.id), catalog.assessment(entry.id)
        assert first.explanation == second.explanation
        assert first.evidence == second.evidence


def test_module_measurements_print_certified_digits_or_bounds_and_keep_the_raw_values() -> None:
    for entry in (doc.d1_4, doc.d1_5):
        assessment = catalog.assessment(entry.id)
        texts = [assessment.explanation, *(e.summary for e in assessment.evidence)]
        texts += [value for e in assessment.evidence for _, value in e.detail]
        assert not [text for text in texts if UNCERTIFIED in text]
        floats = [e for e in assessment.evidence if e.kind == FLOAT]
        assert floats and all(dict(e.measured) for e in floats)
        assert "≤" in assessment.explanation and "correctly rounded float32" in assessment.explanation


def verify_afresh(monkeypatch: pytest.MonkeyPatch, twin: Derivation) -> None:
    """Entries citing `twin` run it anew, so a patched step reaches them; its cached result is neither read
    nor replaced."""
    cached = evidence.verification
    monkeypatch.setattr(
        evidence, "verification", lambda name: twin.verify() if name == twin.id else cached(name)
    )


def run_pooled_step_on_causal_attention(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation: the pooled-invariance derivation checks causally masked attention instead, on the exact
    example inputs (whose weights are rational, so SymPy decides each difference at once)."""
    step = attention.pooled_invariance_step

    def causal_step(softmax: object, perm: tuple[int, ...], *weights: sp.Matrix) -> Step:
        return step(attention.causal_row_softmax, perm, *attention.EXAMPLE)

    monkeypatch.setattr(attention, "pooled_invariance_step", causal_step)
    verify_afresh(monkeypatch, attention.pooled_output_invariance)


@pytest.mark.slow
def test_d1_1_fails_when_the_pooled_derivation_is_run_on_causal_attention(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert doc.d1_1.assess().verdict == CAVEAT
    run_pooled_step_on_causal_attention(monkeypatch)
    assert doc.d1_1.assess().verdict == UNSETTLED


def test_d1_7b_is_a_caveat_on_the_word_invariant_with_the_point_supported() -> None:
    found = catalog.assessment(doc.d1_7b.id)
    assert (found.verdict, found.argument_verdict) == (CAVEAT, FLAWED)
    cited = {(dict(e.detail)["derivation"], e.bearing) for e in found.evidence if e.kind == SYMBOLIC}
    assert cited == {
        ("attention.permutation_equivariance", LIMITS),
        ("attention.pooled_output_invariance", SUPPORTS),
    }


@pytest.mark.slow
def test_d1_7b_is_unsettled_when_the_pooled_derivation_is_run_on_causal_attention(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_pooled_step_on_causal_attention(monkeypatch)
    assert doc.d1_7b.assess().verdict == UNSETTLED


@pytest.mark.slow
@pytest.mark.parametrize(
    "broken",
    [Unbounded, LearnedFunction, FreeParameter],
    ids=["unbounded", "learned function", "free parameter"],
)
def test_d1_2_is_not_proved_for_encodings_that_are_not_parameter_free_and_defined(
    monkeypatch: pytest.MonkeyPatch,
    broken: type[Sinusoidal],
) -> None:
    monkeypatch.setattr(trigonometry, "Sinusoidal", broken)
    verify_afresh(monkeypatch, trigonometry.sinusoidal_parameter_free)
    assert doc.d1_2.assess().verdict != PROVED


class OddTolerantTable(SinusoidalTable):
    """Mutation: pads odd d_model to even and drops the last cos column, so odd d_model no longer fails."""

    def __init__(
        self, d_model: int, max_len: int = 5000, base: float = 10000.0, dtype: type = np.float32
    ) -> None:
        super().__init__(d_model + d_model % 2, max_len, base, dtype)
        self.pe, self.d_model = self.pe[:, :, :d_model], d_model


class SwappedTable(SinusoidalTable):
    """Mutation: cos in the even columns, sin in the odd ones."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        even, odd = self.pe[..., 0::2].copy(), self.pe[..., 1::2].copy()
        self.pe[..., 0::2], self.pe[..., 1::2] = odd, even


@pytest.mark.slow
def test_d1_4_loses_its_caveat_when_odd_d_model_stops_failing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doc, "SinusoidalTable", OddTolerantTable)
    assert doc.d1_4.assess().verdict == NUMERIC


@pytest.mark.slow
def test_d1_4_is_unsettled_for_a_swapped_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doc, "SinusoidalTable", SwappedTable)
    assert doc.d1_4.assess().verdict == UNSETTLED


class BackwardsCache(RotaryCache):
    """Mutation: rotates by −θ; still relative, but not RoPE's direction."""

    @staticmethod
    def _embed(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        return x * cos - rotate_half(x) * sin


class HeadAxisCache(RotaryCache):
    """The fix: cos and sin unsqueezed at the heads axis, [1, seq_len, 1, dim]."""

    def forward(self, q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cos, sin = self.cos_cached[: q.shape[1]][None, :, None], self.sin_cached[: q.shape[1]][None, :, None]
        return self._embed(q, cos, sin), self._embed(k, cos, sin)


@pytest.mark.slow
def test_d1_5_is_unsettled_for_a_backwards_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doc, "RotaryCache", BackwardsCache)
    assert doc.d1_5.assess().verdict == UNSETTLED


def test_d1_5a_is_no_longer_refuted_once_the_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doc.d1_5a.assess().verdict == REFUTED
    monkeypatch.setattr(doc, "RotaryCache", HeadAxisCache)
    assert doc.d1_5a.assess().verdict != REFUTED


class ClampingTable(LearnedPositionTable):
    """Mutation: positions past the end silently reuse the last row."""

    def lookup(self, positions: object) -> np.ndarray:
        return self.weights[np.minimum(np.asarray(positions), self.max_len - 1)]


def test_d1_8_caveat_rests_on_the_failed_lookup_and_the_cited_index_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = [e for e in doc.d1_8.assess().evidence if e.bearing == LIMITS]
    assert [e.kind for e in limits] == ["exact argument", "citation"] and all(e.holds for e in limits)
    monkeypatch.setattr(doc, "LearnedPositionTable", ClampingTable)
    computed = [e for e in doc.d1_8.assess().evidence if e.bearing == LIMITS and e.kind == "exact argument"]
    assert computed and not any(e.holds for e in computed)


def test_d1_7d_argument_is_not_flawed_without_the_unseen_angles(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doc.d1_7d.assess().argument_verdict == FLAWED
    monkeypatch.setattr(doc, "unrotated_pairs", lambda d, trained_length, base=10000, dps=30: [])
    assert doc.d1_7d.assess().argument_verdict != FLAWED


def test_d1_7e_is_unsettled_for_a_quadratic_penalty(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doc.d1_7e.assess().verdict == PROVED
    monkeypatch.setattr(alibi_proofs, "penalty", lambda i, j: -alibi_proofs.SLOPE * (i - j) ** 2)
    verify_afresh(monkeypatch, alibi_proofs.linear_penalty)
    assert doc.d1_7e.assess().verdict == UNSETTLED


def test_d1_4b_is_not_refuted_by_a_dropout_that_could_leave_entries_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert doc.d1_4b.assess().verdict == REFUTED
    monkeypatch.setattr(doc, "dropout_can_leave_unchanged", lambda value, p: True)
    assert doc.d1_4b.assess().verdict != REFUTED
