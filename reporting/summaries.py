"""What a reader sees first: a page's table of its claims, a document's own proofs beside the theorems proved
in their place, and the dashboard's few sentences on what the suite found, all generated from the verdicts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from pe_verify.claims.evidence import derivation
from pe_verify.claims.model import (
    CAVEAT,
    CONDITION_MISSING,
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
    STEP_FAILS,
    UNSETTLED,
    Assessment,
    Claim,
    DocumentProof,
)

from .markdown import cell, lead_clause, short_statement

NONE = "—"

#: A claim's row: under 80 characters of its statement, a one-line reason from its explanation.
STATEMENT_LIMIT, REASON_LIMIT = 79, 140

Link = Callable[[str], str]


def argument_label(assessment: Assessment) -> str:
    """The argument verdict, or a dash when the document gives no argument."""
    return assessment.argument_verdict or NONE


def summary_table(claims: Sequence[tuple[Claim, Assessment]], link: Link) -> list[str]:
    """One row per claim: its id linked to its section, the claim in under 80 characters, its verdict, the
    verdict on the document's argument and the first sentence of why."""
    rows = ["| claim | statement | verdict | argument | why |", "|---|---|---|---|---|"]
    for item, assessment in claims:
        cells = (
            link(item.id),
            cell(short_statement(item.statement, STATEMENT_LIMIT)),
            str(assessment.verdict),
            argument_label(assessment),
            cell(short_statement(assessment.explanation, REASON_LIMIT)),
        )
        rows.append("| " + " | ".join(cells) + " |")
    return [*rows, ""]


def failing_steps(assessment: Assessment) -> str:
    """The steps of the document's argument that fail, then the conditions it leaves unstated, each by what
    the evidence says before its particulars; a dash when every step holds as written."""
    found = []
    for bearing, label in ((STEP_FAILS, "fails"), (CONDITION_MISSING, "needs an unstated condition")):
        steps = [
            lead_clause(e.summary) for e in assessment.argument_evidence if e.bearing == bearing and e.holds
        ]
        if steps:
            found.append(f"**{label}:** " + "; ".join(steps))
    return ". ".join(found) or NONE


def proved_instead(ids: Sequence[str], link: Link) -> str:
    """Each derivation proved in a proof's place: its linked title and its statement as inline math (left
    out of the table cell when the statement holds a pipe, which a cell cannot carry inside math)."""
    parts = []
    for name in ids:
        item = derivation(name)
        statement = "" if "|" in item.statement else f": $`{item.statement}`$"
        parts.append(f"{link(name)}{statement}")
    return "<br>".join(parts)


def proofs_table(
    proofs: Sequence[DocumentProof],
    judged: Mapping[str, tuple[Claim, Assessment]],
    claim_link: Link,
    derivation_link: Link,
) -> list[str]:
    """A document's own proofs side by side: what each claims, whether its conclusion holds, whether its
    argument holds, the step that fails, and the theorems the suite proves in its place."""
    if not proofs:
        return []
    rows = [
        "| proof | what it claims | conclusion | argument | the step that fails | proved in its place |",
        "|---|---|---|---|---|---|",
    ]
    for proof in proofs:
        item, assessment = judged[proof.claim]
        cells = (
            f"{cell(proof.name)} ({claim_link(proof.claim)})",
            cell(short_statement(item.statement)),
            str(assessment.verdict),
            argument_label(assessment),
            cell(failing_steps(assessment)),
            proved_instead(proof.proved_instead, derivation_link),
        )
        rows.append("| " + " | ".join(cells) + " |")
    return [*rows, ""]


# ------------------------------------------------------------------------------------------- dashboard

#: Verdicts that say the claim was checked only on a stated finite set or range, not proved.
CHECKED = (FINITE, NUMERIC)
#: Verdicts that say the claim is false as stated, by a computed counterexample or by its sources.
FALSE = (REFUTED, CONTRADICTED_BY_SOURCES)
#: Verdicts that leave it open: sources that disagree or cannot decide, a check that came out neither way.
OPEN = (SOURCES_DISAGREE, NOT_CHECKABLE, UNSETTLED)


