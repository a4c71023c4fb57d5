"""RoPE frequency scaling: position interpolation, NTK-aware and dynamic NTK, YaRN's ramp (the paper's and the
reference code's), and Llama 3's piecewise rule; the formulas of Hugging Face transformers
``modeling_rope_utils.py`` and of Peng, Quesnelle, Fan & Shippole, "YaRN" (2023); and YaRN's temperature,
which scales every logit by a² when cos and sin are multiplied by a."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from pe_verify.properties.encodings.frequencies import frequency_expr
from pe_verify.properties.encodings.rope import Rope

from .derivation import Step, derivation, fact, identity, inequality, is_zero
from .rope import M, N, rotation, score, thetas, vector

BASE, FACTOR, THETA = sp.symbols("b s theta", positive=True)
POSITION = sp.Symbol("p", real=True)
INDEX = sp.Symbol("i", nonnegative=True)
EXCESS = sp.Symbol("e", positive=True)
DIM = EXCESS + 2
CONTEXT, TURNS = sp.symbols("L n", positive=True)
RATIO = sp.Symbol("r", positive=True)
ALPHA, WIDTH, DELTA, U, V = sp.symbols("alpha w delta u v", positive=True)
BETA = ALPHA + WIDTH
BETWEEN = ALPHA + WIDTH * V / (U + V)


def decide(condition: sp.Basic) -> bool:
    """Decide a relation by the sign SymPy proves for (greater side − lesser side); raise when it cannot."""
    if condition in (sp.true, sp.false):
        return bool(condition)
    gap = sp.factor(sp.together(condition.gts - condition.lts))
    strict = isinstance(condition, (sp.StrictGreaterThan, sp.StrictLessThan))
    holds = gap.is_positive if strict else gap.is_nonnegative
    if holds is None:
        raise ValueError(f"SymPy cannot decide {condition}")
    return holds


def branch_value(piecewise: sp.Piecewise, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    """The value of `piecewise` at `point`: the first branch whose condition SymPy proves there, once SymPy
    has disproved every earlier condition."""
    for expr, condition in piecewise.args:
        if decide(condition.subs(point)):
            return expr.subs(point)
    raise ValueError(f"no branch of {piecewise} holds at {point}")


def regime(
    piecewise: sp.Piecewise,
    point: Mapping[sp.Symbol, sp.Expr],
    expected: sp.Expr,
    claim: str,
    justification: str,
) -> Step:
    """A step asserting that `piecewise` equals `expected` at `point` (on the branch `branch_value` picks)."""
    return fact(claim, justification, lambda: is_zero(branch_value(piecewise, point) - expected))


def rope_frequency(i: sp.Expr, d: sp.Expr, base: sp.Expr) -> sp.Expr:
    """θ_i = base^(−2i/d), symbolic."""
    return frequency_expr(i, d, base)


def paper_ramp(r: sp.Expr, alpha: sp.Expr, beta: sp.Expr) -> sp.Piecewise:
    """YaRN's γ(r): 0 for r < α, 1 for r > β, (r − α)/(β − α) in between."""
    return sp.Piecewise((0, r < alpha), (1, r > beta), ((r - alpha) / (beta - alpha), True))


def ntk_by_parts(theta: sp.Expr, gamma: sp.Expr) -> sp.Expr:
    """YaRN's h(θ) = (1 − γ)·θ/s + γ·θ."""
    return (1 - gamma) * theta / FACTOR + gamma * theta


@derivation(
    id="scaling.linear",
    title="Position interpolation divides every frequency by s",
    statement=r"p\cdot\frac{\theta_i}{s} = \frac{p}{s}\cdot\theta_i,"
    r"\qquad \lambda'_i = \frac{2\pi}{\theta_i/s} = s\,\lambda_i",
    hypotheses=(r"$\theta_i = b^{-2i/d}$ with $b > 0$, $d > 2$, $i \ge 0$ symbolic; $s > 0$; $p$ real",),
)
def linear() -> Iterator[Step]:
    theta = rope_frequency(INDEX, DIM, BASE)
    yield identity(
        POSITION * (theta / FACTOR),
        (POSITION / FACTOR) * theta,
        "dividing the frequency by s gives every position the angle position p/s had: "
        "positions up to sL land where positions up to L were",
        claim=r"p\,\frac{\theta_i}{s} = \frac{p}{s}\,\theta_i",
    )
    yield identity(
        2 * sp.pi / (theta / FACTOR),
        FACTOR * (2 * sp.pi / theta),
        "every wavelength grows by the same factor s",
        claim=r"\frac{2\pi}{\theta_i / s} = s\,\frac{2\pi}{\theta_i}",
    )


@derivation(
    id="scaling.proportional",
    title="Proportional RoPE turns the first pairs at the whole head's frequencies divided by s, and leaves "
    "the rest unturned",
    statement=r"k = \lfloor \rho h / 2 \rfloor:\quad \theta'_i = \frac{b^{-2i/h}}{s}\ (i < k),\qquad "
    r"\theta'_i = 0,\ R(p\,\theta'_i) = I_2\ (k \le i < h/2)",
    hypotheses=(
        r"head width $h$, rotated fraction $\rho$, $k$ rotated pairs, $r = 2k$ rotated dims; "
        r"$b, s, h, r > 0$ and $i \ge 0$ symbolic; $p$ real (transformers' "
        r"`_compute_proportional_rope_parameters`)",
    ),
)
def proportional() -> Iterator[Step]:
    head, rotated = sp.symbols("h r", positive=True)
    yield identity(
        rope_frequency(INDEX, rotated, BASE) ** (rotated / head),
        rope_frequency(INDEX, head, BASE),
        "the exponents run over the whole head h, not over the r rotated dims as partial rotary's do: pair i "
        r"turns at $(b^{-2i/r})^{r/h}$, slower than partial rotary's $b^{-2i/r}$ for every $i > 0$",
        claim=r"b^{-2i/h} = \bigl(b^{-2i/r}\bigr)^{r/h}",
    )
    yield identity(
        POSITION * (rope_frequency(INDEX, head, BASE) / FACTOR),
        (POSITION / FACTOR) * rope_frequency(INDEX, head, BASE),
        "dividing by s gives position p the angle p/s had, as position interpolation does",
        claim=r"p\,\frac{b^{-2i/h}}{s} = \frac{p}{s}\,b^{-2i/h}",
    )
    yield identity(
        rotation(POSITION * 0),
        sp.eye(2),
        "the pairs past the first k get frequency 0: their two coordinates are left as they are at every "
        "position",
        claim=r"R(p \cdot 0) = I_2",
    )


