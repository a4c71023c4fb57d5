"""The pages' Korean words, in one place: a Korean term for each verdict and argument verdict, the name of a
document's introduction, and a claim's one-line verdict (the computed verdict's term, then the entry's
Korean reason, `Claim.why_ko`, as long as the computed verdicts are the ones the entry records)."""

from __future__ import annotations

from pe_verify.claims.catalog import INTRODUCTION
from pe_verify.claims.model import (
    CAVEAT,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    FINITE,
    FLAWED,
    NOT_CHECKABLE,
    NUMERIC,
    PROVED,
    REFUTED,
    SOUND,
    SOURCES_DISAGREE,
    UNSETTLED,
    ArgumentVerdict,
    Assessment,
    Claim,
    Verdict,
)

#: The Korean term of each verdict.
VERDICTS: dict[Verdict, str] = {
    PROVED: "증명됨",
    REFUTED: "반증됨",
    CAVEAT: "조건부 성립",
    FINITE: "유한 범위에서 검증됨",
    NUMERIC: "수치로 뒷받침됨",
    CONFIRMED_BY_SOURCES: "출처로 확인됨",
    CONTRADICTED_BY_SOURCES: "출처와 어긋남",
    SOURCES_DISAGREE: "출처가 엇갈림",
    NOT_CHECKABLE: "확인할 수 없음",
    UNSETTLED: "미결",
}
#: The Korean term of each verdict on a document's argument (unsettled: a step that came out neither way).
ARGUMENTS: dict[ArgumentVerdict | Verdict, str] = {
    SOUND: "타당함",
    CONDITIONS: "숨은 조건 아래 타당함",
    FLAWED: "결함 있음",
    UNSETTLED: "미결",
}
#: What the pages call the text before a document's first heading.
INTRODUCTION_KO = "(도입부)"


def section(heading: str) -> str:
    """A section heading as the Korean pages show it: the document's own heading, or its introduction."""
    return INTRODUCTION_KO if heading == INTRODUCTION else heading


def verdict_term(verdict: Verdict, argument: ArgumentVerdict | Verdict | None) -> str:
    """The Korean term of a verdict, with its argument's when the document gives one."""
    term = VERDICTS[verdict]
    return term if argument is None else f"{term} · 논증 {ARGUMENTS[argument]}"


def why(claim: Claim, assessment: Assessment) -> str:
    """The entry's Korean reason (`Claim.why_ko`), written for the verdicts it records; when the computed
    ones differ, a note saying so instead, so that the reason never speaks for a verdict it was not written
    for."""
    if (assessment.verdict, assessment.argument_verdict) == (claim.expected, claim.expected_argument):
        return claim.why_ko
    recorded = verdict_term(claim.expected, claim.expected_argument)
    return f"계산된 판정이 항목에 기록된 판정({recorded})과 다르다"


def verdict_line(claim: Claim, assessment: Assessment) -> str:
    """The claim's Korean one-line verdict: the computed verdicts' terms, then why."""
    term = f"**{verdict_term(assessment.verdict, assessment.argument_verdict)}**"
    reason = why(claim, assessment)
    return f"{term} — {reason}" if reason else term
