"""`properties/encodings/frequencies.py`: ω_i = base^(−2i/d) written once, in every arithmetic, bit for bit as
before.

Three kinds of test:

* bit-identity: every form gives exactly what the expression it replaced gave (the previous expressions are
  written out here, in the tests, as the oracles);
* agreement: float64, mpmath, SymPy and arb balls agree with each other within the stated bounds;
* one copy: a scan of the package's source (properties/, proofs/, claims/, pe_verify/) finds the formula
  only in `properties/encodings/frequencies.py`, apart from the deliberate re-expressions named in `ALLOWED`.
"""

from __future__ import annotations

import functools
import io
import math
import re
import tokenize
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_verify.properties.analyses.rope_precision import _frequencies as rope_dtype_frequencies
from pe_verify.properties.encodings import frequencies as fq
from pe_verify.properties.encodings import scaling, sinusoidal
from pe_verify.properties.numerics.correct_rounding import correctly_rounded
from pe_verify.properties.numerics.dtypes import dtype_spec

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("properties", "proofs", "claims", "pe_verify")
HOME = "properties/encodings/frequencies.py"

DIMS = (*range(1, 20), 64, 127, 128, 511, 512, 1000, 4095, 4096)
FLOAT_BASES = (10000.0, 500000.0, 1e6, 1.5, 2.0, 7.3, 1.0000001, 1e300)


def _bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


def _same_ball(a: flint.arb, b: flint.arb) -> bool:
    """The same ball to the last bit: equal midpoints and equal radii."""
    return a.mid().man_exp() == b.mid().man_exp() and a.rad().man_exp() == b.rad().man_exp()


def _contains(ball: flint.arb, value: mpmath.mpf) -> bool:
    """|mid − value| ≤ rad, with the midpoint and radius read exactly (call inside enough mpmath digits)."""
    (mid_man, mid_exp), (rad_man, rad_exp) = ball.mid().man_exp(), ball.rad().man_exp()
    mid = mpmath.ldexp(mpmath.mpf(int(mid_man)), int(mid_exp))
    rad = mpmath.ldexp(mpmath.mpf(int(rad_man)), int(rad_exp))
    return abs(mid - value) <= rad