@derivation(
    id="scaling.ntk",
    title="NTK-aware scaling keeps the highest frequency and divides the lowest by exactly s",
    statement=r"b' = b\,s^{d/(d-2)}:\quad \theta'_i = \theta_i\,s^{-2i/(d-2)},\quad \theta'_0 = \theta_0,"
    r"\quad \theta'_{d/2-1} = \theta_{d/2-1}/s",
    hypotheses=(r"$b, s > 0$ symbolic; $d = e + 2$ with $e > 0$ symbolic ($d > 2$); $i \ge 0$ symbolic",),
)
def ntk() -> Iterator[Step]:
    scaled_base = BASE * FACTOR ** (DIM / (DIM - 2))
    last = DIM / 2 - 1
    yield identity(
        rope_frequency(INDEX, DIM, scaled_base) / rope_frequency(INDEX, DIM, BASE),
        FACTOR ** (-2 * INDEX / (DIM - 2)),
        r"$(b\,s^{d/(d-2)})^{-2i/d} = b^{-2i/d}\,s^{-2i/(d-2)}$: pair $i$ is divided by "
        r"$s^{2i/(d-2)}$, from $1$ at $i = 0$ to $s$ at $i = d/2 - 1$",
        claim=r"\theta'_i / \theta_i = s^{-2i/(d-2)}",
    )
    yield identity(
        rope_frequency(0, DIM, scaled_base),
        rope_frequency(0, DIM, BASE),
        "the highest frequency is 1 whatever the base",
        claim=r"\theta'_0 = \theta_0 = 1",
    )
    yield identity(
        rope_frequency(last, DIM, scaled_base),
        rope_frequency(last, DIM, BASE) / FACTOR,
        r"at $i = d/2 - 1$ the exponent is $-(d-2)/d$, which cancels $d/(d-2)$",
        claim=r"\theta'_{d/2-1} = \theta_{d/2-1} / s",
    )
    yield identity(
        rope_frequency(last, DIM, BASE * FACTOR),
        rope_frequency(last, DIM, BASE) * FACTOR ** (-(DIM - 2) / DIM),
        r"with the exponent $d/d$ instead (base $b\,s$) the lowest frequency is divided by "
        r"$s^{(d-2)/d}$ only",
        claim=r"(b\,s)^{-(d-2)/d} = \theta_{d/2-1}\, s^{-(d-2)/d}",
    )
    yield inequality(
        sp.Integer(2) ** sp.Rational(2, 4),
        sp.Integer(2),
        r"and $s^{(d-2)/d} \ne s$: at $d = 4$, $s = 2$ it is $\sqrt 2$",
        claim=r"2^{(4-2)/4} \neq 2",
    )


@derivation(
    id="scaling.dynamic_ntk",
    title="Dynamic NTK starts from the unscaled frequencies at the original context",
    statement=r"s'(L) = s\,\frac{L}{L_0} - (s - 1) = 1 + s\,\frac{L - L_0}{L_0},\qquad s'(L_0) = 1,"
    r"\qquad \frac{ds'}{dL} = \frac{s}{L_0} > 0",
    hypotheses=(r"$s, L_0 > 0$ symbolic; $L$ the current length (the code uses $\max(L, L_0)$)",),
)
def dynamic_ntk() -> Iterator[Step]:
    length, original = sp.symbols("L L_0", positive=True)
    effective = FACTOR * length / original - (FACTOR - 1)
    yield identity(
        effective,
        1 + FACTOR * (length - original) / original,
        "the same number written so that it rounds to exactly 1 at L = L₀",
        claim=r"s\,\frac{L}{L_0} - (s - 1) = 1 + s\,\frac{L - L_0}{L_0}",
    )
    yield identity(
        effective.subs(length, original),
        1,
        "at the original context the factor is 1: no scaling",
        claim=r"s'(L_0) = 1",
    )
    yield fact(
        r"\frac{ds'}{dL} = \frac{s}{L_0} > 0",
        "SymPy differentiates and proves the derivative positive: s' ≥ 1 for every L ≥ L₀",
        lambda: (
            is_zero(sp.diff(effective, length) - FACTOR / original)
            and bool(sp.diff(effective, length).is_positive)
        ),
    )


@derivation(
    id="scaling.longrope",
    title="LongRoPE divides each frequency by its own factor; equal factors are position interpolation",
    statement=r"\theta'_i = \frac{\theta_i}{e_i}:\quad \lambda'_i = e_i\,\lambda_i,\quad "
    r"e_i = s\ \forall i \Rightarrow \theta'_i = \frac{\theta_i}{s},\quad "
    r"a = \sqrt{1 + \frac{\ln s}{\ln L_0}} > 1 \text{ for } s > 1,\ a = 1 \text{ at } s = 1",
    hypotheses=(
        r"$\theta_i = b^{-2i/d}$ with $b > 0$, $d > 2$, $i \ge 0$ symbolic; a factor $e_i > 0$ per pair (the "
        r"config's long_factor or short_factor); $s = L/L_0$ and $L_0 > 1$ symbolic",
    ),
)
def longrope() -> Iterator[Step]:
    ext = sp.Symbol("e_i", positive=True)
    original = sp.Symbol("L_0", positive=True)
    theta = rope_frequency(INDEX, DIM, BASE)
    yield identity(
        2 * sp.pi / (theta / ext),
        ext * (2 * sp.pi / theta),
        "each pair's wavelength grows by its own factor: a factor above 1 slows the pair, one below 1 "
        "speeds it up",
        claim=r"\frac{2\pi}{\theta_i / e_i} = e_i\,\frac{2\pi}{\theta_i}",
    )
    yield identity(
        (theta / ext).subs(ext, FACTOR),
        theta / FACTOR,
        "with one factor s for every pair the rule is position interpolation (`scaling.linear`)",
        claim=r"e_i = s\ \forall i:\ \theta'_i = \theta_i / s",
    )
    log_ratio = sp.log(FACTOR) / sp.log(original)
    yield identity(
        sp.sqrt(1 + log_ratio).subs(FACTOR, 1),
        1,
        "at s = 1 (no extension) the attention factor is 1",
        claim=r"\sqrt{1 + \ln 1 / \ln L_0} = 1",
    )
    yield fact(
        r"s, L_0 > 1 \Rightarrow \frac{\ln s}{\ln L_0} > 0 \Rightarrow \sqrt{1 + \frac{\ln s}{\ln L_0}} > 1",
        "with s = 1 + u and L₀ = 1 + v (u, v > 0) SymPy proves ln s / ln L₀ positive, so the radicand "
        "exceeds 1, and the square root, increasing with √1 = 1, exceeds 1",
        lambda: bool((sp.log(1 + U) / sp.log(1 + V)).is_positive),
    )


