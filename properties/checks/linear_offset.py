"""Linear offset: PE(p + k) = M_k PE(p), with M_k block-diagonal rotations by k·ω_i, and what follows from it.

Every pair (sin pω_i, cos pω_i) moves to (sin (p + k)ω_i, cos (p + k)ω_i) by the rotation
[[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]] (the addition formulas), so ‖PE(p)‖² = d/2,
PE(p)·PE(q) = Σ_i cos((p − q)ω_i) and ‖PE(p) − PE(q)‖² = Σ_i 2(1 − cos((p − q)ω_i)).

Each check takes the encoding as a `sinusoidal.Sinusoidal` (its d and base declare the setting; a broken
twin overrides a form) and the offset matrix, or the formula, as a callable, so it can be run on any
implementation; the right-hand sides use the declared frequencies ω_i = base^(−2i/d). A check runs in
float64 (`FLOAT64`, reading the encoding's `float64_rows`) or in mpmath at a stated number of digits
(`MpmathArithmetic(dps)`, reading `rows_mp(positions, dps)`), and its tolerance grows with the largest angle
involved and the number of summed terms.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from ..encodings.frequencies import frequencies, frequency_count, frequency_mp
from ..encodings.sinusoidal import Sinusoidal
from ..numerics.checking import CheckResult, angle_tolerance
from ..numerics.validation import require_base, require_positions, require_positive_int

OffsetMatrix = Callable[[Any, int, float], Any]


@dataclass(frozen=True)
class Float64Arithmetic:
    """Checks computed in float64; the tolerance is `angle_tolerance(largest angle, summed terms)`."""

    def workspace(self) -> contextlib.AbstractContextManager:
        """The context the check's arithmetic runs in (nothing to set for float64)."""
        return contextlib.nullcontext()

    def describe(self) -> str:
        """The arithmetic, as reported in a check's witness."""
        return "float64"

    def positions(self, values: object, name: str = "positions") -> np.ndarray:
        """Finite positions as a flat float64 array (|p| ≤ 2**53), at least one."""
        return _require_some(require_positions(values, name).reshape(-1), name)

    def number(self, value: object, name: str) -> float:
        """One finite real number (an offset)."""
        array = require_positions(value, name)
        if array.ndim:
            raise ValueError(f"{name} must be a single number, got an array of shape {array.shape}")
        return float(array)

    def array(self, rows: object, shape: tuple[int, ...], what: str) -> np.ndarray:
        """`rows` as a float64 array of the expected shape."""
        return _require_shape(np.asarray(rows, dtype=np.float64), shape, what)

    def frequencies(self, d: int, base: float) -> np.ndarray:
        """The declared frequencies ω_i = base^(−2i/d)."""
        return frequencies(d, base)

    def rows(self, encoding: Sinusoidal, positions: np.ndarray) -> Any:
        """The encoding's rows at `positions`, in this arithmetic (its `float64_rows`)."""
        return encoding.float64_rows(positions)

    def cos(self, angles: np.ndarray) -> np.ndarray:
        """cos of every entry."""
        return np.cos(angles)

    def sin(self, angles: np.ndarray) -> np.ndarray:
        """sin of every entry."""
        return np.sin(angles)

    def determinant(self, matrix: np.ndarray) -> float:
        """det of a square matrix (through its LU factors' log-magnitudes, which cannot overflow)."""
        sign, log_abs = np.linalg.slogdet(matrix)
        return float(sign * np.exp(log_abs))

    def tolerance(self, max_angle: float, terms: int) -> float:
        """Float64 error allowed for sums of `terms` products of sin/cos of angles up to `max_angle`."""
        return angle_tolerance(max_angle, terms)


