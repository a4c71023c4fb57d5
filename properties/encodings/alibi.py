"""ALiBi (Press, Smith & Lewis, "Train Short, Test Long", 2022): head h adds −m_h·(i − j) to the logit of
query i and key j, so the bias depends on the offset i − j only and multiplies the softmax weight ratio of
two keys at distances a < b by e^{m_h(b − a)}; for n = 2^k heads the slopes are m_h = 2^(−8h/n), h = 1, …, n.

The slopes follow ``get_slopes`` of the authors' fairseq code (ofirpress/attention_with_linear_biases,
``fairseq/models/transformer.py``): for n = 2^k, ``start = ratio = 2**(-2**-(log2(n) - 3))`` = 2^(−8/n) and
slope i is ``start * ratio**i``; for other n, the slopes of the closest lower power of two c, followed by
``get_slopes(2c)[0::2][:n - c]``. That code adds m_h·j to row i (constant along each row, which the softmax
ignores) and masks keys j > i; `Alibi.bias` builds the bias −m_h·(i − j) of the paper instead.

One object, `Alibi(causal)`, offers every form of the slopes and the bias:

* `exponents(n_heads)`: the exponents e_h of the slopes m_h = 2^(e_h) by fairseq's rule, exactly (Fractions);
* `slopes(n_heads)`: the slopes in float64 (only exp2 rounds);
* `slopes_mp(n_heads, dps)`: the slopes as mpmath numbers with `dps` significant digits;
* `slopes_exact(n_heads)`: the slopes as exact SymPy numbers 2^(e_h);
* `bias(n_q, n_k, n_heads)`: the float64 bias of shape (heads, n_q, n_k), −m_h·(i − j) with keys j > i masked
  by −inf when `causal`, the symmetric −m_h·|i − j| otherwise.

The property checks take an `Alibi` (the implementation under test: they read its `slopes` and `bias`) and
return a `CheckResult`; the exact slopes they compare with are those of `REFERENCE`. As for
`sinusoidal.Sinusoidal`, a broken twin is a subclass overriding the one form it breaks (`exponents` for a
wrong rule, which the other slope forms and the bias follow). `alibi_slopes`, `alibi_slopes_exact` and
`alibi_bias` (the bias of given slopes) are the module-level conveniences other modules import.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from ..numerics.checking import EPS64, CheckResult
from ..numerics.validation import require_positive_int

_DIGITS = 40


def _require_causal(causal: object) -> bool:
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    return causal


@dataclass(frozen=True)
class Alibi:
    """ALiBi with fairseq's slopes: head h adds −m_h·(i − j) to the logit of query i and key j.

    `causal` masks the keys j > i with −inf; without it the bias is the symmetric −m_h·|i − j| of
    bidirectional attention, which also depends on i − j only. Every form below is the same rule; a
    subclass overriding one of them is a different one.
    """

    causal: bool = True

    def __post_init__(self) -> None:
        _require_causal(self.causal)

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        """The exponents e_h of the slopes m_h = 2^(e_h), exactly: e_h = −8h/n (h = 1, …, n) when n = 2^k.

        Other n follow the reference rule: the c = 2^⌊log₂ n⌋ exponents −8h/c, then every other exponent of
        2c heads, −8(2k − 1)/(2c) = −4(2k − 1)/c for k = 1, …, n − c.
        """
        n = require_positive_int(n_heads, "n_heads")
        c = 1 << (n.bit_length() - 1)
        powers = tuple(Fraction(-8 * h, c) for h in range(1, c + 1))
        doubled = tuple(Fraction(-8 * h, 2 * c) for h in range(1, 2 * c + 1))
        return powers + doubled[0::2][: n - c]

    def slopes(self, n_heads: int) -> np.ndarray:
        """The slopes m_h = 2^(e_h) in float64; each e_h is a dyadic rational, so only exp2 rounds."""
        return np.exp2(np.array([float(e) for e in self.exponents(n_heads)]))

    def slopes_mp(self, n_heads: int, dps: int = 50) -> list[mpmath.mpf]:
        """The slopes m_h = 2^(e_h) as mpmath numbers with `dps` significant digits."""
        exponents = self.exponents(n_heads)
        with mpmath.workdps(require_positive_int(dps, "dps")):
            return [_exp2_mp(e) for e in exponents]

    def slopes_exact(self, n_heads: int) -> list[sp.Expr]:
        """The slopes m_h = 2^(e_h) as exact SymPy numbers."""
        return [sp.Integer(2) ** sp.Rational(e.numerator, e.denominator) for e in self.exponents(n_heads)]

    def bias(self, n_q: int, n_k: int, n_heads: int) -> np.ndarray:
        """The bias of query i = 0, …, n_q − 1 and key j = 0, …, n_k − 1 per head: shape (heads, n_q, n_k).

        −m_h·(i − j), with keys j > i masked by −inf when `causal`; −m_h·|i − j| otherwise.
        """
        n_q = require_positive_int(n_q, "n_q")
        n_k = require_positive_int(n_k, "n_k")
        return _linear_bias(n_q, n_k, require_slopes(self.slopes(n_heads)), self.causal)


#: The reference rule the slope checks compare with.
REFERENCE = Alibi()


def alibi_slopes_exact(n_heads: int) -> tuple[Fraction, ...]:
    """The exact exponents e_h of the reference slopes m_h = 2^(e_h) (`Alibi.exponents`)."""
    return REFERENCE.exponents(n_heads)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The reference slopes in float64 (`Alibi.slopes`)."""
    return REFERENCE.slopes(n_heads)


