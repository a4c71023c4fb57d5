"""`pe-verify atlas` (`pe_verify.atlas`): a fresh run writes the committed record byte for byte where the
libraries the `libraries` extra pins are installed (skipped elsewhere); each citation is the line of the
installed library's source it names; every defect of the record is cited and every citation used; the
record keeps no measurement and validates against its published schema; `--record` replaces an atlas record
only; the page needs the record alone."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest
from json_documents import schemas

from pe_verify import atlas, check, cli
from pe_verify.reporting import libraries, report

RECORD = libraries.read_record()
ROOT = Path(__file__).resolve().parents[2]


def _at_pinned_version(library: str) -> bool:
    try:
        return importlib.metadata.version(library) == atlas.pinned_versions().get(library)
    except importlib.metadata.PackageNotFoundError:
        return False


def _installed_file(relative: str) -> Path:
    """A file of an installed library, by its path relative to the folder the library is installed in."""
    spec = importlib.util.find_spec(relative.split("/")[0])
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parents[1] / relative


@pytest.mark.parametrize("cited", atlas.CITATIONS, ids=lambda c: f"{c.library}:{c.path}:{c.line}")
def test_each_citation_is_the_line_of_the_installed_source(cited: atlas.Citation) -> None:
    if not _at_pinned_version(cited.library):
        pytest.skip(f"{cited.library} is not installed at the version the libraries extra pins")
    lines = _installed_file(cited.path).read_text(encoding="utf-8").splitlines()
    assert cited.line <= len(lines) and cited.snippet in lines[cited.line - 1], (
        f"{cited.path}:{cited.line} holds {lines[cited.line - 1]!r}" if cited.line <= len(lines) else cited
    )


def test_every_defect_of_the_record_is_cited_and_every_citation_is_used() -> None:
    cited = [
        (entry["library"], finding["label"], finding["citation"])
        for entry in RECORD["implementations"]
        for finding in entry["findings"]
        if finding["defect"]
    ]
    assert all(citation is not None for _, _, citation in cited), "a defect no line is cited for"
    used = {(library, label, citation["path"], citation["line"]) for library, label, citation in cited}
    assert used == {(c.library, c.label, c.path, c.line) for c in atlas.CITATIONS}


def test_a_citation_needs_its_cause_in_the_message() -> None:
    assert atlas.citation("x-transformers", "raises", "raised ZeroDivisionError: division by zero")
    assert atlas.citation("x-transformers", "raises", "raised TypeError: takes 3 arguments") is None
    assert atlas.citation("diffusers", "raises", "raised ZeroDivisionError") is None


def test_the_record_keeps_no_measurement() -> None:
    parameters = {
        "layout": "interleaved",
        "base": 10000.0,
        "attention_factor": 1.13863,
        "rotary_fraction": 0.5,
    }
    assert atlas.platform_free(parameters, matches=True) == {
        "layout": "interleaved",
        "base": 10000.0,
        "rotary_fraction": 0.5,
    }
    fitted = {"closest": "linear", "factor": 1.00031, "rotary_fraction": 1.0, "d": 128}
    assert atlas.platform_free(fitted, matches=False) == {
        "closest": "linear",
        "rotary_fraction": 1.0,
        "d": 128,
    }
    text = json.dumps(RECORD)
    assert all(word not in text for word in ("deviation", "counterexample", "attention_factor"))


def test_the_repository_keeps_the_record_the_page_reads() -> None:
    assert ROOT / libraries.IN_REPOSITORY == libraries.RECORD


def test_record_replaces_an_atlas_record_only(tmp_path: Path) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"format": "mine"}\n', encoding="utf-8")
    assert cli.main(["--quiet", "atlas", "--record", str(notes)]) == cli.EXIT_USAGE
    assert notes.read_text(encoding="utf-8") == '{"format": "mine"}\n'
    assert cli.main(["--quiet", "atlas", "--record", str(tmp_path / "absent" / "x.json")]) == cli.EXIT_USAGE
    assert not atlas.replaceable(tmp_path)
    (tmp_path / "link.json").symlink_to(libraries.RECORD)
    assert not atlas.replaceable(tmp_path / "link.json")
    assert atlas.replaceable(tmp_path / "new.json") and atlas.replaceable(libraries.RECORD)


def test_a_library_missing_or_at_another_version_is_a_usage_error(monkeypatch, capsys) -> None:
    pins = atlas.pinned_versions()

    def version(name: str) -> str:
        if name == "diffusers":
            raise importlib.metadata.PackageNotFoundError(name)
        return "0.0.1" if name == "torchtune" else pins[name]

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert cli.main(["--quiet", "atlas"]) == cli.EXIT_USAGE
    printed = capsys.readouterr()
    assert not printed.out and printed.err.count("\n") == 1
    assert "diffusers is not installed" in printed.err
    assert f"torchtune 0.0.1 is installed, the extra pins {pins['torchtune']}" in printed.err


def test_a_record_is_written_all_at_once_with_the_mode_it_had(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    atlas.write_record(path, atlas.record_text(RECORD))
    path.chmod(0o640)
    atlas.write_record(path, atlas.record_text(RECORD))
    assert path.read_text(encoding="utf-8") == libraries.RECORD.read_text(encoding="utf-8")
    assert path.stat().st_mode & 0o777 == 0o640 and [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_the_page_is_rendered_from_the_record_alone() -> None:
    page = libraries.libraries_page(RECORD, report.MARKER, report.DASHBOARD)
    assert all(f"## {name} {version}\n" in page for name, version in RECORD["libraries"].items())
    assert all(f"`{c.path}:{c.line}`" in page for c in atlas.CITATIONS)
    assert libraries.UNCONFIRMED not in page
    entry = next(e for e in RECORD["implementations"] if any(f["defect"] for f in e["findings"]))
    unconfirmed = {
        **entry,
        "findings": [{**f, "citation": None} if f["defect"] else f for f in entry["findings"]],
    }
    record = {**RECORD, "implementations": [unconfirmed]}
    assert libraries.UNCONFIRMED in libraries.libraries_page(record, report.MARKER, report.DASHBOARD)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_a_fresh_run_writes_the_committed_record_byte_for_byte() -> None:
    """Where the libraries are installed at their pinned versions (CI's libraries step)."""
    try:
        atlas.library_versions()
    except atlas.AtlasError as exc:
        pytest.skip(str(exc))
    fresh = atlas.run_atlas(check.load_target)
    differ = [
        f"{new['target']} ({new['settings'].get('dtype')})"
        for new, old in zip(fresh["implementations"], RECORD["implementations"], strict=False)
        if new != old
    ]
    assert atlas.record_text(fresh) == libraries.RECORD.read_text(encoding="utf-8"), (
        f"the atlas record differs ({differ or 'in its list of implementations'}): run "
        f"`pe-verify atlas --record {libraries.IN_REPOSITORY}`, read the change and commit it"
    )


ATLAS_SCHEMA = jsonschema.Draft202012Validator(schemas()["atlas.schema.json"])


def _without_implementations(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "implementations"}


def _a_property_passed_as_text(record: dict) -> dict:
    first = record["implementations"][0]
    properties = [{**first["properties"][0], "passed": "yes"}, *first["properties"][1:]]
    rest = record["implementations"][1:]
    return {**record, "implementations": [{**first, "properties": properties}, *rest]}


def test_the_committed_record_validates_against_the_published_schema() -> None:
    ATLAS_SCHEMA.validate(RECORD)
    assert schemas()["atlas.schema.json"]["properties"]["format"] == {"const": libraries.FORMAT}


@pytest.mark.parametrize("broken", [_without_implementations, _a_property_passed_as_text])
def test_a_record_missing_a_field_or_of_the_wrong_type_does_not_validate(broken) -> None:
    with pytest.raises(jsonschema.ValidationError):
        ATLAS_SCHEMA.validate(broken(RECORD))
