"""ALiBi (Press, Smith & Lewis, "Train Short, Test Long", 2022): the bias −m·(i − j), what it does to the
softmax weights, and the head slopes of the authors' fairseq ``get_slopes``
(ofirpress/attention_with_linear_biases)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import sympy as sp

from .derivation import Step, derivation, fact, identity, inequality

QUERY, KEY, SHIFT = sp.symbols("i j t", integer=True)
SLOPE = sp.Symbol("m", positive=True)
A, DELTA = sp.Symbol("a", nonnegative=True), sp.Symbol("delta", positive=True)
H, K = sp.symbols("h k", integer=True, positive=True)
LOG2_HEADS = sp.Symbol("k", integer=True, nonnegative=True)
HEADS = 2**LOG2_HEADS
POWER = sp.Symbol("c", positive=True)
OTHER_HEAD_COUNTS = (6, 12, 20)


def causal_bias(i: sp.Expr, j: sp.Expr) -> sp.Expr:
    """The ALiBi bias of query i and key j: −m·(i − j) for j ≤ i, −∞ (masked) for j > i."""
    return sp.Piecewise((-SLOPE * (i - j), j <= i), (-sp.oo, True))


def penalty(i: sp.Expr, j: sp.Expr) -> sp.Expr:
    """The ALiBi penalty of query i and key j ≤ i, unmasked: −m·(i − j)."""
    return -SLOPE * (i - j)


def softmax(logits: list[sp.Expr]) -> list[sp.Expr]:
    """The softmax weights e^{x_k} / Σ e^{x_l} of a row of logits."""
    total = sp.Add(*(sp.exp(x) for x in logits))
    return [sp.exp(x) / total for x in logits]


def reference_slopes(n: int) -> list[sp.Expr]:
    """The slopes as fairseq's ``get_slopes`` builds them, in exact arithmetic.

    n = 2^k: start = ratio = 2^(−2^(−(log₂ n − 3))) and slope i = start·ratio^i; otherwise, with c the largest
    power of two below n, the c slopes of c heads followed by ``get_slopes(2c)[0::2][:n − c]``.
    """
    log2 = sp.log(n, 2)
    if log2.is_integer:
        start = sp.Integer(2) ** (-(sp.Integer(2) ** (-(log2 - 3))))
        return [start * start**i for i in range(n)]
    c = 2 ** int(sp.floor(log2))
    return reference_slopes(c) + reference_slopes(2 * c)[0::2][: n - c]


def interleaved_slopes(n: int) -> list[sp.Expr]:
    """Two geometric sequences, both of ratio 2^(−8/c) with c = 2^⌊log₂ n⌋: 2^(−8h/c), h = 1, …, c, then
    2^(−4(2k − 1)/c), k = 1, …, n − c (for n = c the first alone, the formula m_h = 2^(−8h/n))."""
    c = 2 ** (n.bit_length() - 1)
    first = [sp.Integer(2) ** sp.Rational(-8 * h, c) for h in range(1, c + 1)]
    return first + [sp.Integer(2) ** sp.Rational(-4 * (2 * k - 1), c) for k in range(1, n - c + 1)]


@derivation(
    id="alibi.offset_only",
    title="The ALiBi bias depends on the offset i − j only",
    statement=r"B(i+t, j+t) = B(i, j) \text{ for every shift } t, \qquad B(i, j) = -m\,(i-j)\ (j \le i),"
    r"\ -\infty\ (j > i)",
    hypotheses=(r"$i, j, t$ integers (query position, key position, shift); $m > 0$ the head's slope",),
)
def offset_only() -> Iterator[Step]:
    shifted = causal_bias(QUERY + SHIFT, KEY + SHIFT)
    yield identity(
        shifted,
        causal_bias(QUERY, KEY),
        r"$(i+t) - (j+t) = i - j$, and $j + t \le i + t \iff j \le i$: value and mask shift away",
        claim=r"B(i+t, j+t) = B(i, j)",
    )
    yield identity(
        sp.Abs((QUERY + SHIFT) - (KEY + SHIFT)),
        sp.Abs(QUERY - KEY),
        r"the symmetric (bidirectional) variant $-m\,|i-j|$ is shift-invariant as well",
        claim=r"|(i+t) - (j+t)| = |i - j|",
    )
    yield identity(
        SLOPE * KEY - (-SLOPE * (QUERY - KEY)),
        SLOPE * QUERY,
        r"fairseq adds $m\,j$ to row $i$ instead: it differs from $-m\,(i-j)$ by $m\,i$, "
        r"the same for every key of the row",
    )
    x = sp.symbols("x1:4", real=True)
    constant = sp.Symbol("C", real=True)
    yield identity(
        sp.Matrix(softmax([xk + constant for xk in x])),
        sp.Matrix(softmax(list(x))),
        r"a constant added to a whole row cancels in the softmax ($e^{C}$ divides out), so the "
        r"row-constant form $m\,j$ gives the same attention weights as $-m\,(i-j)$",
        claim=r"\operatorname{softmax}(x + C\mathbf{1}) = \operatorname{softmax}(x)",
    )


@derivation(
    id="alibi.softmax_ratio",
    title="ALiBi multiplies the weight ratio of two keys by exp(m(b − a))",
    statement=r"\frac{w_a}{w_b} = e^{\,m(b-a)}\,\frac{w^0_a}{w^0_b} \quad\text{and}\quad e^{\,m(b-a)} > 1"
    r"\ \text{for } a < b",
    hypotheses=(
        r"one query row with any number of visible keys; two of them at distances $a$ and $b$ with content "
        r"logits $s_a, s_b$ (symbolic reals); $w_k = e^{x_k}/Z$ the softmax weights with the bias "
        r"($x_k = s_k - m k$, $Z = \sum_l e^{x_l} > 0$ symbolic), $w^0_k = e^{s_k}/Z_0$ without",
        r"$m > 0$; $b = a + \delta$ with $\delta > 0$",
    ),
)
def softmax_ratio() -> Iterator[Step]:
    s_a, s_b = sp.symbols("s_a s_b", real=True)
    total, total0 = sp.symbols("Z Z_0", positive=True)
    b = A + DELTA
    w_a, w_b = sp.exp(s_a - SLOPE * A) / total, sp.exp(s_b - SLOPE * b) / total
    w0_a, w0_b = sp.exp(s_a) / total0, sp.exp(s_b) / total0
    yield identity(
        w_a / w_b,
        sp.exp(s_a - s_b) * sp.exp(SLOPE * (b - A)),
        r"the normaliser $\sum_l e^{x_l}$ cancels; $x_a = s_a - m a$, $x_b = s_b - m b$",
        claim=r"\frac{w_a}{w_b} = e^{s_a - s_b}\, e^{m(b-a)}",
    )
    yield identity(
        w0_a / w0_b,
        sp.exp(s_a - s_b),
        "the same without the bias",
        claim=r"\frac{w^0_a}{w^0_b} = e^{s_a - s_b}",
    )
    yield identity(
        (w_a / w_b) / (w0_a / w0_b),
        sp.exp(SLOPE * DELTA),
        r"divide: the content scores and the normalisers drop out; only $b - a = \delta$ remains",
        claim=r"\frac{w_a/w_b}{w^0_a/w^0_b} = e^{m(b-a)}",
    )
    yield fact(
        r"m\,(b - a) > 0 \ \Rightarrow\ e^{m(b-a)} > 1",
        r"SymPy: $\{x \in \mathbb{R} : e^x > 1\} = (0, \infty)$, and $m\delta > 0$; the nearer key "
        r"gains weight, by a factor that depends on $b - a$ only",
        lambda: (
            sp.solveset(sp.exp(sp.Symbol("x")) > 1, sp.Symbol("x"), sp.S.Reals) == sp.Interval.open(0, sp.oo)
            and bool((SLOPE * DELTA).is_positive)
        ),
    )


@derivation(
    id="alibi.slopes_power_of_two",
    title="For 2^k heads the slopes are geometric with first term and ratio 2^(−8/n)",
    statement=r"m_h = 2^{-8h/n}\ (h = 1, \dots, n): \quad m_1 = 2^{-8/n},"
    r"\quad \frac{m_{h+1}}{m_h} = 2^{-8/n},\quad m_n = 2^{-8}",
    hypotheses=(
        r"$n = 2^k$, $k \ge 0$ a symbolic integer; $h \ge 1$ a symbolic integer",
        r"the reference rule (`Alibi.exponents`): the $c = 2^{\lfloor\log_2 n\rfloor}$ exponents $-8h/c$, "
        r"then every other exponent of $2c$ heads, the first $n - c$ of them",
    ),
)
def slopes_power_of_two() -> Iterator[Step]:
    def slope(h: sp.Expr) -> sp.Expr:
        return sp.Integer(2) ** (-8 * h / HEADS)

    start = sp.Integer(2) ** (-(sp.Integer(2) ** (-(LOG2_HEADS - 3))))
    yield identity(
        start,
        sp.Integer(2) ** (-8 / HEADS),
        r"fairseq's start $2^{-2^{-(\log_2 n - 3)}}$ with $\log_2 n = k$: $2^{-(k-3)} = 8/2^k$",
        claim=r"2^{-2^{-(\log_2 n - 3)}} = 2^{-8/n}",
    )
    yield identity(
        start * start ** (H - 1),
        slope(H),
        r"slope $h - 1$ of fairseq is start·ratio$^{h-1}$ with ratio = start",
        claim=r"2^{-8/n}\,\bigl(2^{-8/n}\bigr)^{h-1} = 2^{-8h/n}",
    )
    yield fact(
        r"c = 2^{\lfloor \log_2 n\rfloor} = n",
        r"$\lfloor \log_2 2^k\rfloor = k$ for a symbolic integer $k$: the reference rule's power of two is "
        r"$n$ itself, so its exponents are $e_h = -8h/n$ with no extra slopes",
        lambda: sp.simplify(sp.floor(sp.log(HEADS, 2))) == LOG2_HEADS,
    )
    yield identity(
        (sp.Integer(2) ** (-8 / HEADS)) ** H,
        slope(H),
        r"the exponents $-8h/n$ are $h$ times $-8/n$: slope $h$ is the $h$-th power of the first",
        claim=r"m_h = 2^{-8h/n} = \bigl(2^{-8/n}\bigr)^h",
    )
    yield identity(slope(1), sp.Integer(2) ** (-8 / HEADS), "the first term", claim=r"m_1 = 2^{-8/n}")
    yield identity(
        slope(H + 1) / slope(H),
        sp.Integer(2) ** (-8 / HEADS),
        r"consecutive slopes differ by the factor $2^{-8/n}$: the sequence is geometric",
        claim=r"\frac{m_{h+1}}{m_h} = 2^{-8/n}",
    )
    yield identity(
        slope(HEADS),
        sp.Rational(1, 256),
        r"the last head's slope is $2^{-8}$ for every $n$",
        claim=r"m_n = 2^{-8}",
    )


@derivation(
    id="alibi.slopes_other_counts",
    title="For other head counts the slopes interleave two geometric sequences",
    statement=r"n = c + r,\ c = 2^{\lfloor\log_2 n\rfloor},\ 0 < r < c:\quad "
    r"(m_h) = \bigl(2^{-8h/c}\bigr)_{h=1}^{c}\ \Vert\ \bigl(2^{-4(2k-1)/c}\bigr)_{k=1}^{r},"
    r"\quad 2^{-4(2k-1)/c} = \sqrt{m_{k-1}\,m_k}",
    hypotheses=(
        r"the rule of fairseq's ``get_slopes``: the $c$ slopes of $c$ heads, then every other slope of $2c$ "
        r"heads, the first $n - c$ of them",
        r"$c > 0$, $r > 0$ and $k \ge 1$ symbolic; $m_0 = 1$; fairseq's rule also computed exactly for "
        r"$n = 6, 12, 20$",
    ),
)
def slopes_other_counts() -> Iterator[Step]:
    every_other = sp.Integer(2) ** (-8 * (2 * K - 1) / (2 * POWER))
    extra = sp.Integer(2) ** (-4 * (2 * K - 1) / POWER)
    yield identity(
        every_other,
        extra,
        r"entries $0, 2, 4, \dots$ of the $2c$-head sequence are slopes $h = 2k - 1$: "
        r"$2^{-8(2k-1)/(2c)}$",
        claim=r"2^{-8(2k-1)/(2c)} = 2^{-4(2k-1)/c}",
    )
    yield identity(
        sp.Integer(2) ** (-4 * (2 * (K + 1) - 1) / POWER) / extra,
        sp.Integer(2) ** (-8 / POWER),
        r"the extra slopes are geometric with the ratio $2^{-8/c}$ of the first $c$",
        claim=r"\frac{2^{-4(2k+1)/c}}{2^{-4(2k-1)/c}} = 2^{-8/c}",
    )
    base_slope = sp.Integer(2) ** (-8 * K / POWER)
    previous = sp.Integer(2) ** (-8 * (K - 1) / POWER)
    yield identity(
        sp.sqrt(previous * base_slope),
        extra,
        r"the $k$-th extra slope is the geometric mean of $m_{k-1}$ and $m_k$: "
        r"it falls between them on a log scale",
        claim=r"\sqrt{2^{-8(k-1)/c}\,2^{-8k/c}} = 2^{-4(2k-1)/c}",
    )
    for n in OTHER_HEAD_COUNTS:
        c = 2 ** (n.bit_length() - 1)
        yield identity(
            sp.Matrix(reference_slopes(n)),
            sp.Matrix(interleaved_slopes(n)),
            f"fairseq's rule computed exactly for n = {n} equals the two interleaved sequences",
            claim=rf"\mathrm{{get\_slopes}}({n}) = \bigl(2^{{-8h/{c}}}\bigr)_{{h=1}}^{{{c}}}"
            rf"\ \Vert\ \bigl(2^{{-4(2k-1)/{c}}}\bigr)_{{k=1}}^{{{n - c}}}",
        )
    yield inequality(
        sp.Matrix(reference_slopes(6)),
        sp.Matrix([sp.Integer(2) ** sp.Rational(-8 * h, 6) for h in range(1, 7)]),
        r"the rule is not $2^{-8h/n}$ with $n = 6$: e.g. $m_1 = 2^{-2} \ne 2^{-4/3}$",
        claim=r"\mathrm{get\_slopes}(6) \neq \bigl(2^{-8h/6}\bigr)_{h=1}^{6}",
    )
    extra_heads = sp.Symbol("r", positive=True)
    gap = sp.simplify(-8 / POWER + 8 / (POWER + extra_heads))
    yield fact(
        r"n = c + r,\ r > 0:\quad -\frac{8}{c} - \Bigl(-\frac{8}{n}\Bigr) = -\frac{8r}{c\,(c+r)} < 0",
        r"for every head count that is not a power of two the first slope $2^{-8/c}$ lies below "
        r"$2^{-8/n}$: the rule is never $2^{-8h/n}$",
        lambda: (
            sp.simplify(gap + 8 * extra_heads / (POWER * (POWER + extra_heads))) == 0
            and bool(gap.is_negative)
        ),
    )


def slope_reach(slopes: Sequence[sp.Expr], distance: int) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
    """Per slope m, exactly: m, the distance ln 10/m at which a key keeps a tenth of the nearest key's
    softmax weight (equal content), and the factor e^(m·distance) the nearest key gains over one that far."""
    return [(m, sp.log(10) / m, sp.exp(m * distance)) for m in slopes]


@derivation(
    id="alibi.linear_penalty",
    title="The ALiBi penalty is linear in the distance: −m per token, the same at every position",
    statement=r"B(i, j) = -m\,(i-j):\quad \Delta_i^2 B = \Delta_j^2 B = 0,\qquad B(i+1, j) - B(i, j) = -m",
    hypotheses=(r"$i, j$ integers (query, key), $m > 0$ the head's slope; $\Delta$ the forward difference",),
)
def linear_penalty() -> Iterator[Step]:
    bias = penalty(QUERY, KEY)
    second = (
        (QUERY, r"B(i+2, j) - 2B(i+1, j) + B(i, j) = 0"),
        (KEY, r"B(i, j+2) - 2B(i, j+1) + B(i, j) = 0"),
    )
    for symbol, claim in second:
        yield identity(
            bias.subs(symbol, symbol + 2) - 2 * bias.subs(symbol, symbol + 1) + bias,
            sp.Integer(0),
            f"second difference in ${symbol}$: a linear function has none",
            claim=claim,
        )
    yield identity(
        bias.subs(QUERY, QUERY + 1) - bias,
        -SLOPE,
        r"one step farther costs $m$ whatever $i$ and $j$: the slope is the same at every position",
        claim=r"B(i+1, j) - B(i, j) = -m",
    )


@derivation(
    id="alibi.slope_reach",
    title="A smaller slope keeps distant keys in play; a larger one concentrates attention nearby",
    statement=r"\frac{w_{a}}{w_{0}} = e^{-m a}:\quad a_{1/10}(m) = \frac{\ln 10}{m} \text{ falls and } "
    r"e^{mD} \text{ grows as } m \text{ grows}",
    hypotheses=(
        r"one query row, a key at distance 0 and one at distance $a \ge 0$ with equal content scores; "
        r"$m > 0$ the slope, $D > 0$ a distance",
    ),
)
def slope_reach_order() -> Iterator[Step]:
    distance = sp.Symbol("D", positive=True)
    s = sp.Symbol("s", real=True)
    near, far = softmax([s, s - SLOPE * A])
    reach = sp.log(10) / SLOPE
    yield identity(
        far / near,
        sp.exp(-SLOPE * A),
        "equal content: the ratio of the two weights is the bias term alone (`alibi.softmax_ratio`)",
        claim=r"\frac{w_a}{w_0} = e^{-m a}",
    )
    yield identity(
        sp.exp(-SLOPE * reach),
        sp.Rational(1, 10),
        r"the far key keeps a tenth of the near key's weight at $a = \ln 10 / m$",
        claim=r"e^{-m \ln 10 / m} = \tfrac{1}{10}",
    )
    yield fact(
        r"\frac{d}{dm}\,\frac{\ln 10}{m} = -\frac{\ln 10}{m^2} < 0",
        "SymPy differentiates and decides the sign for m > 0: the reach shrinks as the slope grows",
        lambda: bool(sp.diff(reach, SLOPE).is_negative),
    )
    yield fact(
        r"\frac{d}{dm}\, e^{mD} = D\,e^{mD} > 0",
        "SymPy: the factor the nearest key gains over one at distance D grows with the slope",
        lambda: bool(sp.diff(sp.exp(SLOPE * distance), SLOPE).is_positive),
    )