def alibi_bias(n_q: int, n_k: int, slopes: Sequence[float] | np.ndarray, causal: bool = True) -> np.ndarray:
    """The bias −m_h·(i − j) of the given slopes, shape (heads, n_q, n_k), as `Alibi(causal).bias` builds it.

    Keys j > i are masked with −inf when `causal`; with causal=False the bias is −m_h·|i − j|.
    """
    n_q = require_positive_int(n_q, "n_q")
    n_k = require_positive_int(n_k, "n_k")
    m = require_slopes(slopes)
    return _linear_bias(n_q, n_k, m, _require_causal(causal))


def _linear_bias(n_q: int, n_k: int, m: np.ndarray, causal: bool) -> np.ndarray:
    """−m_h·|i − j| for each head, with −inf where j > i when `causal`."""
    offset = np.arange(n_q)[:, None] - np.arange(n_k)[None, :]
    bias = -m[:, None, None] * np.abs(offset)[None, :, :]
    if causal:
        bias = np.where(offset[None, :, :] < 0, -np.inf, bias)
    return bias


def require_slopes(slopes: object) -> np.ndarray:
    """Slopes as a float64 vector when they form a non-empty 1-D array of finite positive real numbers."""
    try:
        array = np.asarray(slopes)
    except Exception as exc:
        raise ValueError(f"slopes must be a 1-D array of positive real numbers: {exc}") from None
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(f"slopes must be real numbers, got dtype {array.dtype}")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"slopes must be a non-empty 1-D array, one slope per head; got shape {array.shape}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("slopes must be finite; got NaN or infinity")
    if np.any(array <= 0):
        raise ValueError(f"slopes must be positive (ALiBi penalises distance), got minimum {array.min()}")
    return array


def slope_tolerance(n_heads: int, slack: float = 4.0) -> float:
    """Allowed relative float64 error of a slope when n_heads slopes are computed.

    A slope computed as 2^(e) directly is off by at most one rounding, ε; the reference code computes
    ``start * ratio**i`` from a rounded ratio, and ratio**i multiplies that ratio's relative error by i < n.
    So every slope, and the quotient of two, is within (n + 1)·ε relative; `slack` covers the last roundings.
    """
    return slack * EPS64 * (require_positive_int(n_heads, "n_heads") + 1)


