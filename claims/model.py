"""A claim of the catalog, the evidence its checks produce, and the rules that turn evidence into verdicts.

Verdicts are computed from evidence every run; an entry records the verdict it expects only so that a change
shows up as a failing test. The vocabulary is kept small:

- mathematical verdicts: proved, refuted, holds with caveat, verified on a finite range, supported
  numerically — and `unsettled`, which only appears when a check that should have confirmed something did not
  (a defect to look at). "Refuted" needs a computed counterexample; "proved" needs exact evidence covering
  every case the claim speaks of (exact checks of some of its cases give "verified on a finite range");
- factual verdicts, for a matter of fact that no computation decides: confirmed by sources, contradicted by
  sources, sources disagree (the way its cited primary sources point, `Assessment.sources_point`), and not
  checkable when no cited source decides it;
- argument verdicts (where the document argues): sound, sound with unstated conditions, flawed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:

    class StrEnum(str, Enum):
        """`enum.StrEnum` of Python 3.11: members are their string values."""

        __str__ = str.__str__
        __format__ = str.__format__


class Verdict(StrEnum):
    """What the evidence makes of a claim: mathematical verdicts first, then factual ones, then unsettled."""

    PROVED = "proved"
    REFUTED = "refuted"
    CAVEAT = "holds with caveat"
    FINITE = "verified on a finite range"
    NUMERIC = "supported numerically"
    CONFIRMED_BY_SOURCES = "confirmed by sources"
    CONTRADICTED_BY_SOURCES = "contradicted by sources"
    SOURCES_DISAGREE = "sources disagree"
    NOT_CHECKABLE = "not checkable"
    UNSETTLED = "unsettled"


class Role(StrEnum):
    """What an entry is: a claim a document makes, a question the catalog adds to a document's section (its
    statement says so), or an aggregate of other entries (a table, a list of lines); counted apart."""

    CLAIM = "claim"
    QUESTION = "question"
    AGGREGATE = "aggregate"


class ArgumentVerdict(StrEnum):
    """What the evidence makes of a document's argument for a claim."""

    SOUND = "sound"
    CONDITIONS = "sound with unstated conditions"
    FLAWED = "flawed"


class Kind(StrEnum):
    """Evidence kinds, strongest first. The first three are exact; the rest measure or cite."""

    SYMBOLIC = "symbolic identity"
    EXACT = "exact argument"
    CERTIFICATE = "interval certificate"
    DIGITS = "high-precision numeric"
    HYPOTHESIS = "hypothesis search"
    FLOAT = "floating-point experiment"
    CITATION = "citation"


class Bearing(StrEnum):
    """How a piece of evidence bears on the claim when its check comes out true.

    - supports: the check confirms (part of) the claim as stated;
    - refutes: the check is a counterexample to the claim as stated;
    - limits: a counterexample outside a condition the document does not state; the claim holds inside;
    - corroborates: a measurement that cross-checks what exact evidence already shows;
    - beyond the document's domain: a counterexample outside the domain the document speaks of (negative
      positions where it speaks of token positions, d = 1, floats where it reasons in exact arithmetic):
      reported as a note, it leaves the verdict on the document's own domain as it is;
    - background: a cited fact that informs the claim but decides it neither way (a claim whose citations are
      all background is not checkable).
    """

    SUPPORTS = "supports"
    REFUTES = "refutes"
    LIMITS = "limits"
    CORROBORATES = "corroborates"
    BEYOND_DOMAIN = "beyond the document's domain"
    BACKGROUND = "background"


class ArgumentBearing(StrEnum):
    """How a piece of evidence bears on the document's argument when its check comes out true: a step holds
    as written, a step does not hold (a counterexample to it), or it holds only under a condition left
    unstated."""

    STEP_CHECKED = "step checked"
    STEP_FAILS = "step fails"
    CONDITION_MISSING = "condition missing"


