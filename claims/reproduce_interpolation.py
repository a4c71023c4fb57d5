"""Position interpolation's error bounds (Chen et al. 2023, arXiv 2306.15595) and the critical dimension of
Liu et al. 2023 (arXiv 2310.05209), recomputed."""

from __future__ import annotations

import flint

from pe_verify.properties.checks.interpolation_bounds import (
    PeriodSplit,
    check_critical_dimension,
    check_midpoint_bound,
    critical_dimension,
    critical_exponent,
    curvature_constant,
    extrapolation_floor,
    extrapolation_ratios,
    first_below,
    is_below,
    midpoint_worst_case,
    one_significant_figure,
    proof_constant,
    rounds_to,
    scan_floor_float,
    tangent_step,
    theorem_constant,
)

from .evidence import from_derivation, verification
from .model import (
    BEYOND,
    CERTIFICATE,
    CORROBORATES,
    FLAWED,
    FLOAT,
    LIMITS,
    PROVED,
    REFUTED,
    REFUTES,
    STEP_CHECKED,
    STEP_FAILS,
    Assessment,
    Evidence,
    Reproduction,
    Row,
    Source,
    claim,
)
from .numbers import UNCERTIFIED, ball_text

#: Ball-arithmetic precision (bits) of every computed value.
BITS = 128


def _steps(derivation_id: str) -> str:
    return verification(derivation_id).summary


# --------------------------------------------------------------------- position interpolation's bounds

PI = Source(BEYOND, "Position interpolation's error bounds (Chen et al. 2023, arXiv 2306.15595, §2.3)")
PI_SOURCE = (
    "Chen, Wong, Chen & Tian 2023, Extending Context Window of Large Language Models via Position "
    "Interpolation (arXiv 2306.15595 v2): §2.3 Theorem 2.1 (eqs. 5–8), Appendix A (eqs. 12–17), Appendix B "
    "(Figure 5) and Appendix C.2 (its code: s = 0 … 2L − 1, L = 2048)"
)
#: LLaMA-7B: d = 4096/32 = 128, c = 10000; Figure 5 plots s < 2L = 4096; PI's longest window is 32768.
D, C = 128, 10000
PLOTTED = range(4096)
WINDOW = 32768