@dataclass(frozen=True)
class MpmathArithmetic:
    """Checks computed with mpmath at `dps` significant digits, for positions far beyond float64's reach.

    An angle θ held to dps digits is off by about 10^(−dps)·|θ|, so log10(2|θ| + 1) of the dps digits
    are lost to the size of the angle (12 of 50 at |θ| = 10^12); `guard_digits` more are given to the
    arithmetic around it. The tolerance is 10^(guard_digits − dps)·(2|θ| + 1)·terms.

    Same methods as `Float64Arithmetic`; the positions a check passes to the encoding are mpf numbers.
    """

    dps: int = 50
    guard_digits: int = 3

    def __post_init__(self) -> None:
        require_positive_int(self.dps, "dps")
        require_positive_int(self.guard_digits, "guard_digits")
        if self.guard_digits >= self.dps:
            raise ValueError(f"guard_digits must be below dps, got {self.guard_digits} and dps = {self.dps}")

    def workspace(self) -> contextlib.AbstractContextManager:
        return mpmath.workdps(self.dps)

    def describe(self) -> str:
        return f"mpmath, {self.dps} digits"

    def positions(self, values: object, name: str = "positions") -> np.ndarray:
        """Finite real positions as a flat array of mpf (any magnitude), at least one."""
        flat = np.asarray(values, dtype=object).reshape(-1)
        return _require_some(np.array([self.number(value, name) for value in flat], dtype=object), name)

    def number(self, value: object, name: str) -> mpmath.mpf:
        if isinstance(value, bool) or not isinstance(value, numbers.Real | mpmath.mpf):
            raise ValueError(f"{name} must be real numbers, got {value!r}")
        number = mpmath.mpf(value)
        if not mpmath.isfinite(number):
            raise ValueError(f"{name} must be finite; got NaN or infinity")
        return number

    def array(self, rows: object, shape: tuple[int, ...], what: str) -> np.ndarray:
        """`rows` as an array of mpf of the expected shape."""
        array = _require_shape(np.asarray(rows, dtype=object), shape, what)
        return np.vectorize(mpmath.mpf, otypes=[object])(array) if array.size else array

    def frequencies(self, d: int, base: float) -> np.ndarray:
        b = mpmath.mpf(base)
        return np.array([frequency_mp(i, d, b) for i in range(frequency_count(d))], dtype=object)

    def rows(self, encoding: Sinusoidal, positions: np.ndarray) -> Any:
        """The encoding's rows at `positions`, in this arithmetic (its `rows_mp` at `dps` digits)."""
        return encoding.rows_mp(positions, self.dps)

    def cos(self, angles: np.ndarray) -> np.ndarray:
        return np.vectorize(mpmath.cos, otypes=[object])(angles)

    def sin(self, angles: np.ndarray) -> np.ndarray:
        return np.vectorize(mpmath.sin, otypes=[object])(angles)

    def determinant(self, matrix: np.ndarray) -> mpmath.mpf:
        return mpmath.det(mpmath.matrix(matrix.tolist()))

    def tolerance(self, max_angle: float, terms: int) -> float:
        return 10.0 ** (self.guard_digits - self.dps) * (2.0 * abs(float(max_angle)) + 1.0) * max(terms, 1)


Arithmetic = Float64Arithmetic | MpmathArithmetic
Formula = Callable[[Any, Any, int, float, Arithmetic], Any]

#: float64 arithmetic, the default of every check.
FLOAT64 = Float64Arithmetic()


