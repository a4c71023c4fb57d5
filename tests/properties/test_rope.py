"""RoPE reference (both layouts, partial rotary, mpmath path) and its property checks, with mutation twins."""

from __future__ import annotations

from functools import partial

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.encodings.rope import (
    LAYOUTS,
    Rope,
    apply_rope,
    apply_rope_mp,
    check_agreement_with_reference,
    check_composition,
    check_layout_equivalence,
    check_layouts_agree_on_random_inputs,
    check_norm_preservation,
    check_relative_property,
    check_relative_property_qk,
    layout_permutation,
    random_queries_and_keys,
    rope_angles,
    rotary_dimension,
    rotate_half,
)

POSITION = st.integers(-(10**6), 10**6)
FRACTIONS = (1.0, 0.5, 0.25)


@st.composite
def rope_configs(draw: st.DrawFn, max_d: int = 1024) -> dict:
    """Keyword arguments of `apply_rope`, with d even up to `max_d` and int(d·fraction) even."""
    fraction = draw(st.sampled_from(FRACTIONS))
    unit = round(2 / fraction)
    d = unit * draw(st.integers(1, max_d // unit))
    base = draw(st.sampled_from([10000.0, 500000.0, 1e6, 10.0, 2.0]) | st.floats(1.5, 1e7))
    return {"d": d, "base": base, "layout": draw(st.sampled_from(LAYOUTS)), "rotary_fraction": fraction}


def mp_options(config: dict) -> dict:
    """The keyword arguments `apply_rope` and `apply_rope_mp` share: base, layout, rotary_fraction."""
    return {key: config[key] for key in ("base", "layout", "rotary_fraction")}


def rotation(config: dict) -> Rope:
    """The reference RoPE for `config`."""
    return Rope(**config)


def vectors(seed: int, n: int, d: int, scale: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d)) * scale


def positions_lists(n: int, element: st.SearchStrategy = POSITION) -> st.SearchStrategy:
    return st.lists(element, min_size=n, max_size=n).map(np.array)


SEED = st.integers(0, 2**32 - 1)
SCALE = st.floats(1e-3, 1e3)


# ---------------------------------------------------------------- the reference has every property


@given(rope_configs(), SEED, SCALE, st.data())
def test_reference_has_relative_property(config: dict, seed: int, scale: float, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 3))
    q, k = vectors(seed, n, config["d"], scale), vectors(seed + 1, n, config["d"])
    m, p = data.draw(positions_lists(n)), data.draw(positions_lists(n))
    result = check_relative_property(rotation(config), q, k, m, p)
    assert result.holds, result


@given(rope_configs(), SEED, SCALE, st.data())
def test_reference_preserves_norm(config: dict, seed: int, scale: float, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 3))
    result = check_norm_preservation(
        rotation(config), vectors(seed, n, config["d"], scale), data.draw(positions_lists(n))
    )
    assert result.holds, result


@given(rope_configs(), SEED, SCALE, st.data())
def test_reference_composes(config: dict, seed: int, scale: float, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 3))
    x = vectors(seed, n, config["d"], scale)
    m, p = data.draw(positions_lists(n)), data.draw(positions_lists(n))
    result = check_composition(rotation(config), x, m, p)
    assert result.holds, result


@given(rope_configs(), SEED, SCALE, st.data())
def test_reference_layouts_are_permutations_of_each_other(
    config: dict, seed: int, scale: float, data: st.DataObject
) -> None:
    n = data.draw(st.integers(1, 3))
    fraction, d = config["rotary_fraction"], config["d"]
    half_split = Rope(d, config["base"], "half_split", fraction)
    interleaved = Rope(d, config["base"], "interleaved", fraction)
    assert half_split.rotary_dim == rotary_dimension(d, fraction)
    result = check_layout_equivalence(
        half_split, interleaved, vectors(seed, n, d, scale), data.draw(positions_lists(n))
    )
    assert result.holds, result


@pytest.mark.slow
@given(rope_configs(), SEED, SCALE, st.data())
def test_reference_agrees_with_mpmath(config: dict, seed: int, scale: float, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 2))
    position = POSITION | st.floats(-1e6, 1e6, allow_nan=False)
    x = vectors(seed, n, config["d"], scale)
    result = check_agreement_with_reference(rotation(config), x, data.draw(positions_lists(n, position)))
    assert result.holds, result