@claim(
    id="G.pi_bound_ratio",
    source=PI,
    statement="Chen et al. 2023 (position interpolation, arXiv 2306.15595 §2.3): for the score "
    "a(s) = Re Σ_j h_j e^{isθ_j}, θ_j = c^(−2j/d), Theorem 2.1 bounds the gap between a(s) and the chord "
    "a_lin through (s_1, a(s_1)) and (s_2, a(s_2)) by d·max_j|h_j|·(s − s_1)(s_2 − s)/(8 ln c), on the "
    "integer grid by d·max_j|h_j|/(32 ln c) ≈ d·max_j|h_j|/294.73 (c = 10000, eq. 7); the extrapolation "
    "bound 2·max_j|h_j|·B(s) (eq. 8) has B(s) 'numerically at least larger than d' (Figure 5: B(s)/d ≥ 1, "
    "LLaMA-7B's d = 128), so the interpolation bound is 'at least 2 · 294.73 ∼ 600× smaller'.",
    formal=r"|a(s) - a_{\mathrm{lin}}(s)| \le \frac{d\,\max_j|h_j|\,(s-s_1)(s_2-s)}{8\ln c},\quad "
    r"\frac{2\max_j|h_j|\,B(s)}{d\max_j|h_j|/(32\ln c)} \ge 64\ln c = 2\cdot 294.73",
    expected=REFUTED,
    why_ko="비율의 산술은 논문대로지만 보간 상계의 증명이 부등식 c^x ≤ 1 + x ln c를 거꾸로 써서, 논문의 "
    "정수 격자에서 정리 2.1을 어기는 q, k가 있다.",
    expected_argument=FLAWED,
    depends_on=("G.linear_interpolation", "G.rope_long_term_decay"),
    reproduces="pi_bound_ratio",
)
def pi_bound_ratio() -> Assessment:
    with flint.ctx.workprec(BITS):
        grid = 32 * flint.arb(C).log()
        stated, exact = theorem_constant(D, C), midpoint_worst_case(D, C)
        ratio, corrected = 2 * flint.arb(D) / stated, 2 * flint.arb(D) / exact
        proof_corrected = 2 * flint.arb(D) / (curvature_constant(D, C) / 8)
        midpoint = check_midpoint_bound(theorem_constant, D, C)
        power, tangent = tangent_step(D, C)
        curvature, proof = curvature_constant(D, C), proof_constant(D, C)
        excess = midpoint.error / midpoint.bound - 1
        floor = extrapolation_floor(D, C, PLOTTED)
        first = first_below(D, C, range(len(PLOTTED), WINDOW))
        scan = scan_floor_float(D, C, WINDOW - 1)
        (_, lowest), *_ = extrapolation_ratios(D, C, range(scan.smallest_at, scan.smallest_at + 1))
        step_fails = is_below(tangent, power)
        below = str(scan.below) if scan.decided else f"{scan.below} ({UNCERTIFIED})"
        curvature_exceeds = is_below(proof, curvature)
        text = {
            "grid": ball_text(grid, ".6f"),
            "ratio": ball_text(ratio, ".4f"),
            "corrected": ball_text(corrected, ".3f"),
            "proof corrected": ball_text(proof_corrected, ".3f"),
            "stated": ball_text(stated, ".6f"),
            "error": ball_text(midpoint.error, ".6f"),
            "excess": ball_text(100 * excess, ".1f"),
            "power": ball_text(power, ".6f"),
            "tangent": ball_text(tangent, ".6f"),
            "curvature": ball_text(curvature, ".6f"),
            "proof": ball_text(proof, ".6f"),
            "floor": ball_text(floor.smallest, ".6f"),
            "first": "none" if first is None else ball_text(first[1], ".6f"),
            "lowest": ball_text(lowest, ".6f"),
            "figure": str(one_significant_figure(corrected)),
        }
        rows = (
            Row(
                "32 ln c, c = 10000 (eq. 7)",
                "294.73",
                text["grid"],
                rounds_to(grid, "294.73"),
                "rounds to the printed value",
            ),
            Row(
                "ratio of the two bounds at B(s) = d (§2.3)",
                "2 · 294.73 ∼ 600×",
                f"64 ln c = {text['ratio']}",
                rounds_to(ratio, "600", significant=1),
                "2d·max|h| over d·max|h|/(32 ln c): the arithmetic from the paper's own bounds; ∼600 is it "
                "to one significant figure",
            ),
            Row(
                f"smallest B(s)/d over s = 0 … {PLOTTED[-1]} (Figure 5, Appendix C.2)",
                "≥ 1 ('numerically B(s)/d ≥ 1')",
                f"{text['floor']} at s = {floor.smallest_at}",
                floor.holds,
                "every B(s)/d of the plotted range certified ≥ 1",
            ),
            Row(
                "B(s) ≥ d beyond the plotted range (§2.3: 'numerically it is at least larger than d')",
                "B(s) ≥ d",
                f"first below: s = {None if first is None else first[0]}, B(s)/d = {text['first']}; "
                f"{below} of s = 0 … {WINDOW - 1} below, the smallest {text['lowest']} at "
                f"s = {scan.smallest_at}",
                first is None,
                f"holds only on the plotted range: PI's extended windows reach {WINDOW}, where B(s)/d falls "
                "below 1 (the count and the place of the smallest from a float64 scan with an a-priori "
                "error bound, the values in arb balls)",
            ),
            Row(
                f"eq. (14) at d = {D}, c = {C}: c^(−4/d) ≤ 1 − (4/d) ln c",
                "holds ('when x < 0 and c > 1, c^x ≤ 1 + x ln c')",
                f"{text['power']} > {text['tangent']}",
                not step_fails,
                "reversed: c^x ≥ 1 + x ln c for every real x (`scaling.pi_tangent_line`)",
            ),
            Row(
                "eq. (15): the largest |a''(s)|/max_j|h_j|",
                "≤ d/(4 ln c) (M = max_j|h_j|·d/(4 ln c))",
                f"Σ_j θ_j² = {text['curvature']} > d/(4 ln c) = {text['proof']}",
                not curvature_exceeds,
                "a''(0) = −Σ_j θ_j² for h_j = 1 (query and key pairs (1, 0))",
            ),
            Row(
                "Theorem 2.1 on the step [0, 1] at s = 1/2 (eq. 7)",
                "|a(s) − a_lin(s)| ≤ d·max_j|h_j|/294.73",
                f"{text['error']} > d/(32 ln c) = {text['stated']} (max_j|h_j| = 1)",
                midpoint.holds,
                f"query pairs (cos(θ_j/2), −sin(θ_j/2)), key pairs (1, 0): h_j = e^(−iθ_j/2), the worst case "
                f"Σ_j 2 sin²(θ_j/4), {text['excess']}% above the bound (`scaling.pi_midpoint_error`)",
            ),
            Row(
                "the interpolation bound is that much smaller (§2.3)",
                "≥ 2 · 294.73 ∼ 600×",
                f"2d/Σ_j 2 sin²(θ_j/4) = {text['corrected']} at B(s) = d",
                rounds_to(corrected, "600", significant=1),
                f"with the true unit-step bound the ratio is ∼{text['figure']}× ({text['proof corrected']} "
                "with the proof's own chain, |a''| ≤ max|h|·Σ_j θ_j², corrected)",
            ),
        )
    evidence = (
        from_derivation("scaling.pi_bound_ratio"),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits, d = {D}, c = {C}: B(s) ≥ d at every s = 0 … {PLOTTED[-1]} "
            f"(Figure 5's range); the smallest B(s)/d is {text['floor']}, at s = {floor.smallest_at}",
            floor.holds,
            detail=(("smallest B(s)/d", text["floor"]), ("at s", str(floor.smallest_at))),
            instances=f"d = {D}, c = {C}, s = 0, …, {PLOTTED[-1]}",
        ),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits: beyond Figure 5's range B(s) < d, first at "
            f"s = {None if first is None else first[0]} (B(s)/d = {text['first']}; every smaller s certified "
            "≥ d)",
            first is not None,
            LIMITS,
            detail=(("first s with B(s) < d", str(None if first is None else first[0])),),
        ),
        Evidence(
            FLOAT,
            f"float64 with an a-priori error bound, s = 0 … {WINDOW - 1} (PI's longest window): "
            f"{below} distances have B(s) < d; the smallest B(s)/d, at s = {scan.smallest_at}, is "
            f"{text['lowest']} (arb balls)",
            scan.decided and scan.below > 0,
            LIMITS,
            detail=(
                ("distances with B(s) < d", below),
                ("smallest at s", str(scan.smallest_at)),
                ("float64 error of each B(s)/d", f"≤ {scan.error:.1e}"),
            ),
            measured=(("smallest B(s)/d (float64)", scan.smallest),),
        ),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits, d = {D}, c = {C}: with query pairs (cos(θ_j/2), −sin(θ_j/2)) and key "
            f"pairs (1, 0) (every |h_j| = 1), |a(1/2) − a_lin(1/2)| on [0, 1] is {text['error']}, above "
            f"Theorem 2.1's d/(32 ln c) = {text['stated']}",
            not midpoint.holds,
            REFUTES,
            detail=(("|a(1/2) − a_lin(1/2)|", text["error"]), ("bound", text["stated"])),
        ),
        from_derivation("scaling.pi_midpoint_error", CORROBORATES),
    )
    argument = (
        from_derivation("scaling.pi_curvature_sum", STEP_CHECKED),
        from_derivation("scaling.pi_tangent_line", STEP_FAILS),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits: at d = {D}, c = {C} eq. (15) fails: Σ_j θ_j² = {text['curvature']} "
            f"> d/(4 ln c) = {text['proof']}, and |a''(0)| = Σ_j θ_j² for h_j = 1",
            curvature_exceeds,
            STEP_FAILS,
            detail=(("Σ_j θ_j²", text["curvature"]), ("d/(4 ln c)", text["proof"])),
        ),
    )
    return Assessment(
        evidence,
        explanation=(
            f"The ratio itself is the paper's arithmetic: the extrapolation bound at B(s) = d over the "
            f"interpolation bound is 64 ln c = {text['ratio']} = 2 · {text['grid']} "
            f"({_steps('scaling.pi_bound_ratio')}), and B(s) ≥ d holds on Figure 5's s < {len(PLOTTED)} "
            f"(smallest B(s)/d {text['floor']}). The interpolation bound does not: its proof bounds |a''| by "
            f"max|h|·Σ_j θ_j² (correct, {_steps('scaling.pi_curvature_sum')}) and then by max|h|·d/(4 ln c), "
            "citing c^x ≤ 1 + x ln c for x < 0, which is reversed — the exponential lies above its tangent "
            f"line for every x ({_steps('scaling.pi_tangent_line')}). At d = {D}, c = {C} the sum is "
            f"{text['curvature']} against {text['proof']}, and Theorem 2.1 fails on the paper's own integer "
            f"grid: a query and key with every |h_j| = 1 give |a(1/2) − a_lin(1/2)| = {text['error']} on "
            f"[0, 1] against the bound {text['stated']}. The exact worst case there is Σ_j 2 sin²(θ_j/4) "
            f"({_steps('scaling.pi_midpoint_error')}), which makes the ratio at B(s) = d "
            f"{text['corrected']}: ∼{text['figure']}×, not ∼600×. The 'B(s) ≥ d' of §2.3 also holds only "
            f"on the plotted range: it first fails at s = {None if first is None else first[0]}, and within "
            f"PI's {WINDOW}-token windows B(s)/d goes down to {text['lowest']} (s = {scan.smallest_at}), "
            "where the bounds' ratio is below 64 ln c."
        ),
        argument_evidence=argument,
        reproduction=Reproduction(
            "pi_bound_ratio",
            PI_SOURCE,
            f"arb balls at {BITS} bits (python-flint); the count of s < {WINDOW} with B(s) < d from float64 "
            "with an a-priori error bound",
            rows,
        ),
    )


