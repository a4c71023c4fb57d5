"""`pe-verify completion SHELL`: a completion script made by shtab from the command line's own parser, so
that bash completes commands, options and the choices options take; zsh and tcsh get theirs too."""

from __future__ import annotations

import argparse
import shutil
import subprocess

import pytest
import shtab

from pe_verify import cli


def _completions(script: str, *words: str) -> list[str]:
    """What bash, with `script` sourced, offers for the last of `words` typed after `pe-verify`."""
    line = " ".join(("pe-verify", *words))
    program = (
        f"{script}\n"
        f"COMP_WORDS=(pe-verify {' '.join(repr(word) for word in words)}); COMP_CWORD={len(words)}\n"
        f"COMP_LINE={line!r}; COMP_POINT={len(line)}\n"
        '_shtab_pe_verify; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


def _script(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    assert cli.main(["completion", shell]) == cli.EXIT_OK
    return capsys.readouterr().out


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_options_and_choices(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script(capsys, "bash")
    assert _completions(script, "ch") == ["check"]
    assert _completions(script, "check", "x.py:f", "--fam") == ["--family"]
    assert _completions(script, "check", "x.py:f", "--family", "rope-") == ["rope-frequencies"]
    assert _completions(script, "show", "--j") == ["--json"]
    assert _completions(script, "completion", "") == list(cli.COMPLETION_SHELLS)
    without_check = argparse.ArgumentParser(prog="pe-verify")
    without_check.add_subparsers().add_parser("list")
    assert _completions(shtab.complete(without_check, "bash"), "ch") == []  # the twin: no command to offer


@pytest.mark.parametrize("shell", cli.COMPLETION_SHELLS)
def test_every_shell_offered_gets_a_script_naming_every_command(
    capsys: pytest.CaptureFixture[str], shell: str
) -> None:
    assert shell in shtab.SUPPORTED_SHELLS
    script = _script(capsys, shell)
    commands = cli._parser().parse_args(["list"]).commands
    assert all(name in script for name in commands) and "completion" in commands


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["completion", "bsh"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err.rstrip().endswith("; did you mean 'bash'?")
