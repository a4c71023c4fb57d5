"""The reproductions of position interpolation's bounds (G.pi_bound_ratio) and of Liu et al.'s critical
dimension (G.critical_dimension): their verdicts and rows, and what breaking their inputs does to them."""

from __future__ import annotations

import json

import flint
import pytest

from pe_verify.claims import catalog
from pe_verify.claims import reproduce_interpolation as entries
from pe_verify.claims.model import CAVEAT, FLAWED, PROVED, REFUTED, REFUTES, UNSETTLED, Assessment
from pe_verify.cli import main
from pe_verify.properties.checks import interpolation_bounds as ib


def assessed(name: str) -> Assessment:
    """The catalog's assessment of the entry `name` (computed once per process)."""
    return catalog.assessment(getattr(entries, name).id)


@pytest.mark.parametrize(
    ("name", "reproduces", "verdict", "argument"),
    [
        ("pi_bound_ratio", "pi_bound_ratio", REFUTED, FLAWED),
        ("critical_dimension_entry", "critical_dimension", PROVED, None),
    ],
)
def test_verdicts_and_reproduction_names(
    name: str, reproduces: str, verdict: str, argument: str | None
) -> None:
    entry, found = getattr(entries, name), assessed(name)
    assert (found.verdict, found.argument_verdict) == (entry.expected, entry.expected_argument)
    assert (found.verdict, found.argument_verdict) == (verdict, argument)
    assert entry.reproduces == found.reproduction.name == reproduces


def test_the_pi_rows_agree_on_the_arithmetic_and_differ_on_the_theorem() -> None:
    rows = assessed("pi_bound_ratio").reproduction.rows
    assert [row.agrees for row in rows] == [True, True, True, False, False, False, False, False]
    assert rows[0].published == "294.73" and rows[0].computed.startswith("294.73")
    assert rows[1].computed.startswith("64 ln c = 589.46")


def test_the_refutation_is_a_computed_counterexample_at_llama_7b() -> None:
    found = assessed("pi_bound_ratio")
    (refutation,) = [e for e in found.evidence if e.bearing == REFUTES]
    assert refutation.holds and dict(refutation.detail)["bound"].startswith("0.434294")


def test_the_critical_rows_agree_with_the_published_92() -> None:
    rows = assessed("critical_dimension_entry").reproduction.rows
    assert [row.agrees for row in rows] == [True, True]
    assert rows[0].published == "92" and rows[0].computed.startswith("92 = 2⌈45.02")


@pytest.mark.slow
def test_a_wrong_base_misses_the_printed_294_73(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entries, "C", 20000)
    rows = entries.pi_bound_ratio.assess().reproduction.rows
    assert not rows[0].agrees


@pytest.mark.slow
def test_a_true_theorem_would_leave_the_ratio_with_a_caveat(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the exact worst case as the theorem's constant nothing refutes it; B(s) < d beyond Figure 5
    still limits the claim."""

    def corrected(d: int, c: int) -> flint.arb:
        return ib.curvature_constant(d, c) / 8

    monkeypatch.setattr(entries, "theorem_constant", corrected)
    found = entries.pi_bound_ratio.assess()
    assert found.verdict == CAVEAT


def test_a_floor_instead_of_the_ceiling_unsettles_the_critical_dimension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def floored(d: int, base: int, length: int) -> int:
        return 2 * int(ib.critical_exponent(d, base, length).floor().unique_fmpz())

    monkeypatch.setattr(entries, "critical_dimension", floored)
    found = entries.critical_dimension_entry.assess()
    assert found.verdict == UNSETTLED and not found.reproduction.rows[0].agrees


def test_a_wrong_base_unsettles_the_critical_dimension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entries, "C", 500000)
    found = entries.critical_dimension_entry.assess()
    assert found.verdict == UNSETTLED and not found.reproduction.rows[0].agrees


def test_the_command_line_prints_the_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "critical_dimension", "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)["reproductions"]
    assert record["claim"] == "G.critical_dimension" and record["rows"][0]["computed"].startswith("92")
