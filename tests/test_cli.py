"""The `pe-verify` command line: output formats, exit statuses, and one-line usage errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sympy as sp

from pe_verify import cli
from pe_verify.proofs.derivation import derivation, identity


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def two_derivations(monkeypatch: pytest.MonkeyPatch):
    x = sp.Symbol("x", real=True)

    def make(ident: str, rhs: sp.Expr):
        @derivation(id=ident, title=ident.title(), statement=r"\sin^2 x + \cos^2 x = 1")
        def item():
            yield identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, rhs, "Pythagoras")

        return item

    def install(second_rhs: sp.Expr) -> None:
        items = (make("meta.good", sp.Integer(1)), make("meta.second", second_rhs))
        monkeypatch.setattr("pe_verify.proofs.all_derivations", lambda: items)

    return install


def test_proofs_text_lists_every_derivation(capsys, two_derivations) -> None:
    two_derivations(sp.Integer(1))
    status, out, _ = _run(capsys, "proofs")
    assert status == 0
    assert "meta.good" in out and "meta.second" in out and "verified" in out


def test_proofs_json_has_the_promised_fields(capsys, two_derivations) -> None:
    two_derivations(sp.Integer(1))
    status, out, _ = _run(capsys, "proofs", "--json")
    rows = json.loads(out)
    assert status == 0
    assert [row["id"] for row in rows] == ["meta.good", "meta.second"]
    for row in rows:
        assert {"id", "statement", "verified", "seconds"} <= row.keys()
        assert row["verified"] is True and isinstance(row["seconds"], float)


def test_a_failing_derivation_makes_exit_status_one(capsys, two_derivations) -> None:
    two_derivations(sp.Integer(2))
    status, out, err = _run(capsys, "proofs")
    assert status == 1
    assert "FAILED" in out and "meta.second" in err
    status, out, _ = _run(capsys, "proofs", "--json")
    assert status == 1
    assert [row["verified"] for row in json.loads(out)] == [True, False]


def test_markdown_output_shows_steps(capsys, two_derivations) -> None:
    two_derivations(sp.Integer(1))
    status, out, _ = _run(capsys, "proofs", "--markdown")
    assert status == 0
    assert "Pythagoras ✓" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "a command is required"),
        (["prove"], "invalid choice"),
        (["proofs", "--jsn"], "unrecognized arguments"),
        (["proofs", "--json", "--markdown"], "cannot be combined"),
    ],
)
def test_usage_errors_are_one_line_with_status_two(capsys, argv: list[str], message: str) -> None:
    status, out, err = _run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_the_installed_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", "proofs", "--bogus"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("pe-verify: error:")
