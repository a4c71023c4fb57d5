"""The `sinusoidal` battery of `pe-verify check`: properties every implementation of the sinusoidal encoding
PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), ω_i = base^(−2i/d) satisfies, whatever its layout, base,
exponent convention or position offset, and the identification of which of those conventions it follows.

Contract: ``encode(positions, d) -> [len(positions), d]``; positions an int64 array (a torch tensor with the
torch backend), d a Python int. Positions range over 0 … max_pos − 1 and are passed in chunks, so a call never
holds more than about 2^20 values.

Properties (e(p) = 2·u·(2.4·p + 2) is the error allowed in one entry at position p, u the unit roundoff of
the result dtype):

* deterministic — two calls with the same positions and d return the same values;
* dot-relative — PE(p)·PE(q) = PE(p+t)·PE(q+t): the dot product depends on the offset only;
* distance-relative — ‖PE(p) − PE(q)‖ = ‖PE(p+t) − PE(q+t)‖;
* constant-norm — ‖PE(p)‖ = ‖PE(0)‖ at even d (each sin/cos pair has length 1);
* fixed-rotation — PE(p+k) = M_k·PE(p) with M_k a block rotation of the sin/cos pairs (the pairs the
  identification found), read off the implementation's own rows at 0 and k, the same for every p;
* distinct-rows — the rows of positions 0 … max_pos − 1 are pairwise different in the result dtype (every
  row hashed, chunk by chunk, hash matches confirmed exactly);
* odd-d — at odd d (7) the implementation either raises (odd d rejected: a finding, not a failure) or
  returns shape [n, d].

Why e(p): a frequency ω = b^x (x = −2i/d) computed in the dtype is off by u·(1 + |x|·ln b) relatively, and
ω·|x|·ln b = y·e^(−y) ≤ 1/e (y = |x|·ln b); with the rounded product p·ω the angle is off by at most
u·p·(2ω + 1/e) ≤ 2.4·u·p, and sin/cos and the final store add 2u: u·(2.4·p + 2). The factor 2 covers the few
further roundings of library code (pow, a reciprocal, sin within a few ulp).

Identification fits each dim as a sinusoid (f(p−h) + f(p+h) = 2·cos(ωh)·f(p), with h a power of two near
1/ω so slow dims fit in float32 too) and compares the implementation, over probe positions, with every
reference variant: layout interleaved / concatenated [sin | cos], each sin-first or cos-first
(sin-cos-swapped); exponent −2i/d, −2i/(d−2) (tensor2tensor, fairseq: exponent-d-2) or −2j/d of the dimension
index (attention-is-all-you-need-pytorch issue #32: wrong-exponent); the declared or the fitted base
(wrong-base); an integer position offset (fairseq counts from padding_idx + 1: position-offset); positions
rounded to bfloat16 / float16 when neighbouring rows are equal (low-precision). When no variant matches at
every d within the result dtype's e(p), they are tried at the first narrower precision (float32, float16,
bfloat16) that holds every probed entry exactly: a float32 table returned as float64 is that variant "computed
in float32" (`computed_in`, a low-precision finding; the properties keep the result dtype's tolerance).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ...analyses.finite_precision import StoredEncoding, find_duplicate_rows
from ...encodings.frequencies import exponents
from ...numerics.dtypes import DTYPES
from .. import (
    FATAL,
    Backend,
    Broken,
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
    outcome,
    register,
    require_result,
    search,
    short,
    unit_roundoff,
)

FAMILY_NAME = "sinusoidal"
#: The odd dimension probed separately (the reference allows odd d, with ⌈d/2⌉ frequencies).
ODD_D = 7
#: Values one call may return at most; longer position lists are passed in chunks.
CHUNK_VALUES = 2**20
#: e(p) = SLACK·u·(2.4·p + 2): the once-rounded bound, times the slack for library roundings.
SLACK = 2.0
E_TEXT = (
    "e(p) = 2·u·(2.4·p + 2) per entry (u·(2.4·p + 2) bounds a frequency and an angle rounded once each, "
    "since ω·|x|·ln b ≤ 1/e; ×2 for library pow and sin)"
)
#: Narrow dtypes positions may pass through, with the exponent k of the first integer 2^k + 1 they round.
NARROW = (("bfloat16", 8), ("float16", 11), ("float32", 24))
LAYOUTS = ("interleaved", "concatenated")
#: Exponent rules: ω = base^(−x) with x = 2i/d, 2i/(d − 2) of the pair index i, or 2j/d of the dim index j.
RULES = ("2i/d", "2i/(d-2)", "2j/d")


def entry_tolerance(u: float, positions: Any) -> Any:
    """e(p) = 2·u·(2.4·|p| + 2): the error allowed in one entry at position p (scalar or array)."""
    return SLACK * u * (2.4 * np.abs(positions) + 2.0)


def _describe(positions: np.ndarray) -> str:
    """The positions of a call, short: all of them when few, else the first, the last and how many."""
    values = positions.tolist()
    if len(values) <= 6:
        return f"positions={values}"
    contiguous = bool(np.all(np.diff(positions) == 1))
    shown = f"{values[0]}…{values[-1]}" if contiguous else f"[{values[0]}, {values[1]}, …, {values[-1]}]"
    return f"positions {shown} ({len(values)} values)"


# ------------------------------------------------------------------------------------------ adapter


@dataclass(eq=False)
class DimFit:
    """Each dim fitted as A·sin(ω·p + φ): frequency, phase, amplitude, the step h used, and whether the fit
    is trustworthy (ω·h in [0.25, 2.5], amplitude near 1)."""

    omega: np.ndarray
    phase: np.ndarray
    amplitude: np.ndarray
    h: np.ndarray
    reliable: np.ndarray


@dataclass(frozen=True, eq=False)
class Fit:
    """The reference variant closest to the implementation at one d, and how far it is."""

    d: int
    layout: str
    sin_first: bool
    rule: str
    base: float
    base_declared: bool
    offset: int
    positions_dtype: str | None
    max_abs_deviation: float
    matches: bool
    dims: DimFit
    neighbours: tuple[int, int] | None  # equal rows at neighbouring positions (p, p + 1)
    unusable: tuple[int, ...] = ()  # probe positions where the implementation raised or gave NaN

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The sin dims and the cos dims of each pair under the fitted layout."""
        return layout_dims(self.layout, self.sin_first, self.d)

    @property
    def variant(self) -> str:
        return variant_name(self)

    @property
    def parameters(self) -> tuple[str, bool, str, float, bool, int, str | None]:
        """The variant as `evaluate` takes it."""
        return (
            self.layout,
            self.sin_first,
            self.rule,
            self.base,
            self.base_declared,
            self.offset,
            self.positions_dtype,
        )


