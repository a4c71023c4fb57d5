"""Every benchmark still runs: each command line, at sizes small enough for the default run, prints its
comparison (a benchmark whose code no longer matches the package fails here, not when someone times it)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

RUNS = [
    ("base_bound_certificates.py", ["--lengths", "4096", "--repeat", "1"], "ratio balls / float64"),
    ("correct_rounding.py", ["--positions", "64", "--repeat", "1"], "ratio"),
    ("cross_dimension_scan.py", ["compare", "--sizes", "30x6"], "same candidates"),
    ("cross_dimension_scan.py", ["target", "--n", "2000", "--d", "6"], "MiB"),
    ("cross_dimension_scan.py", ["baseline", "--sizes", "300x6"], "ratio"),
    ("vector_near_collision.py", ["compare", "--sizes", "50", "--d", "8"], "same best offset"),
    ("vector_near_collision.py", ["target", "--n", "2000", "--d", "8"], "MiB"),
    ("vector_near_collision.py", ["offsets", "--n", "300", "--count", "2"], "re-ranked"),
    ("separation.py", ["list"], "d512-far-2^31"),
    ("check_battery.py", ["--d", "4", "--family", "alibi"], "ratio"),
    ("check_libraries.py", ["--library", "rotary-embedding-torch", "--repeat", "1"], "ratio"),
    ("model_answers.py", ["--context", "256", "--model", "phi-2"], "ratio"),
    ("separation_threads.py", ["--max-offset", "1048576"], "ratio busy / quiet"),
    ("separation_workers.py", ["--max-offset", "300000", "--chunks", "2", "--no-dask"], "ratio one worker"),
    ("chunk_certificates.py", ["--max-offset", "200000", "--chunks", "2"], "ratio check / search"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("script", "argv", "printed"), RUNS, ids=lambda value: str(value))
def test_the_benchmark_runs_at_a_small_size(
    script: str, argv: list[str], printed: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(sys, "argv", [script, *argv])
    runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    assert printed in capsys.readouterr().out


def test_the_separation_benchmark_runs_one_small_configuration(capsys: pytest.CaptureFixture) -> None:
    separation = runpy.run_path(str(BENCHMARKS / "separation.py"))
    separation["run"](separation["Target"]("small", 6, "10000", 2**15, True, 60), 2**12)
    out = capsys.readouterr().out
    assert "same minimiser: True" in out and "certified True" in out
