"""Document 000 (`000_76efdfd3f753ef97.txt`): sinusoidal positional encoding, from the embedding to attention.

One entry per claim D0.1–D0.18 of the inventory, in the document's order; a claim that bundles statements
needing different kinds of evidence (a proof, a float experiment, a citation) has sub-ids D0.3a, D0.3b, ….
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import mpmath
import numpy as np
import sympy as sp

from pe_verify.proofs.attention import attention, causal_row_softmax, sinusoidal_row
from pe_verify.proofs.derivation import Derivation, VerificationResult, is_nonzero
from pe_verify.proofs.lipschitz import coordinate_step, distance_bound, sine_bound
from pe_verify.proofs.sinusoidal import exact_frequencies
from pe_verify.properties.correct_rounding import correctly_rounded
from pe_verify.properties.finite_precision import common_code_encoding
from pe_verify.properties.frequencies import (
    fraction_arb,
    frequencies_arb,
    frequency_arb,
    frequency_exponent,
    frequency_expr,
    frequency_mp,
)
from pe_verify.properties.learned import LearnedPositionTable
from pe_verify.properties.sinusoidal import Sinusoidal, pair_index, sinusoidal_encoding

from .evidence import from_derivation
from .model import (
    BEYOND_DOMAIN,
    CAVEAT,
    CERTIFICATE,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
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
    SUPPORTS,
    SYMBOLIC,
    Assessment,
    Evidence,
    Source,
    claim,
)
from .numbers import certain_argmax, certified

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


def _derivation_evidence(item: Derivation, bearing: str = SUPPORTS) -> Evidence:
    """Evidence that SymPy checked every step of a derivation kept outside `pe_verify.proofs.MODULES`."""
    result = _verify(item)
    return Evidence(
        SYMBOLIC,
        f"{item.title} — `{item.id}`, {result.summary}",
        result.verified,
        bearing,
        (("derivation", item.id),),
    )


@functools.cache
def _verify(item: Derivation) -> VerificationResult:
    return item.verify()


def _digits(ball: flint.arb, digits: int = 8) -> str:
    """The midpoint of a ball with `digits` significant digits."""
    return ball.str(digits, radius=False)


def _libm(value: float, spec: str) -> str:
    """A scalar from Python's `math` (libm: about an ulp off the exact value), to the digits it fixes."""
    return certified(value, 8 * 2.0**-52 * abs(value), spec)


def _root(n: int) -> str:
    """√n: the integer when n is a square, else five significant digits (ball arithmetic)."""
    root = math.isqrt(n)
    if root * root == n:
        return str(root)
    with flint.ctx.workprec(BALL_BITS):
        return _digits(flint.arb(n).sqrt(), 5)


# ------------------------------------------------------------------------------------------------- D0.1


def attention_position_readout(copies: int = 3) -> tuple[sp.Matrix, sp.Matrix]:
    """Outputs of one attention head with uniform weights (W_Q = 0) on the tokens b, t, t, …, t (no PE).

    Unmasked, every output row is the same average; with a causal mask row a averages the first a + 1 tokens,
    so the rows of the identical tokens t differ and spell out their positions.
    """
    x = sp.Matrix([[1, 0]] + [[0, 1]] * copies)
    no_query, identity_map = sp.zeros(2, 2), sp.eye(2)
    unmasked = attention(x, no_query, identity_map, identity_map)
    causal = attention(x, no_query, identity_map, identity_map, causal_row_softmax)
    return unmasked, causal


