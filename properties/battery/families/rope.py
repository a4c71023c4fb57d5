"""The RoPE battery: properties every rotary position embedding has, and which variant an implementation is.

For rotations R_p of a rotary embedding (pairs of coordinates turned by p·θ_i):

* the score ⟨R_m q, R_n k⟩ depends on n − m only (`relative`), and at m = n it is ⟨q, k⟩ (`equal-positions`);
* ‖R_p x‖ = ‖x‖ (`norm`) and R_p is linear in x (`linear`);
* a row's rotation does not depend on the other rows of the call (`batch`), and a call repeated gives the
  same numbers (`deterministic`).

The relative and equal-positions checks use basis vectors e_a, e_b, so that every entry of R_mᵀR_n can be a
counterexample and each error stays of the size of one entry. The implementation is either
``rotate(x, positions)`` (x of shape [n, d], row j turned to positions[j]) or ``apply(q, k, positions)``
returning (q_rot, k_rot); with the second, queries and keys are probed separately, which is what exposes
layouts or positions that differ between q and k. Identification reads R_p off basis vectors at a few
positions: which dims pair up (interleaved, half-split, partial rotary), the angles (base, direction,
position offset and scale), compared with `rope.rope_angles` at the fitted parameters. When no parameters
match within the result dtype's entry tolerance, the first narrower precision (float32, float16, bfloat16)
that holds every entry read and within whose tolerance they match names the rotation "computed in" it
(`computed_in`, a low-precision finding).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ...encodings.frequencies import exponents
from ...encodings.rope import rope_angles
from .. import (
    Backend,
    Broken,
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
from ..rope_conventions import BY_NAME, Built, Convention, build
from ..rope_conventions import detect as conventions_detect

FAMILY = "rope"

#: Error of one rotated entry in units of u: the frequency's relative error times the angle is at most
#: u·p·(2θ + θ·|x|·ln b) ≤ u·p·(2 + 1/e), plus the roundings of cos, sin and the products.
ANGLE_FACTOR = 2.4
SLACK = 8.0

#: Neighbouring positions that a narrow dtype rounds together: bfloat16 from 256, float16 from 2048.
NARROW = ((256, 257), (2048, 2049))


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


def entry_tolerance(dtype: str, max_position: int) -> float:
    """How far one rotated entry of a unit vector may be from the exact value in `dtype`."""
    return SLACK * unit_roundoff(dtype) * (ANGLE_FACTOR * max_position + 2.0)


def _tolerance_text(target: RopeTarget, settings: Settings) -> str:
    top = settings.max_pos - 1
    value = 2 * entry_tolerance(target.dtype, top)
    return (
        f"2·{SLACK:g}·u·({ANGLE_FACTOR}·p + 2) with u = {unit_roundoff(target.dtype):.3g} ({target.dtype}) "
        f"and p the largest position (at most {top}: {value:.3g})"
    )


def _positions(settings: Settings) -> st.SearchStrategy[int]:
    return st.integers(0, settings.max_pos - 1)


def _dims(settings: Settings) -> st.SearchStrategy[int]:
    return st.sampled_from(sorted(settings.ds))


def _seeded(d: int, seed: int, rows: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, d))


def _narrow(
    found: dict[str, Any], target: RopeTarget, error: float, bound: Callable[[str], float]
) -> dict[str, Any]:
    """`found`, labelled low-precision when the error, too large for a float64 result, is within what the
    same check allows a float32 one: the work was done in a narrower dtype than the result."""
    if target.dtype == "float64" and error <= bound("float32"):
        found["label"] = "low-precision"
        found["message"] = "errors of float32 size in a float64 result"
    return found


# ------------------------------------------------------------------------------------------ properties


@register(FAMILY, "relative", "⟨R_m q, R_n k⟩ depends on the offset n − m only")
def relative(target: RopeTarget, settings: Settings) -> Outcome:
    top = settings.max_pos - 1
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
        bound = 2 * entry_tolerance(target.dtype, max(m, n, m2, n2))
        if error <= bound:
            return None
        found = {"d": d, "a": a, "b": b, "m": m, "n": n, "m2": m2, "n2": n2}
        found |= {"score(m, n)": short(first), "score(m2, n2)": short(second)}
        return _narrow(found, target, error, lambda dt: 2 * entry_tolerance(dt, max(m, n, m2, n2)))

    probes = [
        (d, a, b, m, n, m2)
        for d in sorted(settings.ds)
        for a, b in ((0, 0), (0, 1), (0, d // 2))
        for m, n, m2 in ((0, 0, 1), (0, 1, NARROW[0][0]), (0, 1, NARROW[1][0]), (0, 1, top - 1))
        if b < d and m2 + 1 <= top
    ]
    found = search(strategy, fails, settings, probes)
    return outcome("relative", _tolerance_text(target, settings), found, "not-relative")


@register(FAMILY, "equal-positions", "⟨R_p q, R_p k⟩ = ⟨q, k⟩: at equal positions the score is unrotated")
def equal_positions(target: RopeTarget, settings: Settings) -> Outcome:
    strategy = _dims(settings).flatmap(
        lambda d: st.tuples(st.just(d), st.integers(0, d - 1), st.integers(0, d - 1), _positions(settings))
    )

    def fails(example: tuple[int, ...]) -> dict[str, Any] | None:
        d, a, b, p = example
        (score,) = target.score(a, b, d, [p], [p])
        expected = float(a == b)
        if abs(score - expected) <= 2 * entry_tolerance(target.dtype, p):
            return None
        found = {"d": d, "a": a, "b": b, "p": p, "score": short(score), "expected": expected}
        return _narrow(found, target, abs(score - expected), lambda dt: 2 * entry_tolerance(dt, p))

    probes = [(d, a, 0, p) for d in sorted(settings.ds) for a in (0, 1) for p in (0, 1) if a < d]
    found = search(strategy, fails, settings, probes)
    return outcome("equal-positions", _tolerance_text(target, settings), found, "not-relative")


@register(FAMILY, "norm", "‖R_p x‖ = ‖x‖: every pair is turned by an orthogonal rotation")
def norm(target: RopeTarget, settings: Settings) -> Outcome:
    strategy = st.tuples(_dims(settings), _positions(settings), st.integers(0, 2**32 - 1))

    def fails(example: tuple[int, int, int]) -> dict[str, Any] | None:
        d, p, seed = example
        x = _seeded(d, seed)
        rotated = target.rotate(x, np.array([p]))
        before, after = float(np.linalg.norm(x)), float(np.linalg.norm(rotated))
        allowed = lambda dtype: 2 * SLACK * unit_roundoff(dtype) * before  # noqa: E731
        if abs(after - before) <= allowed(target.dtype):
            return None
        found = {"d": d, "p": p, "seed": seed, "norm": short(before), "rotated norm": short(after)}
        return _narrow(found, target, abs(after - before), allowed)

    probes = [(d, p, 0) for d in sorted(settings.ds) for p in (0, 1, settings.max_pos - 1)]
    found = search(strategy, fails, settings, probes)
    tolerance = f"2·{SLACK:g}·u·‖x‖, u = {unit_roundoff(target.dtype):.3g} ({target.dtype})"
    return outcome("norm", tolerance, found, "not-norm-preserving")


@register(FAMILY, "linear", "R_p(αx + βy) = α·R_p x + β·R_p y")
def linear(target: RopeTarget, settings: Settings) -> Outcome:
    weights = st.integers(-4, 4)
    strategy = st.tuples(_dims(settings), _positions(settings), weights, weights, st.integers(0, 2**32 - 1))

    def fails(example: tuple[int, ...]) -> dict[str, Any] | None:
        d, p, alpha, beta, seed = example
        x, y = _seeded(d, seed, 2)
        combined = target.rotate((alpha * x + beta * y)[None], np.array([p]))[0]
        separate = target.rotate(np.stack([x, y]), np.array([p, p]))
        expected = alpha * separate[0] + beta * separate[1]
        scale = (abs(alpha) + abs(beta) + 1) * max(float(np.abs(x).max()), float(np.abs(y).max()))
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
    strategy = st.tuples(
        _dims(settings), st.lists(_positions(settings), min_size=2, max_size=6), st.integers(0, 2**32 - 1)
    )

    def fails(example: tuple[int, list[int], int]) -> dict[str, Any] | None:
        d, positions, seed = example
        x = _seeded(d, seed, len(positions))
        together = target.rotate(x, np.array(positions))
        for row, p in enumerate(positions):
            alone = target.rotate(x[row : row + 1], np.array([p]))[0]
            difference = np.abs(alone - together[row])
            if difference.max() > 4 * entry_tolerance(target.dtype, p) * float(np.abs(x[row]).max()):
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

    probes = [(d, [5, 3], 0) for d in sorted(settings.ds)]
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


@dataclass(frozen=True)
class Fitted:
    """What the rotation of one side (q or k) was read to be, and how far it is from that variant."""

    d: int
    layout: str
    rotary_dim: int
    base: float
    offset: float
    scale: float
    direction: int
    deviation: float
    tolerance: float
    computed_in: str | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        out = {
            "layout": self.layout,
            "base": short(self.base),
            "rotary_fraction": short(self.rotary_dim / self.d),
            "position_offset": short(self.offset),
            "position_scale": short(self.scale),
            "direction": "p·θ" if self.direction > 0 else "−p·θ",
        }
        if self.computed_in is not None:
            out["computed_in"] = self.computed_in
        return out


#: Basis vectors rotated per call while identifying: memory stays CHUNK·d values whatever d is.
CHUNK = 256


def _basis_rotated(target: RopeTarget, d: int, rows: np.ndarray, p: int, side: str) -> np.ndarray:
    """R_p e_j as rows, for each j of `rows`, computed in blocks of CHUNK rows."""
    eye = np.eye(d)
    blocks = [
        target.rotate(eye[rows[start : start + CHUNK]], np.full(len(rows[start : start + CHUNK]), p), side)
        for start in range(0, len(rows), CHUNK)
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
    """Read R_p off basis vectors: first every row's partner (its largest off-diagonal entry, in units of
    the entry tolerance, at two positions), then at every position the rows of each pair's first dim and
    one random combination of all the other dims; None when the rows do not pair up."""
    everything = np.arange(d)
    strength = sum(
        np.abs(_basis_rotated(target, d, everything, p, side)) / entry_tolerance(target.dtype, p)
        for p in (1, min(1000, positions[-1]))
    )
    np.fill_diagonal(strength, 0.0)
    pairing = _pairing(np.argmax(strength, axis=1), strength.max(axis=1) > 2)
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
        matrix = _basis_rotated(target, d, j, p, side)
        diagonal.append(matrix[pairs, j])
        along.append(matrix[pairs, k])
        matrix[pairs, j] = matrix[pairs, k] = 0.0
        other.append(np.abs(matrix).max(axis=1))
        mixed.append(target.rotate(coefficients[None], np.array([p]), side)[0])
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


def _deviation(probed: Probed, d: int, base: float, offset: float, scale: float, direction: int) -> float:
    """Largest difference between the probed entries and those of `rope_angles` at these parameters (for
    the combination of the other dims, relative to its largest coefficient)."""
    j, k = _first_of_pairs(probed.layout, probed.r)
    shifted = direction * (np.array(probed.positions, dtype=np.float64) + offset) / scale
    angles = rope_angles(shifted, probed.r, base)
    cos, sin = np.cos(angles), np.sin(angles)
    c = probed.coefficients
    expected = np.broadcast_to(c, probed.mixed.shape).copy()
    expected[:, j], expected[:, k] = -sin * c[k], cos * c[k]
    mixed = np.abs(probed.mixed - expected).max() / np.abs(c).max()
    rows = max(np.abs(probed.diagonal - cos).max(), np.abs(probed.along - sin).max(), probed.other.max())
    return float(max(rows, mixed))


def fit(target: RopeTarget, d: int, settings: Settings, side: str = "q") -> Fitted | None:
    """The RoPE variant one side of the implementation computes at dimension d, or None if its dims do
    not pair up as interleaved or half-split rotations."""
    top = settings.max_pos - 1
    positions = sorted({0, 1, 10, 100, 1000, 10000, top} & set(range(top + 1)))
    tolerance = 2 * entry_tolerance(target.dtype, top)
    probed = probe(target, d, positions, side)
    if probed is None:
        return None
    angles = np.arctan2(probed.along, probed.diagonal)
    theta = _frequencies(angles, positions)
    direction = 1 if theta[0] >= 0 else -1
    theta = np.abs(theta)
    if np.any(theta <= 0):
        return None
    r = probed.r
    if r > 2:
        slope, intercept = np.polyfit(-exponents(r, r // 2), np.log(theta), 1)
        base, scale = math.exp(-slope), math.exp(-intercept)
    else:
        base, scale = settings.base, 1.0 / float(theta[0])
    offset = float(direction * angles[0][0] / theta[0]) * scale
    # The simplest parameters that reproduce the rotations: the declared base, a whole offset, no scale.
    trials = [
        (_deviation(probed, d, b, o, sc, direction), b, o, sc)
        for b in dict.fromkeys((settings.base, base))
        for sc in dict.fromkeys((1.0, scale))
        for o in dict.fromkeys((float(round(offset)), offset))
    ]
    read = (probed.diagonal, probed.along, probed.mixed)
    for precision in (None, *computed_in(read, target.dtype)):
        allowed = tolerance if precision is None else 2 * entry_tolerance(precision, top)
        for deviation, b, o, sc in trials:
            if deviation <= allowed:
                return Fitted(d, probed.layout, r, b, o, sc, direction, deviation, allowed, precision)
    deviation, b, o, sc = min(trials, key=lambda trial: trial[0])
    return Fitted(d, probed.layout, r, b, o, sc, direction, deviation, tolerance)


def _findings(fitted: Fitted, settings: Settings) -> list[Finding]:
    found = [finding(f"{fitted.layout.replace('_', '-')}-layout", f"pairs of dims rotate as {fitted.layout}")]
    if fitted.rotary_dim < fitted.d:
        found.append(finding("partial-rotary", f"{fitted.rotary_dim} of {fitted.d} dims rotate"))
    relative_base = abs(fitted.base / settings.base - 1)
    if relative_base > 1e-6:
        if abs(fitted.base / math.sqrt(settings.base) - 1) <= 1e-6:
            found.append(
                finding(
                    "wrong-exponent",
                    f"θ_i = {settings.base:g}^(−i/d), the base {settings.base:g} "
                    "with the exponent of a dimension index instead of a pair index",
                )
            )
        else:
            found.append(
                finding("wrong-base", f"the angles fit base {short(fitted.base)}, not {settings.base:g}")
            )
    if fitted.offset != 0:
        found.append(finding("position-offset", f"position p is rotated as p + {short(fitted.offset)}"))
    if fitted.scale != 1:
        found.append(finding("scaling-linear", f"positions are divided by {short(fitted.scale)}"))
    if fitted.direction < 0:
        found.append(finding("reversed-rotation", "pairs turn by −p·θ_i"))
    return found


def _collision(target: RopeTarget, d: int, settings: Settings) -> Finding | None:
    """Neighbouring positions whose rotations are identical: positions rounded in a narrow dtype."""
    top = settings.max_pos - 1
    x = np.eye(d)[:1]
    for p, q in (*NARROW, (top - 1, top)):
        if q <= top and np.array_equal(target.rotate(x, np.array([p])), target.rotate(x, np.array([q]))):
            return finding("low-precision", f"positions {p} and {q} rotate alike")
    return None


def identify(target: RopeTarget, settings: Settings) -> tuple[Identification | None, list[Finding]]:
    """The closest reference variant (`fit`) at one dimension of the battery, for q and, with the
    ``apply`` form, for k; findings for its conventions, a q/k mismatch and colliding positions."""
    d = max(settings.ds)
    collision = _collision(target, d, settings)
    found = [collision] if collision else []
    try:
        q = fit(target, d, settings, "q")
    except Broken as broken:
        return None, [*found, finding(broken.label, broken.message)]
    if q is None:
        return Identification("matches no known variant", {"d": d}, math.inf, False), found
    found += _findings(q, settings)
    if q.computed_in is not None:
        detail = (
            f"rope {q.layout}, computed in {q.computed_in}: every entry read is a {q.computed_in} number, "
            f"within {q.computed_in}'s entry tolerance {short(q.tolerance)} of that rotation (deviation "
            f"{short(q.deviation)}), returned as {target.dtype}"
        )
        found.append(finding("low-precision", detail))
    parameters = {"d": d, **q.parameters}
    deviation = q.deviation
    if target.form == "apply":
        try:
            k = fit(target, d, settings, "k")
        except Broken as broken:
            return None, [*found, finding(broken.label, broken.message)]
        if k is None or k.layout != q.layout or k.rotary_dim != q.rotary_dim:
            found.append(
                finding(
                    "mixed-layout",
                    f"queries rotate as {q.layout}, keys as {'no known layout' if k is None else k.layout}",
                )
            )
            parameters["k"] = None if k is None else k.parameters
        elif k.parameters != q.parameters:
            found.append(
                finding("position-offset", f"queries rotate with {q.parameters}, keys with {k.parameters}")
            )
            parameters["k"] = k.parameters
        if k is not None:
            deviation = max(deviation, k.deviation)
    matches = deviation <= q.tolerance
    return Identification(f"rope {q.layout}", parameters, short(deviation), matches), found


def detect(function: Callable, settings: Settings) -> str:
    """The calling convention: the one `--convention` names, else the first `rope_conventions` recognises;
    a ValueError naming them when none does."""
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
    return found.name


def adapt(function: Callable, form: str, backend: Backend, settings: Settings) -> RopeTarget:
    odd = [d for d in settings.ds if d % 2]
    if odd:
        raise ValueError(f"RoPE rotates pairs of dims: d must be even, got {odd[0]}")
    return RopeTarget(function, BY_NAME[form], backend, settings)


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
        ds=(2, 8, 64, 128),
        detect=detect,
    )
)
