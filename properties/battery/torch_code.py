"""NumPy re-expressions of two common PyTorch position-encoding modules, with torch's shapes, dtypes and
broadcasting, so that a shape error there is a shape error here and the numbers agree to float32 rounding.

* `SinusoidalTable` — the buffer ``pe = zeros(max_len, d); pe[:, 0::2] = sin(position · div_term);
  pe[:, 1::2] = cos(position · div_term)``, ``div_term = exp(arange(0, d, 2) · (−ln base / d))``, stored
  as ``pe.unsqueeze(0)``, and its forward ``x + pe[:, :seq_len]`` (dropout, the identity in evaluation
  mode, is left out).
* `RotaryCache` — ``inv_freq = 1 / base^(arange(0, dim, 2) / dim)``, the cos/sin caches of
  ``cat(freqs, freqs)`` and the forward ``q·cos + rotate_half(q)·sin`` with ``cos = cos_cached[:seq_len]
  .unsqueeze(0)``, seq_len read from axis 1 of q.

Dtypes follow torch: ``torch.zeros``, ``arange(dtype=torch.float)`` and ``.float()`` are float32; a Python
scalar does not widen a float32 tensor; an int64 tensor times a float32 tensor is float32 (torch promotes by
category, where numpy would give float64, so the casts here are explicit). ``dtype=np.float64`` runs the
same code as under ``torch.set_default_dtype(torch.float64)``. Broadcasting aligns shapes at their trailing
axes and needs each pair of sizes equal or one of them 1 — the same rule in numpy and torch; a slice
assignment ``a[idx] = b`` needs b to broadcast to the slice's own shape, which keeps its shape: b may have
more axes than the slice only if the extra leading ones have size 1 (torch's setitem strips leading size-1
axes of b before ``copy_``, numpy's assignment strips them too, so b of shape [1, 1] fills a slice of shape
[1] in both). In float32, sin, cos, exp and pow are correctly rounded (`correct_rounding`), so the numbers
are properties of float32; a platform's float32 functions (numpy's, torch's) may differ by a few ulp. In
float64 they are numpy's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..encodings.rope import Rope
from ..numerics.correct_rounding import correctly_rounded
from ..numerics.validation import require_base, require_positive_int

FLOAT_DTYPES = (np.float32, np.float64)
_NUMPY = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "pow": np.power}


class BroadcastMismatch(ValueError):
    """Two shapes that do not broadcast: at some trailing-aligned axis the sizes differ and neither is 1."""

    def __init__(self, shape_a: Sequence[int], shape_b: Sequence[int], dim: int, size_a: int, size_b: int):
        self.shape_a, self.shape_b, self.dim = tuple(shape_a), tuple(shape_b), dim
        super().__init__(
            f"the size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton "
            f"dimension {dim}: shapes {list(shape_a)} and {list(shape_b)} are aligned at their last axes and "
            "broadcast only where the sizes are equal or one of them is 1"
        )


class SliceAssignmentMismatch(ValueError):
    """``target[index] = values`` with values that do not broadcast to the slice's shape.

    Both shapes are aligned at their last axes and padded on the left with 1s to the larger rank; dim counts
    axes of that common rank from the left.
    """

    def __init__(self, target_shape: Sequence[int], value_shape: Sequence[int], dim: int, note: str = ""):
        self.target_shape, self.value_shape, self.dim = tuple(target_shape), tuple(value_shape), dim
        rank = max(len(self.target_shape), len(self.value_shape))
        expanded = _left_padded(self.target_shape, rank)[dim]
        existing = _left_padded(self.value_shape, rank)[dim]
        super().__init__(
            f"the expanded size of the tensor ({expanded}) must match the existing size ({existing}) at "
            f"non-singleton dimension {dim}: cannot assign values of shape {list(self.value_shape)} to a "
            f"slice of shape {list(self.target_shape)}" + (f"; {note}" if note else "")
        )


def broadcast_shape(shape_a: Sequence[int], shape_b: Sequence[int]) -> tuple[int, ...]:
    """The shape a ⊙ b takes under broadcasting, or `BroadcastMismatch` naming the first axis that fails.

    Axes are counted in the result (of rank max(rank a, rank b)) from the left, as torch's message does. A
    size-1 axis takes the other size, 0 included; sizes may be SymPy symbols (compared as written), so the
    rule can be applied to shapes of symbolic size.
    """
    a, b = tuple(shape_a), tuple(shape_b)
    rank = max(len(a), len(b))
    padded_a, padded_b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    for dim, (size_a, size_b) in enumerate(zip(padded_a, padded_b, strict=True)):
        if size_a != size_b and 1 not in (size_a, size_b):
            raise BroadcastMismatch(a, b, dim, size_a, size_b)
    return tuple(size_b if size_a == 1 else size_a for size_a, size_b in zip(padded_a, padded_b, strict=True))


def broadcast_outcome(shape_a: Sequence[int], shape_b: Sequence[int]) -> str:
    """What a ⊙ b gives under broadcasting: the result shape as a list, or the two shapes and the first axis
    at which they fail (`broadcast_shape`)."""
    try:
        return str(list(broadcast_shape(shape_a, shape_b)))
    except BroadcastMismatch as error:
        return f"error ({error.shape_a} with {error.shape_b} at axis {error.dim})"


def shape_error(run: Callable[[], object]) -> str | None:
    """The message of the ValueError that `run` raises, or None when it runs. The modules here raise one for
    a shape mismatch (`BroadcastMismatch`, `SliceAssignmentMismatch`), as torch does, and for invalid input;
    any other exception propagates."""
    try:
        run()
    except ValueError as error:
        return str(error)
    return None


def broadcast_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a · b elementwise, after checking that the shapes broadcast (`BroadcastMismatch` otherwise)."""
    broadcast_shape(a.shape, b.shape)
    return a * b


