"""The README gives the three journeys and the two commands in under 250 lines, CI runs its test command,
its headline table is current; every example of the README and of `docs/` prints what the command prints
now (its pytest file passes as a user's test), and the table of RoPE calling conventions is the one the code
defines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pe_verify import cli
from pe_verify.reporting.headlines import HEADLINES, with_headlines

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README and the pages it links in docs/, where the examples and the conventions table live.
PAGES = README + "".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md")))
MAIN = "pip install -e . && pe-verify report"
TESTS = 'pip install -e ".[test]" && pytest'


def test_readme_gives_the_two_commands() -> None:
    assert MAIN in README and TESTS in README


def test_readme_opens_with_the_three_journeys_and_stays_short() -> None:
    first_screen = README.split("## Two commands", 1)[0]
    assert "## Three journeys" in first_screen
    for command in ("pe-verify list", "pe-verify check", "pe-verify model"):
        assert command in first_screen, command
    assert README.count("\n") < 250


def test_ci_runs_the_readme_test_command() -> None:
    assert TESTS in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_headline_table_is_current() -> None:
    assert with_headlines(README) == README, "run `pe-verify report --readme README.md` and commit"


def test_headline_table_names_every_headline_claim() -> None:
    for claim_id in HEADLINES:
        assert f"[{claim_id}](reports/" in README


def _example(name: str) -> tuple[list[str], str]:
    """The command line (after `pe-verify`) and the output of the README's example block `name`."""
    block = PAGES.split(f"<!-- {name}-example:start -->\n```text\n", 1)[1].split(
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

    table = PAGES.split("<!-- conventions:start -->\n", 1)[1].split("<!-- conventions:end -->", 1)[0]
    rows = [f"| `{c.name}` | `{c.contract}` | {c.example} |" for c in CONVENTIONS]
    assert table.splitlines()[2:] == rows


@pytest.mark.slow
def test_the_readme_s_pytest_file_passes_as_a_user_s_test(tmp_path: Path) -> None:
    source = README.split("<!-- pytest-example:start -->\n```python\n", 1)[1].split("```\n", 1)[0]
    (tmp_path / "test_my_rope.py").write_text(source, encoding="utf-8")
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "pe_verify.pytest_plugin", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]
