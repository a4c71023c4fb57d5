"""`pe-verify check --rerun FILE`: a saved `check --json` document runs again with every setting it echoes,
prints the same document, and exits 1 naming both verdicts when its verdict is not the saved one; a file
that is no saved check document of this schema version, settings it cannot stand for, and a setting given
beside --rerun are one-line usage errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_verify import cli

REFERENCE = "from pe_verify.properties.encodings.alibi import alibi_slopes as slopes\n"
#: Slopes of the naive rule 2^(-8h/n), the reference only where n is a power of two.
NAIVE = "def slopes(n):\n    return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]\n"


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def saved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, str]:
    """A target file of reference ALiBi slopes, the saved `check --json` of it, and what that printed."""
    target = tmp_path / "slopes.py"
    target.write_text(REFERENCE, encoding="utf-8")
    status, out, _ = _main(capsys, "--quiet", "check", f"{target}:slopes", "--family", "alibi", "--json")
    assert status == 0
    path = tmp_path / "saved.json"
    path.write_text(out, encoding="utf-8")
    return target, path, out


def test_a_rerun_prints_the_same_document_and_says_the_verdict_is_the_saved_one(capsys, saved) -> None:
    _, path, out = saved
    status, again, err = _main(capsys, "check", "--rerun", str(path), "--json")
    assert (status, again) == (0, out)
    assert err == f"pe-verify: rerun of {path}: the saved verdict again (passes)\n"
    status, text, _ = _main(capsys, "--quiet", "check", "--rerun", str(path))
    assert status == 0 and text.rstrip().endswith("result: every property holds")


def test_a_target_whose_verdict_changed_fails_the_rerun_naming_both(capsys, saved) -> None:
    target, path, _ = saved
    target.write_text(NAIVE, encoding="utf-8")
    status, out, err = _main(capsys, "--quiet", "check", "--rerun", str(path), "--json")
    assert status == cli.EXIT_CHANGED and json.loads(out)["report"]["passed"] is False
    assert err.startswith(
        f"pe-verify: verdict changed: {path}: saved passes, this run fails: finding wrong-slopes"
    )


def _document(path: Path, change) -> str:
    found = json.loads(path.read_text(encoding="utf-8"))
    change(found)
    path.write_text(json.dumps(found), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(command="list"), "is not a saved check --json document but a 'list' one"),
        (lambda d: d.update(schema_version=1), "has schema_version '1'; this pe-verify reruns version 2"),
        (lambda d: d["report"].update(passed="yes"), "the document.report.passed: 'yes' is not a bool"),
        (lambda d: d.pop("settings"), "the document lacks settings"),
        (lambda d: d["settings"].update(heads="eight"), "its settings: argument --heads: heads must be"),
        (lambda d: d["settings"].update(depth=3), "its settings: pe-verify check has no option --depth"),
        (lambda d: d["settings"].pop("target"), "check needs TARGET"),
    ],
)
def test_a_document_that_cannot_rerun_is_one_line_with_exit_2(capsys, saved, change, message: str) -> None:
    _, path, _ = saved
    status, out, err = _main(capsys, "check", "--rerun", _document(path, change))
    assert (status, out) == (cli.EXIT_USAGE, "") and err.count("\n") == 1
    assert err.startswith("pe-verify: error: ") and message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rerun", "{dir}/none.json"], ": no such file"),
        (["--rerun", "{dir}"], ": not a regular file"),
        (["--rerun", "/dev/zero"], ": not a regular file"),
        (["--rerun", "{dir}/slopes.py"], " is not JSON"),
        (["--rerun", "{saved}", "--seed", "3"], "takes every setting from the saved document; drop --seed"),
        (["--rerun", "{saved}", "--family", "rope"], "drop --family"),
        (["--rerun", "{saved}", "{dir}/slopes.py:slopes"], "drop TARGET"),
        (["--family", "alibi"], "check needs TARGET (or --rerun FILE"),
        (["{dir}/slopes.py:slopes"], "check needs --family (or --rerun FILE"),
    ],
)
def test_a_rerun_given_wrongly_is_one_line_with_exit_2(capsys, saved, argv: list[str], message: str) -> None:
    target, path, _ = saved
    argv = [a.format(dir=target.parent, saved=path) for a in argv]
    status, out, err = _main(capsys, "check", *argv)
    assert (status, out) == (cli.EXIT_USAGE, "") and err.count("\n") == 1 and message in err


def test_a_saved_document_too_large_is_refused_before_it_is_read(capsys, saved, monkeypatch) -> None:
    _, path, _ = saved
    monkeypatch.setattr(cli, "MAX_SAVED_BYTES", path.stat().st_size - 1)
    status, out, err = _main(capsys, "check", "--rerun", str(path))
    assert (status, out) == (cli.EXIT_USAGE, "") and "bytes; a saved check document holds at most" in err
