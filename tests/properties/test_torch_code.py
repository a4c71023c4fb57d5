"""The numpy re-expressions of the common PyTorch modules: against the reference encodings, torch's shape
rules, and mutation twins that must fail the same comparisons."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from pe_verify.properties.analyses.finite_precision import common_code_encoding
from pe_verify.properties.battery.torch_code import (
    BroadcastMismatch,
    RotaryCache,
    SinusoidalTable,
    SliceAssignmentMismatch,
    assign,
    broadcast_outcome,
    broadcast_shape,
    dropout_can_leave_unchanged,
    rotate_half,
    shape_error,
    training_dropout_outcomes,
)
from pe_verify.properties.encodings.rope import (
    apply_rope,
    check_agreement_with_reference,
    check_relative_property,
)
from pe_verify.properties.encodings.sinusoidal import sinusoidal_encoding
from pe_verify.properties.numerics.checking import angle_tolerance

EPS32 = float(np.finfo(np.float32).eps)


def _twice(half: int) -> int:
    return 2 * half


def _twice_plus_one(half: int) -> int:
    return 2 * half + 1


EVEN_D = st.integers(1, 64).map(_twice)
ODD_D = st.integers(1, 64).map(_twice_plus_one)
BASES = st.sampled_from([10000.0, 500000.0, 10.0, 2.0])
SHAPES = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=4).map(tuple)


def float32_bound(max_angle: float, base: float) -> float:
    return 2 * EPS32 * ((2 + np.log(base)) * max_angle + 1)


class SwappedTable(SinusoidalTable):
    """Mutation: cos in the even columns and sin in the odd ones."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        even, odd = self.pe[..., 0::2].copy(), self.pe[..., 1::2].copy()
        self.pe[..., 0::2], self.pe[..., 1::2] = odd, even


