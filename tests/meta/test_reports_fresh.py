"""The committed reports are what `pe-verify report` writes now: a stale report fails this test.

PNG bytes depend on matplotlib's version (recorded in the dashboard's footer): with another version the
figures are compared by their content digest (the same figure code, title and caption) and the footer line
is left out of the comparison.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.reporting.figures import CONTENT, png_text
from pe_verify.reporting.report import DASHBOARD, FOOTER, recorded_matplotlib_version, write_reports

REPORTS = Path(__file__).resolve().parents[2] / "reports"


def _comparable(text: bytes, same_version: bool) -> bytes:
    if same_version:
        return text
    footer = FOOTER.split("{")[0].encode()
    return b"\n".join(line for line in text.split(b"\n") if not line.startswith(footer))


def test_committed_reports_are_fresh(tmp_path: Path) -> None:
    written = write_reports(tmp_path)
    recorded = recorded_matplotlib_version((REPORTS / DASHBOARD).read_text(encoding="utf-8"))
    same_version = recorded == matplotlib.__version__
    stale = []
    for path in written:
        committed = REPORTS / path.relative_to(tmp_path)
        if not committed.is_file():
            stale.append(f"{committed.name} is missing")
        elif path.suffix == ".png":
            fresh, kept = path.read_bytes(), committed.read_bytes()
            if kept != fresh if same_version else png_text(kept).get(CONTENT) != png_text(fresh)[CONTENT]:
                stale.append(f"{committed.name} differs")
        elif _comparable(committed.read_bytes(), same_version) != _comparable(
            path.read_bytes(), same_version
        ):
            stale.append(f"{committed.name} differs")
    ours = {path.relative_to(tmp_path) for path in written}
    extra = [
        str(path.relative_to(REPORTS))
        for path in REPORTS.rglob("*")
        if path.is_file() and path.relative_to(REPORTS) not in ours
    ]
    assert not stale and not extra, f"reports/ is stale ({stale + extra}): run `pe-verify report` and commit"


def test_committed_pages_print_no_uncertified_digits() -> None:
    """Every float on a committed page is certified or a bound (`claims.numbers`), so no page may carry
    the mark of digits that float error could change."""
    marked = [path.name for path in REPORTS.glob("*.md") if UNCERTIFIED in path.read_text(encoding="utf-8")]
    assert not marked, f"pages printing uncertified digits: {marked}"
