"""YaRN's dimension regimes and temperature (Peng et al. 2023, arXiv 2309.00071) and bfloat16's drift of RoPE
scores (Wang et al. 2024, arXiv 2411.13476), recomputed."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from pe_verify.properties.analyses.rope_precision import (
    DriftCurve,
    RopeInDtype,
    drift_curve,
    position_spacing,
    unit_queries_and_keys,
)
from pe_verify.properties.checks.printed_table import certified_rounding
from pe_verify.properties.encodings.scaling import (
    RopeScaling,
    attention_factor_arb,
    certainly_above,
    check_attention_factor_exact,
    compare_yarn_ramps,
    yarn_pair_regimes,
)

from .model import (
    BEYOND,
    BEYOND_DOMAIN,
    CAVEAT,
    CERTIFICATE,
    CORROBORATES,
    FLOAT,
    LIMITS,
    Assessment,
    Evidence,
    Reproduction,
    Row,
    Source,
    claim,
)
from .numbers import ball_digits, ball_text, certified, within

# ------------------------------------------------------------------------------------- YaRN's regimes

YARN = Source(BEYOND, "RoPE scaling: YaRN")
YARN_SOURCE = (
    "Peng, Quesnelle, Fan & Shippole 2023, YaRN (arXiv 2309.00071 v2): §3.2 Eqs. 17–20 (NTK-by-parts, α = 1, "
    "β = 32 for the Llama family), §3.4 Eq. 22 (√(1/t) = 0.1 ln s + 1), Appendix A.2 Eq. 25 (s = 8)"
)
#: Ball-arithmetic precision (bits) of the regimes, weights and factors.
BITS = 128
#: A difference of weights (which lie in [0, 1]) that counts as material.
MATERIAL = Fraction(1, 100)
#: Llama 2: |D| = 128, base 10000, original context L = 4096; the paper's α = 1, β = 32. The regimes do not
#: depend on the factor s (here the 64k model's 16).
D, BASE = 128, 10000
LLAMA2 = RopeScaling("yarn", factor=16, original_context=4096, beta_fast=32, beta_slow=1)
#: The factors whose attention factor is recomputed, and the value Eq. 25 prints for s = 8.
FACTORS = (2, 4, 8, 16, 32)
PRINTED_FACTOR, PRINTED_AT = 8, "1.208"


def _pairs(indices: tuple[int, ...]) -> str:
    """A run of pair indices as text: "pairs 0–20 (21)"."""
    if not indices:
        return "no pair"
    if list(indices) == list(range(indices[0], indices[-1] + 1)):
        return f"pairs {indices[0]}–{indices[-1]} ({len(indices)})"
    return f"pairs {', '.join(map(str, indices))} ({len(indices)})"


def _apart(paper: flint.arb, code: Fraction) -> bool:
    """Whether the paper's weight (a ball) and the code's (exact) certainly differ by more than MATERIAL."""
    return certainly_above(abs(paper - flint.arb(code.numerator) / code.denominator), MATERIAL)


@claim(
    id="G.yarn_dims",
    source=YARN,
    statement="YaRN (Peng et al. 2023, arXiv 2309.00071 §3.2, Eqs. 17–20): with r(d) = L/λ_d the number of "
    "turns pair d makes over the original context L, NTK-by-parts leaves the pairs with r > β unchanged, "
    "divides those with r < α by s and blends between with weight γ(r) = (r − α)/(β − α), with α = 1 and "
    "β = 32 for the Llama family; §3.4, Eq. 22: the attention factor is √(1/t) = 0.1 ln s + 1, ≈ 1.208 at "
    "s = 8 (Appendix A.2, Eq. 25). On Llama 2 (L = 4096, |D| = 128, b = 10000) Hugging Face's YaRN "
    "(find_correction_dim rounded by floor and ceil) keeps, blends and divides the same pairs, and its "
    "get_mscale is that factor for s = 2, 4, 8, 16, 32.",
    formal=r"r(d) = \frac{L}{2\pi}\,b^{-2d/|D|},\ \gamma(r) = \operatorname{clamp}\bigl(\tfrac{r-\alpha}"
    r"{\beta-\alpha}, 0, 1\bigr),\ \alpha = 1,\ \beta = 32;\quad \sqrt{1/t} = 0.1\ln s + 1",
    expected=CAVEAT,
    why_ko="짝을 유지·섞기·나누기로 나누는 것과 온도 공식은 재현되지만, 참조 코드의 섞는 가중치는 반올림된 "
    "끝 사이에서 짝 번호에 선형이라 Eq. 18의 가중치와 다르다.",
    depends_on=("G.yarn_ramp", "G.yarn_reference_ramp", "G.yarn_temperature"),
    reproduces="yarn_dims",
)
def yarn_dims() -> Assessment:
    with flint.ctx.workprec(BITS):
        paper, code = yarn_pair_regimes(LLAMA2, D, BASE)
        ramps = compare_yarn_ramps(LLAMA2, D, BASE, MATERIAL)
        factors = {
            s: (attention_factor_arb(s), check_attention_factor_exact(RopeScaling("yarn", s)))
            for s in FACTORS
        }
        printed = certified_rounding(attention_factor_arb(PRINTED_FACTOR), BITS, decimals=3)
        start_apart = _apart(ramps.paper_start, ramps.code_start)
        end_apart = _apart(ramps.paper_end, ramps.code_end)
        c_beta, c_alpha = ball_text(ramps.c_beta, ".4f"), ball_text(ramps.c_alpha, ".4f")
        at_beta, at_alpha = ball_text(ramps.at_beta, ".4f"), ball_text(ramps.at_alpha, ".4f")
        paper_start, paper_end = ball_text(ramps.paper_start, ".4f"), ball_text(ramps.paper_end, ".4f")
        unrounded_start = ball_text(ramps.unrounded_start, ".4f")
        unrounded_end = ball_text(ramps.unrounded_end, ".4f")
        paper_at = ball_text(ramps.paper_at, ".4f")
    same = paper == code
    regimes = (
        f"{_pairs(paper.kept)} kept, {_pairs(paper.blended)} blended, {_pairs(paper.interpolated)} divided"
    )
    rows = (
        Row(
            f"kept, r_i > β = {LLAMA2.beta_fast:g}",
            f"{_pairs(paper.kept)}: γ = 1, h(θ) = θ (Eqs. 18, 20)",
            f"{_pairs(code.kept)}: i ≤ ⌊c(β)⌋ = {ramps.low}",
            paper.kept == code.kept,
            f"paper: r_i = 4096·10000^(−i/64)/(2π) against β in arb balls; code: c(β) = {c_beta}, floored",
        ),
        Row(
            "blended, α ≤ r_i ≤ β",
            f"{_pairs(paper.blended)}: 0 < γ < 1",
            f"{_pairs(code.blended)}: ⌊c(β)⌋ < i < ⌈c(α)⌉",
            paper.blended == code.blended,
            "the same pairs; their weights differ (rows below)",
        ),
        Row(
            f"divided by s, r_i < α = {LLAMA2.beta_slow:g}",
            f"{_pairs(paper.interpolated)}: γ = 0, h(θ) = θ/s",
            f"{_pairs(code.interpolated)}: i ≥ ⌈c(α)⌉ = {ramps.high}",
            paper.interpolated == code.interpolated,
            f"code: c(α) = {c_alpha}, ceiled",
        ),
        Row(
            f"weight of pair {ramps.start}, the first blended (r just below β)",
            f"γ(r_{ramps.start}) = {paper_start}",
            f"{ramps.code_start} = {float(ramps.code_start):.4f}",
            not start_apart,
            f"the floor moves the ramp's start from c(β) = {c_beta} to {ramps.low} (unrounded, pair "
            f"{ramps.start} would get {unrounded_start}; at c(β) itself, where no pair sits, the rounded "
            f"ramp is {at_beta}); off by more than {MATERIAL} counts",
        ),
        Row(
            f"weight of pair {ramps.end}, the last blended (r just above α)",
            f"γ(r_{ramps.end}) = {paper_end}",
            f"{ramps.code_end} = {float(ramps.code_end):.4f}",
            not end_apart,
            f"the ceiling moves the ramp's end from c(α) = {c_alpha} to {ramps.high} (unrounded, pair "
            f"{ramps.end} would get {unrounded_end}; at c(α) itself the rounded ramp is {at_alpha})",
        ),
        Row(
            f"weight of pair {ramps.widest}, the widest gap",
            f"γ(r_{ramps.widest}) = {paper_at}",
            f"{ramps.code_at} = {float(ramps.code_at):.4f}",
            not ramps.differs,
            "the code's ramp is linear in i, that is in ln r, between the rounded ends; the paper's is "
            f"linear in r; {ramps.blended} pairs are blended",
        ),
        *(
            Row(
                f"√(1/t) at s = {s}",
                f"0.1·ln {s} + 1 = {ball_digits(exact, 16)}",
                certified(float(check.witness["value"]), check.tolerance, ".12f"),
                check.holds,
                f"get_mscale in float64 (RopeScaling.attention_factor), "
                f"{within(check.max_error, check.tolerance)} off the ball",
            )
            for s, (exact, check) in factors.items()
        ),
        Row(
            f"√(1/t) at s = {PRINTED_FACTOR}, as printed",
            f"≈ {PRINTED_AT} (Eq. 25)",
            f"{printed.text} (0.1·ln 8 + 1 = {printed.digits})",
            printed.text == PRINTED_AT,
            "rounded to three decimals in arb balls",
        ),
    )
    checks = [check for _, check in factors.values()]
    worst = max(checks, key=lambda check: check.max_error / check.tolerance)
    evidence = (
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits, Llama 2 (L = 4096, |D| = 128, b = 10000, α = 1, β = 32): the paper's "
            f"γ(r_i) gives {regimes}; Hugging Face's rounded ramp the same pairs",
            same and min(len(paper.kept), len(paper.blended), len(paper.interpolated)) > 0,
            detail=(
                ("kept", _pairs(code.kept)),
                ("blended", _pairs(code.blended)),
                ("divided by s", _pairs(code.interpolated)),
            ),
        ),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits: 0.1·ln 8 + 1 = {printed.digits} rounds to the {PRINTED_AT} Eq. 25 "
            "prints",
            printed.text == PRINTED_AT,
            detail=(("0.1·ln 8 + 1", printed.digits),),
        ),
        Evidence(
            FLOAT,
            "Hugging Face's get_mscale (0.1·mscale·ln s + 1 in float64, as RopeScaling.attention_factor "
            f"computes it) is within 8ε(1 + value) of the ball 0.1·ln s + 1 for s = "
            f"{', '.join(map(str, FACTORS))}",
            all(check.holds for check in checks),
            CORROBORATES,
            detail=(("largest error", within(worst.max_error, worst.tolerance, ".1e")),),
            measured=(("largest error", worst.max_error), ("at s", worst.witness["factor"])),
        ),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits: on the blended pairs the code's weights are not Eq. 18's — up to "
            f"{ball_text(ramps.gap, '.4f')} apart (pair {ramps.widest}); at the pairs next to the rounded "
            f"ends, {ramps.code_start} against {paper_start} (pair {ramps.start}) and {ramps.code_end} "
            f"against {paper_end} (pair {ramps.end})",
            ramps.differs and start_apart and end_apart,
            LIMITS,
            detail=(
                ("pair", str(ramps.widest)),
                ("paper γ", paper_at),
                ("code γ", f"{ramps.code_at} = {float(ramps.code_at):.6f}"),
                ("ramp ends", f"{ramps.low}, {ramps.high}"),
            ),
        ),
    )
    return Assessment(
        evidence,
        explanation=(
            "Recomputed from the paper's Eqs. 17–18 (r_i = L·b^(−2i/|D|)/(2π), the base b of Eq. 13: "
            "NTK-by-parts changes no base, though Eq. 17 prints b′) in ball arithmetic, the Llama 2 pairs "
            f"split into {regimes}, and Hugging Face's find_correction_range, which rounds c(β) = {c_beta} "
            f"down to {ramps.low} and c(α) = {c_alpha} up to {ramps.high}, puts every pair in the same "
            "regime; the split does not depend on s. The temperature formula is reproduced exactly: "
            "0.1·ln s + 1 evaluated in arb balls matches the float64 factor of Hugging Face's get_mscale (as "
            "RopeScaling computes it) to a few ulps for "
            f"s = 2 … 32, and at s = 8 it is {printed.digits}, the {PRINTED_AT} of Eq. 25. The caveat is "
            "the blend: the reference code's weights are linear in the pair index (in ln r) between the "
            f"rounded ends, so at pair {ramps.widest} it puts {float(ramps.code_at):.4f} on the unscaled "
            f"frequency where Eq. 18 gives {paper_at}; the rounded ends give pair {ramps.start} the weight "
            f"{float(ramps.code_start):.4f} where Eq. 18 gives {paper_start}, and pair {ramps.end} "
            f"{float(ramps.code_end):.4f} against {paper_end} (at the fractional dims c(β) and c(α), where "
            f"no pair sits, the rounded ramp is {at_beta} and {at_alpha} instead of 1 and 0). The authors' "
            "own repository (jquesnelle/yarn, "
            "LlamaYaRNScaledRotaryEmbedding's find_correction_range) rounds the ramp ends the same way."
        ),
        reproduction=Reproduction(
            "yarn_dims",
            YARN_SOURCE,
            f"arb ball arithmetic at {BITS} bits (regimes decided pair by pair as exact integer sets, "
            "weights and factors as balls); Hugging Face's factor in float64, certified by its distance to "
            "the ball",
            rows,
        ),
    )


# ------------------------------------------------------------------------------- bfloat16 and RoPE

PRECISION = Source(BEYOND, "RoPE in low precision")
DRIFT_SOURCE = (
    "Wang, Liu, Du, Zhu, Du, Kawaguchi & Pang 2024, When Precision Meets Position: BFloat16 Breaks Down RoPE "
    "in Long-Context Training (arXiv 2411.13476), abstract: RoPE in BFloat16 deviates from its relative "
    "positional encoding, increasingly as context length grows"
)
PUBLISHED_DEVIATION = "bfloat16 deviates from relative encoding"
PUBLISHED_GROWTH = "the deviation accumulates as context length increases"
#: The experiment: d = 128, 64 seeded unit (q, k), keys at n ∈ [0, 16), queries at n + offset, offset < 64;
#: every score is compared with the same rotation's score at shift 0, at the shifts 2^0 … 2^20.
DRIFT_D, DRIFT_PAIRS = 128, 64
CHECKPOINTS = np.array([0] + [2**j for j in range(21)])
#: The paper's longest training context (128K, its Table 1) bounds the claim's domain; the shifts up to 2^20
#: beyond it are reported apart. From 2^14 on, bfloat16 stores positions 2^7 or more apart.
FIRST, CONTEXT, LAST, SATURATED = 1, 2**17, 2**20, 2**14
#: How implementations compute RoPE in bfloat16 — Hugging Face's Llama rotary embedding, which the paper's
#: models run: positions exact (integers, stored exactly in float32 up to 2^24), θ_i and the angles p·θ_i in
#: float32, cos, sin and the rotation in bfloat16.
EXACT_POSITIONS = RopeInDtype(DRIFT_D, dtype="bfloat16", angle_dtype="float32")
FLOAT32 = RopeInDtype(DRIFT_D, dtype="float32")
#: The labelled extreme: every value in bfloat16, the positions themselves rounded.
ALL_BF16 = RopeInDtype(DRIFT_D, dtype="bfloat16")
#: Growth that counts as the deviation accumulating (from 2^0 to 2^17), and the growth below which the drift
#: counts as flat (an error proportional to p grows 4-fold over two octaves); bfloat16's drift counts as far
#: beyond float32's when its median is at least FAR times float32's.
GROWTH, FLAT, FAR = 10.0, 2.0, 4.0
SETUP = "d = 128, 64 seeded unit (q, k), offsets 0 … 63, against the same rotation's score at p = 0"


def _curve(rope: RopeInDtype) -> DriftCurve:
    return drift_curve(rope, *unit_queries_and_keys(DRIFT_D, DRIFT_PAIRS), CHECKPOINTS)


def _drift(curve: DriftCurve, values: np.ndarray, row: int) -> str:
    return certified(float(values[row]), curve.bound, ".1e")


def _power(p: int) -> str:
    return f"2^{int(p).bit_length() - 1}"


def _series(curve: DriftCurve, values: np.ndarray, last: int = LAST) -> str:
    shown = [row for row, p in enumerate(curve.shifts) if FIRST <= p <= last]
    return ", ".join(f"{_power(curve.shifts[row])}: {_drift(curve, values, row)}" for row in shown)


def _growth(curve: DriftCurve, start: int, end: int) -> str:
    ratio, error = curve.growth(start, end)
    return f"×{certified(ratio, error, '.2f' if ratio < 100 else '.0f')}"


def _flat(curve: DriftCurve, start: int, end: int) -> bool:
    """The median stays under FLAT times its value at `start` at every shift up to `end`, certified."""
    return all(curve.stays_within(start, int(p), FLAT) for p in curve.shifts if start < p <= end)


def _spacing(p: int) -> str:
    spacing = position_spacing("bfloat16", p)
    return "integer positions exact in bfloat16" if spacing <= 1 else f"bfloat16 positions {spacing} apart"


@claim(
    id="G.bf16_rope_drift",
    source=PRECISION,
    statement="Wang et al. 2024 (arXiv 2411.13476, abstract): with RoPE in BFloat16 the score of a fixed "
    "q, k at a fixed offset no longer depends on the offset alone — it drifts with the absolute position, "
    "far beyond the drift of float32 (the control this reading adds), and the deviation accumulates as the "
    "context grows. Read in the setting the paper's models run (positions exact, angles in float32, cos, sin "
    "and the rotation in bfloat16, as Hugging Face's Llama code does), up to the paper's 128K = 2^17.",
    formal=r"\bigl|\langle \widetilde{R}_{m+p} q, \widetilde{R}_{n+p} k\rangle - "
    r"\langle \widetilde{R}_m q, \widetilde{R}_n k\rangle\bigr| \text{ grows with } p \le 2^{17}\ "
    r"(\widetilde{R} \text{: float32 angles, bfloat16 cos, sin and rotation})",
    expected=CAVEAT,
    why_ko="bfloat16이 상대 위치 성질을 깨뜨린다는 앞부분은 재현되지만, 이 단일 점수 실험에서는 논문의 "
    "128K 컨텍스트 안에서 어긋남이 쌓이지 않는다.",
    depends_on=("G.rope_low_precision",),
    reproduces="bf16_rope_drift",
)
def bf16_rope_drift() -> Assessment:
    exact, f32, extreme = _curve(EXACT_POSITIONS), _curve(FLOAT32), _curve(ALL_BF16)
    above = exact.exceeds(f32, FAR)
    within = (exact.shifts >= FIRST) & (exact.shifts <= CONTEXT)
    rows = [
        Row(
            f"p = {_power(p)}",
            PUBLISHED_DEVIATION,
            f"bf16 median {_drift(exact, exact.median, row)}, worst {_drift(exact, exact.worst, row)}; "
            f"f32 median {_drift(f32, f32.median, row)}, worst {_drift(f32, f32.worst, row)}",
            bool(above[row]),
            f"positions exact; agrees when the bf16 median is at least {FAR:g} times the f32 median",
        )
        for row, p in enumerate(exact.shifts)
        if within[row]
    ]
    grows, flat = exact.grows(FIRST, CONTEXT, GROWTH), _flat(exact, FIRST, CONTEXT)
    rows += [
        Row(
            "bf16 growth, p = 2^0 → 2^17",
            PUBLISHED_GROWTH,
            f"median {_growth(exact, FIRST, CONTEXT)}; f32 {_growth(f32, FIRST, CONTEXT)}",
            grows,
            f"at least {GROWTH:g}-fold counts as accumulating",
        ),
        Row(
            "bf16 growth beyond the paper's context, p = 2^17 → 2^20",
            PUBLISHED_GROWTH,
            f"median {_growth(exact, CONTEXT, LAST)}; f32 {_growth(f32, CONTEXT, LAST)}",
            exact.grows(CONTEXT, LAST, FLAT),
            "beyond the claim's domain, reported apart: float32 angles are off by up to about p·2^−24 there; "
            f"at least {FLAT:g}-fold counts as growing",
        ),
        Row(
            "all values in bf16, positions rounded too (the extreme), p = 2^0 → 2^14",
            PUBLISHED_GROWTH,
            f"median {_growth(extreme, FIRST, SATURATED)}, then {_growth(extreme, SATURATED, LAST)} to 2^20",
            extreme.grows(FIRST, SATURATED, GROWTH),
            f"not the paper's setting: from 2^14 on {_spacing(SATURATED)}, wider than the span of the "
            "unshifted positions, so the drift saturates",
        ),
    ]
    evidence = (
        Evidence(
            FLOAT,
            f"positions exact, angles in float32, cos, sin and the rotation in bfloat16 ({SETUP}): at every "
            f"p = 2^0 … 2^17 the median drift is at least {FAR:g} times float32's",
            bool(np.all(above[within])),
            detail=(
                ("bfloat16 median drift", _series(exact, exact.median)),
                ("bfloat16 worst drift", _series(exact, exact.worst)),
                ("float32 median drift", _series(f32, f32.median)),
                ("float32 worst drift", _series(f32, f32.worst)),
            ),
        ),
        Evidence(
            FLOAT,
            f"in the same setting the drift does not accumulate within the paper's context: at every "
            f"p = 2^1 … 2^17 the median stays under {FLAT:g} times its value at 2^0 "
            f"({_growth(exact, FIRST, CONTEXT)} at 2^17) — it is bfloat16's rounding of cos, sin and the "
            "rotation, the same at every shift",
            flat,
            LIMITS,
            detail=(
                ("beyond the context, 2^17 → 2^20", f"{_growth(exact, CONTEXT, LAST)} (float32 angles)"),
                ("float32 throughout, 2^0 → 2^17", _growth(f32, FIRST, CONTEXT)),
            ),
        ),
        Evidence(
            FLOAT,
            f"every value in bfloat16, the positions rounded too — an extreme, not the paper's setting: the "
            f"median drift grows {_growth(extreme, FIRST, SATURATED)} from 2^0 to 2^14 and then saturates "
            f"({_growth(extreme, SATURATED, LAST)} to 2^20), bfloat16 storing positions "
            f"{position_spacing('bfloat16', SATURATED)} or more apart",
            extreme.grows(FIRST, SATURATED, GROWTH) and _flat(extreme, SATURATED, LAST),
            BEYOND_DOMAIN,
            detail=(("median drift", _series(extreme, extreme.median)),),
        ),
    )
    return Assessment(
        evidence,
        explanation=(
            "Each score is compared with the same rotation's score at the unshifted positions, so a nonzero "
            "drift is the relative property failing, not a rounding of the score. The setting is the one the "
            "paper's models run: positions exact, θ_i and the angles in float32, cos, sin and the rotation "
            f"in bfloat16. There the median drift is {_drift(exact, exact.median, 1)} at p = 2^0 and "
            f"{_drift(exact, exact.median, exact.at(CONTEXT))} at 2^17, against float32's "
            f"{_drift(f32, f32.median, f32.at(CONTEXT))} at 2^17: bfloat16 does break the relative "
            "property, at every shift. But in this one-score experiment the deviation does not accumulate "
            f"within the paper's 128K context ({_growth(exact, FIRST, CONTEXT)}); it is the rounding of cos, "
            "sin and the rotation, the same at every shift, and it grows only beyond 2^17, where the float32 "
            f"angles' error reaches it ({_growth(exact, CONTEXT, LAST)} to 2^20). So the first half of the "
            "claim is reproduced and the second, as a property of RoPE's arithmetic with unit vectors, is "
            "not; the paper measures it in trained models (its Figure 1: pretraining amplifies it), whose "
            "weights this reproduction does not have. Rounding the positions themselves to bfloat16, an "
            f"extreme reported apart, makes the drift grow {_growth(extreme, FIRST, SATURATED)} to 2^14, "
            "where bfloat16's position spacing exceeds the span of the unshifted positions and it saturates. "
            "All low-precision values are correctly rounded, so the figures are properties of the dtypes; "
            "every drift is printed to the digits its float64 summation bound certifies."
        ),
        reproduction=Reproduction(
            "bf16_rope_drift",
            DRIFT_SOURCE,
            "the rotation as Hugging Face's Llama code runs it — integer positions, θ_i and p·θ_i in "
            "float32, cos, sin, q, k and the rotation's products and sums in bfloat16 — with every value "
            "correctly rounded (that code takes cos and sin in float32 and then rounds them to bfloat16, "
            "and forms θ_i = 1/b^(2i/d) in float32: each within an ulp or two of these), so the figures are "
            "properties of the dtypes; scores summed in float64 and printed to the digits an a-priori bound "
            "on that summation certifies",
            tuple(rows),
        ),
    )
