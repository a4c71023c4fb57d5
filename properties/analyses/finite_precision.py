"""Finite precision: when integer positions, encoding rows and single encoding values become equal in a dtype.

In exact arithmetic distinct integer positions get distinct rows, and a single dim distinct values at
distinct non-negative positions; stored in a floating-point dtype they need not. Everything here is measured
by casting to the dtype and comparing stored values, then cross-checked against what the dtype's mantissa
width m predicts:

* positions: the integers 0, 1, …, 2^(m+1) are exact, and 2^(m+1) + 1 rounds (a tie, to even) onto 2^(m+1);
* rows: the first position p2 whose row equals an earlier row, and how many rows repeat one;
* single values: how many dims keep their value from position p to p+1; a cos dim stays at exactly 1.0 while
  1 − cos(pω) ≤ 2^−(m+2), half the spacing just below 1.

The encoding is a `sinusoidal.Sinusoidal` carrying a dtype (`common_code_encoding`): the scans read its
`stored_rows`; a table under test that is known only by its rows is a `StoredEncoding`, the same interface
with that one form given.

"Equal" means equal as values (+0 = −0; rows must be finite). Casts are numpy's, and ml_dtypes' for
bfloat16: ml_dtypes rounds int64 and float64 to bfloat16 through float32, so for integers beyond 2^24 its
bfloat16 can differ from correct rounding by one spacing.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import ml_dtypes
import mpmath
import numpy as np

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.checking import CheckResult
from ..numerics.dtypes import DTYPES, DtypeSpec, dtype_spec
from ..numerics.validation import require_positive_int

#: Memory the chunked scans may use unless told otherwise.
DEFAULT_MEMORY_BUDGET = 512 * 2**20
_BYTES_PER_POSITION = 48  # hashes, neighbour counts, sort order and candidates (33 measured at 1e7 positions)
_BYTES_PER_VALUE = 40  # one table entry while it is computed (float64 at worst), stored and hashed
# Table entries per chunk: the float64 temporaries of a chunk (512 KiB) stay in cache and small enough for
# the allocator to reuse them; chunks of 2^18 values and more took up to twice as long, and chunks of 2^14
# values spent a third of their time in per-call overhead (measured).
_CHUNK_VALUES = 2**16


# ------------------------------------------------------------------------- (a) positions in the dtype


def collision_formula(nmant: int) -> int:
    """First integer p with dtype(p) = dtype(p+1): 2^(m+1), where the spacing of the dtype reaches 2."""
    return 2 ** (nmant + 1)


def _as_floats(spec: DtypeSpec, integers: list[int]) -> list[float]:
    return [float(v) for v in spec.cast(np.array(integers, dtype=np.int64))]


def _collides(spec: DtypeSpec, p: int) -> bool:
    here, after = _as_floats(spec, [p, p + 1])
    return here == after


def _one_apart(spec: DtypeSpec, p: int) -> bool:
    here, after = _as_floats(spec, [p, p + 1])
    return after - here == 1.0


def first_collision_by_bisection(dtype: str | DtypeSpec) -> int:
    """Smallest p ≥ 0 with dtype(p) = dtype(p+1), by doubling and bisection on "p and p+1 stay one apart".

    That predicate holds on an initial segment of the integers and fails from the first p where the spacing
    is 2 (no two representable values are then one apart); a collision is a failure, so the first collision
    is at or just after the first failure, found by stepping forward from it.
    """
    spec = dtype_spec(dtype)
    high = 1
    while _one_apart(spec, high):
        if high >= 2**61:
            raise ValueError(f"{spec.name} keeps consecutive integers one apart up to 2**61")
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        if _one_apart(spec, middle):
            low = middle
        else:
            high = middle
    while not _collides(spec, high):
        high += 1
    return high


def _chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(n, start + size)


def _position_bits(spec: DtypeSpec, start: int, stop: int) -> np.ndarray:
    return spec.cast(np.arange(start, stop, dtype=np.int64)).view(spec.bits)


def first_collision_by_scan(dtype: str | DtypeSpec, limit: int, chunk: int = 2**20) -> int | None:
    """Smallest p < `limit` with dtype(p) = dtype(p+1), casting every integer 0, …, limit (None if none)."""
    spec = dtype_spec(dtype)
    limit = require_positive_int(limit, "limit")
    for start, stop in _chunks(limit, chunk):
        bits = _position_bits(spec, start, stop + 1)
        hits = np.flatnonzero(bits[1:] == bits[:-1])
        if hits.size:
            return start + int(hits[0])
    return None


def distinct_position_values(dtype: str | DtypeSpec, n_positions: int, chunk: int = 2**20) -> int:
    """How many distinct values the integers 0, …, N−1 take in the dtype, counted by casting them all.

    Rounding is monotone, so equal values are consecutive: the count is 1 + the number of p with
    dtype(p) ≠ dtype(p+1) (compared bit for bit, so every overflow to inf is one value).
    """
    spec = dtype_spec(dtype)
    n = require_positive_int(n_positions, "n_positions")
    changes = 0
    for start, stop in _chunks(n - 1, chunk):
        bits = _position_bits(spec, start, stop + 1)
        changes += int(np.count_nonzero(bits[1:] != bits[:-1]))
    return 1 + changes


def _round_integer(n: int, nmant: int) -> int:
    """n ≥ 0 rounded to m+1 significant bits, ties to even (no exponent limit)."""
    shift = n.bit_length() - (nmant + 1)
    if shift <= 0:
        return n
    quotient, remainder = divmod(n, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient % 2):
        quotient += 1
    return quotient << shift


def _representable_up_to(x: int, nmant: int) -> int:
    """How many integers in [0, x] have at most m+1 significant bits: all below 2^(m+1), 2^m per binade."""
    if x < 2 ** (nmant + 1):
        return x + 1
    k = x.bit_length() - 1
    return 2 ** (nmant + 1) + (k - nmant - 1) * 2**nmant + (x - 2**k) // 2 ** (k - nmant) + 1


def distinct_position_formula(nmant: int, n_positions: int, max_finite: float) -> int:
    """Distinct values of 0, …, N−1 predicted from m: the representable integers up to min(N−1, max), plus
    one when N−1 rounds up past itself (onto the next representable value, or past the largest finite to inf).
    """
    x = require_positive_int(n_positions, "n_positions") - 1
    largest = int(max_finite)
    rounded = _round_integer(x, nmant)
    return _representable_up_to(min(x, largest), nmant) + int(rounded > x or rounded > largest)


@dataclass(frozen=True)
class PositionCollision:
    """The first integers p, p+1 that the dtype cannot tell apart, measured and from the formula 2^(m+1)."""

    dtype: str
    nmant: int
    first_collision: int
    stored_value: float
    formula: int

    @property
    def agrees(self) -> bool:
        return self.first_collision == self.formula


def position_collision(dtype: str | DtypeSpec) -> PositionCollision:
    """Measure the first colliding integer positions of the dtype and set the formula beside them."""
    spec = dtype_spec(dtype)
    p = first_collision_by_bisection(spec)
    stored = _as_floats(spec, [p])[0]
    return PositionCollision(spec.name, spec.nmant, p, stored, collision_formula(spec.nmant))


@dataclass(frozen=True)
class DistinctPositions:
    """How many distinct values the integer positions 0, …, N−1 take in a dtype: counted, and predicted."""

    dtype: str
    n_positions: int
    distinct: int
    formula: int


def distinct_positions(dtype: str | DtypeSpec, n_positions: int) -> DistinctPositions:
    """Count the distinct values of 0, …, N−1 in the dtype and set the formula's count beside it."""
    spec = dtype_spec(dtype)
    counted = distinct_position_values(spec, n_positions)
    return DistinctPositions(
        spec.name, n_positions, counted, distinct_position_formula(spec.nmant, n_positions, spec.max_finite)
    )


