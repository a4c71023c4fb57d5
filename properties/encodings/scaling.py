"""RoPE frequency scaling for longer contexts: each scheme maps θ_i = base^(−2i/d) to scaled frequencies θ'_i.

The schemes (`RopeScaling.kind`) follow Hugging Face transformers ``modeling_rope_utils.py``:

* ``none``: θ'_i = θ_i;
* ``linear`` position interpolation (``_compute_linear_scaling_rope_parameters``): θ'_i = θ_i/s;
* ``ntk``, NTK-aware (``_compute_ntk_parameters``, in the versions that have it): base' = base·s^(d/(d−2));
* ``dynamic-ntk`` (``_compute_dynamic_ntk_parameters``): NTK-aware by s' = s·L/L₀ − (s − 1) for a sequence
  of length L > L₀;
* ``yarn`` (Peng, Quesnelle, Fan & Shippole 2023, "YaRN: Efficient Context Window Extension of Large
  Language Models"; ``_compute_yarn_parameters``): NTK-by-parts, keep θ_i where it turns more than β_fast
  times over the original context L₀, divide by s where it turns fewer than β_slow times, blend in between;
  and the attention factor √(1/t) = 0.1·ln s + 1 (``get_mscale``; the ``mscale_all_dim`` quotient is not
  covered);
* ``llama3`` (``_compute_llama3_parameters``): keep wavelengths below L₀/high_freq_factor, divide those above
  L₀/low_freq_factor by s, blend in between;
* ``proportional`` (Gemma 4, ``_compute_proportional_rope_parameters``): the d/2 rotated pairs of a head of
  `head_width` h turn at θ'_i = base^(−2i/h)/s, the exponent running over the whole head;
* ``longrope`` (Ding et al. 2024, "LongRoPE"; Phi-3, ``_compute_longrope_parameters``): each pair divided by
  its own factor, θ'_i = θ_i/ext_i (the reference's 1/(ext_i·base^(2i/d))), ext = long_factor when the
  sequence is longer than L₀, else short_factor; the attention factor √(1 + ln s/ln L₀) (1 when s = 1).

One object per configuration, `RopeScaling(kind, factor, original_context, beta_fast, beta_slow,
low_freq_factor, high_freq_factor, seq_len, truncate, ramp, short_factor, long_factor)`, declares the
parameters (those a kind does not read are still validated) and offers every form (the unscaled θ_i come
from `frequencies.py`):

* `frequencies(d, base)`: the d/2 scaled frequencies θ'_i in float64, as the reference computes them;
* `frequencies_mp(d, base, dps)`: the same rule with `dps` significant digits (mpmath numbers);
* `attention_factor(mscale)`: the factor on cos and sin (YaRN's 0.1·mscale·ln s + 1, LongRoPE's
  √(1 + ln s/ln L₀), else 1).

The checks take a RopeScaling (the implementation under test, its parameters the ones checked) and the
model's (d, base), and return a `CheckResult`. As for `rope.Rope`, a broken twin is a subclass overriding
the one form it breaks. Scaling factors are ≥ 1 (a context extension), as the reference's validation asks.
The free functions ``*_frequencies`` are the float64 form of one configuration, for callers that pass
parameters positionally.

The certified functions at the end decide, in arb ball arithmetic at the current flint precision, which pairs
a YaRN or Llama 3 configuration keeps, divides and blends (r_i = L₀·θ_i/(2π) against its two thresholds), and
compare the paper's YaRN weights γ(r_i) with the reference code's; a comparison a ball cannot decide raises.
`yarn_pair_regimes` lists the pairs each of the two rules keeps, blends and divides, and
`attention_factor_arb` is YaRN's √(1/t) = 0.1·ln s + 1 as a ball, which `check_attention_factor_exact`
holds the float64 `attention_factor` against.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np

from ..numerics.checking import EPS64, CheckResult
from ..numerics.validation import (
    require_base,
    require_even_dimension,
    require_positive_int,
    require_positive_real,
)
from .frequencies import frequencies, frequencies_arb, frequencies_mp

#: YaRN's ramps: ``code``, linear in the pair index between the correction dims (``linear_ramp_factor``,
#: floored and ceiled when `truncate`); ``paper``, γ(r) linear in r = L₀/λ between α = β_slow and β = β_fast
#: (Peng et al. 2023, Eq. 18), where `truncate` plays no part.
YARN_RAMPS = ("code", "paper")

#: L₀'s name in messages: the field `original_context`, the reference's original_max_position_embeddings.
CONTEXT_NAME = "original_context (original_max_position_embeddings)"


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The d/2 RoPE frequencies θ_i = base^(−2i/d), i = 0, …, d/2 − 1 (d even), in float64."""
    return frequencies(require_even_dimension(d), base)