class BackwardsCache(RotaryCache):
    """Mutation: rotates by −θ (q·cos − rotate_half(q)·sin)."""

    @staticmethod
    def _embed(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        return x * cos - rotate_half(x) * sin


# ------------------------------------------------------------------------------------------ sinusoidal


@given(EVEN_D, st.integers(1, 400), BASES)
def test_float64_table_is_the_reference_encoding(d: int, max_len: int, base: float) -> None:
    table = SinusoidalTable(d, max_len, base, dtype=np.float64).pe
    assert table.shape == (1, max_len, d) and table.dtype == np.float64
    reference = sinusoidal_encoding(np.arange(max_len), d, base)
    assert np.max(np.abs(table[0] - reference)) <= angle_tolerance(max_len - 1, 1, base=base)


@given(EVEN_D, st.integers(1, 400), BASES)
def test_float32_table_is_within_float32_rounding_of_the_reference(d: int, max_len: int, base: float) -> None:
    table = SinusoidalTable(d, max_len, base).pe
    assert table.dtype == np.float32
    reference = sinusoidal_encoding(np.arange(max_len), d, base)
    assert np.max(np.abs(table[0] - reference)) <= float32_bound(max_len - 1, base)


@given(EVEN_D, st.integers(1, 300))
def test_float32_table_equals_the_common_code_encoding_bit_for_bit(d: int, max_len: int) -> None:
    rows = common_code_encoding(d, "float32").stored_rows(np.arange(max_len, dtype=np.int64))
    assert np.array_equal(SinusoidalTable(d, max_len).pe[0], rows)


@pytest.mark.slow
@given(EVEN_D, st.integers(2, 300))
def test_swapped_layout_twin_fails_the_reference_comparison(d: int, max_len: int) -> None:
    table = SwappedTable(d, max_len, dtype=np.float64).pe[0]
    reference = sinusoidal_encoding(np.arange(max_len), d)
    assert np.max(np.abs(table - reference)) > 0.5


@given(ODD_D, st.integers(1, 50))
def test_odd_d_model_fails_where_torch_fails(d: int, max_len: int) -> None:
    with pytest.raises(SliceAssignmentMismatch) as caught:
        SinusoidalTable(d, max_len)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.target_shape == (max_len, d // 2) and error.value_shape == (max_len, d // 2 + 1)
    assert f"must match the existing size ({d // 2 + 1})" in str(error) and "even d_model" in str(error)


def test_d_model_one_builds_a_sine_column_in_torch_and_here() -> None:
    table = SinusoidalTable(1, 6)
    assert table.pe.shape == (1, 6, 1)
    with mpmath.workprec(24):  # float32's 24-bit significand: sin p rounded once, as correct rounding does
        expected = np.array([float(mpmath.sin(p)) for p in range(6)], dtype=np.float32)
    assert np.array_equal(table.pe[0, :, 0], expected)


def test_forward_adds_the_first_rows_and_keeps_the_shape() -> None:
    table = SinusoidalTable(8, 20)
    out = table.forward(np.zeros((3, 5, 8), dtype=np.float32))
    assert out.shape == (3, 5, 8) and out.dtype == np.float32
    assert np.array_equal(out, np.broadcast_to(table.pe[:, :5], (3, 5, 8)))


def test_forward_beyond_max_len_is_a_broadcast_error() -> None:
    with pytest.raises(BroadcastMismatch, match=r"a \(21\) .* b \(20\) at non-singleton dimension 1"):
        SinusoidalTable(8, 20).forward(np.zeros((1, 21, 8)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0,), "d_model must be a positive integer"),
        ((8, 0), "max_len must be a positive integer"),
        ((8, 10, 1.0), "base must be a finite real number greater than 1"),
        ((8, 10, 10000.0, np.int32), "dtype must be np.float32 or np.float64"),
    ],
)
def test_table_rejects_bad_input(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SinusoidalTable(*args)


# ------------------------------------------------------------------------------------------ shape rules


@given(SHAPES, SHAPES)
def test_broadcast_shape_agrees_with_numpy(a: tuple, b: tuple) -> None:
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        with pytest.raises(BroadcastMismatch):
            broadcast_shape(a, b)
    else:
        assert broadcast_shape(a, b) == expected


Assign = Callable[[np.ndarray, tuple, np.ndarray], None]


def agrees_with_numpy(assign_fn: Assign, target: tuple, values: tuple) -> bool:
    """Whether assign_fn(zeros(target), (...,), v) raises `SliceAssignmentMismatch` exactly when numpy's
    ``zeros(target)[...] = v`` fails, and otherwise leaves the array numpy leaves."""
    mine, theirs = np.zeros(target), np.zeros(target)
    source = np.arange(int(np.prod(values)), dtype=float).reshape(values)
    try:
        theirs[...] = source
    except ValueError:
        numpy_accepts = False
    else:
        numpy_accepts = True
    try:
        assign_fn(mine, (Ellipsis,), source)
    except SliceAssignmentMismatch:
        return not numpy_accepts
    except ValueError:
        return False
    return numpy_accepts and np.array_equal(mine, theirs)


def rank_bound_assign(target: np.ndarray, index: tuple, values: np.ndarray) -> None:
    """Mutation: refuses values with more axes than the slice, even if the extra leading axes have size 1."""
    slot = target[index].shape
    if values.ndim > len(slot):
        raise SliceAssignmentMismatch(slot, values.shape, 0)
    assign(target, index, values)


def leading_axes_dropping_assign(target: np.ndarray, index: tuple, values: np.ndarray) -> None:
    """Mutation: drops the leading axes of values beyond the slice's rank whatever their size."""
    extra = max(values.ndim - target[index].ndim, 0)
    assign(target, index, values[(0,) * extra])


@given(SHAPES.filter(bool), SHAPES)
@example(target=(1,), values=(1, 1))
@example(target=(3, 2), values=(1, 1, 2))
@example(target=(2,), values=(2, 1))
@example(target=(2,), values=(2, 2))
def test_assign_succeeds_exactly_when_numpy_assignment_does(target: tuple, values: tuple) -> None:
    assert agrees_with_numpy(assign, target, values)


@pytest.mark.parametrize(("target", "values"), [((1,), (1, 1)), ((2,), (1, 2)), ((3, 2), (1, 1, 1, 2))])
def test_leading_size_one_axes_of_the_values_are_dropped(target: tuple, values: tuple) -> None:
    out = np.zeros(target)
    assign(out, (Ellipsis,), np.arange(int(np.prod(values)), dtype=float).reshape(values))
    assert np.array_equal(out, np.broadcast_to(np.arange(target[-1], dtype=float), target))


def test_extra_leading_axes_of_another_size_fail_with_torch_shaped_message() -> None:
    with pytest.raises(SliceAssignmentMismatch) as caught:
        assign(np.zeros(2), (Ellipsis,), np.zeros((2, 1)))
    assert str(caught.value) == (
        "the expanded size of the tensor (1) must match the existing size (2) at non-singleton dimension 0: "
        "cannot assign values of shape [2, 1] to a slice of shape [2]"
    )
    assert caught.value.dim == 0


@pytest.mark.parametrize(
    ("twin", "target", "values"),
    [(rank_bound_assign, (1,), (1, 1)), (leading_axes_dropping_assign, (2,), (2, 2))],
)
def test_broken_assignment_twins_disagree_with_numpy(twin: Assign, target: tuple, values: tuple) -> None:
    assert agrees_with_numpy(assign, target, values)
    assert not agrees_with_numpy(twin, target, values)


# ------------------------------------------------------------------------------------------ rotary


POSITION = st.integers(0, 2047)


@given(st.integers(1, 32).map(_twice), st.lists(POSITION, min_size=1, max_size=6), BASES)
def test_float64_cache_is_half_split_rope(dim: int, positions: list[int], base: float) -> None:
    cache = RotaryCache(dim, base=base, dtype=np.float64)
    x = np.random.default_rng(dim).standard_normal((len(positions), dim))
    p = np.array(positions)
    expected = apply_rope(x, p, base=base, layout="half_split")
    assert np.max(np.abs(cache.rotate(x, p) - expected)) <= angle_tolerance(max(positions), 4, base=base) * 8


@given(st.lists(st.integers(1, 2047), min_size=1, max_size=4))
def test_cache_agrees_with_the_50_digit_reference(positions: list[int]) -> None:
    x = np.random.default_rng(1).standard_normal((len(positions), 16))
    cache, p = RotaryCache(16, dtype=np.float64), np.array(positions)
    assert check_agreement_with_reference(cache.as_rope("half_split"), x, p).holds
    assert not check_agreement_with_reference(cache.as_rope("interleaved"), x, p).holds


@given(st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 1023)), min_size=1, max_size=6))
def test_cache_has_the_relative_property(pairs: list[tuple[int, int]]) -> None:
    m = np.array([a for a, _ in pairs])
    n = m + np.array([b for _, b in pairs])
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((len(pairs), 32)), rng.standard_normal((len(pairs), 32))
    assert check_relative_property(RotaryCache(32, dtype=np.float64).as_rope(), q, k, m, n).holds


