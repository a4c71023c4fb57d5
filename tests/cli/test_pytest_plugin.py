"""The pytest plugin (`pe_verify.pytest_plugin`, the `pytest11` entry point) and `pe_verify.strategies`: a
user's test runs a family's battery through the `pe_verify_check` fixture, with `--pe-verify-examples` as the
budget; a failure shows the user's line and the battery's message, not the suite's frames; nothing is left in
the user's folder; the strategies draw what they say."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from pe_verify.strategies import dims, positions, rotary_inputs

USER_TESTS = """\
import numpy as np
from pe_verify.properties.encodings.rope import apply_rope

def rope(x, p):
    return apply_rope(x, p, layout="half_split")

def test_correct(pe_verify_check):
    report = pe_verify_check("rope", rope, d=[8])
    print("BUDGET", report.properties[1].budget)

def test_broken(pe_verify_check):
    pe_verify_check("rope", lambda x, p: x * (p[:, None] + 1.0), d=[8])
"""


def _pytest(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    environment.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "pe_verify.pytest_plugin",
        "-p",
        "no:cacheprovider",
        "-s",
    ]
    return subprocess.run(
        [*command, *argv], cwd=folder, env=environment, capture_output=True, text=True, timeout=600
    )


def test_the_fixture_runs_the_battery_with_the_option_s_budget_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "test_users.py").write_text(USER_TESTS)
    done = _pytest(tmp_path, "--pe-verify-examples", "7", "test_users.py")
    assert done.returncode == 1, done.stderr
    assert "BUDGET" in done.stdout and "and 7 Hypothesis examples" in done.stdout
    failure = done.stdout[done.stdout.index("_ test_broken _") :]
    assert 'pe_verify_check("rope", lambda x, p: x * (p[:, None] + 1.0), d=[8])' in failure
    assert "fails the rope battery" in failure and "pytest_plugin.py" not in failure
    assert "testing.py" not in failure
    assert {path.name for path in tmp_path.iterdir()} <= {"__pycache__", "test_users.py"}  # no .hypothesis


def test_a_budget_below_one_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_users.py").write_text(USER_TESTS)
    done = _pytest(tmp_path, "--pe-verify-examples", "0", "test_users.py::test_correct")
    assert done.returncode == 4 and "--pe-verify-examples must be a whole number of at least 1" in done.stderr


@settings(max_examples=25, database=None)
@given(rotary_inputs(max_pos=300, max_rows=4))
def test_rotary_inputs_are_rows_and_positions_a_rotation_takes(inputs: tuple[np.ndarray, np.ndarray]) -> None:
    x, p = inputs
    assert x.dtype == np.float64 and p.dtype == np.int64 and x.ndim == 2 and p.shape == (len(x),)
    assert x.shape[1] % 2 == 0 and 1 <= len(x) <= 4 and np.all((p >= 0) & (p < 300))
    assert np.all(np.isfinite(x))


@settings(max_examples=25, database=None)
@given(dims(max_d=9, min_d=3), positions(5))
def test_dims_are_even_and_positions_in_range(d: int, p: int) -> None:
    assert d in (4, 6, 8) and 0 <= p < 5


@pytest.mark.parametrize(
    "call",
    [
        lambda: positions(0),
        lambda: dims(max_d=3, min_d=3),
        lambda: rotary_inputs(d=3),
        lambda: rotary_inputs(max_rows=0),
    ],
)
def test_strategies_refuse_arguments_that_draw_nothing(call) -> None:
    with pytest.raises(ValueError):
        call()


def test_the_plugin_is_declared_for_pytest_to_load() -> None:
    found = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "pe_verify"]
    assert [e.value for e in found] == ["pe_verify.pytest_plugin"]
