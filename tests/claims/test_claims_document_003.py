"""Document 003's catalog entries: each computed verdict is the one recorded; breaking a check changes it.

The mutation tests replace what an entry computes with — an encoding, a relative-position matrix, a
decision function, a RoPE map, the slopes — by a deliberately broken one and assert that the verdict moves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from pe_verify.claims import catalog
from pe_verify.claims import document_003 as doc
from pe_verify.claims.model import (
    ARGUMENT_VERDICTS,
    CAVEAT,
    CITATION,
    CONDITIONS,
    CONTRADICTED_BY_SOURCES,
    CORROBORATES,
    PROVED,
    REFUTES,
    SOUND,
    SUPPORTS,
    UNSETTLED,
    VERDICTS,
    Assessment,
    Claim,
    Evidence,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.properties.analyses.finite_precision import rounded_equal_neighbours
from pe_verify.properties.encodings.alibi import Alibi
from pe_verify.properties.encodings.relative import ClippedRelative
from pe_verify.properties.encodings.rope import Rope
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

ENTRIES = [value for value in vars(doc).values() if isinstance(value, Claim)]
BY_ID = {entry.id: entry for entry in ENTRIES}
INVENTORY = [f"D3.{n}" for n in range(1, 13)]


def clear_assessments() -> None:
    catalog.ASSESSMENTS.clear()


@pytest.fixture
def fresh() -> Iterator[None]:
    """Every entry recomputed inside the test; the catalog's assessments from before are restored after."""
    saved = dict(catalog.ASSESSMENTS)
    catalog.ASSESSMENTS.clear()
    yield
    catalog.ASSESSMENTS.clear()
    catalog.ASSESSMENTS.update(saved)


def test_every_inventory_id_is_an_entry() -> None:
    assert [entry.id for entry in ENTRIES if entry.id in INVENTORY] == INVENTORY
    assert len(BY_ID) == len(ENTRIES)
    assert all(re.fullmatch(r"D3\.\d+[a-z]?", entry.id) for entry in ENTRIES)


def test_entries_cite_the_document_and_known_claims() -> None:
    for entry in ENTRIES:
        assert entry.source.document == doc.DOC and entry.source.section.strip()
        assert entry.statement and entry.formal
        assert entry.expected in VERDICTS and entry.expected_argument in (None, *ARGUMENT_VERDICTS)
        for dependency in entry.depends_on:
            assert dependency in BY_ID or re.fullmatch(r"D0\.\d+", dependency), dependency


def test_the_tables_follow_their_entries() -> None:
    for table, entry in ((doc.SUMMARY_TABLE, doc.d3_12), (doc.COMPARISON_TABLE, doc.d3_12b)):
        cells = catalog.assessment(entry.id).evidence
        assert [dict(cell.detail)["verdict"] for cell in cells] == [
            doc.assessed(claim_id).verdict for _, _, claim_id in table
        ]


def test_no_entry_prints_uncertified_digits() -> None:
    for entry in ENTRIES:
        found = catalog.assessment(entry.id)
        texts = [found.explanation]
        for item in (*found.evidence, *found.argument_evidence):
            texts += [item.summary, *(str(value) for _, value in item.detail)]
        assert not [text for text in texts if UNCERTIFIED in text], entry.id


def test_the_printed_table_shows_exact_roundings_only_to_float64_digits() -> None:
    assert doc._printed_digits_certified(rounded_equal_neighbours())
    assert not doc._printed_digits_certified(rounded_equal_neighbours(decimals=17))


def test_a_lower_bound_is_rounded_down() -> None:
    assert doc._rounded_down(Fraction(2, 3)) == "6.666e-01"
    assert doc._rounded_down(Fraction(18179, 10**13)) == "1.817e-09"


# ------------------------------------------------------------------------------------------ mutations