@derivation(
    id="scaling.yarn_paper_ramp",
    title="YaRN's NTK-by-parts ramp: keep fast dimensions, interpolate slow ones, linear in r between",
    statement=r"h(\theta) = (1-\gamma(r))\frac{\theta}{s} + \gamma(r)\,\theta,\quad \gamma(r) = "
    r"\begin{cases}0 & r < \alpha\\ 1 & r > \beta\\ "
    r"\frac{r-\alpha}{\beta-\alpha} & \text{otherwise}\end{cases}",
    hypotheses=(
        r"$r = L/\lambda$: the turns a dimension makes over the original context $L$ "
        r"($\lambda = 2\pi/\theta$)",
        r"$0 < \alpha < \beta$ symbolic ($\beta = \alpha + w$, $w > 0$; the paper uses $\alpha = 1$, "
        r"$\beta = 32$); $\theta, s > 0$ symbolic",
        r"test points $r = \beta + \delta$, $r = \alpha - \delta$ ($0 < \delta < \alpha$) and "
        r"$r = \alpha + w\,v/(u+v)$ (any point strictly between, $u, v > 0$)",
    ),
)
def yarn_paper_ramp() -> Iterator[Step]:
    gamma = paper_ramp(RATIO, ALPHA, BETA)
    h = sp.Piecewise(*((ntk_by_parts(THETA, value), condition) for value, condition in gamma.args))
    middle = ntk_by_parts(THETA, (RATIO - ALPHA) / (BETA - ALPHA))
    yield regime(
        h,
        {RATIO: BETA + DELTA},
        THETA,
        r"r > \beta \Rightarrow h(\theta) = \theta",
        "a dimension turning more than β times over the context is kept (γ = 1)",
    )
    yield regime(
        h,
        {RATIO: ALPHA - DELTA},
        THETA / FACTOR,
        r"r < \alpha \Rightarrow h(\theta) = \theta / s",
        "a dimension turning fewer than α times (wavelength beyond the context) is interpolated",
    )
    yield regime(
        h,
        {RATIO: BETWEEN},
        middle.subs(RATIO, BETWEEN),
        r"\alpha < r < \beta \Rightarrow h(\theta) = \frac{\theta}{s} + "
        r"\Bigl(\theta - \frac{\theta}{s}\Bigr)\frac{r - \alpha}{\beta - \alpha}",
        "between, SymPy picks the third branch: the blend",
    )
    yield identity(
        sp.diff(middle, RATIO),
        THETA * (1 - 1 / FACTOR) / (BETA - ALPHA),
        "the blend is linear in r: its derivative does not depend on r",
        claim=r"\frac{\partial h}{\partial r} = \frac{\theta\,(1 - 1/s)}{\beta - \alpha}",
    )
    yield identity(
        middle.subs(RATIO, ALPHA),
        THETA / FACTOR,
        "the blend meets the interpolated regime at α",
        claim=r"h\big|_{r=\alpha} = \theta/s",
    )
    yield identity(
        middle.subs(RATIO, BETA),
        THETA,
        "and the kept regime at r = β: h is continuous",
        claim=r"h\big|_{r=\beta} = \theta",
    )
    yield regime(
        gamma,
        {RATIO: ALPHA},
        0,
        r"\gamma(\alpha) = 0",
        "the boundary r = α belongs to the blend, whose value there is that of the left regime",
    )
    yield regime(gamma, {RATIO: BETA}, 1, r"\gamma(\beta) = 1", "likewise at r = β")


