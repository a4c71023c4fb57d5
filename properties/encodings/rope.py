"""Rotary position embedding (RoPE): coordinate pairs rotated by the angle p·θ_i, with θ_i = base^(−2i/r).

Two layouts name which coordinates form pair i of the r rotated dimensions:

* ``interleaved`` — (x_{2i}, x_{2i+1}), read as the complex number x_{2i} + i·x_{2i+1} and multiplied by
  e^{i·p·θ_i} (Meta's llama ``apply_rotary_emb``);
* ``half_split`` — (x_i, x_{i+r/2}), computed as x·cos + rotate_half(x)·sin with cos = (cos pθ, cos pθ)
  (GPT-NeoX, Hugging Face ``apply_rotary_pos_emb``).

Partial rotary (GPT-NeoX ``rotary_pct``) rotates the first r = int(d·fraction) dimensions and passes the
rest through.

One object per variant, `Rope(d, base, layout, rotary_fraction)`, declares the parameters and offers every
form the suite needs (the frequencies come from `frequencies.py`):

* `rotate(x, positions)`: float64, x of shape (..., n, d), row j rotated to positions[j] (`apply_rope`);
* `rotate_mp(vector, position, dps)`: one vector with `dps` significant digits (`apply_rope_mp`);
* `angles(positions)`: the float64 angles p·θ_i (`rope_angles`);
* `rotate_exact(x, m, thetas)`: the exact SymPy rotation of a column vector, used by `proofs.rope`.

The property checks below take Rope objects (the implementation under test; rot in their statements is the
object's `rotate`) and return a `CheckResult`; they assume the largest frequency is θ_0 = 1, so no angle
exceeds |position| radians. As for `sinusoidal.Sinusoidal`, a broken twin is a subclass overriding the one
form it breaks, and code that wraps someone else's rotation (e.g. `torch_code.RotaryCacheRope`) is a
subclass whose `rotate` calls it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from ..numerics.checking import CheckResult, angle_tolerance
from ..numerics.validation import require_even_dimension, require_positions, require_positive_int
from .frequencies import frequencies, frequency_mp

LAYOUTS = ("interleaved", "half_split")


def rotary_dimension(d: int, rotary_fraction: float = 1.0) -> int:
    """The number r = int(d·fraction) of rotated dimensions (GPT-NeoX convention); r must be even and ≥ 2."""
    d = require_even_dimension(d)
    if isinstance(rotary_fraction, bool) or not isinstance(rotary_fraction, numbers.Real):
        raise ValueError(f"rotary_fraction must be a real number in (0, 1], got {rotary_fraction!r}")
    if not (math.isfinite(rotary_fraction) and 0 < rotary_fraction <= 1):
        raise ValueError(f"rotary_fraction must be a real number in (0, 1], got {rotary_fraction}")
    r = int(d * rotary_fraction)
    if r < 2 or r % 2:
        raise ValueError(
            f"rotary_fraction={rotary_fraction} with d={d} gives rotary dimension int(d·fraction) = {r}; "
            "it must be even and at least 2 (coordinates are rotated in pairs)"
        )
    return r


def rope_angles(
    positions: Sequence[float] | np.ndarray, rotary_dim: int, base: float = 10000.0
) -> np.ndarray:
    """The angles p·θ_i, θ_i = base^(−2i/r), i = 0, …, r/2 − 1: shape positions.shape + (r/2,), float64."""
    positions = require_positions(positions)
    theta = frequencies(require_even_dimension(rotary_dim, "rotary_dim"), base)
    return positions[..., None] * theta


def rotate_half(x: np.ndarray) -> np.ndarray:
    """(x_1, x_2) ↦ (−x_2, x_1) on the halves of the last axis (multiplication by i, half-split layout)."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rope(
    x: np.ndarray,
    positions: Sequence[float] | np.ndarray,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    rotary_fraction: float = 1.0,
) -> np.ndarray:
    """Rotate each vector x[..., j, :] to position positions[j]: pair i of the first r dims turns by p·θ_i.

    x has shape (..., n, d) and positions shape (n,); the result is float64 of x's shape, and the last d − r
    dimensions are returned unchanged.
    """
    x = _require_vectors(x, "x")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., n, d) with a sequence axis, got shape {x.shape}")
    positions = _require_sequence_positions(positions, x.shape[-2])
    layout = _require_layout(layout)
    r = rotary_dimension(x.shape[-1], rotary_fraction)
    angles = rope_angles(positions, r, base)
    rotate = _rotate_interleaved if layout == "interleaved" else rotate_half_split
    return np.concatenate([rotate(x[..., :r], np.cos(angles), np.sin(angles)), x[..., r:]], axis=-1)


