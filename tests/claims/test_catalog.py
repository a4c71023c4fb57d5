"""The catalog as a whole: every inventory id present, ids unique, dependencies resolvable, and every entry's
computed verdicts equal to the ones it records."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from pe_verify.claims import catalog
from pe_verify.claims.catalog import UnknownClaim, all_claims, assessment, broken_links, get
from pe_verify.claims.model import (
    AGGREGATE,
    ARGUMENT_VERDICTS,
    BEYOND,
    CITATION,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    FLOAT,
    REFUTES,
    VERDICTS,
    DocumentProof,
    Evidence,
    Source,
    cited,
)

INVENTORY = (
    [f"D0.{n}" for n in range(1, 19)] + [f"D1.{n}" for n in range(1, 9)] + [f"D3.{n}" for n in range(1, 13)]
)
CLAIMS = all_claims()
IDS = [item.id for item in CLAIMS]
DERIVATIONS = catalog.all_derivations()


def test_every_inventory_id_has_an_entry() -> None:
    assert sorted(set(INVENTORY) - set(IDS)) == []


def test_ids_are_unique() -> None:
    assert len(IDS) == len(set(IDS))


def test_every_dependency_exists_and_is_not_the_claim_itself() -> None:
    for item in CLAIMS:
        assert set(item.depends_on) <= set(IDS), item.id
        assert item.id not in item.depends_on


def test_dependencies_have_no_cycle() -> None:
    graph = {item.id: item.depends_on for item in CLAIMS}
    state: dict[str, str] = {}

    def visit(node: str) -> None:
        assert state.get(node) != "open", f"cycle through {node}"
        if state.get(node) == "done":
            return
        state[node] = "open"
        for child in graph[node]:
            visit(child)
        state[node] = "done"

    for node in graph:
        visit(node)


def test_recorded_verdicts_use_the_vocabulary() -> None:
    for item in CLAIMS:
        assert item.expected in VERDICTS, item.id
        assert item.expected_argument is None or item.expected_argument in ARGUMENT_VERDICTS, item.id


@pytest.mark.parametrize("claim_id", IDS)
def test_computed_verdicts_are_the_recorded_ones(claim_id: str) -> None:
    item, found = get(claim_id), assessment(claim_id)
    everything = found.evidence + found.argument_evidence
    outcomes = "\n".join(f"{e.kind}, {e.bearing}, holds={e.holds}: {e.summary}" for e in everything)
    assert found.evidence, "every entry runs at least one check"
    assert found.explanation.strip()
    assert all(isinstance(e.holds, bool) for e in everything)
    assert (found.verdict, found.argument_verdict) == (item.expected, item.expected_argument), outcomes


def test_unknown_ids_suggest_the_closest() -> None:
    with pytest.raises(UnknownClaim, match=r"did you mean one of .*D3\.5"):
        get("D3.55")
    assert get("d3.5").id == "D3.5"


def test_a_failing_derivation_unsettles_the_claim_that_cites_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from pe_verify.claims import evidence
    from pe_verify.claims.model import UNSETTLED

    cited = "sinusoidal.offset_matrix"
    real = evidence.verification
    failed = replace(real(cited), steps=tuple(replace(s, holds=False) for s in real(cited).steps))
    monkeypatch.setattr(evidence, "verification", lambda name: failed if name == cited else real(name))
    assert get("D0.8").assess().verdict == UNSETTLED


def test_every_citation_resolves() -> None:
    assert broken_links() == []


@pytest.mark.skipif(
    not os.environ.get(catalog.DOCUMENTS_ENVIRONMENT),
    reason=f"the documents are not at hand (set {catalog.DOCUMENTS_ENVIRONMENT} to their folder)",
)
def test_every_section_is_a_heading_of_its_document_and_the_documents_are_the_ones_read() -> None:
    assert broken_links(Path(os.environ[catalog.DOCUMENTS_ENVIRONMENT])) == []


def test_a_mistyped_dependency_derivation_or_figure_id_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    first, *rest = CLAIMS
    mistyped = dataclasses.replace(first, depends_on=("D9.9",))
    monkeypatch.setattr(catalog, "all_claims", lambda: (mistyped, *rest))
    monkeypatch.setattr(catalog, "ILLUSTRATES", {"wavelengths.png": ("D0.44",)})
    cited = {item.id for item in catalog.all_derivations()} - {"alibi.offset_only"}
    monkeypatch.setattr(catalog, "all_derivations", lambda: [d for d in DERIVATIONS if d.id in cited])
    proof = DocumentProof("Proof 9", "D3.99", ("uniqueness.no_such",))
    monkeypatch.setattr(catalog, "document_proofs", lambda: (proof,))
    monkeypatch.delitem(catalog.TITLES, "001_8f1b66f67cfe018c.txt")
    assert broken_links() == [
        f"{first.id}: depends on 'D9.9', which is no claim",
        "document_000.py: cites derivation 'alibi.offset_only', which is no derivation",
        "document_001.py: cites derivation 'alibi.offset_only', which is no derivation",
        "document_003.py: cites derivation 'alibi.offset_only', which is no derivation",
        "Proof 9: judged by 'D3.99', which is no claim",
        "Proof 9: proved instead by 'uniqueness.no_such', which is no derivation",
        "figure wavelengths.png: illustrates 'D0.44', which is no claim",
        "001_8f1b66f67cfe018c.txt: has no title in TITLES",
    ]


def test_documents_other_than_the_ones_read_are_reported(tmp_path: Path) -> None:
    for name in catalog.DOCUMENTS:
        (tmp_path / name).write_text("another text\n", encoding="utf-8")
    found = broken_links(tmp_path)
    assert [line for line in found if "SHA-256" in line] == [
        f"{name}: its SHA-256 is not the one the entries were written against" for name in catalog.DOCUMENTS
    ]
    cited = [item for item in CLAIMS if item.source.document in catalog.DOCUMENTS]
    headed = [item for item in cited if item.source.section != catalog.INTRODUCTION]
    assert len([line for line in found if "is not a line of" in line]) == len(headed) > 0
    titles = [line.split(": ", 1) for line in found if "title" in line]
    assert [name for name, _ in titles] == list(catalog.DOCUMENTS)
    assert [problem.split(" '", 1)[0] for _, problem in titles] == [
        "its chosen title",
        "its chosen title",
        "its first line is not its title",
    ]


def _record(*sources: Evidence) -> object:
    return cited(
        id="X.record",
        source=Source(BEYOND, "test"),
        statement="a cited statement",
        formal=r"\text{(fact)}",
        expected=CONFIRMED_BY_SOURCES,
        sources=sources,
        explanation="cited",
    )


def test_a_cited_record_holds_citations_only_and_stands_where_it_is_written() -> None:
    line = _record.__code__.co_firstlineno + 1
    record = _record(Evidence(CITATION, "a source that agrees", True))
    assert record.defined_at == (__name__, line) and catalog.location(record)[1] == line
    assert record.assess().verdict == CONFIRMED_BY_SOURCES
    against = _record(Evidence(CITATION, "a source that disagrees", True, REFUTES))
    assert against.assess().verdict == CONTRADICTED_BY_SOURCES
    with pytest.raises(ValueError, match="citations only"):
        _record(Evidence(FLOAT, "a measurement", True))
    with pytest.raises(ValueError, match="citations only"):
        _record()


def test_entries_that_only_cite_are_records_and_functions_compute() -> None:
    """Function entries are for computed evidence; an entry whose evidence is all citations is a `cited`
    record (an aggregate, which gathers its rows' evidence, excepted)."""
    functions_that_only_cite = [
        item.id
        for item in all_claims()
        if item.defined_at is None
        and item.role != AGGREGATE
        and all(e.kind == CITATION for e in assessment(item.id).evidence)
        and not assessment(item.id).argument_evidence
        and assessment(item.id).reproduction is None
    ]
    assert functions_that_only_cite == []