@dataclass(eq=False)
class SinusoidalTarget:
    """The user's ``encode(positions, d)`` as the checks call it: inputs converted by the backend, results
    validated (raises / wrong-shape / not-finite become `Broken`), the result dtypes remembered."""

    function: Callable
    backend: Backend
    settings: Settings
    dtypes: set[str] = field(default_factory=set)
    fits: dict[int, list[Fit]] = field(default_factory=dict)
    evidence: dict[int, Evidence] = field(default_factory=dict)
    scans: dict[int, dict[str, Any] | None] = field(default_factory=dict)
    odd: tuple[bool, str] | None = None  # (accepted, detail) of the odd-d probe
    computed_in: str | None = None  # the narrower precision identification found the table computed in

    @property
    def dtype(self) -> str | None:
        """The result dtype seen so far with the largest unit roundoff (None before any result)."""
        return max(self.dtypes, key=unit_roundoff, default=None)

    @property
    def unit(self) -> float:
        """u of `computed_in` once identification found one, else of the widest-rounding result dtype seen
        so far (float64's before any result)."""
        return unit_roundoff(self.computed_in or self.dtype or "float64")

    def encode(self, positions: Any, d: int) -> np.ndarray:
        """The rows of `positions` (float64 copies of the stored values), the implementation called in
        chunks."""
        positions = np.asarray(positions, dtype=np.int64).reshape(-1)
        rows = max(1, CHUNK_VALUES // max(d, 1))
        if len(positions) <= rows:
            return self._call(positions, d)
        return np.concatenate(
            [self._call(positions[s : s + rows], d) for s in range(0, len(positions), rows)]
        )

    def _call(self, positions: np.ndarray, d: int) -> np.ndarray:
        what = f"encode({_describe(positions)}, d={d})"
        result = call(self.function, (self.backend.positions(positions), d), what)
        array, dtype = as_array(result, what)
        try:
            require_result(array, (len(positions), d), what)
        except Broken as broken:
            if broken.label != "not-finite":
                raise
            row, dim = (int(i) for i in np.argwhere(~np.isfinite(array))[0])
            raise Broken(
                "not-finite", f"{what} returned {array[row, dim]} at position {positions[row]}, dim {dim}"
            ) from None
        self.dtypes.add(dtype)
        return array

    def fit(self, d: int) -> Fit:
        """The closest reference variant at d (cached)."""
        return self.variants(d)[0]

    def variants(self, d: int) -> list[Fit]:
        """Every reference variant tried at d, best first (cached)."""
        if d not in self.fits:
            self.fits[d] = fit_variants(self, d)
        return self.fits[d]

    def odd_probe(self) -> tuple[bool, str]:
        """Call at d = ODD_D: (True, shape) when it returns [n, d], (False, the exception) when it raises; a
        wrong shape or a non-finite value stays `Broken`."""
        if self.odd is None:
            positions = np.arange(min(4, self.settings.max_pos))
            try:
                rows = self.encode(positions, ODD_D)
            except Broken as broken:
                if broken.label != "raises":
                    raise
                self.odd = (False, broken.message)
            else:
                self.odd = (True, f"encode({_describe(positions)}, d={ODD_D}) returned shape {rows.shape}")
        return self.odd


def adapt(function: Callable, form: str, backend: Backend, settings: Settings) -> SinusoidalTarget:
    """Wrap the user's ``encode(positions, d)`` (the family's only form)."""
    if form != "encode":
        raise ValueError(f"the sinusoidal family has only the form encode(positions, d), not {form!r}")
    return SinusoidalTarget(function, backend, settings)


def screen(adapter: SinusoidalTarget, d: int) -> None:
    """One plain call at d, positions 0 … 3 (`battery.screen`): `Broken` when it raises or returns the wrong
    shape."""
    adapter.encode(np.arange(min(4, adapter.settings.max_pos)), d)


# ------------------------------------------------------------------------------------ strategies


def _even(ds: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in ds if d % 2 == 0)


def _u_text(adapter: SinusoidalTarget) -> str:
    if adapter.dtype is None:
        return "u = unit roundoff of the result dtype (no result was returned)"
    return f"u = {adapter.unit:.3g} ({adapter.dtype})"


@st.composite
def _shifted_pairs(draw: Callable, ds: tuple[int, ...], max_pos: int) -> tuple[int, int, int, int]:
    """(d, p, q, t) with p, q, p + t, q + t all in 0 … max_pos − 1."""
    d = draw(st.sampled_from(ds))
    p = draw(st.integers(0, max_pos - 1))
    q = draw(st.integers(0, max_pos - 1))
    t = draw(st.integers(-min(p, q), max_pos - 1 - max(p, q)))
    return d, p, q, t


@st.composite
def _steps(draw: Callable, ds: tuple[int, ...], max_pos: int) -> tuple[int, int, int]:
    """(d, p, k) with k ≥ 1 and p + k in 0 … max_pos − 1."""
    d = draw(st.sampled_from(ds))
    p = draw(st.integers(0, max_pos - 2))
    k = draw(st.integers(1, max_pos - 1 - p))
    return d, p, k


def _shift_probes(ds: tuple[int, ...], max_pos: int) -> list[tuple[int, int, int, int]]:
    """Where known bugs show: PE(0)·PE(1) against the neighbours 256/257 (bfloat16), 2048/2049 (float16),
    the table's end and the far end of the range."""
    shifts = (1, 256, 1023, 2048, 4096, max_pos - 2)
    return [(d, 0, 1, t) for d in ds for t in shifts if t > 0 and t + 1 < max_pos]


# ------------------------------------------------------------------------------------ properties


@register(FAMILY_NAME, "deterministic", "two calls with the same positions and d return the same values")
def check_deterministic(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    top = settings.max_pos - 1
    strategy = st.tuples(
        st.sampled_from(settings.ds), st.lists(st.integers(0, top), min_size=1, max_size=8, unique=True)
    )
    fixed = [0, 1, 2, 256, 257, 2048, 2049, top]
    probes = [(d, sorted({p for p in fixed if p <= top})) for d in settings.ds]

    def fails(example: tuple[int, list[int]]) -> dict[str, Any] | None:
        d, positions = example
        first, second = adapter.encode(positions, d), adapter.encode(positions, d)
        differ = first != second
        if not np.any(differ):
            return None
        row, dim = (int(i) for i in np.argwhere(differ)[0])
        return {
            "d": d,
            "positions": list(positions),
            "position": positions[row],
            "dim": dim,
            "first call": short(float(first[row, dim])),
            "second call": short(float(second[row, dim])),
        }

    found = search(strategy, fails, settings, probes)
    return outcome("deterministic", "exact equality of the two results", found, "nondeterministic")


def _shift_invariance(
    adapter: SinusoidalTarget,
    settings: Settings,
    name: str,
    measure: Callable[[np.ndarray, np.ndarray], float],
    shown: tuple[str, str],
    scale: Callable[[int], float],
    scale_text: str,
) -> Outcome:
    """measure(PE(p), PE(q)) = measure(PE(p+t), PE(q+t)), within scale(d)·(e(p) + e(q) + e(p+t) + e(q+t))
    + scale(d)·2^−52: the entries' errors reach the measure at most `scale(d)` times."""

    def fails(example: tuple[int, int, int, int]) -> dict[str, Any] | None:
        d, p, q, t = example
        positions = np.array([p, q, p + t, q + t])
        rows = adapter.encode(positions, d)
        before, after = measure(rows[0], rows[1]), measure(rows[2], rows[3])
        factor = scale(d)
        tolerance = factor * float(np.sum(entry_tolerance(adapter.unit, positions))) + factor * 2.0**-52
        if abs(before - after) <= tolerance:
            return None
        return {
            "d": d,
            "p": p,
            "q": q,
            "t": t,
            shown[0]: short(before),
            shown[1]: short(after),
            "difference": short(abs(before - after)),
            "tolerance": short(tolerance),
        }

    found = search(
        _shifted_pairs(settings.ds, settings.max_pos),
        fails,
        settings,
        _shift_probes(settings.ds, settings.max_pos),
    )
    top, d = settings.max_pos - 1, max(settings.ds)
    at_top = scale(d) * (4 * entry_tolerance(adapter.unit, top) + 2.0**-52)
    text = (
        f"|{shown[0]} − {shown[1]}| ≤ {scale_text}·(e(p) + e(q) + e(p+t) + e(q+t)) + {scale_text}·2^−52, "
        f"{E_TEXT}, {_u_text(adapter)}; at d = {d}, all positions {top}: {at_top:.3g}"
    )
    return outcome(name, text, found, "not-relative")


@register(
    FAMILY_NAME,
    "dot-relative",
    "PE(p)·PE(q) = PE(p+t)·PE(q+t): the dot product depends on the offset q − p only",
)
def check_dot_relative(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    return _shift_invariance(
        adapter,
        settings,
        "dot-relative",
        lambda a, b: float(a @ b),
        ("PE(p)·PE(q)", "PE(p+t)·PE(q+t)"),
        float,
        "d",
    )


@register(
    FAMILY_NAME,
    "distance-relative",
    "‖PE(p) − PE(q)‖ = ‖PE(p+t) − PE(q+t)‖: the distance depends on the offset q − p only",
)
def check_distance_relative(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    return _shift_invariance(
        adapter,
        settings,
        "distance-relative",
        lambda a, b: float(np.linalg.norm(a - b)),
        ("‖PE(p) − PE(q)‖", "‖PE(p+t) − PE(q+t)‖"),
        math.sqrt,
        "√d",
    )


def _not_checked(name: str, settings: Settings) -> Outcome:
    return Outcome(name, True, f"not applicable: no even d among {settings.ds}", "not run", applies=False)


@register(FAMILY_NAME, "constant-norm", "‖PE(p)‖ = ‖PE(0)‖ at even d: every sin/cos pair has length 1")
def check_constant_norm(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    evens = _even(settings.ds)
    if not evens:
        return _not_checked("constant-norm", settings)
    top = settings.max_pos - 1

    def fails(example: tuple[int, int]) -> dict[str, Any] | None:
        d, p = example
        rows = adapter.encode([0, p], d)
        start, here = float(np.linalg.norm(rows[0])), float(np.linalg.norm(rows[1]))
        root = math.sqrt(d)
        tolerance = root * (entry_tolerance(adapter.unit, 0) + entry_tolerance(adapter.unit, p) + 2.0**-52)
        if abs(start - here) <= tolerance:
            return None
        return {
            "d": d,
            "p": p,
            "‖PE(0)‖": short(start),
            "‖PE(p)‖": short(here),
            "difference": short(abs(start - here)),
            "tolerance": short(float(tolerance)),
        }

    probes = [(d, p) for d in evens for p in (1, 2, 256, 257, 2048, 2049, top) if p <= top]
    strategy = st.tuples(st.sampled_from(evens), st.integers(0, top))
    found = search(strategy, fails, settings, probes)
    d = max(evens)
    at_top = math.sqrt(d) * (entry_tolerance(adapter.unit, 0) + entry_tolerance(adapter.unit, top) + 2.0**-52)
    text = (
        f"|‖PE(p)‖ − ‖PE(0)‖| ≤ √d·(e(0) + e(p)) + √d·2^−52, {E_TEXT}, {_u_text(adapter)}; "
        f"at d = {d}, p = {top}: {at_top:.3g}"
    )
    return outcome("constant-norm", text, found, "not-constant-norm")


@register(
    FAMILY_NAME,
    "fixed-rotation",
    "PE(p+k) = M_k·PE(p): M_k, the block rotation of the sin/cos pairs taking PE(0) to PE(k), is the same "
    "for every p",
)
def check_fixed_rotation(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    evens = _even(settings.ds)
    if not evens or settings.max_pos < 3:
        return _not_checked("fixed-rotation", settings)
    top = settings.max_pos - 1

    def fails(example: tuple[int, int, int]) -> dict[str, Any] | None:
        d, p, k = example
        sin_dims, cos_dims = adapter.fit(d).pairs
        positions = np.array([0, k, p, p + k])
        rows = adapter.encode(positions, d)
        z = rows[:, cos_dims] + 1j * rows[:, sin_dims]  # pair i as cos + i·sin: e^(i·angle) when correct
        e = entry_tolerance(adapter.unit, positions)
        length = np.abs(z[0]) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            r = z[1] * np.conj(z[0]) / length
        predicted = r * z[2]
        miss = np.abs(predicted - z[3])
        stretch = np.abs(np.abs(z[1]) - np.abs(z[0]))
        tolerance = math.sqrt(2) * float(np.sum(e)) + 2.0**-50
        stretch_tolerance = math.sqrt(2) * float(e[0] + e[1]) + 2.0**-50
        excess = np.where(length > 0.25, np.maximum(miss - tolerance, stretch - stretch_tolerance), np.inf)
        excess = np.nan_to_num(excess, nan=np.inf)
        if np.all(excess <= 0):
            return None
        i = int(np.argmax(excess))
        dims = [int(cos_dims[i]), int(sin_dims[i])]
        described = {"d": d, "p": p, "k": k, "dims (cos, sin)": dims}
        if not length[i] > 0.25:
            return {
                **described,
                "PE(0)[dims]": [short(float(v)) for v in rows[0, dims]],
                "problem": "the pair is (nearly) zero at position 0: no rotation takes it to PE(k)",
            }
        if stretch[i] > stretch_tolerance:
            return {
                **described,
                "|PE(0)[dims]|": short(float(abs(z[0, i]))),
                "|PE(k)[dims]|": short(float(abs(z[1, i]))),
                "difference": short(float(stretch[i])),
                "problem": "M_k would change the pair's length: not a rotation",
                "tolerance": short(stretch_tolerance),
            }
        return {
            **described,
            "PE(p+k)[dims]": [short(float(v)) for v in rows[3, dims]],
            "M_k·PE(p)[dims]": [short(float(predicted[i].real)), short(float(predicted[i].imag))],
            "difference": short(float(miss[i])),
            "tolerance": short(tolerance),
        }

    probes = [
        (d, p, k)
        for d in evens
        for p, k in ((1, 1), (256, 1), (2048, 1), (1000, 3000), (top - 1, 1))
        if p + k <= top
    ]
    found = search(_steps(evens, settings.max_pos), fails, settings, probes)
    at_top = math.sqrt(2) * 2 * (entry_tolerance(adapter.unit, top) + entry_tolerance(adapter.unit, 0))
    text = (
        "per pair (cos, sin) as z = cos + i·sin: |z(p+k) − r_k·z(p)| ≤ √2·(e(0) + e(k) + e(p) + e(p+k)) + "
        "2^−50 and ||z(k)| − |z(0)|| ≤ √2·(e(0) + e(k)) + 2^−50, r_k = z(k)·conj(z(0))/|z(0)|² (M_k read off "
        f"the rows at 0 and k; pairs from the identified layout), {E_TEXT}, {_u_text(adapter)}; at p + k = "
        f"{top}: {at_top:.3g}"
    )
    return outcome("fixed-rotation", text, found, "not-relative")


def _scan(adapter: SinusoidalTarget, d: int, max_pos: int) -> dict[str, Any] | None:
    """The first two positions with equal rows among 0 … max_pos − 1 (cached per d), or None."""
    if d not in adapter.scans:
        encoding = StoredEncoding(
            "implementation", d, DTYPES["float64"], lambda positions: adapter.encode(positions, d)
        )
        found = find_duplicate_rows(encoding, max_pos)
        if found.first_duplicate is None:
            adapter.scans[d] = None
        else:
            p1, p2 = found.first_duplicate
            rows = adapter.encode([p1, p2], d)
            adapter.scans[d] = {
                "d": d,
                "p1": p1,
                "p2": p2,
                "dtype": adapter.dtype,
                "PE(p1)[:4]": [short(float(v)) for v in rows[0, :4]],
                "PE(p2)[:4]": [short(float(v)) for v in rows[1, :4]],
                "repeated rows": found.duplicate_rows,
            }
    return adapter.scans[d]


@register(
    FAMILY_NAME,
    "distinct-rows",
    "the rows of positions 0 … max_pos − 1 are pairwise different in the result dtype",
)
def check_distinct_rows(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        return _scan(adapter, d, settings.max_pos)

    found = search(st.sampled_from(settings.ds), fails, settings, list(settings.ds))
    text = (
        f"exact: all {settings.max_pos} rows compared as stored values of the result dtype (−0 = +0), hashed "
        "chunk by chunk, equal hashes confirmed value by value"
    )
    return outcome("distinct-rows", text, found, "duplicate-rows")


@register(
    FAMILY_NAME,
    "odd-d",
    f"at odd d ({ODD_D}) the implementation raises (odd d rejected) or returns shape [n, d]",
)
def check_odd_d(adapter: SinusoidalTarget, settings: Settings) -> Outcome:
    def fails(d: int) -> dict[str, Any] | None:
        adapter.odd_probe()
        return None

    found = search(st.just(ODD_D), fails, settings, [ODD_D])
    return outcome("odd-d", f"shape [n, {ODD_D}] or an exception; values not compared", found, "wrong-shape")


# -------------------------------------------------------------------------------- identification


def layout_dims(layout: str, sin_first: bool, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(sin dims, cos dims) of the d // 2 pairs: interleaved (2i, 2i+1) or concatenated (i, i + d/2), the
    first of each pair the sin when `sin_first`."""
    half = d // 2
    if layout == "interleaved":
        first, second = np.arange(0, 2 * half, 2), np.arange(1, 2 * half, 2)
    else:
        first, second = np.arange(half), np.arange(half, 2 * half)
    return (first, second) if sin_first else (second, first)


def rule_exponents(rule: str, layout: str, sin_first: bool, d: int) -> np.ndarray:
    """x of each dim, ω = base^(−x): 2i/d or 2i/(d − 2) of its pair index i, or 2j/d of its dim index j."""
    if rule == "2j/d":
        return 2.0 * np.arange(d) / d
    sin_dims, cos_dims = layout_dims(layout, sin_first, d)
    pair = np.zeros(d, dtype=np.int64)
    pair[sin_dims] = pair[cos_dims] = np.arange(len(sin_dims))
    if rule == "2i/d":
        return -exponents(d, len(sin_dims))[pair]
    return 2.0 * pair / (d - 2)


def _probe_positions(settings: Settings) -> np.ndarray:
    """0 … 15, 2^k − 1 … 2^k + 2, the last two positions and 32 seeded random ones (all below max_pos)."""
    top = settings.max_pos - 1
    chosen = set(range(min(16, settings.max_pos))) | {top, max(top - 1, 0)}
    k = 4
    while 2**k - 1 <= top:
        chosen |= {p for p in range(2**k - 1, 2**k + 3) if p <= top}
        k += 1
    chosen |= set(np.random.default_rng(settings.seed).integers(0, settings.max_pos, 32).tolist())
    return np.array(sorted(chosen), dtype=np.int64)


def fit_dims(adapter: SinusoidalTarget, d: int) -> DimFit:
    """Each dim as A·sin(ω·p + φ) from f(p−h) + f(p+h) = 2·cos(ωh)·f(p) at p = h, 2h, 3h; h starts at 1 and
    twice moves to the power of two nearest 1/ω (at most (max_pos − 1)/4), where cos(ωh) is well
    conditioned. Then a least-squares phase and amplitude over p = 0, h, …, 4h."""
    top_h = 1
    while 8 * top_h <= adapter.settings.max_pos - 1:
        top_h *= 2
    h = np.ones(d, dtype=np.int64)
    k = np.arange(5)
    for round_ in range(3):
        positions = np.unique((k[:, None] * np.unique(h)[None, :]).reshape(-1))
        rows = adapter.encode(positions, d)
        f = np.stack([rows[np.searchsorted(positions, j * h), np.arange(d)] for j in k])
        numerator = np.sum(f[1:4] * (f[0:3] + f[2:5]), axis=0)
        denominator = 2.0 * np.sum(f[1:4] ** 2, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            cosine = np.where(denominator > 1e-30, numerator / denominator, np.nan)
            omega = np.arccos(np.clip(cosine, -1.0, 1.0)) / h
        if round_ < 2:
            with np.errstate(divide="ignore", invalid="ignore"):
                exponent = np.round(-np.log2(np.where(omega > 0, omega, np.nan)))
            exponent = np.nan_to_num(exponent, nan=60.0, posinf=60.0, neginf=0.0)
            h = np.minimum(2 ** np.clip(exponent, 0, 60).astype(np.int64), top_h)
    angles = omega[None, :] * (k[:, None] * h[None, :])
    s, c = np.sin(angles), np.cos(angles)
    ss, sc, cc = np.sum(s * s, axis=0), np.sum(s * c, axis=0), np.sum(c * c, axis=0)
    fs, fc = np.sum(f * s, axis=0), np.sum(f * c, axis=0)
    determinant = ss * cc - sc * sc
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(determinant > 1e-12, (fs * cc - fc * sc) / determinant, np.nan)
        b = np.where(determinant > 1e-12, (fc * ss - fs * sc) / determinant, np.nan)
    amplitude, phase = np.hypot(a, b), np.arctan2(b, a)
    with np.errstate(invalid="ignore"):
        reliable = (omega * h >= 0.25) & (omega * h <= 2.5) & (np.abs(amplitude - 1) < 0.25)
    return DimFit(omega, phase, amplitude, h, reliable)


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi


def _offset(dims: DimFit, omega: np.ndarray, is_cos: np.ndarray, limit: int) -> int:
    """The integer o with o·ω_j ≡ φ_j (− π/2 for cos dims) mod 2π, unwrapped from the slowest trusted dim to
    the fastest; 0 when |o| would exceed `limit`."""
    target = dims.phase - np.where(is_cos, math.pi / 2, 0.0)
    use = np.flatnonzero(dims.reliable & (omega > 0))
    o = 0.0
    for j in use[np.argsort(omega[use], kind="stable")]:
        o += _wrap(float(target[j] - o * omega[j])) / float(omega[j])
    return round(o) if math.isfinite(o) and abs(o) <= limit else 0


def _reference(
    positions: np.ndarray, omega: np.ndarray, is_cos: np.ndarray, offset: int, positions_dtype: str | None
) -> np.ndarray:
    shifted = positions.astype(np.float64) + offset
    if positions_dtype is not None:
        with np.errstate(over="ignore"):
            shifted = DTYPES[positions_dtype].cast(shifted).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        angles = shifted[:, None] * omega[None, :]
        return np.where(is_cos, np.cos(angles), np.sin(angles))


def _probe_rows(
    adapter: SinusoidalTarget, positions: np.ndarray, d: int
) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The rows of the probe positions; when a call with all of them breaks (raises, NaN), one position at a
    time, keeping those that work (the properties report the others). `Broken` when none works."""
    try:
        return positions, adapter.encode(positions, d), ()
    except Broken as broken:
        if broken.label in FATAL:
            raise
        kept, rows, unusable = [], [], []
        for p in positions.tolist():
            try:
                rows.append(adapter.encode([p], d)[0])
                kept.append(p)
            except Broken:
                unusable.append(p)
        if not kept:
            raise broken from None
        return np.array(kept, dtype=np.int64), np.array(rows), tuple(unusable)


def _neighbours(positions: np.ndarray, rows: np.ndarray) -> tuple[tuple[int, int] | None, str | None]:
    """The first (2^k, 2^k + 1) with equal rows while 2^k + 2 differs (the pattern of positions rounded to
    a dtype exact up to 2^k), and the dtype it points to."""
    index = {int(p): i for i, p in enumerate(positions.tolist())}
    k = 4
    while 2**k + 2 in index:
        a, b, c = (rows[index[2**k + j]] for j in range(3))
        if np.array_equal(a, b) and not np.array_equal(b, c):
            return (2**k, 2**k + 1), next((name for name, bits in NARROW if bits == k), None)
        k += 1
    return None, None


def _rank(trial: Fit) -> tuple:
    """Matching with the declared base first, then with a fitted one; among matches the plainest variant."""
    if not trial.matches:
        return (2, trial.max_abs_deviation)
    plain = (
        RULES.index(trial.rule),
        LAYOUTS.index(trial.layout),
        not trial.sin_first,
        trial.offset != 0,
        trial.positions_dtype is not None,
    )
    return (0 if trial.base_declared else 1, *plain, trial.max_abs_deviation)


@dataclass(eq=False)
class Evidence:
    """What identification at one d rests on: the per-dim fits, the rows at the probe positions (without
    those where the implementation broke), equal neighbouring rows and the narrow dtype they point to."""

    dims: DimFit
    positions: np.ndarray
    rows: np.ndarray
    unusable: tuple[int, ...]
    neighbours: tuple[int, int] | None
    narrow: str | None


def evidence(adapter: SinusoidalTarget, d: int) -> Evidence:
    """The evidence at d (cached on the adapter)."""
    if d not in adapter.evidence:
        dims = fit_dims(adapter, d)
        positions, rows, unusable = _probe_rows(adapter, _probe_positions(adapter.settings), d)
        adapter.evidence[d] = Evidence(dims, positions, rows, unusable, *_neighbours(positions, rows))
    return adapter.evidence[d]


def _is_cos(layout: str, sin_first: bool, d: int) -> np.ndarray:
    is_cos = np.zeros(d, dtype=bool)
    is_cos[layout_dims(layout, sin_first, d)[1]] = True
    return is_cos


def evaluate(
    adapter: SinusoidalTarget,
    d: int,
    variant: tuple[str, bool, str, float, bool, int, str | None],
) -> Fit:
    """The variant (layout, sin_first, rule, base, base_declared, offset, positions_dtype) compared with the
    implementation at d over the probe positions: the largest deviation, and whether every entry is within
    e(p)."""
    layout, sin_first, rule, base, declared, offset, positions_dtype = variant
    found = evidence(adapter, d)
    if rule == "2i/(d-2)" and d <= 2:
        deviation, matches = math.inf, False
    else:
        omega = base ** (-rule_exponents(rule, layout, sin_first, d))
        reference = _reference(found.positions, omega, _is_cos(layout, sin_first, d), offset, positions_dtype)
        error = np.nan_to_num(np.abs(found.rows - reference), nan=np.inf)
        tolerance = entry_tolerance(adapter.unit, found.positions + offset)[:, None]
        deviation, matches = float(np.max(error)), bool(np.all(error <= tolerance))
    return Fit(
        d,
        layout,
        sin_first,
        rule,
        base,
        declared,
        offset,
        positions_dtype,
        deviation,
        matches,
        found.dims,
        found.neighbours,
        found.unusable,
    )


def fit_variants(adapter: SinusoidalTarget, d: int) -> list[Fit]:
    """Every reference variant tried at even d, best first (see the module docstring): for each layout,
    sin/cos order and exponent rule, the declared base, else the fitted one (rounded to 6 digits if that
    matches), with the fitted offset, and positions rounded to the narrow dtype neighbouring rows point to."""
    settings = adapter.settings
    found = evidence(adapter, d)
    dims = found.dims
    trials: list[Fit] = []
    for layout in LAYOUTS:
        for sin_first in (True, False):
            is_cos = _is_cos(layout, sin_first, d)
            for rule in RULES:
                if (rule == "2i/(d-2)" and d <= 2) or (rule == "2j/d" and layout != "interleaved"):
                    continue
                x = rule_exponents(rule, layout, sin_first, d)
                use = dims.reliable & (x > 0) & (dims.omega > 0)
                bases = [(settings.base, True)]
                if np.any(use):
                    log_base = -float(np.sum(x[use] * np.log(dims.omega[use])) / np.sum(x[use] ** 2))
                    if math.isfinite(log_base) and log_base > 0:
                        fitted = math.exp(log_base)
                        bases += [(float(f"{fitted:.6g}"), False), (fitted, False)]
                tried: list[Fit] = []
                for base, declared in bases:
                    if any(t.matches for t in tried):
                        break  # the declared (or the rounded) base already matches
                    offset = _offset(dims, base ** (-x), is_cos, settings.max_pos)
                    for positions_dtype in (None, found.narrow) if found.narrow else (None,):
                        variant = (layout, sin_first, rule, base, declared, offset, positions_dtype)
                        tried.append(evaluate(adapter, d, variant))
                trials += tried
    return sorted(trials, key=_rank)


def variant_name(fit: Fit) -> str:
    """A one-line name of the variant: layout, frequency rule, offset, position dtype."""
    if fit.layout == "interleaved":
        layout = "interleaved, sin at even dims" if fit.sin_first else "interleaved, cos at even dims"
    else:
        layout = "concatenated [sin | cos]" if fit.sin_first else "concatenated [cos | sin]"
    rule = {"2i/d": "−2i/d", "2i/(d-2)": "−2i/(d−2)", "2j/d": "−2j/d of the dimension index j"}[fit.rule]
    name = f"{layout}, ω = {fit.base:g}^({rule})"
    if fit.offset:
        name += f", position p encoded as p {'+' if fit.offset > 0 else '−'} {abs(fit.offset)}"
    if fit.positions_dtype:
        name += f", positions rounded to {fit.positions_dtype}"
    return name


def _parameters(fit: Fit) -> dict[str, Any]:
    return {
        "layout": fit.layout,
        "sin_first": fit.sin_first,
        "exponent": fit.rule,
        "base": short(fit.base),
        "position_offset": fit.offset,
        "positions_dtype": fit.positions_dtype,
    }


def _convention_findings(fit: Fit, settings: Settings) -> list[Finding]:
    found = []
    where = f"at d = {fit.d}"
    if fit.layout == "interleaved":
        found.append(finding("interleaved-layout", f"{where}, dims 2i and 2i+1 form pair i"))
    else:
        found.append(finding("concatenated-layout", f"{where}, dims i and i + d/2 form pair i"))
    if not fit.sin_first:
        found.append(finding("sin-cos-swapped", f"{where}, the first dim of each pair holds cos(p·ω_i)"))
    omega = fit.dims.omega
    if fit.rule == "2i/(d-2)":
        last = fit.pairs[0][-1]
        found.append(
            finding(
                "exponent-d-2",
                f"{where}, the last pair turns at ω = {short(float(omega[last]))} "
                f"(fitted; 1/base = {short(1 / fit.base)})",
            )
        )
    if fit.rule == "2j/d":
        found.append(
            finding(
                "wrong-exponent",
                f"{where}, ω_j = base^(−2j/d): dims 0 and 1 of pair 0 turn at "
                f"{short(float(omega[0]))} and {short(float(omega[1]))}, dims 2 and 3 at "
                f"{short(float(omega[2]))} and {short(float(omega[3]))} (fitted)",
            )
        )
    if not fit.base_declared:
        detail = f"{where}, the fitted base is {fit.base:g}, not the declared {settings.base:g}"
        if fit.rule == "2i/d" and fit.d > 2:
            detail += f" (equivalently base {fit.base ** ((fit.d - 2) / fit.d):g} with exponent −2i/(d−2))"
        found.append(finding("wrong-base", detail))
    if fit.offset:
        found.append(
            finding(
                "position-offset",
                f"{where}, position p is encoded as the reference's p "
                f"{'+' if fit.offset > 0 else '−'} {abs(fit.offset)}",
            )
        )
    return found


def _matching(adapter: SinusoidalTarget, evens: list[int]) -> tuple[list[Fit], list[Fit] | None]:
    """The variants ranked at the largest d, and the fits at every d of the first that matches at all of
    them (None when none does)."""
    ranked = adapter.variants(evens[0])
    for trial in [t for t in ranked if t.matches][:8]:
        others = [evaluate(adapter, d, trial.parameters) for d in evens[1:]]
        if all(o.matches for o in others):
            return ranked, [trial, *others]
    return ranked, None


def _narrower(
    adapter: SinusoidalTarget, evens: list[int], ranked: list[Fit]
) -> tuple[list[Fit], list[Fit] | None]:
    """`_matching` at the first narrower precision that holds every probed entry (`computed_in`) and where a
    variant matches, which is kept as the adapter's `computed_in`; (ranked, None) unchanged when none does."""
    rows = [evidence(adapter, d).rows for d in evens]
    kept = adapter.fits
    for precision in computed_in(rows, adapter.dtype or "float64"):
        adapter.fits, adapter.computed_in = {}, precision
        narrow_ranked, fits = _matching(adapter, evens)
        if fits is not None:
            return narrow_ranked, fits
    adapter.fits, adapter.computed_in = kept, None
    return ranked, None


def identify(adapter: SinusoidalTarget, settings: Settings) -> tuple[Identification | None, list[Finding]]:
    """The reference variant that matches at every even d (tried best first at the largest d, then checked
    unchanged at the others), named with the findings it implies: layout, sin-cos-swapped, exponent-d-2,
    wrong-exponent, wrong-base, position-offset; plus low-precision and odd-d."""
    found: list[Finding] = []
    try:
        accepted, detail = adapter.odd_probe()
    except Broken:
        pass  # a wrong shape or NaN at odd d: the odd-d property reports it
    else:
        if accepted:
            found.append(finding("odd-d", detail))
        else:
            found.append(finding("odd-d", f"rejected, which the contract allows ({detail})"))
    evens = sorted(_even(settings.ds), reverse=True)
    if not evens:
        return None, found
    ranked, fits = _matching(adapter, evens)
    if fits is None:
        ranked, fits = _narrower(adapter, evens, ranked)
    for d in evens:
        neighbours = evidence(adapter, d).neighbours
        if neighbours is not None:
            narrow = evidence(adapter, d).narrow
            rounds = f" (in {narrow} {neighbours[1]} rounds to {neighbours[0]})" if narrow else ""
            found.append(
                finding(
                    "low-precision",
                    f"at d = {d}, positions {neighbours[0]} and {neighbours[1]} give equal rows{rounds}",
                )
            )
            break
    unusable = sorted({p for d in evens for p in evidence(adapter, d).unusable})
    if fits is not None:
        chosen = fits[0]
        parameters = {**_parameters(chosen), "d": evens}
        if unusable:
            parameters["unusable_positions"] = unusable[:8]
        deviation = short(max(f.max_abs_deviation for f in fits))
        found = _convention_findings(chosen, settings) + found
        if adapter.computed_in is not None:
            parameters["computed_in"] = adapter.computed_in
            found.append(
                finding(
                    "low-precision",
                    f"{variant_name(chosen)}, computed in {adapter.computed_in}: every entry at the probe "
                    f"positions is a {adapter.computed_in} number, within {adapter.computed_in}'s e(p) of "
                    f"that variant (deviation {short(deviation)}), returned as {adapter.dtype}",
                )
            )
        return Identification(chosen.variant, parameters, deviation, True), found
    chosen = ranked[0]
    parameters = {**_parameters(chosen), "d": evens, "closest": chosen.variant}
    if unusable:
        parameters["unusable_positions"] = unusable[:8]
    deviation = chosen.max_abs_deviation
    if chosen.matches:  # matches at the largest d only
        there = next(d for d in evens[1:] if not evaluate(adapter, d, chosen.parameters).matches)
        parameters["fails_at_d"] = there
        parameters["there"] = adapter.fit(there).variant
        deviation = evaluate(adapter, there, chosen.parameters).max_abs_deviation
    return Identification("matches no known variant", parameters, short(deviation), False), found


FAMILY = define(
    Family(
        FAMILY_NAME,
        contract="encode(positions, d) -> [len(positions), d]",
        forms={2: "encode"},
        adapt=adapt,
        identify=identify,
        expectable=LAYOUTS,
        module=__name__,
        ds=(8, 64, 128, 512),
        screen=screen,
    )
)