@pytest.mark.slow
def test_a_ratio_argument_that_never_fails_would_be_sound(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert doc.d3_3.assess().argument_verdict == CONDITIONS
    clear_assessments()
    monkeypatch.setattr(doc, "argument_failures", lambda base, d_max: ())
    monkeypatch.setattr(doc, "rational_ratio_pairs", lambda d, base: ())
    assert doc.d3_3.assess().argument_verdict == SOUND


@pytest.mark.slow
def test_a_wrong_base_breaks_the_witnesses(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doc, "Sinusoidal", lambda d, base: Sinusoidal(d, 10001))
    found = doc.d3_5.assess()
    assert found.verdict == UNSETTLED != doc.d3_5.expected
    assert not next(e for e in found.evidence if "witnesses agree" in e.summary).holds


class HalvedPositions(Sinusoidal):
    """A broken table: positions 2k and 2k + 1 share the row of 2k (an off-by-one integer division)."""

    def stored_rows(self, positions: np.ndarray) -> np.ndarray:
        return super().stored_rows(positions // 2 * 2)


def halved_positions(
    d: int, dtype: str, base: float = 10000.0, positions_in_dtype: bool = False
) -> Sinusoidal:
    return HalvedPositions(d, base, dtype=dtype, positions_in_dtype=positions_in_dtype)


def test_a_table_that_repeats_rows_is_caught(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doc, "common_code_encoding", halved_positions)
    monkeypatch.setattr(doc, "TABLE_POSITIONS", 64)
    found = doc.d3_3b.assess()
    assert found.verdict == UNSETTLED != doc.d3_3b.expected
    assert not found.evidence[0].holds


def test_a_mis_clipped_relative_matrix_is_caught(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    class ClippedOneLong(ClippedRelative):
        def positions(self, n_q: int, n_k: int) -> np.ndarray:
            return ClippedRelative(self.max_distance + 1).positions(n_q, n_k)

    monkeypatch.setattr(doc, "RELATIVE", ClippedOneLong(doc.RELATIVE.max_distance))
    assert doc.d3_8.assess().verdict == UNSETTLED
    assert doc.d3_8.expected == PROVED


def test_rope_without_rotation_has_no_overhead_to_show(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    class NoRotation(Rope):
        def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
            return x

    monkeypatch.setattr(doc, "ROPE", NoRotation)
    assert doc.d3_9.assess().verdict == UNSETTLED


def test_equal_slopes_do_not_show_the_slope_effect(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    class EqualSlopes(Alibi):
        def slopes_exact(self, n_heads: int) -> list[sp.Expr]:
            return [sp.Rational(1, 2)] * n_heads

    monkeypatch.setattr(doc, "Alibi", EqualSlopes)
    assert doc.d3_10.assess().verdict == UNSETTLED


@pytest.mark.slow
def test_a_confirmed_seqpe_description_would_clear_the_table(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def seqpe_row(found: Assessment) -> Evidence:
        return next(e for e in found.evidence if ("entry", "D3.11") in e.detail)

    before = doc.d3_12b.assess()
    assert before.verdict == CONTRADICTED_BY_SOURCES and seqpe_row(before).bearing == REFUTES
    clear_assessments()
    confirmed = Assessment((Evidence(CITATION, "the paper describes a chain", True),), "confirmed")
    original = doc.assessed
    monkeypatch.setattr(
        doc, "assessed", lambda claim_id: confirmed if claim_id == "D3.11" else original(claim_id)
    )
    after = doc.d3_12b.assess()
    assert seqpe_row(after).bearing == SUPPORTS and after.verdict == CAVEAT


def test_broken_table_rows_really_repeat() -> None:
    rows = halved_positions(8, "float32").stored_rows(np.arange(4, dtype=np.int64))
    assert np.array_equal(rows[0], rows[1]) and not np.array_equal(rows[1], rows[2])


PAIR_GAP = re.compile(r"PE\((\d+), (\d+)\)(?: = sin 1)? and PE\((\d+), (\d+)\) differ by ([0-9.e+-]+)")
SIN_ONE = (re.compile(r"PE\((\d+), (\d+)\) = sin 1"), re.compile(r"sin 1 = PE\((\d+), (\d+)\)"))
DIMENSION = re.compile(r"\bd = (\d+)")


def _pair_sentence_errors(text: str) -> tuple[int, list[str]]:
    """How many 'PE(p1, j1) and PE(p2, j2) differ by g' and 'PE(p, j) = sin 1' statements `text` makes, and
    those its own numbers contradict: each gap is recomputed at 50 digits with the d last named before it."""
    found, errors = 0, []
    for pattern in (PAIR_GAP, *SIN_ONE):
        for match in pattern.finditer(text):
            named = DIMENSION.findall(text[: match.start()])
            if not named:
                errors.append(f"{match.group(0)!r} names no d before it")
                continue
            found += 1
            encoding = Sinusoidal(int(named[-1]), doc.BASE)
            numbers = [int(group) for group in match.groups()[:4]]
            with mpmath.workdps(50):
                first = encoding.value_mp(numbers[0], numbers[1])
                if pattern in SIN_ONE:
                    if abs(first - mpmath.sin(1)) > mpmath.mpf(10) ** -45:
                        errors.append(f"{match.group(0)!r}: it is {mpmath.nstr(first, 8)}")
                    continue
                gap = abs(first - encoding.value_mp(numbers[2], numbers[3]))
                if mpmath.nstr(gap, len(match.group(5).replace(".", "").lstrip("0"))) != match.group(5):
                    errors.append(f"{match.group(0)!r}: the gap is {mpmath.nstr(gap, 8)}")
    return found, errors


def test_the_pair_checker_catches_positions_and_gap_from_different_witnesses() -> None:
    # The sentence D3.5 printed before: the positions of one near miss beside the gap of another.
    found, errors = _pair_sentence_errors("at d = 6 PE(1, 0) = sin 1 and PE(22, 2) differ by 0.0017055")
    assert found == 2 and len(errors) == 1 and "the gap is 0.0112381" in errors[0], errors
    assert _pair_sentence_errors("at d = 6, PE(2, 0) = sin 1")[1]
    assert _pair_sentence_errors("at d = 512, sin 1 = PE(10, 126)")[1]


def test_every_printed_pair_in_the_catalog_agrees_with_its_own_gap() -> None:
    total, wrong = 0, []
    for entry in catalog.all_claims():
        found = catalog.assessment(entry.id)
        texts = [e.summary for e in (*found.evidence, *found.argument_evidence)] + [found.explanation]
        for text in texts:
            count, errors = _pair_sentence_errors(text)
            total += count
            wrong += [f"{entry.id}: {error}" for error in errors]
    assert total >= 4 and not wrong, (total, wrong)


def test_d3_3_gives_the_certified_least_distances_and_they_match_mpmath() -> None:
    evidence = [e for e in catalog.assessment("D3.3").evidence if "certified for every offset" in e.summary]
    table, far = (e.summary for e in evidence)
    assert all(e.holds and e.bearing == CORROBORATES for e in evidence)
    assert "d = 6: no two different positions below 2^24 are closer than 0.00952112317542" in table
    assert "attained at offset k = 6413153" in table
    assert "60612 ≤ k < 2^24" in far and "20.2770120239, at offset k = 16316792" in far
    with mpmath.workdps(30):
        omegas = Sinusoidal(6).frequencies_mp(30)
        least = mpmath.sqrt(mpmath.fsum(4 * mpmath.sin(6413153 * w / 2) ** 2 for w in omegas))
        assert mpmath.nstr(least, 12) == "0.00952112317542"
