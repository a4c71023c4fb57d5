"""One config read by several runtimes: what each computes for each RoPE layer group, and the first offset at
which its rotated scores part from the reference's.

For a layer group, a runtime's reading (`Reading`) is the reference's (`model_config.PositionalSetup`, as
transformers 5 reads the config) with each rule of its profile (`encodings.runtimes`) applied: the base, the
rotated dims, the scaling and its factor, the factor on cos and sin and on the softmax scale, and, for the
rules that depend on the running length (LongRoPE's switch, dynamic NTK), the length they are evaluated at.

Two readings are compared on what they do to a score. With the factor c = a²·σ each puts on a logit (a on cos
and sin, σ on the softmax scale) and the frequencies θ_i, the score of unit vectors q, k at offset m is
qᵀ·c·R(mθ)·k, so the largest change over unit q, k is the spectral norm of c'R(mθ') − cR(mθ): on rotated
dims paired alike, max_i |c'·e^{imθ'_i} − c·e^{imθ_i}| exactly, since each pair turns as a complex number.
The first offset at which it exceeds `TOLERANCE` is found per pair in closed form,
m_i = ⌈arccos(κ_i)/|θ'_i − θ_i|⌉ with κ_i = (c'² + c² − ε²)/(2c'c), and checked at m_i − 1 and m_i, at
`DIGITS` digits. Readings that rotate different dims are compared on the whole head's matrices in float64,
offset by offset up to `DENSE_OFFSETS`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mpmath
import numpy as np
from threadpoolctl import threadpool_limits

from ..encodings.model_config import LayerGroup, ModelSetup, PositionalSetup, text_model
from ..encodings.rope_rules import BY_KIND
from ..encodings.runtimes import (
    BY_NAME,
    PROFILES,
    REFERENCE,
    REFERENCE_VERSION,
    RULES,
    UNPROFILED,
    Behaviour,
    Profile,
    numerics,
)
from ..encodings.scaling import RopeScaling, yarn_factor_mp
from .float32_angles import first_parting
from .model_setup import DIGITS, SHOWN, Finding, ModelAnalysis, cos_sin_factor, softmax_factor

#: The change in a score of unit q, k (before 1/√d) a divergence must exceed: 2^-8, half of bfloat16's
#: spacing at 1.
TOLERANCE = 2.0**-8
#: Offsets scanned when two readings rotate different dims.
DENSE_OFFSETS = 64
#: The base a runtime takes when it finds no top-level rope_theta.
FALLBACK_BASE = 10000.0


@dataclass(frozen=True)
class Reading:
    """What one runtime computes for one RoPE layer group at one sequence length: the base, the rotated
    dims, the scaling, the factor on cos and sin, the factor on the softmax scale (1 where none), whether
    LongRoPE's long factors are used (None for other rules) and which rule of each quantity applied."""

    base: float
    rotary_dim: int
    head_dim: int
    scaling: RopeScaling
    cos_sin: mpmath.mpf
    softmax: mpmath.mpf
    long: bool | None
    rules: dict[str, str]
    still: tuple[int, ...] = ()

    def frequencies(self) -> list[mpmath.mpf]:
        """θ'_i at `DIGITS` digits (0 for the pairs that do not turn)."""
        found = list(_frequencies(self.scaling, self.rotary_dim, self.base))
        for i in self.still:
            found[i] = mpmath.mpf(0)
        return found

    @property
    def logit_factor(self) -> mpmath.mpf:
        return self.cos_sin**2 * self.softmax


@functools.lru_cache(maxsize=256)
def _frequencies(scaling: RopeScaling, rotary_dim: int, base: float) -> tuple[mpmath.mpf, ...]:
    """A reading's θ'_i at `DIGITS` digits, computed once per scaling, width and base."""
    exact = str(int(base)) if float(base).is_integer() else repr(base)
    return tuple(scaling.frequencies_mp(rotary_dim, exact, DIGITS))


