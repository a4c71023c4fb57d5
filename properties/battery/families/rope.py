"""The RoPE battery: properties every rotary position embedding has, and which variant an implementation is.

For rotations R_p of a rotary embedding (pairs of coordinates turned by p·θ_i), possibly times one amplitude
m on every rotated pair (YaRN's and LongRoPE's attention factor on cos and sin; m = 1 for a plain rotation):

* the score ⟨R_m q, R_n k⟩ depends on n − m only (`relative`), and at m = n it is m²⟨q, k⟩
  (`equal-positions`): ⟨m·R_m q, m·R_n k⟩ = m²⟨q, R_(n−m) k⟩;
* ‖R_p x‖ = m‖x‖ on the rotated dims, with one m for every pair and position (`norm`: an amplitude that
  differs per pair or per position fails it), and R_p is linear in x (`linear`);
* a row's rotation does not depend on the other rows of the call (`batch`), and a call repeated gives the
  same numbers (`deterministic`).

The amplitude is read at position 0 (`amplitude`: ‖R_0 e_j‖ per dim). The relative and equal-positions checks
use basis vectors e_a, e_b, so that every entry of R_mᵀR_n can be a counterexample and each error stays of the
size of one entry. The implementation is either ``rotate(x, positions)`` (x of shape [n, d], row j turned to
positions[j]) or ``apply(q, k, positions)`` returning (q_rot, k_rot); with the second, queries and keys are
probed separately, which is what exposes layouts or positions that differ between q and k.

Tolerance model (`entry_tolerance`): the angles are computed in float64 for a float64 result and in float32
for a float32, float16 or bfloat16 one (u_c its unit roundoff), then cos, sin and the rotated entries are
rounded to the result dtype (u): one entry of a unit vector may be off by SLACK·u_c·(ANGLE_FACTOR·p + 2),
which grows with the position p, plus RESULT_ROUNDING·u, which does not. So a bfloat16 result whose angles
were taken in float32 and whose cos and sin were rounded to bfloat16 (as transformers does) passes, and one
whose positions or angles were held in bfloat16 (gpt-neox #1016, transformers #29285) fails, labelled
low-precision when its error is of that size.

Identification reads R_p off basis vectors at a few positions: which dims pair up (interleaved, half-split,
partial rotary: a partner stands out of rounding at positions 1, 1000 or the farthest), the amplitude m, and
the angles, from which each pair's θ_i (`_frequencies`), the direction and the position offset are read. The
entries are compared with m times the rotation by those θ_i; when they do not match within the result's
tolerance, the narrowest precision narrower than the result's that holds every entry read (`computed_in`)
and within whose tolerance they match names the rotation "computed in" it (a low-precision finding). The θ_i
then go to the rope-frequencies family's rule identification (`rope_frequencies.identify_rule`: unscaled with
the declared or another base or exponent, linear, NTK (dynamic NTK at one length is NTK at another factor),
YaRN, Llama 3, LongRoPE), at the tolerance of the precision the angles were computed in, each θ_i widened by
its reading error (the rounding of the two angles it is read from, over the farthest position). An attention
factor m ≠ 1 is compared with YaRN's or LongRoPE's formula when that is the rule. When the entries are no
rotation, or no rule fits the θ_i, the identification is ``unidentified`` with the residual, and no finding of
a convention (base, scaling, offset, direction) is drawn from it; frequencies all equal get an
equal-frequencies finding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ...encodings.scaling import frequency_tolerance
from ...numerics.dtypes import DTYPES
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
from ..rope_conventions import BY_NAME, Built, Convention, axial, build, handed, unbuildable
from ..rope_conventions import detect as conventions_detect
from .rope_frequencies import UNKNOWN, attention_note, identify_rule

FAMILY = "rope"

#: Error of one rotated entry of a unit vector from its angle, in units of the unit roundoff u_c of the
#: precision the angles are computed in: the frequency's relative error times the angle is at most
#: u_c·p·(2θ + θ·|x|·ln b) ≤ u_c·p·(2 + 1/e), plus the roundings of cos, sin and the products at that
#: precision.
ANGLE_FACTOR = 2.4
SLACK = 8.0
#: The rounding of one entry to the result dtype (unit roundoff u), in units of u; it does not grow with the
#: position. An entry x_j·cos − x_k·sin with x_j, x_k (handed in wider), cos, sin, both products and the
#: difference each rounded once to the result dtype is off, to first order, by 3u·(|x_j·cos| + |x_k·sin|)
#: + u·|x_j·cos − x_k·sin| ≤ (3√2 + 1)·u·ρ ≈ 5.2·u·ρ, ρ = √(x_j² + x_k²) ≤ 1 the length of the pair of a unit
#: vector; 6 covers the second-order terms.
RESULT_ROUNDING = 6.0

#: The head sizes checked when none are given.
DS = (2, 8, 64, 128)

#: Neighbouring positions that a narrow dtype rounds together: bfloat16 from 256, float16 from 2048.
NARROW = ((256, 257), (2048, 2049))

#: The dtype whose rounding of positions each pair of `NARROW` shows (the first integer it cannot hold).
NARROW_DTYPE = {256: "bfloat16", 2048: "float16"}


class RopeTarget:
    """A user's rotation as float64 arrays: `rotate(x, positions, side)` with side "q" or "k", through its
    calling convention (`rope_conventions`), built once per head size and kept, as a model keeps it."""

    def __init__(
        self, function: Callable, convention: Convention, backend: Backend, settings: Settings
    ) -> None:
        self.function, self.convention, self.backend, self.settings = function, convention, backend, settings
        self.form = "apply" if convention.two_sided else "rotate"
        self.dtype = "float64"
        self._built: dict[int, Built | Broken] = {}

    def built(self, d: int) -> Built:
        """The rotation at head size d, built the first time (a build that failed fails every later call)."""
        if d not in self._built:
            try:
                self._built[d] = build(self.convention, self.function, d, self.backend, self.settings)
            except Broken as broken:
                self._built[d] = broken
        found = self._built[d]
        if isinstance(found, Broken):
            raise found
        return found

    def rotate(self, x: np.ndarray, positions: np.ndarray, side: str = "q") -> np.ndarray:
        positions = np.asarray(positions, dtype=np.int64)
        array, self.dtype = self.built(x.shape[1]).rotation(x, positions, side)
        what = f"{self.convention.name} at x of shape {x.shape}, positions {_shown(positions)}"
        return require_result(array, x.shape, what)

    def score(self, a: int, b: int, d: int, ms: list[int], ns: list[int]) -> np.ndarray:
        """⟨R_m e_a, R_n e_b⟩ for each (m, n) of `ms`, `ns` (queries rotated as q, keys as k)."""
        eye = np.eye(d)
        q = self.rotate(np.repeat(eye[a : a + 1], len(ms), axis=0), np.array(ms), "q")
        k = self.rotate(np.repeat(eye[b : b + 1], len(ns), axis=0), np.array(ns), "k")
        return np.sum(q * k, axis=1)


def _shown(positions: np.ndarray) -> str:
    values = positions.tolist()
    return str(values) if len(values) <= 4 else f"[{values[0]}, …, {values[-1]}] ({len(values)})"


def compute_dtype(dtype: str) -> str:
    """The precision the angles of a rotation returned in `dtype` are computed in: float64 for a float64
    result, float32 for float32, float16 and bfloat16 results (cos and sin of float32 angles, rounded)."""
    return "float64" if dtype == "float64" else "float32"


def entry_tolerance(dtype: str, max_position: int, compute: str | None = None) -> float:
    """How far one rotated entry of a unit vector returned in `dtype` may be from the exact value, its angles
    (up to position `max_position`) computed in `compute` (default `compute_dtype(dtype)`): the angle's
    error SLACK·u_c·(ANGLE_FACTOR·p + 2), which grows with p, plus the result's rounding RESULT_ROUNDING·u,
    which does not."""
    u_compute = unit_roundoff(compute or compute_dtype(dtype))
    return SLACK * u_compute * (ANGLE_FACTOR * max_position + 2.0) + RESULT_ROUNDING * unit_roundoff(dtype)


def _tolerance_text(target: RopeTarget, settings: Settings) -> str:
    top = settings.max_pos - 1
    compute = compute_dtype(target.dtype)
    value = 2 * entry_tolerance(target.dtype, top)
    return (
        f"2·m²·({SLACK:g}·u_c·({ANGLE_FACTOR}·p + 2) + {RESULT_ROUNDING:g}·u) with u_c = "
        f"{unit_roundoff(compute):.3g} ({compute}, the angles), u = {unit_roundoff(target.dtype):.3g} "
        f"({target.dtype}, the result), m the amplitude of R_0 (1 for a rotation) and p the largest position "
        f"(at most {top}: {value:.3g} at m = 1)"
    )


def _positions(settings: Settings) -> st.SearchStrategy[int]:
    return st.integers(0, settings.max_pos - 1)


def _dims(settings: Settings) -> st.SearchStrategy[int]:
    return st.sampled_from(sorted(settings.ds))


def _seeded(d: int, seed: int, rows: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, d))


#: The narrower work a failing check tries for its low-precision label, by result dtype: (result, angles).
NARROWER_WORK = {
    "float64": ("float32", "float32"),
    "float16": ("float16", "float16"),
    "bfloat16": ("bfloat16", "bfloat16"),
}


def _narrow(
    found: dict[str, Any], target: RopeTarget, error: float, bound: Callable[[str, str], float]
) -> dict[str, Any]:
    """`found`, labelled low-precision when the error, too large for the result dtype, is within what the
    same check (`bound(result dtype, angles' dtype)`) allows narrower work: a float32 result in a float64
    one, or angles computed in the float16 or bfloat16 of the result itself (positions, angles or tables
    held in it)."""
    work = NARROWER_WORK.get(target.dtype)
    if work is not None and error <= bound(*work):
        found["label"] = "low-precision"
        found["message"] = (
            "errors of float32 size in a float64 result"
            if target.dtype == "float64"
            else f"errors of angles computed in {target.dtype}"
        )
    return found


@dataclass(frozen=True)
class Amplitude:
    """The amplitude of R_p at one dimension: each dim's (m on the dims that rotate, 1 on those passed
    through), m itself, and, when no single m fits, why (a counterexample; None when one does) and by how
    much (`spread`)."""

    per_dim: np.ndarray
    m: float
    uneven: dict[str, Any] | None
    spread: float = 0.0


def amplitude(target: RopeTarget, d: int, top: int, side: str = "q") -> Amplitude:
    """The amplitude of the implementation's R_p at dimension d: a_j = ‖R_0 e_j‖ for each dim j, which is m
    on every dim that rotates for m times a rotation (YaRN's and LongRoPE's attention factor on cos and sin)
    and 1 on the dims passed through. A dim rotates when R_1 or R_top moves it off its axis by more than
    rounding (twice the entry tolerance at position 0), or when a_j ≠ 1; m is their median. Uneven when a
    rotating dim's a_j is another (a factor that differs per pair) or m is no more than rounding (a
    rotation scaled to nothing)."""
    everything = np.arange(d)
    at_zero = _basis_rotated(target, d, everything, 0, side)
    a = np.linalg.norm(at_zero, axis=1)
    floor = 2 * entry_tolerance(target.dtype, 0)
    moved = np.abs(a - 1.0) > floor * np.maximum(a, 1.0)
    for p in sorted({1, max(top, 1)}):
        rows = _basis_rotated(target, d, everything, p, side)
        rows[everything, everything] = 0.0
        moved |= np.abs(rows).max(axis=1) > floor
    m = float(np.median(a[moved])) if moved.any() else 1.0
    per_dim = np.where(moved, m, 1.0)
    if m <= floor:
        uneven = {"message": f"R_0 maps e_j to nearly zero (amplitude {short(m)}): no rotation"}
        return Amplitude(per_dim, m, uneven, math.inf)
    spread = np.abs(a - m) * moved
    j = int(np.argmax(spread))
    if spread[j] <= floor * max(m, 1.0):
        return Amplitude(per_dim, m, None)
    uneven = {
        "message": "the amplitude differs between rotating dims",
        "dim": j,
        "‖R_0 e_dim‖": short(float(a[j])),
        "amplitude of the others": short(m),
    }
    return Amplitude(per_dim, m, uneven, float(spread[j]))


def _amplitudes(target: RopeTarget, settings: Settings) -> Callable[..., Amplitude]:
    """`amplitude` of the target, measured once per (d, side) within one check."""
    top = settings.max_pos - 1
    return functools.cache(lambda d, side="q": amplitude(target, d, top, side))


# ------------------------------------------------------------------------------------------ properties

#: The rows rotated before and after a far call by `stateless`: positions 0 … STATE_ROWS − 1.
STATE_ROWS = 8


@register(FAMILY, "stateless", "a call's result does not depend on the calls made before it")
def stateless(target: RopeTarget, settings: Settings) -> Outcome:
    """Two calls, rows at positions 0 … 7 and the same rows with one midway to the farthest, each made
    before and again after one call at the farthest position: it must give the same numbers, bit for bit.
    Checked first, before any other property calls the implementation at a far position: a dynamic scaling
    that keeps the frequencies a long call grew (state) gives other numbers the second time, for short
    calls or (as transformers' dynamic NTK, which resets them only below its original context) for calls
    longer than its original context. Fixed calls, not a search: state found once would make every later
    example differ. A size where a call raises is passed over for the others (state found at any size is
    the counterexample; the raise is, when none is)."""
    top = settings.max_pos - 1
    short_rows = np.arange(min(STATE_ROWS, top))
    calls = (short_rows, np.unique([*short_rows, top // 2]))
    counterexample = raised = None
    for d, rows in ((d, rows) for d in sorted(settings.ds) for rows in calls):
        x = _seeded(d, 0, len(rows))
        try:
            before = target.rotate(x, rows)
            target.rotate(x[:1], np.array([top]))
            after = target.rotate(x, rows)
        except Broken as broken:
            raised = raised or {"label": broken.label, "message": broken.message}
            continue
        if not np.array_equal(before, after):
            row, dim = np.unravel_index(int(np.argmax(np.abs(before - after))), before.shape)
            counterexample = {
                "d": d,
                "positions": _shown(rows),
                "position": int(rows[row]),
                "dim": int(dim),
                "before": short(before[row, dim]),
                f"after a call at position {top}": short(after[row, dim]),
            }
            break
    counterexample = counterexample or raised
    budget = f"6 fixed calls per d ({', '.join(map(str, sorted(settings.ds)))})"
    found = (counterexample, budget)
    return outcome("stateless", "exact equality", found, "stateful")


@register(FAMILY, "relative", "⟨R_m q, R_n k⟩ depends on the offset n − m only")
def relative(target: RopeTarget, settings: Settings) -> Outcome:
    top = settings.max_pos - 1
    amplitudes = _amplitudes(target, settings)
    strategy = _dims(settings).flatmap(
        lambda d: st.tuples(
            st.just(d), st.integers(0, d - 1), st.integers(0, d - 1), *[_positions(settings)] * 3
        )
    )

    def fails(example: tuple[int, ...]) -> dict[str, Any] | None:
        d, a, b, m, n, m2 = example
        n2 = m2 + n - m
        if not 0 <= n2 <= top:
            return None
        first, second = target.score(a, b, d, [m, m2], [n, n2])
        error = abs(first - second)
        scale = amplitudes(d, "q").per_dim[a] * amplitudes(d, "k").per_dim[b]
        far = max(m, n, m2, n2)
        if error <= 2 * scale * entry_tolerance(target.dtype, far):
            return None
        found = {"d": d, "a": a, "b": b, "m": m, "n": n, "m2": m2, "n2": n2}
        found |= {"score(m, n)": short(first), "score(m2, n2)": short(second)}
        return _narrow(found, target, error, lambda r, c: 2 * scale * entry_tolerance(r, far, c))

    probes = [
        (d, a, b, m, n, m2)
        for d in sorted(settings.ds)
        for a, b in ((0, 0), (0, 1), (0, d // 2))
        for m, n, m2 in ((0, 0, 1), (0, 1, NARROW[0][0]), (0, 1, NARROW[1][0]), (0, 1, top - 1))
        if b < d and m2 + 1 <= top
    ]
    found = search(strategy, fails, settings, probes)
    return outcome("relative", _tolerance_text(target, settings), found, "not-relative")


@register(
    FAMILY,
    "equal-positions",
    "⟨R_p q, R_p k⟩ = m²⟨q, k⟩: at equal positions the score is unrotated (m = 1 for a rotation)",
)
def equal_positions(target: RopeTarget, settings: Settings) -> Outcome:
    amplitudes = _amplitudes(target, settings)
    strategy = _dims(settings).flatmap(
        lambda d: st.tuples(st.just(d), st.integers(0, d - 1), st.integers(0, d - 1), _positions(settings))
    )

    def fails(example: tuple[int, ...]) -> dict[str, Any] | None:
        d, a, b, p = example
        (score,) = target.score(a, b, d, [p], [p])
        scale = amplitudes(d, "q").per_dim[a] * amplitudes(d, "k").per_dim[b]
        expected = float(a == b) * scale
        if abs(score - expected) <= 2 * scale * entry_tolerance(target.dtype, p):
            return None
        found = {"d": d, "a": a, "b": b, "p": p, "score": short(score), "expected": short(expected)}
        bound = lambda r, c: 2 * scale * entry_tolerance(r, p, c)  # noqa: E731
        return _narrow(found, target, abs(score - expected), bound)

    probes = [(d, a, 0, p) for d in sorted(settings.ds) for a in (0, 1) for p in (0, 1) if a < d]
    found = search(strategy, fails, settings, probes)
    return outcome("equal-positions", _tolerance_text(target, settings), found, "not-relative")


@register(
    FAMILY,
    "norm",
    "‖R_p x‖ = ‖x‖ modulo one amplitude m: every pair is turned by an orthogonal rotation times m",
)
def norm(target: RopeTarget, settings: Settings) -> Outcome:
    amplitudes = _amplitudes(target, settings)
    strategy = st.tuples(_dims(settings), _positions(settings), st.integers(0, 2**32 - 1))

    def allowed(result: str, compute: str, size: float) -> float:
        return 2 * (SLACK * unit_roundoff(compute) + RESULT_ROUNDING * unit_roundoff(result)) * size

    def fails(example: tuple[int, int, int]) -> dict[str, Any] | None:
        d, p, seed = example
        shown = amplitudes(d)
        if shown.uneven is not None:
            found = {"d": d, **shown.uneven}
            size = max(shown.m, 1.0)
            bound = lambda r, c: 2 * entry_tolerance(r, 0, c) * size  # noqa: E731
            return _narrow(found, target, shown.spread, bound) if math.isfinite(shown.spread) else found
        x = _seeded(d, seed)
        rotated = target.rotate(x, np.array([p]))
        before = float(np.linalg.norm(shown.per_dim * x[0]))
        after = float(np.linalg.norm(rotated))
        size = max(shown.m, 1.0) * float(np.linalg.norm(x))
        if abs(after - before) <= allowed(target.dtype, compute_dtype(target.dtype), size):
            return None
        found = {"d": d, "p": p, "seed": seed, "m·norm": short(before), "rotated norm": short(after)}
        return _narrow(found, target, abs(after - before), lambda r, c: allowed(r, c, size))

    probes = [(d, p, 0) for d in sorted(settings.ds) for p in (0, 1, settings.max_pos - 1)]
    found = search(strategy, fails, settings, probes)
    u, compute = unit_roundoff(target.dtype), compute_dtype(target.dtype)
    tolerance = (
        f"2·({SLACK:g}·u_c + {RESULT_ROUNDING:g}·u)·max(m, 1)·‖x‖ with u_c = {unit_roundoff(compute):.3g} "
        f"({compute}), u = {u:.3g} ({target.dtype}); the amplitudes ‖R_0 e_j‖ within "
        f"2·({SLACK:g}·2·u_c + {RESULT_ROUNDING:g}·u)·max(m, 1) of one m"
    )
    return outcome("norm", tolerance, found, "not-norm-preserving")


@register(FAMILY, "linear", "R_p(αx + βy) = α·R_p x + β·R_p y")
def linear(target: RopeTarget, settings: Settings) -> Outcome:
    amplitudes = _amplitudes(target, settings)
    weights = st.integers(-4, 4)
    strategy = st.tuples(_dims(settings), _positions(settings), weights, weights, st.integers(0, 2**32 - 1))

    def fails(example: tuple[int, ...]) -> dict[str, Any] | None:
        d, p, alpha, beta, seed = example
        x, y = _seeded(d, seed, 2)
        combined = target.rotate((alpha * x + beta * y)[None], np.array([p]))[0]
        separate = target.rotate(np.stack([x, y]), np.array([p, p]))
        expected = alpha * separate[0] + beta * separate[1]
        scale = (abs(alpha) + abs(beta) + 1) * max(float(np.abs(x).max()), float(np.abs(y).max()))
        scale *= max(amplitudes(d).m, 1.0)
        difference = np.abs(combined - expected)
        if difference.max() <= 4 * entry_tolerance(target.dtype, p) * scale:
            return None
        dim = int(np.argmax(difference))
        return {
            "d": d,
            "p": p,
            "alpha": alpha,
            "beta": beta,
            "seed": seed,
            "dim": dim,
            "R(αx + βy)": short(combined[dim]),
            "αRx + βRy": short(expected[dim]),
        }

    probes = [(d, 1, 2, 0, 0) for d in sorted(settings.ds)]
    found = search(strategy, fails, settings, probes)
    tolerance = (
        f"4·(|α| + |β| + 1)·max |x|, |y| times the entry tolerance; {_tolerance_text(target, settings)}"
    )
    return outcome("linear", tolerance, found, "not-linear")


@register(FAMILY, "batch", "a row is rotated the same alone and among other rows")
def batch(target: RopeTarget, settings: Settings) -> Outcome:
    amplitudes = _amplitudes(target, settings)
    strategy = st.tuples(
        _dims(settings), st.lists(_positions(settings), min_size=2, max_size=6), st.integers(0, 2**32 - 1)
    )

    def fails(example: tuple[int, list[int], int]) -> dict[str, Any] | None:
        d, positions, seed = example
        x = _seeded(d, seed, len(positions))
        together = target.rotate(x, np.array(positions))
        size = max(amplitudes(d).m, 1.0)
        for row, p in enumerate(positions):
            alone = target.rotate(x[row : row + 1], np.array([p]))[0]
            difference = np.abs(alone - together[row])
            if difference.max() > 4 * entry_tolerance(target.dtype, p) * size * float(np.abs(x[row]).max()):
                dim = int(np.argmax(difference))
                return {
                    "d": d,
                    "positions": positions,
                    "seed": seed,
                    "row": row,
                    "dim": dim,
                    "alone": short(alone[dim]),
                    "in the batch": short(together[row][dim]),
                }
        return None

    top = settings.max_pos - 1
    probes = [(d, [min(5, top), min(3, top)], 0) for d in sorted(settings.ds)]
    found = search(strategy, fails, settings, probes)
    return outcome("batch", _tolerance_text(target, settings), found, "not-batch-consistent")


@register(FAMILY, "deterministic", "the same call gives the same numbers")
def deterministic(target: RopeTarget, settings: Settings) -> Outcome:
    strategy = st.tuples(_dims(settings), _positions(settings), st.integers(0, 2**32 - 1))

    def fails(example: tuple[int, int, int]) -> dict[str, Any] | None:
        d, p, seed = example
        x = _seeded(d, seed)
        first, second = target.rotate(x, np.array([p])), target.rotate(x, np.array([p]))
        if np.array_equal(first, second):
            return None
        dim = int(np.argmax(np.abs(first - second)))
        return {
            "d": d,
            "p": p,
            "seed": seed,
            "dim": dim,
            "first": short(first[0, dim]),
            "second": short(second[0, dim]),
        }

    found = search(strategy, fails, settings, [(d, 1, 0) for d in sorted(settings.ds)])
    return outcome("deterministic", "exact equality", found, "nondeterministic")


# -------------------------------------------------------------------------------------- identification

#: cos(1): what position 0 turns into when cos and sin are taken for angles (cos(0) = 1 taken for an angle).
COS_ONE = math.cos(1.0)


def _angles_taken(target: RopeTarget, d: int) -> Finding | None:
    """A cos-sin-as-angles finding when R_0 is cos(1) times the identity within the entry tolerance, as when
    an apply function takes the cos and sin it is given for angles and takes their cosine and sine again
    (cos(cos 0) = cos 1, sin(sin 0) = 0; NVIDIA/Megatron-LM #7465), else None."""
    zero = _basis_rotated(target, d, np.arange(d), 0, "q")
    deviation = float(np.abs(zero - COS_ONE * np.eye(d)).max())
    if deviation > READ_SLACK * entry_tolerance(target.dtype, 0):
        return None
    detail = (
        f"position 0 is not the identity but cos(1) = {short(COS_ONE)} times it (largest difference "
        f"{short(deviation)}, d = {d}), as cos(cos 0) = cos 1 and sin(sin 0) = 0 give"
    )
    return finding("cos-sin-as-angles", detail)


#: Basis vectors rotated per call while identifying: memory stays CHUNK·d values whatever d is.
CHUNK = 256

#: The entries read while identifying may be this many entry tolerances from the rotation by the θ_i read:
#: the implementation's own error, and that of the two angles (at position 0 and at the farthest probe)
#: θ_i was read from, which move the angle at any probe between them by at most their sum; one to spare.
READ_SLACK = 4.0


def _held(target: RopeTarget, x: np.ndarray, p: int, side: str, hold: int | None) -> np.ndarray:
    """R_p x for each row of x, called beside a zero row at position `hold` (when given and not p), so that
    every such call reaches the same farthest position: a rotation that chooses its frequencies by the
    call's length (dynamic NTK, LongRoPE's long and short factors) is read at one length."""
    if hold is None or hold == p:
        return target.rotate(x, np.full(len(x), p), side)
    beside = np.vstack([x, np.zeros((1, x.shape[1]))])
    return target.rotate(beside, np.array([p] * len(x) + [hold]), side)[:-1]


def _basis_rotated(
    target: RopeTarget, d: int, rows: np.ndarray, p: int, side: str, hold: int | None = None
) -> np.ndarray:
    """R_p e_j as rows, for each j of `rows`, computed in blocks of CHUNK rows (each beside a zero row at
    `hold`, `_held`)."""
    eye = np.eye(d)
    blocks = [
        _held(target, eye[rows[start : start + CHUNK]], p, side, hold) for start in range(0, len(rows), CHUNK)
    ]
    return np.concatenate(blocks)


@dataclass(frozen=True)
class Probed:
    """R_p read at each probed position: for the first dim j of each pair, R_p e_j's diagonal entry, its
    entry at the partner and its largest other entry (shape (positions, r/2) each); and R_p applied to
    one vector `mixed` = Σ c_k e_k over every other dim (shape (positions, d))."""

    positions: list[int]
    layout: str
    r: int
    diagonal: np.ndarray
    along: np.ndarray
    other: np.ndarray
    coefficients: np.ndarray
    mixed: np.ndarray


def _pairing(partner: np.ndarray, moved: np.ndarray) -> tuple[str, int] | None:
    """The layout and rotary dimension r that the rows' partners show, or None for another pairing."""
    r = int(moved.sum())
    if r == 0 or r % 2 or not moved[:r].all():
        return None
    index = np.arange(r)
    if np.array_equal(partner[:r], index ^ 1):
        return "interleaved", r
    if np.array_equal(partner[:r], (index + r // 2) % r):
        return "half_split", r
    return None


def _first_of_pairs(layout: str, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The dims (j, k) of each pair i: R_p e_j = cos·e_j + sin·e_k in the reference direction."""
    i = np.arange(r // 2)
    return (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + r // 2)


def probe(target: RopeTarget, d: int, positions: list[int], side: str) -> Probed | None:
    """Read R_p off basis vectors: first every row's partner, its largest off-diagonal entry (the largest over
    positions 1, 1000 and the farthest probe), which must stand out: four times the row's next largest and
    above float64 rounding (an angle's error moves a row towards its partner, never towards another dim, and
    the rounding of a small entry is small, so a slow pair that turns little shows at any precision); then at
    every position the rows of each pair's first dim and one random combination of all the other dims. None
    when the rows do not pair up. Every call reaches the farthest probe (`_held`)."""
    everything = np.arange(d)
    far = positions[-1]
    read = np.max(
        [
            np.abs(_basis_rotated(target, d, everything, p, side, far))
            for p in sorted({1, min(1000, far), far})
        ],
        axis=0,
    )
    np.fill_diagonal(read, 0.0)
    ordered = np.sort(read, axis=1)
    largest, second = ordered[:, -1], ordered[:, -2]
    moved = (largest > 4 * second) & (largest > 2 * entry_tolerance("float64", 0))
    pairing = _pairing(np.argmax(read, axis=1), moved)
    if pairing is None:
        return None
    layout, r = pairing
    j, k = _first_of_pairs(layout, r)
    coefficients = np.zeros(d)
    rest = np.setdiff1d(everything, j)
    coefficients[rest] = np.random.default_rng(0).standard_normal(len(rest))
    pairs = np.arange(len(j))
    diagonal, along, other, mixed = [], [], [], []
    for p in positions:
        matrix = _basis_rotated(target, d, j, p, side, far)
        diagonal.append(matrix[pairs, j])
        along.append(matrix[pairs, k])
        matrix[pairs, j] = matrix[pairs, k] = 0.0
        other.append(np.abs(matrix).max(axis=1))
        mixed.append(_held(target, coefficients[None], p, side, far)[0])
    return Probed(
        positions,
        layout,
        r,
        *(np.array(values) for values in (diagonal, along, other)),
        coefficients,
        np.array(mixed),
    )


def _frequencies(angles: np.ndarray, positions: list[int]) -> np.ndarray:
    """θ_i from the unwrapped angle growth between position 0 and the farthest probe, refined step by
    step so that no turn is lost (θ_0 ≤ 1 < π between positions 0 and 1)."""
    theta = angles[1] - angles[0]
    theta = (theta + np.pi) % (2 * np.pi) - np.pi
    for index in range(2, len(positions)):
        p = positions[index]
        grown = angles[index] - angles[0]
        turns = np.round((theta * p - grown) / (2 * np.pi))
        theta = (grown + 2 * np.pi * turns) / p
    return theta


def _deviation(probed: Probed, theta: np.ndarray, offset: float, direction: int, m: float) -> float:
    """Largest difference between the probed entries and those of m times the rotation of each pair i by
    direction·(p + offset)·θ_i (for the combination of the other dims, relative to its largest
    coefficient; the dims passed through keep their coefficient)."""
    j, k = _first_of_pairs(probed.layout, probed.r)
    shifted = direction * (np.array(probed.positions, dtype=np.float64) + offset)
    angles = shifted[:, None] * theta[None, :]
    cos, sin = m * np.cos(angles), m * np.sin(angles)
    c = probed.coefficients
    expected = np.broadcast_to(c, probed.mixed.shape).copy()
    expected[:, j], expected[:, k] = -sin * c[k], cos * c[k]
    mixed = np.abs(probed.mixed - expected).max() / np.abs(c).max()
    rows = max(np.abs(probed.diagonal - cos).max(), np.abs(probed.along - sin).max(), probed.other.max())
    return float(max(rows, mixed))


@dataclass(frozen=True)
class Fitted:
    """What the rotation of one side (q or k) was read to be: its pairing, the frequencies θ_i read off its
    angles, position offset, direction and amplitude m; how far the entries read are from m times that
    rotation (`deviation`, a rotation when within `tolerance`), the narrower precision it was computed in if
    one, and the scaling rule the θ_i follow (`rule`, with the findings it implies)."""

    d: int
    layout: str
    rotary_dim: int
    theta: np.ndarray
    offset: float
    direction: int
    amplitude: float
    deviation: float
    tolerance: float
    rule: Identification
    rule_findings: tuple[Finding, ...]
    computed_in: str | None = None
    held: str = "result"

    @property
    def rotation_matches(self) -> bool:
        """Whether the entries read are m times a rotation by direction·(p + offset)·θ_i."""
        return self.deviation <= self.tolerance

    @property
    def matches(self) -> bool:
        """Whether it is such a rotation and its θ_i follow a known rule."""
        return self.rotation_matches and self.rule.matches

    @property
    def convention(self) -> dict[str, Any]:
        """What the rotation is: layout, rotary fraction, offset, direction, amplitude and rule."""
        out = {
            "layout": self.layout,
            "rotary_fraction": short(self.rotary_dim / self.d),
            "position_offset": short(self.offset),
            "direction": "p·θ" if self.direction > 0 else "−p·θ",
            "attention_factor": short(self.amplitude),
            "scaling": self.rule.variant,
        }
        out |= {k: v for k, v in self.rule.parameters.items() if k not in RULE_BOOKKEEPING}
        return out

    @property
    def parameters(self) -> dict[str, Any]:
        """The convention and the precision it was computed in (how far the θ_i are from the rule is the
        identification's deviation, a measurement kept out of the parameters that pages print)."""
        out = self.convention
        if self.computed_in is not None:
            out["computed_in"] = self.computed_in + (" (cos and sin)" if self.held == "table" else "")
        return out


#: What `identify_rule` says of its comparison rather than of the rule (reported under other names).
RULE_BOOKKEEPING = ("deviation", "tolerance", "tolerance_rule", "dtype")


def fit(target: RopeTarget, d: int, settings: Settings, side: str = "q") -> Fitted | None:
    """The RoPE variant one side of the implementation computes at dimension d, or None if its dims do not
    pair up as interleaved or half-split rotations: θ_i read off the angles (`_frequencies`), the position
    offset from the fastest pair's angle at 0 (whole when a whole offset fits), the direction and the
    amplitude m (the median length of a pair's row); the entries compared with m times that rotation at the
    result dtype's tolerance and at the narrower precision that holds every entry read (`computed_in`; or
    every cos and sin read, a table held in it), and the rule of the θ_i (`_rule`) at each precision whose
    rotation matches: the widest where the rule matches too, else the widest where the rotation does."""
    top = settings.max_pos - 1
    positions = sorted({0, 1, 10, 100, 1000, 10000, top} & set(range(top + 1)))
    probed = probe(target, d, positions, side)
    if probed is None:
        return None
    m = float(np.median(np.hypot(probed.diagonal, probed.along)))
    angles = np.arctan2(probed.along, probed.diagonal)
    signed = _frequencies(angles, positions)
    direction = 1 if signed[0] >= 0 else -1
    theta = direction * signed
    offset = float(direction * angles[0][0] / theta[0]) if theta[0] > 0 else 0.0
    trials = [
        (_deviation(probed, theta, o, direction, m), o) for o in dict.fromkeys((float(round(offset)), offset))
    ]
    read = (probed.diagonal, probed.along, probed.mixed)
    narrower = [(p, "result") for p in computed_in(read, target.dtype)]
    narrower += [(p, "table") for p in computed_in(read[:2], target.dtype) if not narrower]
    options = []
    for precision, where in ((None, "result"), *narrower):
        allowed = READ_SLACK * entry_tolerance(precision or target.dtype, top) * max(m, 1.0)
        matching = [trial for trial in trials if trial[0] <= allowed]
        if matching:
            rule, rule_found = _rule(theta, precision or target.dtype, settings.base, m, positions[-1])
            options.append((precision, where, allowed, *matching[0], rule, rule_found))
    if not options:
        allowed = READ_SLACK * entry_tolerance(target.dtype, top) * max(m, 1.0)
        rule, rule_found = _rule(theta, target.dtype, settings.base, m, positions[-1])
        options.append((None, "result", allowed, *min(trials), rule, rule_found))
    # the widest precision whose rotation and rule both match, else the widest whose rotation does
    precision, held, allowed, deviation, offset, rule, rule_found = next(
        (option for option in options if option[-2].matches), options[0]
    )
    return Fitted(
        d,
        probed.layout,
        probed.r,
        theta,
        offset,
        direction,
        m,
        deviation,
        allowed,
        rule,
        tuple(rule_found),
        precision,
        held,
    )


def _rule(
    theta: np.ndarray, dtype: str, base: float, m: float, far: int
) -> tuple[Identification, list[Finding]]:
    """The scaling rule that the θ_i of r = 2·len(theta) rotated dims, read off the angles of a rotation
    returned in `dtype` up to position `far`, follow: `identify_rule` at the tolerance of the precision the
    angles are computed in, each θ_i widened by its reading error; with a single pair, θ_0 = 1 is every
    unscaled rule and another θ_0 linear scaling by 1/θ_0. Frequencies not all positive, or all equal (a
    constant frequency, or an exponent that integer division made 0), fit no rule: `UNKNOWN`, with an
    equal-frequencies finding for the second."""
    compute = compute_dtype(dtype)
    # Each of the two angles θ_i is read from (at 0 and at `far`) errs by √2 times the rounding of an
    # entry (the entry tolerance at position 0) over the pair's length m; what grows with p is the
    # frequency's own relative error, which the rule's tolerance holds.
    error = 2.0 * math.sqrt(2.0) * entry_tolerance(dtype, 0) / (m * far)
    relative = frequency_tolerance(base, 1.0) * unit_roundoff(compute) / unit_roundoff("float64")
    if not np.all(theta > 0):
        i = int(np.flatnonzero(theta <= 0)[0])
        parameters = {"reason": f"θ_{i} = {short(float(theta[i]))} is not positive"}
        return Identification(UNKNOWN, parameters, math.inf, False), []
    spread = float(np.max(np.abs(theta - theta[0])))
    if theta.size > 1 and spread <= error + relative * theta[0]:
        detail = (
            f"all {theta.size} pairs turn at θ = {short(float(theta[0]))} (a constant frequency, or an "
            "exponent such as arange(0, d, 2) // d that integer division makes 0): no rule fits"
        )
        parameters = {"reason": f"every θ_i = {short(float(theta[0]))}"}
        return Identification(UNKNOWN, parameters, short(spread), False), [
            finding("equal-frequencies", detail)
        ]
    if theta.size == 1:
        deviation = abs(float(theta[0]) - 1.0)
        if deviation <= error + relative:
            return Identification("none", {"theta_0": 1.0}, short(deviation), True), []
        factor = 1.0 / float(theta[0])
        detail = f"the one pair turns at θ_0 = {short(float(theta[0]))}: positions divided by {short(factor)}"
        identified = Identification("linear", {"factor": short(factor)}, 0.0, True)
        return identified, [finding("scaling-linear", detail)]
    r = 2 * theta.size
    identified, found = identify_rule({r: theta}, compute, base, {r: np.full(theta.size, error)})
    if identified.matches:
        return identified, found
    return _held_narrow(theta, base) or (identified, found)


#: How close, relative to itself, each θ_i read must be to a number of a narrower dtype for inv_freq to be
#: read as held in it: far above the reading error of angles computed in float32 (about 6e-8 of θ_i), far
#: below the spacing of float16 (2^-11) and bfloat16 (2^-8) numbers, which random frequencies would all
#: fall this close to with a probability of (2·10^-6 / 2^-11)^(d/2).
HELD_READING = 1e-6


def _held_narrow(theta: np.ndarray, base: float) -> tuple[Identification, list[Finding]] | None:
    """The rule that θ_i held in bfloat16 or float16 follow (inv_freq kept in the model's dtype,
    transformers #29285), when every θ_i read is within HELD_READING of a number of that dtype and, rounded
    to it, follows a rule at that dtype's tolerance, with a low-precision finding; else None."""
    r = 2 * theta.size
    for precision in ("bfloat16", "float16"):
        held = DTYPES[precision].cast(theta).astype(np.float64)
        if np.max(np.abs(held - theta) / theta) > HELD_READING:
            continue
        identified, found = identify_rule({r: held}, precision, base)
        if identified.matches:
            detail = (
                f"inv_freq held in {precision}: every θ_i read is within {HELD_READING:g} (relative) of a "
                f"{precision} number, and those numbers follow the {identified.variant} rule at "
                f"{precision}'s tolerance"
            )
            return identified, [*found, finding("low-precision", detail)]
    return None


def _layout_findings(fitted: Fitted) -> list[Finding]:
    """The pairing's findings: the layout, and how many dims rotate when not all do."""
    found = [finding(f"{fitted.layout.replace('_', '-')}-layout", f"pairs of dims rotate as {fitted.layout}")]
    if fitted.rotary_dim < fitted.d:
        found.append(finding("partial-rotary", f"{fitted.rotary_dim} of {fitted.d} dims rotate"))
    return found


def _findings(fitted: Fitted, returned: str) -> list[Finding]:
    """The findings of a fit that matches: its rule's (but scaling-none: unscaled frequencies are what a
    rotation is expected to have, their base is a parameter, and another base is a wrong-base finding), a
    position offset, a reversed direction, an attention factor (compared with the rule's own where it has
    one) and a narrower precision."""
    found = [f for f in fitted.rule_findings if f.label != "scaling-none"]
    if fitted.offset != 0:
        found.append(finding("position-offset", f"position p is rotated as p + {short(fitted.offset)}"))
    if fitted.direction < 0:
        found.append(finding("reversed-rotation", "pairs turn by −p·θ_i"))
    note = _attention_note(fitted, returned)
    if note is not None:
        found.append(finding("attention-factor", note))
    if fitted.computed_in is not None and fitted.held == "table":
        detail = (
            f"cos and sin held in {fitted.computed_in} (a table or cache), applied in {returned}: every cos "
            f"and sin read off a basis vector is a {fitted.computed_in} number, while the rotated mixtures "
            f"are not; within {fitted.computed_in}'s entry tolerance {short(fitted.tolerance)} of rope "
            f"{fitted.layout} (deviation {short(fitted.deviation)})"
        )
        found.append(finding("low-precision", detail))
    elif fitted.computed_in is not None:
        detail = (
            f"rope {fitted.layout}, computed in {fitted.computed_in}: every entry read is a "
            f"{fitted.computed_in} number, within {fitted.computed_in}'s entry tolerance "
            f"{short(fitted.tolerance)} of that rotation (deviation {short(fitted.deviation)}), returned as "
            f"{returned}"
        )
        found.append(finding("low-precision", detail))
    return found


def _attention_note(fitted: Fitted, returned: str) -> str | None:
    """What an amplitude m ≠ 1 (beyond the rounding of an entry) is under the rule identified
    (`rope_frequencies.attention_note`); None for m = 1."""
    m = fitted.amplitude
    tolerance = 2 * entry_tolerance(fitted.computed_in or returned, 0) * max(m, 1.0)
    return attention_note(m, fitted.rule, tolerance)


#: How far apart, relative to the fastest, the frequencies read of two dims may be and still be one entry
#: of a cos/sin table used twice: far above the reading error (angles read to an entry's tolerance at the
#: farthest probe), far below the ratio of neighbouring frequencies of any rule.
SAME_ENTRY = 1e-6


def _table_layout(target: RopeTarget, d: int, settings: Settings, fitted: Fitted) -> Finding | None:
    """A layout-mismatch finding when cos and sin are laid out for one pairing and applied with the other
    (a ``repeat_interleave``d table with ``rotate_half``, a ``cat(freqs, freqs)`` table with
    ``rotate_every_two``), else None. Each output dim's own angle is read, its cos from its diagonal entry
    and its sin from its partner's row; the mismatch is when the two dims of some pair turn at different
    frequencies while the dims the other layout pairs turn alike."""
    top = settings.max_pos - 1
    positions = sorted({0, 1, 10, 100, 1000, top} & set(range(top + 1)))
    r, layout = fitted.rotary_dim, fitted.layout
    j, k = _first_of_pairs(layout, r)
    angles = np.empty((len(positions), r))
    for row, p in enumerate(positions):
        matrix = _basis_rotated(target, d, np.arange(r), p, "q", top)
        angles[row, j] = np.arctan2(-matrix[k, j], matrix[j, j])
        angles[row, k] = np.arctan2(matrix[j, k], matrix[k, k])
    omega = fitted.direction * _frequencies(angles, positions)
    other = "interleaved" if layout == "half_split" else "half_split"
    a, b = _first_of_pairs(other, r)
    scale = float(np.abs(omega).max())
    split = np.abs(omega[j] - omega[k])
    if np.abs(omega[a] - omega[b]).max() > SAME_ENTRY * scale or split.max() <= 1e3 * SAME_ENTRY * scale:
        return None
    i = int(np.argmax(split))
    pairing = {"half_split": "rotate_half: dims i and i + r/2", "interleaved": "dims 2i and 2i + 1"}
    detail = (
        f"the pairs rotate as {layout} ({pairing[layout]}), but cos and sin are laid out {other} "
        f"({pairing[other]} share one frequency): the two dims of a pair turn by different angles, dims "
        f"{int(j[i])} and {int(k[i])} at {short(float(omega[j[i]]))} and {short(float(omega[k[i]]))} rad per "
        f"position (d = {d}; every pair of the {other} layout within {SAME_ENTRY:g} of one frequency)"
    )
    return finding("layout-mismatch", detail)


def _length_dependent(target: RopeTarget, d: int, settings: Settings) -> Finding | None:
    """A length-dependent finding when a row at position 1 rotates otherwise beside a zero row at the
    farthest position than alone (and alike when called alone twice): the rotation chooses its frequencies
    by the call's farthest position, as dynamic NTK and LongRoPE's switch between its factors do."""
    top = settings.max_pos - 1
    x = _seeded(d, 0)
    alone, again = (target.rotate(x, np.array([1])) for _ in range(2))
    beside = _held(target, x, 1, "q", top)
    if top <= 1 or not np.array_equal(alone, again) or np.array_equal(alone, beside):
        return None
    detail = (
        f"a row at position 1 rotates otherwise when the call also holds position {top} (largest difference "
        f"{short(float(np.abs(alone - beside).max()))}, d = {d}): the frequencies follow the call's farthest "
        "position, as dynamic NTK's and LongRoPE's do; the rotation is read with every call reaching "
        f"position {top}"
    )
    return finding("length-dependent", detail)


def _collision(target: RopeTarget, d: int, settings: Settings) -> Finding | None:
    """Neighbouring positions whose rotations are identical, one row at a time: positions 0 and 1, where a
    rotation that turns at all differs (positions-ignored: what turns a row is not the position passed, or
    nothing does), else a pair that a narrow dtype rounds together while the two positions below it, which
    it holds, differ (low-precision: positions held in it)."""
    top = settings.max_pos - 1
    x = _seeded(d, 0)  # every dim: a rotation of some of them (the last half, say) turns it

    def alike(p: int, q: int) -> bool:
        return np.array_equal(target.rotate(x, np.array([p])), target.rotate(x, np.array([q])))

    if alike(0, 1):
        detail = (
            "one row rotates alike at positions 0 and 1: what turns a row is not the position passed (rows "
            "turned by their place in the call, positions dropped), or no frequency turns it"
        )
        return finding("positions-ignored", detail)
    for p, q in (*NARROW, (top - 1, top)):
        if q <= top and alike(p, q) and not alike(p - 1, p):
            held = NARROW_DTYPE.get(p)
            why = f", as when positions are held in {held} (no odd integer above {p} is)" if held else ""
            return finding("low-precision", f"positions {p} and {q} rotate alike{why}")
    return None


def identify(target: RopeTarget, settings: Settings) -> tuple[Identification | None, list[Finding]]:
    """The closest reference variant (`fit`) at one dimension of the battery, for q and, with the
    ``apply`` form, for k: ``rope <layout>`` when each is m times a rotation whose θ_i follow a known rule,
    else ``unidentified`` with the residual (of the entries, or of the θ_i from the closest rule). Findings
    for colliding positions, the pairing, a q/k mismatch, and, only from a fit that matches, its
    conventions (rule, base, offset, direction, attention factor, precision)."""
    d = max(settings.ds)
    collision = _collision(target, d, settings)
    found = [collision] if collision else []
    try:
        found += [f for f in (_length_dependent(target, d, settings),) if f]
        fits = [fit(target, d, settings, side) for side in ("q", "k")[: 2 if target.form == "apply" else 1]]
    except Broken as broken:
        return None, [*found, finding(broken.label, broken.message)]
    q = fits[0]
    if q is None:
        return Identification("matches no known variant", {"d": d}, math.inf, False), found
    found += _layout_findings(q)
    parameters = {"d": d, **q.parameters}
    if len(fits) == 2:
        k = fits[1]
        if k is None or k.layout != q.layout or k.rotary_dim != q.rotary_dim:
            found.append(
                finding(
                    "mixed-layout",
                    f"queries rotate as {q.layout}, keys as {'no known layout' if k is None else k.layout}",
                )
            )
            parameters["k"] = None if k is None else k.parameters
        elif k.convention != q.convention and q.matches and k.matches:
            found.append(
                finding("position-offset", f"queries rotate with {q.convention}, keys with {k.convention}")
            )
            parameters["k"] = k.parameters
    parameters["convention"] = target.convention.name
    parameters["called with"] = target.built(d).source
    read = [f for f in fits if f is not None]
    if all(f.matches for f in read):
        deviation = max(f.deviation for f in read)
        return Identification(f"rope {q.layout}", parameters, short(deviation), True), found + _findings(
            q, target.dtype
        )
    worst = next(f for f in read if not f.matches)
    if not q.rotation_matches:
        found += [f for f in (_angles_taken(target, d), _table_layout(target, d, settings, q)) if f]
    if worst.rotation_matches:
        found += [f for f in worst.rule_findings if f.label == "equal-frequencies"]
        parameters["residual"] = "frequencies: relative deviation of the θ_i from the closest rule"
        residual = worst.rule.max_abs_deviation
    else:
        parameters["residual"] = "entries: largest difference from m times the rotation by the θ_i read"
        residual = short(worst.deviation)
    return Identification("unidentified", parameters, residual, False), found


def screen(target: RopeTarget, d: int) -> None:
    """One plain call at d (`battery.screen`): two basis rows at positions 0 and 1, both sides for apply."""
    x = np.eye(d)[: min(2, d)]
    for side in ("q", "k") if target.form == "apply" else ("q",):
        target.rotate(x, np.arange(len(x)), side)


def detect(function: Callable, settings: Settings) -> str:
    """The calling convention: the one `--convention` names, else the first `rope_conventions` recognises;
    a ValueError naming them when none does, and for a rotary class of an axial (vision) rotation."""
    if settings.convention:
        if settings.convention not in BY_NAME:
            raise ValueError(f"--convention must be one of {', '.join(BY_NAME)}; got {settings.convention!r}")
        return settings.convention
    found = conventions_detect(function)
    if found is None:
        raise ValueError(
            "a rope implementation must fit one of the conventions "
            f"{', '.join(BY_NAME)} (pe-verify check --convention names one where detection cannot decide)"
        )
    if found.name == "rotary-module" and axial(function):
        raise ValueError(
            "its config's rope type is axial: a 2-D/3-D rotation over image or video patch coordinates, "
            "which the rope family (a rotation of token positions) does not check"
        )
    if found.name == "rotary-module":
        problem = unbuildable(function, max(settings.ds or DS), settings)
        if problem is not None:
            raise ValueError(problem)
    return found.name


def adapt(function: Callable, form: str, backend: Backend, settings: Settings) -> RopeTarget:
    odd = [d for d in settings.ds if d % 2]
    if odd:
        raise ValueError(f"RoPE rotates pairs of dims: d must be even, got {odd[0]}")
    return RopeTarget(function, BY_NAME[form], backend, settings)


def fixed(function: Callable, settings: Settings) -> Settings:
    """The settings at the sizes an implementation holds itself (`Convention.sizes`: a precomputed table's d
    as the only d, its positions 0 … L − 1 at most); a ValueError when ``--d`` names another d."""
    sizes = BY_NAME[detect(function, settings)].sizes
    if sizes is None:
        return settings
    d, length = sizes(function)
    if length < 2:
        rows = "1 row" if length == 1 else f"{length} rows"
        raise ValueError(f"the table has {rows}: a rotation needs two positions")
    if settings.ds and tuple(settings.ds) != (d,):
        shown = " ".join(map(str, settings.ds))
        raise ValueError(f"the table holds d = {d} only; --d {shown} cannot be checked on it")
    return replace(settings, ds=(d,), max_pos=min(settings.max_pos, length))


#: What each defect explains: a rotation is relative, norm-preserving and identified only when its state,
#: its table's layout, its frequencies and its precision are right.
_ROTATION = frozenset({"not-relative", "not-norm-preserving", UNIDENTIFIED})
CAUSES = (
    Cause("stateful", _ROTATION | {"not-linear", "not-batch-consistent", "nondeterministic"}),
    Cause("positions-ignored", _ROTATION | {"not-linear", "not-batch-consistent"}),
    Cause("length-dependent", _ROTATION | {"not-batch-consistent"}),
    Cause("cos-sin-as-angles", _ROTATION),
    Cause("layout-mismatch", _ROTATION),
    Cause("mixed-layout", _ROTATION),
    Cause("equal-frequencies", frozenset({UNIDENTIFIED})),
    Cause("low-precision", _ROTATION | {"not-batch-consistent"}),
)

FAMILY_SPEC = define(
    Family(
        FAMILY,
        contract="rotate(x, positions) -> like x, x [n, d]; apply(q, k, positions) -> (q_rot, k_rot); or "
        "real code's conventions (pe-verify check --convention)",
        forms={},
        adapt=adapt,
        identify=identify,
        expectable=("interleaved", "half_split"),
        module=__name__,
        ds=DS,
        detect=detect,
        screen=screen,
        causes=CAUSES,
        fixed=fixed,
        handed=handed,
    )
)