def check_collision_formula(dtype: str | DtypeSpec) -> CheckResult:
    """The measured first collision of integer positions is the formula's 2^(m+1)."""
    found = position_collision(dtype)
    return CheckResult(
        "first colliding integer positions at 2^(m+1)",
        found.agrees,
        float(abs(found.first_collision - found.formula)),
        0.0,
        {
            "dtype": found.dtype,
            "nmant": found.nmant,
            "measured": found.first_collision,
            "formula": found.formula,
        },
    )


def check_distinct_formula(dtype: str | DtypeSpec, n_positions: int) -> CheckResult:
    """The counted number of distinct values of 0, …, N−1 in the dtype is the formula's count."""
    found = distinct_positions(dtype, n_positions)
    return CheckResult(
        "distinct values of the integer positions 0..N-1 as the mantissa width predicts",
        found.distinct == found.formula,
        float(abs(found.distinct - found.formula)),
        0.0,
        {
            "dtype": found.dtype,
            "n_positions": n_positions,
            "measured": found.distinct,
            "formula": found.formula,
        },
    )


# --------------------------------------------------------------------------- (b) rows of the encoding


def common_code_encoding(
    d: int, dtype: str | DtypeSpec, base: float = 10000.0, positions_in_dtype: bool = False
) -> Sinusoidal:
    """The table as the common PyTorch code builds it, stored in `dtype` (`Sinusoidal.stored_rows`).

    With `positions_in_dtype` the positions are first rounded to the dtype (as when the position vector is
    held in half precision).
    """
    return Sinusoidal(d, base, dtype=dtype, positions_in_dtype=bool(positions_in_dtype))