@dataclass(frozen=True)
class RopeScaling:
    """RoPE frequency scaling of one `kind` (see `KINDS`) by the context-extension factor s = `factor` ≥ 1.

    `original_context` is L₀ (default 8192, the Llama 3 reference's); `beta_fast`, `beta_slow`, `truncate`
    (floor/ceil the correction range) and `ramp` (`YARN_RAMPS`: the reference code's, or the paper's) are
    YaRN's; `low_freq_factor`, `high_freq_factor` are Llama 3's; `seq_len` is dynamic NTK's L (None: L = L₀,
    unscaled) and picks LongRoPE's factors; `short_factor` and `long_factor` are LongRoPE's per-pair factors
    (d/2 positive reals each, required for that kind). Every form below computes the same rule; a subclass
    overriding one of them is a different one.
    """

    kind: str = "none"
    factor: float = 1.0
    original_context: int = 8192
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    seq_len: int | None = None
    truncate: bool = True
    ramp: str = "code"
    short_factor: tuple[float, ...] = ()
    long_factor: tuple[float, ...] = ()
    head_width: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in FORMS:
            raise ValueError(f"kind must be one of {', '.join(FORMS)}, got {self.kind!r}")
        forms = FORMS[self.kind]
        factor = require_factor(self.factor)
        if forms.unscaled and factor != 1.0:
            raise ValueError(f"factor must be 1 for kind {self.kind!r} (unscaled), got {factor}")
        betas = _require_betas(self.beta_fast, self.beta_slow)
        low, high = _require_frequency_factors(self.low_freq_factor, self.high_freq_factor)
        if not isinstance(self.truncate, bool):
            raise ValueError(f"truncate must be True or False, got {self.truncate!r}")
        if self.ramp not in YARN_RAMPS:
            raise ValueError(f"ramp must be one of {', '.join(YARN_RAMPS)}, got {self.ramp!r}")
        if self.ramp == "paper" and betas[0] == betas[1]:
            raise ValueError("the paper's ramp runs from beta_slow to beta_fast: they must differ")
        fields = {
            "factor": factor,
            "original_context": require_positive_int(self.original_context, CONTEXT_NAME),
            "beta_fast": betas[0],
            "beta_slow": betas[1],
            "low_freq_factor": low,
            "high_freq_factor": high,
            "seq_len": None if self.seq_len is None else require_positive_int(self.seq_len, "seq_len"),
            "short_factor": _require_pair_factors(self.short_factor, "short_factor", forms.pair_factors),
            "long_factor": _require_pair_factors(self.long_factor, "long_factor", forms.pair_factors),
            "head_width": None
            if self.head_width is None
            else require_even_dimension(self.head_width, "head_width"),
        }
        if len(fields["short_factor"]) != len(fields["long_factor"]):
            raise ValueError(
                f"short_factor and long_factor must have one value per pair each, got "
                f"{len(fields['short_factor'])} and {len(fields['long_factor'])}"
            )
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @property
    def sequence_length(self) -> int:
        """Dynamic NTK's sequence length L: `seq_len`, or L₀ when it is None."""
        return self.original_context if self.seq_len is None else self.seq_len

    @property
    def effective_factor(self) -> float:
        """Dynamic NTK's s' = s·L/L₀ − (s − 1) with L = max(seq_len, L₀), so s' = 1 up to L₀.

        s' is computed as 1 + s·(L − L₀)/L₀, the same number, which rounds to exactly 1 at L = L₀.
        """
        original = self.original_context
        return 1.0 + self.factor * (max(self.sequence_length, original) - original) / original

    @property
    def pair_factors(self) -> tuple[float, ...]:
        """LongRoPE's ext: `long_factor` when the sequence length is beyond L₀, else `short_factor`."""
        return self.long_factor if self.sequence_length > self.original_context else self.short_factor

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        """The d/2 scaled frequencies θ'_i in float64, computed as the reference does (NTK: d ≥ 4)."""
        return FORMS[self.kind].float64(self, d, base)

    def frequencies_mp(self, d: int, base: float | str = 10000, dps: int = 50) -> list[mpmath.mpf]:
        """The d/2 scaled frequencies θ'_i as mpmath numbers with `dps` significant digits: the same rule,
        with YaRN's correction range and Llama 3's regimes decided at that precision (a str base is exact)."""
        d = require_even_dimension(d)
        dps = require_positive_int(dps, "dps")
        with mpmath.workdps(dps):
            return FORMS[self.kind].mp(self, d, base, dps)

    def attention_factor(self, mscale: float = 1.0) -> float:
        """The factor on cos and sin: YaRN's √(1/t) = 0.1·mscale·ln s + 1, so every logit q·k is scaled by
        1/t; LongRoPE's √(1 + ln s/ln L₀); 1 for every other kind."""
        return FORMS[self.kind].attention(self, require_positive_real(mscale, "mscale"))

    def _width(self, d: int) -> int:
        """Proportional RoPE's head width h (≥ the d rotated dims); d when none is given."""
        width = d if self.head_width is None else self.head_width
        if width < d:
            raise ValueError(f"head_width {width} is narrower than the {d} rotated dims")
        return width

    def _factors_for(self, d: int) -> tuple[float, ...]:
        """LongRoPE's `pair_factors`, a ValueError unless there is one per pair of d."""
        ext = self.pair_factors
        if len(ext) != d // 2:
            raise ValueError(
                f"LongRoPE needs one factor per pair: d = {d} has {d // 2} pairs, got {len(ext)}"
            )
        return ext


