"""Which values of the sinusoidal encoding coincide, for one (d, base) over positions 0 ≤ p < N: exactly, in a
dtype, and nearly.

PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), ω_i = base^(−2i/d). Two dims coincide exactly somewhere ⇔
they are of the same kind (both sin or both cos) and their frequency ratio is rational, i.e. their frequency
indices differ by a multiple of the ratio step of `proofs.number_theory`; the witness with the smallest
positions is then (den, num) with base^(2s/d) = num/den. `analyse` gives every answer for one setting — the
exact decisions of `proofs.uniqueness`, the dtype experiments of `finite_precision` and the high-precision
scans of `near_collision` — and names the kind of evidence behind each: exact, digits (mpmath at the stated
precision), or dtype experiment (numpy casts in the named dtype).

Nothing is allocated before `plan` has estimated what every answer needs — peak memory from the sizes of the
arrays it builds, time from rates measured on a 2-core machine and rounded up — and `analyse` refuses settings
beyond the limits it is given (`LimitExceeded`, naming the answer and the estimate). The exact answers need
the prime factorisation of the base, so a base with a large composite factor that cannot be factored quickly
is refused too.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from pe_verify.proofs.number_theory import frequency_count, power_exponent, ratio_step
from pe_verify.proofs.uniqueness import (
    ValuePair,
    cross_dim_exact_exists,
    cross_dimension_coincidence,
    dimension_collision,
    document_argument_holds,
)

from ..checks.exact_coincidence import check_witnesses
from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import exact_decimal, require_positive_int
from .finite_precision import (
    DuplicateRows,
    NeighbourEquality,
    common_code_encoding,
    dtype_spec,
    duplicate_rows_and_neighbours,
    position_collision,
    scan_memory,
)
from .near_collision import MAX_POSITION, nearest_cross_dimension_pair
from .separation import certified_separation, decimal_floor, separation_memory, separation_seconds

#: Evidence kinds of an `Answer`.
EXACT = "exact"
DIGITS = "digits"
DTYPE = "dtype experiment"
NOT_COMPUTED = "not computed"

DPS = 50
GIB = 2**30

#: The answers `analyse` gives, in order.
ANSWERS = (
    "position_collision",
    "vector_collision",
    "document_argument",
    "cross_dim_exact_exists",
    "cross_dim_witness",
    "cross_dim_nearest",
    "same_dim_collisions",
    "vector_nearest",
)

#: What a `LimitExceeded` is about.
MEMORY = "memory"
TIME = "time"

#: Composite factors of the base up to this size are factored quickly (above it factoring can take hours).
_FACTORABLE = 10**20
_TRIAL_LIMIT = 10**5

# Measured rates (seconds) and sizes (bytes) behind `plan`, rounded up (rough on purpose). Measured with
# `pe-verify collisions --d 512 --max-pos 10000000` on a 2-core machine: the float32 table scan took 4.1e-8 s
# per entry and 33 bytes per position, the cross-dimension scan 1.9e-7 s per value (2e7 values) and 23 bytes
# per value (22 at 1e8 values, d = 512).
_SECONDS_PER_STORED_VALUE = 6e-8  # the dtype scan, per table entry computed in float32, hashed and compared
_SECONDS_PER_SCANNED_VALUE = 3e-7  # the cross-dimension scan, per value sorted, searched and re-ranked
_SECONDS_PER_DIM = 5e-5  # mpmath frequencies and witness values, per dimension
_SECONDS_PER_MASK_ENTRY = 1e-8  # the d×d table of dim pairs left out of the cross-dimension scan
_SECONDS_PER_RATIO = 1e-4  # one exact frequency ratio of the document's argument
_SORT_BYTES_PER_VALUE = 28  # `near_collision`: value + i·label (16) and the candidates with their labels
_MASK_COPIES = 4  # the d×d boolean tables alive while the cross-dimension exclusion is built
_MP_BYTES_PER_VALUE = 400  # one mpmath number at about 60 digits, with its Python object


# ---------------------------------------------------------------------------------------------------------
# The base
# ---------------------------------------------------------------------------------------------------------


def require_analysable_base(base: object, written: str | None = None) -> Fraction:
    """`base` as a Fraction when it is a rational greater than 1 whose nearest float64 exceeds 1 too (the
    dtype experiments and scans compute in floating point) and whose numerator and denominator factor quickly
    (the exact answers need the factorisation). Messages name the base as `written` (default: its value)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Rational):
        raise ValueError(f"base must be a rational number greater than 1, got {base!r}")
    value = Fraction(base)
    shown = str(value) if written is None else written
    if value <= 1:
        raise ValueError(f"base must be a rational number greater than 1, got {shown}")
    try:
        nearest = float(value)
    except OverflowError:
        raise ValueError(
            f"base {shown} is beyond the largest float64 (about 1.8e308), which the dtype experiments "
            "and scans compute with"
        ) from None
    if nearest <= 1:
        raise ValueError(
            f"base {shown} is greater than 1 but its nearest float64 is {nearest!r}, and the dtype "
            "experiments and scans need a base whose float64 value exceeds 1"
        )
    factor = unfactored_part(value)
    if factor is not None:
        raise ValueError(
            f"base {shown} cannot be factored quickly (a composite part of {len(str(factor))} "
            "digits remains after trial division), and the exact answers need its prime factorisation"
        )
    return value