class StoredEncoding(Sinusoidal):
    """An implementation under test known only by its table in a dtype: a `Sinusoidal` whose stored form
    is `rows(positions)` and whose label is given (how the `sinusoidal` battery hands an implementation's
    table to `find_duplicate_rows`)."""

    __eq__ = object.__eq__  # two tables are the same only when they are the same object
    __hash__ = object.__hash__

    def __init__(
        self, label: str, d: int, dtype: str | DtypeSpec, rows: Callable[[np.ndarray], np.ndarray]
    ) -> None:
        super().__init__(d, dtype=dtype)
        object.__setattr__(self, "_label", label)
        object.__setattr__(self, "_rows", rows)

    @property
    def label(self) -> str:
        """The label given."""
        return self._label

    def stored_rows(self, positions: np.ndarray) -> np.ndarray:
        """The given rows of `positions`."""
        return self._rows(positions)


def _stored_rows(encoding: Sinusoidal, positions: np.ndarray) -> np.ndarray:
    """The rows of `positions`, checked (shape, dtype, finite) and with −0 made +0 so bits decide equality."""
    spec = encoding.stored_dtype
    rows = np.ascontiguousarray(encoding.stored_rows(positions))
    if rows.shape != (len(positions), encoding.d) or rows.dtype != np.dtype(spec.scalar):
        raise ValueError(
            f"rows must have shape ({len(positions)}, {encoding.d}) and dtype {spec.name}; "
            f"got shape {rows.shape} and dtype {rows.dtype}"
        )
    if not np.all(np.isfinite(rows)):
        raise ValueError(f"rows must be finite; {encoding.label} gave NaN or inf")
    negative_zero = rows.view(spec.bits) == spec.bits(1 << (8 * rows.itemsize - 1))
    if np.any(negative_zero):
        rows = rows.copy()
        rows[negative_zero] = 0
    return rows


def scan_memory(n_positions: int, d: int) -> int:
    """The least memory budget (bytes) a scan of the table over n_positions × d dims accepts: what it keeps
    per position, and one row while it is computed (`_rows_per_chunk` adds rows while the budget allows)."""
    return n_positions * _BYTES_PER_POSITION + d * _BYTES_PER_VALUE