@dataclass(frozen=True)
class Forms:
    """One scaling kind's rule in every form: θ'_i in float64 (`float64(scaling, d, base)`), at the current
    mpmath precision (`mp(scaling, d, base, dps)`), and its factor on cos and sin (`attention(scaling,
    mscale)`, and at the current mpmath precision `attention_mp(scaling)`); `unscaled` when its factor must
    be 1, `pair_factors` when it needs LongRoPE's factor lists, `thresholds` the fields holding the turn
    counts where a blend between kept and interpolated pairs starts and ends, `blend_gain` how much a
    blended pair's error in its weight grows in θ'_i (Llama 3: up to s·high/(high − low), as
    `check_llama3_regimes` allows)."""

    float64: Callable[[RopeScaling, int, float], np.ndarray]
    mp: Callable[[RopeScaling, int, object, int], list[mpmath.mpf]]
    attention: Callable[[RopeScaling, float], float]
    attention_mp: Callable[[RopeScaling], mpmath.mpf] = lambda scaling: mpmath.mpf(1)
    unscaled: bool = False
    pair_factors: bool = False
    thresholds: tuple[str, str] | None = None
    blend_gain: Callable[[RopeScaling], float] = lambda scaling: 0.0


def _one(scaling: RopeScaling, mscale: float) -> float:
    return 1.0


def _yarn_attention(scaling: RopeScaling, mscale: float) -> float:
    return 0.1 * mscale * math.log(scaling.factor) + 1.0


def _longrope_attention(scaling: RopeScaling, mscale: float) -> float:
    if scaling.factor == 1.0:
        return 1.0
    return math.sqrt(1.0 + math.log(scaling.factor) / math.log(scaling.original_context))


def _longrope_attention_mp(scaling: RopeScaling) -> mpmath.mpf:
    s, original = mpmath.mpf(scaling.factor), mpmath.mpf(scaling.original_context)
    return mpmath.mpf(1) if s == 1 else mpmath.sqrt(1 + mpmath.log(s) / mpmath.log(original))