@claim(
    id="D0.1",
    source=INTRODUCTION,
    statement="Self-attention in its basic form compares all tokens at once, so with token embeddings alone "
    "the model cannot tell at which position a token stood: permuting the input tokens only "
    "permutes the outputs.",
    formal=r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X) \text{ for every permutation matrix } P \text{ (no "
    r"mask, no PE)}",
    expected=PROVED,
    expected_argument=CONDITIONS,
)
def d0_1() -> Assessment:
    unmasked, causal = attention_position_readout()
    copies = range(1, causal.rows)
    causal_rows = [tuple(causal.row(a)) for a in copies]
    unmasked_rows = {tuple(unmasked.row(a)) for a in copies}
    reads_positions = len(set(causal_rows)) == len(causal_rows) and len(unmasked_rows) == 1
    shown = ", ".join(f"({a}, {b})" for a, b in causal_rows)
    readout = Evidence(
        EXACT,
        "A causal mask alone carries position: tokens b, t, t, t with uniform weights (W_Q = 0, exact "
        f"rational arithmetic) give the three copies of t the causal outputs {shown}, all different, while "
        f"unmasked attention gives each of them {tuple(unmasked.row(1))}.",
        reads_positions,
        BEYOND_DOMAIN,
    )
    evidence = (
        from_derivation("attention.permutation_equivariance"),
        from_derivation("attention.causal_mask_breaks_equivariance", BEYOND_DOMAIN),
        readout,
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


@dataclass(frozen=True)
class SumShapes:
    """Shapes of token embedding + PE (added) and of the concatenation, for one sequence length."""

    seq_len: int
    added: tuple[int, ...]
    concatenated: tuple[int, ...]
    same_pe_in_every_sequence: bool


def embedding_plus_encoding(
    seq_len: int, batch: int = 2, hidden: int = 768, vocab: int = 50, max_len: int = 512
) -> SumShapes:
    """Run x = token_embedding[token_ids] + positional_encoding[:seq_len] in numpy (seeded, float64)."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((vocab, hidden))
    token_ids = rng.integers(0, vocab, (batch, seq_len))
    pe = sinusoidal_encoding(np.arange(max_len), hidden)[:seq_len]
    embedded = table[token_ids]
    x = embedded + pe
    concatenated = np.concatenate([embedded, np.broadcast_to(pe, embedded.shape)], axis=-1)
    same = all(np.array_equal(x[b], embedded[b] + pe) for b in range(batch))
    return SumShapes(seq_len, x.shape, concatenated.shape, same)


@claim(
    id="D0.2",
    source=ADDING,
    statement="The input is token_embedding[token_ids] + positional_encoding[:seq_len]: a [batch, seq_len, "
    "hidden] tensor plus a [seq_len, hidden] one broadcasts to [batch, seq_len, hidden], so the hidden size "
    "(768 in the example) stays what it was for any sequence length, whereas concatenating would double it.",
    formal=r"[B, L, H] + [L, H] \to [B, L, H],\qquad x_{b,\ell} = e_{b,\ell} + PE(\ell)",
    expected=PROVED,
)
def d0_2() -> Assessment:
    runs = [embedding_plus_encoding(seq_len) for seq_len in (1, 8, 512)]
    holds = all(
        run.added == (2, run.seq_len, 768)
        and run.concatenated == (2, run.seq_len, 1536)
        and run.same_pe_in_every_sequence
        for run in runs
    )
    shapes = "; ".join(
        f"L = {run.seq_len}: sum {run.added}, concatenation {run.concatenated}" for run in runs
    )
    evidence = (
        Evidence(
            EXACT,
            f"numpy broadcasting, batch 2, hidden 768, seeded embeddings: {shapes}; each batch "
            "row is its own embedding plus the same PE (bit for bit).",
            holds,
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
)
def d0_3() -> Assessment:
    evidence = (from_derivation("trigonometry.exp_log_frequency"),)
    return Assessment(
        evidence,
        "SymPy shows e^{2i(−ln b/d)} = b^{−2i/d} for symbolic b > 0, d > 0, i ≥ 0, and for b = 10000 that "
        "this is 10^{−8i/d}. So the exp/log form in the document's code and the formula define the same "
        "encoding in exact arithmetic; D0.3a measures what float32 does to it.",
    )


def div_term_exponents(d: int) -> np.ndarray:
    """The exponents the document's code passes to exp, in float32: arange(0, d, 2) · float32(−ln 10000/d)."""
    return np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(10000.0) / d)


def div_term_float32(d: int) -> np.ndarray:
    """The document's div_term in float32: exp of `div_term_exponents`, correctly rounded to float32."""
    return correctly_rounded("exp", "float32", div_term_exponents(d))


@dataclass(frozen=True)
class Drift:
    """How far div_term in float32 is from the exact 10000^(−2i/d), in float32 ulps, against a bound."""

    d: int
    max_ulps: float
    at_index: int | None
    max_relative: float
    excess_over_exponent_error: float
    exp_ulps: float


def _ulps(value: float, exact: mpmath.mpf) -> float:
    """|value − exact| in float32 ulps of the exact value (whose binade fixes the ulp)."""
    return float(abs(mpmath.mpf(value) - exact)) / 2.0 ** (math.frexp(float(exact))[1] - 24)


def _reference_bound(value: float) -> float:
    """The error bound of a float computed from the 50-digit reference (an error in ulps, a relative error):
    its final rounding to float64, plus far more than the reference's own error (about 10^(−50) relative)."""
    return 2.0**-52 * abs(value) + 1e-40


def _from_reference(value: float, spec: str) -> str:
    """A float32 error measured against the 50-digit reference, to the digits its bound fixes."""
    return certified(value, _reference_bound(value), spec)


def div_term_drift(d: int) -> Drift:
    """Each entry's error in float32 ulps of the exact 10000^(−2i/d) (mpmath, 50 digits); how far it exceeds
    the 2|x_i| ulps that the rounding of the exponent x_i = −2i·ln(10000)/d explains; and the error of the
    float32 exp alone, measured on the rounded exponents it was given. The index of the largest error is
    kept only when no other comes within the measurement's error bound of it."""
    exponents, computed = div_term_exponents(d), div_term_float32(d)
    errors, relative, excess, library = [], 0.0, -math.inf, 0.0
    with mpmath.workdps(50):
        for i, (x, value) in enumerate(zip(exponents, computed, strict=True)):
            exact = frequency_mp(i, d, 10000)
            ulps = _ulps(float(value), exact)
            errors.append(ulps)
            excess = max(excess, ulps - 2 * (2 * i * math.log(10000.0) / d) * (1 + 2.0**-20))
            relative = max(relative, float(abs(mpmath.mpf(float(value)) - exact) / exact))
            library = max(library, _ulps(float(value), mpmath.exp(mpmath.mpf(float(x)))))
    worst = max(errors)
    at = errors.index(worst) if certain_argmax(errors, _reference_bound(worst)) else None
    return Drift(d, worst, at, relative, excess, library)


@claim(
    id="D0.3a",
    source=CODE,
    statement="The document's code computes the frequencies 10000^(−2i/d) in float32 as exp(arange(0, d, 2) "
    "· (−ln 10000/d)); it gets them right up to float32 rounding, which grows with i because exp "
    "magnifies the rounding of the exponent.",
    formal=r"\left|\widehat{\omega}_i / 10000^{-2i/d} - 1\right| \le \big(2|x_i| + 3\big)\,2^{-24}\ "
    r"\text{(about)},\quad x_i = 2i\ln(10000)/d",
    expected=NUMERIC,
    depends_on=("D0.3",),
)
def d0_3a() -> Assessment:
    drifts = [div_term_drift(d) for d in (6, 512, 4096)]
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
        f"{_libm(math.log(10000.0), '.1f')} in size, is magnified by exp. These figures are computed with "
        "correctly rounded float32 operations, so they are properties of float32; a platform's libm "
        "(numpy's, PyTorch's) may differ by a few ulp. The document's printed table is not affected at four "
        "decimals (D0.12).",
    )


@claim(
    id="D0.3b",
    source=FORMULA,
    statement="The formula is the one of the original Transformer paper, which computes the position "
    "vectors with sine and cosine instead of learning them.",
    formal=r"\text{Vaswani et al. (2017), §3.5}",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.3",),
)
def d0_3b() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "Vaswani et al., 'Attention Is All You Need' (arXiv 1706.03762), §3.5: PE(pos, "
            "2i) = sin(pos/10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos/10000^(2i/d_model)); "
            "the same section reports that learned positional embeddings gave nearly "
            "identical results (Table 3, row E) and that the sinusoidal version was chosen. "
            "Agrees with the document.",
            True,
        ),
    )
    return Assessment(
        evidence,
        "A fact about a paper, checked against the paper: §3.5 gives exactly this "
        "formula and uses it instead of learned position embeddings.",
    )


# ------------------------------------------------------------------------------------------------- D0.4


def frequencies_decrease_for_every_d() -> bool:
    """SymPy, for symbolic d > 0 and i ≥ 0, with ω_i = 10000^(e_i), e_i = −2i/d: e_(i+1) − e_i = −2/d < 0 (the
    frequency strictly decreases), e_0 = 0 (λ_0 = 2π), and the last pair's exponent −(1 − 2/d) > −1 (its
    wavelength 2π·10000^(1 − 2/d) is below 2π·10000)."""
    d = sp.Symbol("d", positive=True)
    i = sp.Symbol("i", nonnegative=True)

    def exponent(index: sp.Expr) -> sp.Expr:
        return frequency_exponent(index, d)

    step = sp.simplify(exponent(i + 1) - exponent(i))
    return (
        step.is_negative is True
        and exponent(0) == 0
        and sp.simplify(exponent(d / 2 - 1) + 1).is_positive is True
    )


@dataclass(frozen=True)
class Wavelengths:
    """Exact exponents of the pair frequencies of one d, and the wavelength range they give."""

    d: int
    pairs_share_frequency: bool
    strictly_decreasing: bool
    shortest: flint.arb
    longest: flint.arb
    below_limit: bool


