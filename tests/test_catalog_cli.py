"""`pe-verify list`, `show` and `report`: output, exit statuses, and what happens when a verdict changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_verify import cli
from pe_verify.claims import catalog, figures
from pe_verify.claims.model import Assessment, Evidence

#: Figures small enough to draw in a fraction of a second: these tests are about the command, not the figures.
SMALL = figures.Scales(
    heatmap_d=8,
    heatmap_positions=8,
    wavelength_d=8,
    offset_ds=(6,),
    max_offset=100,
    gap_scans=((6, (100,)),),
    dtype_d=8,
    dtype_positions=64,
)
SHOW_FIELDS = {"id", "document", "statement", "verdict", "argument_verdict", "evidence", "depends_on"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_json_has_every_claim_with_its_verdicts(capsys) -> None:
    status, out, _ = _run(capsys, "list", "--json")
    rows = json.loads(out)
    assert status == 0
    assert [row["id"] for row in rows] == [item.id for item in catalog.all_claims()]
    assert all({"id", "document", "statement", "verdict", "argument_verdict"} <= row.keys() for row in rows)


def test_show_json_has_the_promised_fields(capsys) -> None:
    status, out, _ = _run(capsys, "show", "D3.5", "--json")
    record = json.loads(out)
    assert status == 0
    assert record.keys() >= SHOW_FIELDS
    assert record["argument_verdict"] == "flawed"
    assert all({"kind", "summary"} <= e.keys() for e in record["evidence"])


def test_show_text_includes_the_derivation_steps(capsys) -> None:
    status, out, _ = _run(capsys, "show", "D0.8")
    assert status == 0
    assert "verdict: proved" in out and "### " in out and "$$" in out


def test_an_unknown_id_is_a_usage_error_with_suggestions(capsys) -> None:
    status, out, err = _run(capsys, "show", "D3.55")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "closest" in err and "D3.5" in err


def test_a_changed_verdict_makes_show_exit_one_and_say_which(capsys, monkeypatch) -> None:
    broken = Assessment((Evidence("exact argument", "a counterexample", True, "refutes"),), "changed")
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: broken)
    status, _, err = _run(capsys, "show", "D0.8")
    assert status == 1
    assert "verdict changed: D0.8: computed refuted" in err


def test_report_writes_into_the_folder_it_is_given(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(figures, "SCALES", SMALL)
    status, out, _ = _run(capsys, "report", "--out", str(tmp_path / "out"))
    assert status == 0 and "wrote" in out
    assert (tmp_path / "out" / "README.md").is_file()


def test_report_refuses_a_file_as_folder(capsys, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    status, _, err = _run(capsys, "report", "--out", str(target))
    assert status == 2 and "not a folder" in err


def test_report_refuses_a_readme_without_the_headline_block(capsys, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no block\n", encoding="utf-8")
    status, _, err = _run(capsys, "report", "--out", str(tmp_path / "out"), "--readme", str(readme))
    assert status == 2 and "no headline block" in err
    assert readme.read_text(encoding="utf-8") == "# no block\n"
    assert not (tmp_path / "out").exists()


def test_a_huge_unknown_id_is_cut_in_the_message(capsys) -> None:
    status, out, err = _run(capsys, "show", "D" * 100_000)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "(100000 characters)" in err and len(err) < 200


def test_ids_resolve_exactly_then_ignoring_case_then_to_suggestions() -> None:
    ids = ["D3.5", "D3.5b", "G.rope"]
    assert catalog.resolve("D3.5", ids) == "D3.5" and catalog.resolve("g.ROPE", ids) == "G.rope"
    with pytest.raises(catalog.UnknownClaim) as found:
        catalog.resolve("D3.55", ids)
    assert found.value.suggestions[0] == "D3.5"
    with pytest.raises(catalog.UnknownClaim) as found:
        catalog.resolve("D3.5" * 10, ids)
    assert found.value.suggestions == []
