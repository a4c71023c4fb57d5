"""Evidence from the suite's own checks: derivations run by SymPy and numeric property checks."""

from __future__ import annotations

import functools

from pe_verify.proofs import all_derivations
from pe_verify.proofs.derivation import Derivation, VerificationResult
from pe_verify.properties.checking import CheckResult

from .model import SUPPORTS, SYMBOLIC, Evidence


@functools.cache
def _derivations() -> dict[str, Derivation]:
    return {item.id: item for item in all_derivations()}


@functools.cache
def verification(derivation_id: str) -> VerificationResult:
    """Run one derivation (once per process; several claims may cite it)."""
    return _derivations()[derivation_id].verify()


def derivation(derivation_id: str) -> Derivation:
    """The derivation of that id (KeyError naming the id when there is none)."""
    return _derivations()[derivation_id]


def from_derivation(derivation_id: str, bearing: str = SUPPORTS) -> Evidence:
    """Evidence that SymPy checked every step of a derivation (or did not)."""
    item, result = derivation(derivation_id), verification(derivation_id)
    return Evidence(
        SYMBOLIC,
        f"{item.title} — `{derivation_id}`, {result.summary}",
        result.verified,
        bearing,
        (("derivation", derivation_id),),
    )


def from_check(result: CheckResult, kind: str, summary: str, bearing: str = SUPPORTS) -> Evidence:
    """Evidence from a numeric property check: its outcome, largest error, tolerance and witness."""
    detail = (("largest error", f"{result.max_error:.3e}"), ("tolerance", f"{result.tolerance:.3e}"))
    witness = tuple((str(key), str(value)) for key, value in sorted(result.witness.items()))
    return Evidence(kind, summary, result.holds, bearing, detail + witness)
