"""The README gives the two commands, CI runs its test command, and its headline table is current."""

from __future__ import annotations

from pathlib import Path

from pe_verify.claims.headlines import HEADLINES, with_headlines

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAIN = "pip install -e . && pe-verify report"
TESTS = 'pip install -e ".[test]" && pytest'


def test_readme_gives_the_two_commands() -> None:
    assert MAIN in README and TESTS in README


def test_ci_runs_the_readme_test_command() -> None:
    assert TESTS in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_headline_table_is_current() -> None:
    assert with_headlines(README) == README, "run `pe-verify report --readme README.md` and commit"


def test_headline_table_names_every_headline_claim() -> None:
    for claim_id in HEADLINES:
        assert f"[{claim_id}](reports/" in README
