"""Document 003 (`003_4499b221b36b9134.txt`): uniqueness proofs for the sinusoidal encoding, and a survey of
relative encodings, RoPE, ALiBi and SeqPE with two comparison tables.

Every verdict below is computed from exact decisions (`pe_verify.proofs.uniqueness`), SymPy derivations,
dtype experiments, 50-digit and ball-arithmetic checks, or, for facts about papers and models, a citation of
the primary source. The document's examples use d = 512 and base 10000; so do the checks unless stated.
Numbers are printed as `claims.numbers` allows: exact, at a stated precision, or certified by an error bound.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

import mpmath
import sympy as sp

from pe_verify.proofs.alibi import slope_reach
from pe_verify.proofs.number_theory import (
    follows_period_formula,
    frequency_count,
    period,
    period_ratio,
    ratio_step,
    rational_ratio_pairs,
)
from pe_verify.proofs.uniqueness import (
    argument_failure_rule,
    argument_failures,
    coinciding_dim_pairs,
    dimension_collision,
    dims_with_exact_coincidence,
    document_argument_holds,
    frequency_collision,
)
from pe_verify.properties.analyses.finite_precision import (
    DTYPES,
    RoundedEquality,
    common_code_encoding,
    distinct_positions,
    find_duplicate_rows,
    neighbour_equality,
    rounded_equal_neighbours,
)
from pe_verify.properties.analyses.near_collision import (
    CONFIRMED,
    TIE,
    certify_cross_dimension_gap,
    gap_against_n,
)
from pe_verify.properties.analyses.separation import (
    Separation,
    beyond_longest_wavelength,
    certified_separation,
    offset_distance,
)
from pe_verify.properties.analyses.table_precision import float64_table_bounds, rows_at_position_collision
from pe_verify.properties.checks.exact_coincidence import (
    check_distinct,
    check_witnesses,
    intermediate_value_root,
    near_misses,
)
from pe_verify.properties.checks.extrapolation import angle_free_symbols, squared_norm_error, table_is_prefix
from pe_verify.properties.checks.linear_offset import check_dot_product_even
from pe_verify.properties.checks.operation_counts import (
    addition_operations,
    dense_operations,
    rotation_operations,
)
from pe_verify.properties.encodings.alibi import Alibi
from pe_verify.properties.encodings.relative import ClippedRelative, check_clipping, check_toeplitz
from pe_verify.properties.encodings.rope import Rope
from pe_verify.properties.encodings.sinusoidal import Sinusoidal
from pe_verify.properties.numerics.checking import EPS64, CheckResult

from . import catalog
from .evidence import from_check, from_derivation
from .model import (
    BACKGROUND,
    BEYOND_DOMAIN,
    CAVEAT,
    CERTIFICATE,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONTRADICTED_BY_SOURCES,
    CORROBORATES,
    DIGITS,
    EXACT,
    FINITE,
    FLAWED,
    FLOAT,
    KINDS,
    LIMITS,
    NOT_CHECKABLE,
    PROVED,
    REFUTED,
    REFUTES,
    SOURCES_DISAGREE,
    STEP_CHECKED,
    STEP_FAILS,
    SUPPORTS,
    UNSETTLED,
    Assessment,
    DocumentProof,
    Evidence,
    Source,
    cited,
    claim,
)
from .numbers import UNCERTIFIED, ball_digits, certified, exact_digits, is_certified, tex

DOC = "003_4499b221b36b9134.txt"

#: The document's three proofs (sections 3–5), each beside the theorems the suite proves in its place.
PROOFS = (
    DocumentProof("Proof 1: two positions' vectors", "D3.3", ("uniqueness.distinct_positions",)),
    DocumentProof(
        "Proof 2: one dimension, two positions",
        "D3.4",
        ("uniqueness.sine_dimension", "uniqueness.cosine_dimension"),
    ),
    DocumentProof("Proof 3: two dimensions, two positions", "D3.5", ("uniqueness.coincidence_condition",)),
)

#: The document's model width and base.
D_MODEL = 512
BASE = 10000

#: A base that is not a perfect power (500000 = 2^5·5^6, E = 1), used by recent RoPE models.
OTHER_BASE = 500000

#: The dims whose periods section 1 names.
RULER_DIMS = (0, 1, 510, 511)

#: The ratio argument is decided pair by pair for every d up to this.
ARGUMENT_SCAN = 1024

#: Positions 0…N−1 scanned for duplicate rows of the stored tables (float32 computation, stored in a dtype).
TABLE_POSITIONS = 65536

#: Storage dtypes of the tables, and the dtypes positions are held in.
STORED_DTYPES = ("float32", "float16", "bfloat16")
POSITION_DTYPES = tuple(DTYPES)

#: Positions 0…N−1 for the count of distinct position values and of unchanged neighbouring values.
POSITION_COUNT = 4096

#: Exact cross-dimension coincidences: the rule for every d up to DIM_SCAN, brute force up to BRUTE_SCAN.
DIM_SCAN, BRUTE_SCAN, OTHER_BASE_SCAN = 512, 64, 4096

#: The dimension without exact coincidences whose near collisions are measured, the ranges, the certificate.
NEAR_D, NEAR_NS, CERTIFIED_N, CERTIFIED_GAP = 6, (1000, 10000, 100000), 1000, 1e-9

#: The two sin dims of the document's intermediate-value argument (its C = sin 1 is PE(1, 0)).
ARGUMENT_DIMS = (0, 2)

#: The relative positions under test (Shaw et al. 2018: R[i, j] = clip(j − i, −k, k)), at k = 3, and the
#: (queries, keys) of the matrix checked.
RELATIVE = ClippedRelative(3)
RELATIVE_SHAPE = (7, 9)

#: The RoPE whose arithmetic is counted (a Rope for each d), and the model shape the counts are set against
#: (LLaMA-7B: d_model 4096, 32 layers, arXiv 2302.13971 Table 2; context 2048).
ROPE: Callable[[int], Rope] = functools.partial(Rope, layout="half_split")
MODEL_WIDTH, MODEL_LAYERS, MODEL_CONTEXT = 4096, 32, 2048

#: ALiBi heads and the distance at which the weight ratios are compared.
ALIBI_HEADS, ALIBI_DISTANCE = 8, 100


def _braced(values: Sequence[object], shown: int = 4) -> str:
    """{a, b, c} or, for long lists, {a, b, c, d, …, z}."""
    items = [str(v) for v in values]
    if len(items) > shown + 1:
        items = [*items[:shown], "…", items[-1]]
    return "{" + ", ".join(items) + "}"


def _rounded_down(value: Fraction, digits: int = 4) -> str:
    """A positive exact value rounded down to `digits` significant digits: a lower bound stays one."""
    with localcontext() as context:
        context.prec, context.rounding = digits, ROUND_FLOOR
        rounded = Decimal(value.numerator) / Decimal(value.denominator)
    return f"{float(rounded):.{digits - 1}e}"


def _mean_text(mean: float, spec: str) -> str:
    """A mean of integer counts (exact sum in float64, one rounding in the division), rounded by `spec`."""
    return certified(mean, mean * EPS64, spec)


def _printed_digits_certified(printed: RoundedEquality) -> bool:
    """Whether each value of the float64 table behind `printed` shows its exact value's own rounding: its
    a-priori error bound must fix all its printed decimals."""
    table, bounds = float64_table_bounds(Sinusoidal(printed.d, BASE), printed.n_positions)
    spec = f".{printed.decimals}f"
    return all(
        is_certified(value, bound, spec)
        for value, bound in zip(table.ravel().tolist(), bounds.ravel().tolist(), strict=True)
    )


# ---------------------------------------------------------------------------------------------------------
# 1.–2. Dimensions as rulers; vectors differ when one coordinate does
# ---------------------------------------------------------------------------------------------------------


@claim(
    id="D3.1",
    source=Source(DOC, "1. 차원은 한 row(행)에 대한 여러 column(열)이다"),
    statement="Each dimension measures position at its own scale: the low dimensions (0, 1) have short "
    "periods (a fine ruler that separates neighbouring tokens), the high ones (510, 511) long periods (a "
    "coarse ruler for distant tokens). Dims 2i and 2i+1 share the period 2π·10000^(2i/d); here d = 512.",
    formal=r"T_{2i} = T_{2i+1} = \frac{2\pi}{\omega_i} = 2\pi\cdot 10000^{2i/d},\qquad "
    r"T_0 = T_1 = 2\pi,\quad T_{510} = T_{511} = 2\pi\cdot 10000^{255/256}",
    expected=PROVED,
    why_ko="차원 0, 1은 2π마다, 차원 510, 511은 2π·10000^(255/256)마다 되풀이하고 주기는 주파수마다 같은 "
    "비율로 커짐을 정확히 계산했다(가장 굵은 자도 가장 가는 자의 10000배에 못 미친다).",
    depends_on=("D0.4",),
)
def d3_1() -> Assessment:
    periods = {dim: period(D_MODEL, BASE, dim) for dim in RULER_DIMS}
    formula = follows_period_formula(periods, D_MODEL, BASE)
    shared = periods[0] == periods[1] and periods[510] == periods[511]
    growth = period_ratio(D_MODEL, BASE, 0, 2)
    increasing = bool(growth > 1)
    spread = period_ratio(D_MODEL, BASE, 0, 510)
    values = {dim: exact_digits(periods[dim]) for dim in RULER_DIMS}
    evidence = (
        from_derivation("sinusoidal.frequency_order"),
        Evidence(
            EXACT,
            f"exact periods (SymPy): T_0 = T_1 = {tex(periods[0])} ≈ {values[0]}, T_510 = T_511 = "
            f"{tex(periods[510])} ≈ {values[510]}; each frequency's period is {tex(growth)} "
            "times the previous one (> 1), so the periods grow strictly from dims 0–1 to dims 510–511",
            formula and shared and increasing,
            CORROBORATES,
            tuple((f"T_{dim}", f"{tex(periods[dim])} ≈ {values[dim]}") for dim in RULER_DIMS),
            instances="d = 512, dims 0, 1, 510, 511",
        ),
    )
    explanation = (
        f"Proved exactly: dims 0 and 1 repeat every 2π ≈ {values[0]} positions, dims 510 and 511 every "
        f"{tex(periods[510])} ≈ {values[510]} positions, and the periods grow by the factor "
        f"{tex(growth)} from one frequency to the next. The coarsest ruler is only {tex(spread)} ≈ "
        f"{exact_digits(spread)} times the finest (a millimetre-to-kilometre ruler would be 10^6 times)."
    )
    return Assessment(evidence, explanation)


@claim(
    id="D3.2",
    source=Source(DOC, "2. Position Encoding으로 만들어진 두 벡터는 완전히 같은 벡터만 아니면 된다"),
    statement="To give every position its own address it suffices that the two vectors differ as vectors: "
    "one differing coordinate out of 512 is enough, not all need to differ.",
    formal=r"PE(p_1) \neq PE(p_2) \iff \exists j:\ PE(p_1, j) \neq PE(p_2, j)",
    expected=PROVED,
    why_ko="벡터가 같다는 정의 그대로, 좌표 하나만 달라도 제곱 거리가 양수가 되어 두 벡터는 다르다.",
)
def d3_2() -> Assessment:
    evidence = (from_derivation("uniqueness.one_coordinate"),)
    explanation = (
        "Proved (it is what vector equality means): a single differing coordinate makes the squared "
        "distance positive whatever the other coordinates do. For the exact encoding at non-negative "
        "integer positions, in fact every coordinate differs (D3.4); in low precision many coincide (D3.4) "
        "while rows computed from exact positions stay distinct (D3.3b)."
    )
    return Assessment(evidence, explanation)


# ---------------------------------------------------------------------------------------------------------
# 3. Proof 1: whole vectors, and the floating-point note
# ---------------------------------------------------------------------------------------------------------


#: Offsets below SEPARATION_OFFSETS over which D3.3's least distances are certified, at the d = 6 of
#: document 000's table and at D_MODEL.
SEPARATION_OFFSETS = 2**24
TABLE_D = 6


def _separation_evidence() -> tuple[Evidence, Evidence]:
    """How close two different positions below 2^24 come: over all offsets at the table's d = 6, and at
    d = 512 beyond one longest wavelength (`pe-verify separation`)."""
    power = f"2^{SEPARATION_OFFSETS.bit_length() - 1}"
    table = certified_separation(Sinusoidal(TABLE_D), SEPARATION_OFFSETS)
    wide = Sinusoidal(D_MODEL)
    beyond = beyond_longest_wavelength(wide)
    far = certified_separation(wide, SEPARATION_OFFSETS, beyond)
    method = (
        "certified for every offset of the range: exact 128-bit turn positions, interval bounds and float32 "
        "screens with stated error terms, the last candidates in ball arithmetic at 50 digits"
    )
    return (
        Evidence(
            CERTIFICATE,
            f"d = {TABLE_D}: no two different positions below {power} are closer than "
            f"{ball_digits(table.minimum, 12)}, attained at offset k = {_offsets(table)} ({method}).",
            table.certified and table.minimum > 0,
            CORROBORATES,
            instances=f"d = {TABLE_D}, 1 ≤ k < {power}",
        ),
        Evidence(
            CERTIFICATE,
            f"d = {D_MODEL}: beyond one longest wavelength ({beyond} ≤ k < {power}) the closest two "
            f"positions come is {ball_digits(far.minimum, 12)}, at offset k = {_offsets(far)}, against "
            f"{ball_digits(offset_distance(wide, 1, 128), 6)} for k = 1 ({method}).",
            far.certified and far.minimum > 0,
            CORROBORATES,
            instances=f"d = {D_MODEL}, {beyond} ≤ k < {power}",
        ),
    )


def _offsets(found: Separation) -> str:
    return ", ".join(str(k) for k in found.argmin_offsets)


@claim(
    id="D3.3",
    source=Source(DOC, "3. [증명 1] Position Encoding 증명: 두 위치의 벡터가 같은가?"),
    statement="Two different integer positions never get the same encoding vector. The document argues by "
    "contradiction: equal vectors force k·ω_i = 2π·n_i in every dimension (k = p2 − p1 ≠ 0), so for two "
    "dims n_j/n_i = ω_j/ω_i; the left side is rational, the right side a power of an integer with a rational "
    "exponent, 'which is generally irrational'.",
    formal=r"p_1 \neq p_2 \implies PE(p_1) \neq PE(p_2);\quad \text{argument: } "
    r"\frac{n_j}{n_i} = \frac{\omega_j}{\omega_i} = 10000^{2(i-j)/d} \notin \mathbb{Q}",
    expected=PROVED,
    why_ko="결론은 다른 길로 모든 d ≥ 1에서 증명되지만(차원 0, 1이 같으려면 p1 − p2 ∈ 2πℤ여야 한다), 글의 "
    "비율 논증은 밑이 10000일 때 d ∈ {1, 2, 3, 4, 8}에서 통하지 않고 '대체로 무리수'도 증명하지 않는다.",
    expected_argument=CONDITIONS,
)
def d3_3() -> Assessment:
    failures = argument_failures(BASE, ARGUMENT_SCAN)
    predicted = tuple(d for d in argument_failure_rule(BASE) if d <= ARGUMENT_SCAN)
    at_model = document_argument_holds(D_MODEL, BASE)
    rational_pairs = rational_ratio_pairs(D_MODEL, BASE)
    pairs_total = math.comb(frequency_count(D_MODEL), 2)
    ratios = sorted({ratio for _, _, ratio in rational_pairs})
    evidence = (from_derivation("uniqueness.distinct_positions"), *_separation_evidence())
    argument = (
        from_derivation("uniqueness.ratio_argument", STEP_CHECKED),
        Evidence(
            EXACT,
            f"at d = {D_MODEL} the contradiction is reached with the frequencies {at_model.pair}: "
            f"{at_model.reason}",
            at_model.holds,
            STEP_CHECKED,
        ),
        Evidence(
            EXACT,
            f"with base {BASE} the argument finds no pair with an irrational ratio for d ∈ "
            f"{_braced(failures)} (every d ≤ {ARGUMENT_SCAN} decided pair by pair; the rule 'd divides "
            f"2E, or d = 3' predicts {_braced(predicted)}): it needs d outside that set, which it does "
            "not say",
            bool(failures),
            CONDITION_MISSING,
            tuple((f"d = {d}", document_argument_holds(d, BASE).reason) for d in failures),
        ),
        Evidence(
            EXACT,
            f"'generally irrational' does not hold for every pair: at d = {D_MODEL}, "
            f"{len(rational_pairs)} of the {pairs_total} frequency pairs (j − i a multiple of "
            f"{ratio_step(D_MODEL, BASE)}) have the rational ratio ω_i/ω_j ∈ {_braced(ratios)}; the "
            "argument must pick a pair with an irrational ratio and prove it irrational",
            bool(rational_pairs),
            CONDITION_MISSING,
        ),
    )
    explanation = (
        "The conclusion is proved for every d ≥ 1 by another route: ω_0 = 1, so dims 0 and 1 agree only if "
        "p1 − p2 ∈ 2πℤ, impossible for a nonzero integer (π is irrational). The ratio argument holds at "
        f"d = {D_MODEL} ({at_model.reason}) but only under unstated conditions: at base {BASE} it finds "
        f"nothing for d ∈ {_braced(failures)}, and even at d = {D_MODEL} {len(rational_pairs)} pairs have "
        f"rational ratios {_braced(ratios)}; 'generally irrational' is asserted, never proved."
    )
    return Assessment(evidence, explanation, argument)


@claim(
    id="D3.3b",
    source=Source(DOC, "3. [증명 1] Position Encoding 증명: 두 위치의 벡터가 같은가?"),
    statement="With approximate (floating-point) values two positions may get equal vectors, but only with "
    "extremely low probability.",
    formal=r"\mathrm{fl}(PE(p_1)) = \mathrm{fl}(PE(p_2)),\ p_1 \neq p_2:\ \text{rare}",
    expected=CAVEAT,
    why_ko="위치가 정확한 정수일 때에만 드물다: 위치 자체를 bfloat16이나 float16에 담으면 어느 위치부터는 "
    "같은 행이 반드시 생긴다.",
    depends_on=("D3.3",),
)
def d3_3b() -> Assessment:
    tables = {
        dtype: find_duplicate_rows(common_code_encoding(D_MODEL, dtype), TABLE_POSITIONS)
        for dtype in STORED_DTYPES
    }
    collisions = {
        dtype: rows_at_position_collision(common_code_encoding(D_MODEL, dtype, positions_in_dtype=True))
        for dtype in POSITION_DTYPES
    }
    distinct = {dtype: distinct_positions(dtype, POSITION_COUNT).distinct for dtype in POSITION_DTYPES}
    shown = ", ".join(f"{collisions[dtype][0]} ({dtype})" for dtype in POSITION_DTYPES)
    evidence = (
        Evidence(
            FLOAT,
            "tables computed in float32 from exact integer positions (the common PyTorch code, with "
            f"correctly rounded exp, sin and cos) and stored in {', '.join(STORED_DTYPES)}: no row among "
            f"positions 0…{TABLE_POSITIONS - 1} equals another (d = {D_MODEL}; rows hashed, candidates "
            "compared bit for bit)",
            all(table.first_duplicate is None for table in tables.values()),
            SUPPORTS,
            tuple((dtype, f"{table.duplicate_rows} duplicate rows") for dtype, table in tables.items()),
        ),
        Evidence(
            FLOAT,
            f"positions held in the dtype: p + 1 rounds onto p = 2^(m+1), so the two rows are identical "
            f"with certainty — first at p = {shown}; among positions 0…{POSITION_COUNT - 1} only "
            f"{distinct['bfloat16']} distinct values remain in bfloat16 and {distinct['float16']} in float16",
            all(equal and agrees for _, _, equal, agrees in collisions.values()),
            LIMITS,
            tuple(
                (
                    dtype,
                    f"rows of {p} and {p + 1} identical: {equal} (both stored as {stored:g}); "
                    f"distinct positions below {POSITION_COUNT}: {distinct[dtype]}",
                )
                for dtype, (p, stored, equal, _) in collisions.items()
            ),
        ),
    )
    explanation = (
        f"Rare only when positions are exact integers: tables computed in float32 and stored in float32, "
        f"float16 or bfloat16 have no two equal rows among the first {TABLE_POSITIONS} positions (d = "
        f"{D_MODEL}). Once the positions themselves are held in the dtype, equal rows are certain, not "
        f"improbable: from {collisions['bfloat16'][0]} on in bfloat16 and {collisions['float16'][0]} in "
        f"float16 (2^(m+1), m the mantissa width), and only {distinct['bfloat16']} of the first "
        f"{POSITION_COUNT} positions stay distinct in bfloat16."
    )
    return Assessment(evidence, explanation)


# ---------------------------------------------------------------------------------------------------------
# 4. Proof 2: one dimension
# ---------------------------------------------------------------------------------------------------------

#: The cos dimension whose repeated value over all integers is exhibited.
COS_DIM = 1


@claim(
    id="D3.4",
    source=Source(DOC, "4. [증명 2] 다른 포지션 - 같은 차원 값의 일치 여부"),
    statement="Within one dimension j two different positions never share a value, PE(p1, j) ≠ PE(p2, j). "
    "The document's proof: equality needs k/w_j = 2πn (case 1) or, by the symmetry of the sine, 2·p1 + k "
    "= a term containing π (case 2); an integer cannot equal an irrational number.",
    formal=r"p_1 \neq p_2 \implies PE(p_1, j) \neq PE(p_2, j)",
    expected=PROVED,
    why_ko="음이 아닌 정수 위치에서 sin 차원도 cos 차원도 값을 되풀이하지 않음은 증명되지만, 글의 증명은 "
    "sin만 다루고, 음이 아닌 위치에서 곧바로 닫히는 cos 차원의 경우를 말하지 않았다(틀린 것이 아니라 "
    "빠진 것).",
    expected_argument=CONDITIONS,
)
def d3_4() -> Assessment:
    cos_dim = dimension_collision(D_MODEL, BASE, COS_DIM, allow_negative=True)
    printed = rounded_equal_neighbours()
    stored = neighbour_equality(common_code_encoding(D_MODEL, "bfloat16"), POSITION_COUNT)
    rational_pi = frequency_collision(sp.pi / 3, "sin")
    irrational_pi = frequency_collision(sp.pi * sp.sqrt(2), "sin")
    shown_position, shown_dim, shown_text = printed.pairs[0]
    digits = "" if _printed_digits_certified(printed) else f" ({UNCERTIFIED}: float error may change them)"
    evidence = (
        from_derivation("uniqueness.sine_dimension"),
        from_derivation("uniqueness.cosine_dimension"),
        Evidence(
            EXACT,
            f"over all integers a cos dimension repeats: {cos_dim.reason} — witness {cos_dim.witness} "
            f"(dim {COS_DIM}, d = {D_MODEL}); relative schemes use such negative offsets",
            cos_dim.collides,
            BEYOND_DOMAIN,
        ),
        Evidence(
            FLOAT,
            f"finite precision: document 000's table (d = {printed.d}, positions "
            f"0–{printed.n_positions - 1}, {printed.decimals} decimals) prints {printed.count} equal "
            f"neighbouring values, e.g. dim {shown_dim} shows {shown_text} at positions {shown_position} "
            f"and {shown_position + 1}{digits}",
            printed.count > 0,
            BEYOND_DOMAIN,
            tuple((f"positions {a}, {a + 1}, dim {j}", text) for a, j, text in printed.pairs),
        ),
        Evidence(
            FLOAT,
            f"stored in bfloat16 (float32 computation, d = {D_MODEL}, positions < {POSITION_COUNT}), on "
            f"average {_mean_text(stored.mean_equal_dims, '.1f')} of the {D_MODEL} dims keep their value "
            f"from p to p + 1 (up to {stored.max_equal_dims})",
            stored.mean_equal_dims > 0,
            BEYOND_DOMAIN,
        ),
    )
    pi_condition = from_derivation("uniqueness.pi_side_condition", CONDITION_MISSING)
    argument = (
        from_derivation("uniqueness.sine_dimension", STEP_CHECKED),
        Evidence(
            EXACT,
            "incomplete: its symmetric case is written for the sine only; for a cos dimension it is "
            "(p1 + p2)·ω = 2πn, and n = 0 gives the integer equation p1 + p2 = 0, with no π in it — solved "
            f"by {cos_dim.witness} over the integers; over non-negative positions it forces p1 = p2 = 0 at "
            "once, a step the proof leaves out",
            cos_dim.collides,
            CONDITION_MISSING,
            (("derivation", "uniqueness.cosine_dimension"),),
        ),
        replace(
            pi_condition,
            holds=pi_condition.holds and rational_pi.collides and not irrational_pi.collides,
            detail=(
                *pi_condition.detail,
                ("ω = π/3", f"a sin dimension repeats: {rational_pi.reason}; e.g. {rational_pi.witness}"),
                ("ω = π√2", "transcendental but ω/π irrational: it never repeats"),
            ),
        ),
    )
    explanation = (
        "Proved on the document's domain, token positions (non-negative integers) and exact values: a sin "
        "dimension never repeats a value over the integers, a cos dimension never over non-negative "
        "positions. Beyond that domain, and not held against the claim: a cos dimension repeats at "
        f"(p, −p), e.g. {cos_dim.witness}, which the negative offsets of relative schemes reach; and at "
        f"finite precision values repeat (document 000's printed table shows {printed.count} equal "
        f"neighbours; in bfloat16 {_mean_text(stored.mean_equal_dims, '.0f')} of {D_MODEL} dims keep their "
        "value per step). The proof is incomplete, not wrong: its case 2 is written for sines only, and the "
        "cos case n = 0, where no π appears, closes at once on non-negative positions but is never said; "
        "and 'contains π' needs ω_j/π ∉ ℚ, unstated (true here: ω_j is algebraic)."
    )
    return Assessment(evidence, explanation, argument)


# ---------------------------------------------------------------------------------------------------------
# 5. Proof 3: two dimensions
# ---------------------------------------------------------------------------------------------------------


def _differ(result: CheckResult) -> str:
    """'PE(p1, j1) and PE(p2, j2) differ by g', every part from the one witness of a `check_distinct`."""
    p1, dim1, p2, dim2 = result.witness["pair"]
    return f"PE({p1}, {dim1}) and PE({p2}, {dim2}) differ by {result.witness['difference']}"


@claim(
    id="D3.5",
    source=Source(DOC, "5. [증명 3] 다른 포지션 - 다른 차원 값의 일치 여부"),
    statement="Values at different positions and different dimensions can coincide: PE(p1, j) = PE(p2, k) "
    "for some p1 ≠ p2, j ≠ k. The document's argument: C = sin(1) ≈ 0.841 is a value of dim 0; by the "
    "intermediate value theorem sin(w_k·y) = C has a real solution y0; the nearest integer to y0 gives a "
    "value very close to C; 'therefore the values can be equal'.",
    formal=r"\exists\, p_1 \neq p_2,\ j \neq k:\ PE(p_1, j) = PE(p_2, k)",
    expected=CAVEAT,
    why_ko="d = 512에서는 PE(1, 0) = sin 1 = PE(10, 128)처럼 정확한 일치가 있지만 밑이 10000일 때 4의 "
    "배수가 아닌 d에서는 없고, 중간값 정리와 반올림으로는 근접만 보일 뿐 일치를 보이지 못한다.",
    expected_argument=FLAWED,
)
def d3_5() -> Assessment:
    coinciding = coinciding_dim_pairs(D_MODEL, BASE)
    witnesses = [tuple(verdict.witness) for verdict in coinciding]
    confirmed = check_witnesses(Sinusoidal(D_MODEL, BASE), witnesses)
    ratios = sorted({verdict.ratio for verdict in coinciding})
    with_exact = dims_with_exact_coincidence(BASE, DIM_SCAN)
    brute = dims_with_exact_coincidence(BASE, BRUTE_SCAN, brute_force=True)
    agrees = brute == dims_with_exact_coincidence(BASE, BRUTE_SCAN)
    other_base = dims_with_exact_coincidence(OTHER_BASE, OTHER_BASE_SCAN)
    rows = gap_against_n(Sinusoidal(NEAR_D, BASE), NEAR_NS)
    gaps = [row.nearest.nearest.gap for row in rows]
    shrinking = all(0 < later < earlier for earlier, later in itertools.pairwise(gaps))
    certificate = certify_cross_dimension_gap(Sinusoidal(NEAR_D, BASE), CERTIFIED_N, delta=CERTIFIED_GAP)
    root, residual = intermediate_value_root(Sinusoidal(NEAR_D, BASE), ARGUMENT_DIMS[1])
    misses = near_misses(NEAR_D, BASE, *ARGUMENT_DIMS)
    apart = check_distinct(Sinusoidal(NEAR_D, BASE), misses)
    own = check_distinct(Sinusoidal(NEAR_D, BASE), misses[:1])
    first = coinciding[0].witness
    evidence = (
        from_derivation("uniqueness.same_type_coincidence"),
        Evidence(
            EXACT,
            f"d = {D_MODEL}, base {BASE}: {len(coinciding)} dim pairs coincide exactly (same type, "
            f"frequencies a multiple of {ratio_step(D_MODEL, BASE)} apart, ω_b/ω_a ∈ {_braced(ratios)}), "
            f"e.g. PE({first.p1}, {first.dim1}) = PE({first.p2}, {first.dim2})",
            bool(coinciding),
        ),
        from_check(
            confirmed, DIGITS, f"all {len(witnesses)} witnesses agree to all digits (mpmath, 50 digits)"
        ),
        from_derivation("uniqueness.sine_cosine_never", LIMITS),
        from_derivation("uniqueness.coincidence_condition", LIMITS),
        Evidence(
            EXACT,
            f"at base {BASE} an exact coincidence exists only for d ∈ {_braced(with_exact)} "
            f"({len(with_exact)} of d ≤ {DIM_SCAN}, by the rule d/gcd(d, 2E) ≤ ⌈d/2⌉ − 1; pair by pair "
            f"for d ≤ {BRUTE_SCAN} the same) — not for d = {NEAR_D}",
            NEAR_D not in with_exact and agrees,
            LIMITS,
        ),
        Evidence(
            EXACT,
            f"with base {OTHER_BASE} (not a perfect power) no d ≤ {OTHER_BASE_SCAN} has an exact "
            f"cross-dimension coincidence",
            not other_base,
            LIMITS,
        ),
        Evidence(
            DIGITS,
            f"d = {NEAR_D}: the nearest values in different dims over positions < N come ever closer — "
            + ", ".join(f"{mpmath.nstr(gap, 3)} (N = {row.n})" for gap, row in zip(gaps, rows, strict=True))
            + " (sort-based scan, re-ranked at 50 digits) — close, never equal",
            shrinking and all(row.nearest.evidence in (CONFIRMED, TIE) for row in rows),
            SUPPORTS,
            tuple(
                (
                    f"N = {row.n}",
                    f"{row.nearest.nearest.first} vs {row.nearest.nearest.second}: "
                    f"{mpmath.nstr(row.nearest.nearest.gap, 6)}; arcsine model {row.predicted:.2e}",
                )
                for row in rows
            ),
        ),
        Evidence(
            CERTIFICATE,
            f"d = {NEAR_D}, ball arithmetic: every two values in different dims at different positions < "
            f"{CERTIFIED_N} differ by at least {_rounded_down(certificate.lower_bound)}",
            certificate.holds,
            LIMITS,
            (("statement", certificate.statement),),
        ),
    )
    argument = (
        Evidence(
            DIGITS,
            f"intermediate value step: at d = {NEAR_D}, sin(ω_{ARGUMENT_DIMS[1] // 2}·y) = sin 1 at the "
            f"real y0 = {mpmath.nstr(root, 12)} (residual {mpmath.nstr(residual, 3)} at 50 digits)",
            residual < mpmath.mpf(10) ** -45,
            STEP_CHECKED,
        ),
        from_check(
            apart,
            DIGITS,
            f"rounding y0 gives near-equality only: at d = {NEAR_D}, {_differ(own)}, and the closest of the "
            f"first {len(misses)} such roundings, {_differ(apart)} (50 digits); 'very close, therefore "
            "equal' does not follow",
            STEP_FAILS,
        ),
    )
    explanation = (
        f"True for the document's d = {D_MODEL}: exact coincidences exist, e.g. PE({first.p1}, "
        f"{first.dim1}) = sin 1 = PE({first.p2}, {first.dim2}) because "
        f"ω_{first.dim2 // 2}/ω_{first.dim1 // 2} = {coinciding[0].ratio}; all {len(witnesses)} witnesses "
        f"agree to 50 digits. But never for a sin–cos pair, never for d = {NEAR_D} or any d outside "
        f"{_braced(with_exact)} at base {BASE}, never at base {OTHER_BASE}; there values only come close "
        f"(at d = {NEAR_D}, base {BASE}: {mpmath.nstr(gaps[-1], 3)} over positions below {rows[-1].n}). The "
        "argument is flawed: the intermediate value "
        "theorem plus rounding shows near-equality, never equality."
    )
    return Assessment(evidence, explanation, argument)


# ---------------------------------------------------------------------------------------------------------
# Survey: sinusoidal
# ---------------------------------------------------------------------------------------------------------

FAR_POSITION = 10**12
TABLE_LENGTHS = (256, 1024)


@claim(
    id="D3.6",
    source=Source(DOC, "1. Sinusoidal Positional Encoding (Transformer, 2017)"),
    statement="The sinusoidal encoding has no learned parameters and can be applied to contexts longer than "
    "any seen in training: it extrapolates.",
    formal=r"PE(p, 2i) = \sin(p\,\omega_i),\ PE(p, 2i+1) = \cos(p\,\omega_i)\ \text{defined for every } p",
    expected=CAVEAT,
    why_ko="매개변수가 없고 모든 위치에서 정의된다는 것은 증명되지만, 그것으로 학습한 모델은 학습 길이를 "
    "넘으면 성능이 떨어지므로 '외삽'은 그 뜻으로만 맞다.",
)
def d3_6() -> Assessment:
    p = sp.Symbol("p", integer=True)
    encoding = Sinusoidal(D_MODEL, BASE)
    free = angle_free_symbols(encoding, p)
    prefix = table_is_prefix(encoding, *TABLE_LENGTHS)
    norm_error = squared_norm_error(encoding, FAR_POSITION)
    evidence = (
        Evidence(
            EXACT,
            f"every entry of the d = {D_MODEL} encoding is sin or cos of p·ω_i with exact numbers ω_i: "
            f"the only free symbol is the position, {sorted(map(str, free))}",
            free == {p},
        ),
        Evidence(
            FLOAT,
            f"the float64 table for {TABLE_LENGTHS[0]} positions is, bit for bit, the first "
            f"{TABLE_LENGTHS[0]} rows of the table for {TABLE_LENGTHS[1]}: nothing depends on a maximum "
            "length",
            prefix,
        ),
        Evidence(
            DIGITS,
            f"at position {FAR_POSITION:.0e} the encoding exists and keeps ‖PE‖² = d/2 = {D_MODEL // 2} "
            f"(mpmath, 50 digits: error {mpmath.nstr(norm_error, 3)})",
            norm_error < mpmath.mpf(10) ** -40,
        ),
        Evidence(
            CITATION,
            "Press, Smith & Lewis 2022 (arXiv 2108.12409, Figure 1): language models trained with "
            "sinusoidal position embeddings at L = 512 or 1024 tokens degrade in perplexity as the input "
            "grows beyond L — defined values do not make the model extrapolate",
            True,
            LIMITS,
        ),
    )
    explanation = (
        "The encoding is parameter-free and defined at every position (proved: its only free symbol is "
        f"the position; at p = {FAR_POSITION:.0e} its norm² is still d/2 to 50 digits). 'Extrapolates' "
        "holds only in that sense: a model trained with it degrades beyond its training length (Press et "
        "al. 2022, Fig. 1); Vaswani et al. 2017 §3.5 only hoped it 'may allow the model to extrapolate'."
    )
    return Assessment(evidence, explanation)


d3_6b = cited(
    id="D3.6b",
    source=Source(DOC, "1. Sinusoidal Positional Encoding (Transformer, 2017)"),
    statement="The sinusoidal encoding's expressiveness is simple, which makes complex structure hard to "
    "learn.",
    formal=r"\text{empirical: not a mathematical statement}",
    expected=NOT_CHECKABLE,
    why_ko="'표현력'이 정의되지 않았고, 인용한 비교도 양쪽을 가리킨다(Shaw 외 2018에서는 상대 위치 표현이 "
    "앞서고, Vaswani 외 2017에서는 학습 임베딩과 대등했다).",
    sources=(
        Evidence(
            CITATION,
            "Shaw, Uszkoreit & Vaswani 2018 (arXiv 1803.02155, abstract): replacing the "
            "sinusoidal absolute encoding by relative position representations improved BLEU by 1.3 "
            "(WMT14 EN–DE) and 0.3 (EN–FR) — consistent with a limitation; but Vaswani et al. 2017 (arXiv "
            "1706.03762 §3.5, Table 3 row E) found learned embeddings 'nearly identical' to sinusoidal",
            True,
            BACKGROUND,
        ),
    ),
    explanation="Not checkable: 'expressiveness' is not defined, and the published comparisons point "
    "both ways "
    "(relative representations beat sinusoidal by 1.3/0.3 BLEU in Shaw et al. 2018; learned and "
    "sinusoidal encodings tie in Vaswani et al. 2017).",
)


DOT_POSITIONS, DOT_OFFSETS = (0, 3, 17, 250), (1, 2, 5, 40, 333)


@claim(
    id="D3.7",
    source=Source(DOC, "1. Sinusoidal Positional Encoding (Transformer, 2017)"),
    statement="In self-attention the dot product naturally reflects the relative position difference between "
    "tokens.",
    formal=r"PE(p)\cdot PE(q) = \textstyle\sum_i \cos\big((p - q)\,\omega_i\big)",
    expected=CAVEAT,
    why_ko="PE(p)·PE(q)는 p − q에만 달려 있지만 짝함수라 앞뒤를 못 가리고, attention 점수의 위치–위치 항은 "
    "W_Q W_Kᵀ에 따라 절대 위치가 섞일 수 있다.",
    depends_on=("D0.9", "D0.15"),
)
def d3_7() -> Assessment:
    even = check_dot_product_even(Sinusoidal(D_MODEL, BASE), DOT_POSITIONS, DOT_OFFSETS)
    evidence = (
        from_derivation("sinusoidal.dot_product"),
        from_derivation("attention.absolute_pe_score", LIMITS),
        from_check(
            even,
            FLOAT,
            f"the dot product is even in p − q (float64, d = {D_MODEL}, anchors {DOT_POSITIONS}, offsets "
            f"±{DOT_OFFSETS}): it reflects the distance |p − q|, not which token comes first",
            LIMITS,
        ),
    )
    explanation = (
        "True of the encodings themselves: PE(p)·PE(q) = Σ_i cos((p − q)ω_i) depends on p − q only "
        "(proved), but it is even, so it cannot tell before from after. Inside attention the score (e_i + "
        "p_i)W_Q W_Kᵀ(e_j + p_j)ᵀ has four terms, and its position–position term is a function of i − j "
        "only when W_Q W_Kᵀ commutes with the offset rotations — for A = diag(1, 0) it is not (D0.15)."
    )
    return Assessment(evidence, explanation)


# ---------------------------------------------------------------------------------------------------------
# Survey: relative encodings
# ---------------------------------------------------------------------------------------------------------


@claim(
    id="D3.8",
    source=Source(DOC, "2. Relative Position Encoding (2018~2019)"),
    statement="Relative position encodings (Shaw et al. 2018; Transformer-XL) encode the distance between "
    "tokens instead of absolute positions: each query–key pair's offset selects a relative embedding that "
    "enters the attention score.",
    formal=r"e_{ij} = \frac{x_i W^Q (x_j W^K + a_{ij})^\top}{\sqrt{d_z}},\ "
    r"a_{ij} = w_{\mathrm{clip}(j-i,-k,k)};"
    r"\quad A^{\mathrm{rel}}_{ij} = E_i^\top W_q^\top W_{k,E} E_j + E_i^\top W_q^\top W_{k,R} R_{i-j} "
    r"+ u^\top W_{k,E} E_j + v^\top W_{k,R} R_{i-j}",
    expected=PROVED,
    why_ko="Shaw 외의 색인 clip(j − i, −k, k)와 Transformer-XL의 점수가 위치를 offset으로만 봄을, 기호 "
    "정수 위치에서 모든 차원에 대해 증명했다.",
)
def d3_8() -> Assessment:
    (n_q, n_k), k = RELATIVE_SHAPE, RELATIVE.max_distance
    clipping = check_clipping(RELATIVE, n_q, n_k)
    toeplitz = check_toeplitz(RELATIVE, n_q, n_k)
    evidence = (
        from_derivation("relative.clipped_offset"),
        from_check(
            clipping,
            EXACT,
            f"Shaw et al.: the relative index of query i and key j is clip(j − i, −{k}, {k}), entry by "
            f"entry for a {n_q}×{n_k} matrix (integers)",
            CORROBORATES,
        ),
        from_check(
            toeplitz, EXACT, "it depends on j − i only: R[i + 1, j + 1] = R[i, j] (integers)", CORROBORATES
        ),
        from_derivation("relative.transformer_xl_four_terms"),
        from_derivation("relative.transformer_xl_offset"),
    )
    explanation = (
        "Proved for both schemes, for symbolic integer positions and in every dimension: Shaw et al.'s "
        "index clip(j − i, −k, k) depends on the offset only (the document writes i − j; the sign is a "
        f"convention) and takes the 2k + 1 values −k, …, k (checked entry by entry at k = {k}), and "
        "Transformer-XL's four-term score sees positions only through R_{i−j}. The stated advantages "
        "(generalisation over context length, repeated patterns) and the implementation cost are empirical "
        "and not checked here."
    )
    return Assessment(evidence, explanation)


d3_8b = cited(
    id="D3.8b",
    source=Source(DOC, "2. Relative Position Encoding (2018~2019)"),
    statement="Relative position encodings generalise better over the context length and are strong at "
    "learning repeated patterns and dependency structure in long contexts; their cost is a more complex "
    "implementation.",
    formal=r"\text{empirical: published evaluations}",
    expected=SOURCES_DISAGREE,
    why_ko="Transformer-XL은 더 긴 의존성을 쓰는 데 도움을 받았지만 T5의 상대 편향은 학습 길이를 넘으면 "
    "나빠지고, '반복 패턴'을 시험한 출처는 찾지 못했다.",
    depends_on=("D3.8",),
    sources=(
        Evidence(
            CITATION,
            "Dai et al. 2019 (Transformer-XL, arXiv 1901.02860, abstract): with segment recurrence and its "
            "relative encoding (without which the reused states would be confused about position), the model "
            "'learns dependency that is 80% longer than RNNs and 450% longer than vanilla Transformers'",
            True,
        ),
        Evidence(
            CITATION,
            "Press, Smith & Lewis 2022 (arXiv 2108.12409, Figure 1, WikiText-103): T5's relative bias, like "
            "the sinusoidal and rotary encodings, shows degraded perplexity on inputs longer than the "
            "training length; only ALiBi does not",
            True,
            LIMITS,
        ),
        Evidence(
            CITATION,
            "Shaw et al. 2018 (arXiv 1803.02155 §3.2) only hypothesise that clipping the distance lets the "
            "model generalise to lengths unseen in training; no source found tests 'repeated patterns'",
            True,
            BACKGROUND,
        ),
    ),
    explanation="The sources point both ways: Transformer-XL's relative encoding helps it use much longer "
    "dependencies, but the relative T5 bias still degrades beyond the training length (Press et al. "
    "2022), and 'repeated patterns' is tested by no source found. The extra implementation work is real "
    "(an offset-indexed table per query–key pair, D3.8) but not measured here.",
)


# ---------------------------------------------------------------------------------------------------------
# Survey: RoPE
# ---------------------------------------------------------------------------------------------------------


@claim(
    id="D3.9",
    source=Source(DOC, "3. Rotary Positional Embedding (RoPE, 2021)"),
    statement="RoPE rotates each 2-dimensional pair of query and key coordinates by a position-dependent "
    "angle (a complex rotation); the dot product of the rotated q and k reflects the relative position; "
    "the cost is a slight compute overhead.",
    formal=r"\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle,\quad "
    r"\lVert R_m x\rVert = \lVert x\rVert",
    expected=FINITE,
    why_ko="회전된 점수가 n − m에만 달려 있고 회전이 norm을 보존한다는 것은 증명되지만, 연산 부담이 "
    "'약간'이라는 것은 한 모델 크기에서 연산 수로만 세었다.",
)
def d3_9() -> Assessment:
    per_coordinate = sp.Rational(rotation_operations(ROPE(8)), 8)
    linear = rotation_operations(ROPE(16)) == 2 * rotation_operations(ROPE(8))
    added = sp.Rational(addition_operations(8), 8)
    rope = 2 * per_coordinate * MODEL_WIDTH * MODEL_LAYERS
    additive = added * MODEL_WIDTH
    dense = dense_operations(MODEL_WIDTH, MODEL_LAYERS, MODEL_CONTEXT)
    share = rope / dense
    evidence = (
        from_derivation("rope.relative_interleaved"),
        from_derivation("rope.relative_half_split"),
        from_derivation("rope.orthogonal"),
        Evidence(
            EXACT,
            f"operations counted by SymPy (cos/sin tables precomputed): RoPE {per_coordinate} per "
            f"coordinate of q and of k in every layer, additive PE {added} per coordinate once; for "
            f"d_model = {MODEL_WIDTH}, {MODEL_LAYERS} layers, context {MODEL_CONTEXT}: {rope} against "
            f"{additive} operations per token, {float(share):.1e} of the {dense} of the dense layers and "
            "attention products (2 per multiply–add)",
            bool(linear and rope > additive and share < sp.Rational(1, 100)),
            SUPPORTS,
            (("RoPE share", f"{sp.nsimplify(share)}"),),
            instances=f"rotations counted at r = 8 and 16; the share for d_model = {MODEL_WIDTH}, "
            f"{MODEL_LAYERS} layers, context {MODEL_CONTEXT}",
        ),
    )
    explanation = (
        "Rotated scores depend on n − m only (both layouts) and the rotations keep norms (proved). The "
        f"overhead is real but slight: counted exactly, RoPE costs {per_coordinate} operations per "
        f"coordinate of q and k in each layer ({rope} per token for a {MODEL_WIDTH}-wide, "
        f"{MODEL_LAYERS}-layer model, against {additive} for additive PE), about {float(share):.1e} of the "
        "arithmetic of the layers themselves. These are operation counts, not timings, and for one model "
        "size: the rotation and relative parts are proved for every dimension, the overhead only counted "
        "for that configuration, so the whole is verified on a finite range."
    )
    return Assessment(evidence, explanation)


@claim(
    id="D3.9b",
    source=Source(DOC, "3. Rotary Positional Embedding (RoPE, 2021)"),
    statement="RoPE is the standard in recent large language models such as GPT-NeoX and LLaMA, and is "
    "strong at long contexts.",
    formal=r"\text{factual: model architectures and published evaluations}",
    expected=SOURCES_DISAGREE,
    why_ko="GPT-NeoX와 LLaMA가 rotary를 쓴다는 것은 출처와 맞지만, scaling 없이는 rotary 모델도 학습 "
    "길이를 넘으면 나빠진다.",
)
def d3_9b() -> Assessment:
    evidence = (
        Evidence(
            CITATION,
            "GPT-NeoX-20B (arXiv 2204.06745 §2.1): rotary positional embeddings instead of learned ones, "
            "applied to the first 25% of embedding vector dimensions",
            True,
        ),
        Evidence(
            CITATION,
            "LLaMA (arXiv 2302.13971 §2.2, 'Rotary Embeddings [GPTNeo]'): absolute positional embeddings "
            "removed, rotary embeddings added at each layer",
            True,
        ),
        Evidence(
            CITATION,
            "Press, Smith & Lewis 2022 (arXiv 2108.12409, Figure 1): a rotary model trained at L = 512 or "
            "1024 tokens degrades in perplexity beyond L — strong within the trained length, not beyond "
            "it without scaling (position interpolation, NTK, YaRN)",
            True,
            LIMITS,
        ),
        from_derivation("random_scores.expected_score", BACKGROUND),
    )
    explanation = (
        "Not mathematics; the primary sources confirm that GPT-NeoX and LLaMA use rotary embeddings. "
        "'Strong at long contexts' needs a caveat: without a scaling method, rotary models degrade past "
        "their training length (Press et al. 2022, Fig. 1). Nor is long-range strength built into the "
        "rotation: RoFormer's long-term decay is a trend of a worst-case bound, not monotone and not of "
        "the scores (G.roformer_decay), and for Gaussian queries and keys the expected score is 0 at every "
        "distance (SymPy, G.rope_expected_score) — background that decides the factual claim neither way."
    )
    return Assessment(evidence, explanation)


# ---------------------------------------------------------------------------------------------------------
# Survey: ALiBi
# ---------------------------------------------------------------------------------------------------------


@claim(
    id="D3.10",
    source=Source(DOC, "4. ALiBi (Attention with Linear Biases, 2022)"),
    statement="ALiBi embeds no position vector: it adds a bias to the attention score that falls linearly "
    "with the distance between tokens. A small slope m keeps distant tokens in play; a large slope "
    "concentrates attention on nearby tokens.",
    formal=r"s_{ij} = q_i\cdot k_j - m\,(i - j),\qquad \frac{w_a}{w_b} = e^{m(b-a)}\frac{w^0_a}{w^0_b}",
    expected=PROVED,
    why_ko="편향은 i − j에만 달려 있고 거리 a인 key와 b > a인 key의 가중치 비에 내용과 무관하게 정확히 "
    "e^(m(b − a))를 곱하므로, 기울기 m이 클수록 가까운 토큰에 집중한다.",
)
def d3_10() -> Assessment:
    ordered = sorted(slope_reach(Alibi().slopes_exact(ALIBI_HEADS), ALIBI_DISTANCE), key=lambda head: head[0])
    monotone = all(bool(a[1] > b[1]) and bool(a[2] < b[2]) for a, b in itertools.pairwise(ordered))
    (small, small_reach, small_factor), (large, large_reach, large_factor) = ordered[0], ordered[-1]
    evidence = (
        from_derivation("alibi.offset_only"),
        from_derivation("alibi.softmax_ratio"),
        from_derivation("alibi.slope_reach"),
        Evidence(
            EXACT,
            f"{ALIBI_HEADS} heads: with the smallest slope {small} a key keeps a tenth of the "
            f"nearest key's weight out to distance ln 10/m ≈ {exact_digits(small_reach, 4)}, with the "
            f"largest {large} only to ≈ {exact_digits(large_reach, 4)}; at distance {ALIBI_DISTANCE} the "
            f"nearest key gains a factor {exact_digits(small_factor, 4)} against "
            f"{exact_digits(large_factor, 4)} (exact, ordered by slope)",
            len(ordered) == ALIBI_HEADS and monotone,
            CORROBORATES,
            tuple(
                (f"m = {m}", f"reach {exact_digits(r, 4)}, factor at {ALIBI_DISTANCE}: {exact_digits(f, 4)}")
                for m, r, f in ordered
            ),
        ),
    )
    explanation = (
        "Proved: the bias depends on i − j only, and it multiplies the weight ratio of a key at distance "
        f"a to one at distance b > a by exactly e^(m(b − a)) whatever the content, so the distance ln 10/m "
        "at which a key keeps a tenth of the nearest one's weight falls as m grows, for every slope. With "
        f"{ALIBI_HEADS} "
        f"heads the slopes run from {small} (a key keeps a tenth of the nearest key's weight out "
        f"to ≈ {exact_digits(small_reach, 4)} tokens) to {large} (≈ {exact_digits(large_reach, 4)} "
        "tokens)."
    )
    return Assessment(evidence, explanation)


d3_10b = cited(
    id="D3.10b",
    source=Source(DOC, "4. ALiBi (Attention with Linear Biases, 2022)"),
    statement="ALiBi extrapolates very well to long contexts and is used in long-context models such as "
    "GPT-3.5/4, Falcon and MPT.",
    formal=r"\text{factual: published evaluations and model configurations}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="Falcon은 ALiBi가 아니라 rotary를 쓴다(MPT는 ALiBi를 쓰고 외삽도 ALiBi 논문이 뒷받침하며, "
    "GPT-3.5/4는 구조가 공개되지 않았다).",
    sources=(
        Evidence(
            CITATION,
            "Press, Smith & Lewis 2022 (arXiv 2108.12409, abstract): a 1.3B model trained with ALiBi on 1024 "
            "tokens reaches on 2048 tokens the perplexity of a sinusoidal model trained on 2048",
            True,
        ),
        Evidence(
            CITATION,
            "MPT-7B (mosaicml/mpt-7b config.json): attn_config.alibi = true; its model card: positional "
            "embeddings replaced with ALiBi",
            True,
        ),
        Evidence(
            CITATION,
            'Falcon (tiiuae/falcon-7b config.json: "alibi": false; its model card: \'Positional '
            "embeddings: rotary (Su et al., 2021)'; the Hugging Face Falcon documentation: rotary positional "
            "embeddings): Falcon uses RoPE, not ALiBi",
            True,
            REFUTES,
        ),
    ),
    explanation="The cited sources contradict it as stated: Falcon uses rotary embeddings (its configuration "
    "sets alibi to false). MPT "
    "does use ALiBi, and the ALiBi paper reports the extrapolation claimed. GPT-3.5/4 cannot be "
    "checked: their architecture is unpublished (the GPT-4 Technical Report, arXiv 2303.08774 §2, "
    "withholds it).",
)


# ---------------------------------------------------------------------------------------------------------
# Survey: SeqPE
# ---------------------------------------------------------------------------------------------------------


d3_11 = cited(
    id="D3.11",
    source=Source(DOC, "5. SeqPE (Sequential Positional Encoding, 2025)"),
    statement="SeqPE (arXiv 2506.13277) builds position encodings as a chain: the first position starts "
    "from an initial state, and each next position's encoding is updated from the previous position's "
    "encoding and a signal for the position difference.",
    formal=r"h_{p+1} = f(h_p, \Delta_p)\quad\text{(the document's description)}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="논문과 코드에서 'sequential'은 위치 하나를 적는 숫자열을 뜻하며, 각 위치는 이전 위치와 "
    "무관하게 따로 인코딩된다.",
    sources=(
        Evidence(
            CITATION,
            "SeqPE (Li et al. 2025, arXiv 2506.13277, abstract): 'represents each n-dimensional position "
            "index as a symbolic sequence and employs a lightweight sequential position encoder to learn "
            "their embeddings' — each position is encoded from its own digits, not from the previous "
            "position",
            True,
            REFUTES,
        ),
        Evidence(
            CITATION,
            "the authors' code (github.com/ghrua/seqpe, "
            "text_seq_pe/src/transformers/custom_modules/sequential_pe.py, class SequentialPE): digit "
            "tokens (nn.Embedding(10, d)) plus digit-place embeddings, a small causal Transformer over "
            "the digits, the last token's output projected — no state is carried from one position to the "
            "next",
            True,
            REFUTES,
        ),
    ),
    explanation="The paper and its code contradict the description: 'sequential' refers to the sequence of "
    "symbols (digits) that spells one position index, "
    "read by a small Transformer; every position is encoded independently, and positions are related "
    "only through the training objectives (a contrastive loss on position distances and a distillation "
    "loss).",
)


# ---------------------------------------------------------------------------------------------------------
# The comparison tables
# ---------------------------------------------------------------------------------------------------------


def assessed(claim_id: str) -> Assessment:
    """The assessment of one of the entries (the catalog runs each once per process; the tables reuse it)."""
    return catalog.assessment(claim_id)


#: How a table cell bears on its table, by the verdict of the claim it restates: it contradicts the table
#: when that claim is refuted or contradicted, holds only in part when it holds with a caveat or its sources
#: disagree, decides nothing when it is not checkable, and agrees otherwise (proved, verified, supported or
#: confirmed).
_BEARING = {
    REFUTED: REFUTES,
    CONTRADICTED_BY_SOURCES: REFUTES,
    CAVEAT: LIMITS,
    SOURCES_DISAGREE: LIMITS,
    NOT_CHECKABLE: BACKGROUND,
}


def table_cell(row: str, cells: str, claim_id: str) -> Evidence:
    """A table cell set against the verdict the catalog computed for the claim it restates (`_BEARING`)."""
    found = assessed(claim_id)
    verdict = found.verdict
    bearing = _BEARING.get(verdict, SUPPORTS)
    deciding = [e.kind for e in found.evidence if e.bearing == bearing and e.holds] or [CITATION]
    kind = min(deciding, key=KINDS.index)
    holds = verdict != UNSETTLED
    return Evidence(
        kind,
        f"{row}: '{cells}' — {claim_id}: {verdict}",
        holds,
        bearing,
        (("entry", claim_id), ("verdict", verdict)),
    )


def _table_explanation(evidence: Sequence[Evidence], unchecked: str) -> str:
    counts = {
        bearing: sum(e.bearing == bearing and e.holds for e in evidence)
        for bearing in (SUPPORTS, LIMITS, REFUTES, BACKGROUND)
    }
    flagged = "; ".join(e.summary for e in evidence if e.bearing != SUPPORTS and e.holds) or "none"
    verdict = (
        "Contradicted as stated, as every claim with a contradicted part is. "
        if counts[REFUTES]
        else "Holds only in part. "
        if counts[LIMITS]
        else ""
    )
    return (
        f"{verdict}Of {len(evidence)} cells that restate an entry, {counts[SUPPORTS]} agree with it, "
        f"{counts[LIMITS]} hold only in part, {counts[REFUTES]} contradict it and {counts[BACKGROUND]} "
        f"restate one that is not checkable — {flagged}. Not checkable either: {unchecked}."
    )


SUMMARY_TABLE = (
    ("Sinusoidal", "단순, 외삽 가능", "D3.6"),
    ("Sinusoidal", "표현력 제한적", "D3.6b"),
    ("Relative", "Attention score에 상대 임베딩 추가", "D3.8"),
    ("RoPE", "Q, K 회전 후 내적 / 연산량 소폭 증가", "D3.9"),
    ("RoPE", "긴 문맥 강력, LLM 표준", "D3.9b"),
    ("ALiBi", "Score에 거리 기반 항 추가", "D3.10"),
)

COMPARISON_TABLE = (
    ("Sinusoidal", "단순, 외삽 가능", "D3.6"),
    ("Sinusoidal", "표현력 제한", "D3.6b"),
    ("Relative", "상대적 거리 임베딩", "D3.8"),
    ("RoPE", "Q,K 벡터 회전 / 연산량 증가", "D3.9"),
    ("RoPE", "긴 문맥 강력", "D3.9b"),
    ("ALiBi", "선형 bias 추가", "D3.10"),
    ("SeqPE", "순차적 관계 학습", "D3.11"),
)


@claim(
    id="D3.12",
    source=Source(DOC, "종합 비교"),
    statement="The summary table of Sinusoidal, Relative, RoPE and ALiBi (idea, formula, pros, cons) agrees "
    "with the sections above.",
    formal=r"\text{each checkable cell agrees with the verdict of the claim it restates}",
    expected=CAVEAT,
    why_ko="확인할 수 있는 칸 대부분은 위 절들과 맞지만, Sinusoidal의 '단순, 외삽 가능'은 D3.6처럼 단서가 "
    "붙고, RoPE의 '긴 문맥 강력'은 출처가 엇갈리며, '표현력 제한적'은 확인할 수 없다.",
    depends_on=tuple(claim_id for _, _, claim_id in SUMMARY_TABLE),
)
def d3_12() -> Assessment:
    evidence = tuple(table_cell(*cell) for cell in SUMMARY_TABLE)
    unchecked = (
        "'strong at repeated structure' and 'complex to implement' (Relative), 'fast, stable at "
        "long context' and 'structure only a linear penalty' (ALiBi)"
    )
    return Assessment(evidence, _table_explanation(evidence, unchecked))


@claim(
    id="D3.12b",
    source=Source(DOC, "기존 기법과의 비교"),
    statement="The second table, adding SeqPE ('learns sequential relations'; reflects sequence order, "
    "adapts to long contexts; more compute, limited extrapolation), agrees with the sections above.",
    formal=r"\text{each checkable cell agrees with the verdict of the claim it restates}",
    expected=CONTRADICTED_BY_SOURCES,
    why_ko="SeqPE의 '순차적 관계 학습' 칸이 D3.11과 어긋난다(Sinusoidal의 '외삽 가능'은 D3.6처럼 단서가 "
    "붙고, RoPE의 '긴 문맥 강력'은 출처가 엇갈린다).",
    depends_on=tuple(claim_id for _, _, claim_id in COMPARISON_TABLE),
)
def d3_12b() -> Assessment:
    evidence = tuple(table_cell(*cell) for cell in COMPARISON_TABLE)
    unchecked = (
        "'learns repeated structure' (Relative), 'simple, stable at long context' (ALiBi), and "
        "SeqPE's cost and extrapolation cells"
    )
    return Assessment(evidence, _table_explanation(evidence, unchecked))