# ---------------------------------------------------------------- the mpmath path, to positions 10^12

HUGE_POSITION = st.integers(-(10**12), 10**12)


@given(rope_configs(max_d=64), SEED, st.lists(HUGE_POSITION, min_size=1, max_size=2).map(np.array))
def test_float64_agrees_with_mpmath_up_to_1e12(config: dict, seed: int, positions: np.ndarray) -> None:
    """The tolerance grows with the angle (≈ 7·10⁻³ at 10¹²), and float64 still stays inside it."""
    x = vectors(seed, len(positions), config["d"])
    result = check_agreement_with_reference(rotation(config), x, positions)
    assert result.holds, result


@given(rope_configs(max_d=64), SEED, HUGE_POSITION)
def test_mpmath_reference_is_settled_at_50_digits(config: dict, seed: int, position: int) -> None:
    """At 50 and at 80 digits the rotation agrees to 10⁻³⁰: an angle ≤ 10¹² costs at most 13 of the digits."""
    x = vectors(seed, 1, config["d"])[0].tolist()
    at_50 = rotation(config).rotate_mp(x, position, dps=50)
    at_80 = apply_rope_mp(x, position, dps=80, **mp_options(config))
    with mpmath.workdps(80):
        assert max(abs(a - b) for a, b in zip(at_50, at_80, strict=True)) < mpmath.mpf(10) ** -30


@given(rope_configs(max_d=64), SEED, HUGE_POSITION, HUGE_POSITION)
def test_mpmath_relative_property_and_norm_up_to_1e12(config: dict, seed: int, m: int, n: int) -> None:
    q, k = (row.tolist() for row in vectors(seed, 2, config["d"]))
    rot = partial(rotation(config).rotate_mp, dps=50)
    with mpmath.workdps(50):
        lhs = mpmath.fdot(rot(q, m), rot(k, n))
        rhs = mpmath.fdot(q, rot(k, n - m))
        assert abs(lhs - rhs) < mpmath.mpf(10) ** -30
        assert abs(mpmath.norm(rot(q, m)) - mpmath.norm(q)) < mpmath.mpf(10) ** -30


# ---------------------------------------------------------------- conventions


@given(st.integers(1, 64), SEED, positions_lists(3), st.sampled_from([10000.0, 500000.0]))
def test_interleaved_is_complex_multiplication(
    half_d: int, seed: int, positions: np.ndarray, base: float
) -> None:
    """Meta's llama: (x_{2i} + i·x_{2i+1})·e^{i·p·θ_i} with θ_i = base^(−2i/d)."""
    d = 2 * half_d
    x = vectors(seed, 3, d)
    theta = 1.0 / base ** (np.arange(0, d, 2) / d)
    product = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * np.outer(positions, theta))
    expected = np.stack([product.real, product.imag], axis=-1).reshape(3, d)
    tolerance = 64 * np.finfo(np.float64).eps * (1 + np.max(np.abs(positions))) * np.max(np.abs(x))
    assert np.max(np.abs(apply_rope(x, positions, base=base) - expected)) <= tolerance


def test_half_split_rotates_coordinate_i_with_coordinate_i_plus_half() -> None:
    """A quarter turn at θ_0 = 1 maps e_0 to e_{d/2} (half-split) and to e_1 (interleaved)."""
    e0 = np.eye(8)[:1]
    quarter_turn = np.array([np.pi / 2])
    np.testing.assert_allclose(apply_rope(e0, quarter_turn, layout="half_split"), np.eye(8)[4:5], atol=1e-15)
    np.testing.assert_allclose(apply_rope(e0, quarter_turn, layout="interleaved"), np.eye(8)[1:2], atol=1e-15)


def test_rotate_half() -> None:
    np.testing.assert_array_equal(rotate_half(np.array([1.0, 2.0, 3.0, 4.0])), [-3.0, -4.0, 1.0, 2.0])


def test_rope_angles_use_the_rotary_dimension() -> None:
    angles = rope_angles([2.0], 4, base=100.0)
    np.testing.assert_allclose(angles, [[2.0, 2.0 / 10.0]], rtol=1e-15)


