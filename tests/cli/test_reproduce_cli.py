"""`pe-verify reproduce`: every reproduction's rows in text and JSON, one by name, an unknown name refused,
and exit status 0 whether the paper's numbers agree or not (a discrepancy is a finding)."""

from __future__ import annotations

import json

import pytest

from pe_verify import cli, terminal
from pe_verify.claims import catalog
from pe_verify.claims.model import (
    EXACT,
    PROVED,
    REFUTED,
    REFUTES,
    Assessment,
    Evidence,
    Reproduction,
    Row,
    Source,
    claim,
)
from pe_verify.reporting import report

AGREES = Reproduction(
    "toy_agrees", "A et al. 2020 (arXiv 0000.00001), Table 1", "exact", (Row("n = 2", "4", "4", True),)
)
DIFFERS = Reproduction(
    "toy_differs",
    "B et al. 2021 (arXiv 0000.00002), §3",
    "mpmath, 30 digits",
    (Row("L = 1K", "4.3e3", "4.9e3", False, "B(m) < 0 at m = 7"), Row("L = 2K", "1.6e4", "1.6e4", True)),
)


@claim(
    id="R.1",
    source=Source("A et al. 2020", "Table 1"),
    statement="Two squared is four.",
    formal="2^2 = 4",
    expected=PROVED,
    reproduces="toy_agrees",
)
def r_1() -> Assessment:
    return Assessment((Evidence(EXACT, "2·2 = 4", True),), "Agrees.", reproduction=AGREES)


@claim(
    id="R.2",
    source=Source("B et al. 2021", "§3"),
    statement="The published bound meets its criterion.",
    formal="B(m) \\ge 0",
    expected=REFUTED,
    reproduces="toy_differs",
)
def r_2() -> Assessment:
    return Assessment((Evidence(EXACT, "B(7) < 0", True, REFUTES),), "Differs.", reproduction=DIFFERS)


@pytest.fixture
def toy_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    by_id = {item.id: item for item in (r_1, r_2)}
    monkeypatch.setattr(catalog, "all_claims", lambda: tuple(by_id.values()))
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: by_id[claim_id].assess())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["reproduce", *argv, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_lists_every_reproduction_with_every_row(capsys, toy_catalog: None) -> None:
    status, out, _ = run(capsys, "--json")
    records = json.loads(out)["reproductions"]
    assert status == 0
    assert [r["name"] for r in records] == ["toy_agrees", "toy_differs"]
    assert records[1]["rows"][0] == {
        "parameter": "L = 1K",
        "published": "4.3e3",
        "computed": "4.9e3",
        "agrees": False,
        "note": "B(m) < 0 at m = 7",
    }
    assert {"name", "source", "rows"} <= records[0].keys()


def test_a_discrepancy_is_printed_and_still_exits_zero(capsys, toy_catalog: None) -> None:
    status, out, _ = run(capsys, "toy_differs")
    assert status == 0
    assert "L = 1K: published 4.3e3, computed 4.9e3: DIFFERS — B(m) < 0 at m = 7" in out
    assert "1 of 2 rows differ" in out and "toy_agrees" not in out


def test_an_unknown_name_is_a_usage_error_naming_the_closest(capsys, toy_catalog: None) -> None:
    status, out, err = run(capsys, "toy_agree")
    assert status == 2 and out == ""
    assert "no reproduction named" in err and "toy_agrees" in err


def test_the_report_renders_the_rows_as_a_table() -> None:
    lines = report.reproduction_table(DIFFERS)
    assert lines[0].startswith("**Reproduction `toy_differs`.** B et al. 2021 (arXiv 0000.00002), §3.")
    assert "| L = 1K | 4.3e3 | 4.9e3 | **no** | B(m) < 0 at m = 7 |" in lines


def test_agreement_must_be_decided() -> None:
    with pytest.raises(TypeError, match="agrees must be a bool"):
        Row("n", "1", "1", 1)  # type: ignore[arg-type]


def test_on_a_terminal_each_row_is_wrapped_to_its_width(capsys, toy_catalog: None, monkeypatch) -> None:
    monkeypatch.setattr(terminal, "terminal_width", lambda: 40)
    _, wrapped, _ = run(capsys, "toy_differs")
    monkeypatch.setattr(terminal, "terminal_width", lambda: None)
    _, plain, _ = run(capsys, "toy_differs")
    assert all(len(line) <= 40 for line in wrapped.splitlines()) and wrapped.split() == plain.split()
    assert any(len(line) > 40 for line in plain.splitlines())


def test_fitted_indents_continuations_and_leaves_a_short_line() -> None:
    line = "  L = 1K: published 4.3e3, computed 4.9e3: DIFFERS — B(m) < 0 at m = 7 and more words here"
    lines = terminal.fitted(line, width=40).splitlines()
    assert lines[0].startswith("  L = 1K") and all(later.startswith("      ") for later in lines[1:])
    assert terminal.fitted("short", width=40) == "short" == terminal.fitted("short", width=None)