# ------------------------------------------------------------------------------- the critical dimension

CRITICAL = Source(BEYOND, "Critical dimension of RoPE extrapolation (Liu et al. 2023, arXiv 2310.05209)")
CRITICAL_SOURCE = (
    "Liu, Yan, Zhang, An, Qiu & Lin 2023, Scaling Laws of RoPE-based Extrapolation (arXiv 2310.05209, "
    "ICLR 2024): the critical dimension for extrapolation d_extra = 2⌈(d/2)·log_b(T_train/2π)⌉, 92 for "
    "LLaMA2"
)
#: LLaMA2: d = 128, b = 10000, T_train = 4096 (published d_extra 92); LLaMA's T_train = 2048.
LLAMA2_LENGTH, LLAMA_LENGTH, PUBLISHED = 4096, 2048, 92


def _split_text(split: PeriodSplit, length: int) -> str:
    """Which pairs complete a period within T, with the two periods either side of the split."""
    pairs, dims = split.complete_dims // 2, split.complete_dims
    longest, shortest = split.longest_complete, split.shortest_incomplete
    return (
        f"pairs 0–{pairs - 1} (dims 0–{dims - 1}) have periods up to {ball_text(longest, '.3f')} ≤ {length}; "
        f"pair {pairs}'s is {ball_text(shortest, '.3f')} > {length}"
    )