@given(rope_configs(), SEED, positions_lists(2))
def test_partial_rotary_rotates_the_leading_dims_only(config: dict, seed: int, positions: np.ndarray) -> None:
    """The first r = int(d·fraction) dims get RoPE of dimension r (θ_i = base^(−2i/r)); the rest are kept."""
    d, fraction = config["d"], config["rotary_fraction"]
    r = rotary_dimension(d, fraction)
    x = vectors(seed, 2, d)
    out = rotation(config).rotate(x, positions)
    np.testing.assert_array_equal(out[:, r:], x[:, r:])
    np.testing.assert_array_equal(
        out[:, :r], apply_rope(x[:, :r], positions, base=config["base"], layout=config["layout"])
    )


def test_leading_axes_are_batch_axes() -> None:
    x = vectors(0, 24, 8).reshape(2, 3, 4, 8)
    positions = np.array([0.0, 1.0, 5.0, -2.0])
    out = apply_rope(x, positions, layout="half_split")
    np.testing.assert_array_equal(out[1, 2], apply_rope(x[1, 2], positions, layout="half_split"))


@pytest.mark.slow
@pytest.mark.parametrize(("d", "rotary_dim"), [(2, None), (8, None), (16, 8), (1024, None), (12, 4)])
def test_layout_permutation_conjugates_the_layouts(d: int, rotary_dim: int | None) -> None:
    perm = layout_permutation(d, rotary_dim)
    assert sorted(perm.tolist()) == list(range(d))
    basis = np.eye(d)
    P = basis[perm]
    positions = np.full(d, 3.0)
    r = d if rotary_dim is None else rotary_dim
    fraction = r / d
    half_split = apply_rope(basis, positions, layout="half_split", rotary_fraction=fraction).T
    interleaved = apply_rope(basis, positions, layout="interleaved", rotary_fraction=fraction).T
    np.testing.assert_allclose(half_split, P.T @ interleaved @ P, atol=1e-14)


def test_layouts_coincide_for_d_2() -> None:
    """With a single pair there is nothing to lay out: mixing the layouts is harmless only here."""
    np.testing.assert_array_equal(layout_permutation(2), [0, 1])
    q, k = vectors(1, 2, 2), vectors(2, 2, 2)
    result = check_relative_property_qk(
        Rope(2, layout="interleaved"),
        Rope(2, layout="half_split"),
        q,
        k,
        np.array([3.0, -8.0]),
        np.array([11.0, 5.0]),
    )
    assert result.holds, result


# ---------------------------------------------------------------- mutation twins: each check must fail

Q, K = vectors(10, 4, 16), vectors(11, 4, 16)
M, N = np.array([3.0, 17.0, -250.0, 1000.0]), np.array([10.0, -4.0, 999.0, 12.0])


class ShiftedByOne(Rope):
    """Rotates to p + 1."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return super().rotate(x, np.asarray(positions) + 1)


class SignFlipped(Rope):
    """Turns every pair the wrong way: by −p·θ_i."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return super().rotate(x, -np.asarray(positions))


class WrongBase(Rope):
    """Declares its base but computes with base 1000."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return Rope(self.d, 1000.0, self.layout, self.rotary_fraction).rotate(x, positions)


class WrittenInPlace(Rope):
    """Overwrites x_{2i} with its rotated value before computing x_{2i+1} from it."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        angles = self.angles(positions)
        out = x.copy()
        out[:, 0::2] = x[:, 0::2] * np.cos(angles) - x[:, 1::2] * np.sin(angles)
        out[:, 1::2] = out[:, 0::2] * np.sin(angles) + x[:, 1::2] * np.cos(angles)
        return out


class IgnoresFraction(Rope):
    """Declares a rotary fraction but rotates every dimension."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return Rope(self.d, self.base, self.layout).rotate(x, positions)


class HalfSplitInside(Rope):
    """Declares its layout but computes the half-split one."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return Rope(self.d, self.base, "half_split", self.rotary_fraction).rotate(x, positions)


class ReturnsNaN(Rope):
    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return np.full_like(x, np.nan)


class Truncates(Rope):
    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return x[:, :8]


def test_twin_mixed_layouts_fails_relative_property() -> None:
    result = check_relative_property_qk(
        Rope(16, layout="interleaved"), Rope(16, layout="half_split"), Q, K, M, N
    )
    assert not result.holds, result


