"""The checks run on the re-expressed PyTorch modules pass on the modules and fail on mutation twins."""

from __future__ import annotations

import numpy as np
import pytest

from pe_verify.properties.battery import Report, expected
from pe_verify.properties.battery.torch_code import RotaryCache, SinusoidalTable, rotate_half
from pe_verify.properties.battery.torch_code_checks import (
    float32_angle_bound,
    rotary_cache_battery,
    rotary_cache_checks,
    sinusoidal_table_battery,
    table_deviation,
    usage_example_errors,
)
from pe_verify.properties.numerics.checking import angle_tolerance

D_MODEL, MAX_LEN = 64, 300


class SwappedTable(SinusoidalTable):
    """Mutation: cos in the even columns, sin in the odd ones."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        even, odd = self.pe[..., 0::2].copy(), self.pe[..., 1::2].copy()
        self.pe[..., 0::2], self.pe[..., 1::2] = odd, even


class HalfPrecisionTable(SinusoidalTable):
    """Mutation: the buffer rounded through float16 after it is built."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.pe = self.pe.astype(np.float16).astype(self.pe.dtype)


class BackwardsCache(RotaryCache):
    """Mutation: rotates by −θ; still relative, but not RoPE's direction."""

    @staticmethod
    def _embed(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        return x * cos - rotate_half(x) * sin


class HeadAxisCache(RotaryCache):
    """The fix of the usage example: cos and sin unsqueezed at the heads axis, [1, seq_len, 1, dim]."""

    def forward(self, q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cos, sin = self.cos_cached[: q.shape[1]][None, :, None], self.sin_cached[: q.shape[1]][None, :, None]
        return self._embed(q, cos, sin), self._embed(k, cos, sin)


def test_the_table_is_the_reference_within_its_dtype_rounding() -> None:
    max_angle = float(MAX_LEN - 1)
    assert table_deviation(SinusoidalTable, D_MODEL, MAX_LEN, np.float64) <= angle_tolerance(max_angle, 1)
    narrow = table_deviation(SinusoidalTable, D_MODEL, MAX_LEN)
    assert 0 < narrow <= float32_angle_bound(max_angle)


@pytest.mark.parametrize(
    ("twin", "max_len"), [(SwappedTable, MAX_LEN), (HalfPrecisionTable, 20)], ids=["swapped", "float16"]
)
def test_twins_exceed_the_float32_bound(twin: type[SinusoidalTable], max_len: int) -> None:
    assert table_deviation(twin, D_MODEL, max_len) > float32_angle_bound(float(max_len - 1))


def test_float32_angle_bound_grows_with_the_angle_and_the_base() -> None:
    eps32 = float(np.finfo(np.float32).eps)
    assert float32_angle_bound(0.0) == pytest.approx(2 * eps32)
    assert float32_angle_bound(-100.0) == float32_angle_bound(100.0) < float32_angle_bound(1000.0)
    assert float32_angle_bound(100.0, base=10.0) < float32_angle_bound(100.0)


def labels(report: Report) -> set[str]:
    return {f.label for f in report.findings}


@pytest.mark.slow
def test_sinusoidal_battery_passes_the_table_and_finds_the_swap_of_the_twin() -> None:
    report = sinusoidal_table_battery(SinusoidalTable, D_MODEL, MAX_LEN)
    assert report.passed and expected(report, "interleaved").passed
    assert {"interleaved-layout", "odd-d"} == labels(report)
    assert "sin-cos-swapped" in labels(sinusoidal_table_battery(SwappedTable, D_MODEL, MAX_LEN))


def test_the_cache_is_half_split_rope_with_the_relative_property() -> None:
    checks = rotary_cache_checks(RotaryCache, 16)
    assert checks.half_split.holds and checks.relative.holds
    assert not checks.interleaved.holds and checks.interleaved.max_error > 0.1
    assert 0 < checks.as_written.max_error < 1e-4 and 0 < checks.reference_error < 1e-13


def test_the_backwards_twin_is_relative_but_not_rope() -> None:
    checks = rotary_cache_checks(BackwardsCache, 16)
    assert checks.relative.holds
    assert not checks.half_split.holds and checks.as_written.max_error > 0.1


@pytest.mark.slow
def test_rope_battery_passes_the_cache_and_finds_the_reversal_of_the_twin() -> None:
    report = rotary_cache_battery(RotaryCache, 16)
    assert report.passed and expected(report, "half_split").passed
    assert labels(report) == {"half-split-layout"}
    assert "reversed-rotation" in labels(rotary_cache_battery(BackwardsCache, 16))


def test_the_usage_example_fails_in_the_module_and_in_numpy_and_the_fix_runs() -> None:
    module_error, numpy_error = usage_example_errors(RotaryCache, 64, (2, 128, 8, 64))
    assert module_error is not None and "must match" in module_error
    assert numpy_error is not None
    fixed, _ = usage_example_errors(HeadAxisCache, 64, (2, 128, 8, 64))
    assert fixed is None
    assert usage_example_errors(RotaryCache, 64, (2, 128, 64)) == (None, None)
