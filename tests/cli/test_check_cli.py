"""`pe-verify check` from the command line: targets by module or file, exit codes 0/1/2, the text, JSON and
markdown outputs, a saved JSON run again (`--rerun`) from the settings it echoes, `--expect`, the backend
chosen by the target's module, and one-line usage errors for targets that cannot be used."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from pe_verify import check, cli
from pe_verify.properties import battery
from pe_verify.properties.battery import Backend

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
    document = json.loads(out)
    assert set(document) == {"schema_version", "pe_verify", "command", "settings", "report"}
    report = document["report"]
    assert set(report) == {
        *("target", "family", "passed", "backend", "properties", "identified", "findings", "cause"),
        "expected",
    }
    assert report["passed"] is False and report["expected"] is None
    assert report["backend"] == {
        "name": "numpy",
        "statement": "numpy arrays, float64 (its module does not import torch)",
    }
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


def _rerun(capsys: pytest.CaptureFixture[str], tmp_path: Path, out: str) -> tuple[int, str, str]:
    """`pe-verify check --rerun FILE --json` on `out`, a printed `check --json` saved to a file."""
    path = tmp_path / "saved.json"
    path.write_text(out, encoding="utf-8")
    status = cli.main(["--quiet", "check", "--rerun", str(path), "--json"])
    printed, err = capsys.readouterr()
    return status, printed, err


def test_a_saved_json_runs_again_from_its_settings_to_the_same_json(capsys, target: Path, tmp_path) -> None:
    argv = ["check", f"{target}:rotate_bf16_positions", "--family", "rope", "--d", "8", "--d", "16"]
    argv += ["--max-pos", "4096", "--base", "1e4", "--seed", "3", "--expect", "half_split", "--json"]
    status, out, _ = _run(capsys, *argv, "--timeout", "20", "--target-memory", "2.5")
    saved = json.loads(out)
    assert status == 1 and saved["report"]["expected"] == {"variant": "half_split", "matched": False}
    assert saved["settings"] == {
        "target": f"{target}:rotate_bf16_positions",
        "family": "rope",
        "d": [8, 16],
        "base": 10000.0,
        "max-pos": 4096,
        "seed": 3,
        "examples": 15,
        "backend": "auto",
        "dtype": None,
        "convention": None,
        "timeout": 20.0,
        "target-memory": 2.5,
        "max-minutes": 10.0,
        "expect": "half_split",
    }
    assert _rerun(capsys, tmp_path, out) == (status, out, "")


def test_a_table_echoes_the_sizes_it_holds_and_runs_again_with_them(capsys, tmp_path: Path) -> None:
    path = tmp_path / "table.py"
    path.write_text(
        "import numpy as np\n"
        "angles = np.arange(64)[:, None] * 10000.0 ** -(np.arange(0, 16, 2) / 16)\n"
        "TABLE = np.cos(angles), np.sin(angles)\n",
        encoding="utf-8",
    )
    status, out, _ = _run(capsys, "check", f"{path}:TABLE", "--family", "rope", "--json")
    saved = json.loads(out)
    assert saved["settings"]["d"] == [16] and saved["settings"]["max-pos"] == 64
    assert saved["report"]["backend"] is None  # a table is read, never called
    assert _rerun(capsys, tmp_path, out) == (status, out, "")


def test_the_defaults_a_run_used_are_echoed(capsys, target: Path) -> None:
    argv = ["check", f"{target}:Holder.slopes", "--family", "alibi", "--expect", "naive", "--json"]
    status, out, _ = _run(capsys, *argv)
    document = json.loads(out)
    report = document["report"]
    assert report["expected"] == {"variant": "naive", "matched": True}
    assert status == 1 and report["findings"][0]["label"] == "wrong-slopes"  # at 3, 12 heads
    settings = document["settings"]
    assert settings["heads"] == [1, 2, 3, 8, 12, 16, 64] and "d" not in settings and "base" not in settings
    assert "convention" not in settings and report["backend"] is None


@pytest.mark.slow
def test_markdown_for_a_pull_request(capsys, target: Path) -> None:
    status, out, _ = _run(
        capsys, "check", f"{target}:rotate_bf16_positions", "--family", "rope", "--markdown"
    )
    assert status == 1
    assert out.startswith("### `pe-verify check`: ") and "| relative | **fail** | d=" in out
    assert "\nCalled with numpy arrays, float64 (its module does not import torch).\n" in out
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
            "--expect for rope must be one of interleaved, half_split; got 'llama3' (llama3 is identified by "
            "--family rope-frequencies)",
        ),
        (["{target}:rotate", "--expect", "yarn"], "--expect for rope must be one of interleaved, half_split"),
        (["{target}:rotate", "--expect", "rope"], "one of interleaved, half_split; got 'rope'\n"),
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


TORCH_ROTATE = """
import torch


