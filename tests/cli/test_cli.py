"""The `pe-verify` command line: output formats, exit statuses, one-line errors, and output to streams that
cannot encode Unicode."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from pe_verify import cli, terminal
from pe_verify.proofs.derivation import Derivation, derivation, identity


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results of `list` and `show` go to a folder of this test, never to the user's cache."""
    monkeypatch.setenv("PE_VERIFY_CACHE", str(tmp_path_factory.mktemp("cache")))


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
    rows = json.loads(out)["derivations"]
    assert status == 0
    assert [row["id"] for row in rows] == ["meta.good", "meta.second"]
    for row in rows:
        assert {"id", "statement", "verified", "seconds"} <= row.keys()
        assert row["verified"] is True and isinstance(row["seconds"], float)


@pytest.mark.slow
def test_a_failing_derivation_makes_exit_status_one(capsys, two_derivations) -> None:
    two_derivations(sp.Integer(2))
    status, out, err = _run(capsys, "proofs")
    assert status == 1
    assert "FAILED" in out and "meta.second" in err
    status, out, _ = _run(capsys, "proofs", "--json")
    assert status == 1
    assert [row["verified"] for row in json.loads(out)["derivations"]] == [True, False]


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


@pytest.mark.slow
def test_the_installed_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", "proofs", "--bogus"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("pe-verify: error:")


def _raising(error: BaseException):
    def run(*args: object) -> None:
        raise error

    return run


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (RuntimeError("boom"), "internal error: RuntimeError: boom"),
        (PermissionError(13, "Permission denied", "out/README.md"), "Permission denied: out/README.md"),
        (OSError(28, "No space left on device"), "No space left on device"),
        (MemoryError(), "out of memory"),
    ],
)
def test_other_failures_are_one_line_with_status_three(
    capsys, monkeypatch, error: Exception, message: str
) -> None:
    monkeypatch.setattr("pe_verify.proofs.all_derivations", _raising(error))
    status, out, err = _run(capsys, "proofs")
    assert status == 3 and out == ""
    assert err == f"pe-verify: error: {message} (--debug shows the traceback)\n"


@pytest.mark.parametrize("argv", [["--debug", "proofs"], ["proofs", "--debug"]])
def test_debug_shows_the_traceback_instead(capsys, monkeypatch, argv: list[str]) -> None:
    monkeypatch.setattr("pe_verify.proofs.all_derivations", _raising(RuntimeError("boom")))
    status, _, err = _run(capsys, *argv)
    assert status == 3
    assert err.startswith("Traceback (most recent call last):") and err.endswith("RuntimeError: boom\n")


def test_an_interrupt_is_status_130(capsys, monkeypatch) -> None:
    monkeypatch.setattr("pe_verify.proofs.all_derivations", _raising(KeyboardInterrupt()))
    status, _, err = _run(capsys, "proofs")
    assert status == 130 and err == "pe-verify: error: interrupted\n"


def _screen(written: str) -> list[str]:
    """The lines a terminal shows after `written`: a carriage return goes back to the line's start, and
    what follows overwrites what was there."""
    lines = []
    for line in written.split("\n"):
        shown = ""
        for part in line.split("\r"):
            shown = part + shown[len(part) :]
        lines.append(shown.rstrip())
    return lines


def test_a_ctrl_c_clears_the_progress_bar_before_its_one_line(capsys, monkeypatch, two_derivations) -> None:
    """Interrupted on a terminal while the bar shows, the command leaves no trace of the bar: the screen's
    last line is the message alone, and the status is 130. A bar left drawn (a twin) would show through."""
    two_derivations(sp.Integer(1))
    verify = Derivation.verify

    def interrupted(item: Derivation):
        if item.id == "meta.second":
            raise KeyboardInterrupt
        return verify(item)

    monkeypatch.setattr(Derivation, "verify", interrupted)
    monkeypatch.setattr(terminal, "_is_terminal", lambda stream: True)
    status, _, err = _run(capsys, "proofs")
    assert status == 130 and "verifying derivations:  50%" in err
    assert _screen(err) == ["pe-verify: error: interrupted", ""]
    drawn = "verifying derivations:  50%|█████     | 1/2 [00:00<00:00, 9.99it/s, meta.second]"
    [left_drawn, _] = _screen(f"\r{drawn}\rpe-verify: error: interrupted\n")
    assert left_drawn.startswith("pe-verify: error: interrupted") and left_drawn.endswith("meta.second]")


def test_a_closed_pipe_stops_quietly(monkeypatch) -> None:
    reader, writer = os.pipe()
    os.close(reader)
    stdout, stderr = os.fdopen(writer, "w"), io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr("pe_verify.proofs.all_derivations", _raising(BrokenPipeError()))
    try:
        assert cli.main(["proofs"]) == 141
    finally:
        stdout.close()
    assert stderr.getvalue() == ""


def _ascii_streams(monkeypatch: pytest.MonkeyPatch) -> tuple[io.BytesIO, io.BytesIO]:
    buffers = io.BytesIO(), io.BytesIO()
    for name, buffer in zip(("stdout", "stderr"), buffers, strict=True):
        monkeypatch.setattr(sys, name, io.TextIOWrapper(buffer, encoding="ascii", write_through=True))
    return buffers