@dataclass
class Divergence:
    """A runtime computing a group's scores differently from the reference: which quantities differ (with
    both values), for which sequence lengths, and the first offset whose score differs by more than
    `TOLERANCE` (None: not within the offsets the group sees)."""

    profile: Profile
    quantities: dict[str, tuple[str, str]]
    lengths: str
    first_offset: int | None
    largest: float
    sources: tuple[str, ...] = ()
    reports: tuple[str, ...] = ()
    text_tokens: bool = True
    numeric: bool = False


@dataclass
class GroupRuntimes:
    """The readings of one layer group by every profile asked for, and their divergences."""

    group: LayerGroup
    table: dict[str, dict[str, str]] = field(default_factory=dict)
    divergences: list[Divergence] = field(default_factory=list)


def profiles_named(names: Sequence[str] | None) -> tuple[Profile, ...]:
    """The profiles of `names` (every profile when None), a ValueError naming an unknown one."""
    if not names:
        return PROFILES
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown runtime {unknown[0]!r} (known: {', '.join(BY_NAME)})")
    return tuple(BY_NAME[name] for name in names)


def _lengths(setup: PositionalSetup, served: int) -> list[int]:
    """The sequence lengths a group is compared at: the served context, and for a rule that depends on the
    running length, the original context L₀ and L₀ + 1 when they lie within it."""
    if not setup.rule.running_length:
        return [served]
    original = setup.scaling.original_context
    return sorted({min(original, served), *([original + 1] if original + 1 <= served else []), served})


def _with(scaling: RopeScaling, **changes: object) -> RopeScaling:
    return dataclasses.replace(scaling, **changes)


