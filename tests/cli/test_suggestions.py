"""A mistyped command, family or option gets one close suggestion on its one-line error (exit 2); a word
close to nothing gets none."""

from __future__ import annotations

import pytest

from pe_verify import cli


@pytest.mark.parametrize(
    ("argv", "suggested"),
    [
        (["chek"], "; did you mean 'check'?"),
        (["lst"], "; did you mean 'list'?"),
        (["check", "x.py:f", "--family", "rop"], "; did you mean 'rope'?"),
        (["check", "x.py:f", "--family", "rope", "--exampels", "5"], "; did you mean '--examples'?"),
        (["model", "config.json", "--frobnicate"], ""),
        (["zzzz"], ""),
    ],
)
def test_a_close_word_is_suggested(capsys, argv: list[str], suggested: str) -> None:
    assert cli.main(["--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pe-verify: error: ")
    assert ("did you mean" not in err) if not suggested else err.rstrip().endswith(suggested)


def test_a_mistyped_bundled_model_name_is_suggested(capsys) -> None:
    assert cli.main(["--quiet", "model", "llama-3.1-8"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("; did you mean the bundled 'llama-3.1-8b'?")
    assert cli.main(["--quiet", "model", "zzzzq"]) == 2
    assert "did you mean" not in capsys.readouterr().err
