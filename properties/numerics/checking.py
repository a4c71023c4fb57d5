"""What a property check returns, and the float64 tolerance a check allows."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

EPS64 = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class CheckResult:
    """The outcome of checking one property on concrete inputs: the largest error and where it occurred."""

    property: str
    holds: bool
    max_error: float
    tolerance: float
    witness: dict[str, object] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.holds


def angle_tolerance(max_angle: float, terms: int = 1, slack: float = 8.0, base: float = 10000.0) -> float:
    """Allowed float64 error for quantities built from sin/cos of angles up to `max_angle` radians.

    The frequency ω = base^x (x = −2i/d, itself rounded) carries a relative error of up to
    ε(1 + |x|·ln base) ≤ ε(1 + ln base); the product θ = p·ω adds one more rounding, so
    |Δθ| ≤ ε|θ|(2 + ln base). sin and cos are 1-Lipschitz and themselves rounded, so each entry is
    off by at most ε((2 + ln base)|θ| + 1).
    A quantity that sums `terms` such entries (a dot product, a matrix–vector product) is off by at most
    `terms` times that; `slack` covers the few further roundings of the arithmetic around it.
    """
    per_entry = (2.0 + math.log(base)) * abs(max_angle) + 1.0
    return slack * EPS64 * per_entry * max(terms, 1)