@derivation(
    id="scaling.yarn_reference_ramp",
    title="The reference YaRN ramp is linear in the dimension index, that is in ln r, not in r",
    statement=r"c(n) = \frac{d\,\ln\bigl(L/(2\pi n)\bigr)}{2\ln b},\quad \gamma_{\text{ref}}(r) = 1 - "
    r"\frac{c(r) - c(\beta)}{c(\alpha) - c(\beta)} = "
    r"\frac{\ln r - \ln \alpha}{\ln\beta - \ln\alpha}",
    hypotheses=(
        r"``find_correction_dim`` $c(n)$; pair $i$ turns $r(i) = L\,b^{-2i/d}/(2\pi)$ times over the "
        r"context $L$",
        r"$L, d, n, r > 0$ and $b = 1 + \epsilon$, $\epsilon > 0$, symbolic; $0 < \alpha < \beta$ "
        r"(``beta_slow``, ``beta_fast``)",
        r"the ramp without the rounding of ``truncate`` (the floor of $c(\beta)$ and the ceiling of "
        r"$c(\alpha)$ only widen it)",
    ),
)
def yarn_reference_ramp() -> Iterator[Step]:
    base, dim, beta = (
        1 + sp.Symbol("epsilon", positive=True),
        sp.Symbol("d", positive=True),
        sp.Symbol("beta", positive=True),
    )
    index = sp.Symbol("i", real=True)

    def correction_dim(turns: sp.Expr) -> sp.Expr:
        return dim * sp.log(CONTEXT / (turns * 2 * sp.pi)) / (2 * sp.log(base))

    def turns_of(i: sp.Expr) -> sp.Expr:
        return CONTEXT * rope_frequency(i, dim, base) / (2 * sp.pi)

    ramp = (correction_dim(RATIO) - correction_dim(beta)) / (correction_dim(ALPHA) - correction_dim(beta))
    reference = (sp.log(RATIO) - sp.log(ALPHA)) / (sp.log(beta) - sp.log(ALPHA))
    rho = sp.Symbol("rho", real=True)
    yield identity(
        turns_of(correction_dim(TURNS)),
        TURNS,
        "c(n) inverts the turn count: pair c(n) turns exactly n times over the context",
        claim=r"r\bigl(c(n)\bigr) = n",
    )
    yield fact(
        r"\frac{d}{di}\ln r(i) = -\frac{2\ln b}{d} < 0",
        r"SymPy differentiates and proves the sign: higher pairs turn fewer times, so $r > \beta \iff "
        r"i < c(\beta)$ and $r < \alpha \iff i > c(\alpha)$",
        lambda: (
            is_zero(sp.diff(turns_of(index), index) / turns_of(index) + 2 * sp.log(base) / dim)
            and bool((-2 * sp.log(base) / dim).is_negative)
        ),
    )
    yield identity(
        1 - ramp,
        reference,
        r"the ramp $(i - c(\beta))/(c(\alpha) - c(\beta))$ at $i = c(r)$; every $c$ is $\ln$ of a "
        r"quotient, so $L$, $2\pi$, $d$ and $\ln b$ cancel",
        claim=r"1 - \frac{c(r) - c(\beta)}{c(\alpha) - c(\beta)} = \frac{\ln r - \ln\alpha}"
        r"{\ln\beta - \ln\alpha}",
    )
    yield identity(
        reference.subs(RATIO, beta),
        1,
        "kept at r = β, as in the paper",
        claim=r"\gamma_{\text{ref}}(\beta) = 1",
    )
    yield identity(
        reference.subs(RATIO, ALPHA),
        0,
        "interpolated at r = α, as in the paper",
        claim=r"\gamma_{\text{ref}}(\alpha) = 0",
    )
    yield identity(
        sp.diff(reference.subs(RATIO, sp.exp(rho)), rho),
        1 / (sp.log(beta) - sp.log(ALPHA)),
        r"linear in $\rho = \ln r$ (equivalently in the index $i$)",
        claim=r"\frac{d\gamma_{\text{ref}}}{d\ln r} = \frac{1}{\ln\beta - \ln\alpha}",
    )
    paper_value = (sp.Integer(4) - 1) / (sp.Integer(32) - 1)
    reference_value = reference.subs({RATIO: 4, ALPHA: 1, beta: 32})
    yield inequality(
        reference_value,
        paper_value,
        r"so between $\alpha$ and $\beta$ it is not the paper's $\gamma$: at $\alpha = 1$, "
        r"$\beta = 32$, $r = 4$ the code's weight on $\theta$ is $\ln 4/\ln 32 = 2/5$, "
        r"the paper's $3/31$",
        claim=r"\frac{\ln 4}{\ln 32} \neq \frac{4 - 1}{32 - 1}",
    )


@derivation(
    id="scaling.llama3",
    title="Llama 3's rule: three regimes, continuous at both boundaries",
    statement=r"\theta' = \begin{cases}\theta & \lambda < L_0/h\\ \theta/s & \lambda > L_0/l\\ "
    r"(1-\sigma)\frac{\theta}{s} + \sigma\theta & \text{otherwise}\end{cases},\quad "
    r"\sigma = \frac{L_0/\lambda - l}{h - l}",
    hypotheses=(
        r"$\lambda = 2\pi/\theta$; $\rho = L_0/\lambda$; $l$ = ``low_freq_factor``, $h = l + w$ = "
        r"``high_freq_factor``, $w > 0$; $L_0$, $\theta$, $s$, $\rho > 0$ symbolic",
        r"test points $\rho = h + \delta$, $\rho = l - \delta$ ($0 < \delta < l$), $\rho = l + w\,v/(u+v)$",
    ),
)
def llama3() -> Iterator[Step]:
    original, low = sp.Symbol("L_0", positive=True), ALPHA
    high = BETA
    wavelength = original / RATIO
    smooth = (RATIO - low) / (high - low)
    middle = (1 - smooth) * THETA / FACTOR + smooth * THETA
    kept, interpolated = sp.StrictGreaterThan(RATIO, high), sp.StrictLessThan(RATIO, low)
    rule = sp.Piecewise((THETA, kept), (THETA / FACTOR, interpolated), (middle, True))
    yield identity(
        original / high - wavelength,
        original / (high * RATIO) * (RATIO - high),
        r"the factor $L_0/(h\rho)$ is positive, so $\lambda < L_0/h \iff \rho > h$",
        claim=r"\frac{L_0}{h} - \lambda = \frac{L_0}{h\rho}\,(\rho - h)",
    )
    yield identity(
        wavelength - original / low,
        original / (low * RATIO) * (low - RATIO),
        r"likewise $\lambda > L_0/l \iff \rho < l$",
        claim=r"\lambda - \frac{L_0}{l} = \frac{L_0}{l\rho}\,(l - \rho)",
    )
    yield regime(
        rule,
        {RATIO: high + DELTA},
        THETA,
        r"\lambda < L_0/h \Rightarrow \theta' = \theta",
        "high-frequency pairs (short wavelengths) are kept",
    )
    yield regime(
        rule,
        {RATIO: low - DELTA},
        THETA / FACTOR,
        r"\lambda > L_0/l \Rightarrow \theta' = \theta/s",
        "low-frequency pairs (wavelengths beyond L₀/l) are interpolated",
    )
    yield regime(
        rule,
        {RATIO: BETWEEN},
        middle.subs(RATIO, BETWEEN),
        r"L_0/h \le \lambda \le L_0/l \Rightarrow "
        r"\theta' = (1-\sigma)\frac{\theta}{s} + \sigma\theta",
        "between, the blend",
    )
    yield identity(
        middle.subs(RATIO, high),
        THETA,
        "the blend meets the kept regime at λ = L₀/h",
        claim=r"\sigma = 1 \text{ at } \lambda = L_0/h:\ \theta' = \theta",
    )
    yield identity(
        middle.subs(RATIO, low),
        THETA / FACTOR,
        "and the interpolated one at λ = L₀/l",
        claim=r"\sigma = 0 \text{ at } \lambda = L_0/l:\ \theta' = \theta/s",
    )
    yield identity(
        middle,
        ntk_by_parts(THETA, (RATIO - low) / (high - low)),
        r"the blend is YaRN's $h(\theta)$ with $r = \rho = L_0/\lambda$, $\alpha = l$, "
        r"$\beta = h$: Llama 3 is the paper's NTK-by-parts with $\alpha = 1$, $\beta = 4$ "
        r"and no temperature",
        claim=r"(1-\sigma)\frac{\theta}{s} + \sigma\theta = "
        r"h(\theta)\big|_{\alpha = l,\ \beta = h}",
    )


