"""Every link and image of the committed report pages resolves: the file exists in the repository, a line
number lies within the file, an anchor is a heading or explicit anchor of the page it names. Broken twins
of each kind are reported; links in code are not links."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from pe_verify.reporting.page_links import link_problems, page_anchors, unresolved_links

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"

#: The head of the page the twins are written into (`reports/page.md`).
HEAD = '# Page\n\n## Claim D0.1\n\n## 왜 sin인가\n\n<a id="kept"></a>\n\n'


def test_every_link_of_the_committed_pages_resolves() -> None:
    assert (REPORTS / "README.md").is_file()
    problems = unresolved_links(REPORTS)
    assert not problems, "\n".join(problems)


def test_every_link_of_the_readme_and_the_docs_resolves() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    anchors = {page: page_anchors(page.read_text(encoding="utf-8")) for page in pages}
    problems = [
        p for page in pages for p in link_problems(page, page.read_text(encoding="utf-8"), anchors, ROOT)
    ]
    assert len(pages) > 1 and not problems, "\n".join(problems)


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """A repository with a three-line entry, and a reports folder holding a figure and a page `other.md`
    whose heading `Section` is repeated (anchors section and section-1)."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "entry.py").write_text("a = 1\nb = 2\nc = 3\n", encoding="utf-8")
    folder = tmp_path / "reports"
    (folder / "figures").mkdir(parents=True)
    (folder / "figures" / "plot.png").write_bytes(b"\x89PNG")
    (folder / "other.md").write_text("# Other\n\n## Section\n\ntext\n\n## Section\n", encoding="utf-8")
    return folder


def problems_of(folder: Path, body: str) -> list[str]:
    """The problems `link_problems` finds on `reports/page.md` holding `HEAD` and then `body`."""
    text = HEAD + body
    anchors = {path: page_anchors(path.read_text(encoding="utf-8")) for path in folder.glob("*.md")}
    page = folder / "page.md"
    return link_problems(page, text, {**anchors, page: page_anchors(text)}, folder.parent)


BROKEN = {
    "missing anchor": ("[D0.2](#claim-d02)", "no heading or anchor #claim-d02 on page.md"),
    "missing file": ("[page](missing.md)", "no such file"),
    "missing image": ("![plot](figures/absent.png)", "no such file"),
    "image inside a link": ("[![plot](figures/absent.png)](other.md)", "no such file"),
    "line past the end": ("[entry](../claims/entry.py#L4)", "line 4 outside entry.py (3 lines)"),
    "line range past the end": ("[entry](../claims/entry.py#L2-L9)", "line 9 outside entry.py (3 lines)"),
    "line zero": ("[entry](../claims/entry.py#L0)", "line 0 outside entry.py"),
    "heading missing on another page": ("[x](other.md#nothing)", "no heading or anchor #nothing on other.md"),
    "third repeat of a heading": ("[x](other.md#section-2)", "no heading or anchor #section-2 on other.md"),
    "fragment on a source file": ("[entry](../claims/entry.py#main)", "neither a line"),
    "outside the repository": ("[x](../../elsewhere.md)", "outside the repository"),
    "inside a details block": (
        "<details><summary>More</summary>\n\n[D0.2](#claim-d02)\n\n</details>",
        "no heading or anchor #claim-d02",
    ),
    "heading inside a fence": ("```\n# Fenced\n```\n\n[x](#fenced)", "no heading or anchor #fenced"),
    "after a code span of three backticks": ("```x``` is code, no fence\n\n[x](#gone)", "#gone"),
    "after a closed fence": ("````python\ncode\n`````\n\n[x](#gone)", "#gone"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_link_is_reported(reports: Path, name: str) -> None:
    link, reason = BROKEN[name]
    problems = problems_of(reports, f"Before.\n\n{link}\n\nAfter.\n")
    assert len(problems) == 1 and reason in problems[0], problems


def test_a_problem_names_the_page_line_and_target(reports: Path) -> None:
    assert problems_of(reports, "one\n\n[D0.2](#claim-d02)\n") == [
        "page.md:11: #claim-d02: no heading or anchor #claim-d02 on page.md"
    ]


RESOLVING = {
    "own heading": "[D0.1](#claim-d01)",
    "own explicit anchor": "[kept](#kept)",
    "own heading, percent-encoded": f"[why](#{quote('왜-sin인가')})",
    "another page": "[other](other.md)",
    "another page's heading": "[x](other.md#section)",
    "a repeated heading's -1 anchor": "[x](other.md#section-1)",
    "image": "![plot](figures/plot.png)",
    "last line": "[entry](../claims/entry.py#L3)",
    "line range": "[entry](../claims/entry.py#L1-L3)",
    "absolute URLs": "[x](https://example.org/a#b) [y](http://example.org) [z](mailto:a@example.org)",
    "code span": "`[x](#gone)`",
    "code span with a backtick inside": "`` a ` [x](#gone) ``",
    "fenced block": "```markdown\n[x](#gone)\n```",
    "tilde fence": "~~~\n[x](#gone)\n~~~",
    "fence around a shorter fence": "````\n```\n[x](#gone)\n```\n````",
    "fence left open": "```\n[x](#gone)",
}


@pytest.mark.parametrize("name", RESOLVING)
def test_a_resolving_link_or_one_in_code_is_not_reported(reports: Path, name: str) -> None:
    assert problems_of(reports, f"Before.\n\n{RESOLVING[name]}\n\nAfter.\n") == []


def test_the_folder_check_reads_every_page_of_the_folder_and_no_subfolder(reports: Path) -> None:
    (reports / "page.md").write_text(HEAD + "[x](other.md#gone)\n", encoding="utf-8")
    (reports / "figures" / "notes.md").write_text("[x](#gone)\n", encoding="utf-8")
    assert unresolved_links(reports) == ["page.md:9: other.md#gone: no heading or anchor #gone on other.md"]
