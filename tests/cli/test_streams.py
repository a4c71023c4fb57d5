"""What the command line does when its output cannot be written or should not be shown as it is: stdout or
stderr closed, on a full disk (/dev/full) or a pipe whose reader has left, and text from the user's files
that would drive the terminal. The stream tests run the program in a child process, each bounded in time."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pe_verify import cli, inputs, terminal
from pe_verify.properties.encodings.model_config import bundled_models

#: The program as the console script runs it.
PROGRAM = (sys.executable, "-m", "pe_verify.cli")
#: Seconds one run may take (each takes about one here).
TIMEOUT = 60
#: Cheap commands, each of which prints something on success.
LISTING = ("model", "--list")
SEPARATION = ("separation", "--d", "8", "--max-offset", "100")
COLLISIONS = ("collisions", "--d", "8", "--max-pos", "16")
USAGE_ERROR = ("list", "--bogus")

needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a run: the results cache and Hypothesis' files in a folder of this test, and stdout
    buffered as it is by default (so that output may fail only when it is flushed at the end)."""
    unbuffered = ("PYTHONUNBUFFERED",)
    return {name: value for name, value in os.environ.items() if name not in unbuffered} | {
        "PE_VERIFY_CACHE": str(tmp_path / "cache")
    }


def _run(
    argv: tuple[str, ...], environment: dict[str, str], *, close: str = "", **streams: object
) -> subprocess.CompletedProcess[str]:
    """`pe-verify *argv` in a child process; `close` names the streams the shell closes before it starts
    ("stdout", "stderr"); the other streams are captured unless `streams` gives them."""
    redirections = {"stdout": ">&-", "stderr": "2>&-"}
    closing = " ".join(redirections[name] for name in close.split())
    command = ["sh", "-c", f'exec "$@" {closing}', "sh", *PROGRAM, *argv]
    for name in ("stdout", "stderr"):
        streams.setdefault(name, subprocess.DEVNULL if name in close else subprocess.PIPE)
    return subprocess.run(command, env=environment, text=True, timeout=TIMEOUT, check=False, **streams)


def _one_line(stderr: str) -> str:
    """The single error line of `stderr`, asserted to be just that."""
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("pe-verify: error: ") and "Traceback" not in stderr, stderr
    return stderr


@pytest.mark.parametrize("argv", [LISTING, SEPARATION, ("--help",)])
def test_a_closed_stdout_is_a_failure_in_one_line(environment: dict[str, str], argv: tuple[str, ...]) -> None:
    done = _run(argv, environment, close="stdout")
    assert done.returncode == cli.EXIT_FAILURE
    assert "stdout" in _one_line(done.stderr)