PROVED, REFUTED, CAVEAT, NUMERIC = Verdict.PROVED, Verdict.REFUTED, Verdict.CAVEAT, Verdict.NUMERIC
FINITE = Verdict.FINITE
NOT_CHECKABLE, UNSETTLED = Verdict.NOT_CHECKABLE, Verdict.UNSETTLED
CONFIRMED_BY_SOURCES = Verdict.CONFIRMED_BY_SOURCES
CONTRADICTED_BY_SOURCES = Verdict.CONTRADICTED_BY_SOURCES
SOURCES_DISAGREE = Verdict.SOURCES_DISAGREE
MATHEMATICAL_VERDICTS = (PROVED, REFUTED, CAVEAT, FINITE, NUMERIC, UNSETTLED)
FACTUAL_VERDICTS = (CONFIRMED_BY_SOURCES, CONTRADICTED_BY_SOURCES, SOURCES_DISAGREE, NOT_CHECKABLE)
VERDICTS = tuple(Verdict)
#: The factual verdict for each way the cited sources point (`sources_point`; None: no source decides).
BY_SOURCES = {
    "for": CONFIRMED_BY_SOURCES,
    "against": CONTRADICTED_BY_SOURCES,
    "mixed": SOURCES_DISAGREE,
    None: NOT_CHECKABLE,
}
CLAIM, QUESTION, AGGREGATE = Role.CLAIM, Role.QUESTION, Role.AGGREGATE
ROLES = tuple(Role)
#: The verdicts that leave a claim resting on them without support (flagged in the dependent's section).
WEAK = (REFUTED, UNSETTLED)

SOUND, CONDITIONS, FLAWED = ArgumentVerdict.SOUND, ArgumentVerdict.CONDITIONS, ArgumentVerdict.FLAWED
ARGUMENT_VERDICTS = tuple(ArgumentVerdict)

SYMBOLIC, EXACT, CERTIFICATE, DIGITS = Kind.SYMBOLIC, Kind.EXACT, Kind.CERTIFICATE, Kind.DIGITS
HYPOTHESIS, FLOAT, CITATION = Kind.HYPOTHESIS, Kind.FLOAT, Kind.CITATION
KINDS = tuple(Kind)
EXACT_KINDS = frozenset({SYMBOLIC, EXACT, CERTIFICATE})

SUPPORTS, REFUTES, LIMITS = Bearing.SUPPORTS, Bearing.REFUTES, Bearing.LIMITS
CORROBORATES, BEYOND_DOMAIN, BACKGROUND = Bearing.CORROBORATES, Bearing.BEYOND_DOMAIN, Bearing.BACKGROUND
BEARINGS = tuple(Bearing)

STEP_CHECKED, STEP_FAILS = ArgumentBearing.STEP_CHECKED, ArgumentBearing.STEP_FAILS
CONDITION_MISSING = ArgumentBearing.CONDITION_MISSING
ARGUMENT_BEARINGS = tuple(ArgumentBearing)


@dataclass(frozen=True)
class Source:
    """Where a claim is made: the document's file name and the section heading it sits under, as written."""

    document: str
    section: str


#: The `Source.document` of a claim made by no document (the papers' claims the catalog checks besides).
BEYOND = "(beyond the documents)"


@dataclass(frozen=True)
class Evidence:
    """What one check computed: its kind, what it says, whether it came out true, and how that bears.

    `holds` is the check's own computed outcome; `bearing` says what a true outcome means for the claim
    (or, in `Assessment.argument_evidence`, for the document's argument). `detail` carries concrete values
    as (label, value) pairs: witnesses with their digits, ranges, precisions, budgets — printed on committed
    pages, so only in the forms `claims.numbers` allows. `measured` carries the raw floating-point
    measurements behind them (largest errors, where they occurred), for `pe-verify show ID --json` only.
    `instances` is the evidence's scope: None when it covers every case the claim speaks of (symbolic
    parameters, an argument over all cases, or a claim about finitely many cases all checked), else the
    finite set of cases it checked ("r = 2, 4, …, 256"), for a claim about more.
    """

    kind: Kind
    summary: str
    holds: bool
    bearing: Bearing | ArgumentBearing = SUPPORTS
    detail: tuple[tuple[str, str], ...] = ()
    measured: tuple[tuple[str, object], ...] = ()
    instances: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.holds, bool):
            raise TypeError(f"holds must be a bool decided by the check, got {type(self.holds).__name__}")
        if self.kind not in KINDS:
            raise ValueError(f"unknown evidence kind {self.kind!r}; allowed: {', '.join(KINDS)}")
        if self.bearing not in BEARINGS + ARGUMENT_BEARINGS:
            allowed = ", ".join(BEARINGS + ARGUMENT_BEARINGS)
            raise ValueError(f"unknown bearing {self.bearing!r}; allowed: {allowed}")


