"""High-precision confirmation of (non-)coincidences: PE(p1, dim1) = PE(p2, dim2) to all digits, or not.

The exact answers (which pairs coincide, and where) come from `pe_verify.proofs.uniqueness`. Here an
encoding — a `sinusoidal.Sinusoidal`, read through its `rows_mp(positions, dps)` form (a broken twin
overrides it, or gives other `omegas`) — is evaluated at ≥ 50 digits: a witness must agree to within
10^(5−dps), a non-witness must differ by more than that. `intermediate_value_root` gives the real position
at which a sin dimension takes the value PE(1, 0) = sin 1, the step a near miss is rounded from.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import mpmath

from ..encodings.frequencies import fraction_mp, ratio_exponent
from ..encodings.sinusoidal import Sinusoidal
from ..numerics.checking import CheckResult
from ..numerics.validation import require_positive_int

Pair = tuple[int, int, int, int]

MIN_DPS = 50


def agreement_tolerance(dps: int) -> float:
    """10^(5−dps): two values computed with dps digits agree to all digits when they differ by less."""
    return 10.0 ** (5 - _require_dps(dps))


def _require_dps(dps: object) -> int:
    dps = require_positive_int(dps, "dps")
    if dps < MIN_DPS:
        raise ValueError(
            f"dps must be at least {MIN_DPS} (coincidences are confirmed at ≥ {MIN_DPS} digits), got {dps}"
        )
    return dps


def _require_pairs(pairs: Sequence[Pair], d: int) -> list[Pair]:
    checked = [tuple(pair) for pair in pairs]
    if not checked:
        raise ValueError("pairs must not be empty: give (p1, dim1, p2, dim2) tuples")
    for pair in checked:
        if len(pair) != 4 or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in pair):
            raise ValueError(f"each pair must be four integers (p1, dim1, p2, dim2), got {pair!r}")
        if not (0 <= pair[1] < d and 0 <= pair[3] < d):
            raise ValueError(f"dimensions must lie in [0, {d}), got {pair!r}")
    return [(int(p1), int(dim1), int(p2), int(dim2)) for p1, dim1, p2, dim2 in checked]


def value_differences(encoding: Sinusoidal, pairs: Sequence[Pair], dps: int = MIN_DPS) -> list[Any]:
    """|PE(p1)[dim1] − PE(p2)[dim2]| for each pair, from rows computed with dps digits plus one more per
    digit of the largest |position| (the angle p·ω loses that many significant digits to its integer part)."""
    d = encoding.d
    dps = _require_dps(dps)
    checked = _require_pairs(pairs, d)
    positions = sorted({p for p1, _, p2, _ in checked for p in (p1, p2)})
    working = dps + len(str(max(abs(p) for p in positions)))
    rows = dict(zip(positions, encoding.rows_mp(positions, working), strict=True))
    with mpmath.workdps(working):
        return [
            abs(mpmath.mpf(rows[p1][dim1]) - mpmath.mpf(rows[p2][dim2])) for p1, dim1, p2, dim2 in checked
        ]


def check_witnesses(encoding: Sinusoidal, witnesses: Sequence[Pair], dps: int = MIN_DPS) -> CheckResult:
    """Each witness (p1, dim1, p2, dim2) has PE(p1)[dim1] = PE(p2)[dim2] to all digits:
    |difference| < 10^(5−dps)."""
    differences = value_differences(encoding, witnesses, dps)
    worst = max(range(len(differences)), key=lambda k: differences[k])
    tolerance = agreement_tolerance(dps)
    max_error = float(differences[worst])
    witness = {"pair": tuple(witnesses[worst]), "difference": mpmath.nstr(differences[worst], 5), "dps": dps}
    return CheckResult("exact coincidence", max_error < tolerance, max_error, tolerance, witness)


def check_distinct(encoding: Sinusoidal, pairs: Sequence[Pair], dps: int = MIN_DPS) -> CheckResult:
    """Each pair's values differ: |PE(p1)[dim1] − PE(p2)[dim2]| ≥ 10^(5−dps).

    Here `max_error` reports the smallest difference found (the closest approach), which must not fall below
    `tolerance`; `witness` names that closest pair.
    """
    differences = value_differences(encoding, pairs, dps)
    closest = min(range(len(differences)), key=lambda k: differences[k])
    tolerance = agreement_tolerance(dps)
    smallest = float(differences[closest])
    witness = {"pair": tuple(pairs[closest]), "difference": mpmath.nstr(differences[closest], 5), "dps": dps}
    return CheckResult("values differ", smallest >= tolerance, smallest, tolerance, witness)


def near_misses(d: int, base: float | str, dim1: int, dim2: int, count: int = 3) -> list[Pair]:
    """For p1 = 1, …, count: (p1, dim1, p2, dim2) with p2 ≥ 0 the integer nearest p1·ω_a/ω_b (a = dim1 // 2,
    b = dim2 // 2), so the angles p1·ω_a and p2·ω_b are as close as integers allow — the best the document's
    round-to-the-nearest-integer argument can give. Pairs with p2 = p1 are skipped."""
    d = require_positive_int(d, "d")
    count = require_positive_int(count, "count")
    for name, dim in (("dim1", dim1), ("dim2", dim2)):
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < d:
            raise ValueError(f"{name} must be an integer in [0, {d}), got {dim!r}")
    with mpmath.workdps(MIN_DPS):
        b = mpmath.mpf(base)
        ratio = b ** fraction_mp(ratio_exponent(dim1 // 2, dim2 // 2, d))
        nearest = [(p1, int(mpmath.nint(p1 * ratio))) for p1 in range(1, count + 1)]
    return [(p1, dim1, p2, dim2) for p1, p2 in nearest if p2 != p1]


def intermediate_value_root(
    encoding: Sinusoidal, dim: int, dps: int = MIN_DPS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The real position y0 = asin(C)/ω at which the sin dimension `dim` (ω = ω_{dim // 2}) takes the value
    C = PE(1, 0) (sin 1 when ω_0 = 1), and the residual |PE(y0, dim) − C| of the encoding's own `rows_mp`."""
    dps = _require_dps(dps)
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < encoding.d or dim % 2:
        raise ValueError(f"dim must be an even (sin) dimension in [0, {encoding.d}), got {dim!r}")
    with mpmath.workdps(dps):
        omega = encoding.frequencies_mp(dps)[dim // 2]
        target = encoding.value_mp(1, 0)
        root = mpmath.asin(target) / omega
        return root, abs(encoding.rows_mp([root], dps)[0][dim] - target)
