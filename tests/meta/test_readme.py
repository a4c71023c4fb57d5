"""The README gives the two commands, CI runs its test command, its headline table is current and its table of
RoPE calling conventions is the one the code defines."""

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


def _example(name: str) -> tuple[list[str], str]:
    """The command line (after `pe-verify`) and the output of the README's example block `name`."""
    block = README.split(f"<!-- {name}-example:start -->\n```text\n", 1)[1].split(
        f"```\n<!-- {name}-example:end -->"
    )[0]
    command, printed = block.split("\n", 1)
    return command.removeprefix("$ pe-verify ").split(), printed


@pytest.mark.slow
@pytest.mark.parametrize(("name", "status"), [("check", 1), ("model", 0)])
def test_each_example_is_what_the_command_prints(capsys, name: str, status: int) -> None:
    """The README's `pe-verify check` and `pe-verify model` examples print what the commands print now."""
    argv, printed = _example(name)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        found = cli.main(["--quiet", *argv])
    assert found == status and capsys.readouterr().out == printed, f"update the README's {name} example"


def test_readme_lists_every_rope_convention_as_the_code_defines_it() -> None:
    from pe_verify.properties.battery.rope_conventions import CONVENTIONS

    table = README.split("<!-- conventions:start -->\n", 1)[1].split("<!-- conventions:end -->", 1)[0]
    rows = [f"| `{c.name}` | `{c.contract}` | {c.example} |" for c in CONVENTIONS]
    assert table.splitlines()[2:] == rows