def claim_verdict(evidence: Sequence[Evidence]) -> Verdict:
    """The verdict the evidence supports.

    One rule for every claim, a conjunction and an aggregate alike: a claim with a contradicted part is false
    as stated, whatever else holds. So a computed counterexample refutes, and a cited source against part of
    the claim (a counterexample to it as stated) contradicts it, before anything that supports the rest is
    counted. Otherwise a claim with no computed support is a matter of fact: its verdict is the way its cited
    sources point (`BY_SOURCES`: for, for one part and limiting another, or none deciding). Otherwise a
    counterexample outside an unstated condition, or a cited source limiting part of the claim, leaves it
    holding with a caveat; else it is supported numerically when some computed support is a measurement,
    verified on a finite range when every one is exact but some checked only instances of what the claim
    quantifies over, and proved when every one is exact and universal. Corroborating checks (instances beside
    a universal proof, measurements) must hold but do not weaken a proof; a support or corroboration that
    fails leaves the claim unsettled.
    """
    if any(not e.holds for e in evidence if e.bearing in (SUPPORTS, CORROBORATES)):
        return UNSETTLED
    computed = [e for e in evidence if e.kind != CITATION]
    if any(e.holds for e in computed if e.bearing == REFUTES):
        return REFUTED
    if any(e.holds for e in evidence if e.kind == CITATION and e.bearing == REFUTES):
        return CONTRADICTED_BY_SOURCES
    computed_support = [e for e in computed if e.bearing == SUPPORTS]
    if not computed_support:
        return BY_SOURCES[sources_point(evidence)] if any(e.kind == CITATION for e in evidence) else UNSETTLED
    if any(e.holds for e in evidence if e.bearing == LIMITS):
        return CAVEAT
    if not {e.kind for e in computed_support} <= EXACT_KINDS:
        return NUMERIC
    return FINITE if any(e.instances is not None for e in computed_support) else PROVED


def sources_point(evidence: Sequence[Evidence]) -> str | None:
    """Which way the cited primary sources point: for, against, or mixed (None when no citation decides)."""
    cited = [e for e in evidence if e.kind == CITATION and e.holds]
    against = any(e.bearing in (REFUTES, LIMITS) for e in cited)
    supports = any(e.bearing == SUPPORTS for e in cited)
    if not (against or supports):
        return None
    return "mixed" if against and supports else "against" if against else "for"


#: Words an explanation must not open with under each verdict: its first clause says what the verdict says.
_AGAINST_HOLDING = ("not checkable", "refuted", "contradict", "false as stated", "does not hold", "fails")
_AGAINST_FALSE = ("proved", "holds", "true", "confirmed", "agrees with", "not checkable")
OPENING_AGAINST: dict[Verdict, tuple[str, ...]] = {
    Verdict.PROVED: _AGAINST_HOLDING,
    Verdict.FINITE: _AGAINST_HOLDING,
    Verdict.NUMERIC: _AGAINST_HOLDING,
    Verdict.CONFIRMED_BY_SOURCES: (*_AGAINST_HOLDING, "only the premise"),
    Verdict.CAVEAT: ("not checkable", "refuted", "contradict", "confirmed", "false as stated"),
    Verdict.REFUTED: _AGAINST_FALSE,
    Verdict.CONTRADICTED_BY_SOURCES: _AGAINST_FALSE,
    Verdict.SOURCES_DISAGREE: ("proved", "confirmed", "refuted", "contradict", "agrees", "not checkable"),
    Verdict.NOT_CHECKABLE: ("proved", "confirmed", "refuted", "contradict", "agrees with", "holds"),
    Verdict.UNSETTLED: ("proved", "confirmed", "refuted", "contradict"),
}


def opening(explanation: str) -> str:
    """An explanation's first clause: up to its first '.', ':' or ';' that a space follows."""
    return re.split(r"(?<=[.:;])\s", explanation.strip(), maxsplit=1)[0]


def opening_contradicts(verdict: Verdict, explanation: str) -> str | None:
    """The word of `OPENING_AGAINST` that the explanation's first clause opens against its verdict with, or
    None when it has none."""
    first = opening(explanation).lower()
    return next((word for word in OPENING_AGAINST[verdict] if re.search(rf"\b{word}", first)), None)


def argument_verdict(evidence: Sequence[Evidence]) -> ArgumentVerdict | Verdict:
    """Flawed when a step fails; sound with unstated conditions when a step needs one; sound otherwise."""
    if any(e.holds for e in evidence if e.bearing == STEP_FAILS):
        return FLAWED
    if any(e.holds for e in evidence if e.bearing == CONDITION_MISSING):
        return CONDITIONS
    checked = [e for e in evidence if e.bearing == STEP_CHECKED]
    if not checked or not all(e.holds for e in checked):
        return UNSETTLED
    return SOUND