#: YaRN's factor a = √(1/t) on cos and sin, and the logit factor 1/t = a², as functions of s.
ATTENTION_FACTOR = sp.log(FACTOR) / 10 + 1
INVERSE_TEMPERATURE = ATTENTION_FACTOR**2
SCALE = sp.Symbol("a", positive=True)


@dataclass(frozen=True)
class ScaledRope(Rope):
    """RoPE whose output is multiplied by `scale` (YaRN's temperature folded into q and k)."""

    scale: sp.Expr = sp.S.One

    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        return self.scale * super().rotate_exact(x, m, thetas)


def block_scaling_step(scaled: ScaledRope | None = None) -> Step:
    """⟨a R(α) u, a R(β) v⟩ = a²⟨R(α) u, R(β) v⟩ for one 2×2 block: u, v ∈ ℝ², angles α, β, a symbolic.

    The block is rotated by the first pair of `scaled` (default: `ScaledRope(2, scale=a)`)."""
    rope = ScaledRope(2, scale=SCALE) if scaled is None else scaled
    u, v = vector("u", 2), vector("v", 2)
    alpha, beta = sp.symbols("alpha beta", real=True)
    lhs = (rope.rotate_exact(u, alpha, [1]).T * rope.rotate_exact(v, beta, [1]))[0]
    rhs = SCALE**2 * ((rotation(alpha) * u).T * (rotation(beta) * v))[0]
    return identity(
        lhs,
        rhs,
        "the score of a block is bilinear in its two rotated vectors, so the factor a on each comes out "
        "squared",
        claim=r"\langle a R(\alpha) u, a R(\beta) v\rangle = a^2 \langle R(\alpha) u, R(\beta) v\rangle",
    )


def block_sum_step() -> Step:
    """Σ_{i<d/2} a²·b_i = a²·Σ_{i<d/2} b_i for a symbolic number d/2 of blocks with scores b_i."""
    i, half = sp.Symbol("i", integer=True), sp.Symbol("h", integer=True, positive=True)
    block = sp.IndexedBase("b", real=True)
    lhs = sp.Sum(SCALE**2 * block[i], (i, 0, half - 1))
    rhs = SCALE**2 * sp.Sum(block[i], (i, 0, half - 1))
    return fact(
        r"\langle a R_m q, a R_n k\rangle = \sum_{i<d/2} a^2 b_i = a^2 \sum_{i<d/2} b_i = "
        r"a^2 \langle R_m q, R_n k\rangle \quad (\text{every even } d)",
        r"in either layout the $d/2$ pairs are disjoint coordinates, so the score is the sum of the block "
        r"scores $b_i = \langle R(m\theta_i) q_i, R(n\theta_i) k_i\rangle$; SymPy takes the constant out of "
        r"a sum of symbolic length $d/2$",
        lambda: sp.simplify(lhs - rhs) == 0,
    )


def scaled_score_step(d: int = 4) -> Step:
    """⟨a R_m q, a R_n k⟩ = a²⟨R_m q, R_n k⟩ with the `Rope` maps, symbolic q, k ∈ ℝ^d, m, n, θ_i and a."""
    q, k, th = vector("q", d), vector("k", d), thetas(d)
    scaled = ScaledRope(d, scale=SCALE)
    lhs = score(scaled, scaled, q, k, M, N, th)
    rhs = SCALE**2 * score(Rope(d), Rope(d), q, k, M, N, th)
    return fact(
        rf"\langle a R_m q, a R_n k\rangle = a^2 \langle R_m q, R_n k\rangle \quad (d = {d})",
        "the assembled maps of `Rope`, expanded",
        lambda: sp.expand(lhs - rhs) == 0,
    )


@derivation(
    id="scaling.yarn_temperature",
    title="YaRN's temperature scales every logit by (0.1 ln s + 1)²",
    statement=r"\langle a R_m q, a R_n k\rangle = a^2\langle R_m q, R_n k\rangle,\quad a = 0.1\ln s + 1,"
    r"\quad a^2 = 1 \text{ at } s = 1,\quad \frac{d}{ds} a^2 > 0 \ (s \ge 1)",
    hypotheses=(
        r"$q, k \in \mathbb{R}^d$, $m, n$, $\theta_i$ and $a > 0$ symbolic; $d/2$ a symbolic positive "
        r"integer.",
        r"$s = 1 + e$ with $e \ge 0$ symbolic for the monotonicity.",
    ),
)
def yarn_temperature() -> Iterator[Step]:
    excess = sp.Symbol("e", nonnegative=True)
    yield block_scaling_step()
    yield block_sum_step()
    yield scaled_score_step()
    yield identity(
        INVERSE_TEMPERATURE.subs(FACTOR, 1),
        1,
        r"$\ln 1 = 0$: no change without extension",
        claim=r"(0.1 \ln 1 + 1)^2 = 1",
    )
    yield fact(
        r"\frac{d}{ds}(0.1 \ln s + 1)^2 > 0 \text{ at } s = 1 + e,\ e \ge 0",
        r"the derivative $\tfrac{2}{10 s}(0.1\ln s + 1)$ is positive for $s \ge 1$: the factor grows with "
        r"$s$ and sharpens the softmax",
        lambda: bool(sp.diff(INVERSE_TEMPERATURE, FACTOR).subs(FACTOR, 1 + excess).is_positive),
    )


