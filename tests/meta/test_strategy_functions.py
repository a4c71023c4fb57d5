"""The tests' Hypothesis strategies map, filter and build with named functions, not lambdas: Hypothesis
6.100 (the lowest version pyproject.toml allows) reads a lambda's source to describe it, tens of
milliseconds per example, which made the default run 26 s slower there."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAMBDA_IN_STRATEGY = re.compile(r"\.(map|filter|flatmap)\(\s*lambda\b|\bbuilds\(\s*lambda\b")


def test_no_strategy_is_given_a_lambda() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{text.count(chr(10), 0, match.start()) + 1}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__).resolve()
        for text in [path.read_text(encoding="utf-8")]
        for match in LAMBDA_IN_STRATEGY.finditer(text)
    ]
    assert not found, f"strategies given a lambda (use a named function): {found}"
    assert (TESTS / "properties" / "test_rope.py") in set(TESTS.rglob("*.py"))


def test_the_pattern_finds_each_form() -> None:
    forms = ["st.integers().map(lambda h: 2 * h)", ".filter(lambda b: b > 1)", "st.builds(\n    lambda r: r"]
    assert all(LAMBDA_IN_STRATEGY.search(form) for form in forms)
    assert not LAMBDA_IN_STRATEGY.search("st.integers().map(_twice)")
