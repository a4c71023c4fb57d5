"""ALiBi (Press, Smith & Lewis, "Train Short, Test Long", 2022): the bias −m·(i − j), what it does to the
softmax weights, and the head slopes of the authors' fairseq ``get_slopes``
(ofirpress/attention_with_linear_biases)."""

from __future__ import annotations

from collections.abc import Iterator

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
        r"one query row with three visible keys at distances $a$, $b$, $c$ and content logits "
        r"$s_a, s_b, s_c$ (symbolic reals); $w$ the softmax weights with the bias, $w^0$ without",
        r"$m > 0$; $b = a + \delta$ with $\delta > 0$",
    ),
)
def softmax_ratio() -> Iterator[Step]:
    s_a, s_b, s_c = sp.symbols("s_a s_b s_c", real=True)
    c = sp.Symbol("c", nonnegative=True)
    b = A + DELTA
    w_a, w_b, _ = softmax([s_a - SLOPE * A, s_b - SLOPE * b, s_c - SLOPE * c])
    w0_a, w0_b, _ = softmax([s_a, s_b, s_c])
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
        r"divide: the content scores and the third key drop out; only $b - a = \delta$ remains",
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
    hypotheses=(r"$n = 2^k$, $k \ge 0$ a symbolic integer; $h \ge 1$ a symbolic integer",),
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
        r"$c > 0$ and $k \ge 1$ symbolic; $m_0 = 1$; checked exactly for $n = 6, 12, 20$",
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
