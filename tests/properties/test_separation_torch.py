"""The separation screen on torch: on the CPU its answers are numpy's (same minimum ball, argmin and
certificate); its run-time checks pass here and fail for a product that rounds its inputs or a cos that errs
beyond the bound; a screen whose checks fail leaves the answer uncertified."""

from __future__ import annotations

import dataclasses
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from pe_verify.properties.analyses import separation_torch
from pe_verify.properties.analyses.separation import (
    NUMPY_SCREEN,
    certified_separation,
    product_failure,
)
from pe_verify.properties.analyses.separation_chunks import chunked_separation
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(("d", "first", "stop"), [(6, 1, 300_000), (64, 1, 300_000), (512, 60612, 2**21)])
def test_the_torch_screen_on_the_cpu_gives_numpys_answer(d: int, first: int, stop: int) -> None:
    encoding = Sinusoidal(d, "10000")
    numpy_answer = certified_separation(encoding, stop, first)
    found = certified_separation(encoding, stop, first, numerics=separation_torch.torch_screen("cpu"))
    assert found.same_answer(numpy_answer) and found.certified


@pytest.mark.slow
def test_torch_chunks_in_worker_processes_give_numpys_answer() -> None:
    encoding = Sinusoidal(512, "10000")
    found = chunked_separation(encoding, 2**23, 60612, chunks=4, workers=2, backend="torch")
    single = certified_separation(encoding, 2**23, 60612)
    assert found.audit == () and found.separation.same_answer(single) and single.certified


def test_the_torch_checks_pass_on_this_device() -> None:
    assert separation_torch.torch_screen("cpu").failures({(2049, 256), (2049, 120)}) == ()


def test_twin_a_cos_beyond_the_bound_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    exact = torch.cos
    monkeypatch.setattr(torch, "cos", lambda angle: exact(angle) + 2.0**-28)
    fresh = separation_torch.torch_screen.__wrapped__("cpu")
    (failure,) = fresh.failures(set())
    assert "float64 cos" in failure


def test_twin_a_product_that_rounds_its_inputs_is_caught_and_uncertifies() -> None:
    def rounded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        low = torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16).to(torch.float32)
        return (low @ torch.from_numpy(np.ascontiguousarray(b))).numpy()

    assert product_failure(rounded, 2049, 256) is not None

    def failures(shapes: set[tuple[int, int]]) -> tuple[str, ...]:
        found = (product_failure(rounded, rows, inner) for rows, inner in sorted(shapes))
        return tuple(failure for failure in found if failure is not None)

    broken = dataclasses.replace(NUMPY_SCREEN, name="bfloat16 inputs", product=rounded, failures=failures)
    found = certified_separation(Sinusoidal(512, "10000"), 2**20, 60612, numerics=broken)
    assert not found.certified and "rounding to nearest in float32" in found.reason


@pytest.mark.slow
def test_the_torch_benchmark_runs_at_a_small_size(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "separation_torch.py"
    monkeypatch.setattr(sys, "argv", [str(script), "--max-offset", "300000", "--device", "cpu"])
    runpy.run_path(str(script), run_name="__main__")
    assert "same answer: True" in capsys.readouterr().out
