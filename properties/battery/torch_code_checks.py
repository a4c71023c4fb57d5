"""The re-expressed PyTorch modules of `torch_code` against what they claim to compute.

* `SinusoidalTable`: its buffer is the sinusoidal encoding PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i),
  ω_i = base^(−2i/d), to within the rounding of its dtype: at most `float32_angle_bound` in float32, for
  angles up to max_len − 1.
* `RotaryCache`: its forward pass is half-split RoPE (not the interleaved layout) and keeps the relative
  property ⟨rope(q, m), rope(k, n)⟩ = ⟨q, rope(k, n − m)⟩.
* `pe-verify check`'s battery (`battery.run_battery`) run on each module through its own code.

Each function takes the module's class, so that a subclass with one method overridden is checked the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..encodings.rope import check_agreement_with_reference, check_relative_property
from ..encodings.sinusoidal import sinusoidal_encoding
from ..numerics.checking import EPS64, CheckResult
from . import Report, Settings, run_battery
from .torch_code import RotaryCache, SinusoidalTable, shape_error

EPS32 = float(np.finfo(np.float32).eps)


def table_deviation(
    table: type[SinusoidalTable], d_model: int, max_len: int, dtype: type = np.float32
) -> float:
    """max |pe[0, p, j] − PE(p)_j| over positions p < max_len and columns j < d_model: the module built in
    `dtype` against the float64 reference encoding."""
    reference = sinusoidal_encoding(np.arange(max_len), d_model)
    built = table(d_model, max_len, dtype=dtype).pe[0].astype(np.float64)
    return float(np.max(np.abs(built - reference)))


def float32_angle_bound(max_angle: float, base: float = 10000.0, slack: float = 2.0) -> float:
    """The error bound of `checking.angle_tolerance` with float32's ε: slack·ε32·((2 + ln base)·|θ| + 1) per
    entry of a float32 sinusoidal table whose angles reach |θ|."""
    return slack * EPS32 * ((2.0 + math.log(base)) * abs(max_angle) + 1.0)


def sinusoidal_table_battery(table: type[SinusoidalTable], d_model: int, max_len: int) -> Report:
    """`pe-verify check` (sinusoidal family) on the module as written (float32): ``encode(positions, d)``
    reads rows of the buffer of a module built with d columns and max_len rows; d = d_model, positions below
    max_len."""
    buffers: dict[int, np.ndarray] = {}

    def encode(positions: np.ndarray, d: int) -> np.ndarray:
        if d not in buffers:
            buffers[d] = table(d, max_len).pe[0]
        return buffers[d][positions]

    settings = Settings(ds=(d_model,), max_pos=max_len)
    return run_battery("sinusoidal", encode, settings, target="SinusoidalPositionalEncoding")


def rotary_cache_battery(cache: type[RotaryCache], dim: int) -> Report:
    """`pe-verify check` (RoPE family) on the module as written: float32 vectors of dimension `dim` rotated
    by its forward pass (`RotaryCache.rotate`), positions below its cache's max_len rows."""
    module = cache(dim)
    settings = Settings(ds=(dim,), max_pos=module.max_len)

    def rotate(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return module.rotate(x.astype(np.float32), positions)

    return run_battery("rope", rotate, settings, target="RotaryPositionalEncoding")


class RotaryCacheChecks(NamedTuple):
    """The module run in float64 against half-split and interleaved 50-digit RoPE and the relative property;
    the module as written (float32) against half-split RoPE; and `reference_error`, how far rounding the
    50-digit reference to float64 can move the float32 module's largest error."""

    half_split: CheckResult
    interleaved: CheckResult
    relative: CheckResult
    as_written: CheckResult
    reference_error: float


def rotary_cache_checks(
    cache: type[RotaryCache], dim: int, samples: int = 12, seed: int = 0
) -> RotaryCacheChecks:
    """`samples` seeded random vectors of dimension `dim` at positions below the cache's max_len L, and pairs
    0 ≤ m < L/2, m ≤ n < m + L/2, through the module run in float64 and as written.

    `reference_error` is half an ulp of entries up to 2·max |q| plus half an ulp of the difference:
    ε64·(max |q| + the float32 module's largest error)."""
    wide, narrow = cache(dim, dtype=np.float64), cache(dim)
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((samples, dim)), rng.standard_normal((samples, dim))
    positions = rng.integers(0, narrow.max_len, samples)
    m = rng.integers(0, narrow.max_len // 2, samples)
    n = m + rng.integers(0, narrow.max_len // 2, samples)
    as_written = check_agreement_with_reference(narrow.as_rope("half_split"), q, positions)
    return RotaryCacheChecks(
        check_agreement_with_reference(wide.as_rope("half_split"), q, positions),
        check_agreement_with_reference(wide.as_rope("interleaved"), q, positions),
        check_relative_property(wide.as_rope(), q, k, m, n),
        as_written,
        EPS64 * (float(np.max(np.abs(q))) + as_written.max_error),
    )


def usage_example_errors(
    cache: type[RotaryCache], dim: int, q_shape: Sequence[int]
) -> tuple[str | None, str | None]:
    """The module's forward on q = k of `q_shape` ([batch, seq_len, heads, dim]), and numpy broadcasting q
    against the cos cache it slices (cos_cached[:seq_len][None]): the two error messages, None for a run."""
    module = cache(dim)
    q = np.zeros(tuple(q_shape), dtype=np.float32)
    cos_shape = module.cos_cached[: q.shape[1]][None].shape
    return shape_error(lambda: module.forward(q, q)), shape_error(
        lambda: np.broadcast_shapes(q.shape, cos_shape)
    )
