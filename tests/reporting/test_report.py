"""The markdown reports and figures, on a small fake catalog with one claim of every verdict.

What the pages and the dashboard must contain, that regeneration is byte-identical, that the folder is
replaced all at once (a failure or a kill leaves the old files, with the README refreshed alongside or not
at all), that files the report did not write are never replaced or removed, and that a changed piece of
evidence changes the dashboard's counts.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib
import matplotlib.figure
import numpy as np
import pytest

from pe_verify.claims import catalog
from pe_verify.claims.evidence import from_derivation
from pe_verify.claims.model import (
    AGGREGATE,
    CAVEAT,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CORROBORATES,
    DIGITS,
    EXACT,
    FACTUAL_VERDICTS,
    FINITE,
    FLAWED,
    FLOAT,
    LIMITS,
    MATHEMATICAL_VERDICTS,
    NUMERIC,
    PROVED,
    QUESTION,
    REFUTED,
    REFUTES,
    SOUND,
    STEP_CHECKED,
    STEP_FAILS,
    UNSETTLED,
    Assessment,
    Claim,
    DocumentProof,
    Evidence,
    Source,
    claim,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.reporting import derivations, figures, korean, models, publish, report, summaries

DOC0 = "000_fake0000.txt"
DOC1 = "001_fake0001.txt"
SECTION = "왜 하필 sin과 cos인가"

draw_figures = figures.draw_figures

#: Small enough to draw in a second or two; d = 512 keeps the exact-coincidence exclusion in play.
SMALL = figures.Scales(
    max_offset=3000,
    gap_scans=((6, (100, 1000)), (512, (100,))),
    dtype_positions=600,
)


@claim(
    id="F0.1",
    source=Source(DOC0, SECTION),
    statement="A shift of the encoding is a fixed linear map. It does not depend on the position.",
    formal=r"PE(p+k) = M_k\,PE(p)",
    expected=PROVED,
    expected_argument=SOUND,
    why_ko="각도 덧셈 유도의 모든 단계를 SymPy로 확인했다",
)
def f0_1() -> Assessment:
    return Assessment(
        (
            from_derivation("sinusoidal.offset_matrix"),
            Evidence(FLOAT, "float64, 100 seeded positions agree", True, CORROBORATES),
        ),
        "SymPy checks every step of the angle-addition derivation.",
        (Evidence(EXACT, "the document's step: the map is independent of p", True, STEP_CHECKED),),
    )


@claim(
    id="F0.2",
    source=Source(DOC0, "(introduction)"),
    statement="Every | cell-breaking claim is true for all k.",
    formal=r"\forall k:\ f(k) = 0",
    expected=REFUTED,
    expected_argument=FLAWED,
    depends_on=("F0.1", "F9.9"),
)
def f0_2() -> Assessment:
    witness = (("k", "7"), ("f(k)", "0.1234567890123456789"))
    return Assessment(
        (Evidence(EXACT, "f(7) ≠ 0 exactly", True, REFUTES, witness),),
        "At k = 7 the value is 0.1234567890123456789, not 0.",
        (Evidence(EXACT, "the step from f(1) = 0 to every k fails at k = 7", True, STEP_FAILS),),
    )


@claim(
    id="D0.7",
    source=Source(DOC0, SECTION),
    statement="Nearby positions have nearby vectors.",
    formal=r"\|PE(p+k) - PE(p)\| \text{ depends only on } k",
    expected=CAVEAT,
    expected_argument=CONDITIONS,
)
def d0_7() -> Assessment:
    return Assessment(
        (
            Evidence(FLOAT, "float64, 200 seeded offsets", True, detail=(("largest error", "1.0e-16"),)),
            Evidence(EXACT, "not monotone: k = 4 is closer than k = 3", True, LIMITS),
        ),
        "Holds for small k only.",
        (Evidence(EXACT, "monotonicity needs k below the shortest half-period", True, CONDITION_MISSING),),
    )


@claim(
    id="F1.1",
    source=Source(DOC1, "💻 코드 예제"),
    statement="The code agrees with the formula.",
    formal=r"\max |PE_{code} - PE| < 10^{-45}",
    expected=NUMERIC,
    depends_on=("F0.1",),
)
def f1_1() -> Assessment:
    return Assessment((Evidence(DIGITS, "mpmath 50 digits, positions < 10^3", True),), "Agrees to 45 digits.")


@claim(
    id="F1.2",
    source=Source(DOC1, "💻 코드 예제"),
    statement="The code's shapes agree for every length.",
    formal=r"\text{shape}(x + pe) = \text{shape}(x)",
    expected=FINITE,
)
def f1_2() -> Assessment:
    return Assessment(
        (Evidence(EXACT, "exact run", True, instances="L = 1, 8, 512"),), "Checked on 3 lengths."
    )


@claim(
    id="G.1",
    source=Source("RoFormer (arXiv 2104.09864)", "§3.4.3"),
    statement="A model uses this encoding.",
    formal=r"\text{attribution}",
    expected=CONFIRMED_BY_SOURCES,
)
def g_1() -> Assessment:
    return Assessment((Evidence(CITATION, "the published config says so", True),), "Cited.")


@claim(
    id="G.2",
    source=Source("general", "low precision"),
    statement="A check that should hold.",
    formal=r"x = x",
    expected=UNSETTLED,
)
def g_2() -> Assessment:
    return Assessment((Evidence(FLOAT, "bfloat16, 100 positions", False),), "The check failed.")


FAKE: tuple[Claim, ...] = (f0_1, f0_2, d0_7, f1_1, f1_2, g_1, g_2)


@pytest.fixture(scope="module")
def small_scales() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(figures, "SCALES", SMALL)
        yield


@pytest.fixture(scope="module")
def plots(small_scales: None) -> tuple[figures.Plot, ...]:
    """The figures at the small scales, drawn once for the module."""
    return figures.draw_figures(SMALL)


@pytest.fixture(scope="module")
def reuse_plots(plots: tuple[figures.Plot, ...]) -> Iterator[None]:
    """Make the report reuse the drawn figures: tests of files and pages need not redraw them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(figures, "draw_figures", lambda scales: plots)
        yield


