"""ALiBi (Press, Smith & Lewis, "Train Short, Test Long", 2022): head h adds −m_h·(i − j) to the logit of
query i and key j, with slopes m_h = 2^(−8h/n), h = 1, …, n, when the number of heads n is a power of two.

The slopes follow ``get_slopes`` of the authors' fairseq code (ofirpress/attention_with_linear_biases,
``fairseq/models/transformer.py``): for n = 2^k, ``start = ratio = 2**(-2**-(log2(n) - 3))`` = 2^(−8/n) and
slope i is ``start * ratio**i``; for other n, the slopes of the closest lower power of two c, followed by
``get_slopes(2c)[0::2][:n - c]``. That code adds m_h·j to row i (constant along each row, which the softmax
ignores) and masks keys j > i; `alibi_bias` builds the bias −m_h·(i − j) of the paper instead.

The property checks take the slope function ``slopes(n_heads)`` or the bias function
``bias(n_q, n_k, slopes)`` (shape (heads, n_q, n_k)) as an argument and return a `CheckResult`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache

import mpmath
import numpy as np

from .checking import EPS64, CheckResult
from .validation import require_positive_int

SlopeFunction = Callable[[int], np.ndarray]
BiasFunction = Callable[[int, int, np.ndarray], np.ndarray]
_DIGITS = 40


def alibi_slopes_exact(n_heads: int) -> tuple[Fraction, ...]:
    """The exponents e_h of the slopes m_h = 2^(e_h), exactly: e_h = −8h/n (h = 1, …, n) when n = 2^k.

    Other n follow the reference rule: the c = 2^⌊log₂ n⌋ exponents −8h/c, then every other exponent of 2c
    heads, −8(2k − 1)/(2c) = −4(2k − 1)/c for k = 1, …, n − c.
    """
    n = require_positive_int(n_heads, "n_heads")
    c = 1 << (n.bit_length() - 1)
    powers = tuple(Fraction(-8 * h, c) for h in range(1, c + 1))
    if c == n:
        return powers
    return powers + alibi_slopes_exact(2 * c)[0::2][: n - c]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The slopes m_h = 2^(e_h) in float64; every exponent e_h is a dyadic rational, so only exp2 rounds."""
    exponents = np.array([float(e) for e in alibi_slopes_exact(n_heads)])
    return np.exp2(exponents)


def alibi_bias(n_q: int, n_k: int, slopes: Sequence[float] | np.ndarray, causal: bool = True) -> np.ndarray:
    """The bias −m_h·(i − j) of query i = 0, …, n_q − 1 and key j = 0, …, n_k − 1: shape (heads, n_q, n_k).

    Keys j > i are masked with −inf when `causal`; with causal=False the bias is the symmetric variant
    −m_h·|i − j| (used for bidirectional attention), which also depends on i − j only.
    """
    n_q = require_positive_int(n_q, "n_q")
    n_k = require_positive_int(n_k, "n_k")
    m = require_slopes(slopes)
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be True or False, got {causal!r}")
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


def check_slopes_exact(slopes: SlopeFunction, n_heads: int) -> CheckResult:
    """slopes(n)[h] = 2^(e_h) for every head, with e_h from `alibi_slopes_exact` and 2^(e_h) to 30 digits.

    Tolerance: `slope_tolerance(n)`, relative.
    """
    n = require_positive_int(n_heads, "n_heads")
    name = f"ALiBi slopes for {n} heads equal 2^(e_h) of the reference rule"
    got = _slope_vector(slopes, n)
    if got is None:
        return CheckResult(name, False, float("inf"), 0.0, {"n_heads": n, "reason": "not n finite slopes"})
    high, low = np.array([_power_of_two(e) for e in alibi_slopes_exact(n)]).T
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
            "exponent": str(alibi_slopes_exact(n)[head]),
        },
    )


def check_slopes_geometric(slopes: SlopeFunction, n_heads: int) -> CheckResult:
    """For n = 2^k heads the slopes are geometric: m_1 = 2^(−8/n) and m_(h+1)/m_h = 2^(−8/n) for every h."""
    n = require_positive_int(n_heads, "n_heads")
    if n & (n - 1):
        raise ValueError(
            f"n_heads must be a power of two for the geometric property, got {n}; other head counts "
            "interleave two geometric sequences (use check_slopes_exact)"
        )
    name = f"ALiBi slopes for {n} heads are geometric with first term and ratio 2^(−8/{n})"
    got = _slope_vector(slopes, n)
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


def check_bias_depends_on_offset(
    bias: BiasFunction, slopes: Sequence[float] | np.ndarray, n_q: int, n_k: int
) -> CheckResult:
    """B[h, i + 1, j + 1] = B[h, i, j] for every head, query and key: the bias is a function of i − j alone.

    Masked entries must match masked entries. A bias computed as −m·(i − j) has equal entries for equal
    i − j exactly; the tolerance, 4ε·max |B|, admits an implementation that rounds −m·i + m·j instead.
    """
    m = require_slopes(slopes)
    n_q, n_k = require_positive_int(n_q, "n_q"), require_positive_int(n_k, "n_k")
    if n_q < 2 or n_k < 2:
        raise ValueError(f"need n_q ≥ 2 and n_k ≥ 2 to compare shifted entries, got {n_q} and {n_k}")
    name = "ALiBi bias depends on i − j only"
    values = _bias_array(bias, m, n_q, n_k)
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
    bias: BiasFunction,
    slopes: Sequence[float] | np.ndarray,
    n: int,
    content: np.ndarray | None = None,
) -> CheckResult:
    """Adding the bias multiplies the softmax weight ratio w_a/w_b of keys at distances a < b by e^{m(b − a)}.

    For every head h, query i and visible key j < i (distance b = i − j, compared with the key at distance
    a = 0), the softmax weights of content + bias and of content alone (an (n, n) array of query–key scores,
    zeros by default) are computed in float64 and (w_i/w_j)/(w⁰_i/w⁰_j) is compared with e^{m_h(i − j)}.
    Pairs whose weights underflow float64 are counted in the witness, not compared; a visible key that is
    masked or NaN, or a row holding NaN or +inf, is an error. Tolerance: `softmax_ratio_tolerance` of the
    largest logit.
    """
    m = require_slopes(slopes)
    n = require_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"need at least 2 positions to compare two keys, got n={n}")
    scores = _content_scores(content, n)
    name = "ALiBi multiplies the softmax weight ratio of keys at distances a < b by exp(m(b − a))"
    values = _bias_array(bias, m, n, n)
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
        value = mpmath.power(2, mpmath.mpf(exponent.numerator) / exponent.denominator)
        high = float(value)
        return high, float(value - high)


def _slope_vector(slopes: SlopeFunction, n: int) -> np.ndarray | None:
    got = np.asarray(slopes(n), dtype=np.float64).reshape(-1)
    if got.shape != (n,) or not np.all(np.isfinite(got)) or np.any(got <= 0):
        return None
    return got


def _bias_array(bias: BiasFunction, m: np.ndarray, n_q: int, n_k: int) -> np.ndarray | str:
    values = np.asarray(bias(n_q, n_k, m), dtype=np.float64)
    expected = (m.size, n_q, n_k)
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