def _joined(items: Sequence[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _tally(verdicts: Counter) -> str:
    """'12 are proved, 2 hold on the range checked, 5 are confirmed by sources, 3 hold with a caveat, 2 are
    false as stated and 1 is left open' (parts with no claims left out): what each verdict showed, so that
    a claim checked on a finite range is not counted with the proved ones."""
    parts = [
        (verdicts[PROVED], "is proved", "are proved"),
        (sum(verdicts[v] for v in CHECKED), "holds on the range checked", "hold on the range checked"),
        (verdicts[CONFIRMED_BY_SOURCES], "is confirmed by sources", "are confirmed by sources"),
        (verdicts[CAVEAT], "holds with a caveat", "hold with a caveat"),
        (sum(verdicts[v] for v in FALSE), "is false as stated", "are false as stated"),
        (sum(verdicts[v] for v in OPEN), "is left open", "are left open"),
    ]
    return _joined([_counted(count, one, many) for count, one, many in parts if count])


def _named(claims: Sequence[tuple[Claim, Assessment]], link: Link) -> str:
    return _joined([f"{link(item.id)} ({short_statement(item.statement, 80)})" for item, _ in claims])


def findings(
    documents: Mapping[str, Sequence[tuple[Claim, Assessment]]],
    apart: Sequence[tuple[Claim, Assessment]],
    link: Link,
) -> list[str]:
    """The dashboard's reader's path, five to ten sentences in four paragraphs: how many of each document's
    claims hold, the claims found false (by name), the arguments that fail, and the entries counted apart
    (`documents`: page title → its own claims; `apart`: questions, aggregates and claims beyond them)."""
    own = [pair for claims in documents.values() for pair in claims]
    counts = [
        f"The documents make {_counted(len(own), 'claim', 'claims')}.",
        *(
            f"{title}: of its {len(claims)}, {_tally(Counter(found.verdict for _, found in claims))}."
            for title, claims in documents.items()
        ),
    ]
    refuted = [pair for pair in own if pair[1].verdict == REFUTED]
    contradicted = [pair for pair in own if pair[1].verdict == CONTRADICTED_BY_SOURCES]
    false = []
    if refuted:
        false.append(f"Refuted by a computed counterexample: {_named(refuted, link)}.")
    if contradicted:
        false.append(f"Contradicted by the cited sources: {_ids(contradicted, link)}.")
    argued = [pair for pair in own if pair[1].argument_verdict is not None]
    flawed = [pair for pair in argued if pair[1].argument_verdict == FLAWED]
    conditions = [pair for pair in argued if pair[1].argument_verdict == CONDITIONS]
    sound = sum(pair[1].argument_verdict == SOUND for pair in argued)
    holds = _counted(sound, "holds", "hold")
    argument = (
        f"Of the {_counted(len(argued), 'argument', 'arguments')} the documents give, {holds} as written"
    )
    if conditions:
        argument += f", {len(conditions)} only under a condition left unstated ({_ids(conditions, link)})"
    if flawed:
        argument += f", and in {len(flawed)} a step fails ({_ids(flawed, link)})"
    arguments = [argument + "."]
    unsettled = [pair for pair in own + list(apart) if pair[1].verdict == UNSETTLED]
    if unsettled:
        arguments.append(f"Checks that came out neither way, a defect to look at: {_ids(unsettled, link)}.")
    beyond = [pair for pair in apart if pair[1].verdict in FALSE]
    tally = _tally(Counter(found.verdict for _, found in apart))
    suite = (
        f"The suite adds {len(apart)} entries of its own (questions, aggregates, claims beyond the documents)"
    )
    suite += f": {tally}" + (f"; false: {_ids(beyond, link)}." if beyond else ".")
    paragraphs = (counts, false, arguments, [suite])
    return [line for sentences in paragraphs if sentences for line in (" ".join(sentences), "")]


def _ids(claims: Sequence[tuple[Claim, Assessment]], link: Link) -> str:
    return ", ".join(link(item.id) for item, _ in claims)
