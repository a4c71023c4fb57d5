"""Trigonometry behind the encodings: angle addition, exp/log frequencies as powers of the base, and the
sinusoidal encoding as a fixed real function of the position, finite at every real position."""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

from pe_verify.properties.encodings.frequencies import frequency_exponent, frequency_expr
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

from .derivation import Expr, Step, derivation, fact, identity

A, B = sp.symbols("a b", real=True)
BASE = sp.Symbol("b", positive=True)
INDEX = sp.Symbol("i", nonnegative=True)
DIM = sp.Symbol("d", positive=True)
POSITION = sp.Symbol("pos", real=True)
#: The dimensions at which the sinusoidal encoding is shown parameter-free and defined: tiny, odd, BERT-sized.
ENCODING_DIMS = (2, 7, 512)


def vanishes_in_exponentials(expr: Expr) -> bool:
    """True when `expr` (a scalar, or every entry of a matrix) expands to exactly 0 once sin and cos are
    written as complex exponentials, sin x = (e^{ix} − e^{−ix})/(2i) and cos x = (e^{ix} + e^{−ix})/2."""
    if isinstance(expr, sp.MatrixBase):
        return all(vanishes_in_exponentials(entry) for entry in expr)
    return sp.expand(sp.sympify(expr).rewrite(sp.exp)) == 0


def euler_identity(lhs: Expr, rhs: Expr, justification: str, claim: str | None = None) -> Step:
    """A step asserting lhs = rhs, checked by writing both sides with complex exponentials and expanding."""
    text = claim or f"{sp.latex(lhs)} = {sp.latex(rhs)}"
    return Step(text, justification, lambda: vanishes_in_exponentials(lhs - rhs))


def code_frequency(i: int | sp.Expr, d: int | sp.Expr, base: int | sp.Expr) -> sp.Expr:
    """The frequency as the sinusoidal code computes it: exp(2i · (−ln base / d))."""
    i, d, base = sp.sympify((i, d, base))
    return sp.exp(2 * i * (-sp.log(base) / d))


def rope_code_frequency(i: int | sp.Expr, d: int | sp.Expr, base: int | sp.Expr) -> sp.Expr:
    """The frequency as the RoPE code computes it: 1 / base^(2i/d)."""
    i, d, base = sp.sympify((i, d, base))
    return 1 / base ** (2 * i / d)


@derivation(
    id="trigonometry.angle_addition",
    title="Angle addition from Euler's formula",
    statement=r"\sin(a+b) = \sin a\cos b + \cos a\sin b,\qquad \cos(a+b) = \cos a\cos b - \sin a\sin b",
    hypotheses=(r"$a, b$ real",),
)
def angle_addition() -> Iterator[Step]:
    euler_a = sp.cos(A) + sp.I * sp.sin(A)
    euler_b = sp.cos(B) + sp.I * sp.sin(B)
    cos_sum = sp.cos(A) * sp.cos(B) - sp.sin(A) * sp.sin(B)
    sin_sum = sp.sin(A) * sp.cos(B) + sp.cos(A) * sp.sin(B)
    yield identity(sp.exp(sp.I * (A + B)), sp.exp(sp.I * A) * sp.exp(sp.I * B), "law of exponents")
    yield identity(sp.exp(sp.I * A), euler_a, "Euler's formula", claim=r"e^{ia} = \cos a + i\sin a")
    yield identity(
        euler_a * euler_b,
        cos_sum + sp.I * sin_sum,
        "multiply out, using i² = −1",
        claim=r"(\cos a + i\sin a)(\cos b + i\sin b) = "
        r"(\cos a\cos b - \sin a\sin b) + i\,(\sin a\cos b + \cos a\sin b)",
    )
    yield identity(
        sp.re(sp.exp(sp.I * (A + B))),
        sp.cos(A + B),
        r"Euler's formula at $a+b$; the real part, since $a+b$ is real",
        claim=r"\operatorname{Re} e^{i(a+b)} = \cos(a+b)",
    )
    yield identity(
        sp.im(sp.exp(sp.I * (A + B))),
        sp.sin(A + B),
        r"Euler's formula at $a+b$; the imaginary part, since $a+b$ is real",
        claim=r"\operatorname{Im} e^{i(a+b)} = \sin(a+b)",
    )
    yield euler_identity(
        sp.cos(A + B),
        cos_sum,
        "real parts of steps 1–4 (every cosine and sine of a real angle is real); "
        "checked by writing both sides with complex exponentials",
    )
    yield euler_identity(
        sp.sin(A + B),
        sin_sum,
        "imaginary parts of steps 1–3 and 5; checked by writing both sides with complex exponentials",
    )


