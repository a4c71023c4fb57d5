"""`pe-verify list`, `show` and `report`: output, exit statuses, and what happens when a verdict changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pytest
from json_documents import validated

from pe_verify import cli
from pe_verify.claims import catalog
from pe_verify.claims.model import EXACT, PROVED, REFUTES, Assessment, Evidence, Source, claim
from pe_verify.reporting import figures, headlines, models, publish, report

SHOW_FIELDS = {"id", "role", "document", "statement", "verdict", "argument_verdict", "evidence", "depends_on"}


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Results of `list` and `show` go to a folder of this test, never to the user's cache (set without the
    `monkeypatch` fixture, which would make the test compute the catalog afresh)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PE_VERIFY_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_json_has_every_claim_with_its_verdicts(capsys) -> None:
    status, out, _ = _run(capsys, "list", "--json")
    rows = validated("list", out)["claims"]
    assert status == 0
    assert [row["id"] for row in rows] == [item.id for item in catalog.all_claims()]
    assert all({"id", "document", "statement", "verdict", "argument_verdict"} <= row.keys() for row in rows)
    # filters, on the results just cached: a document's claims of one verdict, under the table's header
    status, out, _ = _run(capsys, "list", "--document", "003", "--verdict", "proved")
    header, *lines = out.splitlines()
    assert status == 0 and header.split() == ["id", "verdict", "argument", "claim"]
    chosen = [row for row in rows if "003" in row["document"] and row["verdict"].startswith("proved")]
    assert [line.split()[0] for line in lines] == [row["id"] for row in chosen] and chosen
    status, _, err = _run(capsys, "list", "--document", "no-such-document")
    assert status == 2 and err == "pe-verify: error: no claim of document 'no-such-document'\n"


def test_show_json_has_the_promised_fields(capsys) -> None:
    status, out, _ = _run(capsys, "show", "D3.5", "--json")
    record = validated("show", out)["claim"]
    assert status == 0
    assert record.keys() >= SHOW_FIELDS
    assert record["argument_verdict"] == "flawed"
    assert all({"kind", "summary"} <= e.keys() for e in record["evidence"])


def test_show_json_carries_the_raw_measurements_and_the_scope(capsys) -> None:
    _, out, _ = _run(capsys, "show", "G.rope_low_precision", "--json")
    evidence = validated("show", out)["claim"]["evidence"]
    measured = [e["measured"] for e in evidence if e["measured"]]
    assert measured and all(
        isinstance(value, (int, float, str, list)) for m in measured for value in m.values()
    )
    assert all("instances" in e for e in evidence)


def test_show_text_includes_the_derivation_steps(capsys) -> None:
    status, out, _ = _run(capsys, "show", "D0.8")
    assert status == 0
    assert "verdict: proved" in out and "### " in out and "1. sin((pos + k) ω) = cos kω sin pos ω" in out


def test_show_warns_of_a_dependency_that_is_refuted_and_only_then(capsys, monkeypatch) -> None:
    assert "D1.8" in catalog.get("D1.6b").depends_on
    _, out, _ = _run(capsys, "show", "D1.6b")
    assert "warning:" not in out
    refuted = Assessment((Evidence(EXACT, "a counterexample", True, REFUTES),), "refuted")
    monkeypatch.setitem(catalog.ASSESSMENTS, "D1.8", refuted)
    _, out, _ = _run(capsys, "show", "D1.6b", "--fresh")
    assert "warning: depends on D1.8, which is refuted" in out
    _, out, _ = _run(capsys, "show", "D1.6b", "--json", "--fresh")
    assert {"id": "D1.8", "verdict": "refuted"} in json.loads(out)["claim"]["weak_dependencies"]


def test_an_unknown_id_is_a_usage_error_with_suggestions(capsys) -> None:
    status, out, err = _run(capsys, "show", "D3.55")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "did you mean" in err and "D3.5" in err


def test_a_changed_verdict_makes_show_exit_one_and_say_which(capsys, monkeypatch) -> None:
    broken = Assessment((Evidence("exact argument", "a counterexample", True, "refutes"),), "changed")
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: broken)
    status, _, err = _run(capsys, "show", "D0.8")
    assert status == 1
    assert "verdict changed: D0.8: computed refuted" in err


@claim(id="T.1", source=Source("000_fake.txt", "a section"), statement="One.", formal="x", expected=PROVED)
def t_1() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact.")


@claim(id="T.2", source=Source("general", "x"), statement="Two.", formal="y", expected=PROVED)
def t_2() -> Assessment:
    return Assessment((Evidence(EXACT, "exact support", True),), "Exact too.")


@pytest.fixture
def fake_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """A two-claim catalog without figures: these tests are about writing, not about the claims."""
    by_id = {item.id: item for item in (t_1, t_2)}
    monkeypatch.setattr(catalog, "all_claims", lambda: tuple(by_id.values()))
    monkeypatch.setattr(catalog, "assessment", lambda claim_id: by_id[claim_id].assess())
    monkeypatch.setattr(headlines, "HEADLINES", ("T.1",))
    monkeypatch.setattr(figures, "draw_figures", lambda scales: ())
    monkeypatch.setattr(models, "bundled_records", lambda: ())


@pytest.fixture
def nothing_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    def rendered(*args: object) -> None:
        raise AssertionError("the report was rendered")

    monkeypatch.setattr(report, "render_reports", rendered)


def test_report_writes_into_the_folder_it_is_given(capsys, tmp_path: Path, fake_catalog: None) -> None:
    status, out, _ = _run(capsys, "report", "--out", str(tmp_path / "out"))
    assert status == 0 and "wrote 5 files" in out
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "README.md",
        "beyond-the-documents.md",
        "derivations.md",
        "document-000.md",
        "libraries.md",
    ]


def test_report_says_when_it_keeps_figures_of_another_matplotlib(
    capsys, tmp_path: Path, monkeypatch, fake_catalog: None
) -> None:
    out = tmp_path / "out"
    _run(capsys, "report", "--out", str(out))
    drawn_with = report.recorded_matplotlib_version((out / "README.md").read_text(encoding="utf-8"))
    monkeypatch.setattr(matplotlib, "__version__", "0.0.1", raising=False)
    status, _, err = _run(capsys, "report", "--out", str(out))
    assert status == 0 and err.count("\n") == 1
    assert f"matplotlib {drawn_with} drew the same figures (this is 0.0.1); --redraw-figures" in err
    status, _, err = _run(capsys, "report", "--out", str(out), "--redraw-figures")
    assert status == 0 and err == ""
    assert report.recorded_matplotlib_version((out / "README.md").read_text(encoding="utf-8")) == "0.0.1"


def test_report_refreshes_the_readme_in_the_same_run(capsys, tmp_path: Path, fake_catalog: None) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{headlines.START}\nold\n{headlines.END}\n", encoding="utf-8")
    status, out, _ = _run(capsys, "report", "--out", str(tmp_path / "out"), "--readme", str(readme))
    assert status == 0 and "refreshed the headline findings" in out
    assert "[T.1](reports/document-000.md#t1) One." in readme.read_text(encoding="utf-8")


def test_report_refuses_to_replace_a_users_file_before_any_work(
    capsys, tmp_path: Path, fake_catalog: None, nothing_rendered: None
) -> None:
    (tmp_path / "README.md").write_text("my notes", encoding="utf-8")
    status, out, err = _run(capsys, "report", "--out", str(tmp_path))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and f"{tmp_path / 'README.md'} was not written by pe-verify" in err
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "my notes"


@pytest.mark.parametrize("unwritable", ["out", "README.md"])
def test_report_on_what_cannot_be_written_fails_before_any_work(
    capsys, tmp_path: Path, monkeypatch, fake_catalog: None, nothing_rendered: None, unwritable: str
) -> None:
    (tmp_path / "out").mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"{headlines.START}\n{headlines.END}\n", encoding="utf-8")
    monkeypatch.setattr(publish.os, "access", lambda path, mode: Path(path).name != unwritable)
    status, _, err = _run(capsys, "report", "--out", str(tmp_path / "out"), "--readme", str(readme))
    assert status == 3
    assert err.count("\n") == 1 and f"not writable, so nothing was written: {tmp_path / unwritable}" in err


def test_report_refuses_a_readme_inside_the_output_folder(
    capsys, tmp_path: Path, nothing_rendered: None
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"{headlines.START}\n{headlines.END}\n", encoding="utf-8")
    status, _, err = _run(capsys, "report", "--out", str(tmp_path), "--readme", str(readme))
    assert status == 2 and "lies inside --out" in err


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