def wavelengths(d: int) -> Wavelengths:
    """ω_i = 10^(−8i/d) with rational exponents: dims 2i, 2i+1 share i (reference `pair_index`), the exponents
    strictly decrease, and λ_i = 2π·10^(8i/d) runs from 2π to 2π·10^(8(d/2−1)/d) < 2π·10^4 (ball
    arithmetic)."""
    index = pair_index(d)
    shared = bool(np.array_equal(index[0::2], np.arange(d // 2)) and np.array_equal(index[1::2], index[0::2]))
    exponents = [sp.Rational(4 * frequency_exponent(i, d)) for i in range(d // 2)]  # 10000 = 10^4
    decreasing = all(a > b for a, b in itertools.pairwise(exponents))
    with flint.ctx.workprec(BALL_BITS):
        two_pi = 2 * flint.arb.pi()
        longest = two_pi * flint.arb(10) ** (flint.arb(-exponents[-1].p) / exponents[-1].q)
        return Wavelengths(d, shared, decreasing, two_pi, longest, bool(longest < two_pi * 10000))


@claim(
    id="D0.4",
    source=FORMULA,
    statement="Dims 2i and 2i+1 use the same frequency (one sin, one cos); the frequency gets strictly "
    "smaller as i grows, so the wavelength 2π·10000^(2i/d) grows from 2π for dims 0–1 towards, "
    "but below, 2π·10000.",
    formal=r"\omega_i = 10000^{-2i/d},\ \omega_{i+1} < \omega_i,\ \lambda_i = 2\pi\,10000^{2i/d} \in "
    r"[2\pi,\ 2\pi\cdot 10000)",
    expected=PROVED,
    depends_on=("D0.3",),
)
def d0_4() -> Assessment:
    cases = [wavelengths(d) for d in (6, 8, 512, 768, 4096)]
    holds = all(c.pairs_share_frequency and c.strictly_decreasing and c.below_limit for c in cases)
    by_d = {c.d: c for c in cases}
    evidence = (
        Evidence(
            EXACT,
            "SymPy, symbolic d > 0: ω_(i+1)/ω_i = 10000^(−2/d) < 1, λ_0 = 2π, and the last "
            "exponent 1 − 2/d < 1, so every wavelength is below 2π·10000.",
            frequencies_decrease_for_every_d(),
        ),
        Evidence(
            CERTIFICATE,
            "d = 6, 8, 512, 768, 4096: pairs share the index i (reference encoder), "
            "exponents −8i/d strictly decrease (exact rationals), longest wavelength "
            f"below 2π·10^4 (ball arithmetic, {BALL_BITS} bits); d = 512: λ from "
            f"{_digits(by_d[512].shortest, 6)} to {_digits(by_d[512].longest, 7)}.",
            holds,
        ),
    )
    return Assessment(
        evidence,
        "Exactly: ω_(i+1)/ω_i = 10000^(−2/d) < 1, so the frequency strictly decreases and the wavelength "
        f"2π·10000^(2i/d) strictly increases, from 2π ≈ {_digits(by_d[6].shortest, 6)} to 2π·10000^(1 − "
        "2/d), never reaching 2π·10000. At d = 512 the slowest pair has λ ≈ "
        f"{_digits(by_d[512].longest, 7)}, at d = 6 (the document's table) λ ≈ "
        f"{_digits(by_d[6].longest, 7)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.5


def origin_encoding(d: int) -> list[sp.Expr]:
    """PE(0) from the exact formula: sin(0·ω_i) in the even dims, cos(0·ω_i) in the odd dims."""
    return list(Sinusoidal(d).column(sp.Integer(0)))


def _is_sin_zeros_cos_ones(d: int) -> bool:
    return all(value == (j % 2) for j, value in enumerate(origin_encoding(d)))


def sine_never_returns_to_zero() -> bool:
    """SymPy: sin n ≠ 0 for every nonzero integer n (π is irrational): dim 0 = sin(p·1) tells p ≠ 0 from 0."""
    n = sp.Symbol("n", integer=True, nonzero=True)
    return sp.sin(n).is_zero is False


def sine_only_origin(d: int = TABLE_D) -> list[sp.Expr]:
    """PE'(0) for the variant with sin in every dim: sin(0·ω_(j//2)) for j = 0, …, d − 1."""
    omegas = exact_frequencies(d)
    return [sp.sin(0 * omegas[j // 2]) for j in range(d)]


@claim(
    id="D0.5",
    source=FORMULA,
    statement="PE(0) is not the zero vector: its sin entries are 0 and its cos entries are 1; thanks to "
    "this the first position also gets a vector of its own.",
    formal=r"PE(0) = (0, 1, 0, 1, \dots) \neq 0",
    expected=PROVED,
    expected_argument=FLAWED,
    depends_on=("D0.3",),
)
def d0_5() -> Assessment:
    dims = (*range(2, 17), 64)
    omega = sp.Symbol("omega", positive=True)
    at_origin = (sp.sin(0 * omega), sp.cos(0 * omega))
    nonzero = all(_is_sin_zeros_cos_ones(d) for d in dims) and at_origin == (0, 1)
    lone_sine = origin_encoding(1)
    distinct = sine_never_returns_to_zero()
    evidence = (
        Evidence(
            EXACT,
            "SymPy, exact formula: PE(0) = (0, 1, 0, 1, …) for d = 2, …, 16 and 64, and "
            "sin(0·ω) = 0, cos(0·ω) = 1 for a symbolic ω > 0: every d ≥ 2 has dim 1 = cos 0 = "
            "1, so PE(0) ≠ 0.",
            nonzero,
        ),
        Evidence(
            EXACT,
            f"d = 1: PE(0) = {tuple(lone_sine)}, the zero vector (the only dim is a sine).",
            all(value == 0 for value in lone_sine),
            BEYOND_DOMAIN,
        ),
    )
    argument = (
        Evidence(
            EXACT,
            "Conclusion holds: sin n ≠ 0 for every nonzero integer n (SymPy, π irrational), so "
            "dim 0 = sin(p·1) already separates PE(0) from every PE(p), p ≠ 0.",
            distinct,
            STEP_CHECKED,
        ),
        Evidence(
            EXACT,
            "'Nonzero, hence its own vector' is not the reason: an all-sine variant has PE'(0) "
            "= 0 (SymPy, d = 6) and still PE'(p) ≠ PE'(0) for every integer p ≠ 0 by the same "
            "fact, while a nonzero vector repeated at every position would be nonzero and "
            "shared.",
            all(value == 0 for value in sine_only_origin()) and distinct,
            STEP_FAILS,
        ),
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


def odd_dimension_norm_gap() -> flint.arb:
    """‖PE(1)‖² − ‖PE(0)‖² at d = 3: the unpaired last sine gives sin²(10000^(−2/3)) (a ball)."""
    with flint.ctx.workprec(BALL_BITS):
        at_zero, at_one = Sinusoidal(3).row_balls(0), Sinusoidal(3).row_balls(1)
        return sum((v * v for v in at_one), flint.arb(0)) - sum((v * v for v in at_zero), flint.arb(0))


@claim(
    id="D0.5a",
    source=FORMULA,
    statement="(Added by the catalog next to D0.5; the document does not state it.) Every position's vector "
    "has the same length: ‖PE(pos)‖² = d/2.",
    formal=r"\lVert PE(pos)\rVert^2 = \sum_i \big(\sin^2 pos\,\omega_i + \cos^2 pos\,\omega_i\big) = d/2",
    expected=CAVEAT,
    depends_on=("D0.5",),
    role=QUESTION,
)
def d0_5a() -> Assessment:
    gap = odd_dimension_norm_gap()
    evidence = (
        from_derivation("sinusoidal.norm"),
        Evidence(
            CERTIFICATE,
            f"d = 3 (ball arithmetic, {BALL_BITS} bits): ‖PE(1)‖² − ‖PE(0)‖² = "
            f"sin²(10000^(−2/3)) = {_digits(gap, 6)} > 0: the last sine has no cosine partner.",
            bool(gap > 0),
            LIMITS,
        ),
    )
    return Assessment(
        evidence,
        "For even d every (sin, cos) pair contributes sin² + cos² = 1, so ‖PE(pos)‖² = d/2 at every "
        "position (SymPy). For odd d the last sine is unpaired and the length changes with pos: at d = 3, "
        f"‖PE(1)‖² exceeds ‖PE(0)‖² by {_digits(gap, 6)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.6


@dataclass(frozen=True)
class StepChanges:
    """One-step changes |PE(p+1, j) − PE(p, j)| over positions 0..n−1 of one d, certified against ω_j."""

    d: int
    n_positions: int
    within_frequency: bool
    largest_fast: flint.arb
    fast_bound: flint.arb
    largest_slow: flint.arb
    slowest_frequency: flint.arb


def step_changes(d: int, n_positions: int) -> StepChanges:
    """Ball arithmetic: every |PE(p+1, j) − PE(p, j)| < ω_j for p + 1 < n; the largest change of dim 0 with
    its bound 2 sin(ω_0/2), and the largest change of the last sine dim with its frequency."""
    with flint.ctx.workprec(BALL_BITS):
        rows = [Sinusoidal(d).row_balls(p) for p in range(n_positions)]
        omegas = [frequency_arb(j // 2, d, 10000) for j in range(d)]
        changes = [
            [abs(b - a) for a, b in zip(here, after, strict=True)] for here, after in itertools.pairwise(rows)
        ]
        within = all(
            bool(change < omega) for row in changes for change, omega in zip(row, omegas, strict=True)
        )
        fast = max((row[0] for row in changes), key=lambda ball: float(ball.mid()))
        slow = max((row[-2] for row in changes), key=lambda ball: float(ball.mid()))
        return StepChanges(d, n_positions, within, fast, 2 * (omegas[0] / 2).sin(), slow, omegas[-1])


@claim(
    id="D0.6",
    source=FORMULA,
    statement="Short-wavelength dims change a lot when the position moves by 1, long-wavelength dims "
    "hardly: a step of 1 changes dim j by at most its frequency ω_j (and by up to 2 sin(ω_j/2) over the "
    "positions).",
    formal=r"|PE(p+1, j) - PE(p, j)| \le 2\sin\tfrac{\omega_j}{2} \le \omega_j",
    expected=PROVED,
    depends_on=("D0.4",),
)
def d0_6() -> Assessment:
    table, wide = step_changes(TABLE_D, TABLE_POSITIONS), step_changes(512, 64)
    evidence = (
        _derivation_evidence(coordinate_step),
        _derivation_evidence(sine_bound),
        Evidence(
            CERTIFICATE,
            f"Ball arithmetic ({BALL_BITS} bits): |PE(p+1, j) − PE(p, j)| < ω_j for every "
            "dim and p + 1 < 8 at d = 6 and p + 1 < 64 at d = 512. d = 6: largest change "
            f"of dim 0 {_digits(table.largest_fast, 6)} (bound 2 sin ½ = "
            f"{_digits(table.fast_bound, 6)}), of dim 4 {_digits(table.largest_slow, 6)} "
            f"(ω_2 = {_digits(table.slowest_frequency, 6)}).",
            table.within_frequency and wide.within_frequency,
        ),
    )
    return Assessment(
        evidence,
        "By sum-to-product, a step of 1 changes a sin or cos coordinate by 2 sin(ω/2) times a sine or "
        "cosine, so by at most 2 sin(ω/2) ≤ ω (SymPy). Dims 0–1 (ω = 1) can jump by up to "
        f"{_digits(table.fast_bound, 4)} in one step — in the document's table dim 0 moves by up to "
        f"{_digits(table.largest_fast, 4)} — while dims 4–5 at d = 6 move by at most ω_2 ≈ "
        f"{_digits(table.slowest_frequency, 4)}, and the slowest pair at d = 512 by at most "
        f"{_digits(wide.slowest_frequency, 4)}.",
    )


# ------------------------------------------------------------------------------------------------- D0.7


@dataclass(frozen=True)
class DistanceDip:
    """The first offset k at which ‖PE(p+k) − PE(p)‖ decreases (k → k + 1), certified in ball arithmetic."""

    d: int
    offset: int
    before: flint.arb
    after: flint.arb


def offset_distances(d: int, max_offset: int) -> list[flint.arb]:
    """‖PE(p+k) − PE(p)‖ for k = 0..max_offset (any p): √(Σ_i 2(1 − cos kω_i)), as balls."""
    omegas = frequencies_arb(d, 10000, count=d // 2)
    return [
        sum((2 * (1 - (k * omega).cos()) for omega in omegas), flint.arb(0)).sqrt()
        for k in range(max_offset + 1)
    ]


def first_distance_dip(d: int, max_offset: int) -> DistanceDip | None:
    """The smallest k < max_offset with dist(k + 1) < dist(k), where every earlier step certainly increased.

    None when the distance certainly increases at every k < max_offset; ValueError when a step cannot be
    decided at the working precision.
    """
    with flint.ctx.workprec(BALL_BITS):
        distances = offset_distances(d, max_offset)
        for k in range(max_offset):
            before, after = distances[k], distances[k + 1]
            if after > before:
                continue
            if after < before:
                return DistanceDip(d, k, before, after)
            raise ValueError(f"d = {d}: cannot decide whether the distance grows from k = {k} to {k + 1}")
    return None


def unit_step_against_bound(d: int) -> tuple[flint.arb, flint.arb]:
    """‖PE(p+1) − PE(p)‖ and the Lipschitz bound ‖ω‖ = √(Σ ω_i²), as balls."""
    with flint.ctx.workprec(BALL_BITS):
        omegas = frequencies_arb(d, 10000, count=d // 2)
        bound = sum((omega * omega for omega in omegas), flint.arb(0)).sqrt()
        return offset_distances(d, 1)[1], bound


def _dip_evidence(d: int, max_offset: int) -> tuple[Evidence, DistanceDip | None]:
    dip = first_distance_dip(d, max_offset)
    if dip is None:
        text = (
            f"d = {d} (ball arithmetic, {BALL_BITS} bits): the distance increases at every offset "
            f"k < {max_offset}."
        )
    else:
        text = (
            f"d = {d} (ball arithmetic, {BALL_BITS} bits): the distance grows for k = 0, …, "
            f"{dip.offset}, then ‖PE(p+{dip.offset + 1}) − PE(p)‖ = {_digits(dip.after, 10)} < "
            f"‖PE(p+{dip.offset}) − PE(p)‖ = {_digits(dip.before, 10)} for every p: the farther position "
            "is closer."
        )
    return Evidence(CERTIFICATE, text, dip is not None, LIMITS), dip


@claim(
    id="D0.7",
    source=WHY_SIN_COS,
    statement="Because sin and cos are continuous, a small change of position gives a small change of the "
    "vector: nearby positions (10 and 11) get nearby vectors instead of unrelated ones, leaving a trace of "
    "their closeness.",
    formal=r"\lVert PE(p+k) - PE(p)\rVert = \Big(\sum_i 4\sin^2\tfrac{k\omega_i}{2}\Big)^{1/2} \le "
    r"|k|\,\lVert\omega\rVert \text{ for every } p",
    expected=CAVEAT,
    expected_argument=SOUND,
    depends_on=("D0.6",),
)
def d0_7() -> Assessment:
    small, large = _dip_evidence(TABLE_D, 20), _dip_evidence(512, 100)
    step_6, bound_6 = unit_step_against_bound(TABLE_D)
    step_512, bound_512 = unit_step_against_bound(512)
    widest_6, widest_512 = _root(2 * TABLE_D), _root(2 * 512)
    evidence = (
        from_derivation("sinusoidal.distance"),
        _derivation_evidence(distance_bound),
        _derivation_evidence(sine_bound),
        Evidence(
            CERTIFICATE,
            f"Ball arithmetic ({BALL_BITS} bits): ‖PE(p+1) − PE(p)‖ = {_digits(step_6, 6)} "
            f"≤ ‖ω‖ = {_digits(bound_6, 6)} at d = 6 and {_digits(step_512, 6)} ≤ "
            f"{_digits(bound_512, 6)} at d = 512 (the largest possible distance is √(2d): "
            f"{widest_6} and {widest_512}).",
            bool(step_6 < bound_6 and step_512 < bound_512),
        ),
        small[0],
        large[0],
    )
    argument = (_derivation_evidence(distance_bound, STEP_CHECKED),)
    dips = "; ".join(
        f"d = {dip.d}: {_digits(dip.before, 7)} at k = {dip.offset}, {_digits(dip.after, 7)} at "
        f"k = {dip.offset + 1}"
        for dip in (small[1], large[1])
        if dip is not None
    )
    return Assessment(
        evidence,
        "Proved: the distance depends only on the offset k and is at most |k|·‖ω‖, so one step moves the "
        f"vector by {_digits(step_512, 4)} at d = 512 against distances up to {widest_512}. But the "
        "distance is not monotone in k, so 'closer in position ⇒ closer in vector' fails beyond small "
        f"offsets ({dips}). The continuity argument is sound for what it claims; periodicity, the other "
        "property it cites, is what breaks the ordering.",
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
    expected_argument=SOUND,
    depends_on=("D0.3",),
)
def d0_8() -> Assessment:
    evidence = (
        from_derivation("sinusoidal.offset_matrix"),
        from_derivation("sinusoidal.offset_matrix_group"),
        from_derivation("sinusoidal.offset_matrix_expanded"),
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


@dataclass(frozen=True)
class TableReach:
    """What a learned table of L rows returns at its last row and past it."""

    max_len: int
    last_row_shape: tuple[int, ...]
    past_the_end: str | None


def learned_table_reach(max_len: int = 512, d: int = 8) -> TableReach:
    """Look up rows L − 1 and L of a (seeded) learned table of L rows; the message if row L is refused."""
    table = LearnedPositionTable(np.random.default_rng(0).standard_normal((max_len, d)))
    last = table.lookup(max_len - 1).shape
    try:
        table.lookup(max_len)
    except ValueError as refusal:
        return TableReach(max_len, last, str(refusal))
    return TableReach(max_len, last, None)


@claim(
    id="D0.10",
    source=LEARNED,
    statement="A learned position embedding is a table with one trained row per position 0, …, L − 1 (like "
    "the token embedding table); a model with L = 512 has no vector for position 512 or beyond.",
    formal=r"E \in \mathbb{R}^{L\times d}:\ PE(p) = E_p \text{ only for } 0 \le p < L",
    expected=PROVED,
)
def d0_10() -> Assessment:
    reach = learned_table_reach()
    evidence = (
        Evidence(
            EXACT,
            f"Reference learned table with L = {reach.max_len} rows: row {reach.max_len - 1} has "
            f"shape {reach.last_row_shape}; row {reach.max_len} is refused: "
            f"{reach.past_the_end!r}.",
            reach.last_row_shape == (8,) and reach.past_the_end is not None,
        ),
    )
    return Assessment(
        evidence,
        f"A table of {reach.max_len} rows answers for positions 0–{reach.max_len - 1} only; position "
        f"{reach.max_len} has no row, and the reference lookup refuses it instead of wrapping around. "
        "Whether such a model is 'simple and performs well' is an empirical statement not assessed here.",
    )


@claim(
    id="D0.10a",
    source=LEARNED,
    statement="BERT uses a learned position table and its input is limited to 512 tokens.",
    formal=r"\text{BERT: } L = 512",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.10",),
)
def d0_10a() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "bert-base-uncased config.json (Hugging Face, google-bert): "
            '"max_position_embeddings": 512; Devlin et al. (arXiv 1810.04805) learn the '
            "position embeddings and pre-train on sequences of at most 512 tokens (Appendix "
            "A.2). Agrees with the document.",
            True,
        ),
    )
    return Assessment(
        evidence,
        "A fact about a model, checked against its published configuration and paper: 512 learned positions.",
    )


# ------------------------------------------------------------------------------------------------ D0.11


def formula_is_parameter_free(d: int) -> bool:
    """SymPy: every coordinate of the exact formula at a symbolic real pos has no free symbol but pos and is
    real and finite — defined at every position, with nothing to train and nothing that depends on max_len."""
    pos = sp.Symbol("pos", real=True)
    row = Sinusoidal(d).column(pos)
    return all(
        value.free_symbols == {pos} and value.is_real is True and value.is_finite is True for value in row
    )


@claim(
    id="D0.11",
    source=LEARNED,
    statement="The sinusoidal encoding has no parameters: it can be precomputed once max_len is fixed and, "
    "in principle, gives a vector for positions longer than any seen in training; a table for "
    "max_len L is the first L rows of the table for any longer max_len.",
    formal=r"PE(pos) = f_d(pos) \text{ for every real } pos:\ \text{no parameters, no dependence on } L",
    expected=PROVED,
    depends_on=("D0.3",),
)
def d0_11() -> Assessment:
    evidence = (
        Evidence(
            EXACT,
            "SymPy, exact formula at a symbolic real position, d = 6 and 64: each coordinate's "
            "only free symbol is pos, and it is real and finite for every real pos.",
            formula_is_parameter_free(TABLE_D) and formula_is_parameter_free(64),
        ),
    )
    return Assessment(
        evidence,
        "PE(pos) is a fixed function of pos and d alone: nothing is trained, every real position has a "
        "value, and row p of a precomputed table is PE(p) whatever max_len was, so shorter tables are "
        "prefixes of longer ones (D0.11b checks the document's float32 code bit for bit). That values exist "
        "for long positions says nothing about using them well (D0.11a).",
    )


@claim(
    id="D0.11a",
    source=LEARNED,
    statement="Being able to compute vectors for long positions does not give long-context ability: a model "
    "trained on short contexts does not work on much longer ones just because its positional encoding "
    "extends.",
    formal=r"\text{(empirical)}",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.11",),
)
def d0_11a() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "Press, Smith & Lewis, 'Train Short, Test Long' (arXiv 2108.12409), Figure 1: "
            "language models with sinusoidal (and rotary, T5) positions, trained on L = 512 "
            "or 1024 tokens, show degraded perplexity as validation inputs grow past L, "
            "although their encodings are defined there. Agrees with the document's warning.",
            True,
        ),
    )
    return Assessment(
        evidence,
        "An empirical statement about trained models, which mathematics cannot settle; a published "
        "experiment points the same way as the document. Nothing here measures it.",
    )


def table_prefix_bits(d: int, short: int, long: int) -> bool:
    """The document's code in float32: the table for max_len = short is the first rows of max_len = long, bit
    for bit."""
    code = common_code_encoding(d, "float32")
    head, full = code.stored_rows(np.arange(short)), code.stored_rows(np.arange(long))
    return bool(np.array_equal(head.view(np.uint32), full[:short].view(np.uint32)))


@claim(
    id="D0.11b",
    source=CODE,
    statement="The document's code builds, for a smaller max_len, exactly the first rows of the table for a "
    "larger max_len, so a table can be precomputed once and sliced.",
    formal=r"\texttt{pe}(L)[{:}L'] = \texttt{pe}(L') \text{ bit for bit}, \quad L' < L",
    expected=NUMERIC,
    depends_on=("D0.11",),
)
def d0_11b() -> Assessment:
    cases = [(d, short, 8192) for d in (TABLE_D, 512) for short in (1, 8, 17, 1000)]
    holds = all(table_prefix_bits(*case) for case in cases)
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


def formula_table_balls() -> list[list[flint.arb]]:
    """The document's table, max_len = 8 and d = 6, from the formula in ball arithmetic."""
    with flint.ctx.workprec(BALL_BITS):
        return [Sinusoidal(TABLE_D).row_balls(p) for p in range(TABLE_POSITIONS)]


def _four_decimals(value: float) -> str:
    return f"{value + 0.0:.4f}"


@dataclass(frozen=True)
class Rounding:
    """A value rounded to four decimals, and its distance to the nearest rounding boundary (ball arithmetic);
    `text` is None when the ball straddles a boundary, so the rounding is not decided."""

    text: str | None
    margin: flint.arb
    digits: str


def certified_rounding(ball: flint.arb) -> Rounding:
    """Round the value to four decimals, proving with ball arithmetic that it lies within 0.00005 of it."""
    with flint.ctx.workprec(BALL_BITS):
        text = _four_decimals(float(ball.mid()))
        margin = flint.arb(1) / 20000 - abs(ball - flint.arb(text))
        return Rounding(text if bool(margin > 0) else None, margin, _digits(ball, 10))


def code_table() -> np.ndarray:
    """The document's table as its code computes it in float32 (numpy translation, correctly rounded exp,
    sin and cos)."""
    return common_code_encoding(TABLE_D, "float32").stored_rows(np.arange(TABLE_POSITIONS))


def code_error(code: np.ndarray, balls: Sequence[Sequence[flint.arb]]) -> flint.arb:
    """An upper bound on max |code − exact| over the table (ball arithmetic)."""
    with flint.ctx.workprec(BALL_BITS):
        errors = [
            abs(flint.arb(float(value)) - ball)
            for row, ball_row in zip(code, balls, strict=True)
            for value, ball in zip(row, ball_row, strict=True)
        ]
        return max(errors, key=lambda ball: float(ball.mid())).abs_upper()


def table_differences(
    printed: Sequence[Sequence[str]], reference: Sequence[Sequence[str | None]]
) -> list[tuple[int, int, str, str | None]]:
    """(position, dim, printed, reference) wherever the printed entry differs from the reference one."""
    return [
        (p, j, printed[p][j], reference[p][j])
        for p in range(len(printed))
        for j in range(len(printed[p]))
        if printed[p][j] != reference[p][j]
    ]


def _listed(
    differences: list[tuple[int, int, str, str | None]], exact: Sequence[Sequence[Rounding]] | None = None
) -> str:
    shown = [
        f"PE({p}, {j}) printed {text}, computed {ref}"
        + (f" (exact {exact[p][j].digits})" if exact is not None else "")
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
    depends_on=("D0.3", "D0.3a"),
)
def d0_12() -> Assessment:
    balls = formula_table_balls()
    exact = [[certified_rounding(ball) for ball in row] for row in balls]
    formula = [[value.text for value in row] for row in exact]
    margin, p_close, j_close = min(
        ((exact[p][j].margin, p, j) for p in range(TABLE_POSITIONS) for j in range(TABLE_D)),
        key=lambda item: float(item[0].mid()),
    )
    computed = code_table()
    code = [[_four_decimals(float(value)) for value in row] for row in computed]
    error = code_error(computed, balls)
    decided = all(text is not None for row in formula for text in row)
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
            f"{entries} agree. The float32 values are within {_digits(error, 3)} of the exact ones, and "
            f"the exact value nearest a rounding boundary, PE({p_close}, {j_close}), is "
            f"{_digits(margin, 3)} from it.",
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
        f"{j_close}) = {exact[p_close][j_close].digits}, is {_digits(margin, 3)} from a boundary), and the "
        f"float32 code, within {_digits(error, 3)} of the exact values, reproduces "
        f"{entries - len(against_code)} of them. Differences from the formula: "
        f"{_listed(against_formula, exact)}.",
    )


# ------------------------------------------------------------------------------------------------ D0.13


def table_total_variation() -> list[flint.arb]:
    """Σ_{p=0}^{6} |PE(p+1, j) − PE(p, j)| for each dim j of the document's table (ball arithmetic)."""
    with flint.ctx.workprec(BALL_BITS):
        rows = [Sinusoidal(TABLE_D).row_balls(p) for p in range(TABLE_POSITIONS)]
        return [
            sum((abs(after[j] - here[j]) for here, after in itertools.pairwise(rows)), flint.arb(0))
            for j in range(TABLE_D)
        ]


@claim(
    id="D0.13",
    source=CODE,
    statement="In that table dims 0 and 1 swing fast while dims 4 and 5 barely change over max_len = 8.",
    formal=r"TV_j = \sum_{p=0}^{6} |PE(p+1, j) - PE(p, j)|:\ TV_0, TV_1 > 2,\ TV_4, TV_5 < 0.02",
    expected=PROVED,
    depends_on=("D0.6", "D0.12"),
)
def d0_13() -> Assessment:
    variation = table_total_variation()
    swing = bool(variation[0] > 2 and variation[1] > 2)
    still = bool(variation[4] < flint.arb(2) / 100 and variation[5] < flint.arb(2) / 100)
    listed = ", ".join(_digits(v, 4) for v in variation)
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
        f"Over the 8 printed rows dims 0 and 1 travel {_digits(variation[0], 3)} and "
        f"{_digits(variation[1], 3)}, each more than the whole value range [−1, 1], while dims 4 and 5 move "
        f"only {_digits(variation[4], 3)} and {_digits(variation[5], 3)} in total, as D0.6's bound of ω_2 "
        "per step allows. The thresholds 2 and 0.02 are this catalog's reading of 'fast' and 'barely'.",
    )


# ------------------------------------------------------------------------------------------------ D0.14


def broadcast_example() -> tuple[tuple[int, ...], bool]:
    """The document's example in numpy: randn(2, 8, 6) + pe.unsqueeze(0); shape, and whether each sequence got
    the same pe added (bit for bit)."""
    token_embeddings = np.random.default_rng(0).standard_normal((2, 8, TABLE_D)).astype(np.float32)
    pe = common_code_encoding(TABLE_D, "float32").stored_rows(np.arange(8))
    x = token_embeddings + pe[None]
    return x.shape, all(np.array_equal(x[b], token_embeddings[b] + pe) for b in range(2))


@claim(
    id="D0.14",
    source=CODE,
    statement="Adding pe.unsqueeze(0), of shape [1, 8, 6], to token embeddings of shape [2, 8, 6] "
    "broadcasts over the batch and prints torch.Size([2, 8, 6]).",
    formal=r"[2, 8, 6] + [1, 8, 6] \to [2, 8, 6]",
    expected=PROVED,
    depends_on=("D0.2",),
)
def d0_14() -> Assessment:
    shape, same = broadcast_example()
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
    expected_argument=SOUND,
    depends_on=("D0.2",),
)
def d0_15() -> Assessment:
    evidence = (from_derivation("attention.absolute_pe_score"),)
    argument = (from_derivation("attention.absolute_pe_score", STEP_CHECKED),)
    return Assessment(
        evidence,
        "By bilinearity the score splits into content–content, content–position, position–content and "
        "position–position terms (SymPy, symbolic 4×4 matrices), so content and positions both enter, as "
        "the document says. Whether the position–position term is relative is a separate question (D0.15a).",
        argument,
    )


def position_term_counterexample() -> tuple[sp.Expr, sp.Expr]:
    """p_1 A p_0ᵀ and p_2 A p_1ᵀ at d = 6 with W_Q = W_K = E_00 (keep dim 0 only): two pairs at offset 1."""
    omegas = exact_frequencies(TABLE_D)
    keep_first = sp.zeros(TABLE_D, TABLE_D)
    keep_first[0, 0] = 1
    a = keep_first * keep_first.T

    def term(i: int, j: int) -> sp.Expr:
        query, key = sinusoidal_row(sp.Integer(i), omegas), sinusoidal_row(sp.Integer(j), omegas)
        return sp.simplify((query * a * key.T)[0])

    return term(1, 0), term(2, 1)


@claim(
    id="D0.15a",
    source=ATTENTION,
    statement="(The catalog's question to this section.) The position–position term p_i W_Q W_Kᵀ p_jᵀ of an "
    "absolute sinusoidal encoding depends only on i − j, whatever W_Q and W_K are.",
    formal=r"\forall W_Q, W_K:\ p_i W_Q W_K^\top p_j^\top = f(i - j)",
    expected=REFUTED,
    depends_on=("D0.9", "D0.15"),
    role=QUESTION,
)
def d0_15a() -> Assessment:
    first, second = position_term_counterexample()
    evidence = (
        Evidence(
            EXACT,
            "d = 6, W_Q = W_K = E_00 (so A = diag(1, 0, 0, 0, 0, 0)): p_1 A p_0ᵀ = "
            f"{sp.sstr(first)} but p_2 A p_1ᵀ = {sp.sstr(second)} ≈ {float(second):.7f}; same "
            "offset 1, different terms (SymPy).",
            bool(is_nonzero(first - second)),
            REFUTES,
        ),
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


@dataclass(frozen=True)
class PreviousTokenScores:
    """Scores PE(i − 1)·PE(j) of the previous-token head on a table: does each query peak at j = i − 1, and
    where is the smallest margin to a runner-up?"""

    peaks: bool
    margin: flint.arb
    query: int
    runner_up: int


def previous_token_scores() -> PreviousTokenScores:
    """d = 6, positions 0..7, W_Q the offset by −1 (PE(i) ↦ PE(i − 1)), W_K = I, in ball arithmetic: for every
    query i ≥ 1 the score of key j is largest exactly at j = i − 1."""
    with flint.ctx.workprec(BALL_BITS):
        rows = [Sinusoidal(TABLE_D).row_balls(p) for p in range(TABLE_POSITIONS)]
        omegas = frequencies_arb(TABLE_D, 10000, count=TABLE_D // 2)
        peaks, closest = True, None
        for i in range(1, TABLE_POSITIONS):
            query = _shift_back(rows[i], omegas)
            scores = [
                sum((q * k for q, k in zip(query, rows[j], strict=True)), flint.arb(0))
                for j in range(TABLE_POSITIONS)
            ]
            others = [j for j in range(TABLE_POSITIONS) if j != i - 1]
            peaks = peaks and all(bool(scores[i - 1] > scores[j]) for j in others)
            for j in others:
                gap = scores[i - 1] - scores[j]
                if closest is None or float(gap.mid()) < float(closest[0].mid()):
                    closest = (gap, i, j)
        return PreviousTokenScores(peaks, *closest)


def _shift_back(row: list[flint.arb], omegas: list[flint.arb]) -> list[flint.arb]:
    """M_(−1)·PE(i) = PE(i − 1), block by block: (sin, cos)(x) ↦ (sin, cos)(x − ω)."""
    shifted = []
    for index, omega in enumerate(omegas):
        sin_x, cos_x = row[2 * index], row[2 * index + 1]
        sin_w, cos_w = omega.sin_cos()
        shifted += [sin_x * cos_w - cos_x * sin_w, cos_x * cos_w + sin_x * sin_w]
    return shifted


@claim(
    id="D0.16",
    source=ATTENTION,
    statement="A head can attend strongly to the immediately preceding token (a diagonal attention "
    "pattern): there are linear maps W_Q, W_K whose position–position score peaks exactly at j = i − 1 for "
    "every i.",
    formal=r"A = W_Q W_K^\top = M_{-1}:\ p_i A p_j^\top = \sum_l \cos\big((i - 1 - j)\omega_l\big) \le "
    r"\tfrac{d}{2},\ \text{equality iff } j = i - 1",
    expected=PROVED,
    depends_on=("D0.8", "D0.15"),
)
def d0_16() -> Assessment:
    head = previous_token_scores()
    evidence = (
        from_derivation("attention.previous_token_head"),
        Evidence(
            CERTIFICATE,
            f"d = 6, positions 0–7, ball arithmetic ({BALL_BITS} bits): with W_Q the "
            "offset by −1 and W_K = I every query i ≥ 1 scores j = i − 1 highest (d/2 = "
            f"3); the closest runner-up is key {head.runner_up} for query {head.query}, "
            f"{_digits(head.margin, 6)} lower.",
            head.peaks,
        ),
    )
    offset = head.query - 1 - head.runner_up
    return Assessment(
        evidence,
        "Constructively yes: take W_Q the offset matrix for −1 (it maps PE(i) to PE(i − 1)) and W_K = I; "
        "then the score is Σ_l cos((i − 1 − j)ω_l), which equals d/2 at j = i − 1 and is smaller at every "
        "other integer j because cos n ≠ 1 for n ≠ 0 (SymPy). In the document's d = 6 table the smallest "
        f"margin is {_digits(head.margin, 4)} (query {head.query}, key {head.runner_up}: offset {offset}, "
        f"where cos({offset}) = {_libm(math.cos(offset), '.4f')} because {offset} is near a multiple of "
        "2π); scaling W_Q by c multiplies every margin by c, so the softmax can be made as sharp as wanted. "
        "That trained models form such heads is an empirical matter (D0.16a).",
    )


@claim(
    id="D0.16a",
    source=ATTENTION,
    statement="Attention maps of trained models show heads that follow the diagonal, attending to adjacent "
    "tokens.",
    formal=r"\text{(empirical)}",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.16",),
)
def d0_16a() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "Clark, Khandelwal, Levy & Manning, 'What Does BERT Look At?' (arXiv "
            "1906.04341), §3 (relative position): some BERT heads specialise in attending "
            "heavily to the next or the previous token, especially in early layers. Agrees "
            "with the document.",
            True,
        ),
    )
    return Assessment(
        evidence,
        "An observation about trained models; a published analysis of BERT's "
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


@claim(
    id="D0.17a",
    source=ROPE,
    statement="Recent decoder-only LLMs (the document names the Qwen and Llama families) use RoPE rather "
    "than adding position vectors to the input embeddings.",
    formal=r"\text{(model attribution)}",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.17",),
)
def d0_17a() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "Touvron et al., 'LLaMA' (arXiv 2302.13971), §2.2: the absolute positional "
            "embeddings are removed and rotary embeddings added at each layer; Bai et al., "
            "'Qwen Technical Report' (arXiv 2309.16609), §2.2: RoPE is chosen for positional "
            "information. Agrees with the document for these two families; how common RoPE "
            "is overall is not established by them.",
            True,
        ),
    )
    return Assessment(
        evidence,
        "Model attributions, checked against the models' papers: LLaMA and Qwen use "
        "RoPE in place of added absolute position embeddings.",
    )


# ------------------------------------------------------------------------------------------------ D0.18


def base_change_effect() -> bool:
    """SymPy, symbolic b' > b > 0, d > 0, i > 0: θ_i(b')/θ_i(b) = (b/b')^(2i/d) < 1 (and θ_0 = b⁰ = 1)."""
    b, d, i = sp.symbols("b d i", positive=True)
    growth = sp.Symbol("g", positive=True)
    larger = b * (1 + growth)
    ratio = sp.powsimp(frequency_expr(i, d, larger) / frequency_expr(i, d, b), force=True)
    return (
        sp.simplify(ratio - frequency_expr(i, d, 1 + growth)) == 0
        and sp.expand_log(sp.log(frequency_expr(i, d, 1 + growth)), force=True).is_negative is True
    )


@dataclass(frozen=True)
class Llama3Regimes:
    """How Llama 3's rule treats the pairs of one head: kept, blended or divided by s (certified)."""

    kept: tuple[int, ...]
    blended: tuple[int, ...]
    divided: tuple[int, ...]
    short_of_a_turn: tuple[int, ...]


def llama3_regimes(
    d: int = 128, base: int = 500000, context: int = 8192, low: int = 1, high: int = 4
) -> Llama3Regimes:
    """Wavelength λ_i = 2π·base^(2i/d) against L₀/high and L₀/low (ball arithmetic), and the pairs that do not
    complete one turn within L₀ (λ_i > L₀)."""
    with flint.ctx.workprec(BALL_BITS):
        two_pi = 2 * flint.arb.pi()
        lam = [two_pi * flint.arb(base) ** fraction_arb(-frequency_exponent(i, d)) for i in range(d // 2)]
        limits = (context // high, context // low, context)
        if any(not (x < limit or x > limit) for x in lam for limit in limits):
            raise ValueError("a wavelength cannot be compared with a threshold at this precision")
        kept = tuple(i for i, x in enumerate(lam) if x < context // high)
        divided = tuple(i for i, x in enumerate(lam) if x > context // low)
        blended = tuple(i for i in range(d // 2) if i not in kept and i not in divided)
        short = tuple(i for i, x in enumerate(lam) if x > context)
        return Llama3Regimes(kept, blended, divided, short)


def _span(indices: tuple[int, ...]) -> str:
    return f"{indices[0]}–{indices[-1]} ({len(indices)})" if indices else "none"


@claim(
    id="D0.18",
    source=ROPE,
    statement="RoPE settings such as rope_theta and rope_scaling decide the rotation frequencies, which is "
    "where context extension runs into positional encoding: rope_theta is the base b of θ_i = b^(−2i/d), "
    "and each rope_scaling type rescales some or all of the θ_i.",
    formal=r"\theta_i = b^{-2i/d};\ b \to b' > b:\ \theta_i'/\theta_i = (b/b')^{2i/d};\ \text{linear: } "
    r"\theta_i/s;\ \text{NTK: } b\,s^{d/(d-2)};\ \text{YaRN, Llama 3: by parts}",
    expected=PROVED,
    depends_on=("D0.17",),
)
def d0_18() -> Assessment:
    regimes = llama3_regimes()
    evidence = (
        Evidence(
            EXACT,
            "SymPy, symbolic b' = b(1 + g) > b, d, i > 0: raising rope_theta multiplies θ_i by "
            "(b/b')^(2i/d) < 1 and leaves θ_0 = 1.",
            base_change_effect(),
        ),
        from_derivation("scaling.linear"),
        from_derivation("scaling.ntk"),
        from_derivation("scaling.yarn_paper_ramp"),
        from_derivation("scaling.llama3"),
        Evidence(
            CERTIFICATE,
            "Llama 3.1's published settings (D0.18a: head dim 128, rope_theta 500000, "
            "factor 8, low/high_freq_factor 1/4, original context 8192), wavelengths "
            f"compared in ball arithmetic ({BALL_BITS} bits): pairs kept "
            f"{_span(regimes.kept)}, blended {_span(regimes.blended)}, divided by 8 "
            f"{_span(regimes.divided)}; the divided pairs are exactly those that do not "
            "complete one turn within the 8192 original positions "
            f"({_span(regimes.short_of_a_turn)}).",
            bool(regimes.kept and regimes.blended and regimes.divided == regimes.short_of_a_turn),
        ),
    )
    return Assessment(
        evidence,
        "Raising rope_theta keeps the fastest pair (θ_0 = 1) and slows every other pair, the slowest most; "
        "linear scaling divides every θ_i by s, NTK-aware scaling raises the base so θ_0 stays and the "
        "slowest pair is divided by exactly s, and YaRN and Llama 3 keep fast pairs, divide slow ones by s "
        f"and blend between (SymPy). With Llama 3.1's settings pairs {_span(regimes.kept)} are kept and "
        f"{_span(regimes.divided)} divided by 8; pairs {_span(regimes.short_of_a_turn)} never complete a "
        "turn within the original 8192 positions, so longer inputs would show them angles never seen in "
        "training — the problem these settings address.",
    )


@claim(
    id="D0.18a",
    source=ROPE,
    statement="Qwen and Llama models expose RoPE settings named rope_theta and rope_scaling in their "
    "configurations, used for context extension.",
    formal=r"\text{(model configuration)}",
    expected=CONFIRMED_BY_SOURCES,
    depends_on=("D0.18",),
)
def d0_18a() -> Assessment:
    evidence = (
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
    )
    return Assessment(
        evidence,
        "A fact about published model configurations: both families set rope_theta, "
        "and rope_scaling is how their context is extended.",
    )