@derivation(
    id="trigonometry.exp_log_frequency",
    title="The exp/log frequency is a power of the base",
    statement=(
        r"e^{2i\,(-\ln b/d)} = b^{-2i/d} = \frac{1}{b^{2i/d}},"
        r"\qquad e^{2i\,(-\ln 10000/d)} = 10000^{-2i/d} = 10^{-8i/d}"
    ),
    hypotheses=(
        r"$b > 0$ (the base), $d > 0$ (the dimension), $i \ge 0$ (the frequency index), all symbolic",
        r"the sinusoidal code computes `exp(arange(0, d, 2) * (-ln(10000)/d))`, whose entry $i$ is "
        r"$e^{2i\,(-\ln 10000/d)}$",
        r"the RoPE code computes `1/(base ** (arange(0, d, 2)/d))`, whose entry $i$ is $1/b^{2i/d}$",
    ),
)
def exp_log_frequency() -> Iterator[Step]:
    exponent = frequency_exponent(INDEX, DIM)
    yield identity(
        2 * INDEX * (-sp.log(BASE) / DIM),
        exponent * sp.log(BASE),
        "rearrange the product",
        claim=r"2i\left(-\frac{\ln b}{d}\right) = -\frac{2i}{d}\,\ln b",
    )
    yield identity(
        code_frequency(INDEX, DIM, BASE),
        BASE**exponent,
        r"$b > 0$, so $b = e^{\ln b}$ and $e^{x\ln b} = b^{x}$ for real $x$",
        claim=r"e^{2i\,(-\ln b/d)} = b^{-2i/d}",
    )
    yield identity(
        rope_code_frequency(INDEX, DIM, BASE),
        BASE**exponent,
        r"$1/b^{x} = b^{-x}$ for $b > 0$",
        claim=r"\frac{1}{b^{2i/d}} = b^{-2i/d}",
    )
    yield identity(
        sp.Integer(10000) ** exponent,
        sp.Integer(10) ** (4 * exponent),
        r"$10000 = 10^4$ and $(10^4)^x = 10^{4x}$ for real $x$",
        claim=r"10000^{-2i/d} = 10^{-8i/d}",
    )
    yield identity(
        code_frequency(INDEX, DIM, 10000),
        sp.Integer(10) ** (4 * exponent),
        "steps 2 and 4 with b = 10000",
        claim=r"e^{2i\,(-\ln 10000/d)} = 10^{-8i/d}",
    )
    powers = sp.Matrix([sp.Rational(1, 10**i) for i in range(4)])
    yield identity(
        sp.Matrix([code_frequency(i, 8, 10000) for i in range(4)]),
        powers,
        r"step 5 at $d = 8$: the frequencies are $10^{-i}$",
        claim=r"d = 8:\ \big(e^{2i\,(-\ln 10000/8)}\big)_{i=0}^{3} = "
        r"(1, 10^{-1}, 10^{-2}, 10^{-3})",
    )
    yield identity(
        sp.Matrix([rope_code_frequency(i, 8, 10000) for i in range(4)]),
        powers,
        r"step 3 at $b = 10000$, $d = 8$: the RoPE code gives the same numbers",
        claim=r"d = 8:\ \big(1/10000^{2i/8}\big)_{i=0}^{3} = (1, 10^{-1}, 10^{-2}, 10^{-3})",
    )


def only_free_symbol_step(encoding: Sinusoidal) -> Step:
    """Every entry of PE(pos) has pos as its only free symbol: no parameter, nothing to learn."""
    return fact(
        rf"d = {encoding.d}:\ \text{{every entry of }} PE(\mathrm{{pos}}) \text{{ has }} \mathrm{{pos}} "
        r"\text{ as its only free symbol}",
        "each entry is sin or cos of pos times a fixed number base^(−2i/d); SymPy lists the free symbols",
        lambda: all(entry.free_symbols == {POSITION} for entry in encoding.column(POSITION)),
    )