@dataclass(frozen=True)
class Row:
    """One published number beside the one the suite computed: `agrees` is decided by the computation (within
    the published rounding, or by the paper's own criterion), `note` says how or why not."""

    parameter: str
    published: str
    computed: str
    agrees: bool
    note: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.agrees, bool):
            found = type(self.agrees).__name__
            raise TypeError(f"agrees must be a bool decided by the computation, got {found}")


@dataclass(frozen=True)
class Reproduction:
    """A paper's result recomputed row by row: `name` (what `pe-verify reproduce NAME` takes), the source
    (paper, arXiv id, section or table), the precision of the computed values, the rows."""

    name: str
    source: str
    precision: str
    rows: tuple[Row, ...]

    @property
    def discrepancies(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if not row.agrees)


@dataclass(frozen=True)
class Assessment:
    """Everything a claim's checks produced this run, with the verdicts computed from it (and, for an entry
    that reproduces a paper, the row-by-row comparison)."""

    evidence: tuple[Evidence, ...]
    explanation: str
    argument_evidence: tuple[Evidence, ...] = ()
    reproduction: Reproduction | None = None

    @property
    def verdict(self) -> Verdict:
        return claim_verdict(self.evidence)

    @property
    def argument_verdict(self) -> ArgumentVerdict | Verdict | None:
        return argument_verdict(self.argument_evidence) if self.argument_evidence else None

    @property
    def sources_point(self) -> str | None:
        return sources_point(self.evidence)

    @property
    def argument_issue(self) -> str | None:
        """The steps that fail and the conditions that are missing in the document's argument."""
        issues = [e.summary for e in self.argument_evidence if e.holds and e.bearing != STEP_CHECKED]
        return "; ".join(issues) or None


@dataclass(frozen=True)
class Claim:
    """One entry of the catalog: what is claimed, where, how it is checked, and what verdict it expects."""

    id: str
    source: Source
    statement: str
    formal: str
    assess: Callable[[], Assessment]
    expected: Verdict
    expected_argument: ArgumentVerdict | None = None
    depends_on: tuple[str, ...] = ()
    role: Role = CLAIM
    reproduces: str | None = None
    #: Where a record written with `cited` stands (module name, line); None for a decorated function.
    defined_at: tuple[str, int] | None = None
    #: Why the claim gets its verdict, in one Korean sentence for the documents' readers; the pages set the
    #: Korean term of the computed verdict before it (`reporting.korean`): it says why, not the verdict.
    why_ko: str = ""


@dataclass(frozen=True)
class DocumentProof:
    """One of a document's own proofs: its name there, the entry that judges its conclusion and its argument,
    and the derivations in which the suite proves, in its place, exactly what holds."""

    name: str
    claim: str
    proved_instead: tuple[str, ...]


def claim(
    id: str,
    source: Source,
    statement: str,
    formal: str,
    expected: Verdict,
    expected_argument: ArgumentVerdict | None = None,
    depends_on: tuple[str, ...] = (),
    role: Role = CLAIM,
    reproduces: str | None = None,
    why_ko: str = "",
) -> Callable[[Callable[[], Assessment]], Claim]:
    """Decorator turning a function that runs the checks and returns an `Assessment` into a `Claim`
    (`reproduces`: the name of the paper's result it recomputes, whose rows its assessment carries;
    `why_ko`: the Korean one-line reason for its verdict)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")

    def wrap(assess: Callable[[], Assessment]) -> Claim:
        return Claim(
            id,
            source,
            statement,
            formal,
            assess,
            expected,
            expected_argument,
            depends_on,
            role,
            reproduces,
            why_ko=why_ko,
        )

    return wrap


def cited(
    *,
    id: str,
    source: Source,
    statement: str,
    formal: str,
    expected: Verdict,
    sources: Sequence[Evidence],
    explanation: str,
    depends_on: tuple[str, ...] = (),
    role: Role = CLAIM,
    why_ko: str = "",
) -> Claim:
    """A claim whose only evidence is the sources it cites, written as a record — statement, sources with
    their bearings, expected verdict, explanation, the Korean one-line reason — rather than as a function:
    nothing is computed, so the verdict follows from the bearings (`claim_verdict`)."""
    sources = tuple(sources)
    if not sources or any(e.kind != CITATION for e in sources):
        raise ValueError(f"{id}: a cited entry holds citations only, and at least one")
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    caller = sys._getframe(1)
    assessment = Assessment(sources, explanation)
    return Claim(
        id,
        source,
        statement,
        formal,
        lambda: assessment,
        expected,
        depends_on=depends_on,
        role=role,
        defined_at=(caller.f_globals["__name__"], caller.f_lineno),
        why_ko=why_ko,
    )
