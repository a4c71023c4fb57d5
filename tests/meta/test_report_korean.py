"""The committed pages speak to the documents' readers: each document page is titled with the document's own
title and opens with its Korean and English summaries, whose counts agree; every claim has a Korean one-line
verdict whose verdict words come from the one mapping (`reporting.korean`), and a reason. Broken twins of
each check are found."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_verify.claims import catalog
from pe_verify.claims.model import Verdict
from pe_verify.reporting import korean, report

REPORTS = Path(__file__).parents[2] / "reports"
#: A table row's cells, split at the pipes a cell does not escape.
_CELL = re.compile(r"(?<!\\) \| ")
#: The Korean term of each argument verdict, by its English words as the table shows them.
ARGUMENT_TERMS = {str(verdict): term for verdict, term in korean.ARGUMENTS.items()}


def _pages() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(REPORTS.glob("*.md"))}


def _claim_pages() -> list[str]:
    return [name for name in _pages() if name.startswith("document-") or name == report.BEYOND]


def _document_pages() -> list[str]:
    return [name for name in _pages() if name.startswith("document-")]


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of a page's table of its claims."""
    table = text.split(f"## {report.CLAIMS_TABLE}\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [_CELL.split(row.strip("| ")) for row in table[2:]]


def korean_problems(text: str) -> list[str]:
    """Each row of the page's claims table whose Korean one-line verdict is missing its reason or does not
    open with the Korean terms (`korean.VERDICTS`, `korean.ARGUMENTS`) of the row's verdict and argument."""
    problems = []
    for claim, verdict, line, _ in table_rows(text):
        claim_id = re.match(r"\[([^\]]+)\]", claim).group(1)
        found, _, argument = verdict.partition(" · argument ")
        term = korean.VERDICTS[Verdict(found)]
        if argument:
            term += f" · 논증 {ARGUMENT_TERMS[argument]}"
        if not line.startswith(f"**{term}**"):
            problems.append(f"{claim_id}: {line.split(' — ', 1)[0]} is not **{term}**")
        elif not line.removeprefix(f"**{term}**").removeprefix(" — ").strip():
            problems.append(f"{claim_id}: no Korean reason")
    return problems


def _counted_parts(line: str) -> list[str]:
    return line.split(": ", 1)[1].removesuffix(".").split(", ")


def summary_counts(text: str) -> tuple[dict[str, int], dict[str, int]]:
    """The verdict counts the Korean and the English summary open with, each by the English verdict."""
    korean_line = text.split("## 요약\n\n", 1)[1].splitlines()[0]
    english_line = text.split("## Summary\n\n", 1)[1].splitlines()[0]
    english_of = {term: str(verdict) for verdict, term in korean.VERDICTS.items()}
    korean_counts = {
        english_of[term]: int(count.removesuffix("건"))
        for term, count in (part.rsplit(" ", 1) for part in _counted_parts(korean_line))
    }
    english_counts = {
        verdict: int(count)
        for count, verdict in (part.split(" ", 1) for part in _counted_parts(english_line))
    }
    return korean_counts, english_counts


@pytest.mark.parametrize("name", _claim_pages())
def test_every_claim_has_a_korean_one_line_verdict_in_the_mappings_words(name: str) -> None:
    text = _pages()[name]
    rows = table_rows(text)
    assert len(rows) == text.count('## <a id="') > 0
    assert korean_problems(text) == []


def test_a_row_without_a_korean_reason_or_with_other_words_is_found() -> None:
    text = _pages()["document-003.md"]
    rows = [line for line in text.splitlines() if line.startswith("| [D3.")]
    proved, caveat = rows[0], next(row for row in rows if "| holds with caveat |" in row)
    without = proved.split(" — ", 1)[0] + " | " + proved.rsplit(" | ", 1)[1]
    other = caveat.replace("**조건부 성립**", "**증명됨**")
    broken = text.replace(proved, without).replace(caveat, other)
    assert korean_problems(broken) == ["D3.1: no Korean reason", "D3.3b: **증명됨** is not **조건부 성립**"]


def test_every_catalog_entry_holds_its_korean_reason() -> None:
    assert [item.id for item in catalog.all_claims() if not item.why_ko.strip()] == []


@pytest.mark.parametrize("name", _document_pages())
def test_each_document_page_is_titled_with_its_document_and_opens_with_both_summaries(name: str) -> None:
    text = _pages()[name]
    (document,) = [file for file in catalog.DOCUMENTS if report.page_name(file) == name]
    title = catalog.TITLES[document]
    assert text.splitlines()[2] == f"# {title.text}"
    assert f"`{document}`" in text.splitlines()[4]
    if title.chosen_en:
        assert f"*{title.chosen_ko}*" in text and f"*{title.chosen_en}*" in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## 요약", "## Summary"]
    korean_counts, english_counts = summary_counts(text)
    assert korean_counts == english_counts and sum(english_counts.values()) > 0


def test_summaries_whose_counts_differ_are_found() -> None:
    text = _pages()["document-003.md"]
    korean_line = text.split("## 요약\n\n", 1)[1].splitlines()[0]
    first = re.search(r": \S+ (\d+건)", korean_line).group(1)
    changed = korean_line.replace(first, f"{int(first[:-1]) + 1}건", 1)
    korean_counts, english_counts = summary_counts(text.replace(korean_line, changed))
    assert korean_counts != english_counts
