"""What a property check returns, and the float64 tolerance a check allows."""

from __future__ import annotations

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


def angle_tolerance(max_angle: float, terms: int = 1, slack: float = 8.0) -> float:
    """Allowed float64 error for quantities built from sin/cos of angles up to `max_angle` radians.

    The angle θ = p·ω is rounded twice (ω, then the product), so its absolute error is at most ~2ε|θ|;
    sin and cos are 1-Lipschitz, so each entry is off by at most ε(2|θ| + 1). A quantity that sums
    `terms` such entries (a dot product, a matrix–vector product) is off by at most `terms` times that;
    `slack` covers the few further roundings of the arithmetic around it.
    """
    return slack * EPS64 * (2.0 * abs(max_angle) + 1.0) * max(terms, 1)