def test_twin_query_off_by_one_fails_relative_property() -> None:
    result = check_relative_property_qk(ShiftedByOne(16), Rope(16), Q, K, M, N)
    assert not result.holds, result


def test_twin_shared_off_by_one_fails_relative_property() -> None:
    result = check_relative_property(ShiftedByOne(16), Q, K, M, N)
    assert not result.holds, result


def test_twin_in_place_update_fails_norm_preservation() -> None:
    result = check_norm_preservation(WrittenInPlace(16), Q, M)
    assert not result.holds, result


def test_twin_off_by_one_fails_composition() -> None:
    result = check_composition(ShiftedByOne(16), Q, M, N)
    assert not result.holds, result


def test_twin_interleaved_posing_as_half_split_fails_layout_equivalence() -> None:
    result = check_layout_equivalence(Rope(16), Rope(16), Q, M)
    assert not result.holds, result


def test_twin_sign_flip_in_one_layout_fails_layout_equivalence() -> None:
    result = check_layout_equivalence(Rope(16, layout="half_split"), SignFlipped(16), Q, M)
    assert not result.holds, result


@pytest.mark.parametrize("twin", [SignFlipped(16), WrongBase(16), ShiftedByOne(16), WrittenInPlace(16)])
def test_twin_fails_agreement_with_reference(twin: Rope) -> None:
    result = check_agreement_with_reference(twin, Q, M)
    assert not result.holds, result


def test_twin_ignored_rotary_fraction_fails_agreement_with_reference() -> None:
    result = check_agreement_with_reference(IgnoresFraction(16, rotary_fraction=0.25), Q, M)
    assert not result.holds, result
    assert "rotary_fraction=0.25" in result.property


def test_twin_half_split_posing_as_interleaved_fails_agreement_with_reference() -> None:
    result = check_agreement_with_reference(HalfSplitInside(16), Q, M)
    assert not result.holds, result


@pytest.mark.parametrize("twin", [SignFlipped(16), WrongBase(16)])
def test_wrong_sign_and_base_keep_the_group_properties(twin: Rope) -> None:
    """Why the agreement check exists: these bugs are still relative, norm-preserving rotations."""
    assert check_relative_property(twin, Q, K, M, N).holds
    assert check_norm_preservation(twin, Q, M).holds
    assert check_composition(twin, Q, M, N).holds
    assert not check_agreement_with_reference(twin, Q, M).holds


