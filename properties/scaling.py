"""RoPE frequency scaling for longer contexts: each scheme maps θ_i = base^(−2i/d) to scaled frequencies θ'_i.

The schemes follow Hugging Face transformers ``modeling_rope_utils.py``:

* linear position interpolation (``_compute_linear_scaling_rope_parameters``): θ'_i = θ_i/s;
* NTK-aware (``_compute_ntk_parameters``, in the versions that have it): base' = base·s^(d/(d−2)); dynamic NTK
  (``_compute_dynamic_ntk_parameters``) uses s' = s·L/L₀ − (s − 1) for a sequence of length L > L₀;
* YaRN (Peng, Quesnelle, Fan & Shippole 2023, "YaRN: Efficient Context Window Extension of Large Language
  Models"; ``_compute_yarn_parameters``): NTK-by-parts, keep θ_i where it turns more than β_fast times over
  the original context L₀, divide by s where it turns fewer than β_slow times, blend in between; and the
  attention factor √(1/t) = 0.1·ln s + 1 (``get_mscale``; the ``mscale_all_dim`` quotient is not covered);
* Llama 3 (``_compute_llama3_parameters``): keep wavelengths below L₀/high_freq_factor, divide those above
  L₀/low_freq_factor by s, blend in between.

The checks take a scaling function with the positional signature of the reference (e.g.
``yarn(d, base, factor, original_max_position_embeddings, beta_fast, beta_slow)``) returning the d/2
frequencies, and return a `CheckResult`. Scaling factors are ≥ 1 (a context extension), as the reference's
validation asks.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .checking import EPS64, CheckResult
from .frequencies import frequencies
from .validation import require_base, require_even_dimension, require_positive_int, require_positive_real

ScalingFunction = Callable[..., np.ndarray]


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The d/2 RoPE frequencies θ_i = base^(−2i/d), i = 0, …, d/2 − 1 (d even), in float64."""
    return frequencies(require_even_dimension(d), base)


def linear_scaling_frequencies(d: int, base: float, factor: float) -> np.ndarray:
    """Position interpolation: θ'_i = θ_i/s, so position p turns by the angles position p/s had."""
    return rope_frequencies(d, base) / require_factor(factor)


def ntk_scaling_frequencies(d: int, base: float, factor: float) -> np.ndarray:
    """NTK-aware: the frequencies of base' = base·s^(d/(d−2)); θ'_0 = θ_0, θ'_(d/2−1) = θ_(d/2−1)/s."""
    d = _require_ntk_dimension(d)
    base, s = require_base(base), require_factor(factor)
    try:
        scaled_base = base * s ** (d / (d - 2))
    except OverflowError:
        scaled_base = math.inf
    if not math.isfinite(scaled_base):
        raise ValueError(f"base·factor^(d/(d−2)) overflows float64 for base={base}, factor={s}, d={d}")
    return rope_frequencies(d, scaled_base)


def dynamic_ntk_frequencies(
    d: int, base: float, factor: float, seq_len: int, max_position_embeddings: int
) -> np.ndarray:
    """Dynamic NTK: NTK-aware scaling by s' = s·L/L₀ − (s − 1) with L = max(seq_len, L₀), so s' = 1 up to L₀.

    s' is computed as 1 + s·(L − L₀)/L₀, the same number, which rounds to exactly 1 at L = L₀.
    """
    s = require_factor(factor)
    length = require_positive_int(seq_len, "seq_len")
    original = require_positive_int(max_position_embeddings, "max_position_embeddings")
    effective = 1.0 + s * (max(length, original) - original) / original
    return ntk_scaling_frequencies(d, base, effective)


