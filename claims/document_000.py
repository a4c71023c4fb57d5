"""Document 000 (`000_76efdfd3f753ef97.txt`): sinusoidal positional encoding, from the embedding to attention.

One entry per claim D0.1–D0.18 of the inventory, in the document's order; a claim that bundles statements
needing different kinds of evidence (a proof, a float experiment, a citation) has sub-ids D0.3a, D0.3b, ….
"""

from __future__ import annotations

import math

import flint
import numpy as np
import sympy as sp

from pe_verify.proofs.sinusoidal import position_term_counterexample
from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.analyses.separation import (
    DistanceDip,
    NearestOffset,
    certified_separation,
    first_distance_dip,
    nearest_offset,
    offset_distance,
    unit_step_against_bound,
)
from pe_verify.properties.battery.torch_code import broadcast_shape
from pe_verify.properties.checks.broadcasting import (
    adds_without_growing,
    broadcast_over_batch,
    embedding_plus_encoding,
)
from pe_verify.properties.checks.causal_mask import causal_readout
from pe_verify.properties.checks.coordinate_variation import step_changes, total_variation
from pe_verify.properties.checks.frequency_drift import frequency_drift, reference_error_bound
from pe_verify.properties.checks.previous_token import previous_token_scores
from pe_verify.properties.checks.printed_table import (
    Difference,
    TableRounding,
    rounded_table,
    table_differences,
    table_error_bound,
    table_rounding,
)
from pe_verify.properties.encodings.learned import LearnedPositionTable, table_reach
from pe_verify.properties.encodings.rope_rules import RULES
from pe_verify.properties.encodings.scaling import (
    RopeScaling,
    regime_counts,
    scaling_regimes,
    turns_per_context,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal, is_table_prefix, norm_gap, wavelength_range

from .evidence import from_derivation
from .model import (
    BEYOND_DOMAIN,
    CAVEAT,
    CERTIFICATE,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CORROBORATES,
    EXACT,
    FLAWED,
    FLOAT,
    LIMITS,
    NUMERIC,
    PROVED,
    QUESTION,
    REFUTED,
    REFUTES,
    SOUND,
    STEP_CHECKED,
    STEP_FAILS,
    Assessment,
    Evidence,
    Source,
    cited,
    claim,
)
from .numbers import ball_digits, certified, libm_scalar

DOC = "000_76efdfd3f753ef97.txt"
INTRODUCTION = Source(DOC, "(introduction)")
ADDING = Source(DOC, "위치는 왜 embedding에 더해도 되는가")
FORMULA = Source(DOC, "sinusoidal positional encoding 공식 읽기")
WHY_SIN_COS = Source(DOC, "왜 하필 sin과 cos인가")
LEARNED = Source(DOC, "학습되는 position embedding과의 차이")
CODE = Source(DOC, "작은 PyTorch 구현")
ATTENTION = Source(DOC, "position 정보가 attention 안에서 쓰이는 방식")
ROPE = Source(DOC, "요즘 모델은 RoPE를 더 많이 쓴다")

#: The table the document prints for `sinusoidal_positional_encoding(max_len=8, d_model=6).round(decimals=4)`.
PRINTED_TABLE: tuple[tuple[str, ...], ...] = (
    ("0.0000", "1.0000", "0.0000", "1.0000", "0.0000", "1.0000"),
    ("0.8415", "0.5403", "0.0464", "0.9989", "0.0022", "1.0000"),
    ("0.9093", "-0.4161", "0.0927", "0.9957", "0.0043", "1.0000"),
    ("0.1411", "-0.9900", "0.1388", "0.9903", "0.0065", "1.0000"),
    ("-0.7568", "-0.6536", "0.1846", "0.9828", "0.0086", "1.0000"),
    ("-0.9589", "0.2837", "0.2300", "0.9732", "0.0108", "0.9999"),
    ("-0.2794", "0.9602", "0.2749", "0.9615", "0.0129", "0.9999"),
    ("0.6570", "0.7539", "0.3192", "0.9477", "0.0151", "0.9999"),
)
TABLE_D = 6
TABLE_POSITIONS = 8

#: Bits of the ball arithmetic (python-flint `arb`) behind every certificate below: about 51 digits.
BALL_BITS = 170
#: Allowance, in float32 ulps, for the rounding of exp itself on top of the error the exponent carries in.
EXP_ULPS = 3.0


def _root(n: int) -> str:
    """√n: the integer when n is a square, else five significant digits (ball arithmetic)."""
    root = math.isqrt(n)
    if root * root == n:
        return str(root)
    with flint.ctx.workprec(BALL_BITS):
        return ball_digits(flint.arb(n).sqrt(), 5)


# ------------------------------------------------------------------------------------------------- D0.1


@claim(
    id="D0.1",
    source=INTRODUCTION,
    statement="Self-attention in its basic form compares all tokens at once, so with token embeddings alone "
    "the model cannot tell at which position a token stood: permuting the input tokens only "
    "permutes the outputs.",
    formal=r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X) \text{ for every permutation matrix } P \text{ (no "
    r"mask, no PE)}",
    expected=PROVED,
    why_ko="마스크 없는 기본형 self-attention은 순열 등변(permutation-equivariant)이라 토큰이 몇 번째 "
    "자리에 있었는지 알 수 없지만, 이 논증을 causal mask를 쓰는 decoder-only 모델에 옮기려면 밝히지 않은 "
    "조건이 필요하다.",
    expected_argument=CONDITIONS,
)
def d0_1() -> Assessment:
    readout = causal_readout(copies=3)
    shown = ", ".join(f"({a}, {b})" for a, b in readout.masked)
    mask_evidence = Evidence(
        EXACT,
        "A causal mask alone carries position: tokens b, t, t, t with uniform weights (W_Q = 0, exact "
        f"rational arithmetic) give the three copies of t the causal outputs {shown}, all different, while "
        f"unmasked attention gives each of them {readout.unmasked[0]}.",
        readout.reads_positions,
        BEYOND_DOMAIN,
    )
    evidence = (
        from_derivation("attention.permutation_equivariance"),
        from_derivation("attention.causal_mask_breaks_equivariance", BEYOND_DOMAIN),
        mask_evidence,
    )
    argument = (
        from_derivation("attention.permutation_equivariance", STEP_CHECKED),
        from_derivation("attention.causal_mask_breaks_equivariance", CONDITION_MISSING),
    )
    return Assessment(
        evidence,
        "Proved for self-attention in its basic form, without a mask, the domain the claim names: it is "
        "permutation-equivariant (outputs move with the tokens), so without PE it cannot say where a token "
        "stood. Beyond that domain, and not held against the claim: a causal mask breaks equivariance and "
        f"lets a head read positions without any PE — identical tokens t get the outputs {shown}. The "
        "argument is carried over to the document's setting, decoder-only LLMs, which use that mask; there "
        "'the model cannot know positions' needs the unstated condition 'no causal mask'.",
        argument,
    )


# ------------------------------------------------------------------------------------------------- D0.2


@claim(
    id="D0.2",
    source=ADDING,
    statement="The input is token_embedding[token_ids] + positional_encoding[:seq_len]: a [batch, seq_len, "
    "hidden] tensor plus a [seq_len, hidden] one broadcasts to [batch, seq_len, hidden], so the hidden size "
    "(768 in the example) stays what it was for any sequence length, whereas concatenating would double it.",
    formal=r"[B, L, H] + [L, H] \to [B, L, H],\qquad x_{b,\ell} = e_{b,\ell} + PE(\ell)",
    expected=PROVED,
    why_ko="[seq_len, hidden] 위치 표를 더하면 배치 전체에 broadcast되어 hidden size가 768 그대로 남고, "
    "concat이었다면 두 배가 된다.",
)
def d0_2() -> Assessment:
    encoding = Sinusoidal(768)
    runs = [embedding_plus_encoding(encoding, seq_len, batch=2) for seq_len in (1, 8, 512)]
    holds = all(adds_without_growing(run, batch=2, hidden=768) for run in runs)
    shapes = "; ".join(
        f"L = {run.seq_len}: sum {run.added}, concatenation {run.concatenated}" for run in runs
    )
    batch, length, hidden = sp.symbols("B L H", integer=True, positive=True)
    symbolic = broadcast_shape((batch, length, hidden), (length, hidden))
    evidence = (
        Evidence(
            EXACT,
            f"the broadcasting rule (numpy's and torch's) with symbolic sizes: [B, L, H] + [L, H] gives "
            f"{list(symbolic)} for every batch B, length L and hidden size H",
            symbolic == (batch, length, hidden),
        ),
        Evidence(
            EXACT,
            f"numpy broadcasting, batch 2, hidden 768, seeded embeddings: {shapes}; each batch "
            "row is its own embedding plus the same PE (bit for bit).",
            holds,
            CORROBORATES,
            instances="batch 2, hidden 768, L = 1, 8, 512",
        ),
    )
    return Assessment(
        evidence,
        f"Running the line in numpy gives {runs[1].added} for a batch of 2 sequences of 8 tokens: the "
        "[seq_len, hidden] table is added to every sequence of the batch, and the hidden size stays 768 for "
        f"every length tried, while concatenation gives {runs[1].concatenated[-1]}. The document's reason "
        "why adding works (later layers can separate the mixed information) is not a checkable statement "
        "and is not assessed here.",
    )


# ------------------------------------------------------------------------------------------------- D0.3


@claim(
    id="D0.3",
    source=FORMULA,
    statement="PE(pos, 2i) = sin(pos / 10000^(2i/d)) and PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); the "
    "code's exp(arange(0, d, 2) · (−ln 10000 / d)) is exactly the frequency 10000^(−2i/d) of that formula.",
    formal=r"PE(pos, 2i) = \sin\frac{pos}{10000^{2i/d}},\ PE(pos, 2i+1) = "
    r"\cos\frac{pos}{10000^{2i/d}},\qquad e^{2i(-\ln 10000/d)} = 10000^{-2i/d}",
    expected=PROVED,
    why_ko="코드의 exp(arange(0, d, 2)·(−ln 10000/d))가 공식의 주파수 10000^(−2i/d)와 정확히 같음을 "
    "SymPy로 보였다.",
)
def d0_3() -> Assessment:
    evidence = (from_derivation("trigonometry.exp_log_frequency"),)
    return Assessment(
        evidence,
        "SymPy shows e^{2i(−ln b/d)} = b^{−2i/d} for symbolic b > 0, d > 0, i ≥ 0, and for b = 10000 that "
        "this is 10^{−8i/d}. So the exp/log form in the document's code and the formula define the same "
        "encoding in exact arithmetic; D0.3a measures what float32 does to it.",
    )


def _from_reference(value: float, spec: str) -> str:
    """A float32 error measured against the 50-digit reference, to the digits its bound fixes."""
    return certified(value, reference_error_bound(value), spec)


@claim(
    id="D0.3a",
    source=CODE,
    statement="The document's code computes the frequencies 10000^(−2i/d) in float32 as exp(arange(0, d, 2) "
    "· (−ln 10000/d)); it gets them right up to float32 rounding, which grows with i because exp "
    "magnifies the rounding of the exponent.",
    formal=r"\left|\widehat{\omega}_i / 10000^{-2i/d} - 1\right| \le \big(2|x_i| + 3\big)\,2^{-24}\ "
    r"\text{(about)},\quad x_i = 2i\ln(10000)/d",
    expected=NUMERIC,
    why_ko="float32에서는 지수의 반올림 오차를 exp가 키워 i가 클수록 어긋남이 늘지만, 측정한 범위에서 "
    "주파수는 float32 반올림 수준 안에서 맞다.",
    depends_on=("D0.3",),
)
def d0_3a() -> Assessment:
    drifts = [frequency_drift(common_code_encoding(d, "float32")) for d in (6, 512, 4096)]
    holds = all(drift.excess_over_exponent_error <= EXP_ULPS for drift in drifts)
    ulps = [_from_reference(x.max_ulps, ".2f") for x in drifts]
    listed = "; ".join(
        f"d = {x.d}: {text} ulp{'' if x.at_index is None else f' at i = {x.at_index}'} "
        f"(relative {_from_reference(x.max_relative, '.2e')})"
        for x, text in zip(drifts, ulps, strict=True)
    )
    measured = tuple(
        (f"d = {x.d}: {label}", value)
        for x in drifts
        for label, value in (
            ("largest error (ulp)", x.max_ulps),
            ("at i", x.at_index),
            ("largest relative error", x.max_relative),
            ("excess over 2|x_i| (ulp)", x.excess_over_exponent_error),
            ("exp's own error (ulp)", x.exp_ulps),
        )
    )
    evidence = (
        Evidence(
            FLOAT,
            "div_term in float32 with a correctly rounded exp against 10000^(−2i/d) at 50 digits "
            f"(mpmath), every i: {listed}. Each error stays within 2|x_i| ulp (the rounded exponent) + "
            f"{EXP_ULPS:g} ulp (an allowance for exp's own rounding, which correctly rounded is at most "
            f"{_from_reference(max(x.exp_ulps for x in drifts), '.2f')} ulp on these inputs).",
            holds,
            measured=measured,
        ),
    )
    return Assessment(
        evidence,
        f"In float32 the code's frequencies are off by at most {ulps[0]} ulp at d = 6, {ulps[1]} at d = 512 "
        f"and {ulps[2]} at d = 4096 (relative {_from_reference(drifts[2].max_relative, '.1e')}): the "
        "rounding of the exponent 2i·(−ln 10000/d), up to ln 10000 ≈ "
        f"{libm_scalar(math.log(10000.0), '.1f')} in size, is magnified by exp. These figures are computed "
        "with correctly rounded float32 operations, so they are properties of float32; a platform's libm "
        "(numpy's, PyTorch's) may differ by a few ulp. The document's printed table is not affected at four "
        "decimals (D0.12).",
    )


d0_3b = cited(
    id="D0.3b",
    source=FORMULA,
    statement="The formula is the one of the original Transformer paper, which computes the position "
    "vectors with sine and cosine instead of learning them.",
    formal=r"\text{Vaswani et al. (2017), §3.5}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="원 논문(Vaswani 외 2017) §3.5에 바로 이 공식이 있고, 학습하는 위치 임베딩 대신 이것을 쓴다.",
    depends_on=("D0.3",),
    sources=(
        Evidence(
            CITATION,
            "Vaswani et al., 'Attention Is All You Need' (arXiv 1706.03762), §3.5: PE(pos, "
            "2i) = sin(pos/10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos/10000^(2i/d_model)); "
            "the same section reports that learned positional embeddings gave nearly "
            "identical results (Table 3, row E) and that the sinusoidal version was chosen. "
            "Agrees with the document.",
            True,
        ),
    ),
    explanation="A fact about a paper, checked against the paper: §3.5 gives exactly this "
    "formula and uses it instead of learned position embeddings.",
)


# ------------------------------------------------------------------------------------------------- D0.4


@claim(
    id="D0.4",
    source=FORMULA,
    statement="Dims 2i and 2i+1 use the same frequency (one sin, one cos); the frequency gets strictly "
    "smaller as i grows, so the wavelength 2π·10000^(2i/d) grows from 2π for dims 0–1 towards, "
    "but below, 2π·10000.",
    formal=r"\omega_i = 10000^{-2i/d},\ \omega_{i+1} < \omega_i,\ \lambda_i = 2\pi\,10000^{2i/d} \in "
    r"[2\pi,\ 2\pi\cdot 10000)",
    expected=PROVED,
    why_ko="ω_(i+1)/ω_i = 10000^(−2/d) < 1이므로 주파수는 엄밀히 줄어들고, 파장은 2π에서 시작해 2π·10000에 "
    "닿지 않은 채 늘어난다.",
    depends_on=("D0.3",),
)
def d0_4() -> Assessment:
    cases = [wavelength_range(Sinusoidal(d), BALL_BITS) for d in (6, 8, 512, 768, 4096)]
    holds = all(c.pairs_share_frequency and c.strictly_decreasing and c.below_limit for c in cases)
    by_d = {c.d: c for c in cases}
    evidence = (
        from_derivation("sinusoidal.frequency_order"),
        Evidence(
            CERTIFICATE,
            "d = 6, 8, 512, 768, 4096: pairs share the index i (reference encoder), "
            "exponents −8i/d strictly decrease (exact rationals), longest wavelength "
            f"below 2π·10^4 (ball arithmetic, {BALL_BITS} bits); d = 512: λ from "
            f"{ball_digits(by_d[512].shortest, 6)} to {ball_digits(by_d[512].longest, 7)}.",
            holds,
            CORROBORATES,
            instances="d = 6, 8, 512, 768, 4096",
        ),
    )
    return Assessment(
        evidence,
        "Exactly: ω_(i+1)/ω_i = 10000^(−2/d) < 1, so the frequency strictly decreases and the wavelength "
        f"2π·10000^(2i/d) strictly increases, from 2π ≈ {ball_digits(by_d[6].shortest, 6)} to 2π·10000^(1 − "
        "2/d), never reaching 2π·10000. At d = 512 the slowest pair has λ ≈ "
        f"{ball_digits(by_d[512].longest, 7)}, at d = 6 (the document's table) λ ≈ "
        f"{ball_digits(by_d[6].longest, 7)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.5


@claim(
    id="D0.5",
    source=FORMULA,
    statement="PE(0) is not the zero vector: its sin entries are 0 and its cos entries are 1; thanks to "
    "this the first position also gets a vector of its own.",
    formal=r"PE(0) = (0, 1, 0, 1, \dots) \neq 0",
    expected=PROVED,
    why_ko="d ≥ 2에서 PE(0) = (0, 1, 0, 1, …)은 영벡터가 아니지만, 위치 0을 다른 위치와 가르는 것은 그 "
    "사실이 아니라 정수 p ≠ 0에서 sin p ≠ 0이라는 사실이어서 글의 추론은 성립하지 않는다.",
    expected_argument=FLAWED,
    depends_on=("D0.3",),
)
def d0_5() -> Assessment:
    evidence = (
        from_derivation("sinusoidal.origin"),
        from_derivation("sinusoidal.sine_only_origin", BEYOND_DOMAIN),
    )
    argument = (
        from_derivation("uniqueness.distinct_positions", STEP_CHECKED),
        from_derivation("sinusoidal.sine_only_origin", STEP_FAILS),
    )
    return Assessment(
        evidence,
        "Proved for every d the document uses (d ≥ 2, where the dims come in sin/cos pairs): PE(0) = "
        "(0, 1, 0, 1, …). Beyond that domain, and not held against the claim: for d = 1 the only entry is "
        "sin 0 = 0. The inference 'nonzero, so position 0 has its own vector' does not hold as reasoning: "
        "what makes PE(0) differ from every other PE(p) is sin p ≠ 0 for integers p ≠ 0 (π is irrational), "
        "which would hold even if PE(0) were zero. The conclusion is true; the stated reason is not what "
        "proves it.",
        argument,
    )


@claim(
    id="D0.5a",
    source=FORMULA,
    statement="(Added by the catalog next to D0.5; the document does not state it.) Every position's vector "
    "has the same length: ‖PE(pos)‖² = d/2.",
    formal=r"\lVert PE(pos)\rVert^2 = \sum_i \big(\sin^2 pos\,\omega_i + \cos^2 pos\,\omega_i\big) = d/2",
    expected=CAVEAT,
    why_ko="짝수 d에서는 모든 위치에서 ‖PE(pos)‖² = d/2이지만, 홀수 d에서는 짝 없는 마지막 sin 때문에 "
    "길이가 위치에 따라 달라진다.",
    depends_on=("D0.5",),
    role=QUESTION,
)
def d0_5a() -> Assessment:
    gap = norm_gap(Sinusoidal(3), 1, 0, BALL_BITS)
    evidence = (
        from_derivation("sinusoidal.norm"),
        Evidence(
            CERTIFICATE,
            f"d = 3 (ball arithmetic, {BALL_BITS} bits): ‖PE(1)‖² − ‖PE(0)‖² = "
            f"sin²(10000^(−2/3)) = {ball_digits(gap, 6)} > 0: the last sine has no cosine partner.",
            bool(gap > 0),
            LIMITS,
        ),
    )
    return Assessment(
        evidence,
        "For even d every (sin, cos) pair contributes sin² + cos² = 1, so ‖PE(pos)‖² = d/2 at every "
        "position (SymPy). For odd d the last sine is unpaired and the length changes with pos: at d = 3, "
        f"‖PE(1)‖² exceeds ‖PE(0)‖² by {ball_digits(gap, 6)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.6


@claim(
    id="D0.6",
    source=FORMULA,
    statement="Short-wavelength dims change a lot when the position moves by 1, long-wavelength dims "
    "hardly: a step of 1 changes dim j by at most its frequency ω_j (and by up to 2 sin(ω_j/2) over the "
    "positions).",
    formal=r"|PE(p+1, j) - PE(p, j)| \le 2\sin\tfrac{\omega_j}{2} \le \omega_j",
    expected=PROVED,
    why_ko="한 칸 이동은 각 좌표를 많아야 2 sin(ω/2) ≤ ω만큼 바꾸므로, ω가 큰 앞쪽 차원은 크게 움직이고 "
    "ω가 작은 뒤쪽 차원은 거의 움직이지 않는다.",
    depends_on=("D0.4",),
)
def d0_6() -> Assessment:
    table = step_changes(Sinusoidal(TABLE_D), TABLE_POSITIONS, BALL_BITS)
    wide = step_changes(Sinusoidal(512), 64, BALL_BITS)
    evidence = (
        from_derivation("lipschitz.coordinate_step"),
        from_derivation("lipschitz.sine_bound"),
        Evidence(
            CERTIFICATE,
            f"Ball arithmetic ({BALL_BITS} bits): |PE(p+1, j) − PE(p, j)| < ω_j for every "
            "dim and p + 1 < 8 at d = 6 and p + 1 < 64 at d = 512. d = 6: largest change "
            f"of dim 0 {ball_digits(table.largest_fast, 6)} (bound 2 sin ½ = "
            f"{ball_digits(table.fast_bound, 6)}), of dim 4 {ball_digits(table.largest_slow, 6)} "
            f"(ω_2 = {ball_digits(table.slowest_frequency, 6)}).",
            table.within_frequency and wide.within_frequency,
            CORROBORATES,
            instances="d = 6 with p + 1 < 8, d = 512 with p + 1 < 64",
        ),
    )
    return Assessment(
        evidence,
        "By sum-to-product, a step of 1 changes a sin or cos coordinate by 2 sin(ω/2) times a sine or "
        "cosine, so by at most 2 sin(ω/2) ≤ ω (SymPy). Dims 0–1 (ω = 1) can jump by up to "
        f"{ball_digits(table.fast_bound, 4)} in one step — in the document's table dim 0 moves by up to "
        f"{ball_digits(table.largest_fast, 4)} — while dims 4–5 at d = 6 move by at most ω_2 ≈ "
        f"{ball_digits(table.slowest_frequency, 4)}, and the slowest pair at d = 512 by at most "
        f"{ball_digits(wide.slowest_frequency, 4)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.7


#: Offsets 1 ≤ k ≤ NEAREST_OFFSETS compared with k = 1 at the document's d = 6 (D0.7).
NEAREST_OFFSETS = 200_000

#: Offsets 1 ≤ k < SEPARATION_OFFSETS over which the nearest is certified at d = 512 (D0.7).
SEPARATION_OFFSETS = 2**31


def _dip_evidence(d: int, max_offset: int) -> tuple[Evidence, DistanceDip | None]:
    dip = first_distance_dip(Sinusoidal(d), max_offset, BALL_BITS)
    if dip is None:
        text = (
            f"d = {d} (ball arithmetic, {BALL_BITS} bits): the distance increases at every offset "
            f"k < {max_offset}."
        )
    else:
        text = (
            f"d = {d} (ball arithmetic, {BALL_BITS} bits): the distance grows for k = 0, …, "
            f"{dip.offset}, then ‖PE(p+{dip.offset + 1}) − PE(p)‖ = {ball_digits(dip.after, 10)} < "
            f"‖PE(p+{dip.offset}) − PE(p)‖ = {ball_digits(dip.before, 10)} for every p: the farther position "
            "is closer. The document does not claim monotonicity, only nearness."
        )
    return Evidence(CERTIFICATE, text, dip is not None, BEYOND_DOMAIN), dip


def _nearest_offsets(encoding: Sinusoidal) -> tuple[str, NearestOffset]:
    """How the offsets 2 ≤ k ≤ NEAREST_OFFSETS compare with k = 1, as text with ball-arithmetic distances."""
    found = nearest_offset(encoding, NEAREST_OFFSETS)
    unit = ball_digits(offset_distance(encoding, 1, BALL_BITS), 6)
    nearest = ball_digits(offset_distance(encoding, found.nearest, BALL_BITS), 6)
    if found.first_closer is None:
        text = f"‖PE(p+k) − PE(p)‖ is least at k = 1 only, {unit}"
        if found.nearest_is_unique:
            text += f"; the nearest other offset is k = {found.nearest}, at {nearest}"
    else:
        first = ball_digits(offset_distance(encoding, found.first_closer, BALL_BITS), 6)
        text = f"{found.closer} offsets come closer than k = 1 ({unit}), the first k = {found.first_closer} "
        text += f"at {first}"
        if found.nearest_is_unique:
            text += f", the nearest k = {found.nearest} at {nearest}"
    return text, found


def _separation_evidence() -> Evidence:
    found = certified_separation(Sinusoidal(512), SEPARATION_OFFSETS)
    where = ", ".join(str(k) for k in found.argmin_offsets)
    return Evidence(
        CERTIFICATE,
        f"d = 512, 1 ≤ k < 2^{SEPARATION_OFFSETS.bit_length() - 1}: the least ‖PE(p+k) − PE(p)‖ is "
        f"{ball_digits(found.minimum, 12)} at k = {where}, and every other offset is certainly farther "
        "(`pe-verify separation`: exact 128-bit turn positions, interval bounds and float32 screens with "
        "stated error terms, the last candidates in ball arithmetic at 50 digits).",
        found.certified and found.argmin_offsets == (1,),
        CORROBORATES,
        instances=f"d = 512, 1 ≤ k < 2^{SEPARATION_OFFSETS.bit_length() - 1}",
    )


def _table_nearest_evidence() -> Evidence:
    text, found = _nearest_offsets(Sinusoidal(TABLE_D))
    return Evidence(
        CERTIFICATE,
        f"d = 6 (the document's table), 1 ≤ k ≤ {NEAREST_OFFSETS}, decided the same way (each squared "
        f"distance within {found.error:.1e}): {text} (ball arithmetic, {BALL_BITS} bits). The document does "
        "not claim monotonicity, only nearness.",
        not found.unit_is_nearest,
        BEYOND_DOMAIN,
    )


@claim(
    id="D0.7",
    source=WHY_SIN_COS,
    statement="Because sin and cos are continuous, a small change of position gives a small change of the "
    "vector: nearby positions (10 and 11) get nearby vectors instead of unrelated ones, leaving a trace of "
    "their closeness.",
    formal=r"\lVert PE(p+k) - PE(p)\rVert = \Big(\sum_i 4\sin^2\tfrac{k\omega_i}{2}\Big)^{1/2} \le "
    r"|k|\,\lVert\omega\rVert \text{ for every } p",
    expected=PROVED,
    why_ko="두 위치 사이의 거리는 offset k에만 달려 있고 |k|·‖ω‖ 이하이므로 이웃한 위치는 가까운 벡터를 "
    "얻는다(거리가 k에 대해 단조롭지는 않지만 글이 주장한 바는 아니다).",
    expected_argument=SOUND,
    depends_on=("D0.6",),
)
def d0_7() -> Assessment:
    small, large = _dip_evidence(TABLE_D, 20), _dip_evidence(512, 100)
    step_6, bound_6 = unit_step_against_bound(Sinusoidal(TABLE_D), BALL_BITS)
    step_512, bound_512 = unit_step_against_bound(Sinusoidal(512), BALL_BITS)
    widest_6, widest_512 = _root(2 * TABLE_D), _root(2 * 512)
    evidence = (
        from_derivation("sinusoidal.distance"),
        from_derivation("lipschitz.distance_bound"),
        from_derivation("lipschitz.sine_bound"),
        Evidence(
            CERTIFICATE,
            f"Ball arithmetic ({BALL_BITS} bits): ‖PE(p+1) − PE(p)‖ = {ball_digits(step_6, 6)} "
            f"≤ ‖ω‖ = {ball_digits(bound_6, 6)} at d = 6 and {ball_digits(step_512, 6)} ≤ "
            f"{ball_digits(bound_512, 6)} at d = 512 (the largest possible distance is √(2d): "
            f"{widest_6} and {widest_512}).",
            bool(step_6 < bound_6 and step_512 < bound_512),
            CORROBORATES,
            instances="d = 6 and 512, k = 1",
        ),
        _separation_evidence(),
        small[0],
        large[0],
        _table_nearest_evidence(),
    )
    argument = (from_derivation("lipschitz.distance_bound", STEP_CHECKED),)
    dips = "; ".join(
        f"d = {dip.d}: {ball_digits(dip.before, 7)} at k = {dip.offset}, {ball_digits(dip.after, 7)} at "
        f"k = {dip.offset + 1}"
        for dip in (small[1], large[1])
        if dip is not None
    )
    return Assessment(
        evidence,
        "Proved: the distance depends only on the offset k and is at most |k|·‖ω‖, so one step moves the "
        f"vector by {ball_digits(step_512, 4)} at d = 512 against distances up to {widest_512}, and no "
        f"other offset below 2^{SEPARATION_OFFSETS.bit_length() - 1} comes that close (certified). The "
        "claim is judged on what it states, nearness of nearby positions, not 'closer in position ⇒ closer "
        f"in vector': the distance is not monotone in k ({dips}; at d = 6 some farther offsets come closer "
        "than k = 1), which is reported beyond the claim. The continuity argument is sound for what it "
        "claims; periodicity, the other property it cites, is what breaks the ordering.",
        argument,
    )


# ------------------------------------------------------------------------------------------------- D0.8


@claim(
    id="D0.8",
    source=WHY_SIN_COS,
    statement="By the angle-addition formulas, the encoding of pos + k is a fixed linear map M_k of the "
    "encoding of pos: M_k is block-diagonal with 2×2 rotations, orthogonal, M_a M_b = M_(a+b), M_(−k) = "
    "M_kᵀ.",
    formal=r"PE(p+k) = M_k\,PE(p),\; M_k = \operatorname{diag}_i \begin{pmatrix}\cos k\omega_i & \sin "
    r"k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}",
    expected=PROVED,
    why_ko="각도 덧셈 공식으로 PE(pos + k) = M_k·PE(pos)이며, M_k가 pos와 무관한 2×2 회전 블록 행렬이고 "
    "군을 이룸을 SymPy로 확인했다.",
    expected_argument=SOUND,
    depends_on=("D0.3",),
)
def d0_8() -> Assessment:
    evidence = (
        from_derivation("sinusoidal.offset_matrix"),
        from_derivation("sinusoidal.offset_matrix_group"),
        from_derivation("sinusoidal.offset_matrix_expanded", CORROBORATES),
    )
    argument = (from_derivation("trigonometry.angle_addition", STEP_CHECKED),)
    return Assessment(
        evidence,
        "SymPy checks PE(pos + k) = M_k·PE(pos) with M_k free of pos, for symbolic frequencies and written "
        "out at d = 2, 4, 6, 8, and that the M_k are rotations forming a group (M_kᵀM_k = I, det 1, M_aM_b "
        "= M_(a+b), M_(−k) = M_kᵀ). The document's two angle-addition formulas are exactly the step used.",
        argument,
    )


# ------------------------------------------------------------------------------------------------- D0.9


@claim(
    id="D0.9",
    source=WHY_SIN_COS,
    statement="Inserting a token shifts the absolute positions of what follows but keeps relative "
    "relations: the dot product PE(p)·PE(q) depends only on p − q (and, the catalog adds, only on |p − q|: "
    "it cannot tell a token before from one after).",
    formal=r"PE(p)\cdot PE(q) = \sum_i \cos\big((p - q)\,\omega_i\big) = PE(p + s)\cdot PE(q + s)",
    expected=PROVED,
    why_ko="PE(p)·PE(q) = Σ_i cos((p − q)ω_i)는 p − q에만 달려 있어 토큰을 끼워 넣어도 변하지 않지만, "
    "cos이 짝함수라 앞과 뒤를 구별하지 못한다.",
    depends_on=("D0.8",),
)
def d0_9() -> Assessment:
    evidence = (from_derivation("sinusoidal.dot_product"),)
    return Assessment(
        evidence,
        "SymPy shows PE(p)·PE(q) = Σ_i cos((p − q)ω_i): moving 밥을 and 먹었다 from positions 3, 4 to 4, 5 "
        "(one token inserted before them) leaves their score unchanged. Since cos is even, the score is the "
        "same for a token δ before as for one δ after; telling the two apart needs a non-symmetric W_Q "
        "W_Kᵀ, as in the previous-token head of D0.16.",
    )


# ------------------------------------------------------------------------------------------------ D0.10


@claim(
    id="D0.10",
    source=LEARNED,
    statement="A learned position embedding is a table with one trained row per position 0, …, L − 1 (like "
    "the token embedding table); a model with L = 512 has no vector for position 512 or beyond.",
    formal=r"E \in \mathbb{R}^{L\times d}:\ PE(p) = E_p \text{ only for } 0 \le p < L",
    expected=PROVED,
    why_ko="512행짜리 표는 위치 0–511에만 답하며 위치 512에는 행이 없다.",
)
def d0_10() -> Assessment:
    reach = table_reach(LearnedPositionTable.seeded(512, 8))
    evidence = (
        Evidence(
            EXACT,
            f"Reference learned table with exactly L = {reach.max_len} rows, so no position p ≥ L has "
            f"one: row {reach.max_len - 1} has shape {reach.last_row_shape}; row {reach.max_len} is refused: "
            f"{reach.past_the_end!r}.",
            reach.last_row_shape == (8,) and reach.past_the_end is not None,
        ),
    )
    return Assessment(
        evidence,
        f"A table of {reach.max_len} rows answers for positions 0–{reach.max_len - 1} only; position "
        f"{reach.max_len} has no row, and the reference lookup refuses it instead of wrapping around. "
        "Whether such a model is 'simple and performs well' is a matter of published results (D0.10b).",
    )


d0_10a = cited(
    id="D0.10a",
    source=LEARNED,
    statement="BERT uses a learned position table and its input is limited to 512 tokens.",
    formal=r"\text{BERT: } L = 512",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="BERT의 공개 설정과 논문이 학습되는 위치 512개를 확인해 준다.",
    depends_on=("D0.10",),
    sources=(
        Evidence(
            CITATION,
            "bert-base-uncased config.json (Hugging Face, google-bert): "
            '"max_position_embeddings": 512; Devlin et al. (arXiv 1810.04805) learn the '
            "position embeddings and pre-train on sequences of at most 512 tokens (Appendix "
            "A.2). Agrees with the document.",
            True,
        ),
    ),
    explanation="A fact about a model, checked against its published configuration and paper: 512 "
    "learned positions.",
)


d0_10b = cited(
    id="D0.10b",
    source=LEARNED,
    statement="Learned position embeddings are simple and perform well.",
    formal=r"\text{empirical: published comparisons}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="원 Transformer에서 학습된 위치 임베딩이 sinusoidal과 대등했고 BERT와 GPT-2가 이를 쓴다는 "
    "출처와 맞는다.",
    depends_on=("D0.10",),
    sources=(
        Evidence(
            CITATION,
            "Vaswani et al. 2017 (arXiv 1706.03762 §3.5 and Table 3, row E): learned positional embeddings "
            "in place of the sinusoids 'produced nearly identical results' (BLEU 25.7 against 25.8 on the "
            "base model's development set)",
            True,
        ),
        Evidence(
            CITATION,
            "Devlin et al. 2018 (BERT, arXiv 1810.04805) and Radford et al. 2019 (GPT-2, openai/gpt-2 "
            "src/model.py) train a learned table of one row per position and report strong results with it",
            True,
        ),
    ),
    explanation="Agrees with the sources: the table is one trained row per position (D0.10), and in "
    "the original "
    "Transformer it matched the sinusoids; BERT and GPT-2 use it. What it cannot do is answer beyond its "
    "last row (D0.11a, D1.8).",
)


# ------------------------------------------------------------------------------------------------ D0.11


@claim(
    id="D0.11",
    source=LEARNED,
    statement="The sinusoidal encoding has no parameters: it can be precomputed once max_len is fixed and, "
    "in principle, gives a vector for positions longer than any seen in training; a table for "
    "max_len L is the first L rows of the table for any longer max_len.",
    formal=r"PE(pos) = f_d(pos) \text{ for every real } pos:\ \text{no parameters, no dependence on } L",
    expected=PROVED,
    why_ko="PE(pos)는 pos와 d만의 고정 함수라 학습할 것이 없고 모든 위치에서 값이 있으며, 짧은 표는 긴 "
    "표의 앞부분과 같다.",
    depends_on=("D0.3",),
)
def d0_11() -> Assessment:
    evidence = (from_derivation("trigonometry.sinusoidal_parameter_free"),)
    return Assessment(
        evidence,
        "PE(pos) is a fixed function of pos and d alone: nothing is trained, every real position has a "
        "value, and row p of a precomputed table is PE(p) whatever max_len was, so shorter tables are "
        "prefixes of longer ones (D0.11b checks the document's float32 code bit for bit). That values exist "
        "for long positions says nothing about using them well (D0.11a).",
    )


d0_11a = cited(
    id="D0.11a",
    source=LEARNED,
    statement="Being able to compute vectors for long positions does not give long-context ability: a model "
    "trained on short contexts does not work on much longer ones just because its positional encoding "
    "extends.",
    formal=r"\text{(empirical)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="수학으로 가릴 수 없는 경험적 주장으로, 공개된 실험이 글과 같은 방향을 가리킨다.",
    depends_on=("D0.11",),
    sources=(
        Evidence(
            CITATION,
            "Press, Smith & Lewis, 'Train Short, Test Long' (arXiv 2108.12409), Figure 1: "
            "language models with sinusoidal (and rotary, T5) positions, trained on L = 512 "
            "or 1024 tokens, show degraded perplexity as validation inputs grow past L, "
            "although their encodings are defined there. Agrees with the document's warning.",
            True,
        ),
    ),
    explanation="An empirical statement about trained models, which mathematics cannot settle; a published "
    "experiment points the same way as the document. Nothing here measures it.",
)


@claim(
    id="D0.11b",
    source=CODE,
    statement="The document's code builds, for a smaller max_len, exactly the first rows of the table for a "
    "larger max_len, so a table can be precomputed once and sliced.",
    formal=r"\texttt{pe}(L)[{:}L'] = \texttt{pe}(L') \text{ bit for bit}, \quad L' < L",
    expected=NUMERIC,
    why_ko="행 p는 p에만 달려 있어 앞부분 성질이 정확히 성립하고, 올바르게 반올림하는 float32 연산에서도 "
    "길이가 다른 표의 행이 비트 단위로 같다.",
    depends_on=("D0.11",),
)
def d0_11b() -> Assessment:
    cases = [(d, short, 8192) for d in (TABLE_D, 512) for short in (1, 8, 17, 1000)]
    holds = all(is_table_prefix(common_code_encoding(d, "float32"), short, long) for d, short, long in cases)
    evidence = (
        Evidence(
            FLOAT,
            "float32 translation of the code with correctly rounded exp, sin and cos "
            "(common_code_encoding): max_len 1, 8, 17, 1000 against the first rows of max_len "
            "8192, for d = 6 and 512, compared bit for bit.",
            holds,
        ),
    )
    return Assessment(
        evidence,
        "Row p depends only on p, so the prefix property holds exactly and slicing a precomputed table is "
        "safe; in float32 with correctly rounded exp, sin and cos the rows also agree bit for bit between "
        "tables of different lengths, since no step of the code depends on max_len. The vectorised kernels "
        "of a platform's libm (numpy's, PyTorch's) were not run.",
    )


# ------------------------------------------------------------------------------------------------ D0.12


def _listed(differences: list[Difference], exact: TableRounding | None = None) -> str:
    shown = [
        f"PE({p}, {j}) printed {text}, computed {ref}"
        + (f" (exact {exact.entries[p][j].digits})" if exact is not None else "")
        for p, j, text, ref in differences
    ]
    return "; ".join(shown) or "none"


@claim(
    id="D0.12",
    source=CODE,
    statement="The code with max_len = 8, d_model = 6 prints (rounded to four decimals) the 8×6 table shown "
    "in the document.",
    formal=r"\operatorname{round}_4 PE(p, j) = T_{p,j},\quad 0 \le p < 8,\ 0 \le j < 6",
    expected=NUMERIC,
    why_ko="인쇄된 8×6 표의 값을 정확한 값의 반올림과 글의 float32 코드 출력에 하나하나 대조해 맞음을 "
    "확인했다.",
    depends_on=("D0.3", "D0.3a"),
)
def d0_12() -> Assessment:
    with flint.ctx.workprec(BALL_BITS):
        balls = Sinusoidal(TABLE_D).table_balls(range(TABLE_POSITIONS))
    exact = table_rounding(balls, BALL_BITS)
    formula, margin, (p_close, j_close) = exact.texts, exact.margin, exact.closest
    computed = common_code_encoding(TABLE_D, "float32").stored_rows(np.arange(TABLE_POSITIONS))
    code = rounded_table(computed)
    error = table_error_bound(computed, balls, BALL_BITS)
    decided = exact.decided
    against_formula = table_differences(PRINTED_TABLE, formula)
    against_code = table_differences(PRINTED_TABLE, code)
    code_vs_formula = table_differences(code, formula)
    entries = TABLE_POSITIONS * TABLE_D
    evidence = (
        Evidence(
            FLOAT,
            "The code in float32 with correctly rounded exp, sin and cos, rounded to 4 "
            "decimals, against the formula's rounding certified in ball arithmetic "
            f"({BALL_BITS} bits): {entries - len(code_vs_formula)} of "
            f"{entries} agree. The float32 values are within {ball_digits(error, 3)} of the exact ones, and "
            f"the exact value nearest a rounding boundary, PE({p_close}, {j_close}), is "
            f"{ball_digits(margin, 3)} from it.",
            decided and not code_vs_formula,
        ),
        Evidence(
            CERTIFICATE,
            "Printed entries that are not the formula's value rounded to 4 decimals (ball "
            f"arithmetic, {BALL_BITS} bits): {_listed(against_formula, exact)}.",
            bool(against_formula),
            REFUTES,
        ),
        Evidence(
            FLOAT,
            f"Printed entries the float32 code does not reproduce: {_listed(against_code)}.",
            bool(against_code),
            REFUTES,
        ),
    )
    return Assessment(
        evidence,
        f"{entries - len(against_formula)} of the {entries} printed entries are the exact value rounded to "
        f"four decimals, each rounding decided by ball arithmetic (the closest call, PE({p_close}, "
        f"{j_close}) = {exact.entries[p_close][j_close].digits}, is {ball_digits(margin, 3)} from a "
        "boundary), and the "
        f"float32 code, within {ball_digits(error, 3)} of the exact values, reproduces "
        f"{entries - len(against_code)} of them. Differences from the formula: "
        f"{_listed(against_formula, exact)}.",
    )


# ------------------------------------------------------------------------------------------------ D0.13


@claim(
    id="D0.13",
    source=CODE,
    statement="In that table dims 0 and 1 swing fast while dims 4 and 5 barely change over max_len = 8.",
    formal=r"TV_j = \sum_{p=0}^{6} |PE(p+1, j) - PE(p, j)|:\ TV_0, TV_1 > 2,\ TV_4, TV_5 < 0.02",
    expected=PROVED,
    why_ko="인쇄된 8행에서 차원 0, 1은 값 범위 [−1, 1]보다 더 많이 움직이고 차원 4, 5는 거의 변하지 "
    "않는다('빠르다', '거의'의 기준은 카탈로그가 정했다).",
    depends_on=("D0.6", "D0.12"),
)
def d0_13() -> Assessment:
    variation = total_variation(Sinusoidal(TABLE_D), TABLE_POSITIONS, BALL_BITS)
    swing = bool(variation[0] > 2 and variation[1] > 2)
    still = bool(variation[4] < flint.arb(2) / 100 and variation[5] < flint.arb(2) / 100)
    listed = ", ".join(ball_digits(v, 4) for v in variation)
    evidence = (
        Evidence(
            CERTIFICATE,
            f"Total variation over positions 0–7 per dim (ball arithmetic, {BALL_BITS} "
            f"bits): {listed}. Criteria: 'swing fast' = more than the full value range 2; "
            "'barely change' = less than 1% of it (0.02).",
            swing and still,
        ),
    )
    return Assessment(
        evidence,
        f"Over the 8 printed rows dims 0 and 1 travel {ball_digits(variation[0], 3)} and "
        f"{ball_digits(variation[1], 3)}, each more than the whole value range [−1, 1], while dims 4 and 5 "
        f"move only {ball_digits(variation[4], 3)} and {ball_digits(variation[5], 3)} in total, as D0.6's "
        "bound of ω_2 per step allows. The thresholds 2 and 0.02 are this catalog's reading of 'fast' and "
        "'barely'.",
    )


# ------------------------------------------------------------------------------------------------ D0.14


@claim(
    id="D0.14",
    source=CODE,
    statement="Adding pe.unsqueeze(0), of shape [1, 8, 6], to token embeddings of shape [2, 8, 6] "
    "broadcasts over the batch and prints torch.Size([2, 8, 6]).",
    formal=r"[2, 8, 6] + [1, 8, 6] \to [2, 8, 6]",
    expected=PROVED,
    why_ko="pe.unsqueeze(0)의 크기 1인 배치 축이 broadcast되어 결과는 [2, 8, 6]이고, 두 시퀀스가 같은 위치 "
    "벡터를 받는다.",
    depends_on=("D0.2",),
)
def d0_14() -> Assessment:
    shape, same = broadcast_over_batch(common_code_encoding(TABLE_D, "float32"), batch=2, seq_len=8)
    evidence = (
        Evidence(
            EXACT,
            f"numpy, float32, seeded embeddings: [2, 8, 6] + [1, 8, 6] has shape {list(shape)}; "
            "both sequences get the same pe added, bit for bit.",
            shape == (2, 8, TABLE_D) and same,
        ),
    )
    return Assessment(
        evidence,
        f"The example runs and gives shape {list(shape)}: the size-1 batch axis of pe.unsqueeze(0) is "
        "broadcast, so both sequences receive the same position vectors (numpy follows the same "
        "broadcasting rules as PyTorch). The remark that pe gets no gradient while nn.Embedding is trained "
        "is about PyTorch's autograd and is not checked here.",
    )


# ------------------------------------------------------------------------------------------------ D0.15


@claim(
    id="D0.15",
    source=ATTENTION,
    statement="Since x_i is token embedding plus positional encoding, the score q_i·k_j = (x_i W_Q)·(x_j "
    "W_K) depends on both tokens' contents and positions.",
    formal=r"(e_i + p_i) A (e_j + p_j)^\top = e_i A e_j^\top + e_i A p_j^\top + p_i A e_j^\top + p_i A "
    r"p_j^\top,\quad A = W_Q W_K^\top",
    expected=PROVED,
    why_ko="점수가 겹선형이라 내용–내용, 내용–위치, 위치–내용, 위치–위치 네 항으로 나뉘므로, 내용과 위치가 "
    "모두 점수에 들어간다.",
    expected_argument=SOUND,
    depends_on=("D0.2",),
)
def d0_15() -> Assessment:
    evidence = (
        from_derivation("relative.transformer_xl_four_terms"),
        from_derivation("attention.absolute_pe_score", CORROBORATES),
    )
    argument = (from_derivation("attention.absolute_pe_score", STEP_CHECKED),)
    return Assessment(
        evidence,
        "By bilinearity the score splits into content–content, content–position, position–content and "
        "position–position terms (SymPy, for matrices of symbolic size; written out with symbolic entries "
        "at d = 2 and 4), so content and positions both enter, as "
        "the document says. Whether the position–position term is relative is a separate question (D0.15a).",
        argument,
    )


@claim(
    id="D0.15a",
    source=ATTENTION,
    statement="(The catalog's question to this section.) The position–position term p_i W_Q W_Kᵀ p_jᵀ of an "
    "absolute sinusoidal encoding depends only on i − j, whatever W_Q and W_K are.",
    formal=r"\forall W_Q, W_K:\ p_i W_Q W_K^\top p_j^\top = f(i - j)",
    expected=REFUTED,
    why_ko="차원 0만 남기는 A = diag(1, 0, …)이면 위치–위치 항이 sin i·sin j가 되어 (1, 0)과 (2, 1)에서 "
    "값이 다르므로, i − j만의 함수가 아니다.",
    depends_on=("D0.9", "D0.15"),
    role=QUESTION,
)
def d0_15a() -> Assessment:
    first, second = position_term_counterexample()
    evidence = (
        from_derivation("sinusoidal.position_term_not_relative", REFUTES),
        from_derivation("attention.absolute_pe_score", REFUTES),
    )
    return Assessment(
        evidence,
        "Refuted: keeping only dim 0 (A = diag(1, 0, …)) makes the term sin i·sin j, which is "
        f"{sp.sstr(first)} for (i, j) = (1, 0) and {float(second):.4f} for (2, 1). The term depends on i − j "
        "alone whenever A commutes with every offset matrix M_k, and the matrices that do are the scaled "
        "rotations in each (sin, cos) block (SymPy); a learned W_Q W_Kᵀ need not be of that form, so the "
        "absolute position can leak into the score.",
    )


# ------------------------------------------------------------------------------------------------ D0.16


@claim(
    id="D0.16",
    source=ATTENTION,
    statement="A head can attend strongly to the immediately preceding token (a diagonal attention "
    "pattern): there are linear maps W_Q, W_K whose position–position score peaks exactly at j = i − 1 for "
    "every i.",
    formal=r"A = W_Q W_K^\top = M_{-1}:\ p_i A p_j^\top = \sum_l \cos\big((i - 1 - j)\omega_l\big) \le "
    r"\tfrac{d}{2},\ \text{equality iff } j = i - 1",
    expected=PROVED,
    why_ko="W_Q를 offset −1의 행렬로, W_K = I로 두면 위치–위치 점수가 모든 i에서 j = i − 1일 때만 최댓값 "
    "d/2가 되는 head를 직접 만들 수 있다.",
    depends_on=("D0.8", "D0.15"),
)
def d0_16() -> Assessment:
    head = previous_token_scores(Sinusoidal(TABLE_D), TABLE_POSITIONS, BALL_BITS)
    evidence = (
        from_derivation("attention.previous_token_head"),
        Evidence(
            CERTIFICATE,
            f"d = 6, positions 0–7, ball arithmetic ({BALL_BITS} bits): with W_Q the "
            "offset by −1 and W_K = I every query i ≥ 1 scores j = i − 1 highest (d/2 = "
            f"3); the closest runner-up is key {head.runner_up} for query {head.query}, "
            f"{ball_digits(head.margin, 6)} lower.",
            head.peaks,
            CORROBORATES,
            instances="d = 6, positions 0–7",
        ),
    )
    offset = head.query - 1 - head.runner_up
    return Assessment(
        evidence,
        "Constructively yes: take W_Q the offset matrix for −1 (it maps PE(i) to PE(i − 1)) and W_K = I; "
        "then the score is Σ_l cos((i − 1 − j)ω_l), which equals d/2 at j = i − 1 and is smaller at every "
        "other integer j because cos n ≠ 1 for n ≠ 0 (SymPy). In the document's d = 6 table the smallest "
        f"margin is {ball_digits(head.margin, 4)} (query {head.query}, key {head.runner_up}: offset "
        f"{offset}, where cos({offset}) = {libm_scalar(math.cos(offset), '.4f')} because {offset} is near a "
        "multiple of 2π); scaling W_Q by c multiplies every margin by c, so the softmax can be made as sharp "
        "as wanted. That trained models form such heads is an empirical matter (D0.16a).",
    )


d0_16a = cited(
    id="D0.16a",
    source=ATTENTION,
    statement="Attention maps of trained models show heads that follow the diagonal, attending to adjacent "
    "tokens.",
    formal=r"\text{(empirical)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="BERT의 attention을 분석한 공개 연구가 바로 앞뒤 토큰을 보는 head를 보고한다.",
    depends_on=("D0.16",),
    sources=(
        Evidence(
            CITATION,
            "Clark, Khandelwal, Levy & Manning, 'What Does BERT Look At?' (arXiv "
            "1906.04341), §3 (relative position): some BERT heads specialise in attending "
            "heavily to the next or the previous token, especially in early layers. Agrees "
            "with the document.",
            True,
        ),
    ),
    explanation="An observation about trained models; a published analysis of BERT's "
    "attention reports such previous- and next-token heads.",
)


# ------------------------------------------------------------------------------------------------ D0.17


@claim(
    id="D0.17",
    source=ROPE,
    statement="RoPE rotates the query and key vectors according to their positions, which puts relative "
    "position into the attention score directly.",
    formal=r"\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle",
    expected=PROVED,
    why_ko="두 RoPE 배치 모두에서 ⟨R_m q, R_n k⟩ = ⟨q, R_(n−m) k⟩임을 SymPy로 보였으므로, 점수는 n − m을 "
    "통해서만 위치를 본다.",
    expected_argument=SOUND,
)
def d0_17() -> Assessment:
    evidence = (
        from_derivation("rope.relative_interleaved"),
        from_derivation("rope.relative_half_split"),
    )
    argument = (
        from_derivation("rope.orthogonal", STEP_CHECKED),
        from_derivation("rope.composition", STEP_CHECKED),
    )
    return Assessment(
        evidence,
        "SymPy shows ⟨R_m q, R_n k⟩ = ⟨q, R_(n−m) k⟩ in both the interleaved and the half-split layout: the "
        "score sees the positions only through n − m, for every q and k, unlike the absolute encoding of "
        "D0.15a. Rotating both by position is exactly what does it: rotations are orthogonal (R_mᵀ = "
        "R_(−m)) and compose (R_(−m) R_n = R_(n−m)).",
        argument,
    )


d0_17a = cited(
    id="D0.17a",
    source=ROPE,
    statement="Recent decoder-only LLMs (the document names the Qwen and Llama families) use RoPE rather "
    "than adding position vectors to the input embeddings.",
    formal=r"\text{(model attribution)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="LLaMA와 Qwen의 논문이 더하는 절대 위치 임베딩 대신 RoPE를 쓴다고 밝힌다.",
    depends_on=("D0.17",),
    sources=(
        Evidence(
            CITATION,
            "Touvron et al., 'LLaMA' (arXiv 2302.13971), §2.2: the absolute positional "
            "embeddings are removed and rotary embeddings added at each layer; Bai et al., "
            "'Qwen Technical Report' (arXiv 2309.16609), §2.2: RoPE is chosen for positional "
            "information. Agrees with the document for these two families; how common RoPE "
            "is overall is not established by them.",
            True,
        ),
    ),
    explanation="Model attributions, checked against the models' papers: LLaMA and Qwen use "
    "RoPE in place of added absolute position embeddings.",
)


# ------------------------------------------------------------------------------------------------ D0.18


def _span(first: int, count: int) -> str:
    """Pairs first, …, first + count − 1 as "first–last (count)"."""
    return f"{first}–{first + count - 1} ({count})" if count else "none"


def _transformers_types() -> str:
    """The rope_type names of transformers' ROPE_INIT_FUNCTIONS that a rule record computes."""
    return ", ".join(rule.transformers for rule in RULES if rule.transformers)


@claim(
    id="D0.18",
    source=ROPE,
    statement="RoPE settings such as rope_theta and rope_scaling decide the rotation frequencies, which is "
    "where context extension runs into positional encoding: rope_theta is the base b of θ_i = b^(−2i/d), "
    "and each rope_scaling type rescales some or all of the θ_i.",
    formal=r"\theta_i = b^{-2i/d};\ b \to b' > b:\ \theta_i'/\theta_i = (b/b')^{2i/d};\ \text{linear: } "
    r"\theta_i/s;\ \text{NTK, dynamic: } b\,s^{d/(d-2)};\ \text{YaRN, Llama 3: by parts};\ "
    r"\text{LongRoPE: } \theta_i/e_i;\ \text{proportional: } b^{-2i/h}/s\ (i < k),\ 0\ (i \ge k)",
    expected=PROVED,
    why_ko="rope_theta는 θ_i = b^(−2i/d)의 밑 b이고, rope_scaling의 각 방식이 θ_i의 일부나 전부를 어떻게 "
    "바꾸는지 SymPy로 확인했다.",
    depends_on=("D0.17",),
)
def d0_18() -> Assessment:
    llama3 = RopeScaling("llama3", 8.0, original_context=8192, low_freq_factor=1.0, high_freq_factor=4.0)
    with flint.ctx.workprec(BALL_BITS):
        kept, divided, blended = scaling_regimes(llama3, 128, 500000)
        turning, short, _ = regime_counts(turns_per_context(128, 500000, 8192), 1.0, 1.0)
    spans = {
        "kept": _span(0, kept),
        "blended": _span(kept, blended),
        "divided": _span(kept + blended, divided),
        "short": _span(turning, short),
    }
    evidence = (
        from_derivation("sinusoidal.larger_base"),
        from_derivation("scaling.linear"),
        from_derivation("scaling.ntk"),
        from_derivation("scaling.dynamic_ntk"),
        from_derivation("scaling.yarn_paper_ramp"),
        from_derivation("scaling.llama3"),
        from_derivation("scaling.longrope"),
        from_derivation("scaling.proportional"),
        Evidence(
            CERTIFICATE,
            "Llama 3.1's published settings (D0.18a: head dim 128, rope_theta 500000, "
            "factor 8, low/high_freq_factor 1/4, original context 8192), wavelengths "
            f"compared in ball arithmetic ({BALL_BITS} bits): pairs kept "
            f"{spans['kept']}, blended {spans['blended']}, divided by 8 "
            f"{spans['divided']}; the divided pairs are exactly those that do not "
            "complete one turn within the 8192 original positions "
            f"({spans['short']}).",
            bool(kept and blended and (kept + blended, divided) == (turning, short)),
            CORROBORATES,
            instances="Llama 3.1's settings",
        ),
    )
    return Assessment(
        evidence,
        "Raising rope_theta keeps the fastest pair (θ_0 = 1) and slows every other pair, the slowest most; "
        "linear scaling divides every θ_i by s, NTK-aware scaling raises the base so θ_0 stays and the "
        "slowest pair is divided by exactly s (dynamic NTK does so with a factor that is 1 up to the "
        "original context and grows with the length), YaRN and Llama 3 keep fast pairs, divide slow ones by "
        "s and blend between, LongRoPE divides each pair by its own factor, and proportional RoPE turns the "
        "first pairs at the whole head's frequencies divided by s and leaves the rest unturned (SymPy). "
        "Covered: default and every 1-D rope_type of Hugging Face transformers 5.25 "
        f"({_transformers_types()}), and the static NTK of its earlier versions; its `axial` type turns "
        "image patches by row and column, a 2-D rule this claim does not speak of. With Llama 3.1's "
        "settings pairs "
        f"{spans['kept']} are kept and {spans['divided']} divided by 8; pairs {spans['short']} never "
        "complete a turn within the original 8192 positions, so longer inputs would show them angles "
        "never seen in training — the problem these settings address.",
    )


d0_18a = cited(
    id="D0.18a",
    source=ROPE,
    statement="Qwen and Llama models expose RoPE settings named rope_theta and rope_scaling in their "
    "configurations, used for context extension.",
    formal=r"\text{(model configuration)}",
    expected=CONFIRMED_BY_SOURCES,
    why_ko="두 계열의 공개 설정 모두 rope_theta를 두고, 컨텍스트 확장은 rope_scaling으로 한다.",
    depends_on=("D0.18",),
    sources=(
        Evidence(
            CITATION,
            'Llama 3.1 config.json (Meta, on Hugging Face): "rope_theta": 500000.0, '
            '"rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, '
            '"original_max_position_embeddings": 8192, "rope_type": "llama3"}, head dimension '
            '128 (hidden_size 4096 / 32 heads in the 8B model); Qwen2.5 config.json: "rope_theta": '
            '1000000.0, with the model card\'s rope_scaling {"factor": 4.0, '
            '"original_max_position_embeddings": 32768, "type": "yarn"} for long inputs. Agrees '
            "with the document.",
            True,
        ),
    ),
    explanation="A fact about published model configurations: both families set rope_theta, "
    "and rope_scaling is how their context is extended.",
)


@claim(
    id="D0.18b",
    source=ROPE,
    statement="RoPE, ALiBi and learned absolute position embeddings are variants that implement, each in its "
    "own way, the idea of injecting order information into the token embedding.",
    formal=r"x_i = e_i + p_i\ \text{(learned)};\quad q_i = R_i W_Q e_i\ \text{(RoPE)};\quad "
    r"s_{ij} = q_i\cdot k_j - m\,(i - j)\ \text{(ALiBi)}",
    expected=CAVEAT,
    why_ko="세 방식 모두 attention에 순서를 전한다는 요지는 맞지만, token embedding에 벡터를 더하는 것은 "
    "학습되는 표뿐이고 RoPE와 ALiBi는 embedding을 건드리지 않는다.",
    depends_on=("D0.10", "D0.17"),
)
def d0_18b() -> Assessment:
    evidence = (
        from_derivation("rope.relative_half_split"),
        from_derivation("alibi.offset_only"),
        Evidence(
            CITATION,
            "Touvron et al. 2023 (LLaMA, arXiv 2302.13971 §2.2): 'We remove the absolute positional "
            "embeddings, and instead, add rotary positional embeddings (RoPE) ... at each layer of the "
            "network': RoPE rotates q and k inside attention, the token embedding is left as it is",
            True,
            LIMITS,
        ),
        Evidence(
            CITATION,
            "Press, Smith & Lewis 2022 (ALiBi, arXiv 2108.12409, abstract): 'ALiBi does not add positional "
            "embeddings to word embeddings; instead, it biases query-key attention scores with a penalty "
            "that is proportional to their distance'",
            True,
            LIMITS,
        ),
    )
    return Assessment(
        evidence,
        "The point holds, the mechanism as worded only for one of the three. All three give attention the "
        "order of the tokens (proved for RoPE's and ALiBi's scores, which depend on i − j), so they are "
        "variants of one idea in that sense; but only the learned table adds a vector to the token "
        "embedding. RoPE rotates q and k in every layer and ALiBi adds a bias to the scores, both leaving "
        "the embedding untouched, as their authors say.",
    )