def unfactored_part(base: Fraction) -> int | None:
    """A composite factor of the numerator or denominator of `base` at or above 10^20 that trial division up
    to 10^5 leaves and that is no prime power (factoring it may take hours), or None when there is none."""
    for part in (base.numerator, base.denominator):
        for factor in sp.factorint(part, limit=_TRIAL_LIMIT, use_rho=False, use_pm1=False, use_ecm=False):
            if factor >= _FACTORABLE and not _prime_power(factor):
                return factor
    return None


def _prime_power(n: int) -> bool:
    """Whether n = p^e for a prime p (these factor at once; other large composites may take hours)."""
    root = sp.perfect_power(n)
    return sp.isprime(root[0] if root else n)


# ---------------------------------------------------------------------------------------------------------
# Exact coincidences of dims
# ---------------------------------------------------------------------------------------------------------


def exact_coincidence_mask(d: int, base: Fraction) -> np.ndarray:
    """The d×d mask of dim pairs that coincide exactly somewhere (rational frequency ratio, same kind).

    Dims j1 ≠ j2 coincide exactly ⇔ both are sin or both cos and their frequency indices differ by a
    multiple of `ratio_step` (ω_i/ω_j = b^(2(j−i)/d) is rational exactly then): the mask compares one key
    per dim, kind + 2·(index mod step), with no per-pair work.
    """
    d = require_positive_int(d, "d")
    step = ratio_step(d, base)
    if step >= frequency_count(d):
        return np.zeros((d, d), dtype=bool)
    dims = np.arange(d)
    key = dims % 2 + 2 * ((dims // 2) % step)
    mask = key[:, None] == key[None, :]
    np.fill_diagonal(mask, False)
    return mask


def coinciding_pair_count(d: int, base: Fraction) -> int:
    """How many dim pairs dim1 < dim2 coincide exactly: for each multiple k of the ratio step, the sin pairs
    (2i, 2i + 2k) and the cos pairs (2i + 1, 2i + 2k + 1) that fit in d dims."""
    count, step = frequency_count(d), ratio_step(d, base)
    return sum((count - k) + max(0, d // 2 - k) for k in range(step, count, step))


def first_witness(d: int, base: Fraction) -> ValuePair | None:
    """The exact coincidence with the smallest positions (then the smallest dims), or None when none exists.

    A pair of frequency indices i < j coincides ⇔ j − i = k·s (s the ratio step); its witness is
    (p1, p2) = (den^k, num^k) with b^(2s/d) = num/den > 1, so k = 1 has the smallest positions, and among
    those the pair (dim 0, dim 2s) the smallest dims: no other pair needs to be built.
    """
    step = ratio_step(d, base)
    if step >= frequency_count(d):
        return None
    return cross_dimension_coincidence(d, base, 0, 2 * step).witness


# ---------------------------------------------------------------------------------------------------------
# What each answer needs
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One answer: the value reported (JSON-ready), what it means, and the kind of evidence behind it."""

    value: object
    summary: str
    evidence: str


@dataclass(frozen=True)
class Need:
    """What computing one answer is estimated to take: peak bytes (`holding` says of what) and seconds."""

    answer: str
    bytes: int
    seconds: float
    holding: str


class LimitExceeded(ValueError):
    """Settings whose estimated memory or time exceed the limits; `resource` is MEMORY or TIME."""

    def __init__(self, message: str, resource: str) -> None:
        super().__init__(message)
        self.resource = resource


def scan_positions(d: int, max_pos: int, scan_values: int) -> int:
    """Positions the cross-dimension scan covers: all of them, or as many as `scan_values` values allow."""
    return min(max_pos, max(2, scan_values // d))


def plan(d: int, base: Fraction, max_pos: int, scan_values: int) -> list[Need]:
    """The estimated memory and time of each answer (`analyse` computes them one after another)."""
    table = max_pos * d
    scanned = scan_positions(d, max_pos, scan_values) * d
    needs = [
        Need(
            "vector_collision",
            scan_memory(max_pos, d),
            table * _SECONDS_PER_STORED_VALUE,
            f"one pass over the {max_pos:.3g} × {d} table, shared with same_dim_collisions: "
            f"{scan_memory(max_pos, d) / max_pos:.0f} bytes per position and a few rows at a time",
        ),
        Need("document_argument", 0, _document_argument_seconds(d, base), "exact ratios"),
        Need("cross_dim_witness", 2 * d * _MP_BYTES_PER_VALUE, d * _SECONDS_PER_DIM, "two rows at 50 digits"),
        Need(
            "cross_dim_nearest",
            scanned * _SORT_BYTES_PER_VALUE + _MASK_COPIES * d * d,
            scanned * _SECONDS_PER_SCANNED_VALUE + d * _SECONDS_PER_DIM + d * d * _SECONDS_PER_MASK_ENTRY,
            f"{scanned:.3g} sorted values and the {d}×{d} table of dim pairs",
        ),
        Need("same_dim_collisions", 0, 0.0, "the table scan of vector_collision"),
    ]
    if d % 2 == 0:
        needs.append(
            Need(
                "vector_nearest",
                separation_memory(d, max_pos),
                separation_seconds(d, float(base), max_pos),
                "the certified separation search: its tree, leaf table and float32 screen "
                "(`separation.separation_memory`)",
            )
        )
    return needs


def _document_argument_seconds(d: int, base: Fraction) -> float:
    """The ratio argument stops at its first irrational ratio; only when d | 2E (b = r^E) are all compared."""
    if (2 * power_exponent(base)) % d:
        return 0.0
    usable = d // 2
    return usable * (usable - 1) / 2 * _SECONDS_PER_RATIO


def check_limits(needs: list[Need], max_bytes: float, max_seconds: float) -> None:
    """LimitExceeded for the largest need beyond `max_bytes`, or a total time beyond `max_seconds`."""
    largest = max(needs, key=lambda need: need.bytes)
    if largest.bytes > max_bytes:
        raise LimitExceeded(
            f"{largest.answer} needs about {largest.bytes / GIB:.3g} GiB ({largest.holding}) and the limit "
            f"is {max_bytes / GIB:.3g} GiB",
            MEMORY,
        )
    seconds = sum(need.seconds for need in needs)
    if seconds > max_seconds:
        raise LimitExceeded(
            f"this analysis would take about {seconds / 60:.3g} minutes (a rough estimate) and the limit is "
            f"{max_seconds / 60:.3g} minutes",
            TIME,
        )


# ---------------------------------------------------------------------------------------------------------
# The answers
# ---------------------------------------------------------------------------------------------------------


def _table_answers(
    encoding: Sinusoidal, max_pos: int, budget: int
) -> tuple[DuplicateRows, NeighbourEquality]:
    """The stored table's duplicate rows and neighbour equality from one pass; its per-position counts
    (8 bytes a position) are not kept while the other answers run."""
    scan = duplicate_rows_and_neighbours(encoding, max_pos, memory_budget=budget)
    return scan.duplicates, scan.neighbours


def analyse(
    d: int,
    base: Fraction,
    max_pos: int,
    dtype: str,
    scan_values: int,
    *,
    max_bytes: float,
    max_seconds: float,
    on_answer: Callable[[str], None] | None = None,
) -> dict[str, Answer]:
    """Every collision question for sinusoidal PE (d, base) over positions 0 ≤ p < max_pos, in `dtype`.

    The settings are checked and their needs estimated before anything is computed (LimitExceeded beyond
    the limits); `on_answer(key)` is called as each answer is done.
    """
    d = require_positive_int(d, "d")
    max_pos = require_positive_int(max_pos, "max_pos")
    scan_values = require_positive_int(scan_values, "scan_values")
    if max_pos < 2:
        raise ValueError(f"max_pos must be at least 2 (two positions to compare), got {max_pos}")
    if max_pos > MAX_POSITION:
        raise ValueError(
            f"max_pos must be at most 2^32 = {MAX_POSITION} (the scans' accurate float64 values need "
            f"positions below it), got {max_pos}"
        )
    base = require_analysable_base(base)
    spec = dtype_spec(dtype)
    check_limits(plan(d, base, max_pos, scan_values), max_bytes, max_seconds)
    table = functools.cache(
        lambda: _table_answers(common_code_encoding(d, spec.name, float(base)), max_pos, int(max_bytes))
    )
    steps: dict[str, Callable[[], Answer]] = {
        "position_collision": lambda: _position_collision(spec.name, max_pos),
        "vector_collision": lambda: _vector_collision(table()[0], max_pos),
        "document_argument": lambda: _document_argument(d, base),
        "cross_dim_exact_exists": lambda: _cross_dim_exact_exists(d, base),
        "cross_dim_witness": lambda: _cross_dim_witness(d, base),
        "cross_dim_nearest": lambda: _cross_dim_nearest(d, base, max_pos, scan_values),
        "same_dim_collisions": lambda: _same_dim_collisions(d, base, table()[1], spec.name),
        "vector_nearest": lambda: _vector_nearest(d, base, max_pos),
    }
    answers = {}
    for key, compute in steps.items():
        answers[key] = compute()
        if on_answer is not None:
            on_answer(key)
    return answers


def _position_collision(dtype: str, max_pos: int) -> Answer:
    """The first two integer positions that `dtype` stores as the same number, when both are below max_pos."""
    found = position_collision(dtype)
    p = found.first_collision
    value = {"p1": p, "p2": p + 1} if p + 1 < max_pos else None
    where = f"first at positions {p} and {p + 1} (both stored as {found.stored_value:g})"
    check = "agrees with" if found.agrees else "DIFFERS from"
    summary = f"integer positions held in {dtype}: {where}; {check} the formula 2^(m+1) = {found.formula}"
    return Answer(value, summary, DTYPE)


def _vector_collision(found: DuplicateRows, max_pos: int) -> Answer:
    """The first two positions whose encodings, computed in float32 and stored in the dtype, are equal rows
    (`found`: the table scan shared with `_same_dim_collisions`)."""
    value = _pair(found.first_duplicate)
    first = "none" if value is None else f"first rows {value['p1']} and {value['p2']}"
    summary = (
        f"{found.label}, positions < {max_pos}: {first}; "
        f"{found.duplicate_rows} rows equal an earlier row (compared exactly)"
    )
    return Answer(value, summary, DTYPE)


def _document_argument(d: int, base: Fraction) -> Answer:
    """Whether the ratio argument of the document's Proof 1 reaches its contradiction for (d, base)."""
    verdict = document_argument_holds(d, base)
    state = "reaches its contradiction" if verdict.holds else "does not reach its contradiction"
    return Answer(
        {"holds": verdict.holds, "reason": verdict.reason},
        f"the ratio argument of Proof 1 {state}: {verdict.reason}",
        EXACT,
    )


def _cross_dim_exact_exists(d: int, base: Fraction) -> Answer:
    """Whether two different dims take the same value at some positions, decided exactly."""
    exists = cross_dim_exact_exists(d, base)
    if exists:
        summary = (
            f"{coinciding_pair_count(d, base)} dim pairs have a rational frequency ratio and coincide exactly"
        )
    elif d == 1:
        summary = "d = 1 has a single dimension: no two dims to coincide"
    elif frequency_count(d) == 1:
        summary = (
            "no two dims coincide exactly at different positions: the two dims share the one frequency, and "
            "a sin value never equals a cos value"
        )
    else:
        summary = (
            "no two dims coincide exactly at different positions: every ratio of two different frequencies "
            "is irrational, and a sin value never equals a cos value"
        )
    return Answer(exists, summary, EXACT)


def _cross_dim_witness(d: int, base: Fraction) -> Answer:
    """The first exact coincidence of two dims (`first_witness`), confirmed to DPS digits."""
    witness = first_witness(d, base)
    if witness is None:
        return Answer(None, "no witness: no exact coincidence exists", EXACT)
    confirmed = check_witnesses(Sinusoidal(d, str(base)), [tuple(witness)], DPS)
    value = {"p1": witness.p1, "dim1": witness.dim1, "p2": witness.p2, "dim2": witness.dim2}
    agreement = "agree" if confirmed.holds else "DO NOT agree"
    summary = (
        f"PE({witness.p1}, dim {witness.dim1}) = PE({witness.p2}, dim {witness.dim2}) exactly "
        f"(p1·ω = p2·ω' with a rational ratio); the values {agreement} to {DPS} digits "
        f"(difference {confirmed.max_error:.1e})"
    )
    return Answer(value, summary, EXACT if confirmed.holds else DIGITS)


def _cross_dim_nearest(d: int, base: Fraction, max_pos: int, scan_values: int) -> Answer:
    """The closest values of two dims that cannot coincide exactly, over the first `scan_positions`."""
    if d < 2:
        return Answer(None, "d = 1 has a single dimension: no pair of different dims", EXACT)
    n = scan_positions(d, max_pos, scan_values)
    found = nearest_cross_dimension_pair(
        Sinusoidal(d, float(base)), n, exclude=exact_coincidence_mask(d, base), dps=DPS
    )
    (p1, dim1), (p2, dim2) = found.nearest.first, found.nearest.second
    gap = found.nearest.gap
    value = {
        "p1": p1,
        "dim1": dim1,
        "p2": p2,
        "dim2": dim2,
        "gap": float(gap),
        "gap_digits": mpmath.nstr(gap, 30),
        "max_pos": n,
        "ranking": found.evidence,
    }
    scope = f"positions < {n}" + ("" if n == max_pos else f" (scan capped at {scan_values:.0e} values)")
    summary = (
        f"over {scope}, among dim pairs that cannot coincide exactly: PE({p1}, dim {dim1}) and "
        f"PE({p2}, dim {dim2}) differ by {mpmath.nstr(gap, 12)} (mpmath {found.dps} digits; "
        f"{len(found.candidates)} candidates re-ranked; {found.evidence})"
    )
    return Answer(value, summary, DIGITS)


def _same_dim_collisions(d: int, base: Fraction, stored: NeighbourEquality, dtype: str) -> Answer:
    """Repeats within one dim: exactly over all integers (first sin and cos dims), and between neighbouring
    positions once stored in `dtype` (`stored`: the table scan shared with `_vector_collision`)."""
    kinds = {"sin": 0, "cos": 1}
    exact = {}
    for kind, dim in kinds.items():
        if dim < d:
            verdict = dimension_collision(d, base, dim, allow_negative=True)
            exact[kind] = _pair(verdict.witness)
    in_dtype = {
        "mean_equal_dims": round(stored.mean_equal_dims, 6),
        "max_equal_dims": stored.max_equal_dims,
        "first_over_half": stored.first_over_half,
        "equal_rows": stored.equal_rows,
    }
    value = {"exact_over_integers": exact, "dtype": in_dtype}
    cos = exact.get("cos")
    cos_text = "" if cos is None else f"; a cos dim repeats at ({cos['p1']}, {cos['p2']}) over all integers"
    summary = (
        f"exact: no dimension repeats a value over non-negative positions{cos_text}. In {dtype} "
        f"(stored after float32 computation), a row keeps {stored.mean_equal_dims:.1f} of {d} values "
        f"from p to p+1 on average (max {stored.max_equal_dims})"
    )
    return Answer(value, summary, f"{EXACT} + {DTYPE}")


def _vector_nearest(d: int, base: Fraction, max_pos: int) -> Answer:
    """The offset k with the smallest ‖PE(p+k) − PE(p)‖ over positions below max_pos, certified for every
    offset (`separation.certified_separation`; for even d the distance depends on k only)."""
    if d % 2:
        return Answer(
            None,
            f"not computed for odd d = {d}: the last sin dim has no cos partner, so ‖PE(p+k) − PE(p)‖ "
            "depends on p as well as on k, and the scan over offsets k does not apply",
            NOT_COMPUTED,
        )
    written = exact_decimal(base)
    nearest_float = ""
    if written is None:
        written = exact_decimal(Fraction(float(base)))
        nearest_float = f" (for the base's nearest float64, {written})"
    found = certified_separation(Sinusoidal(d, written), max_pos)
    offsets = ", ".join(str(k) for k in found.argmin_offsets)
    value = {
        "offsets": list(found.argmin_offsets),
        "distance": found.minimum.str(DPS, radius=False),
        "lower_bound": decimal_floor(found.lower_bound, DPS),
        "certified": found.certified,
        "reason": found.reason,
    }
    state = "certified" if found.certified else f"NOT certified: {found.reason},"
    summary = (
        f"‖PE(p+k) − PE(p)‖ depends only on k; over positions < {max_pos} the closest offset is k = "
        f"{offsets} (distance {found.minimum.str(10, radius=False)}, {state} for every offset "
        f"1 ≤ k < {max_pos}{nearest_float}; `pe-verify separation` gives the certificate)"
    )
    return Answer(value, summary, DIGITS)


def _pair(pair: tuple[int, int] | None) -> dict[str, int] | None:
    return None if pair is None else {"p1": int(pair[0]), "p2": int(pair[1])}