def yarn_frequencies(
    d: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """YaRN's NTK-by-parts frequencies, as the reference computes them.

    The pair index where θ_i turns n times over L₀ is c(n) = d·ln(L₀/(2πn))/(2 ln base)
    (``find_correction_dim``); the ramp runs from low = ⌊c(β_fast)⌋ to high = ⌈c(β_slow)⌉ (unrounded when
    `truncate` is False), clamped to [0, d − 1] (``find_correction_range``), and is
    clamp((i − low)/(high − low), 0, 1) (``linear_ramp_factor``). With γ_i = 1 − ramp_i,
    θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i. The paper's ramp γ(r) is linear in r = L₀θ_i/(2π); this one is linear
    in i, that is in ln r (see the derivation ``scaling.yarn_reference_ramp``).
    """
    d = require_even_dimension(d)
    base, s = require_base(base), require_factor(factor)
    context = require_positive_int(original_max_position_embeddings, "original_max_position_embeddings")
    beta_fast, beta_slow = _require_betas(beta_fast, beta_slow)
    if not isinstance(truncate, bool):
        raise ValueError(f"truncate must be True or False, got {truncate!r}")
    low, high = _correction_range(beta_fast, beta_slow, d, base, context, truncate)
    keep = 1.0 - _linear_ramp(low, high, d // 2)
    theta = rope_frequencies(d, base)
    return theta / s * (1.0 - keep) + theta * keep


def yarn_attention_factor(factor: float, mscale: float = 1.0) -> float:
    """YaRN's factor √(1/t) = 0.1·mscale·ln s + 1 on cos and sin, so every logit q·k is scaled by 1/t."""
    return 0.1 * require_positive_real(mscale, "mscale") * math.log(require_factor(factor)) + 1.0


def llama3_frequencies(
    d: int,
    base: float,
    factor: float,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_position_embeddings: int = 8192,
) -> np.ndarray:
    """Llama 3 scaling: with λ_i = 2π/θ_i and σ_i = (L₀/λ_i − low)/(high − low), θ'_i is θ_i when
    λ_i < L₀/high, θ_i/s when λ_i > L₀/low, and (1 − σ_i)·θ_i/s + σ_i·θ_i in between."""
    s = require_factor(factor)
    low, high = _require_frequency_factors(low_freq_factor, high_freq_factor)
    context = require_positive_int(original_max_position_embeddings, "original_max_position_embeddings")
    theta = rope_frequencies(d, base)
    wavelength = 2.0 * math.pi / theta
    smooth = (context / wavelength - low) / (high - low)
    blended = (1.0 - smooth) * theta / s + smooth * theta
    interpolated = np.where(wavelength > context / low, theta / s, blended)
    return np.where(wavelength < context / high, theta, interpolated)


def require_factor(value: object, name: str = "factor") -> float:
    """A scaling factor as a float when it is a finite real number ≥ 1 (a context extension)."""
    s = require_positive_real(value, name)
    if s < 1:
        raise ValueError(f"{name} must be a real number ≥ 1 (the context-extension factor), got {s}")
    return s


def frequency_tolerance(base: float, factor: float, slack: float = 8.0) -> float:
    """Allowed relative float64 error of a frequency of `base` scaled by factors up to `factor`.

    θ_i = exp(−(2i/d)·ln base): rounding the exponent (relative ε) moves θ_i by at most ε·ln base relative,
    and 1/base^(2i/d) and base^(−2i/d) differ by as much. A scale such as s^(d/(d−2)) (at most s², since
    d ≥ 4) adds 2ε·ln s the same way; the few products and quotients around them add a few ε more.
    """
    return slack * EPS64 * (4.0 + math.log(base) + 2.0 * math.log(factor))


def check_linear_scaling(scaled: ScalingFunction, d: int, base: float, factor: float) -> CheckResult:
    """scaled(d, base, s) = θ_i/s for every i: position interpolation divides every frequency by s."""
    theta, s = rope_frequencies(d, base), require_factor(factor)
    name = f"linear interpolation divides every frequency by s = {s}"
    return _compare(name, scaled(d, base, s), theta / s, frequency_tolerance(base, s))


def check_ntk_scaling(scaled: ScalingFunction, d: int, base: float, factor: float) -> CheckResult:
    """scaled(d, base, s) = θ_i·s^(−2i/(d−2)): θ_0 unchanged, the lowest θ_(d/2−1) divided by exactly s."""
    d = _require_ntk_dimension(d)
    theta, s = rope_frequencies(d, base), require_factor(factor)
    expected = theta * s ** (-2.0 * np.arange(d // 2) / (d - 2))
    name = f"NTK-aware base·s^(d/(d−2)) keeps θ_0 and divides θ_(d/2−1) by s = {s}"
    return _compare(name, scaled(d, base, s), expected, frequency_tolerance(base, s))


def check_dynamic_ntk(
    scaled: ScalingFunction, d: int, base: float, factor: float, seq_len: int, max_position_embeddings: int
) -> CheckResult:
    """scaled(d, base, s, L, L₀) is NTK scaling by s' = max(1, s·L/L₀ − (s − 1)): unchanged up to L₀."""
    d = _require_ntk_dimension(d)
    theta, s = rope_frequencies(d, base), require_factor(factor)
    length = require_positive_int(seq_len, "seq_len")
    original = require_positive_int(max_position_embeddings, "max_position_embeddings")
    effective = 1.0 + s * max(length - original, 0) / original
    expected = theta * effective ** (-2.0 * np.arange(d // 2) / (d - 2))
    name = f"dynamic NTK for L = {length}, L₀ = {original} is NTK scaling by s' = {effective}"
    tolerance = frequency_tolerance(base, effective)
    return _compare(name, scaled(d, base, s, length, original), expected, tolerance)


def check_yarn_regimes(
    scaled: ScalingFunction,
    d: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> CheckResult:
    """With r_i = L₀·θ_i/(2π) turns over the original context: r_i > β_fast ⇒ θ'_i = θ_i; r_i < β_slow ⇒
    θ'_i = θ_i/s; in between θ'_i/θ_i lies in [1/s, 1]; and θ'_i/θ_i never increases with i."""
    theta, s = rope_frequencies(d, base), require_factor(factor)
    context = require_positive_int(original_max_position_embeddings, "original_max_position_embeddings")
    beta_fast, beta_slow = _require_betas(beta_fast, beta_slow)
    name = f"YaRN keeps θ_i turning > {beta_fast} times in L₀ = {context}, divides those < {beta_slow} by s"
    got = _frequency_vector(scaled(d, base, s, context, beta_fast, beta_slow), theta.size)
    if got is None:
        return CheckResult(name, False, float("inf"), 0.0, {"reason": f"not {theta.size} finite frequencies"})
    turns = context * theta / (2.0 * math.pi)
    scale = got / theta
    errors = np.where(turns > beta_fast, np.abs(scale - 1.0), 0.0)
    errors = np.maximum(errors, np.where(turns < beta_slow, np.abs(scale * s - 1.0), 0.0))
    errors = np.maximum(errors, np.maximum(scale - 1.0, 1.0 / s - scale))
    errors[1:] = np.maximum(errors[1:], scale[1:] - scale[:-1])
    worst = int(np.argmax(errors))
    return _result(
        name,
        errors,
        frequency_tolerance(base, s),
        {
            "i": worst,
            "turns": float(turns[worst]),
            "theta'/theta": float(scale[worst]),
            "1/s": 1.0 / s,
        },
    )


def check_yarn_attention_factor(attention: Callable[[float], float], factor: float) -> CheckResult:
    """attention(s) = 0.1·ln s + 1, the √(1/t) YaRN multiplies cos and sin by (|error| ≤ 8ε(1 + value))."""
    s = require_factor(factor)
    expected = 0.1 * math.log(s) + 1.0
    got = float(attention(s))
    error = abs(got - expected) if math.isfinite(got) else float("inf")
    tolerance = 8.0 * EPS64 * (1.0 + expected)
    name = f"YaRN attention factor at s = {s} is 0.1·ln s + 1"
    witness = {"factor": s, "value": got, "expected": expected}
    return CheckResult(name, error <= tolerance, error, tolerance, witness)


def check_llama3_regimes(
    scaled: ScalingFunction,
    d: int,
    base: float,
    factor: float,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_position_embeddings: int = 8192,
) -> CheckResult:
    """λ_i < L₀/high ⇒ θ'_i = θ_i; λ_i > L₀/low ⇒ θ'_i = θ_i/s; in between θ'_i = ((1 − σ_i)/s + σ_i)·θ_i with
    σ_i = (L₀/λ_i − low)/(high − low).

    Tolerance: in the blend, σ_i carries the frequency's relative error times L₀/λ_i/(high − low) ≤
    high/(high − low), and a blended factor ≥ 1/s turns that into at most s times as much relative error.
    """
    theta, s = rope_frequencies(d, base), require_factor(factor)
    low, high = _require_frequency_factors(low_freq_factor, high_freq_factor)
    context = require_positive_int(original_max_position_embeddings, "original_max_position_embeddings")
    name = f"Llama 3 keeps wavelengths < L₀/{high}, divides those > L₀/{low} by s = {s}, blends between"
    got = _frequency_vector(scaled(d, base, s, low, high, context), theta.size)
    if got is None:
        return CheckResult(name, False, float("inf"), 0.0, {"reason": f"not {theta.size} finite frequencies"})
    ratio = context * theta / (2.0 * math.pi)
    smooth = np.clip((ratio - low) / (high - low), 0.0, 1.0)
    expected = ((1.0 - smooth) / s + smooth) * theta
    errors = np.abs(got / expected - 1.0)
    worst = int(np.argmax(errors))
    regime = "kept" if ratio[worst] > high else "divided" if ratio[worst] < low else "blended"
    tolerance = frequency_tolerance(base, s) * (1.0 + s * high / (high - low))
    return _result(
        name,
        errors,
        tolerance,
        {
            "i": worst,
            "regime": regime,
            "theta'": float(got[worst]),
            "expected": float(expected[worst]),
        },
    )


def _require_ntk_dimension(d: object) -> int:
    d = require_even_dimension(d)
    if d < 4:
        raise ValueError(f"d must be an even integer ≥ 4 for NTK scaling (d/(d−2) needs d > 2), got {d}")
    return d


def _require_betas(beta_fast: object, beta_slow: object) -> tuple[float, float]:
    fast = require_positive_real(beta_fast, "beta_fast")
    slow = require_positive_real(beta_slow, "beta_slow")
    if fast <= slow:
        raise ValueError(f"beta_fast must be greater than beta_slow, got beta_fast={fast}, beta_slow={slow}")
    return fast, slow


def _require_frequency_factors(low: object, high: object) -> tuple[float, float]:
    low_f = require_positive_real(low, "low_freq_factor")
    high_f = require_positive_real(high, "high_freq_factor")
    if high_f <= low_f:
        raise ValueError(
            f"high_freq_factor must be greater than low_freq_factor, got high={high_f}, low={low_f}"
        )
    return low_f, high_f


def _correction_dimension(turns: float, d: int, base: float, context: int) -> float:
    """``find_correction_dim``: the real pair index i with context·θ_i/(2π) = turns."""
    return d * math.log(context / (turns * 2.0 * math.pi)) / (2.0 * math.log(base))


def _correction_range(
    beta_fast: float, beta_slow: float, d: int, base: float, context: int, truncate: bool
) -> tuple[float, float]:
    """``find_correction_range``: [c(β_fast), c(β_slow)], floor/ceil if truncating, within [0, d − 1]."""
    low = _correction_dimension(beta_fast, d, base, context)
    high = _correction_dimension(beta_slow, d, base, context)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d - 1)


def _linear_ramp(low: float, high: float, n: int) -> np.ndarray:
    """``linear_ramp_factor``: clamp((i − low)/(high − low), 0, 1), i < n (high + 0.001 if high = low)."""
    if low == high:
        high += 0.001
    return np.clip((np.arange(n) - low) / (high - low), 0.0, 1.0)


def _frequency_vector(values: object, size: int) -> np.ndarray | None:
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.shape != (size,) or not np.all(np.isfinite(array)) or np.any(array <= 0):
        return None
    return array


def _compare(name: str, got: object, expected: np.ndarray, tolerance: float) -> CheckResult:
    values = _frequency_vector(got, expected.size)
    if values is None:
        reason = f"not {expected.size} finite positive frequencies"
        return CheckResult(name, False, float("inf"), tolerance, {"reason": reason})
    errors = np.abs(values / expected - 1.0)
    worst = int(np.argmax(errors))
    witness = {"i": worst, "got": float(values[worst]), "expected": float(expected[worst])}
    return _result(name, errors, tolerance, witness)


def _result(name: str, errors: np.ndarray, tolerance: float, witness: dict[str, object]) -> CheckResult:
    max_error = float(np.max(errors))
    return CheckResult(name, bool(max_error <= tolerance), max_error, tolerance, witness)
