"""Finite precision: colliding positions, duplicate rows and equal neighbouring values, measured per dtype.

Each measurement is compared with a formula or a brute-force recount, and each cross-check is fed a broken
dtype, encoding or scan that it must catch.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal

import ml_dtypes
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.analyses import finite_precision as fp
from pe_verify.properties.analyses.finite_precision import (
    StoredEncoding,
    check_collision_formula,
    check_cos_stays_at_one,
    check_distinct_formula,
    collision_formula,
    common_code_encoding,
    distinct_position_formula,
    distinct_position_values,
    distinct_positions,
    dtype_spec,
    duplicate_rows_and_neighbours,
    find_duplicate_rows,
    first_collision_by_bisection,
    first_collision_by_scan,
    hash_rows,
    neighbour_equal_counts,
    neighbour_equality,
    position_collision,
    printed_equal_neighbours,
    rounded_equal_neighbours,
    scan_memory,
    small_step_change,
)
from pe_verify.properties.encodings.sinusoidal import (
    Sinusoidal,
    frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_mp,
)
from pe_verify.properties.numerics.checking import angle_tolerance

SCALARS = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}


def mantissa_bits(name: str) -> int:
    """The dtype's explicit mantissa bits, read from finfo independently of the module's registry."""
    return int(ml_dtypes.finfo(SCALARS[name]).nmant)


def brute_force_duplicates(encoding: StoredEncoding, n: int) -> tuple[tuple[int, int] | None, int]:
    """First duplicate row and the number of rows repeating an earlier one, from the whole table at once."""
    table = encoding.stored_rows(np.arange(n, dtype=np.int64)).astype(np.float64)
    table[table == 0] = 0.0
    _, first_index, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    representative = first_index[inverse.ravel()]
    repeats = np.flatnonzero(representative != np.arange(n))
    if not repeats.size:
        return None, 0
    return (int(representative[repeats[0]]), int(repeats[0])), int(repeats.size)


def chunked_budget(n: int, d: int, rows_per_chunk: int) -> int:
    """The memory budget under which a scan of n positions × d dims computes `rows_per_chunk` rows a chunk."""
    return scan_memory(n, d) + (rows_per_chunk - 1) * d * fp._BYTES_PER_VALUE


def reference_encoding(
    d: int, name: str = "float64", position_map: Callable[[np.ndarray], np.ndarray] | None = None
) -> StoredEncoding:
    """The float64 reference table cast to `name`; `position_map` lets a test plant equal rows."""
    spec = dtype_spec(name)

    def rows(positions: np.ndarray) -> np.ndarray:
        mapped = positions if position_map is None else position_map(positions)
        return spec.cast(sinusoidal_encoding(mapped, d))

    return StoredEncoding(f"reference in {name}", d, spec, rows)


# ------------------------------------------------------------------------------------------ dtypes


def test_unknown_dtype_lists_the_allowed_names() -> None:
    with pytest.raises(ValueError, match="float64, float32, float16, bfloat16; got 'float8'"):
        dtype_spec("float8")
    with pytest.raises(ValueError, match="dtype must be one of"):
        common_code_encoding(8, np.float16)


@pytest.mark.parametrize("name", list(SCALARS))
def test_registry_reads_mantissa_width_and_range_from_finfo(name: str) -> None:
    spec = dtype_spec(name)
    assert spec.scalar is SCALARS[name]
    assert spec.nmant == mantissa_bits(name)
    assert spec.max_finite == float(ml_dtypes.finfo(SCALARS[name]).max)


# ------------------------------------------------------------------------------- (a) positions


@pytest.mark.parametrize(
    ("name", "known"), [("float16", 2048), ("bfloat16", 256), ("float32", 2**24), ("float64", 2**53)]
)
def test_first_colliding_positions_match_the_mantissa_formula(name: str, known: int) -> None:
    expected = 2 ** (mantissa_bits(name) + 1)
    assert known == expected
    found = position_collision(name)
    assert found.first_collision == expected
    assert found.agrees
    scalar = SCALARS[name]
    assert scalar(expected) == scalar(expected + 1)
    assert scalar(expected - 1) != scalar(expected)
    assert check_collision_formula(name).holds


@pytest.mark.slow
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32"])
def test_bisection_agrees_with_a_full_scan(name: str) -> None:
    assert first_collision_by_scan(name, 2**25) == first_collision_by_bisection(name)


def test_float64_collision_has_no_earlier_collision_nearby() -> None:
    p = first_collision_by_bisection("float64")
    below = np.arange(p - 2**20, p + 1, dtype=np.int64).astype(np.float64)
    assert np.all(np.diff(below) == 1.0)
    assert np.float64(p) == np.float64(p + 1)


@pytest.mark.parametrize("name", list(SCALARS))
@pytest.mark.parametrize("shift", [-1, 1])
def test_wrong_mantissa_width_is_caught_by_the_collision_check(name: str, shift: int) -> None:
    wrong = dataclasses.replace(dtype_spec(name), nmant=dtype_spec(name).nmant + shift)
    result = check_collision_formula(wrong)
    assert not result.holds
    assert result.witness["measured"] == 2 ** (mantissa_bits(name) + 1)


@given(n=st.integers(1, 70_000), name=st.sampled_from(["float16", "bfloat16"]))
def test_distinct_position_count_matches_formula(n: int, name: str) -> None:
    assert check_distinct_formula(name, n).holds


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "n"),
    [("float16", 65_520), ("float16", 65_521), ("float16", 70_000), ("float32", 2**24 + 3), ("float64", 5)],
)
def test_distinct_position_count_matches_np_unique(name: str, n: int) -> None:
    with np.errstate(over="ignore"):
        unique = np.unique(np.arange(n, dtype=np.int64).astype(SCALARS[name])).size
    assert distinct_position_values(name, n) == unique
    assert check_distinct_formula(name, n).holds


@pytest.mark.slow
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32"])
def test_wrong_mantissa_width_is_caught_by_the_distinct_count_check(name: str) -> None:
    wrong = dataclasses.replace(dtype_spec(name), nmant=dtype_spec(name).nmant - 1)
    assert not check_distinct_formula(wrong, 2 ** (mantissa_bits(name) + 3)).holds


def test_distinct_count_formula_counts_overflow_to_inf_once() -> None:
    largest = float(np.finfo(np.float16).max)
    assert distinct_position_formula(10, 65_505, largest) == distinct_position_formula(10, 65_520, largest)
    assert (
        distinct_position_formula(10, 65_521, largest) == distinct_position_formula(10, 65_520, largest) + 1
    )
    assert distinct_position_formula(10, 100_000, largest) == distinct_position_formula(10, 65_521, largest)


@pytest.mark.parametrize("bad", [0, -4, 2.5, True])
def test_position_counts_reject_bad_n(bad: object) -> None:
    with pytest.raises(ValueError, match="n_positions must be a positive integer"):
        distinct_positions("float16", bad)


def test_results_serialise_to_json() -> None:
    text = json.dumps(dataclasses.asdict(position_collision("bfloat16")))
    assert json.loads(text)["first_collision"] == collision_formula(mantissa_bits("bfloat16"))


# ------------------------------------------------------------------------------------ (b) rows


@pytest.mark.parametrize("name", list(SCALARS))
def test_common_code_is_the_sinusoidal_table(name: str) -> None:
    encoding = common_code_encoding(16, name)
    positions = np.arange(50, dtype=np.int64)
    rows = encoding.stored_rows(positions)
    assert rows.dtype == np.dtype(SCALARS[name])
    computation = angle_tolerance(50.0) if name == "float64" else 1e-4
    tolerance = float(ml_dtypes.finfo(SCALARS[name]).eps) + computation
    assert np.max(np.abs(rows.astype(np.float64) - sinusoidal_encoding(positions, 16))) < tolerance


def test_positions_in_dtype_round_the_positions_first() -> None:
    plain = common_code_encoding(8, "bfloat16")
    held = common_code_encoding(8, "bfloat16", positions_in_dtype=True)
    assert "positions rounded to bfloat16" in held.label and "positions" not in plain.label
    rows = held.stored_rows(np.array([257, 256], dtype=np.int64)).view(np.uint16)
    assert np.array_equal(rows[0], rows[1])
    assert not np.array_equal(*plain.stored_rows(np.array([257, 256], dtype=np.int64)).view(np.uint16))


@pytest.mark.slow
@given(
    name=st.sampled_from(list(SCALARS)),
    d=st.integers(1, 6),
    n=st.integers(1, 700),
    held=st.booleans(),
    rows_per_chunk=st.integers(1, 40),
)
def test_duplicate_scan_matches_brute_force(
    name: str, d: int, n: int, held: bool, rows_per_chunk: int
) -> None:
    encoding = common_code_encoding(d, name, positions_in_dtype=held)
    found = find_duplicate_rows(encoding, n, memory_budget=chunked_budget(n, d, rows_per_chunk))
    assert (found.first_duplicate, found.duplicate_rows) == brute_force_duplicates(encoding, n)
    assert found.duplicate_rows <= found.hash_matches


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_positions_in_dtype_repeat_rows_exactly_where_positions_collide(name: str) -> None:
    n = 3000
    p = 2 ** (mantissa_bits(name) + 1)
    found = find_duplicate_rows(common_code_encoding(8, name, positions_in_dtype=True), n)
    assert found.first_duplicate == (p, p + 1)
    assert found.duplicate_rows == n - distinct_position_values(name, n)


def test_planted_duplicate_row_is_found() -> None:
    def plant(positions: np.ndarray) -> np.ndarray:
        return np.where(positions == 300, 123, positions)

    found = find_duplicate_rows(
        reference_encoding(32, position_map=plant), 400, memory_budget=chunked_budget(400, 32, 7)
    )
    assert (found.first_duplicate, found.duplicate_rows) == ((123, 300), 1)
    assert find_duplicate_rows(reference_encoding(32), 400).first_duplicate is None


def test_equal_hashes_alone_do_not_make_duplicates() -> None:
    def constant_hash(rows: np.ndarray) -> np.ndarray:
        return np.zeros(len(rows), dtype=np.uint64)

    encoding = reference_encoding(4, "bfloat16", position_map=lambda p: np.where(p % 50 == 7, 7, p))
    exact = find_duplicate_rows(encoding, 200)
    colliding = find_duplicate_rows(encoding, 200, row_hash=constant_hash)
    assert colliding.hash_matches == 199
    assert (colliding.first_duplicate, colliding.duplicate_rows) == (
        exact.first_duplicate,
        exact.duplicate_rows,
    )
    assert (exact.first_duplicate, exact.duplicate_rows) == brute_force_duplicates(encoding, 200)
    assert exact.duplicate_rows >= 3


@pytest.mark.slow
def test_half_row_hash_needs_the_exact_comparison() -> None:
    """Rows equal in their first half and different in the second: hashing only the first half makes every
    row a candidate; a scan that trusted hashes would report them all, the exact comparison reports none."""
    d = 16

    def rows(positions: np.ndarray) -> np.ndarray:
        table = np.zeros((len(positions), d))
        table[:, d // 2 :] = positions[:, None] + 1.0
        return table

    def first_half_hash(table: np.ndarray) -> np.ndarray:
        return hash_rows(table[:, : table.shape[1] // 2])

    encoding = StoredEncoding("differs only in the second half", d, dtype_spec("float64"), rows)
    weak = find_duplicate_rows(encoding, 300, row_hash=first_half_hash)
    assert weak.hash_matches == 299
    assert (weak.first_duplicate, weak.duplicate_rows) == (None, 0)
    assert find_duplicate_rows(encoding, 300).hash_matches == 0


def test_hash_separates_rows_differing_in_one_word() -> None:
    """Sixteen float16 values are four 64-bit words; changing any one word must change the hash."""
    rng = np.random.default_rng(3)
    base = rng.integers(0, 2**16, size=16, dtype=np.uint16)
    variants = np.repeat(base[None, :], 400, axis=0)
    for k, row in enumerate(variants):
        word = k % 4
        row[4 * word : 4 * word + 4] = rng.integers(0, 2**16, size=4, dtype=np.uint16)
    changed = np.any(variants != base, axis=1)
    hashes = hash_rows(np.vstack([base, variants]).view(np.float16))
    assert np.all((hashes[1:] != hashes[0]) == changed)


def test_negative_zero_counts_as_zero() -> None:
    def signed_zeros(positions: np.ndarray) -> np.ndarray:
        return np.where(positions % 2 == 0, -0.0, 0.0).astype(np.float32)[:, None]

    encoding = StoredEncoding("signed zeros", 1, dtype_spec("float32"), signed_zeros)
    assert find_duplicate_rows(encoding, 4).first_duplicate == (0, 1)
    assert find_duplicate_rows(encoding, 4).duplicate_rows == 3
    assert neighbour_equality(encoding, 4).equal_rows == 3


def test_scan_beyond_the_memory_budget_says_the_size() -> None:
    encoding = common_code_encoding(4096, "bfloat16")
    needed = 10_000_000 * fp._BYTES_PER_POSITION + 4096 * fp._BYTES_PER_VALUE
    assert scan_memory(10_000_000, 4096) == needed
    with pytest.raises(ValueError, match=rf"needs at least {needed} bytes.*budget is 1048576 bytes"):
        find_duplicate_rows(encoding, 10_000_000, memory_budget=2**20)
    with pytest.raises(ValueError, match=rf"needs at least {needed} bytes"):
        duplicate_rows_and_neighbours(encoding, 10_000_000, memory_budget=2**20)


def test_bad_encodings_are_rejected() -> None:
    spec = dtype_spec("float32")
    wrong_shape = StoredEncoding("wrong shape", 4, spec, lambda p: np.zeros((len(p), 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"shape \(5, 4\)"):
        find_duplicate_rows(wrong_shape, 5)
    wrong_dtype = StoredEncoding("wrong dtype", 4, spec, lambda p: np.zeros((len(p), 4)))
    with pytest.raises(ValueError, match="dtype float32"):
        find_duplicate_rows(wrong_dtype, 5)
    nan = StoredEncoding("nan", 1, spec, lambda p: np.full((len(p), 1), np.nan, dtype=np.float32))
    with pytest.raises(ValueError, match="must be finite"):
        find_duplicate_rows(nan, 5)
    with pytest.raises(ValueError, match="exceed the largest finite float16"):
        find_duplicate_rows(common_code_encoding(2, "float16", positions_in_dtype=True), 70_000)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0, "float16"), "d must be a positive integer"),
        ((8.0, "float16"), "d must be a positive integer"),
        ((8, "float16", 1.0), "base must be a finite real number greater than 1"),
        ((8, "float16", float("nan")), "base must be a finite real number greater than 1"),
        ((8, "int8"), "dtype must be one of"),
    ],
)
def test_common_code_rejects_bad_input(arguments: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        common_code_encoding(*arguments)


@pytest.mark.parametrize("n", [0, -1, 1.5])
def test_scans_reject_bad_n(n: object) -> None:
    encoding = common_code_encoding(4, "float16")
    with pytest.raises(ValueError, match="n_positions must be"):
        find_duplicate_rows(encoding, n)
    with pytest.raises(ValueError, match="n_positions must be"):
        neighbour_equality(encoding, n)


def test_neighbours_need_two_positions() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        neighbour_equal_counts(common_code_encoding(4, "float16"), 1)


# -------------------------------------------------------------------------- (c) single dimensions


@pytest.mark.slow
@given(name=st.sampled_from(list(SCALARS)), d=st.integers(1, 24), n=st.integers(2, 400), held=st.booleans())
def test_neighbour_counts_match_a_direct_comparison(name: str, d: int, n: int, held: bool) -> None:
    encoding = common_code_encoding(d, name, positions_in_dtype=held)
    table = encoding.stored_rows(np.arange(n, dtype=np.int64)).astype(np.float64)
    direct = np.sum(table[1:] == table[:-1], axis=1)
    counts = neighbour_equal_counts(encoding, n, memory_budget=chunked_budget(n, d, 3))
    assert np.array_equal(counts, direct)
    summary = neighbour_equality(encoding, n)
    assert summary.max_equal_dims == direct.max()
    assert summary.mean_equal_dims == pytest.approx(direct.mean())
    over = [p for p, count in enumerate(direct) if 2 * count > d]
    assert summary.first_over_half == (over[0] if over else None)
    assert summary.equal_rows == int(np.sum(direct == d))


class CountedRows(StoredEncoding):
    """A stored table that counts the rows it is asked for."""

    def __init__(self, encoding: Sinusoidal) -> None:
        super().__init__(encoding.label, encoding.d, encoding.stored_dtype, self._counted)
        object.__setattr__(self, "inner", encoding)
        object.__setattr__(self, "computed", [])

    def _counted(self, positions: np.ndarray) -> np.ndarray:
        self.computed.append(len(positions))
        return self.inner.stored_rows(positions)


@pytest.mark.slow
@given(
    name=st.sampled_from(list(SCALARS)),
    d=st.integers(1, 6),
    n=st.integers(2, 300),
    held=st.booleans(),
    rows_per_chunk=st.integers(1, 40),
)
def test_one_pass_gives_both_scans_and_computes_each_row_once(
    name: str, d: int, n: int, held: bool, rows_per_chunk: int
) -> None:
    """The shared pass answers as the two scans do, computing every row once and the rows that share a
    hash (the candidates the exact comparison reads) once more."""
    encoding = CountedRows(common_code_encoding(d, name, positions_in_dtype=held))
    budget = chunked_budget(n, d, rows_per_chunk)
    scan = duplicate_rows_and_neighbours(encoding, n, memory_budget=budget)
    computed = sum(encoding.computed)
    assert scan.duplicates == find_duplicate_rows(encoding, n, memory_budget=budget)
    equal_dims = neighbour_equal_counts(encoding, n, memory_budget=budget)
    assert np.array_equal(scan.counts, equal_dims)
    assert scan.neighbours == fp._neighbour_summary(encoding, equal_dims)  # what neighbour_equality gives
    hashes = hash_rows(fp._stored_rows(encoding.inner, np.arange(n, dtype=np.int64)))
    counts = np.unique(hashes, return_counts=True)[1]
    assert computed == n + counts[counts > 1].sum()


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_equal_consecutive_rows_are_the_colliding_positions(name: str) -> None:
    n = 5000
    summary = neighbour_equality(common_code_encoding(6, name, positions_in_dtype=True), n)
    assert summary.equal_rows == n - distinct_position_values(name, n)
    assert summary.first_over_half is not None and summary.first_over_half <= collision_formula(
        mantissa_bits(name)
    )


@given(
    name=st.sampled_from(["float32", "float16", "bfloat16"]),
    d=st.sampled_from([2, 8, 64, 256]),
    base=st.sampled_from([100.0, 10000.0, 500000.0]),
)
def test_cos_dims_stay_at_one_as_the_formula_says(name: str, d: int, base: float) -> None:
    assert check_cos_stays_at_one(common_code_encoding(d, name, base=base), 4000)


def test_cos_at_one_formula_is_the_half_ulp_condition() -> None:
    """Independently of the module: for bfloat16 the run of 1.0 ends where (pω)²/2 passes 2^−9."""
    d, base = 64, 10000.0
    omega = frequencies(d, base)[d // 2 - 1]
    table = common_code_encoding(d, "bfloat16", base=base).stored_rows(np.arange(2000, dtype=np.int64))
    run = int(np.argmax(table[:, d - 1] != ml_dtypes.bfloat16(1.0)))
    assert (run - 1) * omega <= np.sqrt(2 * 2.0**-9) * (1 + 1e-3)
    assert run * omega > np.sqrt(2 * 2.0**-9) * (1 - 1e-3)


def test_cos_check_catches_a_coarser_dtype_than_declared() -> None:
    coarse = common_code_encoding(64, "bfloat16")
    mislabelled = StoredEncoding(
        "bfloat16 values declared float16",
        64,
        dtype_spec("float16"),
        lambda p: coarse.stored_rows(p).astype(np.float16),
    )
    result = check_cos_stays_at_one(mislabelled, 2000)
    assert not result.holds
    assert result.witness["measured_run"] > result.witness["predicted_run"][1]


class TableFromAnotherBase(Sinusoidal):
    """Declares its base, but stores the table of base 1000."""

    def stored_rows(self, positions: np.ndarray) -> np.ndarray:
        return Sinusoidal(self.d, 1000.0, dtype=self.dtype).stored_rows(positions)


def test_cos_check_catches_a_wrong_base() -> None:
    assert check_cos_stays_at_one(common_code_encoding(64, "float16"), 2000)
    assert not check_cos_stays_at_one(TableFromAnotherBase(64, 10000.0, dtype="float16"), 2000)


@pytest.mark.slow
def test_cos_check_flags_positions_held_in_bfloat16() -> None:
    """Positions rounded to bfloat16 (spacing 128 near 2^14) move the end of the long runs of 1.0."""
    base = 500000.0
    held = common_code_encoding(512, "bfloat16", base=base, positions_in_dtype=True)
    assert check_cos_stays_at_one(common_code_encoding(512, "bfloat16", base=base), 40_000)
    assert not check_cos_stays_at_one(held, 40_000)


def test_cos_check_needs_a_cos_dim() -> None:
    with pytest.raises(ValueError, match="no cos dim"):
        check_cos_stays_at_one(common_code_encoding(1, "float16"), 10)


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_a_step_below_half_a_spacing_can_still_change_the_value(name: str) -> None:
    found = small_step_change(Sinusoidal(64), name, 2048)
    assert found is not None
    assert found.step < found.half_spacing
    assert found.stored_values[0] != found.stored_values[1]
    assert 0 < found.changed <= found.small_steps
    with mpmath.workdps(50):
        exact = [row[found.dim] for row in sinusoidal_encoding_mp([found.position, found.position + 1], 64)]
        assert abs(exact[1] - exact[0]) < found.half_spacing
        assert (exact[0] - found.midpoint) * (exact[1] - found.midpoint) < 0
    stored = SCALARS[name](float(exact[0])), SCALARS[name](float(exact[1]))
    assert stored[0] != stored[1]


def test_small_step_needs_a_coarser_dtype() -> None:
    with pytest.raises(ValueError, match="not coarser than the float64 table"):
        small_step_change(Sinusoidal(8), "float64", 100)


# ------------------------------------------------------------------------- printing, not a dtype


def test_document_000_table_prints_equal_neighbours() -> None:
    found = rounded_equal_neighbours()
    assert (found.d, found.n_positions, found.decimals) == (6, 8, 4)
    exact = sinusoidal_encoding_mp(range(8), 6, dps=30)
    quantum = Decimal("0.0001")
    text = [
        [str(Decimal(mpmath.nstr(v, 25)).quantize(quantum, ROUND_HALF_EVEN)) for v in row] for row in exact
    ]
    expected = [(p, j, text[p][j]) for p in range(7) for j in range(6) if text[p][j] == text[p + 1][j]]
    assert list(found.pairs) == expected
    assert found.count == len(expected) > 0


def test_printed_ones_follow_the_cosine_threshold() -> None:
    """cos x prints as 1.0000 exactly while x ≤ arccos(0.99995), so the last-dim pairs at 1.0000 are known."""
    omega = frequencies(6)[2]
    limit = float(mpmath.acos(mpmath.mpf("0.99995")))
    ones = [(p, j) for p, j, text in rounded_equal_neighbours().pairs if text == "1.0000"]
    assert ones == [(p, 5) for p in range(7) if (p + 1) * omega <= limit]


def test_printing_depends_on_the_rounding_boundary() -> None:
    assert printed_equal_neighbours(np.array([[0.12344], [0.12341]])) == ((0, 0, "0.1234"),)
    assert printed_equal_neighbours(np.array([[0.12344], [0.12346]])) == ()
    assert len(rounded_equal_neighbours(decimals=2).pairs) > len(rounded_equal_neighbours(decimals=4).pairs)


@pytest.mark.parametrize("decimals", [-1, 18, 2.0, True])
def test_printing_rejects_bad_decimals(decimals: object) -> None:
    with pytest.raises(ValueError, match="decimals must be an integer"):
        printed_equal_neighbours(np.zeros((2, 2)), decimals)


# ------------------------------------------------------------------------------------- deep run


@pytest.mark.slow
@pytest.mark.parametrize("held", [False, True])
def test_deep_bfloat16_scan(held: bool) -> None:
    d, base, n = 4096, 500000.0, 131_072
    encoding = common_code_encoding(d, "bfloat16", base=base, positions_in_dtype=held)
    start = time.perf_counter()
    rows = find_duplicate_rows(encoding, n)
    scanned = time.perf_counter() - start
    neighbours = neighbour_equality(encoding, n)
    print(f"\n{rows}\n  duplicate scan {scanned:.1f} s\n{neighbours}")
    assert rows.duplicate_rows <= rows.hash_matches
    if held:
        p = collision_formula(mantissa_bits("bfloat16"))
        assert rows.first_duplicate == (p, p + 1)
        largest = dtype_spec("bfloat16").max_finite
        assert rows.duplicate_rows == n - distinct_position_formula(mantissa_bits("bfloat16"), n, largest)
    elif rows.first_duplicate is not None:
        pair = encoding.stored_rows(np.array(rows.first_duplicate, dtype=np.int64)).view(np.uint16)
        assert np.array_equal(pair[0], pair[1])
