"""When can two sinusoidal encoding values coincide? Every answer for one (d, base, N, dtype), with evidence.

This composes the exact decisions of `proofs.uniqueness` with the measurements of `properties` (dtype
experiments, high-precision scans, witness confirmation at 50 digits); each answer names its evidence kind:
exact, digits (mpmath at the stated precision), or dtype experiment (numpy casts in the named dtype).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from pe_verify.proofs.uniqueness import (
    coinciding_dim_pairs,
    cross_dim_exact_exists,
    dimension_collision,
    document_argument_holds,
)
from pe_verify.properties.coincidence import check_witnesses, reference_encoding
from pe_verify.properties.finite_precision import (
    common_code_encoding,
    dtype_spec,
    find_duplicate_rows,
    neighbour_equality,
    position_collision,
)
from pe_verify.properties.near_collision import (
    NearRepeat,
    nearest_cross_dimension_pair,
    nearest_vector_offsets,
)
from pe_verify.properties.validation import require_positive_int

EXACT = "exact"
DIGITS = "digits"
DTYPE = "dtype experiment"

#: Values the cross-dimension scan sorts at most (positions × d); beyond it the scan covers fewer positions.
SCAN_VALUES = 2 * 10**7
DPS = 50


def parse_base(text: str) -> Fraction:
    """A base given as text ("10000", "5e5", "1.5") as the exact rational it denotes; it must exceed 1."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"base must be a number greater than 1, got {text!r}") from None
    if value <= 1:
        raise ValueError(f"base must be a number greater than 1, got {text}")
    return value


def exact_coincidence_mask(d: int, base: Fraction) -> np.ndarray:
    """The d×d mask of dim pairs that coincide exactly somewhere (rational frequency ratio, same kind)."""
    mask = np.zeros((d, d), dtype=bool)
    for verdict in coinciding_dim_pairs(d, base):
        mask[verdict.dim1, verdict.dim2] = mask[verdict.dim2, verdict.dim1] = True
    return mask


@dataclass(frozen=True)
class Answer:
    """One answer: the value reported (JSON-ready), what it means, and the kind of evidence behind it."""

    value: object
    summary: str
    evidence: str


def analyse(
    d: int, base: Fraction, max_pos: int, dtype: str, scan_values: int = SCAN_VALUES
) -> dict[str, Answer]:
    """Every collision question for sinusoidal PE (d, base) over positions 0 ≤ p < max_pos, in `dtype`."""
    d = require_positive_int(d, "d")
    max_pos = require_positive_int(max_pos, "max-pos")
    if max_pos < 2:
        raise ValueError(f"max-pos must be at least 2 (two positions to compare), got {max_pos}")
    spec = dtype_spec(dtype)
    answers = {
        "position_collision": _position_collision(spec.name, max_pos),
        "vector_collision": _vector_collision(d, base, max_pos, spec.name),
        "document_argument": _document_argument(d, base),
        "cross_dim_exact_exists": _cross_dim_exact_exists(d, base),
        "cross_dim_witness": _cross_dim_witness(d, base),
        "cross_dim_nearest": _cross_dim_nearest(d, base, max_pos, scan_values),
        "same_dim_collisions": _same_dim_collisions(d, base, max_pos, spec.name),
    }
    if d % 2 == 0:
        answers["vector_nearest"] = _vector_nearest(d, base, max_pos)
    return answers


def _position_collision(dtype: str, max_pos: int) -> Answer:
    found = position_collision(dtype)
    p = found.first_collision
    value = {"p1": p, "p2": p + 1} if p + 1 < max_pos else None
    where = f"first at positions {p} and {p + 1} (both stored as {found.stored_value:g})"
    check = "agrees with" if found.agrees else "DIFFERS from"
    summary = f"integer positions held in {dtype}: {where}; {check} the formula 2^(m+1) = {found.formula}"
    return Answer(value, summary, DTYPE)