def _rotate_interleaved(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """(a + ib)·(cos + i sin) for a = x_{2i}, b = x_{2i+1}."""
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def rotate_half_split(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """x·(cos, cos) + rotate_half(x)·(sin, sin): pairs (i, i + d/2) turned by the angles whose cos and sin
    are given (one column per pair)."""
    cos2, sin2 = np.concatenate([cos, cos], axis=-1), np.concatenate([sin, sin], axis=-1)
    return x * cos2 + rotate_half(x) * sin2


def layout_permutation(d: int, rotary_dim: int | None = None) -> np.ndarray:
    """The index array `perm` of the permutation P with half_split(x) = Pᵀ·interleaved(P·x).

    (P·x)[j] = x[perm[j]]: perm[2i] = i and perm[2i+1] = i + r/2 for i < r/2, so P moves the half-split pair
    (x_i, x_{i+r/2}) into the interleaved slots (2i, 2i+1); dimensions from r on stay in place.
    As a matrix, P = np.eye(d)[perm], and Pᵀ·y = y[np.argsort(perm)].
    """
    d = require_even_dimension(d)
    r = d if rotary_dim is None else require_even_dimension(rotary_dim, "rotary_dim")
    if r > d:
        raise ValueError(f"rotary_dim must be at most d={d}, got {r}")
    half = np.arange(r // 2)
    return np.concatenate([np.stack([half, half + r // 2], axis=-1).reshape(-1), np.arange(r, d)])


def apply_rope_mp(
    vector: Sequence[object],
    position: object,
    *,
    base: object = 10000,
    layout: str = "interleaved",
    rotary_fraction: float = 1.0,
    dps: int = 50,
) -> list:
    """One vector rotated to `position` with `dps` significant digits (any finite position, e.g. 10**12).

    The inputs are converted exactly (floats are binary fractions); the entries returned are mpmath numbers
    carrying `dps` digits, so compare them inside `mpmath.workdps(dps)`.
    """
    layout = _require_layout(layout)
    dps = require_positive_int(dps, "dps")
    r = rotary_dimension(len(vector), rotary_fraction)
    with mpmath.workdps(dps):
        b = _finite_mp(base, "base")
        if b <= 1:
            raise ValueError(f"base must be a finite real number greater than 1, got {base}")
        p = _finite_mp(position, "position")
        v = [_finite_mp(entry, "vector entries") for entry in vector]
        out = list(v)
        for i in range(r // 2):
            j, k = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + r // 2)
            angle = p * frequency_mp(i, r, b)
            cos, sin = mpmath.cos(angle), mpmath.sin(angle)
            out[j], out[k] = v[j] * cos - v[k] * sin, v[j] * sin + v[k] * cos
    return out


@dataclass(frozen=True)
class Rope:
    """RoPE on d dims: pair i of the first r = int(d·fraction) dims turns by p·θ_i, θ_i = base^(−2i/r).

    `layout` ("interleaved" or "half_split") names which coordinates form pair i; the last d − r dims pass
    through. Every form below is the same map; a subclass overriding one of them is a different one.
    """

    d: int
    base: float = 10000.0
    layout: str = "interleaved"
    rotary_fraction: float = 1.0

    def __post_init__(self) -> None:
        require_even_dimension(self.d)
        _require_layout(self.layout)
        rotary_dimension(self.d, self.rotary_fraction)

    @property
    def rotary_dim(self) -> int:
        """The number r of rotated dimensions."""
        return rotary_dimension(self.d, self.rotary_fraction)

    def angles(self, positions: Sequence[float] | np.ndarray) -> np.ndarray:
        """The float64 angles p·θ_i, i < r/2: shape positions.shape + (r/2,)."""
        return rope_angles(positions, self.rotary_dim, self.base)

    def rotate(self, x: np.ndarray, positions: Sequence[float] | np.ndarray) -> np.ndarray:
        """x[..., j, :] rotated to positions[j] in float64; x's last axis must have length d."""
        if np.ndim(x) >= 1:
            self._require_length(np.shape(x)[-1:], "x")
        return apply_rope(
            x, positions, base=self.base, layout=self.layout, rotary_fraction=self.rotary_fraction
        )

    def rotate_mp(self, vector: Sequence[object], position: object, dps: int = 50) -> list:
        """One vector rotated to `position` with `dps` significant digits (mpmath numbers)."""
        self._require_length((len(vector),), "vector")
        return apply_rope_mp(
            vector,
            position,
            base=self.base,
            layout=self.layout,
            rotary_fraction=self.rotary_fraction,
            dps=dps,
        )

    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        """The exact rotation of the column vector x (length d) to position m, for frequencies θ_0, …,
        θ_{r/2−1} given exactly or as symbols; the last d − r entries are unchanged.

        Interleaved: (a, b) = (x_{2i}, x_{2i+1}) ↦ (a cos mθ_i − b sin mθ_i, a sin mθ_i + b cos mθ_i).
        Half-split: x·cos + rotate_half(x)·sin, cos = cat(cos mθ, cos mθ), sin = cat(sin mθ, sin mθ).
        """
        r = self.rotary_dim
        if x.shape != (self.d, 1) or len(thetas) != r // 2:
            raise ValueError(
                f"RoPE needs a column vector of length d = {self.d} and r/2 = {r // 2} frequencies "
                f"(d/2 frequencies when all d dims rotate); got shape {x.shape} and {len(thetas)} frequencies"
            )
        head, tail = x[:r, :], x[r:, :]
        if self.layout == "interleaved":
            out = sp.zeros(r, 1)
            for i, theta in enumerate(thetas):
                a, b, c, s = head[2 * i], head[2 * i + 1], sp.cos(m * theta), sp.sin(m * theta)
                out[2 * i], out[2 * i + 1] = a * c - b * s, a * s + b * c
        else:
            angles = [m * theta for theta in thetas] * 2
            cos = sp.Matrix([sp.cos(angle) for angle in angles])
            sin = sp.Matrix([sp.sin(angle) for angle in angles])
            half = sp.Matrix.vstack(-head[r // 2 :, :], head[: r // 2, :])
            out = head.multiply_elementwise(cos) + half.multiply_elementwise(sin)
        return sp.Matrix.vstack(out, tail) if tail.rows else out

    def _require_length(self, shape: tuple[int, ...], name: str) -> None:
        if shape != (self.d,):
            raise ValueError(f"{name} must have a last axis of length d = {self.d}, got shape {shape}")


def check_relative_property(
    rope: Rope, q: np.ndarray, k: np.ndarray, positions_q: np.ndarray, positions_k: np.ndarray
) -> CheckResult:
    """⟨rot(q, m), rot(k, n)⟩ = ⟨q, rot(k, n − m)⟩ row by row: the score depends on the offset n − m only."""
    return check_relative_property_qk(rope, rope, q, k, positions_q, positions_k)


def check_relative_property_qk(
    rope_q: Rope,
    rope_k: Rope,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
) -> CheckResult:
    """⟨rot_q(q, m), rot_k(k, n)⟩ = ⟨q, rot_k(k, n − m)⟩ with separate rotations for queries and keys.

    Fails when q and k use different layouts (their rotations no longer combine to one of angle n − m) or when
    the query position is shifted. Tolerance: angle_tolerance(max |m|, |n|, |n − m|) over the 2d products of
    the two scores, times max |q|·max |k|.
    """
    q, k = _require_batch(q, "q"), _require_batch(k, "k")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    m = _require_sequence_positions(positions_q, q.shape[0], "positions_q")
    n = _require_sequence_positions(positions_k, k.shape[0], "positions_k")
    lhs = np.sum(_rotated(rope_q, q, m) * _rotated(rope_k, k, n), axis=-1)
    rhs = np.sum(q * _rotated(rope_k, k, n - m), axis=-1)
    errors = np.abs(lhs - rhs)
    max_angle = _max_abs(m, n, n - m)
    tolerance = angle_tolerance(max_angle, terms=2 * q.shape[1]) * _max_abs(q) * _max_abs(k)
    worst = _worst(errors)
    return _result(
        "relative property ⟨rot(q, m), rot(k, n)⟩ = ⟨q, rot(k, n − m)⟩",
        errors,
        tolerance,
        {
            "row": worst,
            "m": float(m[worst]),
            "n": float(n[worst]),
            "lhs": float(lhs[worst]),
            "rhs": float(rhs[worst]),
        },
    )


def check_norm_preservation(rope: Rope, x: np.ndarray, positions: np.ndarray) -> CheckResult:
    """‖rot(x, p)‖ = ‖x‖ row by row: each pair is turned by an orthogonal 2×2 rotation.

    An error in the angle cannot change a norm, so the tolerance is that of the d rounded terms alone,
    angle_tolerance(0, d), times the largest ‖x‖.
    """
    x = _require_batch(x, "x")
    p = _require_sequence_positions(positions, x.shape[0])
    rotated_norms = np.linalg.norm(_rotated(rope, x, p), axis=-1)
    norms = np.linalg.norm(x, axis=-1)
    errors = np.abs(rotated_norms - norms)
    tolerance = angle_tolerance(0.0, terms=x.shape[1]) * _max_abs(norms)
    worst = _worst(errors)
    return _result(
        "norm preservation ‖rot(x, p)‖ = ‖x‖",
        errors,
        tolerance,
        {
            "row": worst,
            "position": float(p[worst]),
            "norm": float(norms[worst]),
            "rotated_norm": float(rotated_norms[worst]),
        },
    )


def check_composition(
    rope: Rope, x: np.ndarray, positions_first: np.ndarray, positions_then: np.ndarray
) -> CheckResult:
    """rot(rot(x, m), n) = rot(x, m + n) row by row: rotations by p·θ_i form a group in p.

    Tolerance: angle_tolerance(max |m|, |n|, |m + n|) for the 4 terms two successive rotations mix into an
    entry, times max |x|.
    """
    x = _require_batch(x, "x")
    m = _require_sequence_positions(positions_first, x.shape[0], "positions_first")
    n = _require_sequence_positions(positions_then, x.shape[0], "positions_then")
    twice = _rotated(rope, _rotated(rope, x, m), n)
    once = _rotated(rope, x, m + n)
    errors = np.max(np.abs(twice - once), axis=-1)
    tolerance = angle_tolerance(_max_abs(m, n, m + n), terms=4) * _max_abs(x)
    worst = _worst(errors)
    return _result(
        "composition rot(rot(x, m), n) = rot(x, m + n)",
        errors,
        tolerance,
        {"row": worst, "m": float(m[worst]), "n": float(n[worst])},
    )


def check_layout_equivalence(
    half_split: Rope,
    interleaved: Rope,
    x: np.ndarray,
    positions: np.ndarray,
) -> CheckResult:
    """half_split.rotate(x) = Pᵀ·interleaved.rotate(P·x) with P = `layout_permutation(d, r)`, r the rotary
    dimension `half_split` declares.

    Tolerance: angle_tolerance(max |p|) for the 4 terms of the two computations of an entry, times max |x|.
    """
    x = _require_batch(x, "x")
    p = _require_sequence_positions(positions, x.shape[0])
    if half_split.rotary_dim != interleaved.rotary_dim:
        raise ValueError(
            "the two layouts must rotate the same dimensions, got rotary dimensions "
            f"{half_split.rotary_dim} and {interleaved.rotary_dim}"
        )
    perm = layout_permutation(x.shape[1], half_split.rotary_dim)
    direct = _rotated(half_split, x, p)
    via_interleaved = _rotated(interleaved, x[:, perm], p)[:, np.argsort(perm)]
    errors = np.max(np.abs(direct - via_interleaved), axis=-1)
    tolerance = angle_tolerance(_max_abs(p), terms=4) * _max_abs(x)
    worst = _worst(errors)
    return _result(
        "layout equivalence half_split(x) = Pᵀ interleaved(P x)",
        errors,
        tolerance,
        {
            "row": worst,
            "position": float(p[worst]),
            "dimension": int(np.argmax(np.abs(direct[worst] - via_interleaved[worst]))),
        },
    )


def check_layouts_agree_on_random_inputs(
    rope_type: type[Rope],
    cases: Sequence[tuple[int, float]],
    vectors: int = 8,
    max_position: int = 10**6,
    seed: int = 0,
) -> list[CheckResult]:
    """`check_layout_equivalence` of rope_type(d, half-split) against rope_type(d, interleaved) with rotary
    fraction f for each (d, f) of `cases`, on `vectors` Gaussian vectors at positions |p| < `max_position`
    (one seeded generator, drawn case after case)."""
    rng = np.random.default_rng(seed)
    results = []
    for d, fraction in cases:
        x = rng.standard_normal((vectors, d))
        positions = rng.integers(-max_position, max_position, size=vectors)
        half_split = rope_type(d, layout="half_split", rotary_fraction=fraction)
        interleaved = rope_type(d, layout="interleaved", rotary_fraction=fraction)
        results.append(check_layout_equivalence(half_split, interleaved, x, positions))
    return results


def random_queries_and_keys(
    d: int, count: int, max_position: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`count` seeded Gaussian (q, k) ∈ ℝ^d × ℝ^d and query and key positions in [0, max_position)."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((count, d)), rng.standard_normal((count, d))
    m, n = rng.integers(0, max_position, size=count), rng.integers(0, max_position, size=count)
    return q, k, m, n


def check_agreement_with_reference(
    rope: Rope, x: np.ndarray, positions: np.ndarray, dps: int = 50
) -> CheckResult:
    """rope.rotate(x, p) = rope.rotate_mp(x, p, dps) entry by entry: the float64 rotation is the RoPE with the
    base, layout and rotary fraction `rope` declares (its `dps`-digit form; by default `apply_rope_mp`).

    Catches what the relative property cannot see: a wrong base, a flipped rotation sign, a constant position
    shift, or an ignored rotary fraction. Tolerance: angle_tolerance(max |p|) for the 2 terms of an entry,
    times max |x|.
    """
    x = _require_batch(x, "x")
    p = _require_sequence_positions(positions, x.shape[0])
    got = _rotated(rope, x, p)
    expected = np.array(
        [
            [float(e) for e in rope.rotate_mp(row.tolist(), float(pos), dps)]
            for row, pos in zip(x, p, strict=True)
        ],
        dtype=np.float64,
    ).reshape(x.shape)
    difference = np.abs(got - expected)
    errors = np.max(difference, axis=-1)
    tolerance = angle_tolerance(_max_abs(p), terms=2) * _max_abs(x)
    worst = _worst(errors)
    dimension = int(np.argmax(difference[worst]))
    return _result(
        f"agreement with the {dps}-digit reference "
        f"(base={rope.base}, layout={rope.layout}, rotary_fraction={rope.rotary_fraction})",
        errors,
        tolerance,
        {
            "row": worst,
            "position": float(p[worst]),
            "dimension": dimension,
            "got": float(got[worst, dimension]),
            "expected": float(expected[worst, dimension]),
        },
    )


def _require_layout(layout: object) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    return str(layout)


def _require_vectors(x: object, name: str) -> np.ndarray:
    array = np.asarray(x)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    if array.ndim < 1:
        raise ValueError(f"{name} must have a last axis of length d, got a scalar")
    require_even_dimension(array.shape[-1], f"the vector length d of {name}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite; got NaN or infinity")
    return array


def _require_batch(x: object, name: str) -> np.ndarray:
    array = _require_vectors(x, name)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must have shape (n, d) with n ≥ 1 vectors, got shape {array.shape}")
    return array


def _require_sequence_positions(positions: object, n: int, name: str = "positions") -> np.ndarray:
    array = require_positions(positions, name)
    if array.shape != (n,):
        raise ValueError(
            f"{name} must have shape ({n},), one per vector along the sequence axis; got shape {array.shape}"
        )
    return array


def _finite_mp(value: object, name: str) -> mpmath.mpf:
    try:
        number = mpmath.mpf(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be real numbers, got {value!r}") from None
    if not mpmath.isfinite(number):
        raise ValueError(f"{name} must be finite; got {value}")
    return number


def _rotated(rope: Rope, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """rope.rotate(x, positions) as float64, on copies so that a rotation writing into its inputs harms
    nothing."""
    out = np.asarray(rope.rotate(x.copy(), positions.copy()), dtype=np.float64)
    if out.shape != x.shape:
        raise ValueError(f"the rotation must return its input's shape {x.shape}, returned {out.shape}")
    return out


def _max_abs(*arrays: np.ndarray) -> float:
    return max((float(np.max(np.abs(a))) for a in arrays if a.size), default=0.0)


def _worst(errors: np.ndarray) -> int:
    """The row with the largest error, a NaN counting as largest."""
    return int(np.argmax(np.where(np.isnan(errors), np.inf, errors)))


def _result(name: str, errors: np.ndarray, tolerance: float, witness: dict[str, object]) -> CheckResult:
    max_error = float(np.max(errors))
    return CheckResult(name, bool(max_error <= tolerance), max_error, tolerance, witness)