# ------------------------------------------------ position interpolation's error bounds (Chen et al. 2023)

#: u = x·ln c for the tangent line (u = (4/d)·ln c > 0 in the proof's eq. 14); w ∈ (0, 1) as 1/(1 + z).
PI_U = sp.Symbol("u", real=True)
PI_POSITIVE_U = sp.Symbol("u", positive=True)
PI_Z = sp.Symbol("z", positive=True)
PI_W = sp.Symbol("w", real=True)
#: Stand-ins for the two positive integrals ∫_0^1 (1 − w)·e^{±uw} dw.
PI_P, PI_Q = sp.symbols("P Q", positive=True)


def tangent_gap_integral(u: sp.Expr) -> sp.Expr:
    """∫_0^1 (1 − w)·e^{uw} dw for u ≠ 0 (SymPy's generic branch), so that e^u − 1 − u = u²·(this integral);
    at u = 0 both sides of that identity vanish."""
    return sp.integrate((1 - PI_W) * sp.exp(u * PI_W), (PI_W, 0, 1), conds="none")


def tangent_gap_integrand(u: sp.Expr) -> sp.Expr:
    """u²·(1 − w)·e^{uw} at w = 1/(1 + z), a point of (0, 1) for every z > 0."""
    w = 1 / (1 + PI_Z)
    return u**2 * (1 - w) * sp.exp(u * w)


@derivation(
    id="scaling.pi_tangent_line",
    title="The exponential lies above its tangent line: the step c^(−4/d) ≤ 1 − (4/d) ln c is reversed",
    statement=r"c^x \ge 1 + x\ln c\ \ (x \in \mathbb{R}),\qquad "
    r"c^{-4/d} > 1 - \tfrac{4}{d}\ln c,\qquad "
    r"\frac{d}{4\ln c} < \frac{1}{1 - c^{-4/d}} \le 1 + \frac{d}{4\ln c}",
    hypotheses=(
        r"$c > 1$, $d > 0$; $u = x\ln c$ real symbolic, and $u = \tfrac{4}{d}\ln c > 0$ symbolic for the "
        r"last two",
        r"Chen et al. 2023 (arXiv 2306.15595), Appendix A, eq. (14): 'when $x < 0$ and $c > 1$, "
        r"$c^x \le 1 + x\ln c$, therefore $c^{-4/d} \le 1 - 4/d\ln c$'",
    ),
)
def pi_tangent_line() -> Iterator[Step]:
    real, positive, p, q = PI_U, PI_POSITIVE_U, PI_P, PI_Q
    yield fact(
        r"e^u - 1 - u = u^2 \int_0^1 (1 - w)\,e^{uw}\,dw",
        "Taylor's formula with integral remainder, integrated by SymPy for real symbolic u ≠ 0 (at u = 0 "
        "both sides are 0)",
        lambda: is_zero(real**2 * tangent_gap_integral(real) - (sp.exp(real) - 1 - real)),
    )
    yield fact(
        r"u^2 (1 - w)\,e^{uw} \ge 0 \ (0 < w < 1) \implies c^x = e^u \ge 1 + u = 1 + x\ln c",
        "the integrand is a square times a positive factor at every w = 1/(1 + z) of (0, 1): the tangent "
        "line at x = 0 lies below the exponential for every real x, negative x included",
        lambda: bool(tangent_gap_integrand(real).is_nonnegative),
    )
    yield fact(
        r"c^{-4/d} - \bigl(1 - \tfrac{4}{d}\ln c\bigr) = e^{-u} - 1 + u = u^2\int_0^1 (1-w)\,e^{-uw}\,dw > 0",
        r"the previous two steps at $-u$, strictly for $u \ne 0$: eq. (14) fails for every $d$ and every "
        r"$c > 1$",
        lambda: (
            is_zero(positive**2 * tangent_gap_integral(-positive) - (sp.exp(-positive) - 1 + positive))
            and bool(tangent_gap_integrand(-positive).is_positive)
        ),
    )
    integrals = {
        p: (sp.exp(positive) - 1 - positive) / positive**2,
        q: (sp.exp(-positive) - 1 + positive) / positive**2,
    }
    below = sp.exp(positive) * positive**2 * q / (positive * (positive + positive**2 * p))
    yield fact(
        r"\frac{1}{1 - e^{-u}} - \frac{1}{u} = \frac{e^u\,u^2 Q}{u\,(u + u^2 P)} > 0,\quad "
        r"P, Q = \int_0^1 (1-w)\,e^{\pm uw}\,dw > 0",
        r"so the proof's constant $d/(4\ln c) = 1/u$ lies below $1/(1 - c^{-4/d})$, the series it was meant "
        r"to bound from above",
        lambda: (
            is_zero((1 / (1 - sp.exp(-positive)) - 1 / positive) - below.subs(integrals))
            and bool(below.is_positive)
        ),
    )
    above = positive**2 * p / (positive * (positive + positive**2 * p))
    yield fact(
        r"1 + \frac{1}{u} - \frac{1}{1 - e^{-u}} = \frac{1}{u} - \frac{1}{e^u - 1} = "
        r"\frac{u^2 P}{u\,(u + u^2 P)} > 0",
        r"the inequality in its true direction gives $\frac{1}{1 - c^{-4/d}} \le 1 + \frac{d}{4\ln c}$",
        lambda: (
            is_zero((1 + 1 / positive - 1 / (1 - sp.exp(-positive))) - above.subs(integrals))
            and bool(above.is_positive)
        ),
    )