def _theta_mp(d: int, base: object, dps: int) -> list[mpmath.mpf]:
    return frequencies_mp(d, base, dps, count=d // 2)


def _ntk_mp(scaling: RopeScaling, d: int, base: object, dps: int, s: mpmath.mpf) -> list[mpmath.mpf]:
    d = _require_ntk_dimension(d)
    return frequencies_mp(d, mpmath.mpf(base) * s ** (mpmath.mpf(d) / (d - 2)), dps, count=d // 2)


def _dynamic_s_mp(scaling: RopeScaling) -> mpmath.mpf:
    original = scaling.original_context
    return 1 + mpmath.mpf(scaling.factor) * (max(scaling.sequence_length, original) - original) / original


def _longrope_float64(scaling: RopeScaling, d: int, base: float) -> np.ndarray:
    d = require_even_dimension(d)
    return rope_frequencies(d, base) / np.asarray(scaling._factors_for(d))


def _proportional_float64(scaling: RopeScaling, d: int, base: float) -> np.ndarray:
    d = require_even_dimension(d)
    return frequencies(scaling._width(d), base, count=d // 2) / scaling.factor


def _yarn_mp(scaling: RopeScaling, d: int, base: object, dps: int) -> list[mpmath.mpf]:
    s, keep = mpmath.mpf(scaling.factor), _yarn_keep_mp(scaling, d, mpmath.mpf(base))
    return [t / s * (1 - k) + t * k for t, k in zip(_theta_mp(d, base, dps), keep, strict=True)]


#: Every scaling kind's forms, by `RopeScaling.kind`.
FORMS: dict[str, Forms] = {
    "none": Forms(
        lambda sc, d, base: rope_frequencies(d, base),
        lambda sc, d, base, dps: _theta_mp(d, base, dps),
        _one,
        unscaled=True,
    ),
    "linear": Forms(
        lambda sc, d, base: rope_frequencies(d, base) / sc.factor,
        lambda sc, d, base, dps: [t / mpmath.mpf(sc.factor) for t in _theta_mp(d, base, dps)],
        _one,
    ),
    "ntk": Forms(
        lambda sc, d, base: _ntk_frequencies(d, base, sc.factor),
        lambda sc, d, base, dps: _ntk_mp(sc, d, base, dps, mpmath.mpf(sc.factor)),
        _one,
    ),
    "dynamic-ntk": Forms(
        lambda sc, d, base: _ntk_frequencies(d, base, sc.effective_factor),
        lambda sc, d, base, dps: _ntk_mp(sc, d, base, dps, _dynamic_s_mp(sc)),
        _one,
    ),
    "yarn": Forms(
        lambda sc, d, base: _yarn_frequencies(sc, rope_frequencies(d, base), d, float(base)),
        _yarn_mp,
        _yarn_attention,
        lambda sc: yarn_factor_mp(sc.factor),
        thresholds=("beta_slow", "beta_fast"),
    ),
    "llama3": Forms(
        lambda sc, d, base: _llama3_frequencies(sc, rope_frequencies(d, base)),
        lambda sc, d, base, dps: [_llama3_mp(sc, t, mpmath.mpf(sc.factor)) for t in _theta_mp(d, base, dps)],
        _one,
        thresholds=("low_freq_factor", "high_freq_factor"),
        blend_gain=lambda sc: sc.factor * sc.high_freq_factor / (sc.high_freq_factor - sc.low_freq_factor),
    ),
    "longrope": Forms(
        _longrope_float64,
        lambda sc, d, base, dps: [
            t / mpmath.mpf(e) for t, e in zip(_theta_mp(d, base, dps), sc._factors_for(d), strict=True)
        ],
        _longrope_attention,
        _longrope_attention_mp,
        pair_factors=True,
    ),
    "proportional": Forms(
        _proportional_float64,
        lambda sc, d, base, dps: [
            t / mpmath.mpf(sc.factor) for t in frequencies_mp(sc._width(d), base, dps, count=d // 2)
        ],
        _one,
    ),
}
#: The scaling schemes, the values of `RopeScaling.kind`.
KINDS = tuple(FORMS)


def linear_scaling_frequencies(d: int, base: float, factor: float) -> np.ndarray:
    """Position interpolation θ'_i = θ_i/s, the float64 form of `RopeScaling("linear", factor)`."""
    return RopeScaling("linear", factor).frequencies(d, base)


def ntk_scaling_frequencies(d: int, base: float, factor: float) -> np.ndarray:
    """NTK-aware base' = base·s^(d/(d−2)), the float64 form of `RopeScaling("ntk", factor)`."""
    return RopeScaling("ntk", factor).frequencies(d, base)


def dynamic_ntk_frequencies(
    d: int, base: float, factor: float, seq_len: int, max_position_embeddings: int
) -> np.ndarray:
    """Dynamic NTK at length seq_len over L₀ = max_position_embeddings, the float64 form of `RopeScaling`."""
    return RopeScaling("dynamic-ntk", factor, max_position_embeddings, seq_len=seq_len).frequencies(d, base)


def yarn_frequencies(
    d: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """YaRN's NTK-by-parts frequencies, the float64 form of `RopeScaling("yarn", …)`."""
    scaling = RopeScaling(
        "yarn", factor, original_max_position_embeddings, beta_fast, beta_slow, truncate=truncate
    )
    return scaling.frequencies(d, base)


def llama3_frequencies(
    d: int,
    base: float,
    factor: float,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_max_position_embeddings: int = 8192,
) -> np.ndarray:
    """Llama 3 scaling, the float64 form of `RopeScaling("llama3", …)`."""
    scaling = RopeScaling(
        "llama3",
        factor,
        original_max_position_embeddings,
        low_freq_factor=low_freq_factor,
        high_freq_factor=high_freq_factor,
    )
    return scaling.frequencies(d, base)


def longrope_frequencies(
    d: int,
    base: float,
    short_factor: Iterable[float],
    long_factor: Iterable[float],
    original_max_position_embeddings: int,
    seq_len: int | None = None,
) -> np.ndarray:
    """LongRoPE's per-pair scaling, the float64 form of `RopeScaling("longrope", …)` (factor 1: the
    attention factor is not part of the frequencies)."""
    scaling = RopeScaling(
        "longrope",
        1.0,
        original_max_position_embeddings,
        seq_len=seq_len,
        short_factor=tuple(short_factor),
        long_factor=tuple(long_factor),
    )
    return scaling.frequencies(d, base)


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


def check_linear_scaling(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """scaling.frequencies(d, base) = θ_i/s for every i: position interpolation divides each θ_i by s."""
    theta, s = rope_frequencies(d, base), scaling.factor
    name = f"linear interpolation divides every frequency by s = {s}"
    return _compare(name, scaling.frequencies(d, base), theta / s, frequency_tolerance(base, s))


def check_ntk_scaling(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """scaling.frequencies(d, base) = θ_i·s^(−2i/(d−2)): θ_0 unchanged, the lowest θ_(d/2−1) divided by s."""
    d = _require_ntk_dimension(d)
    theta, s = rope_frequencies(d, base), scaling.factor
    expected = theta * s ** (-2.0 * np.arange(d // 2) / (d - 2))
    name = f"NTK-aware base·s^(d/(d−2)) keeps θ_0 and divides θ_(d/2−1) by s = {s}"
    return _compare(name, scaling.frequencies(d, base), expected, frequency_tolerance(base, s))


def check_dynamic_ntk(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """scaling.frequencies(d, base) is NTK scaling by s' = max(1, s·L/L₀ − (s − 1)): unchanged up to L₀."""
    d = _require_ntk_dimension(d)
    theta, s = rope_frequencies(d, base), scaling.factor
    length, original = scaling.sequence_length, scaling.original_context
    effective = 1.0 + s * max(length - original, 0) / original
    expected = theta * effective ** (-2.0 * np.arange(d // 2) / (d - 2))
    name = f"dynamic NTK for L = {length}, L₀ = {original} is NTK scaling by s' = {effective}"
    tolerance = frequency_tolerance(base, effective)
    return _compare(name, scaling.frequencies(d, base), expected, tolerance)


def check_longrope_factors(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """scaling.frequencies(d, base) = θ_i/ext_i for every i, ext the factors its sequence length picks
    (long_factor beyond L₀, else short_factor)."""
    theta = rope_frequencies(d, base)
    ext = np.asarray(scaling.pair_factors, dtype=np.float64)
    which = "long_factor" if scaling.pair_factors is scaling.long_factor else "short_factor"
    name = f"LongRoPE divides each θ_i by its own factor ({which} at L = {scaling.sequence_length})"
    if ext.shape != theta.shape:
        return CheckResult(name, False, float("inf"), 0.0, {"reason": f"not {theta.size} factors"})
    largest = float(np.max(ext))
    return _compare(name, scaling.frequencies(d, base), theta / ext, frequency_tolerance(base, largest))


def check_yarn_regimes(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """With r_i = L₀·θ_i/(2π) turns over the original context: r_i > β_fast ⇒ θ'_i = θ_i; r_i < β_slow ⇒
    θ'_i = θ_i/s; in between θ'_i/θ_i lies in [1/s, 1]; and θ'_i/θ_i never increases with i."""
    theta, s = rope_frequencies(d, base), scaling.factor
    context, beta_fast, beta_slow = scaling.original_context, scaling.beta_fast, scaling.beta_slow
    name = f"YaRN keeps θ_i turning > {beta_fast} times in L₀ = {context}, divides those < {beta_slow} by s"
    got = _frequency_vector(scaling.frequencies(d, base), theta.size)
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


def check_yarn_attention_factor(scaling: RopeScaling) -> CheckResult:
    """scaling.attention_factor() = 0.1·ln s + 1, the √(1/t) YaRN multiplies cos and sin by (|error| ≤
    8ε(1 + value))."""
    s = scaling.factor
    expected = 0.1 * math.log(s) + 1.0
    got = float(scaling.attention_factor())
    error = abs(got - expected) if math.isfinite(got) else float("inf")
    tolerance = 8.0 * EPS64 * (1.0 + expected)
    name = f"YaRN attention factor at s = {s} is 0.1·ln s + 1"
    witness = {"factor": s, "value": got, "expected": expected}
    return CheckResult(name, error <= tolerance, error, tolerance, witness)


def check_llama3_regimes(scaling: RopeScaling, d: int, base: float) -> CheckResult:
    """λ_i < L₀/high ⇒ θ'_i = θ_i; λ_i > L₀/low ⇒ θ'_i = θ_i/s; in between θ'_i = ((1 − σ_i)/s + σ_i)·θ_i with
    σ_i = (L₀/λ_i − low)/(high − low).

    Tolerance: in the blend, σ_i carries the frequency's relative error times L₀/λ_i/(high − low) ≤
    high/(high − low), and a blended factor ≥ 1/s turns that into at most s times as much relative error.
    """
    theta, s = rope_frequencies(d, base), scaling.factor
    low, high, context = scaling.low_freq_factor, scaling.high_freq_factor, scaling.original_context
    name = f"Llama 3 keeps wavelengths < L₀/{high}, divides those > L₀/{low} by s = {s}, blends between"
    got = _frequency_vector(scaling.frequencies(d, base), theta.size)
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


def _ntk_frequencies(d: int, base: float, s: float) -> np.ndarray:
    """The frequencies of base' = base·s^(d/(d−2)) (d ≥ 4): θ'_0 = θ_0, θ'_(d/2−1) = θ_(d/2−1)/s."""
    d = _require_ntk_dimension(d)
    base = require_base(base)
    try:
        scaled_base = base * s ** (d / (d - 2))
    except OverflowError:
        scaled_base = math.inf
    if not math.isfinite(scaled_base):
        raise ValueError(f"base·factor^(d/(d−2)) overflows float64 for base={base}, factor={s}, d={d}")
    return rope_frequencies(d, scaled_base)


def _yarn_frequencies(scaling: RopeScaling, theta: np.ndarray, d: int, base: float) -> np.ndarray:
    """YaRN's NTK-by-parts θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i, γ_i = 1 − ramp_i, as the reference computes it.

    The pair index where θ_i turns n times over L₀ is c(n) = d·ln(L₀/(2πn))/(2 ln base)
    (``find_correction_dim``); the ramp runs from low = ⌊c(β_fast)⌋ to high = ⌈c(β_slow)⌉ (unrounded when
    `truncate` is False), clamped to [0, d − 1] (``find_correction_range``), and is
    clamp((i − low)/(high − low), 0, 1) (``linear_ramp_factor``). The paper's ramp γ(r) is linear in
    r = L₀θ_i/(2π); this one is linear in i, that is in ln r (see the derivation
    ``scaling.yarn_reference_ramp``). With `ramp` "paper", γ_i = clamp((r_i − α)/(β − α), 0, 1) instead,
    α = β_slow and β = β_fast (Eq. 18).
    """
    if scaling.ramp == "paper":
        turns = scaling.original_context * theta / (2.0 * math.pi)
        keep = np.clip((turns - scaling.beta_slow) / (scaling.beta_fast - scaling.beta_slow), 0.0, 1.0)
        return theta / scaling.factor * (1.0 - keep) + theta * keep
    low = _correction_dimension(scaling.beta_fast, d, base, scaling.original_context)
    high = _correction_dimension(scaling.beta_slow, d, base, scaling.original_context)
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    keep = 1.0 - _linear_ramp(max(low, 0), min(high, d - 1), theta.size)
    return theta / scaling.factor * (1.0 - keep) + theta * keep


def _yarn_keep_mp(scaling: RopeScaling, d: int, base: mpmath.mpf) -> list[mpmath.mpf]:
    """γ_i = 1 − ramp_i of `_yarn_frequencies` at the current mpmath precision."""
    context = scaling.original_context
    if scaling.ramp == "paper":
        alpha, beta = mpmath.mpf(scaling.beta_slow), mpmath.mpf(scaling.beta_fast)
        turns = [context * t / (2 * mpmath.pi) for t in frequencies_mp(d, base, mpmath.mp.dps, count=d // 2)]
        return [min(max((r - alpha) / (beta - alpha), 0), 1) for r in turns]

    def correction(turns: float) -> mpmath.mpf:
        return d * mpmath.log(context / (mpmath.mpf(turns) * 2 * mpmath.pi)) / (2 * mpmath.log(base))

    low, high = correction(scaling.beta_fast), correction(scaling.beta_slow)
    if scaling.truncate:
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += mpmath.mpf("0.001")
    return [1 - min(max((i - low) / (high - low), 0), 1) for i in range(d // 2)]


def _llama3_frequencies(scaling: RopeScaling, theta: np.ndarray) -> np.ndarray:
    """Llama 3: with λ_i = 2π/θ_i and σ_i = (L₀/λ_i − low)/(high − low), θ'_i is θ_i when λ_i < L₀/high,
    θ_i/s when λ_i > L₀/low, and (1 − σ_i)·θ_i/s + σ_i·θ_i in between (an empty band when low = high, as
    Llama 4 sets them: σ_i, 0/0 there, is computed for every pair and kept for none)."""
    s, context = scaling.factor, scaling.original_context
    low, high = scaling.low_freq_factor, scaling.high_freq_factor
    wavelength = 2.0 * math.pi / theta
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = (context / wavelength - low) / (high - low)
        blended = (1.0 - smooth) * theta / s + smooth * theta
    interpolated = np.where(wavelength > context / low, theta / s, blended)
    return np.where(wavelength < context / high, theta, interpolated)


def _llama3_mp(scaling: RopeScaling, theta: mpmath.mpf, s: mpmath.mpf) -> mpmath.mpf:
    """θ'_i of `_llama3_frequencies` for one θ_i at the current mpmath precision."""
    context = scaling.original_context
    low, high = mpmath.mpf(scaling.low_freq_factor), mpmath.mpf(scaling.high_freq_factor)
    wavelength = 2 * mpmath.pi / theta
    if wavelength < context / high:
        return theta
    if wavelength > context / low:
        return theta / s
    smooth = (context / wavelength - low) / (high - low)
    return (1 - smooth) * theta / s + smooth * theta


def _require_ntk_dimension(d: object) -> int:
    d = require_even_dimension(d)
    if d < 4:
        raise ValueError(f"d must be an even integer ≥ 4 for NTK scaling (d/(d−2) needs d > 2), got {d}")
    return d


def _require_pair_factors(values: object, name: str, required: bool) -> tuple[float, ...]:
    """LongRoPE's per-pair factors as a tuple of positive finite floats (non-empty when `required`)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a sequence of positive real numbers, got {values!r}")
    factors = tuple(require_positive_real(v, name) for v in values)
    if required and not factors:
        raise ValueError(f"{name} must hold one positive factor per pair for kind 'longrope'")
    return factors


def _require_betas(beta_fast: object, beta_slow: object) -> tuple[float, float]:
    fast = require_positive_real(beta_fast, "beta_fast")
    slow = require_positive_real(beta_slow, "beta_slow")
    if fast < slow:
        raise ValueError(f"beta_fast must be at least beta_slow, got beta_fast={fast}, beta_slow={slow}")
    return fast, slow


def _require_frequency_factors(low: object, high: object) -> tuple[float, float]:
    low_f = require_positive_real(low, "low_freq_factor")
    high_f = require_positive_real(high, "high_freq_factor")
    if high_f < low_f:
        raise ValueError(f"high_freq_factor must be at least low_freq_factor, got high={high_f}, low={low_f}")
    return low_f, high_f


def _correction_dimension(turns: float, d: int, base: float, context: int) -> float:
    """``find_correction_dim``: the real pair index i with context·θ_i/(2π) = turns."""
    return d * math.log(context / (turns * 2.0 * math.pi)) / (2.0 * math.log(base))


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


# ---------------------------------------------------------------------------------------------------------
# Certified regimes and YaRN weights (arb balls at the current flint precision)
# ---------------------------------------------------------------------------------------------------------


def turns_per_context(d: int, base: int, context: int) -> list[flint.arb]:
    """r_i = L·base^(−2i/d)/(2π): how many times pair i turns over the context L (arb balls)."""
    pi = flint.arb.pi()
    return [flint.arb(context) * omega / (2 * pi) for omega in frequencies_arb(d, base, count=d // 2)]


def certainly_above(ball: flint.arb, threshold: float | Fraction) -> bool:
    """Whether ball > threshold, certified: a ball containing the threshold raises instead of guessing."""
    exact = Fraction(threshold)
    limit = flint.arb(flint.fmpq(exact.numerator, exact.denominator))
    if ball > limit:
        return True
    if ball < limit:
        return False
    raise ValueError(f"cannot decide {ball} against {threshold} at {flint.ctx.prec} bits")


def regime_counts(turns: list[flint.arb], low: float, high: float) -> tuple[int, int, int]:
    """How many pairs turn more than `high` times (kept), at most `low` times (divided by s), and between."""
    kept = sum(certainly_above(r, high) for r in turns)
    divided = sum(not certainly_above(r, low) for r in turns)
    return kept, divided, len(turns) - kept - divided


def ramp_thresholds(scaling: RopeScaling) -> tuple[float, float]:
    """The turn counts where a ramp starts and ends: YaRN's (β_slow, β_fast), Llama 3's (low, high) factor
    (Llama 3 compares L₀/λ_i, which is the same r_i)."""
    names = FORMS[scaling.kind].thresholds
    if names is None:
        raise ValueError(f"only YaRN and Llama 3 blend between two regimes, got kind {scaling.kind!r}")
    return getattr(scaling, names[0]), getattr(scaling, names[1])


def scaling_regimes(scaling: RopeScaling, d: int, base: int) -> tuple[int, int, int]:
    """How many of the d/2 pairs `scaling` keeps, divides by s and blends, certified (`regime_counts` of
    the turns over its original context against its `ramp_thresholds`)."""
    turns = turns_per_context(d, base, scaling.original_context)
    return regime_counts(turns, *ramp_thresholds(scaling))


def _clip_unit(ball: flint.arb) -> flint.arb:
    """clamp(ball, 0, 1), certified."""
    if not certainly_above(ball, 0):
        return flint.arb(0)
    return flint.arb(1) if certainly_above(ball, 1) else ball


def _integer(ball: flint.arb, name: str) -> int:
    value = ball.unique_fmpz()
    if value is None:
        raise ValueError(f"{name} = {ball} is not certified to one integer at {flint.ctx.prec} bits")
    return int(value)


def yarn_code_bounds(scaling: RopeScaling, d: int, base: int) -> tuple[flint.arb, flint.arb, int, int]:
    """c(β), c(α) (arb balls, β = β_fast, α = β_slow) and the code's ramp ends low = ⌊c(β)⌋, high = ⌈c(α)⌉
    clamped to [0, d − 1], with c(n) = d·ln(L₀/(2πn))/(2 ln base) (``find_correction_dim``,
    ``find_correction_range`` with truncate = True)."""

    def correction_dim(turns: float) -> flint.arb:
        quotient = flint.arb(scaling.original_context) / (turns * 2 * flint.arb.pi())
        return flint.arb(d) * quotient.log() / (2 * flint.arb(base).log())

    c_beta, c_alpha = correction_dim(scaling.beta_fast), correction_dim(scaling.beta_slow)
    low = max(_integer(c_beta.floor(), "⌊c(β)⌋"), 0)
    high = min(_integer(c_alpha.ceil(), "⌈c(α)⌉"), d - 1)
    return c_beta, c_alpha, low, high


def yarn_weights(scaling: RopeScaling, d: int, base: int) -> tuple[list[flint.arb], list[Fraction]]:
    """The weight γ_i on the unscaled θ_i of every pair, by the paper and by the reference code.

    Paper: γ(r_i) = clamp((r_i − α)/(β − α), 0, 1), as arb balls. Code: 1 − clamp((i − low)/(high − low),
    0, 1) with the ends of `yarn_code_bounds`, as exact fractions.
    """
    _, _, low, high = yarn_code_bounds(scaling, d, base)
    alpha, beta = scaling.beta_slow, scaling.beta_fast
    turns = turns_per_context(d, base, scaling.original_context)
    paper = [_clip_unit((r - alpha) / (beta - alpha)) for r in turns]
    code = [1 - min(max(Fraction(i - low, high - low), Fraction(0)), Fraction(1)) for i in range(d // 2)]
    return paper, code


@dataclass(frozen=True)
class RampComparison:
    """The paper's and the reference code's YaRN weights on one configuration, compared in ball arithmetic.

    `same_ends`: both keep (weight 1) and divide (weight 0) the same pairs; `blended`: the pairs the code
    blends; `widest`: the pair whose weights differ most, by `gap` (paper `paper_at`, code `code_at`), and
    `differs` whether that gap exceeds the material difference; `c_beta`, `c_alpha`, `low`, `high` as in
    `yarn_code_bounds`. At the real pairs next to the rounded ends, `start` = low + 1 (the first pair the code
    blends) and `end` = high − 1 (the last): the paper's γ(r_i) (`paper_start`, `paper_end`), the code's
    weight (`code_start`, `code_end`) and the weight of its ramp with unrounded ends c(β), c(α)
    (`unrounded_start`, `unrounded_end`, truncate = False); `ends_moved` says whether the rounding moves the
    weights of both pairs materially. `at_beta`, `at_alpha` are the rounded ramp's values at the fractional
    dims c(β) and c(α), where no pair sits (the ramp's ends, where the paper's γ is 1 and 0).
    """

    same_ends: bool
    blended: int
    widest: int
    gap: flint.arb
    paper_at: flint.arb
    code_at: Fraction
    differs: bool
    c_beta: flint.arb
    c_alpha: flint.arb
    low: int
    high: int
    start: int
    end: int
    paper_start: flint.arb
    code_start: Fraction
    unrounded_start: flint.arb
    paper_end: flint.arb
    code_end: Fraction
    unrounded_end: flint.arb
    ends_moved: bool
    at_beta: flint.arb
    at_alpha: flint.arb


def compare_yarn_ramps(scaling: RopeScaling, d: int, base: int, material: Fraction) -> RampComparison:
    """The paper's γ(r_i) against the reference code's weights on `scaling` (`yarn_weights`), certified: a
    difference counts when it exceeds `material`."""
    alpha, beta = scaling.beta_slow, scaling.beta_fast
    turns = turns_per_context(d, base, scaling.original_context)
    paper, code = yarn_weights(scaling, d, base)
    paper_kept = {i for i, r in enumerate(turns) if certainly_above(r, beta)}
    paper_divided = {i for i, r in enumerate(turns) if not certainly_above(r, alpha)}
    same_ends = paper_kept == {i for i, w in enumerate(code) if w == 1} and paper_divided == {
        i for i, w in enumerate(code) if w == 0
    }
    gaps = [abs(flint.arb(w.numerator) / w.denominator - gamma) for gamma, w in zip(paper, code, strict=True)]
    widest = max(range(len(gaps)), key=lambda i: gaps[i].mid())
    c_beta, c_alpha, low, high = yarn_code_bounds(scaling, d, base)
    at_beta, at_alpha = (1 - (c - low) / (high - low) for c in (c_beta, c_alpha))  # low ≤ c(β) < c(α) ≤ high
    start, end = min(low + 1, d // 2 - 1), max(high - 1, 0)  # clamped for a ramp that blends no pair

    def unrounded(i: int) -> flint.arb:
        return 1 - (i - c_beta) / (c_alpha - c_beta)

    def moved(i: int) -> bool:
        weight = flint.arb(code[i].numerator) / code[i].denominator
        return certainly_above(abs(weight - unrounded(i)), material)

    return RampComparison(
        same_ends=same_ends,
        blended=sum(0 < w < 1 for w in code),
        widest=widest,
        gap=gaps[widest],
        paper_at=paper[widest],
        code_at=code[widest],
        differs=certainly_above(gaps[widest], material),
        c_beta=c_beta,
        c_alpha=c_alpha,
        low=low,
        high=high,
        start=start,
        end=end,
        paper_start=paper[start],
        code_start=code[start],
        unrounded_start=unrounded(start),
        paper_end=paper[end],
        code_end=code[end],
        unrounded_end=unrounded(end),
        ends_moved=moved(start) and moved(end),
        at_beta=at_beta,
        at_alpha=at_alpha,
    )


def yarn_factor_mp(factor: float, mscale: float = 1.0) -> mpmath.mpf:
    """YaRN's √(1/t) = 0.1·mscale·ln s + 1 at the current mpmath precision (1 for s ≤ 1), as the reference's
    get_mscale(s, mscale) computes it in float64."""
    s = mpmath.mpf(factor)
    return mpmath.mpf(1) if s <= 1 else mpmath.mpf(mscale) * mpmath.log(s) / 10 + 1


def logit_scale_mp(scaling: RopeScaling, dps: int = 30) -> mpmath.mpf:
    """The factor 1/t = attention_factor² on every logit, with `dps` digits: (0.1·ln s + 1)² for YaRN,
    1 + ln s/ln L₀ for LongRoPE, 1 for the other kinds."""
    with mpmath.workdps(require_positive_int(dps, "dps")):
        return FORMS[scaling.kind].attention_mp(scaling) ** 2


@dataclass(frozen=True)
class PairRegimes:
    """The pairs a rule keeps (weight γ_i = 1 on the unscaled θ_i), interpolates (γ_i = 0: θ_i/s) and blends
    (0 < γ_i < 1), as sorted pair indices."""

    kept: tuple[int, ...]
    blended: tuple[int, ...]
    interpolated: tuple[int, ...]


def pair_regimes(weights: list[flint.arb] | list[Fraction]) -> PairRegimes:
    """The regimes of weights γ_i that are exactly 1 or 0 where a clamp decided them (`yarn_weights`: exact
    fractions, or arb balls that `_clip_unit` made exact) and lie strictly between elsewhere."""
    kept = tuple(i for i, w in enumerate(weights) if w == 1)
    interpolated = tuple(i for i, w in enumerate(weights) if w == 0)
    blended = tuple(i for i in range(len(weights)) if i not in kept and i not in interpolated)
    return PairRegimes(kept, blended, interpolated)


def yarn_pair_regimes(scaling: RopeScaling, d: int, base: int) -> tuple[PairRegimes, PairRegimes]:
    """Which pairs the paper's γ(r_i) and the reference code's rounded ramp keep, blend and interpolate
    (`pair_regimes` of `yarn_weights`, certified at the current flint precision): (paper, code)."""
    paper, code = yarn_weights(scaling, d, base)
    return pair_regimes(paper), pair_regimes(code)


def attention_factor_arb(factor: float) -> flint.arb:
    """YaRN's √(1/t) = 0.1·ln s + 1 (Peng et al. 2023, Eq. 22) as an arb ball at the current flint
    precision, s read exactly from its float."""
    return flint.arb(require_factor(factor)).log() / 10 + 1


def check_attention_factor_exact(scaling: RopeScaling) -> CheckResult:
    """|scaling.attention_factor() − (0.1·ln s + 1)| ≤ 8ε(1 + value), the exact value an arb ball at the
    current precision: the code's float64 factor is the paper's formula to a few units in the last place
    (the distance is a ball, and the check holds only when all of it is below the tolerance)."""
    s = scaling.factor
    exact = attention_factor_arb(s)
    got = float(scaling.attention_factor())
    tolerance = 8.0 * EPS64 * (1.0 + float(exact.mid()))
    name = f"the attention factor at s = {s} is 0.1·ln s + 1 to a few ulps"
    witness = {"factor": s, "value": got, "exact": exact.str(20, radius=False)}
    if not math.isfinite(got):
        return CheckResult(name, False, float("inf"), tolerance, witness)
    distance = abs(flint.arb(got) - exact)
    largest = float((distance.mid() + distance.rad()).upper())
    return CheckResult(name, bool(distance < tolerance), largest, tolerance, witness)