def check_slopes_exact(alibi: Alibi, n_heads: int) -> CheckResult:
    """alibi.slopes(n)[h] = 2^(e_h) for every head, e_h from `REFERENCE.exponents` (2^(e_h) to 30 digits).

    Tolerance: `slope_tolerance(n)`, relative.
    """
    n = require_positive_int(n_heads, "n_heads")
    name = f"ALiBi slopes for {n} heads equal 2^(e_h) of the reference rule"
    got = _slope_vector(alibi, n)
    if got is None:
        return CheckResult(name, False, float("inf"), 0.0, {"n_heads": n, "reason": "not n finite slopes"})
    exponents = REFERENCE.exponents(n)
    high, low = np.array([_power_of_two(e) for e in exponents]).T
    errors = np.abs((got - high) - low) / high
    head = int(np.argmax(errors))
    return _result(
        name,
        errors,
        slope_tolerance(n),
        {
            "n_heads": n,
            "head": head + 1,
            "slope": float(got[head]),
            "exponent": str(exponents[head]),
        },
    )


def check_slopes_geometric(alibi: Alibi, n_heads: int) -> CheckResult:
    """For n = 2^k heads alibi.slopes(n) is geometric: m_1 = 2^(−8/n) and m_(h+1)/m_h = 2^(−8/n) for all h."""
    n = require_positive_int(n_heads, "n_heads")
    if n & (n - 1):
        raise ValueError(
            f"n_heads must be a power of two for the geometric property, got {n}; other head counts "
            "interleave two geometric sequences (use check_slopes_exact)"
        )
    name = f"ALiBi slopes for {n} heads are geometric with first term and ratio 2^(−8/{n})"
    got = _slope_vector(alibi, n)
    if got is None:
        return CheckResult(name, False, float("inf"), 0.0, {"n_heads": n, "reason": "not n finite slopes"})
    ratio = 2.0 ** (-8.0 / n)
    terms = np.concatenate([got[:1], got[1:] / got[:-1]])
    errors = np.abs(terms / ratio - 1.0)
    worst = int(np.argmax(errors))
    return _result(
        name,
        errors,
        slope_tolerance(n),
        {
            "n_heads": n,
            "term": "first slope" if worst == 0 else f"m_{worst + 1}/m_{worst}",
            "value": float(terms[worst]),
            "expected": ratio,
        },
    )


def has_geometric_exponents(alibi: Alibi, n_heads: int) -> bool:
    """Whether the exact exponents of alibi's n slopes start at −8/n, step by −8/n and end at −8: the slopes
    are the geometric sequence m_h = 2^(−8h/n), h = 1, …, n."""
    exponents = alibi.exponents(require_positive_int(n_heads, "n_heads"))
    step = Fraction(-8, n_heads)
    steps = {b - a for a, b in itertools.pairwise(exponents)}
    return len(exponents) == n_heads and exponents[0] == step and steps <= {step} and exponents[-1] == -8


def interleaves_two_geometric_sequences(alibi: Alibi, n_heads: int) -> bool:
    """Whether, for c = 2^⌊log₂ n⌋ < n, alibi's exact exponents are −8h/c (h = 1…c) then −4(2k − 1)/c
    (k = 1…n − c), each extra one the mean of the exponents of m_(k−1), m_k of the first (m_0 = 1)."""
    n = require_positive_int(n_heads, "n_heads")
    c = 1 << (n.bit_length() - 1)
    first = [Fraction(-8 * h, c) for h in range(1, c + 1)]
    extra = [Fraction(-4 * (2 * k - 1), c) for k in range(1, n - c + 1)]
    neighbours = [Fraction(0), *first]
    means = all(e == (neighbours[k - 1] + neighbours[k]) / 2 for k, e in enumerate(extra, start=1))
    return list(alibi.exponents(n)) == first + extra and means


def has_slopes(alibi: Alibi, n_heads: int, slopes: Sequence[sp.Expr]) -> bool:
    """Whether alibi's n slopes, as exact SymPy numbers 2^(e_h), are exactly `slopes` (say fairseq's
    get_slopes computed in exact arithmetic)."""
    return alibi.slopes_exact(require_positive_int(n_heads, "n_heads")) == list(slopes)


