"""The committed reports are what `pe-verify report` writes now: a stale report fails these tests.

The pages are compared byte for byte and each figure by the content digest its PNG carries (the figure code,
title and caption); the slow test draws the figures and compares their PNG bytes too, which depend on
matplotlib's version (recorded in the dashboard's footer): at another version the footer line is left out.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.reporting import models
from pe_verify.reporting.figures import CONTENT, png_text
from pe_verify.reporting.report import (
    DASHBOARD,
    FIGURES,
    FOOTER,
    MODELS,
    recorded_matplotlib_version,
    render_pages,
)

REPORTS = Path(__file__).resolve().parents[2] / "reports"


def _same_version() -> bool:
    recorded = recorded_matplotlib_version((REPORTS / DASHBOARD).read_text(encoding="utf-8"))
    return recorded == matplotlib.__version__


def _comparable(text: bytes, same_version: bool) -> bytes:
    if same_version:
        return text
    footer = FOOTER.split("{")[0].encode()
    return b"\n".join(line for line in text.split(b"\n") if not line.startswith(footer))


def _kept(name: str) -> bytes | None:
    path = REPORTS / name
    return path.read_bytes() if path.is_file() else None


def _stale(with_models: bool) -> list[str]:
    """The pages and figures of reports/ that differ from what is rendered now (with or without the models
    page and its figure, which take seconds to compute), and files there that nothing renders."""
    texts, plots = render_pages(models_page=with_models)
    same_version, stale = _same_version(), []
    for name, text in texts.items():
        kept = _kept(name)
        if kept is None or _comparable(kept, same_version) != _comparable(text.encode("utf-8"), same_version):
            stale.append(f"{name} {'is missing' if kept is None else 'differs'}")
    figures = {f"{FIGURES}/{plot.name}": plot for plot in plots}
    for name, plot in figures.items():
        kept = _kept(name)
        if kept is None or png_text(kept).get(CONTENT) != plot.content:
            stale.append(f"{name} {'is missing' if kept is None else 'differs'}")
    ours = set(texts) | set(figures)
    if not with_models:
        ours |= {MODELS, f"{FIGURES}/{models.FIGURE}"}
    extra = [
        str(path.relative_to(REPORTS))
        for path in REPORTS.rglob("*")
        if path.is_file() and path.relative_to(REPORTS).as_posix() not in ours
    ]
    return stale + extra


def test_committed_reports_are_fresh() -> None:
    """Every page and figure but the models page's (see the next test)."""
    stale = _stale(with_models=False)
    assert not stale, f"reports/ is stale ({stale}): run `pe-verify report` and commit"


@pytest.mark.slow
def test_committed_reports_are_fresh_with_the_models_page() -> None:
    stale = _stale(with_models=True)
    assert not stale, f"reports/ is stale ({stale}): run `pe-verify report` and commit"


@pytest.mark.slow
def test_committed_figures_are_the_bytes_drawn_now() -> None:
    """At the matplotlib version the dashboard records, each figure drawn now is the committed PNG."""
    if not _same_version():
        pytest.skip("the figures were drawn by another matplotlib version (their digests are compared)")
    _, plots = render_pages()
    differ = [plot.name for plot in plots if _kept(f"{FIGURES}/{plot.name}") != plot.png]
    assert not differ, f"figures differ from the committed ones: {differ}; run `pe-verify report` and commit"


def test_committed_pages_print_no_uncertified_digits() -> None:
    """Every float on a committed page is certified or a bound (`claims.numbers`), so no page may carry
    the mark of digits that float error could change."""
    marked = [path.name for path in REPORTS.glob("*.md") if UNCERTIFIED in path.read_text(encoding="utf-8")]
    assert not marked, f"pages printing uncertified digits: {marked}"
