"""The README gives the two commands, CI runs its test command, and its headline table is current."""

from __future__ import annotations

from pathlib import Path

import pytest

from pe_verify import cli
from pe_verify.reporting.headlines import HEADLINES, with_headlines

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.slow
def test_the_check_example_is_what_the_command_prints(capsys) -> None:
    """The README's `pe-verify check` example output is the command's output now."""
    block = README.split("<!-- check-example:start -->\n```text\n", 1)[1].split(
        "```\n<!-- check-example:end -->"
    )[0]
    command, printed = block.split("\n", 1)
    argv = command.removeprefix("$ pe-verify ").split()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        status = cli.main(["--quiet", *argv])
    assert status == 1 and capsys.readouterr().out == printed, "update the README's check example"


@pytest.mark.slow
def test_the_model_example_is_what_the_command_prints(capsys) -> None:
    """The README's `pe-verify model` example output is the command's output now."""
    block = README.split("<!-- model-example:start -->\n```text\n", 1)[1].split(
        "```\n<!-- model-example:end -->"
    )[0]
    command, printed = block.split("\n", 1)
    argv = command.removeprefix("$ pe-verify ").split()
    assert cli.main(["--quiet", *argv]) == 0 and capsys.readouterr().out == printed, (
        "update the README's example"
    )
