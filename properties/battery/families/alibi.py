"""The ALiBi battery of `pe-verify check`: slopes ``slopes(n_heads) -> [n_heads]`` or a bias
``bias(n_heads, seq_len) -> [n_heads, seq_len, seq_len]``, told apart by their number of required parameters.
The bias may also come as one row per head, [n_heads, 1, seq_len], the same for every query (BLOOM's and
transformers' ``build_alibi_tensor`` with a batch of one: m·j for key j; MPT's ``build_alibi_bias``, [1,
n_heads, 1, seq_len] of m·(j − L + 1)), which is read as that row broadcast to every query i; and either shape
with a leading batch axis of one ([1, n_heads, 1, seq_len], [1, n_heads, seq_len, seq_len]). The softmax
ignores a constant added to a row, so a row r is a correct bias exactly when r[h, j] − r[h, j − 1] = m_h for
every j: the checks below, on the broadcast bias, ask that of it (relative: equal steps; penalises-distance
and monotone: non-negative ones).

Before the properties, each head count of ``settings.heads`` is screened with one call (`screen`: slopes(n),
or bias(n, 8)); a head count where it raises or returns the wrong shape fails as "contract at n_heads=n"
(some code accepts powers of two only) and the properties run at the others.

Properties (head counts drawn from ``settings.heads``, sequence lengths up to min(max_pos, 128), and for the
bias the fixed probes of `LONG_LENGTHS` at the smallest head count):

- shape: one slope per head, shape [n]; the bias has one of the shapes above and is finite for every key
  j ≤ i (entries above the diagonal may be −inf, masked, or anything).
- positive (slopes form): every slope is finite and positive.
- decreasing: for n a power of two the slopes fall strictly with the head, |m_1| > … > |m_n| (magnitudes, so a
  sign error is left to `positive` and `penalises-distance`); the bias form's slopes are those it implies,
  m_h = b[h, 1, 1] − b[h, 1, 0].
- relative, penalises-distance, monotone (bias form): the softmax ignores a constant added to a row and
  common code (BLOOM) adds m·j, so each row's diagonal value is subtracted first,
  c[h, i, j] = b[h, i, j] − b[h, i, i]; on j ≤ i, c depends on i − j only, is ≤ 0, and does not rise as the
  distance i − j grows.
- deterministic: two calls with the same arguments give the same values (on j ≤ i for the bias).

Positions j from 257 on are no longer integers in bfloat16 (from 2049 in float16): a bias built from positions
held in such a dtype steps unevenly there, which the relative, penalises-distance and monotone checks find
at the fixed lengths `LONG_LENGTHS` (300 and 2049, those at most max_pos), beyond what Hypothesis draws.

Identification compares the slopes (or those the bias implies) with the reference rule (fairseq
``get_slopes``, `alibi.REFERENCE`), the naive 2^(−8h/n) for every n and the reference in reverse order
(`VARIANTS`, each an `alibi.Alibi`), and for the bias form describes its layout (one row per head,
causal-masked, symmetric −m|i − j|, row-constant-shifted as BLOOM) in the parameters. When no variant
matches at the result dtype's tolerance, the first narrower precision (float32, float16, bfloat16) that holds
every value read and where one matches names it "computed in" that precision (BLOOM computes its slopes in
float32 whatever dtype it returns): a `low-precision` finding, not a failure. A slope off by one float64
ulp is no float32 number, so not that; one off by less than float32's rounding of the rule cannot be told
from it. Besides the long lengths, Hypothesis draws head counts and lengths, and shrinks a failure to the
smallest.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ...encodings.alibi import REFERENCE, Alibi, slope_tolerance
from ...numerics.validation import require_positive_int
from .. import (
    UNIDENTIFIED,
    Backend,
    Broken,
    Cause,
    Family,
    Finding,
    Identification,
    Outcome,
    Settings,
    as_array,
    call,
    computed_in,
    define,
    finding,
    no_arrays,
    outcome,
    register,
    require_result,
    search,
    short,
    unit_roundoff,
)

FAMILY_NAME = "alibi"
#: The longest sequence the bias checks ask for (memory: heads · L² values per call).
MAX_LENGTH = 128
#: The sequence length identification reads the bias layout at, and the screen calls the bias at.
IDENTIFY_LENGTH = 8
#: Lengths every bias check probes first (those at most max_pos): positions beyond 256 collide in bfloat16,
#: beyond 2048 in float16.
LONG_LENGTHS = (300, 2049)
REFERENCE_RULE = (
    "fairseq get_slopes: 2^(−8h/c) for the closest lower power of two c, then every other slope of 2c"
)


def _causal(length: int) -> np.ndarray:
    """The (L, L) mask of the entries with key j ≤ query i."""
    return np.tril(np.ones((length, length), dtype=bool))


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass
class AlibiTarget:
    """The implementation under test, in its slopes or bias form, remembering the dtype of its last result.

    Head counts and lengths are handed over as Python ints (no array inputs), so the backend is not needed to
    convert them; results go through `as_array` and `require_result`.
    """

    function: Callable[..., Any]
    form: str
    backend: Backend
    limit: int
    dtype: str = "float64"
    row: bool = False  # whether the latest bias came as one row per head, [n, 1, L]

    @property
    def u(self) -> float:
        return unit_roundoff(self.dtype)

    def slopes(self, n: int) -> np.ndarray:
        """slopes(n) as a float64 vector of n finite values (`Broken` otherwise)."""
        what = f"slopes({n})"
        array, self.dtype = as_array(call(self.function, (n,), what), what)
        return require_result(array, (n,), what)

    def bias(self, n: int, length: int) -> np.ndarray:
        """bias(n, L) as a float64 (n, L, L) array, finite on j ≤ i (`Broken` otherwise): a row per head,
        (n, 1, L), broadcast to every query, and a leading batch axis of one dropped."""
        what = f"bias({n}, {length})"
        array, self.dtype = as_array(call(self.function, (n, length), what), what)
        shape = (n, length, length)
        squeezed = array[0] if array.ndim == 4 and array.shape[0] == 1 else array
        self.row = squeezed.shape == (n, 1, length)
        if self.row:
            squeezed = np.broadcast_to(squeezed, shape)
        if squeezed.shape != shape:
            raise Broken(
                "wrong-shape",
                f"{what} returned shape {array.shape}, expected {shape} or {(n, 1, length)} (either with a "
                "leading batch axis of 1)",
            )
        require_result(np.where(_causal(length), squeezed, 0.0), shape, what)
        return squeezed

    def centred(self, n: int, length: int) -> tuple[np.ndarray, np.ndarray, float]:
        """The bias, c = b − (each row's diagonal value) with 0 above the diagonal, and max |b| on j ≤ i."""
        b = self.bias(n, length)
        lower = np.where(_causal(length), b, 0.0)
        diagonal = np.diagonal(lower, axis1=1, axis2=2)
        c = np.where(_causal(length), lower - diagonal[:, :, None], 0.0)
        return b, c, float(np.max(np.abs(lower)))

    def head_slopes(self, n: int) -> np.ndarray:
        """The slopes: returned (slopes form) or implied by the bias, m_h = b[h, 1, 1] − b[h, 1, 0]."""
        if self.form == "slopes":
            return self.slopes(n)
        _, c, _ = self.centred(n, 2)
        return -c[:, 1, 0]


def adapt(function: Callable[..., Any], form: str, backend: Backend, settings: Settings) -> AlibiTarget:
    return AlibiTarget(function, form, backend, max(2, min(settings.max_pos, MAX_LENGTH)))


def screen(adapter: AlibiTarget, n: int) -> None:
    """One plain call at head count n (`battery.screen`): slopes(n), or bias(n, 8) (shorter when max_pos
    is); `Broken` when it raises or returns the wrong shape."""
    if adapter.form == "slopes":
        adapter.slopes(n)
    else:
        adapter.bias(n, min(IDENTIFY_LENGTH, adapter.limit))


# ------------------------------------------------------------------------------------------ helpers


def _value(x: float) -> float:
    """A counterexample's value, with −0.0 shown as 0.0."""
    return short(float(x) + 0.0)


def _u_text(dtype: str) -> str:
    u = unit_roundoff(dtype)
    return f"u = 2^{round(math.log2(u))} ({dtype})"


def _heads(settings: Settings) -> list[int]:
    heads = sorted({int(n) for n in settings.heads if int(n) >= 1})
    if not heads:
        raise ValueError(f"settings.heads must hold a positive head count, got {settings.heads!r}")
    return heads


def _not_applicable(name: str, why: str) -> Outcome:
    return Outcome(name, True, f"not applicable: {why}", "not run", applies=False)


def _bias_strategy(settings: Settings, limit: int, shortest: int = 2) -> st.SearchStrategy:
    return st.tuples(st.sampled_from(_heads(settings)), st.integers(min(shortest, limit), limit))


def _long_probes(settings: Settings) -> list[tuple[int, int]]:
    """(the smallest head count, L) for each of `LONG_LENGTHS` at most max_pos."""
    return [(_heads(settings)[0], length) for length in LONG_LENGTHS if length <= settings.max_pos]


def _first(bad: np.ndarray) -> tuple[int, int, int]:
    """The (head, i, j) of the violation with the smallest query i, then key j, then head."""
    i, j, h = (int(v) for v in np.argwhere(np.moveaxis(bad, 0, -1))[0])
    return h, i, j


def _bias_tolerance_text(slack: int, adapter: AlibiTarget, what: str) -> str:
    value = slack * adapter.u
    return (
        f"{what} ≤ {slack}·u·max|b[h, i, j]| over j ≤ i of each example (relative to the largest |bias|), "
        f"{slack}·u = {short(value)} with {_u_text(adapter.dtype)}"
    )


# ------------------------------------------------------------------------------------------ properties


@register(
    FAMILY_NAME,
    "shape",
    "one slope per head, [n]; the bias is [n, L, L] or a row per head [n, 1, L], finite for every key j ≤ i",
)
def check_shape(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "shape"
    if adapter.form == "slopes":
        strategy: st.SearchStrategy = st.sampled_from(_heads(settings))

        def fails(n: int) -> dict[str, Any] | None:
            adapter.slopes(n)
            return None

        tolerance = "exact: shape (n,) and every slope finite"
    else:
        strategy = _bias_strategy(settings, adapter.limit, shortest=1)

        def fails(example: tuple[int, int]) -> dict[str, Any] | None:
            adapter.bias(*example)
            return None

        tolerance = (
            "exact: shape (n, L, L) or a row per head (n, 1, L), either with a leading batch axis of 1; "
            "every entry with j ≤ i finite (entries j > i unchecked)"
        )
    return outcome(name, tolerance, search(strategy, fails, settings), "wrong-shape")


@register(FAMILY_NAME, "positive", "every slope is finite and positive", forms=("slopes",))
def check_positive(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "positive"

    def fails(n: int) -> dict[str, Any] | None:
        slopes = adapter.slopes(n)
        bad = np.flatnonzero(slopes <= 0)
        if bad.size == 0:
            return None
        head = int(bad[0])
        return {"n_heads": n, "head": head, "slope": _value(slopes[head])}

    found = search(st.sampled_from(_heads(settings)), fails, settings)
    return outcome(name, "exact: m_h > 0", found, "not-positive")


@register(FAMILY_NAME, "decreasing", "for n a power of two the slopes fall strictly: |m_1| > … > |m_n|")
def check_decreasing(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "decreasing"
    powers = [n for n in _heads(settings) if _is_power_of_two(n) and n > 1]
    if not powers:
        return _not_applicable(name, f"no power of two above 1 in settings.heads {tuple(settings.heads)}")

    def fails(n: int) -> dict[str, Any] | None:
        magnitudes = np.abs(adapter.head_slopes(n))
        bad = np.flatnonzero(magnitudes[1:] >= magnitudes[:-1])
        if bad.size == 0:
            return None
        head = int(bad[0])
        return {
            "n_heads": n,
            "head": head,
            "slope": _value(magnitudes[head]),
            "next slope": _value(magnitudes[head + 1]),
        }

    found = search(st.sampled_from(powers), fails, settings)
    source = "the slopes" if adapter.form == "slopes" else "the slopes implied by b[h, 1, 1] − b[h, 1, 0]"
    largest = max(powers)
    tolerance = (
        f"exact on {source}: |m_(h+1)| < |m_h| (the reference ratio 2^(−8/n) is at most "
        f"{short(2.0 ** (-8.0 / largest))} at n = {largest}, far from 1 next to {_u_text(adapter.dtype)})"
    )
    return outcome(name, tolerance, found, "not-decreasing")


@register(
    FAMILY_NAME,
    "relative",
    "after subtracting each row's diagonal value, the bias on j ≤ i depends on i − j only",
    forms=("bias",),
)
def check_relative(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "relative"

    def fails(example: tuple[int, int]) -> dict[str, Any] | None:
        n, length = example
        _, c, largest = adapter.centred(n, length)
        if length < 3:
            return None
        tolerance = 8 * adapter.u * largest
        shifted, here = c[:, 1:, 1:], c[:, :-1, :-1]
        bad = (np.abs(shifted - here) > tolerance) & _causal(length - 1)[None, :, :]
        if not bad.any():
            return None
        h, i, j = _first(bad)
        return {
            "n_heads": n,
            "seq_len": length,
            "head": h,
            "i": i,
            "j": j,
            "b[i, j] − b[i, i]": _value(here[h, i, j]),
            "b[i+1, j+1] − b[i+1, i+1]": _value(shifted[h, i, j]),
            "tolerance": short(tolerance),
        }

    strategy = _bias_strategy(settings, adapter.limit, shortest=3)
    found = search(strategy, fails, settings, _long_probes(settings))
    tolerance = _bias_tolerance_text(8, adapter, "|c[h, i+1, j+1] − c[h, i, j]|")
    return outcome(name, tolerance, found, "not-relative")


@register(
    FAMILY_NAME,
    "penalises-distance",
    "after subtracting each row's diagonal value, the bias on j ≤ i is ≤ 0 (it never rewards distance)",
    forms=("bias",),
)
def check_sign(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "penalises-distance"

    def fails(example: tuple[int, int]) -> dict[str, Any] | None:
        n, length = example
        b, c, largest = adapter.centred(n, length)
        tolerance = 4 * adapter.u * largest
        bad = c > tolerance
        if not bad.any():
            return None
        h, i, j = _first(bad)
        return {
            "n_heads": n,
            "seq_len": length,
            "head": h,
            "i": i,
            "j": j,
            "b[i, j]": _value(b[h, i, j]),
            "b[i, i]": _value(b[h, i, i]),
            "b[i, j] − b[i, i]": _value(c[h, i, j]),
            "tolerance": short(tolerance),
        }

    found = search(_bias_strategy(settings, adapter.limit), fails, settings, _long_probes(settings))
    tolerance = _bias_tolerance_text(4, adapter, "c[h, i, j] = b[h, i, j] − b[h, i, i]")
    return outcome(name, tolerance, found, "bias-sign")


@register(
    FAMILY_NAME,
    "monotone",
    "after subtracting each row's diagonal value, the bias on j ≤ i does not rise as i − j grows",
    forms=("bias",),
)
def check_monotone(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "monotone"

    def fails(example: tuple[int, int]) -> dict[str, Any] | None:
        n, length = example
        _, c, largest = adapter.centred(n, length)
        tolerance = 8 * adapter.u * largest
        farther, nearer = c[:, :, :-1], c[:, :, 1:]  # key j at distance i − j, key j + 1 one step nearer
        visible = np.tril(np.ones((length, length - 1), dtype=bool), k=-1)
        bad = (farther - nearer > tolerance) & visible[None, :, :]
        if not bad.any():
            return None
        h, i, j = _first(bad)
        return {
            "n_heads": n,
            "seq_len": length,
            "head": h,
            "i": i,
            "j": j,
            "distance i − j": i - j,
            "b[i, j] − b[i, i]": _value(farther[h, i, j]),
            "b[i, j+1] − b[i, i]": _value(nearer[h, i, j]),
            "tolerance": short(tolerance),
        }

    found = search(_bias_strategy(settings, adapter.limit), fails, settings, _long_probes(settings))
    tolerance = _bias_tolerance_text(8, adapter, "c[h, i, j] − c[h, i, j + 1]")
    return outcome(name, tolerance, found, "not-monotone")


@register(
    FAMILY_NAME, "deterministic", "two calls with the same arguments give the same values (j ≤ i for a bias)"
)
def check_deterministic(adapter: AlibiTarget, settings: Settings) -> Outcome:
    name = "deterministic"
    if adapter.form == "slopes":
        strategy: st.SearchStrategy = st.sampled_from(_heads(settings))

        def fails(n: int) -> dict[str, Any] | None:
            first, second = adapter.slopes(n), adapter.slopes(n)
            differ = np.flatnonzero(first != second)
            if differ.size == 0:
                return None
            head = int(differ[0])
            return {
                "n_heads": n,
                "head": head,
                "first call": _value(first[head]),
                "second call": _value(second[head]),
            }

    else:
        strategy = _bias_strategy(settings, adapter.limit, shortest=1)

        def fails(example: tuple[int, int]) -> dict[str, Any] | None:
            n, length = example
            first, second = adapter.bias(n, length), adapter.bias(n, length)
            differ = (first != second) & _causal(length)[None, :, :]
            if not differ.any():
                return None
            h, i, j = _first(differ)
            return {
                "n_heads": n,
                "seq_len": length,
                "head": h,
                "i": i,
                "j": j,
                "first call": _value(first[h, i, j]),
                "second call": _value(second[h, i, j]),
            }

    return outcome(name, "exact (bitwise equal)", search(strategy, fails, settings), "nondeterministic")


# ------------------------------------------------------------------------------------------ identification


class NaiveSlopes(Alibi):
    """2^(−8h/n), h = 1, …, n, for every n: the reference rule only when n is a power of two."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        n = require_positive_int(n_heads, "n_heads")
        return tuple(Fraction(-8 * h, n) for h in range(1, n + 1))


class ReversedSlopes(Alibi):
    """The reference slopes in reverse order (increasing with the head)."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        return super().exponents(n_heads)[::-1]


#: The variants identification tells apart, in order of preference when several match.
VARIANTS: tuple[tuple[str, str, Alibi], ...] = (
    ("reference", REFERENCE_RULE, REFERENCE),
    ("naive 2^(−8h/n)", "2^(−8h/n), h = 1, …, n, for every n", NaiveSlopes()),
    ("reversed order", "the reference rule's slopes in reverse order", ReversedSlopes()),
)


@dataclass(frozen=True)
class _Observed:
    """The slopes read at one head count, the values they were read from (the slopes, or b[h, 1, :2]) and
    the largest |b[h, 1, j]| each was read from (zero for the slopes form): a slope read off a bias may carry
    4·u of it beyond the slope rounding."""

    n: int
    slopes: np.ndarray
    read: np.ndarray
    row: np.ndarray


@dataclass(frozen=True)
class _Fit:
    name: str
    rule: str
    deviation: float
    matches: bool
    worst: tuple[int, int, float, float]  # n, head, got, want


def _fit(name: str, rule: str, reference: Alibi, seen: list[_Observed], u: float) -> _Fit:
    deviation, matches, worst = -1.0, True, (seen[0].n, 0, 0.0, 0.0)
    for observed in seen:
        want = reference.slopes(observed.n)
        errors = np.abs(observed.slopes - want) / want
        allowed = slope_tolerance(observed.n) * (u / unit_roundoff("float64")) + 4 * u * observed.row / want
        matches = matches and bool(np.all(errors <= allowed))
        head = int(np.argmax(errors))
        if errors[head] > deviation:
            deviation = float(errors[head])
            worst = (observed.n, head, float(observed.slopes[head]), float(want[head]))
    return _Fit(name, rule, deviation, matches, worst)


def _layout(adapter: AlibiTarget, heads: list[int]) -> dict[str, Any]:
    """The bias layout at L = IDENTIFY_LENGTH (or the length limit): one row per head or a full matrix,
    masked, symmetric, shifted, linear."""
    length = min(IDENTIFY_LENGTH, adapter.limit)
    masked = symmetric = linear = row = True
    shifted = False
    above = ~_causal(length)
    for n in heads:
        b, c, largest = adapter.centred(n, length)
        row = row and adapter.row
        tolerance = 8 * adapter.u * largest
        masked = masked and bool(np.all(np.isneginf(b[:, above])))
        finite_above = bool(np.all(np.isfinite(b[:, above])))
        if finite_above:
            transposed = np.swapaxes(b, 1, 2)
            symmetric = symmetric and bool(np.all(np.abs(b - transposed) <= tolerance))
        else:
            symmetric = False
        shifted = shifted or bool(np.any(np.abs(np.diagonal(b, axis1=1, axis2=2)) > tolerance))
        slopes = -c[:, 1, 0]
        distance = np.maximum(np.arange(length)[:, None] - np.arange(length)[None, :], 0)
        linear = linear and bool(np.all(np.abs(c + slopes[:, None, None] * distance) <= tolerance))
    parts = []
    if row:
        parts.append("one row per head, [n, 1, L], the same for every query")
    if shifted:
        parts.append("row-constant-shifted (b[i, i] ≠ 0, as BLOOM's m·j)")
    if masked:
        parts.append("causal-masked (−inf above the diagonal)")
    elif symmetric:
        parts.append("symmetric −m|i − j|")
    elif not row:
        parts.append("unmasked, not symmetric above the diagonal")
    return {
        "layout": ", ".join(parts),
        "row_per_head": row,
        "causal_masked": masked,
        "symmetric": symmetric and not masked,
        "row_constant_shifted": shifted,
        "linear_in_distance": linear,
        "layout_seq_len": length,
    }


def _precision_fits(seen: list[_Observed], returned: str) -> tuple[str, list[_Fit]]:
    """(precision, the variants' fits): at the returned dtype's tolerance, or, when none matches there, at
    the first narrower precision that holds every value read (`computed_in`) and where one matches."""
    fits = [_fit(name, rule, reference, seen, unit_roundoff(returned)) for name, rule, reference in VARIANTS]
    if any(f.matches for f in fits):
        return returned, fits
    for precision in computed_in((o.read for o in seen), returned):
        narrow = [_fit(name, rule, ref, seen, unit_roundoff(precision)) for name, rule, ref in VARIANTS]
        if any(f.matches for f in narrow):
            return precision, narrow
    return returned, fits


def _precision_text(precision: str, returned: str) -> str:
    if precision == returned:
        return "the result dtype"
    return f"{precision}, where every value read is a {precision} number (returned as {returned})"


def identify(adapter: AlibiTarget, settings: Settings) -> tuple[Identification | None, list[Finding]]:
    heads = _heads(settings)
    seen: list[_Observed] = []
    for n in heads:
        if adapter.form == "slopes":
            slopes = adapter.slopes(n)
            seen.append(_Observed(n, slopes, slopes, np.zeros(n)))
        else:
            b, c, _ = adapter.centred(n, 2)
            row = np.maximum(np.abs(b[:, 1, 0]), np.abs(b[:, 1, 1]))
            seen.append(_Observed(n, -c[:, 1, 0], b[:, 1, :2], row))
    returned = adapter.dtype
    precision, fits = _precision_fits(seen, returned)
    u = unit_roundoff(precision)
    parameters: dict[str, Any] = {"heads": heads, "dtype": returned}
    if precision != returned:
        parameters["computed_in"] = precision
    where = _precision_text(precision, returned)
    tolerance = f"relative 8·u·(n + 1) per slope (`slope_tolerance` at {where})"
    if adapter.form == "bias":
        tolerance += ", plus 4·u·max(|b[h, 1, 0]|, |b[h, 1, 1]|)/m_h for slopes read off the bias"
    parameters["tolerance"] = f"{tolerance}; {_u_text(precision)}"
    if adapter.form == "bias":
        parameters.update(_layout(adapter, heads))
    findings: list[Finding] = []
    negative = [(o.n, int(np.flatnonzero(o.slopes <= 0)[0])) for o in seen if np.any(o.slopes <= 0)]
    negated_match = None
    if adapter.form == "bias" and negative:
        flipped = [_Observed(o.n, -o.slopes, o.read, o.row) for o in seen]
        negated = [_fit(name, rule, ref, flipped, u) for name, rule, ref in VARIANTS]
        negated_match = next((f for f in negated if f.matches), None)
        n, head = negative[0]
        value = float(next(o for o in seen if o.n == n).slopes[head])
        detail = (
            f"at n = {n}, head {head}: b[h, 1, 0] − b[h, 1, 1] = {short(-value)} > 0, the key one step back "
            "scores above the query's own position"
        )
        if negated_match is not None:
            detail += f"; the negated slopes follow the {negated_match.name} rule"
        findings.append(finding("bias-sign", detail))
    chosen = next((f for f in fits if f.matches), None)
    if chosen is None:
        closest = min(fits, key=lambda f: f.deviation)
        parameters.update({"closest": closest.name, "closest_rule": closest.rule})
        n, head, got, want = closest.worst
        if negated_match is None:
            findings.append(
                finding(
                    "wrong-slopes",
                    f"no known rule: the closest, {closest.name}, deviates by {short(closest.deviation)} "
                    f"(relative); at n = {n} head {head} has slope {short(got)}, "
                    f"that rule gives {short(want)}",
                )
            )
        return Identification(
            "matches no known variant", parameters, short(closest.deviation), False
        ), findings
    parameters["rule"] = chosen.rule
    if precision != returned:
        findings.append(
            finding(
                "low-precision",
                f"{chosen.name} rule, computed in {precision}: every slope is a {precision} number, "
                f"within {precision}'s rounding of that rule (relative {short(chosen.deviation)}), "
                f"returned as {returned}",
            )
        )
    if chosen.name != "reference":
        reference = fits[0]
        n, head, got, want = reference.worst
        why = {
            "naive 2^(−8h/n)": "the code computes 2^(−8h/n) for every n",
            "reversed order": "the slopes are the reference rule's in reverse order",
        }[chosen.name]
        kind = "" if _is_power_of_two(n) else " (not a power of two)"
        findings.append(
            finding(
                "wrong-slopes",
                f"{why}: at n = {n}{kind} head {head} has slope {short(got)} where {REFERENCE_RULE} "
                f"gives {short(want)}",
            )
        )
    return Identification(chosen.name, parameters, short(chosen.deviation), True), findings


#: A bias of the wrong sign explains a bias that does not fall and slopes that fit no rule; slopes of the
#: wrong rule explain themselves (their finding names the rule and the first head that differs).
CAUSES = (
    Cause("bias-sign", frozenset({"not-monotone", "not-positive", "wrong-slopes", UNIDENTIFIED})),
    Cause("wrong-slopes", frozenset({UNIDENTIFIED})),
)

FAMILY = define(
    Family(
        FAMILY_NAME,
        contract="slopes(n_heads) -> [n_heads]; or bias(n_heads, seq_len) -> [n_heads, seq_len, seq_len] "
        "or [n_heads, 1, seq_len]",
        forms={1: "slopes", 2: "bias"},
        adapt=adapt,
        identify=identify,
        expectable=("reference", "naive", "reversed"),
        module=__name__,
        handed=no_arrays,
        options=("heads", "max_pos"),
        screen=screen,
        sizes=("heads", "n_heads"),
        causes=CAUSES,
    )
)