def offset_matrix(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """M_k in float64: d×d, block-diagonal, with 2×2 blocks [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]].

    Acting on the pairs (sin pω_i, cos pω_i), it gives PE(p + k) = M_k PE(p) for every p (even d only).
    """
    return _offset_matrix(k, d, base, FLOAT64)


def offset_matrix_mp(k: object, d: int, base: float = 10000, dps: int = 50) -> list[list]:
    """M_k as rows of mpmath numbers computed with `dps` significant digits (any finite offset k)."""
    arithmetic = MpmathArithmetic(dps)
    with arithmetic.workspace():
        return _offset_matrix(k, d, base, arithmetic).tolist()


def _offset_matrix(k: object, d: int, base: float, arithmetic: Arithmetic) -> np.ndarray:
    d, base = _require_sin_cos_pairs(d), require_base(base)
    angles = arithmetic.number(k, "k") * arithmetic.frequencies(d, base)
    cos, sin = arithmetic.cos(angles), arithmetic.sin(angles)
    matrix = arithmetic.array(np.zeros((d, d)), (d, d), "M_k")
    sin_dims = np.arange(0, d, 2)
    matrix[sin_dims, sin_dims] = cos
    matrix[sin_dims, sin_dims + 1] = sin
    matrix[sin_dims + 1, sin_dims] = -sin
    matrix[sin_dims + 1, sin_dims + 1] = cos
    return matrix


def dot_product_formula(p: object, q: object, d: int, base: float, arithmetic: Arithmetic = FLOAT64) -> Any:
    """Σ_i cos((p − q)ω_i) over the d/2 declared frequencies: what PE(p)·PE(q) equals for even d."""
    with arithmetic.workspace():
        return arithmetic.cos((p - q) * arithmetic.frequencies(d, base)).sum()


def distance_formula(p: object, q: object, d: int, base: float, arithmetic: Arithmetic = FLOAT64) -> Any:
    """Σ_i 2(1 − cos((p − q)ω_i)) over the d/2 declared frequencies: ‖PE(p) − PE(q)‖² for even d."""
    with arithmetic.workspace():
        return (2 * (1 - arithmetic.cos((p - q) * arithmetic.frequencies(d, base)))).sum()


def check_offset_relation(
    encoding: Sinusoidal,
    offset: OffsetMatrix,
    positions: Iterable[float],
    k: float,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) PE(p + k) = M_k PE(p) for every p in `positions`: one matrix, the same for all p, moves p by k."""
    with _encoding_setting(encoding, arithmetic) as case:
        ps, k = arithmetic.positions(positions), arithmetic.number(k, "k")
        moved = (case.offset(offset, k) @ case.encode(encoding, ps).T).T
        return case.verdict(
            "PE(p + k) = M_k PE(p)",
            case.encode(encoding, ps + k),
            moved,
            case.tolerance(case.d + 1, ps, ps + k, [k]),
            lambda i: {"p": ps[i[0]], "k": k, "dim": i[1]},
        )


def check_offset_orthogonal(
    offset: OffsetMatrix,
    k: float,
    d: int,
    base: float = 10000.0,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) M_k M_kᵀ = I: the offset matrix is orthogonal, so moving positions keeps lengths and angles."""
    with _setting(d, base, arithmetic) as case:
        k = arithmetic.number(k, "k")
        m = case.offset(offset, k)
        return case.verdict(
            "M_k M_kᵀ = I",
            m @ m.T,
            np.eye(case.d),
            case.tolerance(case.d, [k]),
            lambda i: {"k": k, "row": i[0], "column": i[1]},
        )


def check_offset_determinant(
    offset: OffsetMatrix,
    k: float,
    d: int,
    base: float = 10000.0,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) det M_k = 1: the offset matrix is a rotation (orthogonal, and no reflection)."""
    with _setting(d, base, arithmetic) as case:
        k = arithmetic.number(k, "k")
        return case.verdict(
            "det M_k = 1",
            arithmetic.determinant(case.offset(offset, k)),
            1,
            case.tolerance(case.d, [k]),
            lambda i: {"k": k},
        )


def check_offset_composition(
    offset: OffsetMatrix,
    a: float,
    b: float,
    d: int,
    base: float = 10000.0,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) M_a M_b = M_(a+b): moving by b and then by a is moving by a + b."""
    with _setting(d, base, arithmetic) as case:
        a, b = arithmetic.number(a, "a"), arithmetic.number(b, "b")
        product = case.offset(offset, a) @ case.offset(offset, b)
        return case.verdict(
            "M_a M_b = M_(a+b)",
            product,
            case.offset(offset, a + b),
            case.tolerance(case.d + 1, [a, b, a + b]),
            lambda i: {"a": a, "b": b, "row": i[0], "column": i[1]},
        )


def check_offset_inverse(
    offset: OffsetMatrix,
    k: float,
    d: int,
    base: float = 10000.0,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) M_(−k) = M_kᵀ: moving back by k undoes moving forward by k, and that inverse is the transpose."""
    with _setting(d, base, arithmetic) as case:
        k = arithmetic.number(k, "k")
        return case.verdict(
            "M_(−k) = M_kᵀ",
            case.offset(offset, -k),
            case.offset(offset, k).T,
            case.tolerance(2, [k]),
            lambda i: {"k": k, "row": i[0], "column": i[1]},
        )


def check_offset_from_origin(
    encoding: Sinusoidal,
    offset: OffsetMatrix,
    positions: Iterable[float],
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(b) PE(p) = M_p PE(0): every position's encoding is the origin's, moved by p."""
    with _encoding_setting(encoding, arithmetic) as case:
        ps = arithmetic.positions(positions)
        origin = case.encode(encoding, arithmetic.positions([0]))[0]
        moved = np.array([case.offset(offset, p) @ origin for p in ps]).reshape(len(ps), case.d)
        return case.verdict(
            "PE(p) = M_p PE(0)",
            case.encode(encoding, ps),
            moved,
            case.tolerance(case.d + 1, ps),
            lambda i: {"p": ps[i[0]], "dim": i[1]},
        )


def check_norm(
    encoding: Sinusoidal,
    positions: Iterable[float],
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(c) ‖PE(p)‖² = d/2 for every p: each (sin, cos) pair contributes sin² + cos² = 1."""
    with _encoding_setting(encoding, arithmetic) as case:
        ps = arithmetic.positions(positions)
        rows = case.encode(encoding, ps)
        return case.verdict(
            "‖PE(p)‖² = d/2",
            (rows * rows).sum(axis=1),
            np.full(len(ps), case.d // 2),
            case.tolerance(case.d, ps),
            lambda i: {"p": ps[i[0]]},
        )


def check_dot_product(
    encoding: Sinusoidal,
    positions: Iterable[float],
    formula: Formula = dot_product_formula,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(d) PE(p)·PE(q) = Σ_i cos((p − q)ω_i) for every pair of `positions`, with the declared ω_i."""
    with _encoding_setting(encoding, arithmetic) as case:
        ps = arithmetic.positions(positions)
        rows = case.encode(encoding, ps)
        return case.verdict(
            "PE(p)·PE(q) = Σ_i cos((p − q)ω_i)",
            rows @ rows.T,
            case.pairwise(formula, ps),
            case.tolerance(case.d, ps, _differences(ps)),
            lambda i: {"p": ps[i[0]], "q": ps[i[1]]},
        )


def check_dot_product_relative(
    encoding: Sinusoidal,
    positions: Iterable[float],
    shift: float,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(d) PE(p + s)·PE(q + s) = PE(p)·PE(q): the dot product depends on p − q only."""
    with _encoding_setting(encoding, arithmetic) as case:
        ps, s = arithmetic.positions(positions), arithmetic.number(shift, "shift")
        rows, shifted = case.encode(encoding, ps), case.encode(encoding, ps + s)
        return case.verdict(
            "PE(p + s)·PE(q + s) = PE(p)·PE(q)",
            shifted @ shifted.T,
            rows @ rows.T,
            case.tolerance(2 * case.d, ps, ps + s),
            lambda i: {"p": ps[i[0]], "q": ps[i[1]], "shift": s},
        )


def check_dot_product_even(
    encoding: Sinusoidal,
    positions: Iterable[float],
    offsets: Iterable[float],
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(d) PE(p)·PE(p + Δ) = PE(p)·PE(p − Δ): the dot product cannot tell the token after from the one before.

    Evenness of a function of p − q alone, checked at a fixed anchor p (PE(p)·PE(q) = PE(q)·PE(p) is trivial).
    """
    with _encoding_setting(encoding, arithmetic) as case:
        ps, deltas = arithmetic.positions(positions), arithmetic.positions(offsets, "offsets")
        rows = case.encode(encoding, ps)
        pairs = list(zip(rows, ps, strict=True))
        after = np.array([row @ case.encode(encoding, p + deltas).T for row, p in pairs])
        before = np.array([row @ case.encode(encoding, p - deltas).T for row, p in pairs])
        reach = [abs(p) + abs(delta) for p in ps for delta in deltas]
        return case.verdict(
            "PE(p)·PE(p + Δ) = PE(p)·PE(p − Δ)",
            after,
            before,
            case.tolerance(2 * case.d, reach),
            lambda i: {"p": ps[i[0]], "delta": deltas[i[1]]},
        )


def check_distance(
    encoding: Sinusoidal,
    positions: Iterable[float],
    formula: Formula = distance_formula,
    arithmetic: Arithmetic = FLOAT64,
) -> CheckResult:
    """(e) ‖PE(p) − PE(q)‖² = Σ_i 2(1 − cos((p − q)ω_i)) for every pair of `positions`, with the declared ω_i.

    The tolerance counts 2d terms: squaring a difference a − b (|a − b| ≤ 2) multiplies its error by up to 4.
    """
    with _encoding_setting(encoding, arithmetic) as case:
        ps = arithmetic.positions(positions)
        rows = case.encode(encoding, ps)
        differences = rows[:, None, :] - rows[None, :, :]
        return case.verdict(
            "‖PE(p) − PE(q)‖² = Σ_i 2(1 − cos((p − q)ω_i))",
            (differences * differences).sum(axis=2),
            case.pairwise(formula, ps),
            case.tolerance(2 * case.d, ps, _differences(ps)),
            lambda i: {"p": ps[i[0]], "q": ps[i[1]]},
        )


@dataclass(frozen=True)
class _Setting:
    """The validated d and base of one check, and the arithmetic it runs in."""

    d: int
    base: float
    arithmetic: Arithmetic

    def encode(self, encoding: Sinusoidal, positions: np.ndarray) -> np.ndarray:
        rows = self.arithmetic.rows(encoding, positions)
        return self.arithmetic.array(rows, (len(positions), self.d), "the encoding")

    def offset(self, offset: OffsetMatrix, k: object) -> np.ndarray:
        return self.arithmetic.array(offset(k, self.d, self.base), (self.d, self.d), "the offset matrix")

    def pairwise(self, formula: Formula, ps: np.ndarray) -> np.ndarray:
        values = [[formula(p, q, self.d, self.base, self.arithmetic) for q in ps] for p in ps]
        return self.arithmetic.array(values, (len(ps), len(ps)), "the formula's values")

    def tolerance(self, terms: int, *positions: Iterable[object]) -> float:
        """The arithmetic's tolerance for `terms` summed terms at the largest angle |p|·ω over `positions`.

        The largest declared frequency is ω_0 = base⁰ = 1, so the largest angle is the largest |p|.
        """
        largest = max((abs(float(p)) for group in positions for p in group), default=0.0)
        return self.arithmetic.tolerance(largest, terms)

    def verdict(
        self,
        name: str,
        lhs: Any,
        rhs: Any,
        tolerance: float,
        locate: Callable[[tuple[int, ...]], dict[str, object]],
    ) -> CheckResult:
        """Compare lhs and rhs entrywise; the witness is the entry where they differ most, with its values."""
        lhs, rhs = np.broadcast_arrays(np.atleast_1d(np.asarray(lhs)), np.atleast_1d(np.asarray(rhs)))
        errors = np.abs(lhs - rhs)
        index = np.unravel_index(int(np.argmax(errors)), errors.shape)
        max_error = float(errors[index])
        found = {**locate(tuple(int(i) for i in index)), "lhs": lhs[index], "rhs": rhs[index]}
        witness = {
            **{key: _plain(value) for key, value in found.items()},
            "d": self.d,
            "base": self.base,
            "arithmetic": self.arithmetic.describe(),
        }
        return CheckResult(name, bool(max_error <= tolerance), max_error, tolerance, witness)


@contextlib.contextmanager
def _setting(d: object, base: object, arithmetic: Arithmetic) -> Iterator[_Setting]:
    """Validate d (even) and base, and run the check inside the arithmetic's workspace."""
    setting = _Setting(_require_sin_cos_pairs(d), require_base(base), arithmetic)
    with arithmetic.workspace():
        yield setting


def _encoding_setting(
    encoding: Sinusoidal, arithmetic: Arithmetic
) -> contextlib.AbstractContextManager[_Setting]:
    """The setting the encoding declares: its d (even) and base."""
    base = float(encoding.base) if isinstance(encoding.base, str) else encoding.base
    return _setting(encoding.d, base, arithmetic)


def _require_sin_cos_pairs(d: object) -> int:
    d = require_positive_int(d, "d")
    if d % 2:
        raise ValueError(
            f"d must be even, got {d}: these identities pair dimension 2i (sin) with 2i + 1 (cos), and with "
            "odd d the last sin dimension has no cos partner, so PE(p + k) is not a rotation of PE(p)"
        )
    return d


def _require_shape(array: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    if array.shape != shape:
        raise ValueError(f"{what} has shape {array.shape}, expected {shape}")
    return array


def _require_some(values: np.ndarray, name: str) -> np.ndarray:
    if not values.size:
        raise ValueError(f"{name} must hold at least one number, got none")
    return values


def _differences(ps: np.ndarray) -> np.ndarray:
    return (ps[:, None] - ps[None, :]).reshape(-1)


def _plain(value: object) -> object:
    """A numpy scalar as the Python number it holds (mpf and Python numbers unchanged)."""
    return value.item() if isinstance(value, np.generic) else value
