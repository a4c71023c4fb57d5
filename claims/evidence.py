"""Evidence from the suite's own checks: derivations run by SymPy, numeric property checks, and the
`pe-verify check` battery run on the documents' own code."""

from __future__ import annotations

import functools

import numpy as np

from pe_verify.proofs import all_derivations
from pe_verify.proofs.derivation import Derivation, VerificationResult
from pe_verify.properties import battery
from pe_verify.properties.battery import Report
from pe_verify.properties.numerics.checking import CheckResult

from .model import EXACT, FLOAT, HYPOTHESIS, SUPPORTS, SYMBOLIC, Evidence
from .numbers import certified, within

#: Evidence kinds whose numbers are floating-point measurements, printed only as `claims.numbers` allows.
MEASURED_KINDS = frozenset({FLOAT, HYPOTHESIS})


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
    """Evidence that every step of a derivation was checked (or was not): a symbolic identity when each step
    of its chain is checked for every case it states, an exact argument on its stated cases when some step
    is checked only on samples."""
    item, result = derivation(derivation_id), verification(derivation_id)
    return Evidence(
        SYMBOLIC if result.universal else EXACT,
        f"{item.title} — `{derivation_id}`, {result.summary}",
        result.verified,
        bearing,
        (("derivation", derivation_id),),
        instances=item.instances or (None if result.universal else result.sampled),
    )


def _plain(value: object) -> object:
    """A witness value as plain Python (numpy scalars and arrays unwrapped), for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _exact_text(value: object) -> str | None:
    """The text of an exact witness value (an integer, a string, a tuple of those); None for a float."""
    value = _plain(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else None
    if isinstance(value, list):
        items = [_exact_text(item) for item in value]
        return None if None in items else f"({', '.join(items)})"  # type: ignore[arg-type]
    return str(value)


def from_check(result: CheckResult, kind: str, summary: str, bearing: str = SUPPORTS) -> Evidence:
    """Evidence from a numeric property check, with its outcome, largest error and tolerance.

    A check at a stated precision (mpmath digits, ball arithmetic) prints its values in full. A floating-point
    check that holds is stated against its a-priori tolerance, and where its largest error occurred (float
    noise) is kept for `--json` only; one that fails names its counterexample: the exact witness values and
    the error to the digits its tolerance certifies (`claims.numbers`).
    """
    witness = [(str(key), _plain(value)) for key, value in sorted(result.witness.items())]
    tolerance = ("tolerance", f"{result.tolerance:.3e}")
    if kind not in MEASURED_KINDS:
        error = ("largest error", f"{result.max_error:.3e}")
        detail = (error, tolerance, *((key, str(value)) for key, value in witness))
        return Evidence(kind, summary, result.holds, bearing, detail)
    measured = (("largest error", float(result.max_error)), *witness)
    if result.holds:
        detail = (("largest error", within(result.max_error, result.tolerance, ".3e")),)
        return Evidence(kind, summary, result.holds, bearing, detail, measured)
    error = ("largest error", certified(result.max_error, result.tolerance, ".3g"))
    exact = [(key, text) for key, value in witness if (text := _exact_text(value)) is not None]
    return Evidence(kind, summary, result.holds, bearing, (error, tolerance, *exact), measured)


def from_battery(report: Report, summary: str, expect: str, bearing: str = SUPPORTS) -> Evidence:
    """Evidence from a family's battery (`pe-verify check`): it holds when the check passes (every property
    held and no finding is an error, `Report.passed`) and the code was identified as `expect`. Detail: the
    properties (or each failure with its counterexample), the variant identified, the findings' labels, the
    root cause when one is named, and the tolerance and budget of the first property searched within a
    tolerance; the largest deviation from the identified variant is a float measurement, kept for `--json`
    only."""
    expected = battery.expected(report, expect)
    failed = [o for o in (*report.properties, expected) if not o.passed]
    names = ", ".join(o.name for o in report.properties)
    shown = f"{names}: all hold" if not failed else "; ".join(o.message for o in failed)
    detail = [("properties", shown)]
    identified = report.identified
    if identified is not None:
        parameters = ", ".join(f"{key} = {value}" for key, value in identified.parameters.items())
        detail.append(("identified", f"{identified.variant} ({parameters})"))
    detail.append(("findings", ", ".join(f.label for f in report.findings) or "none"))
    errors = [f.label for f in report.findings if f.label in battery.ERRORS]
    if report.cause is not None:
        detail.append(("root cause", report.cause.finding.message))
    searched = [o for o in report.properties if o.tolerance != "exact equality"] or list(report.properties)
    if searched:
        first = searched[0]
        detail += [(f"tolerance of {first.name}", first.tolerance), ("budget per property", first.budget)]
    measured = () if identified is None else (("largest deviation", identified.max_abs_deviation),)
    holds = not failed and not errors
    return Evidence(HYPOTHESIS, summary, holds, bearing, tuple(detail), measured)