def rotate(x, positions):
    d = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
    freqs = positions.to(torch.float32)[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    rotated = torch.cat([-x[:, d // 2 :], x[:, : d // 2]], dim=-1)
    return x * emb.cos() + rotated * emb.sin()


class Rotary:
    def __call__(self, x, positions):
        return rotate(x, positions)
"""

OPTIONAL_TORCH = """
try:
    import torch
except ImportError:
    torch = None


def rotate(x, positions):
    return x if torch is None else torch.as_tensor(x)
"""

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


@needs_torch
def test_a_torch_function_is_called_with_torch_tensors_by_default(capsys, tmp_path: Path) -> None:
    path = tmp_path / "newcomer.py"
    path.write_text(TORCH_ROTATE, encoding="utf-8")
    status, out, _ = _run(capsys, "check", f"{path}:rotate", "--family", "rope", "--d", "8")
    assert status == 0, out
    assert "called with torch tensors, float32 (its module imports torch)" in out.splitlines()[1]


@pytest.mark.slow
@needs_torch
def test_numpy_arrays_forced_on_a_torch_function_fail_as_they_did_by_default(capsys, tmp_path: Path) -> None:
    path = tmp_path / "newcomer.py"
    path.write_text(TORCH_ROTATE, encoding="utf-8")
    argv = ["check", f"{path}:rotate", "--family", "rope", "--d", "8", "--backend", "numpy"]
    status, out, _ = _run(capsys, *argv)
    assert status == 1 and "called with numpy arrays, float64 (--backend numpy)" in out
    assert "AttributeError: 'numpy.ndarray' object has no attribute 'to'" in out


@needs_torch
def test_the_backend_follows_the_module_that_defines_the_target(target: Path, tmp_path: Path) -> None:
    path = tmp_path / "newcomer.py"
    path.write_text(TORCH_ROTATE, encoding="utf-8")
    torch_module, numpy_module = check.load_target(f"{path}:rotate"), check.load_target(f"{target}:rotate")
    rotary = check.load_target(f"{path}:Rotary")
    for found in (torch_module, rotary, rotary(), functools.partial(torch_module)):
        assert check.backend("auto", found) == Backend("torch", reason="its module imports torch")
    assert check.backend("auto", numpy_module).name == "numpy"
    assert check.backend("numpy", torch_module) == Backend("numpy", reason="--backend numpy")
    assert check.backend("torch", numpy_module) == Backend("torch", reason="--backend torch")


def test_where_torch_cannot_be_imported_the_backend_is_numpy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "optional.py"
    path.write_text(OPTIONAL_TORCH, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError, as without torch
    rotate = check.load_target(f"{path}:rotate")
    assert check.backend("auto", rotate) == Backend("numpy", reason="its module does not import torch")


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


def test_markdown_escapes_every_table_cell() -> None:
    tolerance = "relative 4·u·max(|b[h, 1, 0]|, 1)"
    outcome = battery.Outcome("bias", False, tolerance, "9 probes", {"x": "a|b"}, "raises")
    report = battery.Report("file.py:bias`s", "alibi", (outcome,), None, ())
    out = check.markdown(report)
    rows = [line for line in out.splitlines() if line.startswith("| bias ")]
    assert len(rows) == 1 and len(re.findall(r"(?<!\\)\|", rows[0])) == 5
    assert out.startswith("### `pe-verify check`: ``file.py:bias`s`` (alibi)")