@derivation(
    id="scaling.pi_curvature_sum",
    title="Position interpolation's curvature bound: |a''| ≤ max|h|·Σθ_j², a geometric sum, and the Taylor "
    "remainder (Chen et al. eqs. 12, 13, 16)",
    statement=r"|a''(s)| \le \max_j|h_j| \sum_{j<d/2}\theta_j^2 = \max_j|h_j|\,"
    r"\frac{1 - c^{-2}}{1 - c^{-4/d}} \le \frac{\max_j|h_j|}{1 - c^{-4/d}},\qquad "
    r"|R(s)| \le \frac{M}{2}(s - s_1)(s_2 - s)",
    hypotheses=(
        r"$a(s) = \mathrm{Re}\sum_{j<d/2} h_j e^{\mathrm{i}s\theta_j}$, $\theta_j = c^{-2j/d}$, $c > 1$",
        r"$d/2 = n$ a symbolic positive integer; $r = c^{-4/d} = 1/(1 + z)$ with $z > 0$",
        r"$M \ge |a''|$ on $[s_1, s_2]$",
    ),
)
def pi_curvature_sum() -> Iterator[Step]:
    h, theta, s = sp.Symbol("h"), sp.Symbol("theta", positive=True), sp.Symbol("s", real=True)
    yield identity(
        sp.diff(h * sp.exp(sp.I * s * theta), s, 2),
        -(theta**2) * h * sp.exp(sp.I * s * theta),
        r"each term's second derivative is $-\theta_j^2$ times the term, so "
        r"$|a''| \le \sum_j |h_j|\theta_j^2$",
        claim=r"\frac{d^2}{ds^2}\,h e^{\mathrm{i}s\theta} = -\theta^2 h e^{\mathrm{i}s\theta}",
    )
    j = sp.Symbol("j", integer=True, nonnegative=True)
    c, d = sp.Symbol("c", positive=True), sp.Symbol("d", positive=True)
    yield identity(
        frequency_expr(j, d, c) ** 2,
        (c ** (-4 / d)) ** j,
        r"$\theta_j^2 = (c^{-4/d})^j$: the squares form a geometric sequence of ratio $r = c^{-4/d}$",
        claim=r"\theta_j^2 = \bigl(c^{-4/d}\bigr)^j",
    )
    n = sp.Symbol("n", integer=True, positive=True)
    r = 1 / (1 + PI_Z)
    yield fact(
        r"\sum_{j<n} r^j = \frac{1 - r^n}{1 - r} \le \frac{1}{1 - r}\quad (r^n = c^{-2} \text{ at } n = d/2)",
        "SymPy sums the geometric series of symbolic length n; what eq. (13) drops, r^n/(1 − r), is positive",
        lambda: (
            is_zero(sp.summation(r**j, (j, 0, n - 1)) - (1 - r**n) / (1 - r))
            and bool((r**n / (1 - r)).is_positive)
        ),
    )
    big_m = sp.Symbol("M", positive=True)
    left, right = sp.symbols("l r", positive=True)  # s − s_1 and s_2 − s
    yield identity(
        left * right / (2 * (left + right)) * (big_m * left + big_m * right),
        big_m / 2 * left * right,
        "eq. (16): the Taylor remainders at both ends, each at most M times its square, combine to "
        r"$\frac{M}{2}(s - s_1)(s_2 - s)$",
        claim=r"\frac{(s-s_1)(s_2-s)}{2(s_2-s_1)}\bigl[M(s-s_1) + M(s_2-s)\bigr] = \frac{M}{2}(s-s_1)(s_2-s)",
    )


@derivation(
    id="scaling.pi_midpoint_error",
    title="The worst interpolation error at the midpoint of a unit step is Σ_j 2 sin²(θ_j/4), and on short "
    "steps the error per (s − s_1)(s_2 − s) tends to Σ_j θ_j²/2",
    statement=r"\sup_{|h_j| \le 1} \bigl|a(\tfrac12) - a_{\mathrm{lin}}(\tfrac12)\bigr|_{[0,1]} = "
    r"\sum_{j<d/2} 2\sin^2\tfrac{\theta_j}{4},\qquad "
    r"\lim_{\delta \to 0} \frac{1 - \cos\delta\theta}{\delta^2} = \frac{\theta^2}{2}",
    hypotheses=(
        r"$a(s) = \mathrm{Re}\sum_j h_j e^{\mathrm{i}s\theta_j}$; $a_{\mathrm{lin}}$ the chord through "
        r"$(s_1, a(s_1))$ and $(s_2, a(s_2))$; $\theta$ real symbolic",
    ),
)
def pi_midpoint_error() -> Iterator[Step]:
    theta = sp.Symbol("theta", real=True)
    half = sp.exp(sp.I * theta / 2)
    yield fact(
        r"e^{\mathrm{i}\theta/2} - \frac{1 + e^{\mathrm{i}\theta}}{2} = e^{\mathrm{i}\theta/2}"
        r"\bigl(1 - \cos\tfrac{\theta}{2}\bigr)",
        r"at $s = 1/2$ on $[0, 1]$ the chord weights both ends by $1/2$; written with $\cos$ and $\sin$",
        lambda: is_zero(
            (half - (1 + sp.exp(sp.I * theta)) / 2 - half * (1 - sp.cos(theta / 2))).rewrite(sp.cos)
        ),
    )
    yield fact(
        r"\Bigl|e^{\mathrm{i}\theta/2}\bigl(1 - \cos\tfrac{\theta}{2}\bigr)\Bigr| = 2\sin^2\tfrac{\theta}{4}",
        r"$1 - \cos\tfrac{\theta}{2} = 2\sin^2\tfrac{\theta}{4} \ge 0$ and "
        r"$|e^{\mathrm{i}\theta/2}| = 1$: by the triangle inequality no $|h_j| \le 1$ gives more than "
        r"$\sum_j 2\sin^2(\theta_j/4)$",
        lambda: (
            is_zero(1 - sp.cos(theta / 2) - 2 * sp.sin(theta / 4) ** 2)
            and is_zero(sp.Abs(half * 2 * sp.sin(theta / 4) ** 2) - 2 * sp.sin(theta / 4) ** 2)
        ),
    )
    query = sp.cos(theta / 2) - sp.I * sp.sin(theta / 2)
    yield fact(
        r"h = \bigl(\cos\tfrac{\theta}{2} - \mathrm{i}\sin\tfrac{\theta}{2}\bigr)(1 - \mathrm{i}\cdot 0) "
        r"= e^{-\mathrm{i}\theta/2},\quad "
        r"\mathrm{Re}\Bigl[h\,e^{\mathrm{i}\theta/2}\bigl(1 - \cos\tfrac{\theta}{2}\bigr)\Bigr] = "
        r"2\sin^2\tfrac{\theta}{4}",
        "the query pair (cos(θ/2), −sin(θ/2)) and the key pair (1, 0) reach the bound, term by term",
        lambda: (
            is_zero((query - sp.exp(-sp.I * theta / 2)).rewrite(sp.cos))
            and is_zero(
                sp.re(sp.expand(query * half * (1 - sp.cos(theta / 2))).rewrite(sp.cos))
                - 2 * sp.sin(theta / 4) ** 2
            )
        ),
    )
    delta = sp.Symbol("delta", positive=True)
    yield fact(
        r"\lim_{\delta\to 0}\frac{1 - \cos\delta\theta}{\delta^2} = \frac{\theta^2}{2}",
        r"on $[s - \delta, s + \delta]$ with $h_j = e^{-\mathrm{i}s\theta_j}$ the error is "
        r"$\sum_j (1 - \cos\delta\theta_j)$ and $(s - s_1)(s_2 - s) = \delta^2$: no constant below "
        r"$\max|a''|/2 = \sum_j\theta_j^2/2$ bounds the error of every short step",
        lambda: is_zero(sp.limit((1 - sp.cos(delta * theta)) / delta**2, delta, 0) - theta**2 / 2),
    )