@pytest.fixture(scope="module")
def drawn(reuse_plots: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One report of the fake catalog."""
    out = tmp_path_factory.mktemp("report") / "out"
    report.write_reports(out, FAKE)
    return out


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def counts(dashboard: str, table: str = "verdict") -> dict[str, int]:
    """The rows of the counts table whose header starts with `table`, in order."""
    lines = dashboard.split(f"\n| {table} | claims |", 1)[1].split("\n\n", 1)[0].splitlines()
    return {
        value: int(number)
        for value, number in (re.match(r"\| (.+?) \| (\d+) \|", line).groups() for line in lines[2:])
    }


def all_files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


# ---------------------------------------------------------------------------------------------- contents


@pytest.mark.slow
def test_writes_the_dashboard_a_page_per_document_the_general_and_derivations_pages_and_figures(
    drawn: Path,
) -> None:
    names = set(all_files(drawn))
    pages = {"README.md", "document-000.md", "document-001.md", "beyond-the-documents.md", "derivations.md"}
    pictures = {
        f"figures/{name}"
        for name in (
            "encoding-heatmap.png",
            "wavelengths.png",
            "distance-by-offset.png",
            "near-collision-gap.png",
            "dtype-thresholds.png",
            "roformer-decay.png",
        )
    }
    assert names == pages | pictures


def test_dashboard_counts_every_verdict_in_vocabulary_order(drawn: Path) -> None:
    dashboard = read(drawn / "README.md")
    # The documents' own claims are counted; G.1 (confirmed by sources) and G.2 (unsettled) are counted apart.
    mathematical = [(verdict, int(verdict != UNSETTLED)) for verdict in MATHEMATICAL_VERDICTS]
    assert list(counts(dashboard).items()) == mathematical
    factual = list(counts(dashboard, "factual verdict").items())
    assert factual == [(verdict, 0) for verdict in FACTUAL_VERDICTS]
    assert "- claims beyond the documents: 2 claims: 1 confirmed by sources, 1 unsettled" in dashboard
    arguments = {SOUND: 1, CONDITIONS: 1, FLAWED: 1, UNSETTLED: 0, "—": 2}
    assert list(counts(dashboard, "argument").items()) == list(arguments.items())
    assert "Every computed verdict is the one its entry records." in dashboard


def test_dashboard_rows_link_each_claim_to_its_heading(drawn: Path) -> None:
    dashboard = read(drawn / "README.md")
    rows = re.findall(r"^\| \[([^\]]+)\]\(([^)#]+)#([^)]*)\) \| (.*) \|$", dashboard, flags=re.MULTILINE)
    assert [row[0] for row in rows] == [item.id for item in FAKE]
    for claim_id, page, anchor, _ in rows:
        assert f'\n## <a id="{anchor}"></a>{claim_id} · ' in read(drawn / page)
    row = dict((r[0], r) for r in rows)
    assert row["F0.1"][1:3] == ("document-000.md", "f01")
    assert row["F0.2"][3].endswith("| refuted | flawed | exact argument")
    assert r"Every \| cell-breaking claim is true for all k." in row["F0.2"][3]
    assert row["G.1"][3].endswith("| confirmed by sources | — | citation")
    assert row["D0.7"][3].endswith(f"| {CAVEAT} | {CONDITIONS} | {FLOAT}")
    assert "A shift of the encoding is a fixed linear map. |" in row["F0.1"][3]


def test_document_page_walks_its_claims_with_everything_they_carry(drawn: Path) -> None:
    page = read(drawn / "document-000.md")
    assert page.startswith(report.MARKER + "\n")
    headings = ["## 요약", "## Summary", "## Claims at a glance"]
    headings += [f'## <a id="f01"></a>F0.1 · {SECTION}', '## <a id="f02"></a>F0.2 · (도입부)']
    headings += [f'## <a id="d07"></a>D0.7 · {SECTION}']
    assert [line for line in page.splitlines() if line.startswith("## ")] == headings
    assert f"**Source:** `{DOC0}`, section “{SECTION}”" in page
    assert "$$PE(p+k) = M_k\\,PE(p)$$" in page
    assert (
        "**Verdict:** refuted · **Argument:** flawed — the step from f(1) = 0 to every k fails at k = 7"
        in page
    )
    assert "**Argument:** sound with unstated conditions — monotonicity needs" in page
    assert "fails at k = 7\\\n**판정:** **반증됨 · 논증 결함 있음**\n" in page
    assert "**판정:** **증명됨 · 논증 타당함** — 각도 덧셈 유도의 모든 단계를 SymPy로 확인했다\n" in page
    assert "| E1 | exact argument | true | refutes | f(7) ≠ 0 exactly |" in page
    assert "| A1 | exact argument | true | step fails |" in page
    assert "<details><summary>Values the checks computed (E1)</summary>" in page
    assert "  - f(k): `0.1234567890123456789`" in page
    assert "- [A shift of the sinusoidal encoding is a fixed linear map](derivations.md#" in page
    assert "(`sinusoidal.offset_matrix`), verified (" in page
    assert "### A shift" not in page and " ✓" not in page
    assert "**Depends on:** [F0.1](document-000.md#f01), F9.9 (not in the catalog)" in page
    assert "![Vector distance against offset](figures/distance-by-offset.png)" in page


def test_each_page_opens_with_its_summaries_then_its_table(drawn: Path) -> None:
    page = read(drawn / "document-000.md")
    assert page.index("## 요약") < page.index("## Summary") < page.index("## Claims at a glance")
    assert page.index("## Claims at a glance") < page.index("F0.1 · ")
    table = page.split("## Claims at a glance\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[0] == "| claim | verdict | 판정 | why |"
    assert table[2:] == [
        "| [F0.1](document-000.md#f01) A shift of the encoding is a fixed linear map. "
        "| proved · argument sound | **증명됨 · 논증 타당함** "
        "— 각도 덧셈 유도의 모든 단계를 SymPy로 확인했다 "
        "| SymPy checks every step of the angle-addition derivation. |",
        "| [F0.2](document-000.md#f02) Every \\| cell-breaking claim is true for all k. | refuted · argument "
        "flawed | **반증됨 · 논증 결함 있음** | At k = 7 the value is 0.1234567890123456789, not 0. |",
        "| [D0.7](document-000.md#d07) Nearby positions have nearby vectors. | holds with caveat · argument "
        "sound with unstated conditions | **조건부 성립 · 논증 숨은 조건 아래 타당함** "
        "| Holds for small k only. |",
    ]


def test_each_document_page_opens_with_its_summaries_in_korean_then_english(drawn: Path) -> None:
    page = read(drawn / "document-000.md")
    assert next(line for line in page.splitlines() if line.startswith("## ")) == "## 요약"
    korean = page.split("## 요약\n\n", 1)[1].split("\n## ", 1)[0]
    english = page.split("## Summary\n\n", 1)[1].split("\n## ", 1)[0]
    assert korean.splitlines() == [
        "이 글의 주장 3건: 증명됨 1건, 반증됨 1건, 조건부 성립 1건.",
        "",
        "- **증명됨**: [F0.1](document-000.md#f01)",
        "- [F0.2](document-000.md#f02) **반증됨**",
        "- [D0.7](document-000.md#d07) **조건부 성립**",
        "- 쓰인 그대로는 타당하지 않은 논증: [F0.2](document-000.md#f02) (결함 있음), "
        "[D0.7](document-000.md#d07) (숨은 조건 아래 타당함)",
    ]
    assert english.splitlines()[0] == "The document makes 3 claims: 1 proved, 1 refuted, 1 holds with caveat."
    assert "- [D0.7](document-000.md#d07) **holds with caveat** — Holds for small k only." in english
    assert "## 요약" not in read(drawn / "beyond-the-documents.md")


def test_a_summary_is_generated_from_the_computed_verdicts() -> None:
    failed = dataclasses.replace(
        f0_1.assess(), evidence=(Evidence(EXACT, "a counterexample", True, REFUTES),)
    )
    pairs = [(f0_1, failed), (g_1, g_1.assess())]
    found = summaries.page_summary(pairs, (), lambda claim_id: claim_id, summaries.KOREAN)
    assert found[2] == "이 글의 주장 2건: 반증됨 1건, 출처로 확인됨 1건."
    assert "- F0.1 **반증됨** — 계산된 판정이 항목에 기록된 판정(증명됨 · 논증 타당함)과 다르다" in found
    assert "- G.1 **출처로 확인됨**" not in found and "- **출처로 확인됨**: G.1" in found
    assert korean.verdict_line(f0_1, failed).endswith("과 다르다")
    assert korean.verdict_line(f0_1, f0_1.assess()).endswith("각도 덧셈 유도의 모든 단계를 SymPy로 확인했다")


def test_a_summary_row_states_a_long_claim_in_under_60_characters() -> None:
    long = dataclasses.replace(f0_1, statement="word " * 40 + "end.")
    row = summaries.summary_table([(long, f0_1.assess())], lambda claim_id: claim_id)[2]
    statement = row.split(" | ")[0].removeprefix(f"| {f0_1.id} ")
    assert len(statement) < 60 and statement.endswith("…")


def test_a_documents_proofs_stand_beside_the_theorems_proved_in_their_place(
    reuse_plots: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proof = DocumentProof("Proof 1: every k", "F0.2", ("sinusoidal.offset_matrix",))
    monkeypatch.setattr(catalog, "document_proofs", lambda: (proof,))
    report.write_reports(tmp_path, FAKE)
    page = read(tmp_path / "document-000.md")
    assert page.index("## Summary") < page.index("## The document's proofs") < page.index("## Claims at a")
    listed = page.split("- **Proof 1: every k**", 1)[1].split("\n\n", 1)[0]
    assert listed.startswith(
        " ([F0.2](document-000.md#f02)): Every | cell-breaking claim is true for all k.\n"
        "  - conclusion **refuted** · argument **flawed**\n"
        "  - the step that fails: **fails:** the step from f(1) = 0 to every k fails at k = 7\n"
        "  - proved in its place: [A shift of the sinusoidal encoding is a fixed linear map](derivations.md#"
    )
    row = listed.splitlines()[-1]
    assert (
        "- Proof 1: every k ([F0.2](document-000.md#f02)): conclusion **refuted**, argument **flawed**"
        in page
    )
    assert "- 「(도입부)」 ([F0.2](document-000.md#f02)): 결론 **반증됨**, 논증 **결함 있음**" in page
    anchor = re.search(r"\(derivations\.md#([^)]+)\)", row).group(1)
    assert anchor in {found for _, found in report.heading_anchors(read(tmp_path / "derivations.md"))}
    assert "## The document's proofs" not in read(tmp_path / "document-001.md")


def test_a_step_needing_an_unstated_condition_is_named_apart_from_a_failing_one() -> None:
    found = summaries.failing_steps(d0_7.assess())
    assert found == "**needs an unstated condition:** monotonicity needs k below the shortest half-period"
    assert summaries.failing_steps(f0_1.assess()) == "—"


def test_each_derivation_stands_in_full_once_on_the_derivations_page(drawn: Path) -> None:
    pages = {path.name: read(path) for path in drawn.glob("*.md")}
    heading = "### A shift of the sinusoidal encoding is a fixed linear map (`sinusoidal.offset_matrix`)"
    assert [name for name, text in pages.items() if heading in text] == ["derivations.md"]
    page = pages["derivations.md"]
    assert page.count(heading) == 1 and " ✓" in page and "**Result:** verified" in page
    assert "**Cited by:** [F0.1](document-000.md#f01)" in page


def test_a_derivation_cited_twice_is_listed_once_with_both_claims() -> None:
    cited = {
        "A": ["uniqueness.one_coordinate"],
        "B": ["uniqueness.one_coordinate", "sinusoidal.offset_matrix"],
    }
    found = derivations.citations(cited)
    assert list(found.items()) == [
        ("sinusoidal.offset_matrix", ["B"]),
        ("uniqueness.one_coordinate", ["A", "B"]),
    ]


def test_the_dashboard_says_what_the_suite_found_before_the_tables(drawn: Path) -> None:
    dashboard = read(drawn / "README.md")
    assert dashboard.index("## What the suite found") < dashboard.index("## Verdicts")
    found = dashboard.split("## What the suite found\n\n", 1)[1].split("\n## ", 1)[0]
    assert found.startswith(
        "The documents make 5 claims. Document 000: of its 3, 1 proved, 1 refuted, 1 holds with caveat. "
        "Document 001: of its 2, 1 verified on a finite range, 1 supported numerically.\n\n"
        "Refuted, by a computed counterexample: [F0.2](document-000.md#f02) (Every | cell-breaking claim is "
        "true for all k.).\n\n"
        "Of the 3 arguments the documents give: 1 sound, 1 sound with unstated conditions "
        "([D0.7](document-000.md#d07)), 1 flawed ([F0.2](document-000.md#f02)). Unsettled, a check that "
        "came out neither way (a defect to look at): [G.2](beyond-the-documents.md#g2).\n\n"
    )
    assert 5 <= len(re.findall(r"[.)]\s", found)) <= 10


def test_general_entries_and_second_document_get_their_own_pages(drawn: Path) -> None:
    beyond = read(drawn / "beyond-the-documents.md")
    assert "# Beyond the documents" in beyond and "></a>G.1 · " in beyond and "></a>G.2 · " in beyond
    assert "**Verdict:** confirmed by sources" in beyond
    assert "*corroborates*: a measurement cross-checking" in beyond
    assert "**Verdict:** unsettled" in beyond and "| E1 | floating-point experiment | false |" in beyond
    second = read(drawn / "document-001.md")
    assert f"# Document 001: `{DOC1}`" in second and "section “💻 코드 예제”" in second
    assert "**Depends on:** [F0.1](document-000.md#f01)" in second
    assert "**Argument:** —" in second


def test_every_figure_is_shown_on_the_dashboard_with_the_matplotlib_version(drawn: Path) -> None:
    dashboard = read(drawn / "README.md")
    for path in sorted((drawn / "figures").iterdir()):
        assert f"](figures/{path.name})" in dashboard
    assert dashboard.rstrip("\n").endswith(f"figures drawn with matplotlib {matplotlib.__version__}")
    assert report.recorded_matplotlib_version(dashboard) == matplotlib.__version__
    assert report.recorded_matplotlib_version("no footer") is None


def test_figures_are_our_pngs_without_stamps(drawn: Path, plots: tuple[figures.Plot, ...]) -> None:
    for plot in plots:
        png = (drawn / "figures" / plot.name).read_bytes()
        assert figures.is_ours(png)
        assert figures.png_text(png) == {"Source": figures.MARKER, figures.CONTENT: plot.content}
        assert b"Software" not in png and b"matplotlib" not in png.lower()
    assert figures.png_text(b"not a png") == {} and not figures.is_ours(b"\x89PNG tEXtSource")


def test_the_figure_names_known_before_drawing_are_those_drawn(plots: tuple[figures.Plot, ...]) -> None:
    assert [plot.name for plot in plots] + [models.FIGURE] == list(figures.ILLUSTRATES)
    names = [*(plot.name for plot in plots), models.FIGURE]
    assert report.output_names(FAKE)[-len(names) :] == [f"figures/{name}" for name in names]


def test_the_content_digest_changes_with_what_a_figure_states() -> None:
    digest = figures.content_digest("a.png", "Title", "Caption 1.")
    assert digest == figures.content_digest("a.png", "Title", "Caption 1.")
    changed = [("b.png", "Title", "Caption 1."), ("a.png", "Other", "Caption 1."), ("a.png", "Title", "C 2.")]
    assert all(figures.content_digest(*texts) != digest for texts in changed)


def _other_version(out: Path, version: str = "0.0.1") -> None:
    """Make the report in `out` look drawn by matplotlib `version`: its footer, and each figure replaced by
    a blank PNG with the same marker and content chunks (so that keeping and redrawing are told apart)."""
    dashboard = out / "README.md"
    footer = f"figures drawn with matplotlib {matplotlib.__version__}"
    dashboard.write_text(read(dashboard).replace(footer, f"figures drawn with matplotlib {version}"))
    for path in (out / "figures").iterdir():
        content = figures.png_text(path.read_bytes())[figures.CONTENT]
        path.write_bytes(figures.png_bytes(matplotlib.figure.Figure(figsize=(1, 1)), content))


def test_figures_drawn_the_same_by_another_matplotlib_are_kept(drawn: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(drawn, out)
    _other_version(out)
    before = all_files(out)
    report.write_reports(out, FAKE)
    assert all_files(out) == before
    assert report.recorded_matplotlib_version(read(out / "README.md")) == "0.0.1"
    report.write_reports(out, FAKE, redraw=True)
    assert all_files(out) == all_files(drawn)


def test_a_figure_is_drawn_once_and_only_when_its_png_is_asked_for() -> None:
    calls: list[int] = []
    plot = figures.Plot("x.png", "title", "caption", (), "digest", lambda: calls.append(1) or b"png")
    assert calls == []
    assert plot.png == b"png" and plot.png == b"png"
    assert calls == [1]


def test_figures_kept_from_another_matplotlib_are_never_drawn(
    drawn: Path, tmp_path: Path, plots: tuple[figures.Plot, ...]
) -> None:
    out = tmp_path / "out"
    shutil.copytree(drawn, out)
    _other_version(out)

    def undrawable() -> bytes:
        raise AssertionError("a kept figure was drawn")

    fresh = [dataclasses.replace(plot, draw=undrawable) for plot in plots]
    found = report.kept_figures(out, fresh)
    assert found is not None and found[0] == "0.0.1"
    assert [plot.png for plot in found[1]] == [(out / "figures" / p.name).read_bytes() for p in plots]


@pytest.mark.slow
@pytest.mark.parametrize("change", ["content", "missing", "same version"])
def test_figures_are_drawn_anew_unless_every_one_is_the_same(
    drawn: Path, tmp_path: Path, change: str
) -> None:
    out = tmp_path / "out"
    shutil.copytree(drawn, out)
    _other_version(out, matplotlib.__version__ if change == "same version" else "0.0.1")
    first = sorted((out / "figures").iterdir())[0]
    if change == "content":
        first.write_bytes(figures.png_bytes(matplotlib.figure.Figure(figsize=(1, 1)), "another digest"))
    elif change == "missing":
        first.unlink()
    report.write_reports(out, FAKE)
    assert all_files(out) == all_files(drawn)


def test_a_changed_verdict_is_flagged(reuse_plots: None, tmp_path: Path) -> None:
    changed = dataclasses.replace(f1_1, expected=PROVED)
    report.write_reports(tmp_path, (changed,))
    dashboard = read(tmp_path / "README.md")
    assert "F1.1 (expected proved / —, computed supported numerically / —)" in dashboard
    assert "(the entry expects *proved*: the computed verdict has changed)" in read(
        tmp_path / "document-001.md"
    )


# ------------------------------------------------------------------------------------- regeneration


@pytest.mark.slow
def test_regeneration_gives_identical_bytes(drawn: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(figures, "draw_figures", draw_figures)  # draw every figure again
        report.write_reports(again, FAKE)
    assert all_files(again) == all_files(drawn)


@pytest.mark.slow
def test_regeneration_in_another_process_gives_identical_bytes(drawn: Path, tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]); import test_report as t; "
        "from pe_verify.reporting import figures, report; figures.SCALES = t.SMALL; "
        "report.write_reports(Path(sys.argv[1]), t.FAKE)"
    )
    environment = dict(os.environ, PYTHONHASHSEED="12345")
    out = tmp_path / "other"
    subprocess.run(
        [sys.executable, "-c", script, str(out), str(Path(__file__).parent)], check=True, env=environment
    )
    assert all_files(out) == all_files(drawn)


def test_out_dir_is_created_and_nothing_outside_it_is_touched(reuse_plots: None, tmp_path: Path) -> None:
    (tmp_path / "neighbour.md").write_text("mine")
    out = tmp_path / "a" / "b"
    written = report.write_reports(out, FAKE)
    assert all(path.is_relative_to(out) for path in written)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "neighbour.md"]
    assert read(tmp_path / "neighbour.md") == "mine"
    assert set(written) == {path for path in out.rglob("*") if path.is_file()}


def test_writing_leaves_no_temporary_files(reuse_plots: None, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report.write_reports(out, FAKE)
    report.write_reports(out, FAKE)
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def siblings(folder: Path) -> list[Path]:
    """What a publication left beside the folder (its staging siblings)."""
    return sorted(folder.parent.glob(f".{folder.name}.pe-verify-*"))


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("README.md", b"# my own notes\n"),
        ("document-000.md", b"mine"),
        ("figures/wavelengths.png", b"\x89PNG mine"),
    ],
)
def test_a_file_of_the_users_where_a_report_file_goes_is_never_replaced(
    reuse_plots: None, tmp_path: Path, name: str, data: bytes
) -> None:
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / name).write_bytes(data)
    with pytest.raises(publish.ForeignFile, match=re.escape(name)):
        report.write_reports(out, FAKE)
    assert all_files(out) == {name: data} and not siblings(out)


def test_a_link_where_a_page_goes_is_not_ours(reuse_plots: None, drawn: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").symlink_to(drawn / "README.md")
    with pytest.raises(publish.ForeignFile, match=r"README\.md"):
        report.write_reports(out, FAKE)


def _failing_on(call: int, error: BaseException):
    real, calls = publish._write, []

    def write(path: Path, data: bytes) -> None:
        calls.append(path)
        if len(calls) == call:
            raise error
        real(path, data)

    return write


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failure_mid_write_leaves_the_old_report_and_nothing_else(
    reuse_plots: None, drawn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    out = tmp_path / "out"
    shutil.copytree(drawn, out)
    (out / "notes.md").write_text("mine")
    before = all_files(out)
    monkeypatch.setattr(publish, "_write", _failing_on(3, error))
    with pytest.raises(type(error)):
        report.write_reports(out, (f0_1, d0_7))
    assert all_files(out) == before and not siblings(out)


KILLED_RUN = """
import os, signal, sys
from pathlib import Path, PurePosixPath
from pe_verify.reporting import publish
real, calls = publish._write, []
def write(path, data):
    calls.append(path)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data)