def _rows_per_chunk(n_positions: int, d: int, memory_budget: int) -> int:
    """How many rows one chunk may hold so that the scan stays within `memory_budget` bytes."""
    d = require_positive_int(d, "d")
    budget = require_positive_int(memory_budget, "memory_budget")
    needed = scan_memory(n_positions, d)
    if needed > budget:
        raise ValueError(
            f"a scan of {n_positions} positions × {d} dims needs at least {needed} bytes "
            f"({n_positions} × {_BYTES_PER_POSITION} per position + one row of {d} × {_BYTES_PER_VALUE}); "
            f"the memory budget is {budget} bytes"
        )
    fixed = n_positions * _BYTES_PER_POSITION
    return max(1, min(n_positions, (budget - fixed) // (d * _BYTES_PER_VALUE), _CHUNK_VALUES // d))


def _row_words(rows: np.ndarray) -> np.ndarray:
    """Each row's bytes as 64-bit words (zero-padded to a whole word)."""
    data = np.ascontiguousarray(rows).view(np.uint8).reshape(len(rows), -1)
    padding = -data.shape[1] % 8
    if padding:
        data = np.pad(data, ((0, 0), (0, padding)))
    return data.view(np.uint64)


@functools.lru_cache(maxsize=16)
def _hash_coefficients(words: int) -> np.ndarray:
    coefficients = np.random.default_rng(words).integers(0, 2**63, size=words, dtype=np.uint64)
    return coefficients * np.uint64(2) + np.uint64(1)


def hash_rows(rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash per row: Σ_k a_k·w_k mod 2^64 over the row's 64-bit words w_k, fixed odd a_k.

    Equal rows hash equal; rows differing in a single word never collide (a_k is invertible mod 2^64).
    """
    words = _row_words(rows)
    return (words * _hash_coefficients(words.shape[1])[None, :]).sum(axis=1, dtype=np.uint64)


@dataclass(frozen=True)
class DuplicateRows:
    """Rows equal (in every dim) to an earlier row among positions 0, …, N−1 of a stored encoding.

    `first_duplicate` is (p1, p2): the smallest p2 whose row equals an earlier row, with the smallest such p1.
    `duplicate_rows` = N − (number of distinct rows). `hash_matches` counts rows whose hash equals an earlier
    row's hash: the candidates that exact comparison confirmed or rejected.
    """

    label: str
    dtype: str
    d: int
    n_positions: int
    first_duplicate: tuple[int, int] | None
    duplicate_rows: int
    hash_matches: int


def _hash_groups(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Positions sharing a hash with another position, sorted by (hash, position), their hashes, and the
    number of positions whose hash equals an earlier position's."""
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    repeat = ordered[1:] == ordered[:-1]
    shared = np.zeros(len(hashes), dtype=bool)
    shared[1:] |= repeat
    shared[:-1] |= repeat
    return order[shared], ordered[shared], int(np.count_nonzero(repeat))


def _scan_table(
    encoding: Sinusoidal,
    n: int,
    chunk: int,
    row_hash: Callable[[np.ndarray], np.ndarray] | None,
    neighbours: bool,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """One pass over the stored rows of positions 0, …, n−1, each computed once, `chunk` rows at a time: the
    hash of every row (None without `row_hash`) and, with `neighbours`, for p = 0, …, n−2 how many dims keep
    their value from p to p+1 (compared bit for bit, −0 made +0)."""
    hashes = None if row_hash is None else np.empty(n, dtype=np.uint64)
    counts = np.empty(n - 1, dtype=np.int64) if neighbours else None
    bits_type = encoding.stored_dtype.bits
    last = None
    for start, stop in _chunks(n, chunk):
        rows = _stored_rows(encoding, np.arange(start, stop, dtype=np.int64))
        if hashes is not None:
            hashes[start:stop] = row_hash(rows)
        if counts is not None:
            bits = rows.view(bits_type)
            if last is not None:
                counts[start - 1] = np.count_nonzero(bits[0] == last)
            counts[start : stop - 1] = np.count_nonzero(bits[1:] == bits[:-1], axis=1)
            last = bits[-1].copy()
    return hashes, counts


def _duplicates(encoding: Sinusoidal, n: int, chunk: int, hashes: np.ndarray) -> DuplicateRows:
    """Pass 2 of `find_duplicate_rows`: the rows sharing a hash, recomputed and compared exactly."""
    candidates, candidate_hashes, hash_matches = _hash_groups(hashes)
    first: tuple[int, int] | None = None
    duplicates = 0
    group_hash, classes = None, []
    for start, stop in _chunks(len(candidates), chunk):
        words = _row_words(_stored_rows(encoding, candidates[start:stop]))
        chunk_hashes = candidate_hashes[start:stop].tolist()
        for offset, position in enumerate(candidates[start:stop].tolist()):
            if chunk_hashes[offset] != group_hash:
                group_hash, classes = chunk_hashes[offset], []
            row = words[offset]
            earlier = next((p for p, seen in classes if np.array_equal(seen, row)), None)
            if earlier is None:
                classes.append((position, row.copy()))
                continue
            duplicates += 1
            if first is None or position < first[1]:
                first = (earlier, position)
    dtype = encoding.stored_dtype.name
    return DuplicateRows(encoding.label, dtype, encoding.d, n, first, duplicates, hash_matches)


def find_duplicate_rows(
    encoding: Sinusoidal,
    n_positions: int,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    row_hash: Callable[[np.ndarray], np.ndarray] = hash_rows,
) -> DuplicateRows:
    """Find the rows among positions 0, …, N−1 that equal an earlier row, within `memory_budget` bytes.

    Pass 1 hashes every row chunk by chunk; rows with equal hashes are candidates. Pass 2 recomputes the
    candidates and compares them exactly, so a hash collision never counts as a duplicate.
    """
    n = require_positive_int(n_positions, "n_positions")
    chunk = _rows_per_chunk(n, encoding.d, memory_budget)
    hashes, _ = _scan_table(encoding, n, chunk, row_hash, neighbours=False)
    return _duplicates(encoding, n, chunk, hashes)


# ------------------------------------------------------------------------------ (c) single dimensions


def neighbour_equal_counts(
    encoding: Sinusoidal, n_positions: int, memory_budget: int = DEFAULT_MEMORY_BUDGET
) -> np.ndarray:
    """For p = 0, …, N−2: how many dims j have PE(p, j) = PE(p+1, j) as stored."""
    n = _require_at_least_two(n_positions)
    chunk = _rows_per_chunk(n, encoding.d, memory_budget)
    return _scan_table(encoding, n, chunk, None, neighbours=True)[1]


def _require_at_least_two(n_positions: object) -> int:
    n = require_positive_int(n_positions, "n_positions")
    if n < 2:
        raise ValueError(f"n_positions must be at least 2 (neighbouring positions p, p+1), got {n}")
    return n


@dataclass(frozen=True)
class NeighbourEquality:
    """How many dims keep their stored value from position p to p+1, summarised over p = 0, …, N−2.

    `first_over_half` is the first p where more than d/2 dims keep their value (None if none);
    `equal_rows` counts the p where all d dims do (row p+1 repeats row p).
    """

    label: str
    dtype: str
    d: int
    n_positions: int
    mean_equal_dims: float
    max_equal_dims: int
    first_over_half: int | None
    equal_rows: int


def neighbour_equality(
    encoding: Sinusoidal, n_positions: int, memory_budget: int = DEFAULT_MEMORY_BUDGET
) -> NeighbourEquality:
    """Summarise `neighbour_equal_counts` for the encoding over positions 0, …, N−1."""
    return _neighbour_summary(encoding, neighbour_equal_counts(encoding, n_positions, memory_budget))


def _neighbour_summary(encoding: Sinusoidal, counts: np.ndarray) -> NeighbourEquality:
    over_half = np.flatnonzero(2 * counts > encoding.d)
    return NeighbourEquality(
        encoding.label,
        encoding.stored_dtype.name,
        encoding.d,
        counts.size + 1,
        float(np.mean(counts)),
        int(np.max(counts)),
        int(over_half[0]) if over_half.size else None,
        int(np.count_nonzero(counts == encoding.d)),
    )


@dataclass(frozen=True)
class TableScan:
    """What one pass over a stored table finds: its duplicate rows, its neighbour equality, and the
    per-position counts (`neighbour_equal_counts`) that summary is made of."""

    duplicates: DuplicateRows
    neighbours: NeighbourEquality
    counts: np.ndarray


def duplicate_rows_and_neighbours(
    encoding: Sinusoidal,
    n_positions: int,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    row_hash: Callable[[np.ndarray], np.ndarray] = hash_rows,
) -> TableScan:
    """`find_duplicate_rows`, `neighbour_equality` and `neighbour_equal_counts` of positions 0, …, N−1 from
    one pass over the table: each row is computed once (the duplicate candidates twice), within
    `memory_budget` bytes."""
    n = _require_at_least_two(n_positions)
    chunk = _rows_per_chunk(n, encoding.d, memory_budget)
    hashes, counts = _scan_table(encoding, n, chunk, row_hash, neighbours=True)
    return TableScan(_duplicates(encoding, n, chunk, hashes), _neighbour_summary(encoding, counts), counts)


def cos_one_angle(nmant: int, value_error: float = 0.0) -> float:
    """Largest angle x whose cosine rounds to 1.0: 1 − cos x = 2^−(m+2), half the spacing just below 1
    (the tie goes to 1.0, whose mantissa is even). With `value_error` e: the x with 1 − cos x = 2^−(m+2) − e
    (0 when that is negative)."""
    with mpmath.workdps(30):
        gap = mpmath.mpf(2) ** -(nmant + 2) - mpmath.mpf(value_error)
        return float(mpmath.acos(1 - gap)) if gap > 0 else 0.0


def _stays_at_one(angle: float, omega: np.ndarray, relative_error: float) -> np.ndarray:
    """How many p = 0, 1, … have p·ω·(1 ± δ) ≤ angle (the run of positions whose cosine stays 1.0)."""
    return np.floor(angle / (omega * (1.0 + relative_error))).astype(np.int64) + 1


def _runs_at_one(encoding: Sinusoidal, n: int, memory_budget: int) -> np.ndarray:
    """For each cos dim 2i+1: the first position whose stored value is not exactly 1.0 (n if none below n)."""
    runs = np.full(encoding.d // 2, n, dtype=np.int64)
    chunk = _rows_per_chunk(n, encoding.d, memory_budget)
    for start, stop in _chunks(n, chunk):
        cos_dims = _stored_rows(encoding, np.arange(start, stop, dtype=np.int64))[:, 1::2]
        left = cos_dims != encoding.stored_dtype.scalar(1.0)
        ended = np.any(left, axis=0) & (runs == n)
        runs[ended] = start + np.argmax(left[:, ended], axis=0)
        if np.all(runs < n):
            break
    return runs


def check_cos_stays_at_one(
    encoding: Sinusoidal,
    n_positions: int,
    angle_error: float | None = None,
    value_error: float = 2.0**-23,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> CheckResult:
    """Cos dim 2i+1 stays exactly 1.0 for the positions p with p·ω_i ≤ arccos(1 − 2^−(m+2)), and no longer.

    The run from p = 0 is measured per dim and must lie in the interval the formula gives once the computed
    angle may be off by a relative `angle_error` (default (ln base + 2)·2^−23, the float32 code's frequencies
    and product) and the computed cosine by `value_error` (default 2^−23, two float32 ulps at 1). Holds for
    encodings computed from exact integer positions. The frequencies ω_i are the encoding's declared ones
    (its base), the runs are measured on its stored table.
    """
    d = encoding.d
    base = float(encoding.base)
    n = require_positive_int(n_positions, "n_positions")
    if d < 2:
        raise ValueError(f"the encoding has no cos dim for d = {d}; d must be at least 2")
    delta = (math.log(base) + 2.0) * 2.0**-23 if angle_error is None else angle_error
    nmant = encoding.stored_dtype.nmant
    omega = encoding.frequencies64()[: d // 2]
    shortest = np.minimum(_stays_at_one(cos_one_angle(nmant, value_error), omega, delta), n)
    longest = np.minimum(_stays_at_one(cos_one_angle(nmant, -value_error), omega, -delta), n)
    measured = _runs_at_one(encoding, n, memory_budget)
    outside = np.maximum(shortest - measured, measured - longest).clip(min=0)
    worst = int(np.lexsort((measured, outside))[-1])
    return CheckResult(
        "cos dims stay at 1.0 while 1 - cos(p*omega) <= 2^-(m+2)",
        bool(np.all(outside == 0)),
        float(outside[worst]),
        0.0,
        {
            "dim": 2 * worst + 1,
            "measured_run": int(measured[worst]),
            "predicted_run": (int(shortest[worst]), int(longest[worst])),
            "dtype": encoding.stored_dtype.name,
        },
    )


@dataclass(frozen=True)
class SmallStepChange:
    """A value whose exact step from position p to p+1 is below half the dtype's spacing and yet changes.

    The exact values straddle the rounding midpoint between two neighbouring stored values, so any correct
    rounding stores them differently. `margin` is the smaller distance of the two exact values (50 digits)
    from the midpoint. `small_steps` counts the (p, dim) with a step below half the spacing in the table,
    `changed` how many of them changed value when cast.
    """

    dtype: str
    d: int
    position: int
    dim: int
    exact_values: tuple[str, str]
    stored_values: tuple[float, float]
    step: float
    half_spacing: float
    midpoint: float
    margin: float
    small_steps: int
    changed: int


def _spacing(values: np.ndarray, spec: DtypeSpec, min_exponent: int) -> np.ndarray:
    """The dtype's spacing at each value: 2^(e−m) for 2^e ≤ |v| < 2^(e+1), e clamped at the normal range."""
    _, exponent = np.frexp(values)
    exponent = np.where(values == 0, min_exponent, np.maximum(exponent - 1, min_exponent))
    return np.ldexp(1.0, exponent - spec.nmant)


def small_step_change(
    encoding: Sinusoidal, dtype: str | DtypeSpec, n_positions: int
) -> SmallStepChange | None:
    """Refute "a value whose step is below half a spacing cannot change": find the clearest such change.

    The encoding's float64 table (`float64_rows`) at positions 0, …, N−1 is cast to the dtype; among the
    (p, j) whose step |PE(p+1, j) − PE(p, j)| is below half the dtype's spacing (same sign and binade on both
    sides) yet whose stored values differ, the one farthest from the rounding midpoint is confirmed at 50
    digits (`rows_mp`).
    """
    spec = dtype_spec(dtype)
    if spec.nmant >= DTYPES["float64"].nmant:
        raise ValueError(f"{spec.name} is not coarser than the float64 table; use float32, float16, bfloat16")
    n = _require_at_least_two(n_positions)
    table = encoding.float64_rows(np.arange(n))
    before, after = table[:-1], table[1:]
    min_exponent = int(ml_dtypes.finfo(spec.scalar).minexp)
    spacing = _spacing(before, spec, min_exponent)
    small = (np.abs(after - before) < spacing / 2) & (spacing == _spacing(after, spec, min_exponent))
    small &= np.sign(before) == np.sign(after)
    stored = spec.cast(table).view(spec.bits)
    changed = small & (stored[:-1] != stored[1:])
    if not np.any(changed):
        return None
    midpoint = (np.floor(before / spacing - 0.5) + 0.5) * spacing
    midpoint = np.where(after > before, midpoint + spacing, midpoint)
    straddles = (before - midpoint) * (after - midpoint) < 0
    clearance = np.minimum(np.abs(before - midpoint), np.abs(after - midpoint))
    p, j = np.unravel_index(int(np.argmax(np.where(changed & straddles, clearance, -1.0))), clearance.shape)
    found = (int(p), int(j), float(midpoint[p, j]), float(spacing[p, j]))
    return _confirmed_small_step(spec, encoding, found, changed, small)


def _confirmed_small_step(
    spec: DtypeSpec,
    encoding: Sinusoidal,
    found: tuple[int, int, float, float],
    changed: np.ndarray,
    small: np.ndarray,
) -> SmallStepChange:
    p, j, midpoint, spacing = found
    row_before, row_after = (row[j] for row in encoding.rows_mp([p, p + 1], dps=50))
    low, high = sorted((row_before, row_after))
    if not low < mpmath.mpf(midpoint) < high or high - low >= mpmath.mpf(spacing) / 2:
        raise ArithmeticError(f"the 50-digit values at p = {p}, dim {j} do not straddle midpoint {midpoint}")
    stored = spec.cast(np.array([float(row_before), float(row_after)]))
    return SmallStepChange(
        spec.name,
        encoding.d,
        p,
        j,
        (mpmath.nstr(row_before, 25), mpmath.nstr(row_after, 25)),
        (float(stored[0]), float(stored[1])),
        float(high - low),
        spacing / 2,
        midpoint,
        float(min(mpmath.mpf(midpoint) - low, high - mpmath.mpf(midpoint))),
        int(np.count_nonzero(small)),
        int(np.count_nonzero(changed)),
    )


# ---------------------------------------------------------------------------- printing, not a dtype


@dataclass(frozen=True)
class RoundedEquality:
    """Neighbouring values (same dim, positions p and p+1) that print identically with `decimals` decimals."""

    d: int
    n_positions: int
    decimals: int
    count: int
    pairs: tuple[tuple[int, int, str], ...]


def printed_equal_neighbours(table: np.ndarray, decimals: int = 4) -> tuple[tuple[int, int, str], ...]:
    """The (p, dim, printed text) where table[p, dim] and table[p+1, dim] print the same with `decimals`."""
    if isinstance(decimals, bool) or not isinstance(decimals, numbers.Integral) or not 0 <= decimals <= 17:
        raise ValueError(f"decimals must be an integer from 0 to 17, got {decimals!r}")
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError(f"table must be 2-dimensional (positions × dims), got shape {table.shape}")
    text = [[f"{value:.{decimals}f}" for value in row] for row in table.tolist()]
    return tuple(
        (p, j, text[p][j])
        for p in range(len(text) - 1)
        for j in range(table.shape[1])
        if text[p][j] == text[p + 1][j]
    )


#: Document 000's table: d = 6 (positions 0–7), the default of `rounded_equal_neighbours`.
DOCUMENT_TABLE = Sinusoidal(6)


def rounded_equal_neighbours(
    encoding: Sinusoidal = DOCUMENT_TABLE, n_positions: int = 8, decimals: int = 4
) -> RoundedEquality:
    """Neighbouring values of the encoding's float64 table that print the same with `decimals` decimals: a
    statement about printing, not about a dtype. The defaults are document 000's table (d = 6, positions 0–7).
    """
    n = require_positive_int(n_positions, "n_positions")
    pairs = printed_equal_neighbours(encoding.float64_rows(np.arange(n)), decimals)
    return RoundedEquality(encoding.d, n, int(decimals), len(pairs), pairs)