def test_a_nan_from_the_rotation_fails_the_check() -> None:
    result = check_norm_preservation(ReturnsNaN(16), Q, M)
    assert not result.holds
    assert np.isnan(result.max_error)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x": np.ones((1, 3))}, "must be even"),
        ({"x": np.ones((1, 0))}, "must be a positive integer, got 0"),
        ({"x": np.ones(4)}, r"shape \(\.\.\., n, d\)"),
        ({"x": np.array([[1.0, np.inf]])}, "x must be finite"),
        ({"x": np.array([[1 + 1j, 0]])}, "real numbers"),
        ({"positions": [np.nan]}, "finite"),
        ({"positions": [0.0, 1.0]}, r"positions must have shape \(1,\)"),
        ({"positions": [[0.0]]}, r"positions must have shape \(1,\)"),
        ({"layout": "neox"}, "interleaved, half_split"),
        ({"base": 1.0}, "greater than 1"),
        ({"rotary_fraction": 0.0}, r"\(0, 1\]"),
        ({"rotary_fraction": 1.5}, r"\(0, 1\]"),
        ({"rotary_fraction": float("nan")}, r"\(0, 1\]"),
        ({"x": np.ones((1, 10)), "rotary_fraction": 0.3}, r"int\(d·fraction\) = 3; it must be even"),
        ({"x": np.ones((1, 10)), "rotary_fraction": 0.1}, r"= 1; it must be even and at least 2"),
    ],
)
def test_apply_rope_rejects_bad_input(kwargs: dict, match: str) -> None:
    arguments = {"x": np.ones((1, 4)), "positions": [0.0]} | kwargs
    x, positions = arguments.pop("x"), arguments.pop("positions")
    with pytest.raises(ValueError, match=match):
        apply_rope(x, positions, **arguments)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (([1.0, 2.0, 3.0], 0), {}, "must be even"),
        (([1.0, float("nan")], 0), {}, "vector entries must be finite"),
        (([1.0, 2.0], float("inf")), {}, "position must be finite"),
        (([1.0, 2.0], "ten"), {}, "position must be real numbers"),
        (([1.0, 2.0], 0), {"base": 0.5}, "greater than 1"),
        (([1.0, 2.0], 0), {"layout": "complex"}, "interleaved, half_split"),
        (([1.0, 2.0], 0), {"dps": 0}, "dps must be a positive integer"),
    ],
)
def test_apply_rope_mp_rejects_bad_input(args: tuple, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        apply_rope_mp(*args, **kwargs)


def test_other_functions_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="rotary_dim must be even"):
        rope_angles([0.0], 5)
    with pytest.raises(ValueError, match="rotary_dim must be at most d=8"):
        layout_permutation(8, 10)
    with pytest.raises(ValueError, match="q and k must have the same shape"):
        check_relative_property(Rope(16), Q, K[:2], M, N)
    with pytest.raises(ValueError, match=r"must return its input's shape \(4, 16\)"):
        check_norm_preservation(Truncates(16), Q, M)
    with pytest.raises(ValueError, match="same dimensions"):
        check_layout_equivalence(Rope(16, layout="half_split", rotary_fraction=0.5), Rope(16), Q, M)
    with pytest.raises(ValueError, match=r"x must have shape \(n, d\) with n ≥ 1"):
        check_norm_preservation(Rope(4), np.ones((0, 4)), [])


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Rope(3), "even"),
        (lambda: Rope(8, layout="diagonal"), "layout must be one of"),
        (lambda: Rope(8, rotary_fraction=0.1), "rotary dimension"),
        (lambda: Rope(8).rotate(np.ones((1, 4)), [0.0]), "length d = 8"),
        (lambda: Rope(8).rotate_mp([1.0] * 4, 0), "length d = 8"),
    ],
)
def test_rope_rejects_bad_parameters(make, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rope_forms_agree(layout: str) -> None:
    """rotate, rotate_mp and rotate_exact (at exact frequencies) are the same map, partial rotary included."""
    import sympy as sp

    rope = Rope(8, base=100.0, layout=layout, rotary_fraction=0.5)
    x, position = vectors(3, 1, 8), 7.0
    thetas = [sp.Integer(1), sp.Rational(1, 10)]
    exact = rope.rotate_exact(sp.Matrix(x[0].tolist()), sp.Integer(7), thetas)
    np.testing.assert_allclose(rope.rotate(x, [position])[0], [float(e) for e in exact], atol=1e-14)
    np.testing.assert_allclose(
        [float(e) for e in rope.rotate_mp(x[0].tolist(), position)], [float(e) for e in exact], atol=1e-14
    )


# ------------------------------------------------------------------ layouts on seeded inputs

LAYOUT_CASES = ((8, 1.0), (64, 1.0), (64, 0.5), (128, 0.25))


class HalfSplitBackwards(Rope):
    """The half-split layout turns its pairs by −p·θ_i."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        sign = -1 if self.layout == "half_split" else 1
        return super().rotate(x, sign * np.asarray(positions))


def test_the_layouts_agree_on_seeded_inputs() -> None:
    results = check_layouts_agree_on_random_inputs(Rope, LAYOUT_CASES)
    assert len(results) == len(LAYOUT_CASES) and all(results), results
    assert results == check_layouts_agree_on_random_inputs(Rope, LAYOUT_CASES)


def test_a_half_split_turning_backwards_disagrees_on_seeded_inputs() -> None:
    results = check_layouts_agree_on_random_inputs(HalfSplitBackwards, LAYOUT_CASES)
    assert not any(results)


def test_random_queries_and_keys_are_seeded_and_in_range() -> None:
    q, k, m, n = random_queries_and_keys(16, 5, 100, seed=3)
    assert q.shape == k.shape == (5, 16) and m.shape == n.shape == (5,)
    assert min(m.min(), n.min()) >= 0 and max(m.max(), n.max()) < 100
    again = random_queries_and_keys(16, 5, 100, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((q, k, m, n), again, strict=True))
    interleaved, half = Rope(16), Rope(16, layout="half_split")
    assert check_relative_property_qk(half, half, q, k, m, n)
    assert not check_relative_property_qk(interleaved, half, q, k, m, n)
