"""The suite's answers for one real model's positional setup (`model_config.ModelSetup`) at the context a
user plans to run, layer group by layer group, and the findings they lead to.

Every answer is given per layer group (`model_config.LayerGroup`), over the offsets the group's window lets
a query see (a sliding window of W tokens sees offsets below W, chunks of C tokens offsets below C); groups
with the same rule and reach share their answers. A finding has a severity (`model_config.SEVERITIES`) and
names the code path it concerns.

For RoPE, the frequencies θ'_i are the scaling rule evaluated at `DIGITS` significant digits
(`RopeScaling.frequencies_mp`, regimes decided at that precision), then rounded to float64; every later
answer takes those float64 values as exact:

* `frequencies`: per rotated pair, θ_i and θ'_i, the wavelength 2π/θ'_i, the turns L·θ'_i/2π within the
  trained and the planned context, and the regime (unscaled; extrapolated: θ' = θ; interpolated: θ' = θ/s;
  blended, with the weight γ of θ in θ' = γθ + (1 − γ)θ/s; rescaled for NTK, LongRoPE and dynamic NTK);
* `attention_factor`: the factor on cos and sin (YaRN's 0.1·mscale·ln s + 1, DeepSeek's quotient of two
  such factors, LongRoPE's √(1 + ln s/ln L₀), or the config's own value) and, for DeepSeek's attention, the
  factor its softmax scale is multiplied by;
* `critical_dimension`: Liu et al. 2023's d_extra = 2⌈(d/2)·log_b(T/2π)⌉ at the trained context T
  (certified, `interpolation_bounds.critical_dimension`);
* `men_criterion`: Men et al. 2024's B(m) = Σ_i cos(m·θ'_i) ≥ 0 for m ≤ L over the offsets L the group
  sees, the first negative value or the least one as a certified ball (`base_bound.scan`), and the least
  base of two significant digits admissible for L at the model's rotary dimension
  (`base_bound.lowest_bases`);
* `precision`: where integer positions collapse in bfloat16, float16 and float32, the float32 angle error
  |fl(fl(p)·fl(θ'_i)) − p·θ'_i| at the largest planned position (exact rational arithmetic on the rounded
  values), and the score drift of a cos/sin cache computed in float32 (correctly rounded) and stored in the
  model's dtype, for seeded unit queries and keys at the end of the planned context and at its start;
* `separation`: the certified least ‖R(kθ') − I‖-distance, min over 1 ≤ k < L of √(Σ_i 2(1 − cos kθ'_i))
  over the offsets the group sees (`separation.certified_separation`), and where it is attained.

For ALiBi, the slopes (exact powers of two) and the bias at the far end of the planned context; for a
learned table, its size; for T5's relative buckets, the offsets that share the last bucket; for NoPE layers
and layers without positions, that they carry none (and Llama 4's attention temperature where it applies).
`analyse` returns a `ModelAnalysis`, whose `as_json` is the record the command prints; a part that needs a
key the config lacks or holds badly is skipped, saying which key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath
import numpy as np
import sympy as sp

from ..checks.interpolation_bounds import critical_dimension, critical_exponent
from ..encodings import layer_schedule
from ..encodings.alibi import alibi_slopes_exact
from ..encodings.model_config import LayerGroup, ModelSetup, PositionalSetup, require_severity
from ..encodings.relative import t5_buckets
from ..encodings.rope import rotate_half_split
from ..encodings.rope_rules import BY_KIND
from ..encodings.scaling import FORMS, RopeScaling, yarn_factor_mp
from ..encodings.sinusoidal import Sinusoidal
from ..numerics.correct_rounding import correctly_rounded
from ..numerics.dtypes import dtype_spec
from . import base_bound
from .finite_precision import position_collision
from .separation import certified_separation, separation_memory, separation_seconds

#: Significant digits of the frequency rule's evaluation.
DIGITS = 30
#: Digits the record prints of a real value computed at `DIGITS` (or of a certified ball's midpoint).
SHOWN = 10
#: Largest planned context answered: positions up to 2^24 are whole numbers in float32, where transformers
#: keeps them.
MAX_CONTEXT = 2**24
#: Most offsets a group's Men et al. scan, least-base search and certified separation cover (they grow
#: with it).
MAX_REACH = 2**23
#: The seeded unit (q, k) pairs and the offsets m − n of the cache-drift measurement.
DRIFT_PAIRS, DRIFT_OFFSETS, DRIFT_SEED = 64, 64, 0
#: Dtypes whose position collapse and cache drift are reported.
PRECISION_DTYPES = ("bfloat16", "float16", "float32")

ANSWERS = (
    "frequencies",
    "attention_factor",
    "critical_dimension",
    "men_criterion",
    "precision",
    "separation",
)


@dataclass(frozen=True)
class Answer:
    """One answer: its evidence kind (``exact``, ``certified`` or a stated precision), a one-line summary
    and a JSON-ready value."""

    evidence: str
    summary: str
    value: object


@dataclass(frozen=True)
class Finding:
    """A finding: a fixed label, a one-line message, its severity (error, warning, note) and the code path
    it concerns."""

    label: str
    message: str
    severity: str = "note"
    concerns: str = "the config's keys"

    def __post_init__(self) -> None:
        require_severity(self.severity)

    def as_json(self) -> dict[str, str]:
        return {
            "label": self.label,
            "severity": self.severity,
            "concerns": self.concerns,
            "message": self.message,
        }


@dataclass
class GroupAnalysis:
    """Everything `analyse` found for one layer group: `setup` its rule, `context` the planned context,
    `reach` the offsets a query of the group sees (at most the planned context)."""

    group: LayerGroup
    context: int | None
    answers: dict[str, Answer] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def setup(self) -> PositionalSetup:
        return self.group.position

    @property
    def reach(self) -> int | None:
        window = self.group.reach
        if self.context is None:
            return None
        return self.context if window is None else min(window, self.context)

    def as_json(self) -> dict[str, object]:
        setup, group = self.setup, self.group
        scaling = setup.scaling
        described: dict[str, object] = {"scheme": setup.scheme}
        if setup.scheme == "rope":
            described |= {
                "base": setup.base,
                "head_dim": setup.head_dim,
                "qk_head_dim": setup.qk_head_dim,
                "rotary_dim": setup.rotary_dim,
                "layout": setup.layout,
                "rope_type": setup.rope_type,
                "scaling": None if scaling is None else _scaling_json(scaling),
                "mscale": setup.mscale,
                "mscale_all_dim": setup.mscale_all_dim,
                "attention_factor": setup.attention_factor,
                "mrope_section": None if setup.mrope_section is None else list(setup.mrope_section),
                "mrope_interleaved": setup.mrope_interleaved,
                "trained_context": setup.trained_context,
            }
        elif setup.scheme == "alibi":
            described["heads"] = setup.heads
        elif setup.scheme == "relative" and setup.buckets is not None:
            described |= {"num_buckets": setup.buckets[0], "max_distance": setup.buckets[1]}
        return {
            "layer_type": group.layer_type,
            "layers": list(group.layers),
            "attention": {
                "window": group.window,
                "bidirectional": group.bidirectional,
                "chunk": group.chunk,
                "reach": self.reach,
            },
            "query_scaling": group.query_scaling,
            "position": described,
            "problems": [{"key": p.key, "message": p.message} for p in setup.problems],
            "findings": [f.as_json() for f in self.findings],
            "answers": {
                key: {"evidence": a.evidence, "summary": a.summary, "value": a.value}
                for key, a in self.answers.items()
            },
            "skipped": self.skipped,
        }


@dataclass
class ModelAnalysis:
    """Everything `analyse` found for one model at one planned context: its groups' analyses and the
    findings about the config as a whole."""

    setup: ModelSetup
    context: int | None
    groups: list[GroupAnalysis] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def all_findings(self) -> list[Finding]:
        """The model's findings, then each group's."""
        return [*self.findings, *(f for group in self.groups for f in group.findings)]

    def as_json(self) -> dict[str, object]:
        setup = self.setup
        return {
            "model_type": setup.model_type,
            "scheme": setup.scheme,
            "setup": {
                "nested": setup.nested,
                "layers": setup.layers,
                "max_position_embeddings": setup.max_positions,
                "trained_context": setup.trained_context,
                "planned_context": self.context,
                "dtype": setup.dtype,
            },
            "keys": {"used": setup.used, "ignored": setup.ignored, "defaults": _defaults(setup)},
            "problems": [{"key": p.key, "message": p.message} for p in setup.problems],
            "findings": [f.as_json() for f in self.findings],
            "groups": [group.as_json() for group in self.groups],
        }


def _defaults(setup: ModelSetup) -> dict[str, object]:
    found = dict(setup.defaults)
    for group in setup.groups:
        found |= group.position.defaults
    return found


def _scaling_json(scaling: RopeScaling) -> dict[str, object]:
    fields = {"kind": scaling.kind, "factor": scaling.factor}
    for name in BY_KIND[scaling.kind].reported:
        value = getattr(scaling, name)
        fields[name] = list(value) if isinstance(value, tuple) else value
    return fields


# Rates behind `analysis_cost` (seconds on a 2-core machine): the least-base search scans at most WINDOW + 2
# candidate bases over the whole reach, each offset costing 9e-9 to 1.9e-7 s for 32 to 2048 rotated pairs
# (measured at d = 64 … 4096 and reaches of 131072 to 2^23), rounded up; a RoPE group's other answers
# cost well under a second.
_SECONDS_PER_GROUP = 1.0
_SECONDS_PER_SCAN_OFFSET = 1e-8
_SECONDS_PER_SCAN_OFFSET_PAIR = 1.2e-10
#: Bytes of the Men et al. scan's tables per rotated pair (cos, sin and their stack over 256 offsets).
_SCAN_BYTES_PER_PAIR = 256 * 3 * 8


def analysis_cost(setup: ModelSetup, context: int | None = None) -> tuple[float, int]:
    """A rough estimate of `analyse`'s seconds and of the bytes it holds at most, in closed form from each
    RoPE group's rotated dims, its frequencies as scaled (at the reach, for a rule that depends on the
    running length) and its reach (groups that share answers counted once), before anything is
    allocated."""
    chosen = planned_context(setup, context)
    seconds, most = 0.0, 0
    seen: set[tuple] = set()
    for group in setup.groups:
        rule = group.position
        if rule.scheme != "rope" or rule.rotary_dim is None or rule.base is None or chosen is None:
            continue
        reach = chosen if group.reach is None else min(group.reach, chosen)
        key = (rule.rotary_dim, rule.base, rule.scaling, reach)
        if key in seen or reach > MAX_REACH:
            continue
        seen.add(key)
        pairs = rule.rotary_dim // 2
        scans = (
            (base_bound.WINDOW + 2)
            * reach
            * (_SECONDS_PER_SCAN_OFFSET + _SECONDS_PER_SCAN_OFFSET_PAIR * pairs)
        )
        scaling = rule.scaling if rule.scaling is not None else RopeScaling()
        if rule.rule is not None and rule.rule.running_length:
            scaling = _with_length(scaling, reach)
        omegas = scaling.frequencies(rule.rotary_dim, float(rule.base))
        separation = separation_seconds(rule.rotary_dim, rule.base, reach, omegas=omegas)
        seconds += _SECONDS_PER_GROUP + scans + separation
        most = max(most, separation_memory(rule.rotary_dim, reach) + pairs * _SCAN_BYTES_PER_PAIR)
    return seconds, most


class ContextError(ValueError):
    """A planned context outside 2 … `MAX_CONTEXT`."""


def planned_context(setup: ModelSetup, context: int | None) -> int | None:
    """The context to answer for: the user's, else ``max_position_embeddings``; a ContextError beyond
    `MAX_CONTEXT` or below 2."""
    chosen = setup.max_positions if context is None else context
    if context is None and chosen is not None and not 2 <= chosen <= MAX_CONTEXT:
        raise ContextError(
            f"max_position_embeddings {chosen} is outside 2 … 2^24 = {MAX_CONTEXT}: give --context"
        )
    if chosen is not None and not 2 <= chosen <= MAX_CONTEXT:
        raise ContextError(f"context must be from 2 to 2^24 = {MAX_CONTEXT}, got {chosen}")
    return chosen


def analyse(
    setup: ModelSetup,
    context: int | None = None,
    on_answer: Callable[[str], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> ModelAnalysis:
    """Every answer the setup allows at the planned context (`planned_context`), group by group, and the
    findings. Groups with the same rule and the same reach share one computation. `on_total` hears how many
    answers `on_answer` will hear of (each RoPE group's `ANSWERS`)."""
    found = ModelAnalysis(setup, planned_context(setup, context))
    if on_total is not None:
        on_total(len(ANSWERS) * sum(g.position.scheme == "rope" for g in setup.groups))
    found.findings += [_from_note(note) for note in setup.notes]
    done = on_answer or (lambda key: None)
    computed: dict[tuple, GroupAnalysis] = {}
    for group in setup.groups:
        analysis = GroupAnalysis(group, found.context)
        analysis.findings += [_from_note(note) for note in group.position.notes]
        key = _sharing_key(analysis)
        if key is not None and key in computed:
            twin = computed[key]
            analysis.answers, analysis.skipped = dict(twin.answers), dict(twin.skipped)
            for name in ANSWERS:
                done(name)
            analysis.findings += [f for f in twin.findings if f not in analysis.findings]
        else:
            _answer_group(analysis, found, done)
            if key is not None:
                computed[key] = analysis
        found.groups.append(analysis)
    _hoist_shared_findings(found)
    if found.context is None and any(g.setup.scheme in ("rope", "alibi") for g in found.groups):
        found.findings.append(
            Finding("context-needed", "the config states no context: give --context", "note", "this command")
        )
    return found


def _hoist_shared_findings(found: ModelAnalysis) -> None:
    """A finding every group of several holds alike is the model's: it moves to the model's findings."""
    if len(found.groups) < 2:
        return
    shared = [f for f in found.groups[0].findings if all(f in g.findings for g in found.groups[1:])]
    for finding in shared:
        for group in found.groups:
            group.findings.remove(finding)
        found.findings.append(finding)


def _from_note(note) -> Finding:
    return Finding(note.label, note.message, note.severity, note.concerns)


def _sharing_key(analysis: GroupAnalysis) -> tuple | None:
    """Groups whose rule and reach agree get the same answers: a key saying so (None: not shared)."""
    setup = analysis.setup
    if setup.scheme != "rope" or setup.scaling is None:
        return None
    return (
        setup.base,
        setup.rotary_dim,
        setup.head_dim,
        setup.scaling,
        setup.mscale,
        setup.mscale_all_dim,
        setup.attention_factor,
        analysis.reach,
        setup.original_context,
    )


def _answer_group(found: GroupAnalysis, model: ModelAnalysis, done: Callable[[str], None]) -> None:
    scheme = found.setup.scheme
    if scheme == "rope":
        _rope(found, done)
    elif scheme == "alibi":
        _alibi(found)
    elif scheme == "learned":
        _learned(found)
    elif scheme == "relative":
        _relative(found)
    elif scheme in ("nope", "none"):
        _no_positions(found)


# ------------------------------------------------------------------------------------------------ RoPE


@dataclass(frozen=True)
class Frequencies:
    """θ_i and θ'_i at `DIGITS` digits, and θ'_i rounded to float64."""

    theta: list[mpmath.mpf]
    scaled: list[mpmath.mpf]
    float64: np.ndarray


def model_frequencies(setup: PositionalSetup, context: int) -> Frequencies:
    """The unscaled and scaled frequencies of a RoPE setup at the planned context (dynamic NTK and LongRoPE
    depend on the running length: it is the planned context)."""
    d, base = setup.rotary_dim, setup.base
    scaling = setup.scaling
    if setup.rule.running_length:
        scaling = _with_length(scaling, context)
    with mpmath.workdps(DIGITS):
        theta = RopeScaling().frequencies_mp(d, _exact(base), DIGITS)
        scaled = scaling.frequencies_mp(d, _exact(base), DIGITS)
    return Frequencies(theta, scaled, np.array([float(t) for t in scaled]))


def _with_length(scaling: RopeScaling, length: int) -> RopeScaling:
    fields = {name: getattr(scaling, name) for name in scaling.__dataclass_fields__}
    return RopeScaling(**(fields | {"seq_len": length}))


def _exact(base: float) -> str:
    """The base as mpmath reads it exactly: its float64 value written out."""
    return str(Fraction(base)) if Fraction(base).denominator == 1 else repr(base)


def _mp_fraction(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def _shown(value: mpmath.mpf | float, digits: int = SHOWN) -> str:
    return mpmath.nstr(mpmath.mpf(value), digits, min_fixed=-4, max_fixed=12)


def _rope(found: GroupAnalysis, done: Callable[[str], None]) -> None:
    setup, context = found.setup, found.context
    missing = _missing_rope(setup)
    if context is None:
        missing = "no max_position_embeddings in the config: give the planned context"
    if missing:
        for key in ANSWERS:
            found.skipped[key] = missing
            done(key)
        return
    _scaling_findings(found)
    freqs = model_frequencies(setup, context)
    found.answers["frequencies"] = _frequency_answer(setup, context, freqs, found.reach)
    done("frequencies")
    found.answers["attention_factor"] = _attention_answer(found)
    done("attention_factor")
    _critical(found)
    done("critical_dimension")
    far = found.reach > MAX_REACH
    beyond = f"the scan covers up to 2^23 = {MAX_REACH} offsets; these layers see {found.reach}"
    if far:
        found.skipped["men_criterion"] = beyond
    else:
        found.answers["men_criterion"] = _men_answer(found, freqs)
    done("men_criterion")
    found.answers["precision"] = _precision_answer(found, freqs)
    done("precision")
    if far:
        found.skipped["separation"] = beyond
    else:
        found.answers["separation"] = _separation_answer(found, freqs)
    done("separation")


def _missing_rope(setup: PositionalSetup) -> str | None:
    """Why the frequencies cannot be computed (the keys at fault), or None."""
    if setup.rotary_dim is None or setup.base is None or setup.scaling is None:
        keys = ", ".join(sorted({p.key for p in setup.problems}))
        if not keys and setup.rope_type is not None and setup.rule is None:
            return f"the suite does not know rope_type {setup.rope_type!r}"
        return f"the frequencies need {keys or 'the scaling block'}, which the config lacks or holds badly"
    return None


#: The code paths findings speak of.
REFERENCE = "transformers' RoPE initialisation (modeling_rope_utils)"
CAST = (
    "code that casts positions to the model's dtype (transformers, vLLM and llama.cpp keep them in float32)"
)


def _scaling_findings(found: GroupAnalysis) -> None:
    setup, context, scaling, rule = found.setup, found.context, found.setup.scaling, found.setup.rule
    s, top, original = scaling.factor, setup.max_positions, setup.original_context
    stated = "factor" not in setup.defaults
    if (
        rule.max_positions == "without-factor"
        and stated
        and original
        and top
        and not math.isclose(s * original, top, rel_tol=0, abs_tol=0.5)
    ):
        found.findings.append(
            Finding(
                "factor-context-mismatch",
                f"factor {s:g} × original_max_position_embeddings {original} = {s * original:g} ≠ "
                f"max_position_embeddings {top}: transformers 5 reads factor; a reader that takes "
                f"max_position_embeddings / original ({top / original:g}) as the factor, as transformers "
                "4.51–4.55 did for YaRN (huggingface/transformers#38224), scales differently",
                "warning",
                "readers that derive the factor from max_position_embeddings",
            )
        )
    reach = int(s * original) if rule.stretches and original else (None if rule.stretches else top)
    if reach and context > max(reach, top or 0):
        found.findings.append(
            Finding(
                "context-beyond-scaling",
                f"the planned context {context} exceeds the {max(reach, top or 0)} positions the setup was "
                + ("trained for" if rule.unscaled else "scaled for"),
                "warning",
                "this plan",
            )
        )
    if rule.running_length:
        what = rule.running.format(original=scaling.original_context)
        found.findings.append(
            Finding(
                "dynamic-scaling",
                f"the frequencies depend on the running length: {what}; answered at {context}",
                "note",
                REFERENCE,
            )
        )
    if setup.mscale is not None and setup.mscale_all_dim:
        versions = layer_schedule.architecture(setup.model_type).softmax_mscale
        softmax = (
            f", and in transformers {versions} the model's attention multiplies its softmax scale by the "
            "square of mscale_all_dim's"
            if versions
            else ""
        )
        found.findings.append(
            Finding(
                "mscale-all-dim",
                f"mscale {setup.mscale:g} and mscale_all_dim {setup.mscale_all_dim:g}: transformers "
                f"multiplies cos and sin by their quotient of YaRN factors{softmax}",
                "note",
                REFERENCE,
            )
        )


def _regime(theta: mpmath.mpf, scaled: mpmath.mpf, scaling: RopeScaling) -> tuple[str, mpmath.mpf | None]:
    regimes = BY_KIND[scaling.kind].regimes
    if regimes == "unscaled":
        return "unscaled", None
    if regimes == "rescaled":
        return "rescaled", None
    s = mpmath.mpf(scaling.factor)
    if s == 1 or scaled == theta:
        return "extrapolated", mpmath.mpf(1)
    if scaled == theta / s:
        return "interpolated", mpmath.mpf(0)
    return "blended", (scaled / theta - 1 / s) / (1 - 1 / s)


def _frequency_answer(setup: PositionalSetup, context: int, freqs: Frequencies, reach: int) -> Answer:
    trained = setup.trained_context
    rows, counts = [], {}
    with mpmath.workdps(DIGITS):
        two_pi = 2 * mpmath.pi
        for i, (theta, scaled) in enumerate(zip(freqs.theta, freqs.scaled, strict=True)):
            regime, weight = _regime(theta, scaled, setup.scaling)
            counts[regime] = counts.get(regime, 0) + 1
            rows.append(
                {
                    "pair": i,
                    "theta": _shown(theta),
                    "scaled_theta": _shown(scaled),
                    "wavelength": _shown(two_pi / scaled),
                    "turns_trained": None if trained is None else _shown(trained * scaled / two_pi),
                    "turns_planned": _shown(context * scaled / two_pi),
                    "regime": regime,
                    "weight": None if weight is None else _shown(weight),
                }
            )
        longest = two_pi / freqs.scaled[-1]
    regimes = ", ".join(f"{n} {name}" for name, n in counts.items())
    with mpmath.workdps(DIGITS):
        turns = _shown(reach * freqs.scaled[-1] / (2 * mpmath.pi), 6)
    where = "the planned context" if reach == context else f"the {reach} positions a query sees"
    summary = (
        f"{len(rows)} pairs ({regimes}); wavelengths {rows[0]['wavelength']} to {_shown(longest, 6)}; the "
        f"slowest pair turns {turns} times in {where}"
    )
    return Answer(f"the scaling rule at {DIGITS} significant digits, shown to {SHOWN}", summary, rows)


def cos_sin_factor(setup: PositionalSetup) -> tuple[mpmath.mpf, str]:
    """The factor the reference multiplies cos and sin by, at the current mpmath precision, and its rule in
    words: the config's attention_factor (or the one its class sets); else, for YaRN, get_mscale(s, mscale) /
    get_mscale(s, mscale_all_dim) when both are non-zero; else the rule's own factor (`scaling.FORMS`'
    ``attention_mp``); else 1."""
    scaling, rule = setup.scaling, setup.rule
    if setup.attention_factor is not None:
        defaulted = any(key.endswith("attention_factor") for key in setup.defaults)
        words = (
            "its class's attention_factor, the config naming none"
            if defaulted
            else "the config's attention_factor"
        )
        return mpmath.mpf(setup.attention_factor), words
    if rule.attention and setup.mscale and setup.mscale_all_dim:
        s = scaling.factor
        factor = yarn_factor_mp(s, setup.mscale) / yarn_factor_mp(s, setup.mscale_all_dim)
        return factor, "get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)"
    if rule.attention:
        return FORMS[scaling.kind].attention_mp(scaling), rule.attention
    return mpmath.mpf(1), "no attention factor for this scaling"


def softmax_factor(setup: PositionalSetup) -> mpmath.mpf | None:
    """The factor the model's softmax scale 1/√d_head is multiplied by (DeepSeek's get_mscale(s,
    mscale_all_dim)², for the model types whose transformers code applies it), at the current mpmath
    precision; None where there is none."""
    versions = layer_schedule.architecture(setup.model_type).softmax_mscale
    if versions and setup.mscale_all_dim:
        return yarn_factor_mp(setup.scaling.factor, setup.mscale_all_dim) ** 2
    return None


def _attention_answer(found: GroupAnalysis) -> Answer:
    setup = found.setup
    value: dict[str, object] = {}
    with mpmath.workdps(DIGITS):
        factor, words = cos_sin_factor(setup)
        value["cos_sin_factor"] = _shown(factor)
        value["rule"] = words
        summary = f"cos and sin are multiplied by {_shown(factor)} ({words})"
        versions = layer_schedule.architecture(setup.model_type).softmax_mscale
        softmax = softmax_factor(setup)
        if softmax is not None:
            value["softmax_scale_factor"] = _shown(softmax)
            value["softmax_scale_versions"] = versions
            summary += (
                f"; the softmax scale 1/√d_head is multiplied by {_shown(softmax)} (get_mscale², "
                f"transformers {versions})"
            )
    return Answer(f"mpmath at {DIGITS} digits, shown to {SHOWN}", summary, value)


def _critical(found: GroupAnalysis) -> None:
    setup = found.setup
    base, trained = Fraction(setup.base), setup.trained_context
    if base.denominator != 1 or trained is None:
        found.skipped["critical_dimension"] = (
            "Liu et al.'s critical dimension is computed for integer bases"
            if trained
            else "the config does not state the pretraining context"
        )
        return
    with flint.ctx.workprec(128):
        exponent = critical_exponent(setup.rotary_dim, int(base), trained)
        d_extra = critical_dimension(setup.rotary_dim, int(base), trained)
        shown = exponent.str(SHOWN, radius=False)
    d_extra = min(max(d_extra, 0), setup.rotary_dim)
    found.answers["critical_dimension"] = Answer(
        "certified (arb, 128 bits)",
        f"d_extra = {d_extra} of {setup.rotary_dim} rotated dims complete a period within the trained "
        "context "
        f"{trained} ((d/2)·log_b(T/2π) = {shown})",
        {"d_extra": d_extra, "exponent": shown, "trained_context": trained},
    )


def _men_answer(found: GroupAnalysis, freqs: Frequencies) -> Answer:
    setup, reach = found.setup, found.reach
    theta = freqs.float64
    balls = [flint.arb(flint.fmpq(Fraction(t).numerator, Fraction(t).denominator)) for t in theta]
    cosine = base_bound.CosineSum(Fraction(setup.base), setup.rotary_dim, theta, lambda _base: balls)
    scan = base_bound.scan(cosine, reach)
    try:
        lowest = str(base_bound.lowest_bases([reach], setup.rotary_dim)[reach].base)
    except LookupError:  # e.g. one rotated pair: cos(m·θ_0) turns negative for every base
        lowest = f"none up to {base_bound.CEILING}"
    value: dict[str, object] = {"offsets": reach, "least_admissible_base": lowest}
    if scan.admissible:
        ball = scan.least.ball
        value |= {"holds": True, "least_at": scan.least.m, "least": ball.str(SHOWN, radius=False)}
        summary = f"B(m) ≥ 0 for every m ≤ {reach}: least B({scan.least.m}) = {value['least']}"
    else:
        ball = scan.negative.ball
        value |= {
            "holds": False,
            "first_negative_at": scan.negative.m,
            "value": ball.str(SHOWN, radius=False),
        }
        summary = f"B(m) < 0 first at m = {scan.negative.m} ≤ {reach}: B = {value['value']}"
        trained = setup.trained_context
        if setup.rule.unscaled and trained is not None and scan.negative.m <= trained:
            found.findings.append(
                Finding(
                    "base-below-men-bound",
                    f"by Men et al.'s criterion the base {setup.base:g} is below what a context of "
                    f"{min(trained, reach)} needs: B({scan.negative.m}) < 0 within the offsets the layers "
                    f"see in training; the least two-digit base admissible for {reach} at d = "
                    f"{setup.rotary_dim} is {lowest} (a claim of Men et al. 2024 about long-context ability, "
                    "not a fault of any code)",
                    "note",
                    "the frequencies themselves",
                )
            )
    where = "the planned context" if reach == found.context else f"the {reach} positions a query sees"
    summary += f"; least two-digit base admissible for {where} at d = {setup.rotary_dim}: {lowest}"
    return Answer("certified (float64 scan with an a-priori bound, deciding values in arb)", summary, value)


def _float32_angle_error(freqs: Frequencies, position: int) -> tuple[Fraction, int]:
    """max_i |fl32(fl32(p)·fl32(θ'_i)) − p·θ'_i| over the pairs (θ'_i its float64 value, taken exact), and
    the pair attaining it."""
    p32 = np.float32(position)
    theta32 = freqs.float64.astype(np.float32)
    angles = (p32 * theta32).astype(np.float32)
    errors = [
        abs(Fraction(float(a)) - position * Fraction(float(t)))
        for a, t in zip(angles, freqs.float64, strict=True)
    ]
    worst = max(range(len(errors)), key=errors.__getitem__)
    return errors[worst], worst


def cache_drift(freqs: Frequencies, dtype: str, positions: np.ndarray, seed: int = DRIFT_SEED) -> np.ndarray:
    """|⟨q, k⟩ scored with a cos/sin cache stored in `dtype` − the same score in float64| for seeded unit (q,
    k) with q at `positions` and k `DRIFT_OFFSETS` or fewer places before it: angles fl32(p)·fl32(θ'_i) in
    float32, cos and sin correctly rounded to float32, then stored in the dtype; the rotation itself in
    float64 (half-split layout, as transformers rotates)."""
    rng = np.random.default_rng(seed)
    pairs = freqs.float64.size
    q, k = (rng.standard_normal((positions.size, 2 * pairs)) for _ in range(2))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    keys = positions - rng.integers(0, DRIFT_OFFSETS, size=positions.size)
    keys = np.maximum(keys, 0)
    spec = dtype_spec(dtype)

    def rotated(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        angles = (at.astype(np.float32)[:, None] * freqs.float64.astype(np.float32)[None, :]).astype(
            np.float32
        )
        cos = spec.cast(correctly_rounded("cos", "float32", angles)).astype(np.float64)
        sin = spec.cast(correctly_rounded("sin", "float32", angles)).astype(np.float64)
        return rotate_half_split(x, cos, sin)

    def exact(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        angles = at.astype(np.float64)[:, None] * freqs.float64[None, :]
        return rotate_half_split(x, np.cos(angles), np.sin(angles))

    stored = np.sum(rotated(q, positions) * rotated(k, keys), axis=1)
    reference = np.sum(exact(q, positions) * exact(k, keys), axis=1)
    return np.abs(stored - reference)


def _precision_answer(found: GroupAnalysis, freqs: Frequencies) -> Answer:
    setup, context = found.setup, found.context
    collapse = {}
    for name in PRECISION_DTYPES:
        first = position_collision(name).first_collision
        collapse[name] = {"first_collision": first, "within_planned_context": first < context}
    if setup.dtype in ("bfloat16", "float16") and collapse[setup.dtype]["within_planned_context"]:
        found.findings.append(
            Finding(
                "positions-collapse-if-cast",
                f"positions cast to the model's {setup.dtype} cannot tell "
                f"{collapse[setup.dtype]['first_collision']} from its successor, far below the planned "
                f"context {context}: transformers, vLLM and llama.cpp keep positions in float32, so this "
                "concerns only code that casts them",
                "note",
                CAST,
            )
        )
    error, pair = _float32_angle_error(freqs, context - 1)
    dtype = setup.dtype if setup.dtype in ("bfloat16", "float16", "float32") else "bfloat16"
    rng = np.random.default_rng(DRIFT_SEED)
    far = context - 1 - rng.integers(0, min(DRIFT_OFFSETS, context), size=DRIFT_PAIRS)
    near = rng.integers(min(DRIFT_OFFSETS, context - 1), min(2 * DRIFT_OFFSETS, context), size=DRIFT_PAIRS)
    drift = {}
    for where, positions in (("end", far), ("start", near)):
        values = cache_drift(freqs, dtype, positions)
        drift[where] = {"median": f"{float(np.median(values)):.2e}", "max": f"{float(np.max(values)):.2e}"}
    value = {
        "position_collapse": collapse,
        "float32_angle_error": {"position": context - 1, "pair": pair, "error": f"{float(error):.3e}"},
        "cache_dtype": dtype,
        "cache_drift": drift,
    }
    summary = (
        f"positions collapse from {collapse['bfloat16']['first_collision']} in bfloat16, "
        f"{collapse['float16']['first_collision']} in float16, {collapse['float32']['first_collision']} in "
        f"float32; float32 angle error at position {context - 1}: {value['float32_angle_error']['error']} "
        "rad "
        f"(pair {pair}); a {dtype} cos/sin cache moves unit scores by a median {drift['end']['median']} at "
        "the "
        f"end of the context ({drift['start']['median']} at its start)"
    )
    evidence = "exact (positions, angle error); measured on 64 seeded pairs, 3 significant digits (drift)"
    return Answer(evidence, summary, value)


def _separation_answer(found: GroupAnalysis, freqs: Frequencies) -> Answer:
    setup, reach = found.setup, found.reach
    omegas = tuple(sp.Rational(Fraction(float(t))) for t in freqs.float64)
    certified = certified_separation(Sinusoidal(setup.rotary_dim, omegas=omegas), reach)
    minimum = certified.minimum
    value = {
        "max_offset": reach,
        "minimum_distance": minimum.str(SHOWN, radius=False),
        "minimum_squared": (minimum * minimum).str(SHOWN, radius=False),
        "argmin_offsets": list(certified.argmin_offsets),
        "certified": certified.certified,
        "reason": certified.reason,
    }
    offsets = ", ".join(map(str, certified.argmin_offsets))
    state = "certified" if certified.certified else f"not certified: {certified.reason}"
    summary = (
        f"min over 1 ≤ k < {reach} of Σ_i 2(1 − cos kθ'_i) = {value['minimum_squared']} at k = {offsets} "
        f"({state})"
    )
    return Answer("certified (interval bounds, float32 screen with its error bound, arb)", summary, value)


# ------------------------------------------------------------------------------------- ALiBi and tables


def _alibi(found: GroupAnalysis) -> None:
    setup, context = found.setup, found.context
    if setup.heads is None:
        found.skipped["slopes"] = "the slopes need the head count (n_head or num_attention_heads)"
        return
    exponents = alibi_slopes_exact(setup.heads)
    power = setup.heads & (setup.heads - 1) == 0
    value: dict[str, object] = {
        "heads": setup.heads,
        "slope_exponents": [str(e) for e in exponents],
        "steepest": f"2^({max(exponents)})",
        "gentlest": f"2^({min(exponents)})",
        "power_of_two_heads": power,
    }
    summary = f"{setup.heads} heads, slopes 2^({max(exponents)}) … 2^({min(exponents)})"
    if not power:
        summary += " (not a power of two: the slopes of the next power of two are interleaved)"
    if context is None:
        found.skipped["bias_at_context"] = "the config states no context: give --context"
    else:
        far = context - 1
        with mpmath.workdps(DIGITS):
            steep, gentle = (far * mpmath.mpf(2) ** _mp_fraction(e) for e in (max(exponents), min(exponents)))
        value["bias_at_context"] = {
            "offset": far,
            "steepest": f"-{_shown(steep)}",
            "gentlest": f"-{_shown(gentle)}",
        }
        summary += f"; at offset {far} the biases run from −{_shown(steep, 6)} to −{_shown(gentle, 6)}"
    found.answers["slopes"] = Answer("exact (powers of two)", summary, value)


def _learned(found: GroupAnalysis) -> None:
    setup, context = found.setup, found.context
    if setup.max_positions is None:
        found.skipped["table"] = "the table size needs n_positions or max_position_embeddings"
        return
    found.answers["table"] = Answer(
        "exact",
        f"a learned table of {setup.max_positions} positions: position {setup.max_positions} and beyond "
        "have no "
        "embedding",
        {"positions": setup.max_positions},
    )
    if context is not None and context > setup.max_positions:
        found.findings.append(
            Finding(
                "context-beyond-table",
                f"the planned context {context} exceeds the table's {setup.max_positions} positions: "
                f"position {setup.max_positions} and beyond have no embedding",
                "error",
                "the model's position embedding table",
            )
        )


def _relative(found: GroupAnalysis) -> None:
    """T5's buckets: how many offsets each direction tells apart, and where they start to share one."""
    setup, context = found.setup, found.context
    if setup.buckets is None:
        found.skipped["buckets"] = "the buckets need relative_attention_num_buckets and max_distance"
        return
    count, distance = setup.buckets
    span = max(distance, context or distance) + 1
    value: dict[str, object] = {"num_buckets": count, "max_distance": distance}
    parts = []
    for direction, bidirectional in (("encoder (both directions)", True), ("decoder (causal)", False)):
        buckets = t5_buckets(-np.arange(span), count, distance, bidirectional)
        last = int(buckets.max())
        first_last = int(np.flatnonzero(buckets == last)[0])
        exact = int(np.flatnonzero(np.diff(buckets) == 0)[0]) + 1 if np.any(np.diff(buckets) == 0) else span
        value[direction.split()[0]] = {
            "distinct_buckets": len(set(buckets.tolist())),
            "exact_up_to": exact - 1,
            "last_bucket_from": first_last,
        }
        parts.append(
            f"{direction}: offsets 0–{exact - 1} each have a bucket, offsets from {first_last} on share the "
            "last one"
        )
    summary = f"{count} relative buckets, max distance {distance}; " + "; ".join(parts)
    if context is not None:
        summary += f"; at the planned context {context} offsets {distance}–{context - 1} are not told apart"
    found.answers["buckets"] = Answer("exact (T5's bucket rule evaluated offset by offset)", summary, value)


def _no_positions(found: GroupAnalysis) -> None:
    """NoPE layers (attention that sees no positions) and layers without attention positions."""
    setup, group = found.setup, found.group
    if setup.scheme == "nope":
        summary = (
            "these layers attend without any positional encoding (NoPE): their scores depend on positions "
            "only through the causal mask"
        )
    else:
        summary = (
            f"{group.layer_type} layers carry no positional encoding: they mix tokens in order, not by "
            "position"
        )
    value: dict[str, object] = {"positional_encoding": None}
    if group.query_scaling is not None:
        value["query_scaling"] = group.query_scaling
        summary += f"; queries are scaled by position: {group.query_scaling['rule']}"
    found.answers["positions"] = Answer("exact (read from the layer schedule)", summary, value)
