"""The linear offset PE(p + k) = M_k PE(p) and the norm, dot-product and distance identities that follow.

The reference passes every check over Hypothesis-drawn d (even, up to 1024), bases and positions (up to 10^6
in float64, up to 10^12 in mpmath at 50 digits); each check also fails for a deliberately broken twin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pe_verify.properties.checks.linear_offset import (
    FLOAT64,
    Arithmetic,
    Formula,
    MpmathArithmetic,
    check_distance,
    check_dot_product,
    check_dot_product_even,
    check_dot_product_relative,
    check_norm,
    check_offset_composition,
    check_offset_determinant,
    check_offset_from_origin,
    check_offset_inverse,
    check_offset_orthogonal,
    check_offset_relation,
    distance_formula,
    dot_product_formula,
    offset_matrix,
    offset_matrix_mp,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal
from pe_verify.properties.numerics.checking import CheckResult

MP50 = MpmathArithmetic(dps=50)
#: mpmath runs cost far more than float64 ones; they get a fifth of the profile's examples.
MP_SETTINGS = settings(max_examples=max(10, settings.default.max_examples // 5))


@dataclass(frozen=True)
class Implementation:
    """What the checks are run on: an encoding family (built at the case's d and base), an offset matrix, the
    two formulas, and the arithmetic."""

    family: type[Sinusoidal]
    offset: Callable
    dot: Formula = dot_product_formula
    distance: Formula = distance_formula
    arithmetic: Arithmetic = FLOAT64


@dataclass(frozen=True)
class Case:
    """The inputs of one run of the checks: d, base, positions, and two offsets a and b."""

    d: int
    base: float
    positions: tuple
    a: object
    b: object


REFERENCE = Implementation(Sinusoidal, offset_matrix)
REFERENCE_MP = Implementation(Sinusoidal, partial(offset_matrix_mp, dps=50), arithmetic=MP50)

CHECKS: dict[str, Callable[[Case, Implementation], CheckResult]] = {
    "PE(p + k) = M_k PE(p)": lambda c, i: check_offset_relation(
        i.family(c.d, c.base), i.offset, c.positions, c.a, i.arithmetic
    ),
    "M_k M_kᵀ = I": lambda c, i: check_offset_orthogonal(i.offset, c.a, c.d, c.base, i.arithmetic),
    "det M_k = 1": lambda c, i: check_offset_determinant(i.offset, c.a, c.d, c.base, i.arithmetic),
    "M_a M_b = M_(a+b)": lambda c, i: check_offset_composition(i.offset, c.a, c.b, c.d, c.base, i.arithmetic),
    "M_(−k) = M_kᵀ": lambda c, i: check_offset_inverse(i.offset, c.a, c.d, c.base, i.arithmetic),
    "PE(p) = M_p PE(0)": lambda c, i: check_offset_from_origin(
        i.family(c.d, c.base), i.offset, c.positions, i.arithmetic
    ),
    "‖PE(p)‖² = d/2": lambda c, i: check_norm(i.family(c.d, c.base), c.positions, i.arithmetic),
    "PE(p)·PE(q) = Σ cos((p − q)ω)": lambda c, i: check_dot_product(
        i.family(c.d, c.base), c.positions, i.dot, i.arithmetic
    ),
    "PE(p)·PE(q) depends on p − q only": lambda c, i: check_dot_product_relative(
        i.family(c.d, c.base), c.positions, c.b, i.arithmetic
    ),
    "PE(p)·PE(p + Δ) = PE(p)·PE(p − Δ)": lambda c, i: check_dot_product_even(
        i.family(c.d, c.base), c.positions, [c.a, c.b], i.arithmetic
    ),
    "‖PE(p) − PE(q)‖² = Σ 2(1 − cos((p − q)ω))": lambda c, i: check_distance(
        i.family(c.d, c.base), c.positions, i.distance, i.arithmetic
    ),
}
#: Checks that multiply or factor d×d matrices (O(d³)): Hypothesis draws d ≤ 128 for them, plus d = 1024 once.
DENSE = ("M_k M_kᵀ = I", "det M_k = 1", "M_a M_b = M_(a+b)")
LIGHT = tuple(name for name in CHECKS if name not in DENSE)


def log_uniform(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers in [low, high], each band [2^e, 2^(e+1)) equally likely (small and large sizes alike)."""
    bands = [(max(low, 2**e), min(high, 2 ** (e + 1) - 1)) for e in range(high.bit_length())]
    return st.one_of([st.integers(lo, hi) for lo, hi in bands if lo <= hi])


def _twice(half: int) -> int:
    return 2 * half


def cases(largest_d: int, reach: int) -> st.SearchStrategy[Case]:
    """Even d up to `largest_d`, bases above 1, 1–3 positions and two offsets, all in [−reach, reach]."""
    position = st.integers(-reach, reach) | st.floats(-reach, reach)
    return st.builds(
        Case,
        d=log_uniform(1, largest_d // 2).map(_twice),
        base=st.sampled_from([10000.0, 500000.0]) | st.floats(1.0, 1e6, exclude_min=True),
        positions=st.lists(position, min_size=1, max_size=3).map(tuple),
        a=position,
        b=position,
    )


def assert_holds(result: CheckResult) -> None:
    assert result.holds, result


def assert_all_hold(names: tuple[str, ...], case: Case, implementation: Implementation) -> None:
    failed = [result for result in (CHECKS[name](case, implementation) for name in names) if not result.holds]
    assert not failed, failed


@pytest.mark.slow
@given(case=cases(1024, 10**6))
def test_reference_satisfies_every_identity(case: Case) -> None:
    assert_all_hold(LIGHT, case, REFERENCE)


@pytest.mark.slow
@given(case=cases(128, 10**6))
@example(case=Case(1024, 10000.0, (0,), -(10**6), 999_999))
def test_offset_matrix_is_a_rotation_group(case: Case) -> None:
    assert_all_hold(DENSE, case, REFERENCE)


@pytest.mark.slow
@MP_SETTINGS
@given(case=cases(32, 10**12))
def test_reference_satisfies_every_identity_at_50_digits(case: Case) -> None:
    assert_all_hold(LIGHT, case, REFERENCE_MP)


@MP_SETTINGS
@given(case=cases(8, 10**12))
def test_offset_matrix_is_a_rotation_group_at_50_digits(case: Case) -> None:
    assert_all_hold(DENSE, case, REFERENCE_MP)


# Mutation twins: each breaks one piece of the construction, and the checks named with it must fail.


def sign_flipped(offset: Callable) -> Callable:
    """M_k with the upper-right sin entry of every 2×2 block negated: [[cos, −sin], [−sin, cos]]."""

    def twin(k: object, d: int, base: float) -> np.ndarray:
        m = np.array(offset(k, d, base), dtype=object)
        m[np.arange(0, d, 2), np.arange(1, d, 2)] *= -1
        return m

    return twin


def off_by_one(offset: Callable) -> Callable:
    """M_(k+1) returned for M_k."""
    return lambda k, d, base: offset(k + 1, d, base)


class Rearranged(Sinusoidal):
    """A twin whose rows, in float64 and in mpmath alike, are columns `source()` of a reference encoding."""

    def source(self) -> tuple[Sinusoidal, np.ndarray]:
        raise NotImplementedError

    def float64_rows(self, positions: object) -> np.ndarray:
        reference, columns = self.source()
        return reference.float64_rows(positions)[:, columns]

    def rows_mp(self, positions: object, dps: int = 50) -> np.ndarray:
        reference, columns = self.source()
        return np.asarray(reference.rows_mp(positions, dps), dtype=object)[:, columns]


class SinCosSwapped(Rearranged):
    """Dimension 2i holds cos and 2i + 1 holds sin."""

    def source(self) -> tuple[Sinusoidal, np.ndarray]:
        return Sinusoidal(self.d, self.base), np.arange(self.d) ^ 1


class ExponentHalved(Rearranged):
    """ω_i = base^(−i/d) instead of base^(−2i/d): the first d dimensions of the encoding for 2d."""

    def source(self) -> tuple[Sinusoidal, np.ndarray]:
        return Sinusoidal(2 * self.d, self.base), np.arange(self.d)


class SinOnly(Rearranged):
    """Dimension 2i + 1 repeats sin(pω_i) instead of cos(pω_i)."""

    def source(self) -> tuple[Sinusoidal, np.ndarray]:
        return Sinusoidal(self.d, self.base), np.arange(self.d) & ~1


class ShortRows(Sinusoidal):
    """Rows of d − 1 dims."""

    def float64_rows(self, positions: object) -> np.ndarray:
        return Sinusoidal(self.d - 1, self.base).float64_rows(positions)


def wrong_sign(formula: Formula) -> Formula:
    """The formula evaluated at p + q instead of p − q."""
    return lambda p, q, d, base, arithmetic: formula(p, -q, d, base, arithmetic)


def twin(implementation: Implementation, name: str) -> Implementation:
    """The reference `implementation` broken in the way `name` says."""
    i = implementation
    return {
        "M_k with a sign flipped": replace(i, offset=sign_flipped(i.offset)),
        "M_(k+1) for M_k": replace(i, offset=off_by_one(i.offset)),
        "sin and cos swapped": replace(i, family=SinCosSwapped),
        "exponent i/d for 2i/d": replace(i, family=ExponentHalved),
        "sin in place of cos": replace(i, family=SinOnly),
        "dot formula at p + q": replace(i, dot=wrong_sign(i.dot)),
        "distance formula at p + q": replace(i, distance=wrong_sign(i.distance)),
    }[name]


MUST_FAIL = {
    "M_k with a sign flipped": (
        "PE(p + k) = M_k PE(p)",
        "M_k M_kᵀ = I",
        "det M_k = 1",
        "M_a M_b = M_(a+b)",
        "M_(−k) = M_kᵀ",
        "PE(p) = M_p PE(0)",
    ),
    "M_(k+1) for M_k": ("PE(p + k) = M_k PE(p)", "M_a M_b = M_(a+b)", "M_(−k) = M_kᵀ", "PE(p) = M_p PE(0)"),
    "sin and cos swapped": ("PE(p + k) = M_k PE(p)", "PE(p) = M_p PE(0)"),
    "exponent i/d for 2i/d": (
        "PE(p + k) = M_k PE(p)",
        "PE(p) = M_p PE(0)",
        "PE(p)·PE(q) = Σ cos((p − q)ω)",
        "‖PE(p) − PE(q)‖² = Σ 2(1 − cos((p − q)ω))",
    ),
    "sin in place of cos": (
        "‖PE(p)‖² = d/2",
        "PE(p)·PE(q) = Σ cos((p − q)ω)",
        "PE(p)·PE(q) depends on p − q only",
        "PE(p)·PE(p + Δ) = PE(p)·PE(p − Δ)",
        "‖PE(p) − PE(q)‖² = Σ 2(1 − cos((p − q)ω))",
    ),
    "dot formula at p + q": ("PE(p)·PE(q) = Σ cos((p − q)ω)",),
    "distance formula at p + q": ("‖PE(p) − PE(q)‖² = Σ 2(1 − cos((p − q)ω))",),
}
# d = 8 so that the halved exponent changes a frequency (at d = 2 the only one is ω_0 = 1 either way).
FLOAT_CASE = Case(d=8, base=10000.0, positions=(-7, 0, 3, 1000), a=5, b=-2)
MP_CASE = Case(d=8, base=10000.0, positions=(-(10**12) + 1, 3, 10**12), a=10**12 - 7, b=-3)


def test_every_check_has_a_twin_that_breaks_it() -> None:
    assert {name for names in MUST_FAIL.values() for name in names} == set(CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("twin_name", "check_name"), [(t, c) for t, checks in MUST_FAIL.items() for c in checks]
)
@pytest.mark.parametrize(
    ("reference", "case"), [(REFERENCE, FLOAT_CASE), (REFERENCE_MP, MP_CASE)], ids=["float64", "mpmath-50"]
)
def test_twin_fails_check(twin_name: str, check_name: str, reference: Implementation, case: Case) -> None:
    assert_holds(CHECKS[check_name](case, reference))
    broken = CHECKS[check_name](case, twin(reference, twin_name))
    assert not broken.holds, broken


@pytest.mark.parametrize(
    ("twin_name", "check_name"),
    [
        ("sin and cos swapped", "‖PE(p)‖² = d/2"),
        ("sin and cos swapped", "PE(p)·PE(q) = Σ cos((p − q)ω)"),
        ("sin and cos swapped", "‖PE(p) − PE(q)‖² = Σ 2(1 − cos((p − q)ω))"),
        ("exponent i/d for 2i/d", "PE(p)·PE(q) depends on p − q only"),
        ("M_(k+1) for M_k", "M_k M_kᵀ = I"),
        ("M_(k+1) for M_k", "det M_k = 1"),
    ],
)
def test_blind_spots_a_passing_check_does_not_rule_out(twin_name: str, check_name: str) -> None:
    """These twins are still rotations / still relative, so these checks pass them: only (b) catches them."""
    assert_holds(CHECKS[check_name](FLOAT_CASE, twin(REFERENCE, twin_name)))


@given(case=cases(64, 10**6))
def test_off_by_one_always_fails_the_offset_relation(case: Case) -> None:
    """M_(k+1) PE(p) = PE(p + k + 1): dims 0, 1 are off by a rotation by ω_0 = 1, so by ≥ 2 sin(1/2)/√2."""
    result = CHECKS["PE(p + k) = M_k PE(p)"](case, twin(REFERENCE, "M_(k+1) for M_k"))
    assert not result.holds
    assert result.max_error >= 2 * np.sin(0.5) / np.sqrt(2) - 1e-6


def test_offset_matrix_blocks() -> None:
    k, omega = 3.0, 10000.0**-0.5
    expected = np.array(
        [
            [np.cos(k), np.sin(k), 0, 0],
            [-np.sin(k), np.cos(k), 0, 0],
            [0, 0, np.cos(k * omega), np.sin(k * omega)],
            [0, 0, -np.sin(k * omega), np.cos(k * omega)],
        ]
    )
    np.testing.assert_allclose(offset_matrix(k, 4), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.array(offset_matrix_mp(k, 4), dtype=float), expected, rtol=0, atol=1e-15)


def test_witness_names_where_a_check_fails() -> None:
    result = CHECKS["PE(p + k) = M_k PE(p)"](FLOAT_CASE, twin(REFERENCE, "M_(k+1) for M_k"))
    assert result.witness["p"] in FLOAT_CASE.positions and result.witness["k"] == FLOAT_CASE.a
    assert abs(result.witness["lhs"] - result.witness["rhs"]) == result.max_error
    assert result.witness["arithmetic"] == "float64"


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: offset_matrix(1, 7), "d must be even.*no cos partner"),
        (lambda: offset_matrix_mp(1, 5), "d must be even"),
        (lambda: offset_matrix(1, 0), "d must be a positive integer"),
        (lambda: offset_matrix(float("nan"), 8), "k must be finite"),
        (lambda: offset_matrix([1, 2], 8), "k must be a single number"),
        (lambda: offset_matrix(1, 8, base=1.0), "base must be a finite real number greater than 1"),
        (lambda: offset_matrix_mp("one", 8), "k must be real numbers"),
        (lambda: check_norm(Sinusoidal(9), [1]), "d must be even"),
        (lambda: check_norm(Sinusoidal(8), []), "positions must hold at least one number"),
        (lambda: check_norm(Sinusoidal(8), [np.inf]), "positions must be finite"),
        (lambda: check_norm(ShortRows(8), [1]), r"the encoding has shape \(1, 7\), expected \(1, 8\)"),
        (lambda: check_offset_orthogonal(lambda k, d, b: np.eye(d + 1), 1, 8), "the offset matrix has shape"),
        (lambda: check_norm(Sinusoidal(8), [float("nan")], arithmetic=MP50), "positions must be finite"),
        (lambda: MpmathArithmetic(dps=0), "dps must be a positive integer"),
        (lambda: MpmathArithmetic(dps=10, guard_digits=10), "guard_digits must be below dps"),
    ],
)
def test_bad_input_is_rejected(call: Callable, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