def real_and_finite_step(encoding: Sinusoidal) -> Step:
    """Every entry of PE(pos) is real and finite for every real pos."""
    return fact(
        rf"d = {encoding.d}:\ PE(\mathrm{{pos}})_j \text{{ is real and finite for every real pos and "
        r"every } j",
        "sin and cos of a real argument are real and bounded; SymPy decides both from pos being real",
        lambda: all(entry.is_real is True and entry.is_finite is True for entry in encoding.column(POSITION)),
    )


@derivation(
    id="trigonometry.sinusoidal_parameter_free",
    title="The sinusoidal encoding has no parameter and is defined at every real position",
    statement=r"PE(p)_{2i} = \sin(p\,\omega_i),\ PE(p)_{2i+1} = \cos(p\,\omega_i):\ "
    r"\text{a real, finite function of } p \text{ alone, for every } p \in \mathbb{R}",
    hypotheses=(
        r"$\omega_i = 10000^{-2i/d}$ exact; $\mathrm{pos}$ a real symbol (no upper bound on it); the entry "
        r"formula for a symbolic index $i \ge 0$ and dimension $d \ge 1$ (every $d$), then the whole vector "
        rf"at $d \in \lbrace {', '.join(map(str, ENCODING_DIMS))} \rbrace$: the smallest even $d$, an odd "
        r"one and the common $d_{\mathrm{model}} = 512$.",
    ),
)
def sinusoidal_parameter_free() -> Iterator[Step]:
    index = sp.Symbol("i", integer=True, nonnegative=True)
    dim = sp.Symbol("d", integer=True, positive=True)
    entries = [f(POSITION * frequency_expr(index, dim, 10000)) for f in (sp.sin, sp.cos)]
    yield fact(
        r"PE(\mathrm{pos})_{2i},\ PE(\mathrm{pos})_{2i+1}:\ \text{free symbols } \lbrace \mathrm{pos}, i, d "
        r"\rbrace \text{ only; real and finite for symbolic } i, d",
        "the entry formula for every index and dimension: nothing but the position, the index and d "
        "enters, and sin, cos of a real argument are real and bounded",
        lambda: all(
            entry.free_symbols == {POSITION, index, dim} and entry.is_real is True and entry.is_finite is True
            for entry in entries
        ),
    )
    for d in ENCODING_DIMS:
        encoding = Sinusoidal(d)
        yield only_free_symbol_step(encoding)
        yield real_and_finite_step(encoding)


@derivation(
    id="trigonometry.div_term_is_the_reciprocal",
    title="div_term is 1/10000^(2i/d), the reciprocal of 10000^(2i/d): they agree only at i = 0",
    statement=r"e^{2i\,(-\ln b/d)} = \frac{1}{b^{2i/d}} \ne b^{2i/d} \text{ for } i > 0,\ b > 1,"
    r"\qquad \text{and } pos \cdot e^{2i\,(-\ln b/d)} = \frac{pos}{b^{2i/d}}",
    hypotheses=(
        r"$b > 1$, $d > 0$, $i > 0$ symbolic; `div_term` entry $i$ is $e^{2i\,(-\ln b/d)}$ "
        r"(`trigonometry.exp_log_frequency`)",
    ),
)
def div_term_is_the_reciprocal() -> Iterator[Step]:
    base, index = sp.Symbol("b", positive=True), sp.Symbol("i", positive=True)
    position = sp.Symbol("pos", real=True)
    div_term = code_frequency(index, DIM, base)
    commented = base ** -frequency_exponent(index, DIM)
    yield identity(
        div_term * commented,
        sp.Integer(1),
        r"$e^{-x\ln b}\,b^{x} = 1$: div_term times the commented power is 1",
        claim=r"e^{2i\,(-\ln b/d)} \cdot b^{2i/d} = 1",
    )
    yield fact(
        r"b^{2i/d} > 1 \ \Rightarrow\ \frac{1}{b^{2i/d}} < 1 < b^{2i/d}",
        r"SymPy: for $b > 1$ and $2i/d > 0$ the power exceeds 1, so it differs from its reciprocal",
        lambda: bool(
            (sp.log(commented).expand(force=True) > 0).subs(base, 1 + sp.Symbol("u", positive=True))
        ),
    )
    yield identity(
        position * div_term,
        position / commented,
        "what the code multiplies the positions by is the formula's divisor inverted: the code is right, "
        "the comment names the reciprocal",
        claim=r"pos \cdot e^{2i\,(-\ln b/d)} = pos / b^{2i/d}",
    )