# ---------------------------------------------------------------------------------------------------------
# The exponent
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("d", DIMS)
def test_the_exponent_is_exact_and_rounds_as_the_float_expression_did(d: int) -> None:
    for i in range((d + 1) // 2):
        e = fq.frequency_exponent(i, d)
        assert isinstance(e, Fraction) and e == Fraction(-2 * i, d)
        assert float(e) == -2.0 * i / d  # both correctly rounded (the float one may be −0.0 at i = 0)
        assert sp.Rational(e) == sp.Rational(-2 * i, d)


def test_the_exponent_of_symbols_is_the_expression_minus_two_i_over_d() -> None:
    i, j = sp.symbols("i j", integer=True, nonnegative=True)
    d = sp.Symbol("d", positive=True)
    for index in (i, j, i + 1, d / 2 - 1, sp.Integer(0), 0, 3):
        new = fq.frequency_exponent(index, d)
        assert sp.srepr(new) == sp.srepr(-2 * index / d)
    assert sp.srepr(fq.frequency_exponent(i, 8)) == sp.srepr(-2 * i / 8)
    assert fq.ratio_exponent(3, 5, 12) == Fraction(2 * (5 - 3), 12)
    assert fq.frequency_exponent(sp.Integer(3), sp.Integer(8)) == Fraction(-3, 4)  # SymPy integers are ints


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fq.frequency_exponent(1, 0), "d must be a positive integer"),
        (lambda: fq.frequency_exponent(-1, 8), "non-negative integer"),
        (lambda: fq.frequency_exponent(1.0, 8), "non-negative integer"),
        (lambda: fq.frequencies(8, 10000.0, count=5), r"count must be an integer in \[0, ⌈d/2⌉ = 4\]"),
        (lambda: fq.frequencies(8, 1.0), "base must be a finite real number greater than 1"),
        (lambda: fq.frequencies_mp(8, "0.5"), "base must be a finite real number greater than 1"),
        (lambda: fq.frequencies_arb(8, 1), "base must be a finite real number greater than 1"),
        (lambda: fq.frequency_exprs(8, 1), "base must be a finite real number greater than 1"),
        (lambda: fq.frequencies_mp(8, 10000, dps=0), "dps must be a positive integer"),
    ],
)
def test_bad_input_is_refused(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_the_public_names_that_existed_still_work() -> None:
    assert sinusoidal.frequencies is fq.frequencies
    assert sinusoidal.frequencies_mp is fq.frequencies_mp
    assert sinusoidal.frequency_exprs is fq.frequency_exprs
    with pytest.raises(ValueError, match="d must be even"):
        scaling.rope_frequencies(7)
    with pytest.raises(ValueError, match="d must be a positive integer"):
        sinusoidal.frequencies(0)


# ---------------------------------------------------------------------------------------------------------
# Bit-identity with the expressions the call sites had
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", FLOAT_BASES)
def test_float64_frequencies_are_bit_identical_to_the_previous_expressions(base: float) -> None:
    for d in DIMS:
        sinusoidal_before = base ** (-2.0 * np.arange((d + 1) // 2) / d)  # properties/encodings/sinusoidal.py
        assert np.array_equal(_bits(sinusoidal.frequencies(d, base)), _bits(sinusoidal_before))
        assert np.array_equal(
            _bits(fq.frequencies(d, base, count=d // 2)), _bits(sinusoidal_before[: d // 2])
        )
        if d % 2 == 0:
            rope_before = base ** (-2.0 * np.arange(d // 2) / d)  # properties/encodings/scaling.py
            assert np.array_equal(_bits(scaling.rope_frequencies(d, base)), _bits(rope_before))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(d=st.integers(1, 8192), base=st.floats(1.0, 1e12, exclude_min=True))
def test_float64_frequencies_are_bit_identical_for_any_d_and_base(d: int, base: float) -> None:
    before = base ** (-2.0 * np.arange((d + 1) // 2) / d)
    assert np.array_equal(_bits(fq.frequencies(d, base)), _bits(before))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 1.5])
def test_rope_frequencies_in_a_dtype_are_bit_identical_to_the_previous_expression(
    dtype: str, base: float
) -> None:
    spec = dtype_spec(dtype)
    for d in (2, 4, 6, 8, 64, 128, 512):
        if spec.scalar is np.float64:
            before = base ** (-2.0 * np.arange(d // 2) / d)
        else:
            before = correctly_rounded("pow", spec, np.float64(base), -2.0 * np.arange(d // 2) / d)
        after = rope_dtype_frequencies(d, base, spec)
        assert after.dtype == before.dtype
        assert np.array_equal(after.view(np.uint8), before.view(np.uint8))


@pytest.mark.slow
@pytest.mark.parametrize("dps", [15, 60])
def test_mpmath_frequencies_are_bit_identical_to_the_previous_expressions(dps: int) -> None:
    for d in (1, 2, 3, 5, 6, 8, 64, 127, 512, 1000):
        for base in (10000, 10000.0, "10000", 500000, 1.5, "1.0001"):
            with mpmath.workdps(dps):
                b = mpmath.mpf(base)
                # properties/encodings/sinusoidal.py, properties/encodings/rope.py,
                # properties/checks/linear_offset.py
                before = [b ** (mpmath.mpf(-2 * i) / d) for i in range((d + 1) // 2)]
                by_dim = [
                    mpmath.mpf(base) ** (mpmath.mpf(-2 * (j // 2)) / d) for j in range(d)
                ]  # near_collision
                by_power = [mpmath.power(base, mpmath.mpf(-2 * i) / d) for i in range(d // 2)]  # document_001
                assert [w._mpf_ for w in fq.frequencies_mp(d, base, dps)] == [w._mpf_ for w in before]
                assert [fq.frequency_mp(j // 2, d, base)._mpf_ for j in range(d)] == [w._mpf_ for w in by_dim]
                assert [fq.frequency_mp(i, d, base)._mpf_ for i in range(d // 2)] == [
                    w._mpf_ for w in by_power
                ]


@pytest.mark.parametrize("d", [2, 6, 8, 12, 64, 512, 513])
def test_mpmath_frequency_ratios_are_bit_identical_to_the_previous_expression(d: int) -> None:
    """properties/checks/exact_coincidence.py `near_misses`: ω_a/ω_b = b^(2(b − a)/d) as one power."""
    with mpmath.workdps(50):
        b = mpmath.mpf(10000)
        for a in range(0, (d + 1) // 2, max(1, d // 16)):
            for c in range(0, (d + 1) // 2, max(1, d // 16)):
                before = b ** (mpmath.mpf(2 * (c - a)) / d)
                assert (b ** fq.fraction_mp(fq.ratio_exponent(a, c, d)))._mpf_ == before._mpf_


@pytest.mark.slow
@pytest.mark.parametrize("base", [10000, 500000, sp.Rational(3, 2), 10000.0, 1.5])
def test_sympy_frequencies_are_identical_to_the_previous_expressions(base: object) -> None:
    for d in (1, 2, 3, 5, 6, 8, 12, 64, 127, 512):
        exact = sp.Rational(base) if not isinstance(base, sp.Basic) else base
        before = [
            exact ** sp.Rational(-2 * i, d) for i in range((d + 1) // 2)
        ]  # properties/encodings/sinusoidal.py
        assert [sp.srepr(w) for w in fq.frequency_exprs(d, base)] == [sp.srepr(w) for w in before]
    for d in (1, 2, 3, 4, 6, 8, 512):  # proofs/sinusoidal.py, proofs/number_theory.py
        before = [sp.Integer(10000) ** sp.Rational(-2 * i, d) for i in range((d + 1) // 2)]
        after = [fq.frequency_expr(i, d, sp.Integer(10000)) for i in range((d + 1) // 2)]
        assert [sp.srepr(w) for w in after] == [sp.srepr(w) for w in before]


def test_symbolic_frequencies_are_the_expressions_the_proofs_built() -> None:
    """proofs/uniqueness.py, proofs/scaling.py, proofs/sinusoidal.py: the same SymPy tree as before."""
    b = sp.Symbol("b", rational=True, positive=True)
    d = sp.Symbol("d", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    e = sp.Symbol("e", positive=True)
    s = sp.Symbol("s", positive=True)
    dim = e + 2
    cases = [
        (i, d, b),
        (i, dim, b),
        (0, dim, b * s ** (dim / (dim - 2))),
        (dim / 2 - 1, dim, b * s),
        (i, d, b * (1 + s)),
        (i, d, 1 + s),
    ]
    for index, size, base in cases:
        assert sp.srepr(fq.frequency_expr(index, size, base)) == sp.srepr(base ** (-2 * index / size))


@pytest.mark.slow
@pytest.mark.parametrize("prec", [53, 256])
def test_arb_frequencies_are_bit_identical_to_the_previous_expressions(prec: int) -> None:
    with flint.ctx.workprec(prec):
        for d in (1, 2, 3, 6, 8, 64, 127, 128, 512, 1000):
            for base in (10000, 500000, 10000.0, 1.5):
                # properties/analyses/near_collision.py, claims/general.py
                before = [flint.arb(base) ** (flint.arb(-2 * i) / d) for i in range((d + 1) // 2)]
                after = fq.frequencies_arb(d, base)
                assert len(after) == len(before) and all(map(_same_ball, after, before))
                by_dim = [flint.arb(base) ** (flint.arb(-2 * (j // 2)) / d) for j in range(d)]
                assert all(_same_ball(fq.frequency_arb(j // 2, d, base), w) for j, w in enumerate(by_dim))
                # the wavelength's power base^(2i/d)
                for i in range(d // 2):
                    before_power = flint.arb(base) ** (flint.arb(2 * i) / d)
                    after_power = flint.arb(base) ** fq.fraction_arb(-fq.frequency_exponent(i, d))
                    assert _same_ball(after_power, before_power)


def test_arb_frequencies_at_a_given_precision_restore_flint_precision() -> None:
    saved = flint.ctx.prec
    balls = fq.frequencies_arb(8, 10000, prec=200)
    assert flint.ctx.prec == saved
    with flint.ctx.workprec(200):
        assert all(map(_same_ball, balls, fq.frequencies_arb(8, 10000)))


# ---------------------------------------------------------------------------------------------------------
# The forms agree with each other
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("base", [10000.0, 1.5])
@pytest.mark.parametrize("d", [1, 7, 128, 1024])
def test_float64_is_within_its_bound_of_mpmath_sympy_and_arb(d: int, base: float) -> None:
    """float64 ω_i = fl(base^fl(x)), x = −2i/d: |x| ≤ 1 is rounded by ≤ 2^−53·|x|, which moves ω_i by
    ≤ 2^−53·|x|·ln base relative, and numpy's pow adds ≤ 1 ulp (2^−52 relative). So
    |ω_float − ω|/ω ≤ 2^−52·(1 + ln base) (a little slack for second-order terms)."""
    bound = 2.0**-52 * (1.0 + math.log(base)) * 1.01
    floats = fq.frequencies(d, base)
    with mpmath.workdps(50):
        exact_mp = fq.frequencies_mp(d, base, 50)
        for value, exact in zip(floats, exact_mp, strict=True):
            assert float(abs(mpmath.mpf(float(value)) - exact) / exact) <= bound
    exprs = fq.frequency_exprs(d, base)
    balls = fq.frequencies_arb(d, base, prec=200)
    with mpmath.workdps(60):
        for expr, ball, value in zip(exprs, balls, floats, strict=True):
            reference = mpmath.mpf(sp.N(expr, 70))
            assert float(ball.rad()) < 1e-55 and _contains(ball, reference)
            assert float(abs(mpmath.mpf(float(value)) - reference) / reference) <= bound


@pytest.mark.parametrize("d", [1, 2, 3, 6, 8, 12, 512])
def test_mpmath_agrees_with_the_exact_sympy_values(d: int) -> None:
    """At 60 digits mpmath's ω_i is within 10^−57 (relative) of SymPy's exact base^(−2i/d)."""
    with mpmath.workdps(60):
        for mp_value, expr in zip(fq.frequencies_mp(d, 10000, 60), fq.frequency_exprs(d, 10000), strict=True):
            exact = mpmath.mpf(sp.N(expr, 80))
            assert abs(mp_value - exact) <= mpmath.mpf(10) ** -57 * exact


def test_arb_balls_contain_the_exact_value() -> None:
    """Every ball, at 80 bits (a deliberately low precision), contains SymPy's exact value."""
    with mpmath.workdps(60):
        for d in (1, 3, 8, 64, 512):
            exprs, balls = fq.frequency_exprs(d, 10000), fq.frequencies_arb(d, 10000, prec=80)
            for expr, ball in zip(exprs, balls, strict=True):
                assert float(ball.rad()) < 1e-20 and _contains(ball, mpmath.mpf(sp.N(expr, 70)))


# ---------------------------------------------------------------------------------------------------------
# The formula is written once
# ---------------------------------------------------------------------------------------------------------

_NESTED = r"\((?:[^()]|\([^()]*\))*\)"  # a parenthesised expression, one level of nesting inside
_INDEX = (
    r"(?!(?:np|math|mpmath|sp|flint)\.pi\b)(?:(?:np\.)?arange"
    + _NESTED
    + r"|[A-Za-z_][\w.]*|"
    + _NESTED
    + ")"
)
_NOT_A_FACTOR = r"(?<![\w.*])(?<!\*\s)"  # the 2 is not the second factor of a product such as q * 2 * g
_RATIONAL = r"(?:Rational|Fraction|fmpq|mpq)\(\s*-?\s*"

#: Spellings of ω_i = base^(−2i/d) or of its exponent, each a regular expression over code (string literals
#: and comments blanked, so docstrings may state the formula).
PATTERNS = {
    "2·i/d": re.compile(_NOT_A_FACTOR + r"2(?:\.0)?\s*\*\s*" + _INDEX + r"\s*\)?\s*/(?!/)\s*\(?\s*[A-Za-z_]"),
    "Rational(2·i, d)": re.compile(_RATIONAL + r"2\s*\*\s*" + _INDEX + r"\s*,\s*[\w.]+\s*\)"),
    "i·2/d": re.compile(_INDEX + r"\s*\*\s*-?\s*2(?:\.0)?\s*\)?\s*/(?!/)\s*\(?\s*[A-Za-z_]"),
    "8·i/d (base 10)": re.compile(
        r"(?:"
        + _NOT_A_FACTOR
        + r"|"
        + _RATIONAL
        + r")8(?:\.0)?\s*\*\s*"
        + _INDEX
        + r"\s*\)?\s*(?:/(?!/)|,)\s*\(?\s*(?:d|dim|DIM|D_MODEL|TABLE_D)\b"
    ),
    "arange(0, d, 2)·…": re.compile(
        r"arange\(\s*0\s*,\s*[\w.]+\s*,\s*2\b[^()]*\)(?:\.astype\([^()]*\))?\s*[*/]"
    ),
    "−ln(base)/d": re.compile(r"-\s*(?:\w+\.)?log\w*\([^()]*\)\s*/"),
    "2i·ln(base)/d": re.compile(
        _NOT_A_FACTOR + r"2(?:\.0)?\s*\*\s*[A-Za-z_]\w*\s*\*\s*\(?\s*-?\s*(?:\w+\.)?log\w*\([^()]*\)\s*/"
    ),
}

#: The code that may spell the formula out: (file, a piece of the line, why). Each entry covers one line.
ALLOWED = (
    # The documents' and libraries' own code, re-expressed on purpose: what they compute is being checked.
    (
        "properties/analyses/base_bound.py",
        "-np.log(cosine.theta) / math.log(float(cosine.base))",
        "the exponents x_i read off a criterion's own frequencies, so that a twin criterion's slope bound "
        "|∂B(m)/∂ln b| ≤ m·Σ x_i·θ_i is its own",
    ),
    (
        "properties/analyses/base_bound.py",
        "(-theta.log() / base.log())",
        "the same exponents in arb, for the sign of ∂B(m)/∂ln b over a ball of bases",
    ),
    (
        "properties/battery/torch_code.py",
        "np.arange(0, d, 2).astype(dtype) * dtype(-math.log(base) / d)",
        "the document's PyTorch div_term = exp(arange(0, d, 2)·(−ln base/d)), step by step in its dtype",
    ),
    (
        "properties/battery/torch_code.py",
        "np.arange(0, dim, 2).astype(dtype) / dtype(dim)",
        "the RoPE module's inv_freq = 1/base^(arange(0, dim, 2)/dim), in its dtype",
    ),
    (
        "properties/encodings/sinusoidal.py",
        "np.arange(0, d, 2, dtype=compute) * compute(-math.log(base) / d)",
        "the common sinusoidal code's exponents in float32, as the documents' code computes them",
    ),
    (
        "properties/checks/frequency_drift.py",
        "2 * (2 * i * math.log(base) / d)",
        "the error 2|x_i| ulps explained by rounding the code's exponent x_i = 2i·(−ln base/d)",
    ),
    (
        "proofs/trigonometry.py",
        "sp.exp(2 * i * (-sp.log(base) / d))",
        "`code_frequency`: the sinusoidal code's exp/log form, proved equal to base^(−2i/d)",
    ),
    (
        "proofs/trigonometry.py",
        "1 / base ** (2 * i / d)",
        "`rope_code_frequency`: the RoPE code's 1/base^(2i/d), proved equal to base^(−2i/d)",
    ),
    (
        "proofs/trigonometry.py",
        "2 * INDEX * (-sp.log(BASE) / DIM)",
        "the left side of the step that rearranges the code's product into −(2i/d)·ln b",
    ),
    # Statements a proof or a claim checks against the computed frequencies: deriving them from
    # `frequency_exponent` would make the check check itself.
    (
        "proofs/number_theory.py",
        "2 * sp.pi * b ** sp.Rational(2 * (dim // 2), d)",
        "D3.1: the document's stated period 2π·b^(2i/d), compared with the computed periods",
    ),
    (
        "proofs/uniqueness.py",
        "BASE ** (2 * (J_INDEX - I_INDEX) / DIM)",
        "the law-of-exponents result ω_i/ω_j = b^(2(j−i)/d) the step proves",
    ),
    (
        "proofs/uniqueness.py",
        "BASE ** (2 * (I_INDEX - J_INDEX) / DIM)",
        "the law-of-exponents result ω_j/ω_i = b^(2(i−j)/d) the step proves",
    ),
    (
        "proofs/uniqueness.py",
        "rational_power(b, sp.Rational(2 * m, d))",
        "the number-theory rule b^(2m/d) ∈ ℚ ⇔ d | 2mE, for every m (not a frequency)",
    ),
    (
        "proofs/uniqueness.py",
        "minimal_polynomial_degree(b, sp.Rational(2 * m, d))",
        "the same rule compared with SymPy's minimal polynomial",
    ),
    # Different mathematics: NTK's s^(−2i/(d−2)).
    (
        "properties/encodings/scaling.py",
        "theta * s ** (-2.0 * np.arange(d // 2) / (d - 2))",
        "NTK: θ'_i/θ_i = s^(−2i/(d−2)), the exponent over d − 2",
    ),
    (
        "properties/encodings/scaling.py",
        "theta * effective ** (-2.0 * np.arange(d // 2) / (d - 2))",
        "dynamic NTK: the same with s'",
    ),
    ("proofs/scaling.py", "FACTOR ** (-2 * INDEX / (DIM - 2))", "NTK's stated ratio s^(−2i/(d−2))"),
    (
        "properties/battery/families/rope_frequencies.py",
        "(2.0 * np.arange(d // 2) / (d - 2), np.log(",
        "the NTK fit over d − 2 (different mathematics)",
    ),
    (
        "properties/battery/families/sinusoidal.py",
        "return 2.0 * np.arange(d) / d",
        "the candidate rule 2j/d of the dim index j (a wrong layout's rule)",
    ),
    (
        "properties/battery/families/sinusoidal.py",
        "return 2.0 * pair / (d - 2)",
        "the candidate rule 2i/(d − 2) the identification tries (tensor2tensor, fairseq)",
    ),
)


def code_lines(text: str) -> list[str]:
    """The source's lines with every string literal and comment blanked (line and column kept)."""
    rows = [list(line) for line in text.splitlines(keepends=True)]
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            (first_row, first_col), (last_row, last_col) = token.start, token.end
            for r in range(first_row, last_row + 1):
                row = rows[r - 1]
                for c in range(first_col if r == first_row else 0, last_col if r == last_row else len(row)):
                    if row[c] != "\n":
                        row[c] = " "
    return ["".join(row) for row in rows]


def formula_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, line, pattern name) for each line of code that spells the formula out."""
    found = []
    original = text.splitlines()
    for number, line in enumerate(code_lines(text), 1):
        for name, pattern in PATTERNS.items():
            if pattern.search(line):
                found.append((number, original[number - 1].strip(), name))
                break
    return found


@functools.cache
def _scan() -> tuple[list[str], set[int]]:
    """Lines outside frequencies.py not covered by `ALLOWED`, and the indices of the entries used."""
    unexplained, used = [], set()
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name == HOME:
                continue
            for number, line, pattern in formula_lines(path.read_text(encoding="utf-8")):
                entry = next(
                    (
                        k
                        for k, (file, piece, _) in enumerate(ALLOWED)
                        if file == name and piece in line and k not in used
                    ),
                    None,
                )
                if entry is None:
                    unexplained.append(f"{name}:{number}: [{pattern}] {line}")
                else:
                    used.add(entry)
    return unexplained, used


@pytest.mark.slow
def test_the_formula_is_written_only_in_frequencies_py() -> None:
    unexplained, _ = _scan()
    assert not unexplained, (
        "ω_i = base^(−2i/d) is spelled out outside properties/encodings/frequencies.py; build on "
        "`frequency_exponent` and the forms there (or, for a deliberate re-expression of a document's "
        "code, add it to ALLOWED with the reason):\n" + "\n".join(unexplained)
    )


@pytest.mark.slow
def test_every_allowed_re_expression_is_still_there() -> None:
    _, used = _scan()
    stale = [f"{file}: {piece}" for k, (file, piece, _) in enumerate(ALLOWED) if k not in used]
    assert not stale, "ALLOWED names code that is gone; remove the entries:\n" + "\n".join(stale)


def test_frequencies_py_writes_the_formula_exactly_once() -> None:
    found = formula_lines((ROOT / HOME).read_text(encoding="utf-8"))
    assert [line for _, line, _ in found] == ["return -2 * (unit * i) / d"]


@pytest.mark.parametrize(
    "copy",
    [
        # The expressions this change replaced, one per call site.
        "omega = base ** (-2.0 * np.arange((d + 1) // 2) / d)",
        "return base ** (-2.0 * np.arange(d // 2) / d)",
        "x = correctly_rounded('pow', spec, np.float64(base), -2.0 * np.arange(d // 2) / d)",
        "return [exact ** sp.Rational(-2 * i, d) for i in range((d + 1) // 2)]",
        "return [b ** (mpmath.mpf(-2 * i) / d) for i in range((d + 1) // 2)]",
        "omega = mpmath.mpf(base) ** (mpmath.mpf(-2 * (dim // 2)) / d)",
        "return tuple(flint.arb(base) ** (flint.arb(-2 * i) / d) for i in range((d + 1) // 2))",
        "ratio = b ** (mpmath.mpf(2 * (dim2 // 2 - dim1 // 2)) / d)",
        "angle = p * b ** (mpmath.mpf(-2 * i) / r)",
        "return require_rational_base(base) ** sp.Rational(-2 * i, d)",
        "return rational_power(require_rational_base(base), sp.Rational(2 * (j - i), d))",
        "return base ** (-2 * i / d)",
        "OMEGA_I, OMEGA_J = BASE ** (-2 * I_INDEX / DIM), BASE ** (-2 * J_INDEX / DIM)",
        "ok = minimal_polynomial_degree(10000, sp.Rational(-2 * m, 6)) == 3",
        "exponent = -2 * INDEX / DIM",
        "exponents = [sp.Rational(-8 * i, d) for i in range(d // 2)]",
        "omegas = [flint.arb(10000) ** (flint.arb(-2 * (j // 2)) / d) for j in range(d)]",
        "omegas = [flint.arb(10000) ** (flint.arb(-2 * i) / TABLE_D) for i in range(TABLE_D // 2)]",
        "ratio = sp.powsimp(larger ** (-2 * i / d) / b ** (-2 * i / d), force=True)",
        "lam = [two_pi * flint.arb(base) ** (flint.arb(2 * i) / d) for i in range(d // 2)]",
        "ok = (trained_length - 1) * mpmath.power(base, mpmath.mpf(-2 * i) / d) < turn",
        "r = [flint.arb(context) * flint.arb(base) ** (flint.arb(-2 * i) / d) / (2 * pi) for i in range(n)]",
        # Other spellings.
        "theta = 1.0 / base ** (np.arange(0, d, 2) / d)",
        "theta = np.exp(np.arange(0, d, 2) * (-math.log(base) / d))",
        "theta = base ** (-(2 * i) / d)",
        "theta = base ** (i * -2 / d)",
        "theta = np.exp(-2 * i * math.log(base) / d)",
        "e = Fraction(-2 * i, d)",
        "theta = 10 ** (-8 * i / d)",
    ],
)
def test_the_scan_finds_a_copy_of_the_formula(copy: str) -> None:
    assert formula_lines(copy + "\n"), copy


@pytest.mark.parametrize(
    "code",
    [
        "wave = 2 * np.pi / frequencies(d, BASE)[pair_index(d)]",
        "return q * 2 * g / mpmath.pi**2",
        "p[2 * i, i] = p[2 * i + 1, i + half] = 1",
        "step = max(1, 2**21 // d)",
        "yield identity(sp.cos(2 * omega), sp.cos(4 * omega), 'x')",
        "powers = tuple(Fraction(-8 * h, c) for h in range(1, c + 1))",
        "x = '-2 * i / d'  # -2.0 * np.arange(d) / d",
    ],
)
def test_the_scan_leaves_other_code_alone(code: str) -> None:
    assert not formula_lines(code + "\n"), code


def test_a_scan_computes_each_frequency_once_however_many_chunks_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cross-dimension scan asks for the frequencies once per chunk of rows and the re-ranking once per
    value: each (i, d, base, precision) and each list's turn limbs are computed once, so cutting the table
    into 50 chunks computes no more than one chunk does."""
    from pe_verify.properties.analyses import near_collision

    def computations(row_chunk: int) -> tuple[int, int]:
        monkeypatch.setattr(near_collision, "_ROW_CHUNK", row_chunk)
        fq._frequency_mp.cache_clear()
        sinusoidal._turn_limbs_of.cache_clear()
        near_collision.nearest_cross_dimension_pair(sinusoidal.Sinusoidal(8, base=977.0), 400)
        return fq._frequency_mp.cache_info().misses, sinusoidal._turn_limbs_of.cache_info().misses

    assert computations(64) == computations(2**21)
    assert computations(64)[1] == 1