def _long(rule: str, length: int, served: int, original: int) -> bool:
    """Whether LongRoPE's long factors are used for a sequence of `length` tokens under a switch rule."""
    if rule == "sequence":
        return length > original
    if rule == "sequence-inclusive":
        return length >= original
    if rule == "any-position":
        return length - 1 > original
    if rule == "max-model-len":
        return served > original
    if rule == "allocated-context":
        return -(-served // 256) * 256 > original
    if rule == "always-long":
        return True
    raise ValueError(f"unknown LongRoPE switch {rule!r}")


def read(
    profile: Profile,
    model: ModelSetup,
    group: LayerGroup,
    config: Mapping[str, object],
    length: int,
    served: int,
) -> Reading:
    """What `profile` computes for a RoPE group (with its frequencies computable) at `length` tokens of a
    context served at `served` tokens."""
    text, _ = text_model(config)
    setup = group.position
    applied: dict[str, str] = {}

    def rule(quantity: str) -> str:
        behaviour = profile.rule(quantity, setup.model_type)
        chosen = behaviour.rule if behaviour else next(iter(RULES[quantity]))
        applied[quantity] = chosen
        return chosen

    full = _full_attention(model) if group.layer_type == "sliding_attention" else None
    if full is not None and rule("sliding_rope") == "global":
        setup = dataclasses.replace(
            setup,
            base=full.base,
            scaling=full.scaling,
            rule=full.rule,
            attention_factor=full.attention_factor,
            mscale=full.mscale,
            mscale_all_dim=full.mscale_all_dim,
        )
    if _scaling_only_inside(text) and rule("scaling_block") == "rope-scaling-only":
        setup = dataclasses.replace(
            setup,
            scaling=RopeScaling(),
            rule=BY_KIND["none"],
            attention_factor=None,
            mscale=None,
            mscale_all_dim=None,
        )
    base = setup.base
    if _theta_only_inside(text) and rule("theta") == "top-level":
        base = FALLBACK_BASE
    rotary_dim, head_dim = setup.rotary_dim, setup.head_dim or setup.rotary_dim
    if rotary_dim < head_dim and rule("partial_rotary") == "full-head":
        rotary_dim = head_dim
    scaling, kind = setup.scaling, setup.rule.kind
    long = None
    if kind == "yarn":
        stated = _stated_original(_block(text, group.layer_type))
        how = rule("yarn_original")
        if how == "block-only" and setup.max_positions:
            scaling = _with(scaling, original_context=stated or setup.max_positions)
        elif how == "block-else-4096":
            scaling = _with(scaling, original_context=stated or 4096)
        elif how == "mrope-times-4" and setup.mrope_section is not None:
            scaling = _with(scaling, original_context=4 * scaling.original_context)
        # The ratio replaces the factor only where the block itself states the original context.
        if rule("yarn_factor") == "context-ratio" and stated and setup.max_positions:
            ratio = setup.max_positions / scaling.original_context
            if ratio >= 1:
                scaling = _with(scaling, factor=ratio)
        if rule("yarn_truncate") == "always":
            scaling = _with(scaling, truncate=True)
    elif kind == "longrope":
        if rule("longrope_original") == "top-level-only" and setup.max_positions:
            top = _stated_original(text)
            scaling = _with(scaling, original_context=top or setup.max_positions)
        original = scaling.original_context
        long = _long(rule("longrope_switch"), length, served, original)
        scaling = _with(scaling, seq_len=original + 1 if long else original)
        if (
            rule("longrope_factor") == "context-ratio-when-top-level"
            and "original_max_position_embeddings" in text
            and setup.max_positions
        ):
            scaling = _with(scaling, factor=max(1.0, setup.max_positions / original))
    elif kind == "dynamic-ntk":
        how = rule("dynamic")
        if how == "running":
            scaling = _with(scaling, seq_len=length)
        elif how == "plain":
            scaling = _with(scaling, seq_len=None)
        else:
            scaling = _with(scaling, seq_len=round(scaling.factor * scaling.original_context))
    elif kind == "proportional" and rule("proportional_factor") == "dropped":
        scaling = _with(scaling, factor=1.0)
    still: tuple[int, ...] = ()
    sections = setup.mrope_section
    if sections is not None and rule("mrope_layout") == "leftover-still" and setup.mrope_interleaved:
        still = unclaimed_pairs(sections, rotary_dim // 2)
    setup = dataclasses.replace(setup, base=base, rotary_dim=rotary_dim, scaling=scaling)
    with mpmath.workdps(DIGITS):
        cos_sin = _cos_sin(setup, rule, text)
        softmax = softmax_factor(setup) or mpmath.mpf(1)
    return Reading(base, rotary_dim, head_dim, scaling, cos_sin, softmax, long, applied, still)


def unclaimed_pairs(sections: tuple[int, ...], pairs: int) -> tuple[int, ...]:
    """The pairs no section claims in ggml's interleaved M-RoPE (IMROPE): pair i is the temporal row's when
    i ≡ 0 (mod 3) and i < 3·t, the height's when i ≡ 1 and i < 3·h, the width's when i ≡ 2 and i < 3·w;
    any other pair takes the fourth row."""
    t, h, w = (*sections, 0, 0, 0)[:3]
    limits = {0: 3 * t, 1: 3 * h, 2: 3 * w}
    return tuple(i for i in range(pairs) if not i < limits[i % 3])


def _block(text: Mapping[str, object], layer_type: str | None) -> Mapping[str, object]:
    """The scaling block a layer group reads: rope_scaling, else rope_parameters (its layer type's block when
    it holds one per layer type)."""
    for key in ("rope_scaling", "rope_parameters"):
        block = text.get(key)
        if isinstance(block, Mapping):
            inner = block.get(layer_type) if layer_type else None
            return inner if isinstance(inner, Mapping) else block
    return {}


def _stated_original(where: Mapping[str, object]) -> int | None:
    """The original_max_position_embeddings `where` states (a positive integer), else None."""
    value = where.get("original_max_position_embeddings")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _theta_only_inside(text: Mapping[str, object]) -> bool:
    """Whether the config states its base only inside ``rope_parameters`` (transformers 5's layout, flat or
    one block per layer type), not at its top level."""
    if "rope_theta" in text or "rotary_emb_base" in text:
        return False
    block = text.get("rope_parameters")
    if not isinstance(block, Mapping):
        return False
    return "rope_theta" in block or any(isinstance(v, Mapping) and "rope_theta" in v for v in block.values())


def _scaling_only_inside(text: Mapping[str, object]) -> bool:
    """Whether the config states a scaling (a rope_type other than default) only inside ``rope_parameters``
    (flat or one block per layer type), with no ``rope_scaling`` beside it."""
    if isinstance(text.get("rope_scaling"), Mapping):
        return False
    block = text.get("rope_parameters")
    if not isinstance(block, Mapping):
        return False
    blocks = [v for v in block.values() if isinstance(v, Mapping)] or [block]
    return any(b.get("rope_type", b.get("type", "default")) != "default" for b in blocks)


def _full_attention(model: ModelSetup) -> PositionalSetup | None:
    for group in model.groups:
        if group.layer_type == "full_attention" and group.position.scheme == "rope":
            return group.position
    return None


def _cos_sin(setup: PositionalSetup, rule, text: Mapping[str, object]) -> mpmath.mpf:
    """The factor on cos and sin under the profile's rule of the group's kind."""
    scaling, kind = setup.scaling, setup.rule.kind
    if kind == "yarn":
        how = rule("yarn_attention")
        s = scaling.factor
        if how == "get-mscale":
            return yarn_factor_mp(s)
        if how == "ratio-if-present":
            if setup.mscale is not None and setup.mscale_all_dim is not None:
                return yarn_factor_mp(s, setup.mscale) / yarn_factor_mp(s, setup.mscale_all_dim)
            return yarn_factor_mp(s)
        if how == "ratio-with-defaults":
            mscale = 1.0 if setup.mscale is None else setup.mscale
            every = 0.0 if setup.mscale_all_dim is None else setup.mscale_all_dim
            return yarn_factor_mp(s, mscale) / yarn_factor_mp(s, every)
        if how == "log-multiplier":
            if setup.mscale_all_dim:
                return yarn_factor_mp(s) / yarn_factor_mp(s, setup.mscale_all_dim)
            return yarn_factor_mp(s)
        if how == "log-multiplier-deepseek":
            return mpmath.mpf(1) if setup.mscale_all_dim else yarn_factor_mp(s)
        if how == "attention-factor-times-get-mscale":
            given = mpmath.mpf(1) if setup.attention_factor is None else mpmath.mpf(setup.attention_factor)
            return given * yarn_factor_mp(s)
    if kind == "longrope" and rule("longrope_attention") == "context-ratio":
        original = scaling.original_context
        s = mpmath.mpf(setup.max_positions or original) / original
        return mpmath.mpf(1) if s <= 1 else mpmath.sqrt(1 + mpmath.log(s) / mpmath.log(original))
    return cos_sin_factor(setup)[0]


def first_divergence(reference: Reading, other: Reading, offsets: int) -> tuple[int | None, float]:
    """The first offset 0 ≤ m < `offsets` at which some unit q, k's score differs by more than `TOLERANCE`
    between two readings (None if none does), and the largest difference at that offset (or at the last
    offset scanned)."""
    if reference.rotary_dim != other.rotary_dim:
        return _dense_divergence(reference, other, offsets)
    with mpmath.workdps(DIGITS):
        c, c2 = reference.logit_factor, other.logit_factor
        eps = mpmath.mpf(TOLERANCE)

        def gap(delta: mpmath.mpf, m: int) -> mpmath.mpf:
            return mpmath.sqrt(abs(c2 * c2 + c * c - 2 * c2 * c * mpmath.cos(m * delta)))

        best: int | None = None
        for theta, theta2 in zip(reference.frequencies(), other.frequencies(), strict=True):
            delta = abs(theta2 - theta)
            if gap(delta, 0) > eps:
                return 0, float(gap(delta, 0))
            if delta == 0:
                continue
            kappa = (c2 * c2 + c * c - eps * eps) / (2 * c2 * c)
            if kappa < -1:
                continue
            m = int(mpmath.ceil(mpmath.acos(min(kappa, mpmath.mpf(1))) / delta))
            while m > 0 and gap(delta, m - 1) > eps:
                m -= 1
            while gap(delta, m) <= eps:
                m += 1
            if m < offsets and (best is None or m < best):
                best = m
        if best is None:
            return None, 0.0
        largest = max(
            gap(abs(t2 - t), best) for t, t2 in zip(reference.frequencies(), other.frequencies(), strict=True)
        )
        return best, float(largest)


@threadpool_limits.wrap(limits=1, user_api="blas")
def _dense_divergence(reference: Reading, other: Reading, offsets: int) -> tuple[int | None, float]:
    """`first_divergence` for readings that rotate different dims: the whole head's matrices (half-split
    pairs over each reading's rotated dims, the rest passed through) in float64, offset by offset."""
    head = max(reference.head_dim, other.head_dim, reference.rotary_dim, other.rotary_dim)

    def matrix(reading: Reading, m: int) -> np.ndarray:
        out = np.eye(head)
        half = reading.rotary_dim // 2
        factor = float(reading.logit_factor)
        for i, theta in enumerate(float(t) for t in reading.frequencies()):
            c, s = math.cos(m * theta), math.sin(m * theta)
            a, b = i, i + half
            out[a, a], out[a, b], out[b, a], out[b, b] = c, -s, s, c
        out[: reading.rotary_dim, : reading.rotary_dim] *= factor
        return out

    norm = 0.0
    for m in range(min(offsets, DENSE_OFFSETS)):
        norm = float(np.linalg.norm(matrix(other, m) - matrix(reference, m), 2))
        if norm > TOLERANCE:
            return m, norm
    return None, norm


def _shown(value: object) -> str:
    if isinstance(value, mpmath.mpf):
        return mpmath.nstr(value, SHOWN)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _quantities(reading: Reading) -> dict[str, str]:
    scaling = reading.scaling
    shown = {
        "base": _shown(reading.base),
        "rotary_dim": str(reading.rotary_dim),
        "scaling": f"{scaling.kind} × {_shown(scaling.factor)}" if scaling.kind != "none" else "none",
        "cos_sin_factor": _shown(reading.cos_sin),
        "softmax_factor": _shown(reading.softmax),
    }
    if reading.long is not None:
        shown["longrope_factors"] = "long" if reading.long else "short"
    if scaling.kind in ("yarn", "longrope"):
        shown["original_context"] = str(scaling.original_context)
    if reading.still:
        shown["still_pairs"] = ", ".join(map(str, reading.still))
    if scaling.kind == "yarn":
        shown["truncate"] = str(scaling.truncate)
    if scaling.kind == "dynamic-ntk":
        shown["dynamic_length"] = str(scaling.sequence_length)
    return shown


def compare_runtimes(
    model: ModelSetup,
    config: Mapping[str, object],
    served: int,
    profiles: Sequence[Profile] = PROFILES,
    reach: Mapping[int, int] | None = None,
) -> list[GroupRuntimes]:
    """Per RoPE layer group whose frequencies can be computed: each profile's reading at the served context
    (`table`, quantity by quantity) and its divergences from the reference (`REFERENCE`). `reach` gives,
    per group index, the offsets a query of that group sees (its window), default the served context."""
    found: list[GroupRuntimes] = []
    for index, group in enumerate(model.groups):
        setup = group.position
        if setup.scheme != "rope" or None in (setup.rotary_dim, setup.base, setup.scaling, setup.rule):
            continue
        entry = GroupRuntimes(group)
        offsets = (reach or {}).get(index, served)
        lengths = _lengths(setup, served)
        references = {n: read(REFERENCE, model, group, config, n, served) for n in lengths}
        entry.table[REFERENCE.name] = _quantities(references[served])
        for profile in profiles:
            if profile is REFERENCE:
                continue
            if setup.model_type in profile.unserved:
                entry.table[profile.name] = {"base": f"does not load model type {setup.model_type}"}
                continue
            if setup.model_type in UNPROFILED:
                entry.table[profile.name] = {
                    "base": f"its own code for model type {setup.model_type}: not read"
                }
                continue
            readings = {n: read(profile, model, group, config, n, served) for n in lengths}
            entry.table[profile.name] = _quantities(readings[served])
            differing: dict[int, tuple[int | None, float, dict[str, tuple[str, str]]]] = {}
            departed: set[str] = set()
            for n in lengths:
                ref_q, rt_q = _quantities(references[n]), _quantities(readings[n])
                if _computes_alike(references[n], readings[n]):
                    continue
                changed = {
                    k: (ref_q.get(k, "—"), rt_q.get(k, "—"))
                    for k in {**ref_q, **rt_q}
                    if ref_q.get(k, "—") != rt_q.get(k, "—")
                }
                if not changed:
                    changed = _beyond_shown(references[n], readings[n])
                first, largest = first_divergence(references[n], readings[n], min(n, offsets))
                differing[n] = (first, largest, changed)
                departed |= {q for q, r in readings[n].rules.items() if r != next(iter(RULES[q]))}
            if differing:
                behaviours = [profile.rule(q, setup.model_type) for q in sorted(departed)]
                entry.divergences.append(_divergence(profile, setup, differing, lengths, behaviours))
            angles = profile.rule("angles", setup.model_type)
            if angles is not None and setup.rule.kind == "none":
                parted = _angle_divergence(profile, angles, setup, min(served, offsets))
                if parted.first_offset is not None:
                    entry.divergences.append(parted)
            layout = profile.rule("mrope_layout", setup.model_type) if setup.mrope_section else None
            if layout is not None and (
                layout.rule == "unused" or (layout.rule == "blocked" and setup.mrope_interleaved)
            ):
                ours = "interleaved" if setup.mrope_interleaved else "blocked"
                entry.divergences.append(
                    Divergence(
                        profile,
                        {"mrope_layout": (ours, layout.rule)},
                        "for image and video tokens only (a text token's three position rows are equal, so "
                        "every layout turns it alike)",
                        None,
                        0.0,
                        (layout.source,),
                        (layout.report,) if layout.report else (),
                        text_tokens=False,
                    )
                )
        found.append(entry)
    return found


def _beyond_shown(one: Reading, other: Reading) -> dict[str, tuple[str, str]]:
    """What differs between two readings that agree to the digits a table shows: the factors to 17 digits,
    else the frequencies (the largest relative difference of a pair)."""
    factors = {
        name: (mpmath.nstr(a, 17), mpmath.nstr(b, 17))
        for name, a, b in (
            ("cos_sin_factor", one.cos_sin, other.cos_sin),
            ("softmax_factor", one.softmax, other.softmax),
        )
        if a != b
    }
    if factors:
        return factors
    with mpmath.workdps(DIGITS):
        largest = max(
            (abs(b - a) / a for a, b in zip(one.frequencies(), other.frequencies(), strict=False) if a),
            default=mpmath.mpf(0),
        )
    return {"frequencies": ("reference", f"a pair differs by {mpmath.nstr(largest, 3)} relative")}


def _angle_divergence(
    profile: Profile, angles: Behaviour, setup: PositionalSetup, offsets: int
) -> Divergence:
    """How far a runtime's float32 angle arithmetic (`angles`) parts from one float32 product per angle, over
    the offsets a group sees (query at the offset, key at 0): `float32_angles.first_parting`. Only a parting
    within those offsets is a divergence (float32 angles differ somewhat in any two computations)."""
    base = str(int(setup.base)) if float(setup.base).is_integer() else repr(setup.base)
    parting = first_parting(base, setup.rotary_dim, offsets, TOLERANCE)
    where = (
        f"the angles differ by up to {parting.largest:.3g} rad over the offsets these layers see"
        if parting.first is None
        else f"at offset {parting.first} pair {parting.pair}'s angles differ by {parting.gap:.3g} rad"
    )
    return Divergence(
        profile,
        {"angles": ("one float32 product", f"float32 {angles.rule}")},
        f"in float32 ({where}; against correctly rounded float32 frequencies)",
        parting.first,
        2 * math.sin(parting.gap / 2),
        (angles.source,),
        (angles.report,) if angles.report else (),
        numeric=True,
    )


def _computes_alike(one: Reading, other: Reading) -> bool:
    """Whether two readings compute the same scores: the same rotated dims, frequencies and factors (the
    rule that chose them may differ, as LongRoPE's switch between equal factor lists)."""
    return (
        one.rotary_dim == other.rotary_dim
        and one.logit_factor == other.logit_factor
        and one.frequencies() == other.frequencies()
    )


def _divergence(
    profile: Profile,
    setup: PositionalSetup,
    differing: dict[int, tuple[int | None, float, dict[str, tuple[str, str]]]],
    lengths: list[int],
    behaviours: list[Behaviour],
) -> Divergence:
    ns = sorted(differing)
    if len(lengths) == 1:
        said = "at every length"
    else:
        said = "for sequences of " + ", ".join(_length_class(n, setup, lengths) for n in ns)
    firsts = [differing[n][0] for n in ns if differing[n][0] is not None]
    first = min(firsts) if firsts else None
    largest = max(differing[n][1] for n in ns)
    quantities: dict[str, tuple[str, str]] = {}
    for n in ns:
        quantities |= differing[n][2]
    return Divergence(
        profile,
        quantities,
        said,
        first,
        largest,
        tuple(b.source for b in behaviours),
        tuple(b.report for b in behaviours if b.report),
    )


def _length_class(n: int, setup: PositionalSetup, lengths: list[int]) -> str:
    """The sequence lengths a compared length stands for: up to L₀, L₀ + 1, and beyond (LongRoPE's
    switches differ only at L₀ + 1 and L₀ + 2)."""
    original = setup.scaling.original_context
    if n == lengths[0] and n <= original:
        return f"up to {n} tokens"
    if n == original + 1 or setup.rule.kind != "longrope":
        return f"{n} tokens"
    return f"{original + 2} to {n} tokens"


def divergence_message(divergence: Divergence) -> str:
    """One line: the runtime and versions, what differs, for which lengths, and the first offset."""
    profile = divergence.profile
    parts = ", ".join(f"{k} {ref} → {rt}" for k, (ref, rt) in divergence.quantities.items())
    if not divergence.text_tokens:
        where = "not measured on text positions"
    elif divergence.first_offset is None:
        where = "scores stay within 2^-8 of the reference's over the offsets these layers see"
    else:
        where = (
            f"scores of unit q, k first differ by more than 2^-8 at offset {divergence.first_offset} "
            f"(by {divergence.largest:.3g})"
        )
    reports = f" [{'; '.join(divergence.reports)}]" if divergence.reports else ""
    return f"{profile.name}: {parts} {divergence.lengths}; {where}{reports}"


def runtimes_record(
    found: ModelAnalysis, config: Mapping[str, object], profiles: Sequence[Profile] = PROFILES
) -> dict[str, object]:
    """The record `pe-verify model --runtimes` prints: the reference, the tolerance, every profile asked for
    (its versions, the version its source was read at, and where it is tested against real code), and per
    RoPE layer group the table profile × quantity and the divergences as findings."""
    record: dict[str, object] = {
        "reference": f"transformers {REFERENCE_VERSION}",
        "tolerance": "2^-8 on the score of unit q, k",
        "profiles": [
            {
                "name": p.name,
                "runtime": p.runtime,
                "versions": p.versions,
                "read_at": p.read_at,
                "tested": p.tested or None,
                "numerics": None if numerics(p) is None else dataclasses.asdict(numerics(p)),
            }
            for p in profiles
        ],
        "groups": [],
    }
    if found.context is None:
        record["skipped"] = "the config states no context: give --context"
        return record
    reach = {i: g.reach for i, g in enumerate(found.groups) if g.reach is not None}
    for entry in compare_runtimes(found.setup, config, found.context, profiles, reach):
        record["groups"].append(
            {
                "layer_type": entry.group.layer_type,
                "layers": list(entry.group.layers),
                "table": entry.table,
                "findings": [
                    Finding(
                        "runtime-divergence",
                        divergence_message(d),
                        "note" if d.numeric or (d.text_tokens and d.first_offset is None) else "warning",
                        f"{d.profile.runtime} {d.profile.versions}",
                    ).as_json()
                    | {
                        "profile": d.profile.name,
                        "quantities": {k: list(v) for k, v in d.quantities.items()},
                        "first_offset": d.first_offset,
                        "text_tokens": d.text_tokens,
                        "sources": list(d.sources),
                        "reports": list(d.reports),
                    }
                    for d in entry.divergences
                ],
            }
        )
    return record