def test_an_ascii_terminal_gets_ascii_that_keeps_the_meaning(monkeypatch) -> None:
    out, _ = _ascii_streams(monkeypatch)
    assert cli.main(["collisions", "--d", "8", "--max-pos", "16"]) == 0
    text = out.getvalue().decode("ascii")
    assert "positions 0 ... 15" in text and "p1*omega = p2*omega'" in text and "||PE(p+k) - PE(p)||" in text


def test_ascii_json_is_escaped_and_loses_nothing(monkeypatch, capsys) -> None:
    assert cli.main(["collisions", "--d", "8", "--max-pos", "16", "--json"]) == 0
    unicode = json.loads(capsys.readouterr().out)
    out, _ = _ascii_streams(monkeypatch)
    assert cli.main(["collisions", "--d", "8", "--max-pos", "16", "--json"]) == 0
    assert "\\u2016" in out.getvalue().decode("ascii") and json.loads(out.getvalue()) == unicode


def test_an_ascii_stderr_gets_ascii_messages(monkeypatch) -> None:
    _, err = _ascii_streams(monkeypatch)
    assert cli.main(["collisions", "--d", "6", "--base", "0.5"]) == 2
    assert (
        err.getvalue()
        .decode("ascii")
        .startswith("pe-verify: error: argument --base: base must be a number greater")
    )


@pytest.mark.parametrize(
    ("character", "ascii"),
    [
        ("≠", "!="),
        ("≤", "<="),
        ("—", "--"),
        ("ω", "omega"),
        ("Σ", "Sigma"),
        ("²", "^2"),
        ("₀", "_0"),
        ("ℤ", "Z"),
        ("한", "Han"),
        ("\U000f0000", "?"),
    ],
)
def test_transliteration_keeps_the_meaning(character: str, ascii: str) -> None:
    assert terminal.ascii_text(character) == ascii


@pytest.mark.parametrize(
    ("text", "ascii"),
    [
        ("cos kωᵢ", "cos k omega_i"),
        ("2πn", "2 pi n"),
        ("p·ω", "p*omega"),
        ("(ωα)", "(omega alpha)"),
        ("10⁻¹", "10^-^1"),
    ],
)
def test_a_letter_written_by_its_name_stands_apart_from_its_neighbours(text: str, ascii: str) -> None:
    assert text.encode("ascii", terminal.ERRORS).decode("ascii") == ascii


@pytest.mark.slow
def test_help_on_an_ascii_terminal_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", "collisions", "--help"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"positions 0 ... N-1" in done.stdout


#: The locale variables and the encoding overrides, left out of the environments below.
_LOCALE_NAMES = ("LC_ALL", "LC_CTYPE", "LANG", "PYTHONIOENCODING", "PYTHONUTF8")


@pytest.mark.parametrize(
    ("settings", "ascii"),
    [
        ({"LC_ALL": "C"}, True),
        ({"LC_ALL": "POSIX"}, True),
        ({"LANG": "C", "LC_CTYPE": "C.UTF-8"}, True),  # LANG=C as Python's locale coercion leaves it
        ({"LC_CTYPE": "C"}, True),
        ({}, True),
        ({"LANG": "en_US.UTF-8", "LC_CTYPE": "C.UTF-8"}, False),  # a UTF-8 locale the system lacks
        ({"LC_ALL": "C", "PYTHONIOENCODING": "utf-8"}, False),
        ({"LC_ALL": "C", "PYTHONUTF8": "1"}, False),
    ],
)
def test_the_locale_asked_for_decides_under_pythons_own_utf8_mode(monkeypatch, settings: dict, ascii) -> None:
    for name in _LOCALE_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "flags", type("Flags", (), {"utf8_mode": 1})())
    assert terminal.c_locale() == ascii


@pytest.mark.slow
@pytest.mark.parametrize(("settings", "ascii"), [({"LC_ALL": "C"}, True), ({"LANG": "C.UTF-8"}, False)])
def test_a_c_locale_gets_ascii_though_python_makes_its_streams_utf8(settings: dict, ascii: bool) -> None:
    environment = {name: value for name, value in os.environ.items() if name not in _LOCALE_NAMES}
    done = subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", "separation", "--help"],
        capture_output=True,
        env={**environment, **settings},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (b"offsets k >= K0" in done.stdout) == ascii
    assert ("offsets k ≥ K0".encode() in done.stdout) == (not ascii)


@pytest.mark.slow
def test_hypothesis_keeps_its_files_in_the_cache_folder_not_the_current_one(tmp_path: Path) -> None:
    target = Path(__file__).resolve().parents[2] / "examples" / "rope_bf16_positions.py"
    environment = {**os.environ, "PE_VERIFY_CACHE": str(tmp_path / "cache")}
    environment.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    command = ["--quiet", "check", f"{target}:rotate", "--family", "rope", "--d", "8", "--examples", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", *command],
        capture_output=True,
        cwd=tmp_path,
        env=environment,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert not (tmp_path / ".hypothesis").exists()
    written = sorted(path.relative_to(tmp_path).parts[:2] for path in tmp_path.rglob("*") if path.is_file())
    assert all(parts == ("cache", "hypothesis") for parts in written)  # Hypothesis 6.100 writes none


@pytest.mark.parametrize("option", ["--out", "--readme"])
def test_a_path_too_long_for_the_system_is_a_usage_error(capsys, tmp_path: Path, option: str) -> None:
    status = cli.main(["report", option, str(tmp_path / ("x" * 300))])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "File name too long" in err