def test_backwards_twin_keeps_the_relative_property_but_fails_the_reference() -> None:
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((6, 32)), rng.standard_normal((6, 32))
    m = np.array([0, 5, 17, 100, 900, 1000])
    n = m + np.array([3, 1, 40, 7, 1000, 0])
    twin = BackwardsCache(32, dtype=np.float64)
    assert check_relative_property(twin.as_rope(), q, k, m, n).holds
    assert not check_agreement_with_reference(twin.as_rope("half_split"), q, n).holds


def test_cache_dtypes_follow_torch() -> None:
    cache = RotaryCache(64)
    assert cache.inv_freq.dtype == np.float32 and cache.cos_cached.dtype == np.float32
    assert cache.cos_cached.shape == (2048, 64)
    assert np.array_equal(cache.cos_cached[:, :32], cache.cos_cached[:, 32:])


def test_usage_example_shape_fails_to_broadcast_like_numpy() -> None:
    cache = RotaryCache(64)
    q = np.zeros((2, 128, 8, 64), dtype=np.float32)
    with pytest.raises(ValueError):
        np.broadcast_shapes(q.shape, cache.cos_cached[:128][None].shape)
    with pytest.raises(BroadcastMismatch, match=r"a \(8\) .* b \(128\) at non-singleton dimension 2"):
        cache.forward(q, q)


def test_layouts_that_work_and_the_silent_single_head_shape() -> None:
    cache = RotaryCache(64)
    three_axes = np.ones((2, 128, 64), dtype=np.float32)
    assert cache.forward(three_axes, three_axes)[0].shape == (2, 128, 64)
    q = np.ones((2, 128, 8, 64), dtype=np.float32)
    cos = cache.cos_cached[:128][None, :, None, :]
    assert (q * cos).shape == (2, 128, 8, 64)
    one_head = np.ones((2, 128, 1, 64), dtype=np.float32)
    assert cache.forward(one_head, one_head)[0].shape == (2, 128, 128, 64)


