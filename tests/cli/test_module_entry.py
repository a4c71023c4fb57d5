"""`python -m pe_verify` is the `pe-verify` program: same usage, same exit codes."""

from __future__ import annotations

import subprocess
import sys


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pe_verify", *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_python_m_pe_verify_prints_the_program_s_usage() -> None:
    done = _run("--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: pe-verify")


def test_python_m_pe_verify_refuses_an_unknown_command_with_exit_2() -> None:
    done = _run("no-such-command")
    assert done.returncode == 2 and "pe-verify: error: argument command: invalid choice" in done.stderr
