"""The committed pages read summaries first: each document page opens with its summaries in Korean and
English, then its table of claims (document 003 with its three proofs beside the theorems proved in their
place between them), every derivation stands in full exactly once, on the derivations page, and no
document page runs over 1 000 lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_verify.claims import catalog
from pe_verify.proofs import all_derivations
from pe_verify.reporting import report
from pe_verify.reporting.markdown import github_slug

REPORTS = Path(__file__).parents[2] / "reports"
LONGEST = 1000


def _pages() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(REPORTS.glob("*.md"))}


def _claim_pages() -> list[str]:
    return [name for name in _pages() if name.startswith("document-") or name == report.BEYOND]


def too_long(pages: dict[str, str], longest: int = LONGEST) -> list[str]:
    """The claim pages (document pages and the general one) over `longest` lines."""
    return [
        f"{name}: {len(text.splitlines())} lines"
        for name, text in pages.items()
        if (name.startswith("document-") or name == report.BEYOND) and len(text.splitlines()) > longest
    ]


def full_forms(pages: dict[str, str]) -> dict[str, list[str]]:
    """Each derivation id → the pages showing it in full (its heading, as `render_markdown` writes it)."""
    found: dict[str, list[str]] = {item.id: [] for item in all_derivations()}
    for name, text in pages.items():
        for derivation_id in re.findall(r"^### .*\(`([^`]+)`\)$", text, flags=re.MULTILINE):
            found.setdefault(derivation_id, []).append(name)
    return found


def first_section(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("## "))


def test_no_claim_page_runs_over_a_thousand_lines() -> None:
    assert not too_long(_pages())


def test_a_page_over_the_limit_is_named() -> None:
    assert too_long({"document-009.md": "x\n" * 1001, "derivations.md": "x\n" * 5000}) == [
        "document-009.md: 1001 lines"
    ]


def test_every_derivation_stands_in_full_exactly_once_on_the_derivations_page() -> None:
    found = full_forms(_pages())
    assert {name: pages for name, pages in found.items() if pages != [report.DERIVATIONS]} == {}


def test_a_derivation_printed_twice_or_never_is_found() -> None:
    heading = "### A shift of the sinusoidal encoding is a fixed linear map (`sinusoidal.offset_matrix`)"
    found = full_forms({"derivations.md": heading, "document-000.md": heading})
    assert found["sinusoidal.offset_matrix"] == ["derivations.md", "document-000.md"]
    assert found["uniqueness.one_coordinate"] == []


@pytest.mark.parametrize("name", _claim_pages())
def test_each_claim_page_opens_with_its_summary(name: str) -> None:
    text = _pages()[name]
    proofs = [proof for proof in catalog.document_proofs() if f'<a id="{github_slug(proof.claim)}">' in text]
    table = f"## {report.CLAIMS_TABLE}"
    if name == report.BEYOND:
        assert first_section(text) == table
        return
    assert first_section(text) == "## 요약"
    order = ["## 요약", "## Summary", *(["## The document's proofs"] if proofs else []), table]
    assert [line for line in text.splitlines() if line in order] == order


def test_document_003_sets_its_three_proofs_beside_the_theorems_proved_in_their_place() -> None:
    text = _pages()["document-003.md"]
    listed = text.split("## The document's proofs\n", 1)[1].split(f"## {report.CLAIMS_TABLE}", 1)[0]
    items = ["- **" + item for item in listed.split("\n- **")[1:]]
    proofs = catalog.document_proofs()
    assert [item.split(" (", 1)[0] for item in items] == [f"- **{proof.name}**" for proof in proofs]
    for item, proof in zip(items, proofs, strict=True):
        assert f"[{proof.claim}](document-003.md#" in item.splitlines()[0]
        assert item.count("\n  - proved in its place: [") == len(proof.proved_instead)
        assert item.count("](derivations.md#") == len(proof.proved_instead)
    assert "if and only if 4 divides d" in items[2]
