"""The `rope-frequencies` battery: properties of a RoPE frequency vector ``inv_freq(d) -> [d // 2]``.

The implementation may return ``(inv_freq, attention_factor)``, as transformers' init functions do, and may
take a config instead of d, as they do (``ROPE_INIT_FUNCTIONS[rope_type](config, device, seq_len=None)``, a
rotary class's ``compute_default_rope_parameters(config)``): it is then called with a config of the class it
names, built for each d (head_dim = d, the declared base and context) with a scaling block of the suite's for
its rope_type (`SCALING_BLOCKS`), which the identification shows. The frequencies are checked as any
inv_freq; the attention factor against the identified rule's own (`attention_note`: YaRN's 0.1·ln s + 1 at
the s identified, LongRoPE's √(1 + ln s/ln L₀), 1 for the others), a finding either way.

Properties (d drawn from the battery's dimensions):

* one-per-pair — ``inv_freq(d)`` holds exactly d/2 values, one per rotated pair;
* finite — every value is finite;
* positive — every value is > 0 (a frequency is a turn rate, never zero or negative);
* decreasing — θ_(i+1) < θ_i for every i: pair 0 turns fastest, each later pair strictly slower;
* deterministic — two calls with the same d give bitwise-equal results;
* fastest-at-most-one — θ_0 ≤ 1 (within 4u): every reference rule (unscaled, linear, NTK, dynamic NTK,
  YaRN, Llama 3, with factors ≥ 1) keeps or slows the fastest pair, none makes it turn faster than 1 rad.

Identification fits the vectors against the Hugging Face rules of `properties.encodings.scaling.RopeScaling` —
unscaled base^(−2i/d) (the declared base, another base, or another exponent), linear interpolation, NTK-aware,
YaRN and Llama 3 — on the relative deviation max_(d,i) |θ'_i/θ_ref_i − 1|, and names the rule with its
parameters. YaRN is tried with the reference code's ramp over pair indices (truncated or not) and with the
paper's ramp γ linear in r = L₀/λ between α and β (Eq. 18), named by the parameter ``ramp``; the paper's α
and β are fitted from the blended pairs when they are not among `YARN_BETAS`. LongRoPE (Phi-3: every pair
divided by its own factor) comes last: any vector whose factors θ_i/θ'_i are non-decreasing (some may lie
below 1) is LongRoPE with those factors, so it is named only when no rule with few parameters fits.
Dynamic NTK at one sequence length is the same vector as NTK with another factor, so one call of
``inv_freq(d)`` cannot tell them apart: it is reported as NTK. When no rule matches at the result dtype's
tolerance, the rules are tried at the first narrower precision (float32, float16, bfloat16) that holds every
value exactly:
``1.0 / (base ** (torch.arange(0, d, 2).float() / d))`` returned as float64 is the rule
"computed in float32" (`computed_in`, a `low-precision` finding), not an unknown one.
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ...encodings.frequencies import exponents
from ...encodings.rope_rules import BY_KIND, battery_variants
from ...encodings.scaling import FORMS, RopeScaling, frequency_tolerance, rope_frequencies
from .. import (
    Backend,
    Broken,
    Family,
    Finding,
    Identification,
    Outcome,
    Settings,
    as_array,
    call,
    computed_in,
    define,
    finding,
    no_arrays,
    outcome,
    register,
    require_result,
    search,
    short,
    unit_roundoff,
)
from ..rope_conventions import config_class, transformers_config

FAMILY_NAME = "rope-frequencies"

#: The `variant` strings of an identification (the CLI's ``--expect`` compares against these).
VARIANTS = battery_variants()
UNKNOWN = "matches no known variant"

#: Original context lengths L₀ tried for YaRN and Llama 3 (the rule's default first).
CONTEXTS = (2048, 4096, 8192, 16384, 32768, 131072)
#: (beta_fast, beta_slow) tried for YaRN, the reference's defaults first.
YARN_BETAS = ((32.0, 1.0), (16.0, 1.0), (64.0, 1.0), (32.0, 2.0))
#: (low_freq_factor, high_freq_factor) tried for Llama 3, the reference's defaults first.
LLAMA3_FACTORS = ((1.0, 4.0), (1.0, 2.0), (2.0, 4.0), (1.0, 8.0))
#: Exponent mistakes tried besides −2i/d: (label, exponent text, base^(−2i/d) equivalent base).
EXPONENTS: tuple[tuple[str, str, Callable[[float, int], float]], ...] = (
    ("wrong-exponent", "-i/d", lambda base, d: base**0.5),
    ("wrong-exponent", "-4i/d", lambda base, d: base**2.0),
    ("exponent-d-2", "-2i/(d-2)", lambda base, d: base ** (d / (d - 2))),
)
DEVIATION = "relative: max over d and i of |θ'_i/θ_ref_i − 1|"
TOLERANCE = (
    "frequency_tolerance(base, factor)·u/u_float64 for the result's unit roundoff u "
    "(Llama 3: × (1 + factor·high/(high − low)))"
)


# ------------------------------------------------------------------------------------------ adapter


class FrequencyTarget:
    """The implementation seen by the checks: ``inv_freq(d)`` called with d as a Python int, or a
    transformers-style init function ``fn(config, device=None, seq_len=None)`` called with a config for head
    size d (`config_for`); its result, inv_freq alone or the (inv_freq, attention_factor) pair transformers'
    init functions return, converted to float64 and validated. `dtype` is the dtype of the latest inv_freq
    (for tolerances), `attention` the attention factor returned with each d's, where one was."""

    def __init__(self, function: Callable, backend: Backend, settings: Settings) -> None:
        self.function = function
        self.backend = backend
        self.settings = settings
        self.dtype = "float64"
        self.rope_type = rope_type(function) if takes_config(function) else None
        self.attention: dict[int, float] = {}
        self._configs: dict[int, Any] = {}

    def argument(self, d: int) -> tuple[Any, str]:
        """What inv_freq(d) is called with (d, or the config built for d once and kept), and the call in
        words."""
        if self.rope_type is None:
            return int(d), f"inv_freq({d})"
        name = getattr(self.function, "__name__", "init")
        if d not in self._configs:
            build = lambda: config_for(self.function, self.rope_type, d, self.settings)  # noqa: E731
            self._configs[d] = call(build, (), f"building a config with head_dim={d} for {name}")
        return self._configs[d], f"{name}(config with head_dim={d}, rope_type {self.rope_type})"

    def raw(self, d: int) -> np.ndarray:
        """inv_freq(d) as a float64 array, unvalidated (`Broken('raises')` if it raised); an attention factor
        returned beside it is kept in `attention`."""
        argument, what = self.argument(d)
        inv_freq, factor = _split(call(self.function, (argument,), what), what)
        array, self.dtype = as_array(inv_freq, what)
        if factor is not None:
            self.attention[d] = factor
        return array

    def frequencies(self, d: int) -> np.ndarray:
        """inv_freq(d), `Broken` unless it is d/2 finite values."""
        return require_result(self.raw(d), (d // 2,), f"inv_freq({d})")

    @property
    def unit_roundoff(self) -> float:
        return unit_roundoff(self.dtype)

    @property
    def called_with(self) -> str | None:
        """The config an init function is called with, in words (None for ``inv_freq(d)``)."""
        if self.rope_type is None:
            return None
        block = {**SCALING_BLOCKS.get(self.rope_type, {})}
        if self.rope_type == "longrope":
            block.update({name: f"1 … {top:g} over the pairs" for name, top in LONGROPE_FACTORS.items()})
        shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in block.items())
        return (
            f"a {config_class(self.function).__name__} per d with head_dim=d, rope_theta="
            f"{self.settings.base:g}, max_position_embeddings={self.settings.max_pos}, rope_type "
            f"{self.rope_type}{', ' + shown if shown else ''} (the scaling parameters are the suite's)"
        )


def _split(result: Any, what: str) -> tuple[Any, float | None]:
    """(inv_freq, attention factor) of a result: a tuple of an array and a number, as transformers' init
    functions return, or inv_freq alone (factor None); a factor that is no finite real number is
    `Broken`."""
    if not (isinstance(result, tuple) and len(result) == 2 and np.ndim(result[0]) >= 1):
        return result, None
    try:
        factor = float(result[1])
    except (TypeError, ValueError):
        kind = type(result[1]).__name__
        detail = f"{what} returned an attention factor of type {kind}, not a number"
        raise Broken("wrong-shape", detail) from None
    if not math.isfinite(factor):
        raise Broken("not-finite", f"{what} returned the attention factor {factor}")
    return result[0], factor


def takes_config(function: Callable) -> bool:
    """Whether `function` is a transformers-style init function: its first parameter is ``config``."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return False
    return names[:1] == ["config"]


def rope_type(function: Callable) -> str:
    """The ``rope_type`` transformers registers `function` under (``ROPE_INIT_FUNCTIONS``), ``default``
    for any other init function (a rotary class's ``compute_default_rope_parameters``, one's own)."""
    module = sys.modules.get("transformers.modeling_rope_utils")
    registered = getattr(module, "ROPE_INIT_FUNCTIONS", {})
    return next((name for name, f in registered.items() if f is function), "default")


#: The scaling block a transformers init function of each ``rope_type`` is handed, besides ``rope_theta``
#: (the declared base): YaRN as YaRN's Llama 2 models (s = 16 over L₀ = 4096), Llama 3 as Llama 3.1, a
#: factor 4 for linear and dynamic (dynamic is unscaled at seq_len None: L = L₀ =
#: max_position_embeddings); LongRoPE's factors come per d (`LONGROPE_FACTORS`).
SCALING_BLOCKS: dict[str, dict[str, Any]] = {
    "linear": {"factor": 4.0},
    "dynamic": {"factor": 4.0},
    "yarn": {"factor": 16.0, "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0},
    "llama3": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    "longrope": {"original_max_position_embeddings": 4096},
}
#: LongRoPE's short and long factors at head size d: from 1 up to these, evenly over the d/2 pairs.
LONGROPE_FACTORS = {"short_factor": 2.0, "long_factor": 8.0}


def config_for(function: Callable, kind: str, d: int, settings: Settings) -> Any:
    """The config a transformers init function of ``rope_type`` `kind` is called with at head size d: of
    the config class it names (`rope_conventions.transformers_config`), with the declared base and
    context, and ``rope_parameters`` of `SCALING_BLOCKS` for its type."""
    config = transformers_config(function, d, settings)
    block = dict(SCALING_BLOCKS.get(kind, {}))
    if kind == "longrope":
        block.update({name: np.linspace(1.0, top, d // 2).tolist() for name, top in LONGROPE_FACTORS.items()})
    config.rope_parameters = {"rope_type": kind, "rope_theta": settings.base, **block}
    return config


def adapt(function: Callable, form: str, backend: Backend, settings: Settings) -> FrequencyTarget:
    """The adapter; a ValueError (usage error) unless every dimension is an even integer ≥ 4 and the
    declared base a finite number above 1 (every rule's reference needs one)."""
    for d in settings.ds:
        if isinstance(d, bool) or not isinstance(d, int) or d < 4 or d % 2:
            raise ValueError(f"rope-frequencies dimensions must be even integers ≥ 4, got {d!r}")
    if not (math.isfinite(settings.base) and settings.base > 1):
        raise ValueError(f"the declared base must be a finite number above 1, got {settings.base!r}")
    return FrequencyTarget(function, backend, settings)


def screen(target: FrequencyTarget, d: int) -> None:
    """One plain call inv_freq(d) (`battery.screen`): `Broken` when it raises or does not return d/2
    values."""
    array = target.raw(d)
    if array.shape != (d // 2,):
        raise Broken("wrong-shape", f"inv_freq({d}) returned shape {array.shape}, expected {(d // 2,)}")


def _dimensions(settings: Settings) -> st.SearchStrategy[int]:
    return st.sampled_from(tuple(settings.ds))


def _equal_cause(d: int, theta: np.ndarray) -> str | None:
    """Why neighbouring pairs of inv_freq(d) turn at the same frequency (the cause where the values tell it),
    or None when no two neighbours are equal."""
    same = np.flatnonzero(theta[1:] == theta[:-1])
    if same.size == 0:
        return None
    if np.all(theta == theta[0]):
        if theta[0] == 1.0:
            return (
                f"every value of inv_freq({d}) is 1, so every exponent is 0: integer division "
                "(`torch.arange(0, d, 2) // d` is 0 for every pair; divide with `/`), or a constant "
                "frequency (rotary-embedding-torch's freqs_for='constant')"
            )
        return (
            f"every value of inv_freq({d}) is {short(float(theta[0]))}: one frequency for every pair (a "
            "constant frequency, or an exponent that is the same for every pair)"
        )
    i = int(same[0])
    return f"θ_{i} = θ_{i + 1} = {short(float(theta[i]))} at d = {d}: pairs {i} and {i + 1} turn alike"


def _equal_frequencies(observed: Mapping[int, np.ndarray]) -> Finding | None:
    """The equal-frequencies finding of positive vectors θ' (one per d) where neighbours are equal."""
    for d, theta in observed.items():
        cause = _equal_cause(d, theta)
        if cause is not None:
            return finding("equal-frequencies", cause)
    return None


def _pair(a: float, b: float) -> tuple[float, float]:
    """a and b for a counterexample: 6 significant digits, unless that would show different values equal."""
    shown = short(a), short(b)
    return (float(a), float(b)) if shown[0] == shown[1] and a != b else shown


# ------------------------------------------------------------------------------------------ properties


@register(FAMILY_NAME, "one-per-pair", "inv_freq(d) holds exactly d/2 values, one per rotated pair")
def check_one_per_pair(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        array = target.raw(d)
        if array.shape == (d // 2,):
            return None
        return {"d": d, "shape": list(array.shape), "expected": [d // 2]}

    found = search(_dimensions(settings), fails, settings, settings.ds)
    return outcome("one-per-pair", "exact: shape (d // 2,)", found, "wrong-shape")


@register(FAMILY_NAME, "finite", "every frequency is finite (no NaN, no infinity)")
def check_finite(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        array = target.raw(d)
        bad = np.argwhere(~np.isfinite(array))
        if bad.size == 0:
            return None
        index = tuple(int(k) for k in bad[0])
        return {"d": d, "index": list(index), "value": str(float(array[index]))}

    found = search(_dimensions(settings), fails, settings, settings.ds)
    return outcome("finite", "exact: every value finite", found, "not-finite")


@register(FAMILY_NAME, "positive", "every frequency is > 0")
def check_positive(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        theta = target.frequencies(d)
        bad = np.flatnonzero(theta <= 0)
        if bad.size == 0:
            return None
        i = int(bad[0])
        found: dict[str, Any] = {"d": d, "i": i, "theta[i]": short(float(theta[i]))}
        if not np.any(theta):
            found = {"message": f"every value of inv_freq({d}) is 0: no pair turns", **found}
        return found

    found = search(_dimensions(settings), fails, settings, settings.ds)
    return outcome("positive", "exact: θ_i > 0", found, "not-positive")


@register(FAMILY_NAME, "decreasing", "θ_(i+1) < θ_i for every pair index i: each later pair turns slower")
def check_decreasing(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        theta = target.frequencies(d)
        bad = np.flatnonzero(theta[1:] >= theta[:-1])
        if bad.size == 0:
            return None
        i = int(bad[0])
        first, second = _pair(float(theta[i]), float(theta[i + 1]))
        found: dict[str, Any] = {"d": d, "i": i, "theta[i]": first, "theta[i+1]": second}
        if theta[i] == theta[i + 1]:  # equal values: name the cause (non-positive ones are `positive`'s)
            if theta[i] > 0:
                cause = _equal_cause(d, theta)
                return {"label": "equal-frequencies", "message": cause, **found}
            return {"label": "not-positive", "message": "equal values that are not positive", **found}
        return found

    largest = max(settings.ds)
    found = search(_dimensions(settings), fails, settings, sorted(settings.ds, reverse=True))
    step = 1.0 - settings.base ** (-2.0 / largest)
    tolerance = (
        f"exact: θ_(i+1) < θ_i; the reference's relative step 1 − base^(−2/d) = {short(step)} at d = "
        f"{largest}, against the unit roundoff u = {target.unit_roundoff:.3g} of {target.dtype}"
    )
    return outcome("decreasing", tolerance, found, "not-decreasing")


@register(FAMILY_NAME, "deterministic", "two calls inv_freq(d) give bitwise-equal results")
def check_deterministic(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        first, second = target.raw(d), target.raw(d)
        if first.shape != second.shape:
            return {"d": d, "first_shape": list(first.shape), "second_shape": list(second.shape)}
        differ = np.argwhere(~((first == second) | (np.isnan(first) & np.isnan(second))))
        if differ.size == 0:
            return None
        index = tuple(int(k) for k in differ[0])
        a, b = _pair(float(first[index]), float(second[index]))
        return {"d": d, "index": list(index), "first": a, "second": b}

    found = search(_dimensions(settings), fails, settings, settings.ds)
    return outcome("deterministic", "exact: bitwise-equal results", found, "nondeterministic")


@register(
    FAMILY_NAME,
    "fastest-at-most-one",
    "θ_0 ≤ 1: no reference rule (unscaled or scaled by a factor ≥ 1) speeds up the fastest pair",
)
def check_fastest_at_most_one(target: FrequencyTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        theta = target.frequencies(d)
        bound = 1.0 + 4.0 * target.unit_roundoff
        if theta[0] <= bound:
            return None
        shown = short(float(theta[0]))
        return {"d": d, "theta[0]": shown if shown > bound else float(theta[0]), "bound": bound}

    found = search(_dimensions(settings), fails, settings, settings.ds)
    u = target.unit_roundoff
    tolerance = f"θ_0 ≤ 1 + 4u = {1.0 + 4.0 * u!r} (u = {u:.3g} of {target.dtype})"
    return outcome("fastest-at-most-one", tolerance, found, "fast-pair-above-one")


# ------------------------------------------------------------------------------------- identification


@dataclass(frozen=True)
class Candidate:
    """A reference rule with parameters, how far the observed vectors are from it, and its preference rank
    (0: unscaled with the declared base; 1: a scaling rule with the declared base and round parameters;
    2: a known exponent mistake; 3: a rule with another, round, base; 4: unrounded parameters)."""

    variant: str
    parameters: dict[str, Any]
    deviation: float
    tolerance: float
    rank: int
    labels: tuple[str, ...] = ()

    @property
    def matches(self) -> bool:
        return self.deviation <= self.tolerance


class Fit:
    """The observed vectors of every d, and their deviation from candidate references."""

    def __init__(
        self,
        observed: dict[int, np.ndarray],
        dtype: str,
        declared_base: float,
        reading_error: Mapping[int, np.ndarray] | None = None,
    ) -> None:
        self.observed = observed
        self.ds = tuple(observed)
        self.dtype = dtype
        self.base = declared_base
        self.scale = unit_roundoff(dtype) / unit_roundoff("float64")
        self.reading_error = dict(reading_error or {})

    def deviation(self, reference: Callable[[int], np.ndarray]) -> float:
        """max over d, i of |θ'_i/θ_ref_i − 1|, less the reading error of θ'_i relative to θ_ref_i where the
        θ'_i were measured (`reading_error`, absolute), never below 0 (infinite if a reference cannot be
        computed)."""
        worst = 0.0
        for d, theta in self.observed.items():
            try:
                ref = np.asarray(reference(d), dtype=np.float64)
            except (ValueError, OverflowError, ZeroDivisionError):
                return math.inf
            if ref.shape != theta.shape or not np.all(np.isfinite(ref)) or np.any(ref <= 0):
                return math.inf
            excess = np.abs(theta / ref - 1.0) - self.reading_error.get(d, 0.0) / ref
            worst = max(worst, float(np.max(np.maximum(excess, 0.0))))
        return worst

    def tolerance(self, base: float, factor: float = 1.0, multiplier: float = 1.0) -> float:
        """`frequency_tolerance(base, factor)` scaled from float64 to the result's unit roundoff."""
        return frequency_tolerance(base, max(factor, 1.0)) * self.scale * multiplier

    def stacked(
        self, rows: Callable[[int, np.ndarray], tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) over every d, concatenated, from rows(d, observed θ)."""
        xs, ys = zip(*(rows(d, theta) for d, theta in self.observed.items()), strict=True)
        return np.concatenate(xs), np.concatenate(ys)


def _round_values(x: float) -> list[float]:
    """x rounded to 1, 2, 3 and 4 significant digits (distinct, in that order)."""
    out: list[float] = []
    if not math.isfinite(x) or x <= 0:
        return out
    for digits in (1, 2, 3, 4):
        value = float(f"{x:.{digits}g}")
        if value not in out:
            out.append(value)
    return out


def _snapped(
    x: float, deviation: Callable[[float], float], tolerance: Callable[[float], float]
) -> tuple[float, float, bool]:
    """(value, deviation, round): the first rounding of x that still matches, else x itself (not tried when
    x is a hundred times its tolerance away: no rounding of it will match)."""
    unrounded = deviation(x)
    if not unrounded <= 100.0 * tolerance(x):
        return x, unrounded, False
    for value in _round_values(x):
        dev = deviation(value)
        if dev <= tolerance(value):
            return value, dev, True
    return x, unrounded, False


def _unscaled(fit: Fit) -> list[Candidate]:
    """The unscaled rule with the declared base, with a fitted base, and with known exponent mistakes."""
    base = fit.base
    out = [
        Candidate(
            "none",
            {"base": base},
            fit.deviation(lambda d: rope_frequencies(d, base)),
            fit.tolerance(base),
            0,
        )
    ]
    for label, exponent, equivalent in EXPONENTS:
        dev = fit.deviation(lambda d, eq=equivalent: rope_frequencies(d, eq(base, d)))
        out.append(
            Candidate("none", {"base": base, "exponent": exponent}, dev, fit.tolerance(base**2), 2, (label,))
        )
    # ln θ_i = −(2i/d)·ln B: least squares for ln B over every d and i.
    x, y = fit.stacked(lambda d, theta: (-exponents(d, d // 2), np.log(theta)))
    if np.dot(x, x) > 0:
        log_base = -float(np.dot(x, y) / np.dot(x, x))
        if 0 < log_base < 700:
            value, dev, rounded = _snapped(
                math.exp(log_base),
                lambda b: fit.deviation(lambda d: rope_frequencies(d, b)) if b > 1 else math.inf,
                fit.tolerance,
            )
            if value != base and value > 1:
                out.append(
                    Candidate(
                        "none",
                        {"base": value},
                        dev,
                        fit.tolerance(value),
                        3 if rounded else 4,
                        ("wrong-base",),
                    )
                )
    return out


def _first_step_base(fit: Fit) -> float | None:
    """The base (θ_0/θ_1)^(d/2) of the largest d: the base of the kept fast pairs of YaRN and Llama 3, and of
    every pair under linear scaling; None unless θ_0 > θ_1 and that base, rounded or not, is above 1."""
    d = max(fit.ds)
    theta = fit.observed[d]
    if theta.size < 2 or theta[1] >= theta[0]:
        return None
    log_base = math.log(theta[0] / theta[1]) * d / 2.0
    if not 0 < log_base < 700:
        return None
    for value in _round_values(math.exp(log_base)):
        if value > 1 and abs(math.log(value) - log_base) <= fit.tolerance(value):
            return value
    base = math.exp(log_base)
    return base if base > 1 else None  # a first step too small to be told from 1: no base


def _ratio_rule(
    fit: Fit, base: float, scheme: RopeScaling, rank: int, labels: tuple[str, ...]
) -> Candidate | None:
    """Fit the factor s of a rule θ'_i = θ_i·(1 − w_i·(1 − 1/s)) (linear: w = 1; YaRN: the ramp; Llama 3:
    1 − σ): w comes from `scheme` itself at s = 2, then 1 − 1/s by least squares."""

    def reference(d: int, s: float) -> np.ndarray:
        return replace(scheme, factor=s).frequencies(d, base)

    weights, ratios = [], []
    for d, theta in fit.observed.items():
        plain = rope_frequencies(d, base)
        weights.append((1.0 - reference(d, 2.0) / plain) / 0.5)
        ratios.append(theta / plain)
    w, r = np.concatenate(weights), np.concatenate(ratios)
    if float(np.dot(w, w)) < 1e-12:
        return None
    t = float(np.dot(w, 1.0 - r) / np.dot(w, w))
    if not 0 < t < 1:
        return None

    def deviation(s: float) -> float:
        return fit.deviation(lambda d: reference(d, s)) if s >= 1 else math.inf

    def tolerance(s: float) -> float:
        # a blend may carry its weight's error times the rule's gain (Llama 3: s·high/(high − low))
        return fit.tolerance(base, s, 1.0 + FORMS[scheme.kind].blend_gain(replace(scheme, factor=s)))

    s, dev, rounded = _snapped(1.0 / (1.0 - t), deviation, tolerance)
    if s == 1.0:
        return None
    parameters = {"base": base, "factor": s, **_structure(scheme)}
    return Candidate(scheme.kind, parameters, dev, tolerance(s), rank if rounded else 4, labels)


#: The reference's names of `RopeScaling` fields, where they differ.
REFERENCE_NAMES = {"original_context": "original_max_position_embeddings"}


def _structure(scheme: RopeScaling) -> dict[str, Any]:
    """The parameters a rule reports besides base and factor (`RopeRule.reported`), under the reference's
    names; `truncate` only with the code's ramp, which is the one it changes."""
    return {
        REFERENCE_NAMES.get(name, name): getattr(scheme, name)
        for name in BY_KIND[scheme.kind].reported
        if not (name == "truncate" and scheme.ramp != "code")
    }


def _ntk(fit: Fit) -> Candidate | None:
    """NTK-aware with the declared base: ln(θ'_i/θ_i) = −(2i/(d − 2))·ln s, ln s by least squares."""
    base = fit.base
    x, y = fit.stacked(
        lambda d, theta: (2.0 * np.arange(d // 2) / (d - 2), np.log(theta / rope_frequencies(d, base)))
    )
    log_s = -float(np.dot(x, y) / np.dot(x, x))
    if not 0 < log_s < 700:
        return None

    def deviation(s: float) -> float:
        return fit.deviation(lambda d: RopeScaling("ntk", s).frequencies(d, base)) if s >= 1 else math.inf

    s, dev, rounded = _snapped(math.exp(log_s), deviation, lambda s: fit.tolerance(base, s))
    if s == 1.0:
        return None
    return Candidate("ntk", {"base": base, "factor": s}, dev, fit.tolerance(base, s), 1 if rounded else 4)


def _schemes() -> list[RopeScaling]:
    """The ratio rules tried, each at factor 1: linear, then YaRN (the code's ramp, truncated or not, then
    the paper's) and Llama 3 over `CONTEXTS` and their parameter sets (Llama 3 from its default L₀ = 8192)."""
    out = [RopeScaling("linear")]
    for context in CONTEXTS:
        for fast, slow in YARN_BETAS:
            for truncate in (True, False):
                out.append(RopeScaling("yarn", 1.0, context, fast, slow, truncate=truncate))
    for context in CONTEXTS:
        for fast, slow in YARN_BETAS:
            out.append(RopeScaling("yarn", 1.0, context, fast, slow, ramp="paper"))
    for context in (8192, *(c for c in CONTEXTS if c != 8192)):
        for low, high in LLAMA3_FACTORS:
            out.append(RopeScaling("llama3", 1.0, context, low_freq_factor=low, high_freq_factor=high))
    return out


def _paper_betas(fit: Fit, base: float) -> list[RopeScaling]:
    """The paper's YaRN ramps (factor 1) whose α, β come from the observed blend at the largest d, one per L₀
    of `CONTEXTS`: θ'_i/θ_i = 1/s + γ_i·(1 − 1/s) with s from the slowest pair, and on the blended pairs
    γ_i = (L₀θ_i/(2π) − α)/(β − α) = a·θ_i + b by least squares. Only α/L₀ and β/L₀ are determined, so each
    L₀ gives its own α, β (rounded to 4 significant digits when that is within 10⁻⁶ of the fit); none when
    fewer than two pairs are blended."""
    d = max(fit.ds)
    plain = rope_frequencies(d, base)
    ratio = fit.observed[d] / plain
    inverse = float(np.min(ratio))
    if not 0 < inverse < 1 - 1e-6:
        return []
    gamma = (ratio - inverse) / (1.0 - inverse)
    blended = (gamma > 1e-6) & (gamma < 1 - 1e-6)
    if np.count_nonzero(blended) < 2:
        return []
    a, b = np.polyfit(plain[blended], gamma[blended], 1)
    if not a > 0:
        return []
    out = []
    for context in CONTEXTS:
        width = context / (2.0 * math.pi * a)
        alpha = -b * width
        if not alpha > 0:
            continue
        slow, fast = (_nearly_round(v) for v in (alpha, alpha + width))
        if (fast, slow) not in YARN_BETAS and math.isfinite(fast):
            out.append(RopeScaling("yarn", 1.0, context, fast, slow, ramp="paper"))
    return out


def _nearly_round(x: float) -> float:
    """x at the fewest significant digits (up to 4) within 10⁻⁶ relative of it, else x."""
    return next((v for v in _round_values(x) if abs(v / x - 1.0) <= 1e-6), x)


def _scaled(fit: Fit) -> list[Candidate]:
    """Linear, NTK, YaRN and Llama 3 candidates (YaRN, Llama 3 and linear also with the first-step base)."""
    out: list[Candidate | None] = [_ntk(fit)]
    bases = [fit.base]
    other = _first_step_base(fit)
    if other is not None and abs(math.log(other / fit.base)) > fit.tolerance(other):
        bases.append(other)
    for base in bases:
        rank, labels = (1, ()) if base == fit.base else (3, ("wrong-base",))
        out.extend(_ratio_rule(fit, base, scheme, rank, labels) for scheme in _schemes())
        for scheme in _paper_betas(fit, base):
            round_betas = all(float(f"{v:.4g}") == v for v in (scheme.beta_fast, scheme.beta_slow))
            out.append(_ratio_rule(fit, base, scheme, rank if round_betas else 4, labels))
    return [c for c in out if c is not None]


def _longrope(fit: Fit) -> Candidate | None:
    """LongRoPE with the declared base: the per-pair factors ext_i = θ_i/θ'_i at every d, a candidate when
    they are non-decreasing in i (LongRoPE's constraint on its searched factors) and not all at most 1, each
    within the tolerance. Factors below 1 are allowed: published tables have them (VoxCPM2's first is
    0.9978). Any such vector is LongRoPE with some factors, so it ranks below every rule with few parameters
    (rank 5)."""
    base = fit.base
    factors = {d: rope_frequencies(d, base) / theta for d, theta in fit.observed.items()}
    largest = max(float(np.max(f)) for f in factors.values())
    if not math.isfinite(largest):
        return None
    tolerance = fit.tolerance(base, largest)
    for ext in factors.values():
        if np.any(ext[1:] < ext[:-1] * (1 - 2 * tolerance)):
            return None
    if largest <= 1 + tolerance:
        return None

    def reference(d: int) -> np.ndarray:
        ext = tuple(float(e) for e in factors[d])
        return RopeScaling("longrope", short_factor=ext, long_factor=ext).frequencies(d, base)

    d = max(fit.ds)
    parameters = {
        "base": base,
        "factors_at_d": d,
        "factors": [short(float(e)) for e in factors[d]],
    }
    return Candidate("longrope", parameters, fit.deviation(reference), tolerance, 5)


def candidates(fit: Fit) -> list[Candidate]:
    """Every candidate rule with fitted parameters, in order of preference within a rank."""
    longrope = _longrope(fit)
    return _unscaled(fit) + _scaled(fit) + ([longrope] if longrope is not None else [])


def choose(found: Sequence[Candidate]) -> tuple[Candidate, bool]:
    """(the preferred matching candidate, True), or (the closest one, False) when none matches. NTK
    scaling's frequencies are those of another base, so where both match (one d cannot tell them apart) the
    rounder number wins: a base of 10⁷ (one significant digit) over NTK of 10⁴ by 947.5 (four), NTK of 10⁴
    by 31 over a base of 1.5·10⁶ and more digits."""
    matching = [c for c in found if c.matches]
    if not matching:
        return min(found, key=lambda c: c.deviation), False
    best = min(matching, key=lambda c: c.rank)
    if best.variant == "ntk":
        based = [c for c in matching if c.variant == "none" and set(c.parameters) == {"base"}]
        rounder = [c for c in based if _digits(c.parameters["base"]) < _digits(best.parameters["factor"])]
        best = rounder[0] if rounder else best
    return best, True


def _digits(value: float) -> int:
    """The fewest significant digits (up to 6) that write `value` within 10⁻⁶ of it, 7 for more."""
    return next((k for k in range(1, 7) if abs(float(f"{value:.{k}g}") / value - 1.0) <= 1e-6), 7)


def _describe(candidate: Candidate) -> str:
    shown = ", ".join(f"{k}={_display(v)}" for k, v in candidate.parameters.items())
    return f"{candidate.variant} ({shown}) at relative deviation {short(candidate.deviation)}"


def _display(value: Any) -> Any:
    return short(value) if isinstance(value, float) else value


def identify_rule(
    observed: Mapping[int, np.ndarray],
    dtype: str,
    base: float,
    reading_error: Mapping[int, np.ndarray] | None = None,
) -> tuple[Identification, list[Finding]]:
    """The scaling rule that positive frequency vectors θ' (one per d) follow, at the tolerance of `dtype`
    (the precision they were computed in) with `base` the declared base: the preferred matching candidate,
    its parameters and the findings it implies; when none matches, `UNKNOWN` with the closest candidate
    (parameter ``closest``) and an unknown-scaling finding. `reading_error` (absolute, one per θ'_i) widens
    each comparison when the θ'_i were measured rather than returned (read off rotation angles)."""
    fit = Fit(dict(observed), dtype, base, reading_error)
    found = candidates(fit)
    best, matched = choose(found)
    parameters = {k: _display(v) for k, v in best.parameters.items()}
    parameters.update(
        deviation=DEVIATION, tolerance=short(best.tolerance), tolerance_rule=TOLERANCE, dtype=dtype
    )
    if not matched:
        parameters = {"closest": best.variant, **parameters}
        detail = (
            f"the closest is {_describe(best)} > tolerance {short(best.tolerance)} "
            f"(d = {', '.join(map(str, fit.ds))}, {dtype})"
        )
        identified = Identification(UNKNOWN, parameters, short(best.deviation), False)
        return identified, [finding("unknown-scaling", detail)]
    return Identification(best.variant, parameters, short(best.deviation), True), _findings(best, fit, found)


def identify(target: FrequencyTarget, settings: Settings) -> tuple[Identification | None, list[Finding]]:
    """The rule inv_freq computes, with its parameters, and the findings it implies (`rule_of`); with the
    attention factors returned beside inv_freq, what they are under that rule (`attention_findings`)."""
    identified, found = rule_of(target, settings)
    called_with = target.called_with
    if called_with is not None:
        identified = replace(identified, parameters={**identified.parameters, "called with": called_with})
    return identified, found + attention_findings(target.attention, identified)


def rule_of(target: FrequencyTarget, settings: Settings) -> tuple[Identification, list[Finding]]:
    """The rule inv_freq computes, with its parameters, and the findings it implies (`identify_rule`, at
    the returned dtype, else at the narrower precision that holds every value, a low-precision finding).
    Degenerate vectors fit no rule and are named for what they are: a value that is not positive is
    `Broken('not-positive')`, neighbouring pairs at the same frequency (every value 1, say) `UNKNOWN`, with
    the deviation from the unscaled rule and an equal-frequencies finding alone."""
    observed = {d: target.frequencies(d) for d in settings.ds}
    for d, theta in observed.items():
        bad = np.flatnonzero(theta <= 0)
        if bad.size:
            i = int(bad[0])
            raise Broken("not-positive", f"inv_freq({d})[{i}] = {short(float(theta[i]))}: no rule fits")
    returned = target.dtype
    equal = _equal_frequencies(observed)
    if equal is not None:
        unscaled = Fit(observed, returned, settings.base).deviation(
            lambda d: rope_frequencies(d, settings.base)
        )
        parameters = {
            "dtype": returned,
            "d": list(observed),
            "deviation": f"{DEVIATION}, from the unscaled rule",
        }
        return Identification(UNKNOWN, parameters, short(unscaled), False), [equal]
    identified, found = identify_rule(observed, returned, settings.base)
    if identified.matches:
        return identified, found
    for precision in computed_in(observed.values(), returned):
        narrow, narrow_found = identify_rule(observed, precision, settings.base)
        if narrow.matches:
            parameters = {**narrow.parameters, "dtype": returned, "computed_in": precision}
            detail = (
                f"the {narrow.variant} rule, computed in {precision}: every frequency is a {precision} "
                f"number, within {precision}'s tolerance {parameters['tolerance']} of {_rule_text(narrow)}; "
                f"returned as {returned}"
            )
            return replace(narrow, parameters=parameters), [*narrow_found, finding("low-precision", detail)]
    return identified, found


def attention_findings(factors: Mapping[int, float], identified: Identification) -> list[Finding]:
    """The attention-factor finding of the factors m an implementation returned with its inv_freq (one per
    d): `attention_note` on the factor of the largest d, under the rule identified, within the rule's
    relative tolerance, naming any d whose factor differs from it; none when no rule matched (no finding
    from a fit that does not match) or m = 1."""
    if not factors or not identified.matches:
        return []
    d = max(factors)
    m = factors[d]
    tolerance = float(identified.parameters["tolerance"]) * max(m, 1.0)
    note = attention_note(m, identified, tolerance)
    others = [f"{short(f)} at d = {e}" for e, f in sorted(factors.items()) if abs(f - m) > tolerance]
    if others:
        note = f"{note or f'm = {short(m)}'} at d = {d}, but {', '.join(others)}"
    return [] if note is None else [finding("attention-factor", note)]


#: An original context L₀ to show LongRoPE's s at (Phi-3's), since the frequencies do not tell s.
LONGROPE_CONTEXT = 4096


def attention_note(m: float, rule: Identification, tolerance: float) -> str | None:
    """What a factor m on cos and sin is under the scaling rule identified (an `identify_rule` answer),
    within `tolerance`: for YaRN, whether it is the rule's 0.1·ln s + 1 at the s identified; for LongRoPE,
    the ln s/ln L₀ = m² − 1 that √(1 + ln s/ln L₀) gives (the frequencies do not tell s = L/L₀), which no
    m < 1 is; for another rule, a factor the rule has not. None for m = 1."""
    if abs(m - 1.0) <= tolerance:
        return None
    kind = rule.variant
    if kind == "yarn":
        s = float(rule.parameters["factor"])
        expected = FORMS["yarn"].attention(RopeScaling("yarn", s), 1.0)
        verdict = "matches" if abs(m - expected) <= tolerance else "does not match"
        return f"m = {short(m)} {verdict} {BY_KIND['yarn'].attention} = {short(expected)} at s = {short(s)}"
    if kind == "longrope":
        if m < 1.0 - tolerance:
            return f"m = {short(m)} < 1 does not match {BY_KIND['longrope'].attention}, which is at least 1"
        ratio = m * m - 1.0
        return (
            f"m = {short(m)} matches {BY_KIND['longrope'].attention} where ln s/ln L₀ = m² − 1 = "
            f"{short(ratio)} (s = {short(LONGROPE_CONTEXT**ratio)} at L₀ = {LONGROPE_CONTEXT}; the "
            "frequencies do not tell s)"
        )
    return f"m = {short(m)}, which the {kind} rule does not have (its factor on cos and sin is 1)"


#: The parameters of an `identify_rule` answer that describe the comparison, not the rule.
_BOOKKEEPING = ("closest", "deviation", "tolerance", "tolerance_rule", "dtype", "computed_in")


def _rule_text(identified: Identification) -> str:
    """The rule of an `identify_rule` answer as `_describe` words a candidate."""
    shown = ", ".join(f"{k}={v}" for k, v in identified.parameters.items() if k not in _BOOKKEEPING)
    return f"{identified.variant} ({shown}) at relative deviation {identified.max_abs_deviation}"


def _findings(best: Candidate, fit: Fit, found: Iterable[Candidate]) -> list[Finding]:
    note = ""
    if len(fit.ds) == 1 and best.variant in ("none", "ntk") and best.rank > 0:
        others = [c for c in found if c.matches and c is not best and c.variant in ("none", "ntk")]
        if others:
            note = (
                f"; with the single d = {fit.ds[0]} this is also {_describe(others[0])} — "
                "check several d to tell them apart"
            )
    exponent = best.parameters.get("exponent")
    if exponent is not None:
        detail = (
            f"θ_i = {short(fit.base)}^({exponent}) instead of base^(-2i/d) "
            f"(relative deviation {short(best.deviation)})"
        )
        return [finding(best.labels[0], detail + note)]
    base = best.parameters["base"]
    if best.variant == "none":
        out = [
            finding(
                "scaling-none",
                f"θ_i = {short(base)}^(−2i/d) (relative deviation {short(best.deviation)}){note}",
            )
        ]
    elif best.variant == "ntk":
        s = best.parameters["factor"]
        detail = (
            f"{_describe(best)}: the frequencies of base·s^(d/(d−2)); from inv_freq(d) alone this is also "
            f"dynamic NTK at a length L > L₀ where s·L/L₀ − (s − 1) = {short(s)} — one call cannot tell them "
            f"apart{note}"
        )
        out = [finding("scaling-ntk", detail)]
    elif best.variant == "longrope":
        factors = best.parameters["factors"]
        detail = (
            f"θ_i/θ'_i = ext_i per pair, non-decreasing from {factors[0]} to {factors[-1]} at "
            f"d = {best.parameters['factors_at_d']} (base {short(base)}): LongRoPE with these factors "
            "(Phi-3's rope_scaling type longrope; short_factor up to original_max_position_embeddings, "
            "long_factor beyond, which one call of inv_freq(d) cannot tell apart). Every such vector is "
            "LongRoPE with some factors: this says that no rule with few parameters fits"
        )
        out = [finding("scaling-longrope", detail)]
    elif best.variant == "yarn" and best.parameters["ramp"] == "paper":
        out = [finding("scaling-yarn", _describe(best) + _paper_note(best, found))]
    else:
        out = [finding(f"scaling-{best.variant}", _describe(best))]
    if "wrong-base" in best.labels:
        out.append(finding("wrong-base", f"base {short(base)} fits, the declared base is {short(fit.base)}"))
    return out


def _paper_note(best: Candidate, found: Iterable[Candidate]) -> str:
    """The paper's ramp is linear in r = L₀θ/(2π) between α and β, so L₀, α and β scaled together give the
    same frequencies: the other matching (L₀, α, β), if any."""
    same = [
        c
        for c in found
        if c.matches
        and c.variant == "yarn"
        and c.parameters["ramp"] == "paper"
        and c.parameters["original_max_position_embeddings"]
        != best.parameters["original_max_position_embeddings"]
        and c.rank == best.rank
    ]
    if not same:
        return ""
    shown = "; ".join(
        f"L₀ = {c.parameters['original_max_position_embeddings']}, "
        f"α = {_display(c.parameters['beta_slow'])}, β = {_display(c.parameters['beta_fast'])}"
        for c in same[:3]
    )
    return f"; the paper's ramp fixes only α/L₀ and β/L₀, so these fit as well: {shown}"


FAMILY = define(
    Family(
        FAMILY_NAME,
        contract="inv_freq(d) -> [d // 2] or (inv_freq, attention_factor); init(config) likewise",
        forms={1: "inv_freq"},
        adapt=adapt,
        identify=identify,
        expectable=VARIANTS,
        module=__name__,
        handed=no_arrays,
        ds=(64, 128, 256),
        options=("d", "base"),
        screen=screen,
    )
)