def test_broadcast_outcome_gives_the_shape_or_the_failing_axis() -> None:
    assert broadcast_outcome((2, 128, 8, 64), (1, 128, 1, 64)) == "[2, 128, 8, 64]"
    assert broadcast_outcome((2, 128, 1, 64), (1, 128, 64)) == "[2, 128, 128, 64]"
    assert (
        broadcast_outcome((2, 8, 128, 64), (1, 8, 64)) == "error ((2, 8, 128, 64) with (1, 8, 64) at axis 2)"
    )


@given(SHAPES, SHAPES)
def test_broadcast_outcome_fails_exactly_when_numpy_does(a: tuple, b: tuple) -> None:
    try:
        expected = str(list(np.broadcast_shapes(a, b)))
    except ValueError:
        expected = None
    outcome = broadcast_outcome(a, b)
    assert outcome == expected if expected is not None else outcome.startswith("error (")


def test_shape_error_is_the_message_of_a_shape_mismatch_and_none_for_a_run() -> None:
    cache, q = RotaryCache(64), np.zeros((2, 128, 8, 64), dtype=np.float32)
    message = shape_error(lambda: cache.forward(q, q))
    assert message is not None and "non-singleton dimension 2" in message
    assert shape_error(lambda: SinusoidalTable(5, 8)) is not None
    assert shape_error(lambda: SinusoidalTable(6, 8)) is None


def test_shape_error_lets_other_errors_through() -> None:
    with pytest.raises(TypeError):
        shape_error(lambda: SinusoidalTable(6, 8).forward())  # type: ignore[call-arg]


def test_odd_rotary_dim_fails_in_the_forward() -> None:
    cache = RotaryCache(5, max_len=8)
    assert cache.cos_cached.shape == (8, 6)
    with pytest.raises(BroadcastMismatch, match=r"tensor a \(5\) .* tensor b \(6\)"):
        cache.forward(np.zeros((1, 4, 5)), np.zeros((1, 4, 5)))


@pytest.mark.parametrize("positions", [[-1, 0], [0, 2048], [0.5, 1]])
def test_rotate_rejects_positions_outside_the_cache(positions: list[float]) -> None:
    with pytest.raises(ValueError, match="positions must be"):
        RotaryCache(4).rotate(np.ones((2, 4)), np.array(positions))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0,), "dim must be a positive integer"),
        ((4, 0), "max_len must be a positive integer"),
        ((4, 8, 0.5), "base must be a finite real number greater than 1"),
    ],
)
def test_cache_rejects_bad_input(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RotaryCache(*args)


def test_training_dropout_never_returns_a_nonzero_entry_unchanged() -> None:
    p = Fraction(1, 10)
    assert training_dropout_outcomes(Fraction(9, 7), p) == (0, Fraction(10, 7))
    assert not any(dropout_can_leave_unchanged(Fraction(n, 7), p) for n in range(-20, 21) if n)
    assert dropout_can_leave_unchanged(Fraction(0), p)


def test_dropout_of_probability_zero_would_leave_every_entry_unchanged() -> None:
    assert all(dropout_can_leave_unchanged(Fraction(n, 7), Fraction(0)) for n in range(-20, 21))
    with pytest.raises(ValueError, match="dropout probability"):
        training_dropout_outcomes(Fraction(1), Fraction(1))


def test_a_fresh_torch_dropout_is_in_training_mode_and_rescales_what_it_keeps() -> None:
    torch = pytest.importorskip("torch")
    dropout = torch.nn.Dropout(p=0.1)
    assert dropout.training
    torch.manual_seed(0)
    out = dropout(torch.ones(2, 128, 512))
    kept = out[out != 0]
    assert 0 < kept.numel() < out.numel()
    assert torch.allclose(kept, torch.full_like(kept, 1 / 0.9))


def test_a_size_one_axis_broadcasts_to_a_zero_size_axis_as_in_numpy() -> None:
    for a, b in (((1, 3), (0, 3)), ((0, 1), (1, 5)), ((2, 1, 4), (0, 4))):
        assert broadcast_shape(a, b) == np.broadcast_shapes(a, b)


def test_the_broadcasting_rule_applies_to_symbolic_sizes() -> None:
    batch, length, hidden = sp.symbols("B L H", integer=True, positive=True)
    assert broadcast_shape((batch, length, hidden), (length, hidden)) == (batch, length, hidden)
    with pytest.raises(BroadcastMismatch):
        broadcast_shape((batch, length, hidden), (hidden, length))