publish._write = write
publish.publish(Path(sys.argv[1]), {"a.md": b"new a", "b.md": b"new b"}, lambda rel, path: True)
"""


def test_a_kill_mid_write_leaves_the_old_files_and_the_next_run_cleans_up(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.md").write_bytes(b"old a")
    (out / "b.md").write_bytes(b"old b")
    done = subprocess.run([sys.executable, "-c", KILLED_RUN, str(out)], check=False)
    assert done.returncode == -9
    assert all_files(out) == {"a.md": b"old a", "b.md": b"old b"} and len(siblings(out)) == 1
    publish.publish(out, {"a.md": b"new a", "b.md": b"new b"}, lambda relative, path: True)
    assert all_files(out) == {"a.md": b"new a", "b.md": b"new b"} and not siblings(out)


def test_extras_are_replaced_with_the_pages_or_not_at_all(
    reuse_plots: None, drawn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, readme = tmp_path / "out", tmp_path / "README.md"
    shutil.copytree(drawn, out)
    readme.write_bytes(b"old readme")
    before = all_files(out)

    def broken_replace(source: str, destination: str) -> None:
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(publish.os, "replace", broken_replace)
        with pytest.raises(OSError, match="Input/output"):
            report.write_reports(out, (f0_1,), {readme: b"new readme"})
    assert all_files(out) == before and readme.read_bytes() == b"old readme" and not siblings(out)
    report.write_reports(out, (f0_1,), {readme: b"new readme"})
    assert readme.read_bytes() == b"new readme" and sorted(p.name for p in out.glob("*.md")) == [
        "README.md",
        "derivations.md",
        "document-000.md",
    ]


def test_two_renames_stand_in_where_folders_cannot_be_exchanged(
    reuse_plots: None, drawn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish, "_exchange", publish._exchange_by_renames)
    out = tmp_path / "out"
    report.write_reports(out, FAKE)
    report.write_reports(out, FAKE)
    assert all_files(out) == all_files(drawn) and not siblings(out)


def test_a_folder_that_cannot_be_written_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(publish.os, "access", lambda path, mode: Path(path) != out)
    with pytest.raises(PermissionError, match="not writable"):
        report.check_output(out, FAKE)


def test_unknown_files_survive_and_stale_files_of_ours_are_removed(
    reuse_plots: None, drawn: Path, tmp_path: Path
) -> None:
    shutil.copytree(drawn, tmp_path, dirs_exist_ok=True)
    shutil.copy(tmp_path / "figures" / "wavelengths.png", tmp_path / "figures" / "old-figure.png")
    shutil.copy(tmp_path / "document-001.md", tmp_path / "document-002.md")
    unknown = {
        "notes.md": b"my notes",
        "document-999.md": b"# my own page with our kind of name\n",
        "figures/photo.png": b"\x89PNG\r\n\x1a\nnot ours",
        "figures/data.csv": b"1,2\n",
    }
    for name, data in unknown.items():
        (tmp_path / name).write_bytes(data)
    report.write_reports(tmp_path, FAKE)
    assert not (tmp_path / "figures" / "old-figure.png").exists()
    assert not (tmp_path / "document-002.md").exists()
    assert {name: (tmp_path / name).read_bytes() for name in unknown} == unknown


def test_pages_no_longer_written_are_removed(reuse_plots: None, tmp_path: Path) -> None:
    report.write_reports(tmp_path, FAKE)
    report.write_reports(tmp_path, (f0_1, d0_7))
    assert sorted(path.name for path in tmp_path.glob("*.md")) == [
        "README.md",
        "derivations.md",
        "document-000.md",
    ]


# ----------------------------------------------------------------------------------------- mutation


def test_changing_one_claims_evidence_changes_the_dashboard_counts(reuse_plots: None, tmp_path: Path) -> None:
    report.write_reports(tmp_path, FAKE)
    before = counts(read(tmp_path / "README.md"))
    counterexample_gone = dataclasses.replace(
        f0_2,
        assess=lambda: dataclasses.replace(
            f0_2.assess(),
            evidence=(Evidence(EXACT, "f(k) = 0 for every k", True),),
        ),
    )
    report.write_reports(tmp_path, (f0_1, counterexample_gone, d0_7, f1_1, f1_2, g_1, g_2))
    after = counts(read(tmp_path / "README.md"))
    assert after == before | {REFUTED: before[REFUTED] - 1, PROVED: before[PROVED] + 1}


def test_questions_and_aggregates_are_counted_apart(reuse_plots: None, tmp_path: Path) -> None:
    question = dataclasses.replace(f0_1, id="F0.3", role=QUESTION)
    aggregate = dataclasses.replace(f0_2, id="F0.4", role=AGGREGATE)
    report.write_reports(tmp_path, (f0_1, f0_2, question, aggregate))
    dashboard = read(tmp_path / "README.md")
    assert "Of the 2 claims the documents make:" in dashboard
    assert counts(dashboard)[PROVED] == 1 and counts(dashboard)[REFUTED] == 1
    assert "- questions the catalog adds to a document's section: 1 claim: 1 proved" in dashboard
    assert "- aggregates of other entries: 1 claim: 1 refuted" in dashboard
    assert "- claims beyond the documents" not in dashboard


def test_a_refuted_dependency_is_flagged_and_the_graph_drawn(reuse_plots: None, tmp_path: Path) -> None:
    dependent = dataclasses.replace(f0_1, id="F0.3", depends_on=("F0.2", "F0.1"))
    report.write_reports(tmp_path, (f0_1, f0_2, dependent))
    page = read(tmp_path / "document-000.md")
    warnings = [line for line in page.splitlines() if line.startswith("**Warning:**")]
    assert warnings == ["**Warning:** this claim depends on [F0.2](document-000.md#f02) (refuted)."]
    assert page.index(warnings[0]) > page.index("></a>F0.3 · ")
    dashboard = read(tmp_path / "README.md")
    assert (
        "```mermaid" in dashboard
        and "  n_F0_3 --> n_F0_2" in dashboard
        and "  n_F0_3 --> n_F0_1" in dashboard
    )
    assert '  n_F0_2["F0.2 · refuted"]' in dashboard and "  class n_F0_2 weak" in dashboard


def test_each_section_links_to_the_line_of_its_entry() -> None:
    path, line = catalog.location(catalog.get("D3.5"))
    lines = (Path(__file__).resolve().parents[2] / path).read_text(encoding="utf-8").splitlines()
    assert lines[line - 1] == "@claim(" and lines[line] == '    id="D3.5",'


# --------------------------------------------------------------------------------------- small pieces


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("D0.8", "d08"),
        ("D1.7a", "d17a"),
        ("A shift (`sinusoidal.offset_matrix`)", "a-shift-sinusoidaloffset_matrix"),
        ("왜 하필 sin과 cos인가", "왜-하필-sin과-cos인가"),
        ("💻 코드 예제", "-코드-예제"),
        ('<a id="d08"></a>D0.8 · 왜 sin인가', "d08--왜-sin인가"),
    ],
)
def test_github_slug(heading: str, slug: str) -> None:
    assert report.github_slug(heading) == slug


def test_repeated_headings_get_numbered_anchors() -> None:
    text = "# A\n\n## x\n\n## x\n\n## x-1\n\ntext # not a heading\n"
    assert [anchor for _, anchor in report.heading_anchors(text)] == ["a", "x", "x-1", "x-1-1"]


def test_claim_anchors_are_their_ids_and_a_clash_on_a_page_is_refused() -> None:
    entries = [report.Entry(item, item.assess(), "document-000.md") for item in (f0_1, d0_7)]
    text = "# Page\n\n## Summary\n"
    assert report.claim_anchors({"document-000.md": entries}, {"document-000.md": text}) == {
        "F0.1": "f01",
        "D0.7": "d07",
    }
    clash = report.Entry(dataclasses.replace(f0_1, id="F01"), f0_1.assess(), "document-000.md")
    with pytest.raises(ValueError, match=r"the anchor #f01 of F0\.1 is not unique"):
        report.claim_anchors({"document-000.md": [*entries, clash]}, {"document-000.md": text})
    with pytest.raises(ValueError, match=r"the anchor #d07 of D0\.7 is not unique"):
        report.claim_anchors({"document-000.md": entries}, {"document-000.md": text + "\n## D0.7\n"})


def test_short_statement_keeps_the_first_sentence_within_the_limit() -> None:
    assert report.short_statement("First one, e.g. this. Second one.") == "First one, e.g. this."
    cut = report.short_statement("word " * 40, limit=30)
    assert len(cut) <= 30 and cut.endswith("…") and " wor…" not in cut


def test_page_names_come_from_the_document_number() -> None:
    assert report.page_name("003_4499b221b36b9134.txt") == "document-003.md"
    assert report.page_name("RoFormer") == report.BEYOND


def test_code_spans_survive_backticks() -> None:
    assert report.code("a`b") == "``a`b``"
    assert report.code("`x`") == "`` `x` ``"


def test_strongest_kind_is_taken_from_the_evidence_the_verdict_rests_on() -> None:
    proof = Evidence(EXACT, "exact support", True)
    counterexample = Evidence(FLOAT, "float64 counterexample", True, REFUTES)
    assert report.strongest_kind(Assessment((proof, counterexample), "")) == FLOAT
    assert report.strongest_kind(Assessment((proof, Evidence(DIGITS, "50 digits", True)), "")) == EXACT
    failed = Evidence(FLOAT, "failed", False)
    assert report.strongest_kind(Assessment((proof, failed), "")) == FLOAT
    cited_against = Evidence(CITATION, "the paper says otherwise", True, REFUTES)
    measured = Evidence(DIGITS, "50 digits", True)
    # a contradicted part makes the claim contradicted, resting on the citation whatever else was measured
    assert report.strongest_kind(Assessment((measured, cited_against), "")) == CITATION
    assert report.strongest_kind(Assessment((cited_against,), "")) == CITATION
    corroborated = Assessment((proof, Evidence(FLOAT, "float64 agrees", True, CORROBORATES)), "")
    assert (corroborated.verdict, report.strongest_kind(corroborated)) == (PROVED, EXACT)
    assert report.strongest_kind(Assessment((), "")) == "—"


def test_first_decrease_decides_steps_within_the_error_bound_exactly() -> None:
    def exact_values(*values: float) -> Callable[[int], float]:
        return lambda k: values[k]

    def never_asked(k: int) -> float:
        raise AssertionError(f"S({k}) asked although float64 decides every step")

    assert figures.first_decrease(np.array([0.0, 1.0, 2.0, 3.0]), 0.1, never_asked) is None
    assert figures.first_decrease(np.array([0.0, 1.0, 0.5]), 0.1, never_asked) == 1
    rising = exact_values(0.0, 1.0, 1.05, 3.0, 1.0)  # the float64 dip at k = 1 is within the bound
    assert figures.first_decrease(np.array([0.0, 1.0, 0.96, 3.0, 1.0]), 0.1, rising) == 3
    falling = exact_values(0.0, 1.0, 0.99)  # the float64 rise at k = 1 is within the bound
    assert figures.first_decrease(np.array([0.0, 1.0, 1.02]), 0.1, falling) == 1


def test_counts_below_a_threshold_are_certified_or_marked() -> None:
    values = np.array([0.05, 0.2, 0.0999])
    assert figures.count_below(values, 1e-6, 0.1) == "2"
    assert figures.count_below(values, 1e-3, 0.1).startswith(f"1 to 2 ({UNCERTIFIED}")


def test_a_close_pair_count_with_ties_is_marked_with_the_digits_that_decided_it() -> None:
    """A count whose threshold some gap equals to the resolved digits is marked, and the mark names those
    digits (50 less the guard digits), not the working precision."""
    row = dataclasses.replace(figures._gap_rows(6, (100,))[0], observed_close=7, close_ties=2)
    assert figures._close_count(row) == f"7 ({UNCERTIFIED}: 2 gaps equal the threshold to 45 digits)"
    assert figures._close_count(dataclasses.replace(row, close_ties=0)) == "7"


def test_captions_state_the_computed_values(plots: tuple[figures.Plot, ...]) -> None:
    caption = {plot.name: plot.caption for plot in plots}
    longest = 2 * math.pi * 10000 ** (510 / 512)
    assert f"dim 0: {2 * math.pi:.6g}" in caption["wavelengths.png"]
    assert f"dim 511: {longest:.6g}" in caption["wavelengths.png"]
    assert "bfloat16 (m = 7): p = 256 (2^(m+1) = 256)" in caption["dtype-thresholds.png"]
    assert "| 6 | 10^2 |" in caption["near-collision-gap.png"]
    assert "d = 512: the 768 dim pairs that coincide exactly" in caption["near-collision-gap.png"]
    assert "d = 6 (squared distances within" in caption["distance-by-offset.png"]