def assign(target: np.ndarray, index: tuple, values: np.ndarray, note: str = "") -> None:
    """target[index] = values when values broadcast to the slice's shape; `SliceAssignmentMismatch` otherwise.

    The rule is one-sided: the slice keeps its shape. Aligned at the last axes, each axis of values must have
    the slice's size or size 1 (which stretches), and any leading axes of values beyond the slice's rank must
    have size 1 (they are dropped: torch's setitem strips them before ``copy_``, numpy's assignment too).
    """
    slot = target[index].shape
    rank = max(len(slot), values.ndim)
    padded_slot, padded_values = _left_padded(slot, rank), _left_padded(values.shape, rank)
    for dim, (size, given) in enumerate(zip(padded_slot, padded_values, strict=True)):
        if given not in (1, size):
            raise SliceAssignmentMismatch(slot, values.shape, dim, note)
    target[index] = values


def rotate_half(x: np.ndarray) -> np.ndarray:
    """(x1, x2) ↦ (−x2, x1) on the two halves of the last axis (``torch.cat((-x2, x1), dim=-1)``)."""
    half = x.shape[-1] // 2
    return np.concatenate((-x[..., half:], x[..., :half]), axis=-1)


def training_dropout_outcomes(value: Fraction, p: Fraction) -> tuple[Fraction, Fraction]:
    """What nn.Dropout(p) in training mode (a module's default) can make of an entry `value`: 0 when the entry
    is dropped, value/(1 − p) when it is kept (the survivors are rescaled), exactly."""
    if not 0 <= p < 1:
        raise ValueError(f"a dropout probability must lie in [0, 1), got {p}")
    return Fraction(0), Fraction(value) / (1 - p)


def dropout_can_leave_unchanged(value: Fraction, p: Fraction) -> bool:
    """Whether some draw of training-mode dropout returns `value` itself: only for 0, or when p = 0."""
    return Fraction(value) in training_dropout_outcomes(value, p)


class SinusoidalTable:
    """The sinusoidal buffer pe[0, p, 2i] = sin(p·ω_i), pe[0, p, 2i+1] = cos(p·ω_i), ω_i = e^(−2i·ln base/d).

    Built exactly as the common PyTorch module builds it, in `dtype` (float32 by default, like torch). For odd
    d_model ≥ 3 the construction fails where torch's does: the 1::2 slice has (d−1)/2 columns while div_term
    has (d+1)/2 entries, and `SliceAssignmentMismatch` says so. (d_model = 1 builds: the empty 1::2 slice
    takes the single cos column by broadcasting a size-1 axis to 0, in torch as in numpy.)
    """

    def __init__(
        self, d_model: int, max_len: int = 5000, base: float = 10000.0, dtype: type = np.float32
    ) -> None:
        d = require_positive_int(d_model, "d_model")
        max_len = require_positive_int(max_len, "max_len")
        base = require_base(base)
        dtype = _require_float_dtype(dtype)
        pe = np.zeros((max_len, d), dtype=dtype)
        position = np.arange(0, max_len, dtype=dtype)[:, None]
        div_term = _elementary("exp", dtype, np.arange(0, d, 2).astype(dtype) * dtype(-math.log(base) / d))
        angles = position * div_term
        note = (
            f"d_model = {d}: div_term has ⌈d/2⌉ = {len(div_term)} entries and pe[:, 1::2] has "
            f"⌊d/2⌋ = {d // 2} columns, which agree only for even d_model"
        )
        assign(pe, (slice(None), slice(0, None, 2)), _elementary("sin", dtype, angles), note)
        assign(pe, (slice(None), slice(1, None, 2)), _elementary("cos", dtype, angles), note)
        self.d_model, self.max_len, self.base, self.dtype = d, max_len, base, dtype
        self.pe = pe[None, :, :]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """x + pe[:, :seq_len, :] for x of shape [batch, seq_len, d_model]; a seq_len beyond max_len leaves
        pe with max_len rows, which do not broadcast (`BroadcastMismatch`), as in torch."""
        x = _require_real_array(x, "x", min_rank=2)
        return x + _broadcast_checked(x, self.pe[:, : x.shape[1], :])