def check_bias_depends_on_offset(alibi: Alibi, n_heads: int, n_q: int, n_k: int) -> CheckResult:
    """B[h, i + 1, j + 1] = B[h, i, j] for every head, query and key of B = alibi.bias(n_q, n_k, n_heads):
    the bias is a function of i − j alone.

    Masked entries must match masked entries. A bias computed as −m·(i − j) has equal entries for equal
    i − j exactly; the tolerance, 4ε·max |B|, admits an implementation that rounds −m·i + m·j instead.
    """
    n = require_positive_int(n_heads, "n_heads")
    n_q, n_k = require_positive_int(n_q, "n_q"), require_positive_int(n_k, "n_k")
    if n_q < 2 or n_k < 2:
        raise ValueError(f"need n_q ≥ 2 and n_k ≥ 2 to compare shifted entries, got {n_q} and {n_k}")
    name = "ALiBi bias depends on i − j only"
    values = _bias_array(alibi, n, n_q, n_k)
    if isinstance(values, str):
        return CheckResult(name, False, float("inf"), 0.0, {"reason": values})
    errors = _entry_difference(values[:, 1:, 1:], values[:, :-1, :-1])
    finite = np.abs(values[np.isfinite(values)])
    tolerance = 4.0 * EPS64 * max(float(finite.max()) if finite.size else 0.0, 1.0)
    h, i, j = np.unravel_index(int(np.argmax(errors)), errors.shape)
    return _result(
        name,
        errors,
        tolerance,
        {
            "head": int(h),
            "i": int(i),
            "j": int(j),
            "B[i, j]": float(values[h, i, j]),
            "B[i + 1, j + 1]": float(values[h, i + 1, j + 1]),
        },
    )


