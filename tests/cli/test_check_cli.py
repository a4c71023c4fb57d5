"""`pe-verify check` from the command line: targets by module or file, exit codes 0/1/2, the text, JSON and
markdown outputs, `--expect`, and one-line usage errors for targets that cannot be used."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest

from pe_verify import check, cli

IMPLEMENTATIONS = """
import numpy as np
import ml_dtypes


def _rotate(x, positions):
    inv = 1.0 / 10000 ** (np.arange(0, x.shape[-1], 2) / x.shape[-1])
    angles = positions[:, None] * inv
    emb = np.concatenate([angles, angles], -1)
    half = x.shape[-1] // 2
    return x * np.cos(emb) + np.concatenate([-x[:, half:], x[:, :half]], -1) * np.sin(emb)


def rotate(x, positions):
    return _rotate(x, positions.astype(np.float64))


def rotate_bf16_positions(x, positions):
    return _rotate(x, positions.astype(ml_dtypes.bfloat16).astype(np.float64))


def inv_freq(d):
    return 1.0 / 10000 ** (np.arange(0, d, 2) / d)


def takes_five(a, b, c, e, f):
    return a


class Holder:
    @staticmethod
    def slopes(n_heads):
        return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


NOT_CALLABLE = 3
"""


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "impl.py"
    path.write_text(textwrap.dedent(IMPLEMENTATIONS), encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["--quiet", *argv, "--examples", "15"])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.slow
def test_a_correct_rotation_passes_with_exit_0(capsys, target: Path) -> None:
    status, out, _ = _run(capsys, "check", f"{target}:rotate", "--family", "rope")
    assert status == 0
    assert "pass  relative: ⟨R_m q, R_n k⟩ depends on the offset n − m only" in out
    assert "identified: rope half_split (matches" in out and out.rstrip().endswith("every property holds")


def test_a_bug_fails_with_exit_1_a_counterexample_and_its_labels(capsys, target: Path) -> None:
    status, out, _ = _run(capsys, "check", f"{target}:rotate_bf16_positions", "--family", "rope", "--json")
    assert status == 1
    report = json.loads(out)
    assert set(report) == {"target", "family", "passed", "properties", "identified", "findings", "cause"}
    assert report["passed"] is False
    relative = next(p for p in report["properties"] if p["name"] == "relative")
    assert relative["passed"] is False and {
        relative["counterexample"]["m2"],
        relative["counterexample"]["n2"],
    } == {
        256,
        257,
    }
    assert {"not-relative", "low-precision"} <= {f["label"] for f in report["findings"]}


def test_a_module_target_on_the_current_folder(capsys, target: Path, monkeypatch) -> None:
    monkeypatch.chdir(target.parent)
    monkeypatch.syspath_prepend(str(target.parent))
    status, out, _ = _run(capsys, "check", "impl:Holder.slopes", "--family", "alibi", "--heads", "8")
    assert status == 0 and "identified: reference" in out


@pytest.mark.slow
def test_expect_turns_a_wrong_identification_into_a_failure(capsys, target: Path) -> None:
    status, out, _ = _run(
        capsys, "check", f"{target}:inv_freq", "--family", "rope-frequencies", "--expect", "llama3"
    )
    assert status == 1 and "FAIL  expect llama3: fails at expected=llama3, identified=none" in out
    status, _, _ = _run(
        capsys, "check", f"{target}:inv_freq", "--family", "rope-frequencies", "--expect", "none"
    )
    assert status == 0


@pytest.mark.slow
def test_markdown_for_a_pull_request(capsys, target: Path) -> None:
    status, out, _ = _run(
        capsys, "check", f"{target}:rotate_bf16_positions", "--family", "rope", "--markdown"
    )
    assert status == 1
    assert out.startswith("### `pe-verify check`: ") and "| relative | **fail** | d=" in out
    assert "- `low-precision`: " in out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nosuchmodule:f"], "no module named 'nosuchmodule'"),
        (["{target}:missing"], "has no attribute 'missing'"),
        (["{target}:NOT_CALLABLE"], "is a int, not a callable"),
        (["{target}"], "TARGET must be package.module:name or path/to/file.py:name"),
        (["{dir}/none.py:f"], "none.py is not a file"),
        (["{target}:takes_five"], "a rope implementation must fit one of the conventions rotate, apply"),
        (["{target}:rotate", "--base", "1"], "base must be a number greater than 1"),
        (["{target}:rotate", "--d", "8192"], "d must be a whole number from 1 to 4096"),
        (["{target}:rotate", "--d", "7"], "d must be even"),
        (["{target}:rotate", "--max-pos", "1"], "max-pos must be a whole number from 2 to 2^24"),
        (["{target}:rotate", "--json", "--markdown"], "--json and --markdown cannot be combined"),
        (
            ["{target}:rotate", "--expect", "llama3"],
            "--expect for rope must be one of interleaved, half_split",
        ),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(capsys, target: Path, argv: list[str], message: str) -> None:
    argv = [a.format(target=target, dir=target.parent) for a in argv]
    status, out, err = _run(capsys, "check", *argv[:1], "--family", "rope", *argv[1:])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_an_import_that_raises_is_a_usage_error(capsys, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no GPU here')\n", encoding="utf-8")
    status, _, err = _run(capsys, "check", f"{broken}:f", "--family", "rope")
    assert status == 2 and "raised RuntimeError: no GPU here" in err


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_the_torch_backend_without_torch_says_how_to_install_it(capsys, target: Path) -> None:
    status, _, err = _run(capsys, "check", f"{target}:rotate", "--family", "rope", "--backend", "torch")
    assert status == 2 and 'pip install -e ".[torch]"' in err


def test_a_budget_beyond_the_time_limit_is_refused_before_the_battery_runs(capsys, target: Path) -> None:
    argv = ["--quiet", "check", f"{target}:rotate", "--family", "rope", "--examples", "1e9"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(check, "check", _never)
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "up to 1000000000 examples for each of 7 properties" in err and "--max-minutes" in err
        assert err.count("\n") == 1
        assert cli.main([*argv, "--max-minutes", "1e6"]) == 2
        assert "the battery started" in capsys.readouterr().err


def _never(*args: object) -> None:
    raise check.TargetError("the battery started")