class RotaryCache:
    """RoPE with a precomputed cos/sin cache, half-split layout: q·cos + rotate_half(q)·sin.

    inv_freq_i = 1/base^(2i/dim); row t of the caches is cos/sin of t·(inv_freq, inv_freq) for t < max_len.
    The forward reads seq_len from axis 1 of q and broadcasts the (1, seq_len, dim) caches against q: that
    fits q of shape [batch, seq_len, dim], not [batch, seq_len, heads, dim] (`BroadcastMismatch`, as in
    torch).
    """

    def __init__(
        self, dim: int, max_len: int = 2048, base: float = 10000.0, dtype: type = np.float32
    ) -> None:
        dim = require_positive_int(dim, "dim")
        max_len = require_positive_int(max_len, "max_len")
        base = require_base(base)
        dtype = _require_float_dtype(dtype)
        inv_freq = dtype(1.0) / _elementary(
            "pow", dtype, dtype(base), np.arange(0, dim, 2).astype(dtype) / dtype(dim)
        )
        t = np.arange(max_len)
        freqs = np.multiply.outer(t.astype(dtype), inv_freq)
        emb = np.concatenate((freqs, freqs), axis=-1)
        self.dim, self.max_len, self.base, self.dtype = dim, max_len, base, dtype
        self.inv_freq = inv_freq
        self.cos_cached, self.sin_cached = _elementary("cos", dtype, emb), _elementary("sin", dtype, emb)

    def forward(self, q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(q·cos + rotate_half(q)·sin, k·cos + rotate_half(k)·sin), cos = cos_cached[:q.shape[1]][None]."""
        q = _require_real_array(q, "q", min_rank=2)
        k = _require_real_array(k, "k", min_rank=2)
        seq_len = q.shape[1]
        cos, sin = self.cos_cached[:seq_len][None], self.sin_cached[:seq_len][None]
        return self._embed(q, cos, sin), self._embed(k, cos, sin)

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Row j of x (shape (n, dim)) rotated to positions[j] by `forward` itself: the row is placed at
        sequence position positions[j] of its own [1, seq_len, dim] sequence. This is the ``rotate`` of
        `as_rope`, which the property checks of `properties.encodings.rope` take. Positions must be integers
        in [0, max_len)."""
        x = _require_real_array(x, "x", min_rank=2)
        index = _require_cache_positions(positions, len(x), self.max_len)
        rows = np.arange(len(x))
        sequences = np.zeros((len(x), int(index.max()) + 1, x.shape[1]), dtype=np.result_type(x, self.dtype))
        sequences[rows, index] = x
        rotated, _ = self.forward(sequences, sequences)
        return rotated[rows, index]

    def as_rope(self, layout: str = "half_split") -> RotaryCacheRope:
        """The cache as the `Rope` it claims to be: dim and base its own, `layout` as declared."""
        return RotaryCacheRope(self.dim, self.base, layout, cache=self)

    @staticmethod
    def _embed(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        return broadcast_multiply(x, cos) + broadcast_multiply(rotate_half(x), sin)


@dataclass(frozen=True, eq=False)
class RotaryCacheRope(Rope):
    """The RoPE with d = cache.dim, the cache's base and the declared layout, whose float64 `rotate` is the
    cache's own `RotaryCache.rotate` (in the cache's dtype); every other form is the declared RoPE's, so a
    check comparing `rotate` with them tests the cache against what it claims to be."""

    cache: RotaryCache = field(kw_only=True)

    def rotate(self, x: np.ndarray, positions: Sequence[float] | np.ndarray) -> np.ndarray:
        """`RotaryCache.rotate`: row j of x rotated to the integer positions[j] < max_len by the forward."""
        return self.cache.rotate(x, positions)


def _left_padded(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def _broadcast_checked(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    broadcast_shape(a.shape, b.shape)
    return b


def _elementary(name: str, dtype: type, *args: np.ndarray) -> np.ndarray:
    """sin, cos, exp or pow of the arguments in `dtype`: numpy's in float64, correctly rounded in float32."""
    if dtype is np.float64:
        return _NUMPY[name](*args)
    return correctly_rounded(name, "float32", *args)


def _require_float_dtype(dtype: object) -> type:
    for allowed in FLOAT_DTYPES:
        if dtype is allowed or dtype == np.dtype(allowed):
            return allowed
    raise ValueError(f"dtype must be np.float32 or np.float64, got {dtype!r}")


def _require_cache_positions(positions: object, n: int, max_len: int) -> np.ndarray:
    array = np.asarray(positions)
    allowed = f"integers in [0, {max_len - 1}] (the cache has max_len = {max_len} rows)"
    if array.shape != (n,) or array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(
            f"positions must be {n} {allowed}, one per row; got shape {array.shape}, dtype {array.dtype}"
        )
    if n == 0 or not np.all(np.isfinite(array) & (array == np.round(array))):
        raise ValueError(f"positions must be {allowed}; got a non-integer, NaN or infinity")
    if np.min(array) < 0 or np.max(array) >= max_len:
        raise ValueError(f"positions must be {allowed}; got {array.min()} to {array.max()}")
    return array.astype(np.int64)


def _require_real_array(value: object, name: str, min_rank: int) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_:
        raise ValueError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    if array.ndim < min_rank:
        raise ValueError(
            f"{name} must have at least {min_rank} axes ([batch, seq_len, ...]), got shape {array.shape}"
        )
    return array
