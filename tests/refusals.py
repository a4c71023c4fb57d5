"""The one-line refusal of `pe-verify model`, shared by the test modules of that command (a test module
imports none of the others)."""

from __future__ import annotations

import pytest

from pe_verify import cli


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The error line of `pe-verify model *argv`: exit 2, one line starting "pe-verify: error: ", no
    traceback, and nothing on stdout."""
    assert cli.main(["model", *argv]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.count("\n") == 0 and err.startswith("pe-verify: error: ") and "Traceback" not in err
    assert captured.out == ""
    return err