@needs_dev_full
@pytest.mark.parametrize("argv", [LISTING, (*SEPARATION, "--json"), ("--version",)])
def test_a_full_stdout_is_a_failure_in_one_line(environment: dict[str, str], argv: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        done = _run(argv, environment, stdout=full)
    assert done.returncode == cli.EXIT_FAILURE
    assert "No space left on device" in _one_line(done.stderr)


def test_a_pipe_closed_early_stops_quietly_with_141(environment: dict[str, str]) -> None:
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = _run(LISTING, environment, stdout=writer)
    finally:
        os.close(writer)
    assert done.returncode == cli.EXIT_BROKEN_PIPE and done.stderr == ""


def test_a_closed_stderr_changes_nothing(environment: dict[str, str]) -> None:
    done = _run((*COLLISIONS, "--json"), environment, close="stderr")
    assert done.returncode == cli.EXIT_OK
    assert json.loads(done.stdout)["settings"]["d"] == 8


@pytest.mark.parametrize("stderr", ["closed", pytest.param("full", marks=needs_dev_full)])
def test_a_usage_error_keeps_its_status_whatever_stderr_is(environment: dict[str, str], stderr: str) -> None:
    if stderr == "closed":
        done = _run(USAGE_ERROR, environment, close="stderr")
    else:
        with open("/dev/full", "w") as full:
            done = _run(USAGE_ERROR, environment, stderr=full)
    assert done.returncode == cli.EXIT_USAGE and done.stdout == ""


@pytest.mark.parametrize("stderr", ["none", "closed"])
def test_progress_bars_work_without_a_usable_stderr(monkeypatch: pytest.MonkeyPatch, stderr: str) -> None:
    stream = None
    if stderr == "closed":
        stream = io.StringIO()
        stream.close()
    monkeypatch.setattr(sys, "stderr", stream)
    with terminal.progress_bar(3, "counting", quiet=False) as bar:
        bar.set_postfix_str("one")
        bar.update()
    assert bar.disable  # nothing to show it on


def _config_with_controls(folder: Path) -> tuple[Path, list[str]]:
    """A config whose extra keys hold an ANSI colour sequence, a C1 control (CSI), an operating-system
    command with a bell, and a right-to-left override."""
    keys = ["\x1b[31mred\x1b[0m", "c1\x9b2J", "title\x1b]0;owned\x07", "rtl\u202eabc"]
    config = dict(bundled_models()["phi-2"].config) | {key: 1 for key in keys}
    path = folder / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path, keys


def test_control_characters_from_a_config_are_escaped_in_text(tmp_path: Path, capsys) -> None:
    path, _ = _config_with_controls(tmp_path)
    assert cli.main(["--quiet", "model", str(path), "--no-cross-check", "--context", "64"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert all(c.isprintable() or c in "\n\t" for c in out)
    assert "\\u001b[31mred\\u001b[0m" in out and "c1\\u009b2J" in out and "rtl\\u202eabc" in out


def test_control_characters_keep_json_valid_and_unchanged(tmp_path: Path, capsys) -> None:
    path, keys = _config_with_controls(tmp_path)
    argv = ["--quiet", "model", str(path), "--no-cross-check", "--context", "64", "--json"]
    assert cli.main(argv) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert all(c.isprintable() or c in "\n\t" for c in out)
    assert set(keys) <= set(json.loads(out)["model"]["keys"]["ignored"])


def test_control_characters_of_a_path_are_escaped_in_a_message(tmp_path: Path, capsys) -> None:
    readme = "\x1b[2Jnone\x07"
    assert cli.main(["report", "--out", str(tmp_path / "out"), "--readme", readme]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and "--readme \\u001b[2Jnone\\u0007 is not a file" in _one_line(captured.err)


@pytest.mark.parametrize("text", ["\x1b[2Jcleared", "a\x9bb", "\x07bell", "\ud800surrogate"])
def test_escaping_leaves_only_printable_text_that_json_reads_back(text: str) -> None:
    escaped = terminal.escape_unprintable(text)
    assert escaped.isprintable() and json.loads(f'"{escaped}"') == text
    assert terminal.escape_unprintable("ω ≤ 1\n\tok") == "ω ≤ 1\n\tok"


@pytest.mark.parametrize("digits", ["８", "١٠", "１e3"])
def test_digits_of_other_scripts_are_no_number(capsys, digits: str) -> None:
    assert cli.main(["collisions", "--d", digits, "--max-pos", "16"]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and "argument --d" in _one_line(captured.err)
    with pytest.raises(ValueError, match="must be a number"):
        inputs.parse_number(digits, "d")


@pytest.mark.parametrize(
    ("text", "kind"),
    [("null", "null"), ("[1]", "array"), ('"x"', "string"), ("7", "number"), ("true", "true")],
)
def test_a_config_that_is_no_object_is_named_in_json_terms(
    tmp_path: Path, capsys, text: str, kind: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["model", str(path)]) == cli.EXIT_USAGE
    err = _one_line(capsys.readouterr().err)
    assert f"JSON {kind}" in err and "NoneType" not in err and "JSON list" not in err


@pytest.mark.parametrize("argv", [["--list", "phi-2"], [""]])
def test_model_refuses_a_source_with_list_and_an_empty_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, argv: list[str]
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(bundled_models()["phi-2"].config), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # an empty source must not mean the config.json of the current folder
    assert cli.main(["--quiet", "model", *argv, "--no-cross-check", "--context", "64"]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    _one_line(captured.err)