@claim(
    id="G.critical_dimension",
    source=CRITICAL,
    statement="Liu et al. 2023 (Scaling Laws of RoPE-based Extrapolation, arXiv 2310.05209): the critical "
    "dimension for extrapolation d_extra = 2⌈(d/2)·log_b(T_train/2π)⌉ counts the dims of q and k whose "
    "pair completes a full period 2π/θ_n within the training length — the first d_extra dims do, the "
    "others do not; for LLaMA2 (d = 128, b = 10000, T_train = 4096) it is 92. The same holds at LLaMA's "
    "T_train = 2048.",
    formal=r"d_{\mathrm{extra}} = 2\Bigl\lceil \frac{d}{2}\log_b\frac{T_{\mathrm{train}}}{2\pi}\Bigr\rceil:"
    r"\quad \frac{2\pi}{\theta_n} \le T_{\mathrm{train}} \iff n < \frac{d_{\mathrm{extra}}}{2},"
    r"\quad d_{\mathrm{extra}} = 92 \ (d = 128,\ b = 10^4,\ T_{\mathrm{train}} = 4096)",
    expected=PROVED,
    why_ko="짝 n의 주기 2π·b^(2n/d)가 T 안에 들어가는 조건을 세면 공식의 2⌈x⌉차원이 됨을 SymPy로 확인했고, "
    "LLaMA2에서 발표된 d_extra = 92를 재현한다.",
    reproduces="critical_dimension",
)
def critical_dimension_entry() -> Assessment:
    with flint.ctx.workprec(BITS):
        found = {}
        for length in (LLAMA2_LENGTH, LLAMA_LENGTH):
            exponent = critical_exponent(D, C, length)
            d_extra = critical_dimension(D, C, length)
            found[length] = (
                ball_text(exponent, ".6f"),
                d_extra,
                check_critical_dimension(d_extra, D, C, length),
            )
        texts = {length: _split_text(split, length) for length, (_, _, split) in found.items()}
    (x, d_extra, split), (x_short, d_short, split_short) = found[LLAMA2_LENGTH], found[LLAMA_LENGTH]
    rows = (
        Row(
            f"d_extra, LLaMA2: d = {D}, b = {C}, T_train = {LLAMA2_LENGTH}",
            str(PUBLISHED),
            f"{d_extra} = 2⌈{x}⌉",
            d_extra == PUBLISHED,
            "the ceiling decided in arb balls: x lies strictly between two integers",
        ),
        Row(
            f"the first {PUBLISHED} dims complete a period within T_train, the others do not",
            f"dims 0–{PUBLISHED - 1} do, dims {PUBLISHED}–{D - 1} do not",
            texts[LLAMA2_LENGTH],
            split.holds and split.complete_dims == PUBLISHED,
            f"2π/θ_n against {LLAMA2_LENGTH} for every pair, certified",
        ),
    )
    evidence = (
        from_derivation("scaling.critical_dimension"),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits, LLaMA2 (T_train = {LLAMA2_LENGTH}): d_extra = 2⌈{x}⌉ = {d_extra}, "
            f"the published {PUBLISHED}; {texts[LLAMA2_LENGTH]}",
            d_extra == PUBLISHED and split.holds,
            detail=(("x = (d/2)·log_b(T/2π)", x), ("d_extra", str(d_extra))),
        ),
        Evidence(
            CERTIFICATE,
            f"arb balls at {BITS} bits, T_train = {LLAMA_LENGTH}: d_extra = 2⌈{x_short}⌉ = {d_short}; "
            f"{texts[LLAMA_LENGTH]}",
            split_short.holds,
            detail=(("x = (d/2)·log_b(T/2π)", x_short), ("d_extra", str(d_short))),
        ),
    )
    return Assessment(
        evidence,
        explanation=(
            "Pair n turns with period 2π/θ_n = 2π·b^(2n/d), which fits in T exactly when n ≤ x = "
            f"(d/2)·log_b(T/2π) ({_steps('scaling.critical_dimension')}); for x not an integer the pairs "
            f"n < ⌈x⌉ fit, which is the formula's 2⌈x⌉ dims. For LLaMA2 x = {x}, so d_extra = {d_extra} as "
            f"published: {texts[LLAMA2_LENGTH]}. At T_train = {LLAMA_LENGTH} (no published "
            f"value compared) x = {x_short} and d_extra = {d_short}. A floor in place of the ceiling would "
            "drop the last pair that does complete its period."
        ),
        reproduction=Reproduction("critical_dimension", CRITICAL_SOURCE, f"arb balls at {BITS} bits", rows),
    )