def check_softmax_weight_ratio(
    alibi: Alibi, n_heads: int, n: int, content: np.ndarray | None = None
) -> CheckResult:
    """Adding the bias multiplies the softmax weight ratio w_a/w_b of keys at distances a < b by e^{m(b − a)}.

    For every head h, query i and visible key j < i (distance b = i − j, compared with the key at distance
    a = 0), the softmax weights of content + alibi.bias(n, n, n_heads) and of content alone (an (n, n) array
    of query–key scores, zeros by default) are computed in float64 and (w_i/w_j)/(w⁰_i/w⁰_j) is compared
    with e^{m_h(i − j)}, m_h = alibi.slopes(n_heads)[h]. Pairs whose weights underflow float64 are counted
    in the witness, not compared; a visible key that is masked or NaN, or a row holding NaN or +inf, is an
    error. Tolerance: `softmax_ratio_tolerance` of the largest logit.
    """
    heads = require_positive_int(n_heads, "n_heads")
    n = require_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"need at least 2 positions to compare two keys, got n={n}")
    scores = _content_scores(content, n)
    name = "ALiBi multiplies the softmax weight ratio of keys at distances a < b by exp(m(b − a))"
    m = _slope_vector(alibi, heads)
    if m is None:
        witness = {"n_heads": heads, "reason": "not n finite slopes"}
        return CheckResult(name, False, float("inf"), 0.0, witness)
    values = _bias_array(alibi, heads, n, n)
    if isinstance(values, str):
        return CheckResult(name, False, float("inf"), 0.0, {"reason": values})
    logits = scores[None, :, :] + values
    biased, plain = _softmax(logits), _softmax(scores)[None, :, :]
    rows, keys = np.tril_indices(n, k=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        biased_ratio = biased[:, rows, rows] / biased[:, rows, keys]
        ratio = biased_ratio / (plain[:, rows, rows] / plain[:, rows, keys])
        expected = np.exp(m[:, None] * (rows - keys)[None, :])
        errors = np.abs(ratio / expected - 1.0)
    sound_rows = ~np.any(np.isnan(logits) | np.isposinf(logits), axis=-1)[:, rows]
    visible = sound_rows & np.isfinite(logits[:, rows, rows]) & np.isfinite(logits[:, rows, keys])
    tiny = np.finfo(np.float64).tiny
    measurable = (
        visible
        & (np.minimum(biased[:, rows, rows], biased[:, rows, keys]) >= tiny)
        & (np.minimum(plain[:, rows, rows], plain[:, rows, keys]) >= tiny)
    )
    errors = np.where(visible, np.where(measurable, errors, 0.0), np.inf)
    errors[np.isnan(errors)] = np.inf
    finite = np.abs(logits[np.isfinite(logits)])
    tolerance = softmax_ratio_tolerance(float(finite.max()) if finite.size else 0.0)
    h, pair = np.unravel_index(int(np.argmax(errors)), errors.shape)
    witness = {
        "head": int(h),
        "query": int(rows[pair]),
        "key": int(keys[pair]),
        "ratio": float(ratio[h, pair]),
        "expected": float(expected[h, pair]),
        "compared_pairs": int(measurable.sum()),
        "underflowed_pairs": int((visible & ~measurable).sum()),
    }
    if not measurable.any():
        return CheckResult(name, False, float(errors.max()), tolerance, witness)
    return _result(name, errors, tolerance, witness)


def softmax_ratio_tolerance(max_abs_logit: float, slack: float = 8.0) -> float:
    """Allowed relative float64 error of a ratio of two softmax weight ratios with logits up to X in size.

    A weight w = exp(x − M)/Z is off by ε|x| (x = score + bias rounded), ε|x − M| ≤ 2εX (the shift, which
    exp turns into a relative error), ε (exp) and ε (the division by Z, the same Z for both keys of a row):
    at most ε(3X + 2) each. The ratio of ratios combines four weights, and e^{m(b − a)} is off by ε(X + 1);
    so the error is at most ε(13X + 9), which `slack` rounds up.
    """
    return slack * EPS64 * (13.0 * abs(max_abs_logit) + 9.0)


@cache
def _power_of_two(exponent: Fraction) -> tuple[float, float]:
    """2^exponent as a double-double (high, low): high + low is within 10^(−30) of it, relative.

    With it, |slope − 2^e| = |(slope − high) − low| to far below the slope tolerance: slope − high is exact
    when the two are within a factor 2 of each other (Sterbenz), and a slope further off fails anyway.
    """
    with mpmath.workdps(_DIGITS):
        value = _exp2_mp(exponent)
        high = float(value)
        return high, float(value - high)


def _exp2_mp(exponent: Fraction) -> mpmath.mpf:
    """2^exponent at the working precision of mpmath."""
    return mpmath.power(2, mpmath.mpf(exponent.numerator) / exponent.denominator)


def _slope_vector(alibi: Alibi, n: int) -> np.ndarray | None:
    """alibi.slopes(n) as a float64 vector when it holds n finite positive slopes, else None."""
    got = np.asarray(alibi.slopes(n), dtype=np.float64).reshape(-1)
    if got.shape != (n,) or not np.all(np.isfinite(got)) or np.any(got <= 0):
        return None
    return got


def _bias_array(alibi: Alibi, n_heads: int, n_q: int, n_k: int) -> np.ndarray | str:
    """alibi.bias(n_q, n_k, n_heads) as a float64 array, or why it is not of shape (n_heads, n_q, n_k)."""
    values = np.asarray(alibi.bias(n_q, n_k, n_heads), dtype=np.float64)
    expected = (n_heads, n_q, n_k)
    if values.shape != expected:
        return f"bias has shape {values.shape}, expected (heads, n_q, n_k) = {expected}"
    return values


def _content_scores(content: np.ndarray | None, n: int) -> np.ndarray:
    if content is None:
        return np.zeros((n, n))
    scores = np.asarray(content)
    if scores.dtype.kind not in "iuf" or scores.shape != (n, n) or not np.all(np.isfinite(scores)):
        raise ValueError(f"content must be an ({n}, {n}) array of finite real scores, got {scores.shape}")
    return scores.astype(np.float64)


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, shifted by the row maximum; masked (−inf) logits get weight 0."""
    with np.errstate(invalid="ignore"):
        shifted = logits - np.max(logits, axis=-1, keepdims=True)
        weights = np.exp(shifted)
        return weights / np.sum(weights, axis=-1, keepdims=True)


def _entry_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a − b| entrywise; 0 where equal (equal infinities included), inf where only one is finite or NaN."""
    with np.errstate(invalid="ignore"):
        difference = np.where(a == b, 0.0, np.abs(a - b))
    difference[np.isnan(difference)] = np.inf
    return difference


def _result(name: str, errors: np.ndarray, tolerance: float, witness: dict[str, object]) -> CheckResult:
    max_error = float(np.max(errors))
    return CheckResult(name, bool(max_error <= tolerance), max_error, tolerance, witness)