@derivation(
    id="scaling.pi_bound_ratio",
    title="Position interpolation's 2 · 294.73: the ratio of the extrapolation bound at B(s) = d to the "
    "interpolation bound on a unit step is 64 ln c",
    statement=r"(s-s_1)(s_2-s) \le \tfrac14\ (s_2 = s_1 + 1),\qquad "
    r"\frac{d}{8\ln c}\cdot\frac14 = \frac{d}{32\ln c},\qquad "
    r"\frac{2\,d}{d/(32\ln c)} = 64\ln c,\qquad 64\ln 10^4 = 256\ln 10",
    hypotheses=(r"$d > 0$, $c > 1$ symbolic; $B(s) = d$ in the extrapolation bound $2\max_j|h_j|\,B(s)$",),
)
def pi_bound_ratio() -> Iterator[Step]:
    s, s1 = sp.symbols("s s_1", real=True)
    c, d = sp.Symbol("c", positive=True), sp.Symbol("d", positive=True)
    yield fact(
        r"(s - s_1)(s_1 + 1 - s) = \tfrac14 - \bigl(s - s_1 - \tfrac12\bigr)^2 \le \tfrac14",
        "on a unit step of the integer grid the product is largest at the midpoint",
        lambda: (
            is_zero((s - s1) * (s1 + 1 - s) - (sp.Rational(1, 4) - (s - s1 - sp.Rational(1, 2)) ** 2))
            and bool(((s - s1 - sp.Rational(1, 2)) ** 2).is_nonnegative)
        ),
    )
    interpolation = d / (8 * sp.log(c)) * sp.Rational(1, 4)
    yield identity(
        interpolation,
        d / (32 * sp.log(c)),
        r"eq. (7): Theorem 2.1's bound per $\max_j|h_j|$ on a unit step",
        claim=r"\frac{d}{8\ln c}\cdot\frac14 = \frac{d}{32\ln c}",
    )
    extrapolation = 2 * d
    yield identity(
        extrapolation / interpolation,
        64 * sp.log(c),
        r"the extrapolation bound $2\max_j|h_j|\,B(s)$ at $B(s) = d$ over the interpolation bound",
        claim=r"\frac{2\,d}{d/(32\ln c)} = 64\ln c = 2\cdot 32\ln c",
    )
    yield identity(
        sp.expand_log(64 * sp.log(sp.Integer(10000))),
        256 * sp.log(10),
        r"at $c = 10^4$: $32\ln c = 128\ln 10$ and the ratio is $256\ln 10$",
        claim=r"64\ln 10^4 = 256\ln 10",
    )


@derivation(
    id="scaling.critical_dimension",
    title="Liu et al.'s critical dimension: pair n completes a period within T exactly when "
    "n ≤ (d/2)·log_b(T/2π)",
    statement=r"\frac{2\pi}{\theta_n} = 2\pi b^{2n/d} \le T \iff n \le \frac{d}{2}\log_b\frac{T}{2\pi}",
    hypotheses=(r"$\theta_n = b^{-2n/d}$ with $b > 1$, $d > 0$, $n \ge 0$, $T > 0$ symbolic",),
)
def critical_dimension() -> Iterator[Step]:
    n, d = sp.Symbol("n", nonnegative=True), sp.Symbol("d", positive=True)
    b, length = sp.Symbol("b", positive=True), sp.Symbol("T", positive=True)
    period = 2 * sp.pi / frequency_expr(n, d, b)
    exponent = d / 2 * sp.log(length / (2 * sp.pi)) / sp.log(b)
    yield identity(
        d / 2 * sp.expand_log(sp.log(period / (2 * sp.pi)), force=True) / sp.log(b),
        n,
        r"the period of pair $n$ over $2\pi$ is $b^{2n/d}$: $\frac{d}{2}$ times its base-$b$ logarithm "
        r"is $n$",
        claim=r"\frac{d}{2}\log_b\frac{2\pi/\theta_n}{2\pi} = n",
    )
    yield identity(
        d / 2 * sp.expand_log(sp.log(length / period), force=True) / sp.log(b),
        sp.expand_log(exponent, force=True) - n,
        r"$\log_b$ is increasing for $b > 1$, so $2\pi/\theta_n \le T$ exactly when "
        r"$\frac{d}{2}\log_b\frac{T}{2\pi} - n \ge 0$; for $x = \frac{d}{2}\log_b\frac{T}{2\pi}$ not an "
        r"integer the pairs $n = 0, \dots, \lceil x\rceil - 1$ fit: $d_{\mathrm{extra}} = 2\lceil x\rceil$ "
        "dims",
        claim=r"\frac{d}{2}\log_b\frac{T}{2\pi/\theta_n} = \frac{d}{2}\log_b\frac{T}{2\pi} - n",
    )