def _vector_collision(d: int, base: Fraction, max_pos: int, dtype: str) -> Answer:
    encoding = common_code_encoding(d, dtype, float(base))
    found = find_duplicate_rows(encoding, max_pos)
    value = _pair(found.first_duplicate)
    first = "none" if value is None else f"first rows {value['p1']} and {value['p2']}"
    summary = (
        f"{encoding.label}, positions < {max_pos}: {first}; "
        f"{found.duplicate_rows} rows equal an earlier row (compared exactly)"
    )
    return Answer(value, summary, DTYPE)


def _document_argument(d: int, base: Fraction) -> Answer:
    verdict = document_argument_holds(d, base)
    state = "reaches its contradiction" if verdict.holds else "does not reach its contradiction"
    return Answer(
        {"holds": verdict.holds, "reason": verdict.reason},
        f"the ratio argument of Proof 1 {state}: {verdict.reason}",
        EXACT,
    )


def _cross_dim_exact_exists(d: int, base: Fraction) -> Answer:
    exists = cross_dim_exact_exists(d, base)
    pairs = len(coinciding_dim_pairs(d, base))
    summary = (
        f"{pairs} dim pairs have a rational frequency ratio and coincide exactly"
        if exists
        else "no two dims coincide exactly at different positions: every frequency ratio is irrational, "
        "and a sin value never equals a cos value"
    )
    return Answer(exists, summary, EXACT)


def _cross_dim_witness(d: int, base: Fraction) -> Answer:
    verdicts = coinciding_dim_pairs(d, base)
    if not verdicts:
        return Answer(None, "no witness: no exact coincidence exists", EXACT)
    witness = min((v.witness for v in verdicts), key=lambda w: (max(abs(w.p1), abs(w.p2)), w.dim1, w.dim2))
    confirmed = check_witnesses(reference_encoding(str(base)), d, [tuple(witness)], DPS)
    value = {"p1": witness.p1, "dim1": witness.dim1, "p2": witness.p2, "dim2": witness.dim2}
    agreement = "agree" if confirmed.holds else "DO NOT agree"
    summary = (
        f"PE({witness.p1}, dim {witness.dim1}) = PE({witness.p2}, dim {witness.dim2}) exactly "
        f"(p1·ω = p2·ω' with a rational ratio); the values {agreement} to {DPS} digits "
        f"(difference {confirmed.max_error:.1e})"
    )
    return Answer(value, summary, EXACT if confirmed.holds else DIGITS)


def _cross_dim_nearest(d: int, base: Fraction, max_pos: int, scan_values: int) -> Answer:
    if d < 2:
        return Answer(None, "d = 1 has a single dimension: no pair of different dims", EXACT)
    n = min(max_pos, max(2, require_positive_int(scan_values, "scan-values") // d))
    found = nearest_cross_dimension_pair(n, d, float(base), exclude=exact_coincidence_mask(d, base), dps=DPS)
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


def _same_dim_collisions(d: int, base: Fraction, max_pos: int, dtype: str) -> Answer:
    kinds = {"sin": 0, "cos": 1}
    exact = {}
    for kind, dim in kinds.items():
        if dim < d:
            verdict = dimension_collision(d, base, dim, allow_negative=True)
            exact[kind] = _pair(verdict.witness)
    stored = neighbour_equality(common_code_encoding(d, dtype, float(base)), max_pos)
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
    found = nearest_vector_offsets(max_pos, d, float(base), count=3, dps=DPS)
    best = found.repeats[0]
    value = [{"offset": r.offset, "distance": float(_distance(r))} for r in found.repeats]
    summary = (
        f"‖PE(p+k) − PE(p)‖ depends only on k; over positions < {max_pos} the closest offset is "
        f"k = {best.offset} (distance {mpmath.nstr(_distance(best), 10)}, "
        f"{found.evidence} at {found.dps} digits)"
    )
    return Answer(value, summary, DIGITS)


def _pair(pair: tuple[int, int] | None) -> dict[str, int] | None:
    return None if pair is None else {"p1": int(pair[0]), "p2": int(pair[1])}


def _distance(repeat: NearRepeat) -> mpmath.mpf | float:
    return repeat.float_distance if repeat.distance is None else repeat.distance
