"""What a reader sees first: a page's summaries in Korean and English and its table of claims, a document's
own proofs beside the theorems proved in their place, and the dashboard's few sentences on what the suite
found, all generated from the verdicts and in the verdicts' own words (`counts`, `korean`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pe_verify.claims.evidence import derivation
from pe_verify.claims.model import (
    ARGUMENT_VERDICTS,
    CONDITION_MISSING,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    FINITE,
    NUMERIC,
    PROVED,
    REFUTED,
    SOUND,
    STEP_FAILS,
    UNSETTLED,
    VERDICTS,
    Assessment,
    Claim,
    DocumentProof,
    Role,
    Verdict,
)

from . import korean
from .markdown import cell, lead_clause, short_statement

NONE = "—"

#: A claim's row, kept narrow enough to read at phone width: under 60 characters of its statement, a
#: reason from its explanation in under 100.
STATEMENT_LIMIT, REASON_LIMIT = 59, 99

Link = Callable[[str], str]
Pair = tuple[Claim, Assessment]


def argument_label(assessment: Assessment) -> str:
    """The argument verdict, or a dash when the document gives no argument."""
    return assessment.argument_verdict or NONE


def verdict_label(assessment: Assessment) -> str:
    """The verdict, with the argument's when the document gives one: 'proved · argument flawed'."""
    if assessment.argument_verdict is None:
        return str(assessment.verdict)
    return f"{assessment.verdict} · argument {assessment.argument_verdict}"


def reason(assessment: Assessment) -> str:
    """Why, in one line: the first sentence of the explanation, cut short."""
    return short_statement(assessment.explanation, REASON_LIMIT)


def counts(verdicts: Iterable[Verdict], count: Callable[[int, str], str] = "{} {}".format) -> str:
    """How many claims got each verdict, in the verdicts' order, each as `count(number, verdict)`: '6 proved,
    1 refuted' (verdicts no claim got left out)."""
    found = Counter(verdicts)
    return ", ".join(count(found[verdict], verdict) for verdict in VERDICTS if found[verdict])


def summary_table(claims: Sequence[Pair], link: Link) -> list[str]:
    """One row per claim, four columns to stay readable at phone width: its id linked to its section with
    the claim in under 60 characters, its verdict (and its argument's), the Korean one-line verdict, and the
    first sentence of why."""
    rows = ["| claim | verdict | 판정 | why |", "|---|---|---|---|"]
    for item, assessment in claims:
        cells = (
            f"{link(item.id)} {cell(short_statement(item.statement, STATEMENT_LIMIT))}",
            verdict_label(assessment),
            cell(korean.verdict_line(item, assessment)),
            cell(reason(assessment)),
        )
        rows.append("| " + " | ".join(cells) + " |")
    return [*rows, ""]


# ----------------------------------------------------------------------------------- a page's summaries

#: Verdicts under which a claim holds as far as it was checked: a summary names such claims by id alone.
HOLDING = (PROVED, FINITE, NUMERIC, CONFIRMED_BY_SOURCES)


@dataclass(frozen=True)
class Words:
    """How a page summary is phrased in one language; what it says comes from the verdicts."""

    heading: str
    verdict: Callable[[Verdict], str]
    argument: Callable[[Assessment], str]
    why: Callable[[Claim, Assessment], str]
    count: Callable[[int, str], str]
    claims: Callable[[int], str]
    arguments: str
    added: Callable[[int], str]
    proofs: Callable[[int], str]
    proof: Callable[[DocumentProof, Claim], str]
    conclusion: str
    argument_word: str


ENGLISH = Words(
    heading="Summary",
    verdict=str,
    argument=argument_label,
    why=lambda _, found: reason(found),
    count="{} {}".format,
    claims=lambda n: f"The document makes {n} claim{'s' * (n != 1)}",
    arguments="Arguments that do not hold as written",
    added=lambda n: (
        f"The catalog adds {n} entr{'ies' if n != 1 else 'y'} to the document's sections "
        "(questions it asks, aggregates of claims)"
    ),
    proofs=lambda n: f"The document's {n} proof{'s' * (n != 1)}",
    proof=lambda proof, _: proof.name,
    conclusion="conclusion",
    argument_word="argument",
)
KOREAN = Words(
    heading="요약",
    verdict=korean.VERDICTS.__getitem__,
    argument=lambda found: korean.ARGUMENTS.get(found.argument_verdict, NONE),
    why=korean.why,
    count=lambda n, term: f"{term} {n}건",
    claims=lambda n: f"이 글의 주장 {n}건",
    arguments="쓰인 그대로는 타당하지 않은 논증",
    added=lambda n: f"카탈로그가 이 글의 절에 덧붙인 항목 {n}건(스스로 던진 질문, 주장들의 집계)",
    proofs=lambda n: f"이 글의 증명 {n}개",
    proof=lambda _, item: f"「{korean.section(item.source.section)}」",
    conclusion="결론",
    argument_word="논증",
)


def page_summary(
    pairs: Sequence[Pair], proofs: Sequence[DocumentProof], link: Link, words: Words
) -> list[str]:
    """A page's summary under its heading, in `words`' language: how many of the document's own claims got
    each verdict, the ones that hold by id, every other one with its verdict and why, the arguments that do
    not hold as written, the document's own proofs (conclusion and argument), and the entries the catalog
    adds to the document's sections with their verdicts."""
    own = [pair for pair in pairs if pair[0].role == Role.CLAIM]
    added = [pair for pair in pairs if pair[0].role != Role.CLAIM]
    verdicts = [found.verdict for _, found in own]
    counted = counts(verdicts, _term(words))
    lines = [f"## {words.heading}", "", f"{words.claims(len(own))}{': ' * bool(counted)}{counted}.", ""]
    for verdict in HOLDING:
        held = [link(item.id) for item, found in own if found.verdict == verdict]
        if held:
            lines.append(f"- **{words.verdict(verdict)}**: {', '.join(held)}")
    lines += [_with_reason(pair, link, words) for pair in own if pair[1].verdict not in HOLDING]
    weak = [(item, found) for item, found in own if found.argument_verdict not in (None, SOUND)]
    if weak:
        named = ", ".join(f"{link(item.id)} ({words.argument(found)})" for item, found in weak)
        lines.append(f"- {words.arguments}: {named}")
    lines.append("")
    judged = {item.id: (item, found) for item, found in pairs}
    shown = [proof for proof in proofs if proof.claim in judged]
    if shown:
        lines += [f"{words.proofs(len(shown))}:", ""]
        for proof in shown:
            item, found = judged[proof.claim]
            conclusion = f"{words.conclusion} **{words.verdict(found.verdict)}**"
            argument = f"{words.argument_word} **{words.argument(found)}**"
            lines.append(f"- {words.proof(proof, item)} ({link(item.id)}): {conclusion}, {argument}")
        lines.append("")
    if added:
        lines += [f"{words.added(len(added))}:", "", *(_with_reason(pair, link, words) for pair in added), ""]
    return lines


def _term(words: Words) -> Callable[[int, str], str]:
    return lambda count, verdict: words.count(count, words.verdict(verdict))


def _with_reason(pair: Pair, link: Link, words: Words) -> str:
    item, found = pair
    why = words.why(item, found)
    return f"- {link(item.id)} **{words.verdict(found.verdict)}**" + (f" — {why}" if why else "")


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


def proved_instead(ids: Sequence[str], link: Link) -> list[str]:
    """Each derivation proved in a proof's place: its linked title and its statement as inline math."""
    return [f"{link(name)}: $`{derivation(name).statement}`$" for name in ids]


def proofs_list(
    proofs: Sequence[DocumentProof],
    judged: Mapping[str, tuple[Claim, Assessment]],
    claim_link: Link,
    derivation_link: Link,
) -> list[str]:
    """A document's own proofs one by one, as a list that reads at phone width where a table of six
    columns would not: what each claims, whether its conclusion holds, whether its argument holds, the step
    that fails, and the theorems the suite proves in its place."""
    lines = []
    for proof in proofs:
        item, assessment = judged[proof.claim]
        verdicts = f"conclusion **{assessment.verdict}** · argument **{argument_label(assessment)}**"
        lines += [
            f"- **{proof.name}** ({claim_link(proof.claim)}): {short_statement(item.statement)}",
            f"  - {verdicts}",
            f"  - the step that fails: {failing_steps(assessment)}",
            *(
                f"  - proved in its place: {part}"
                for part in proved_instead(proof.proved_instead, derivation_link)
            ),
        ]
    return [*lines, ""] if lines else []


# ------------------------------------------------------------------------------------------- dashboard

#: Verdicts that say the claim is false as stated, by a computed counterexample or by its sources.
FALSE = (REFUTED, CONTRADICTED_BY_SOURCES)


def _joined(items: Sequence[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _named(claims: Sequence[tuple[Claim, Assessment]], link: Link) -> str:
    return _joined([f"{link(item.id)} ({short_statement(item.statement, 80)})" for item, _ in claims])


def findings(
    documents: Mapping[str, Sequence[tuple[Claim, Assessment]]],
    apart: Sequence[tuple[Claim, Assessment]],
    link: Link,
) -> list[str]:
    """The dashboard's reader's path, five to ten sentences in four paragraphs, in the verdicts' own words:
    how many of each document's claims got each verdict, the claims refuted or contradicted by sources (by
    name), the verdicts on the arguments, and the entries counted apart (`documents`: page label → its own
    claims; `apart`: questions, aggregates and claims beyond them)."""
    own = [pair for claims in documents.values() for pair in claims]
    totals = [
        f"The documents make {_counted(len(own), 'claim', 'claims')}.",
        *(
            f"{title}: of its {len(claims)}, {counts(found.verdict for _, found in claims)}."
            for title, claims in documents.items()
        ),
    ]
    refuted = [pair for pair in own if pair[1].verdict == REFUTED]
    contradicted = [pair for pair in own if pair[1].verdict == CONTRADICTED_BY_SOURCES]
    false = []
    if refuted:
        false.append(f"Refuted, by a computed counterexample: {_named(refuted, link)}.")
    if contradicted:
        false.append(f"Contradicted by sources: {_ids(contradicted, link)}.")
    argued = [pair for pair in own if pair[1].argument_verdict is not None]
    parts = [
        f"{len(chosen)} {verdict}" + (f" ({_ids(chosen, link)})" if verdict != SOUND else "")
        for verdict in (*ARGUMENT_VERDICTS, UNSETTLED)
        if (chosen := [pair for pair in argued if pair[1].argument_verdict == verdict])
    ]
    argument = (
        f"Of the {_counted(len(argued), 'argument', 'arguments')} the documents give: {', '.join(parts)}"
    )
    arguments = [argument + "."]
    unsettled = [pair for pair in own + list(apart) if pair[1].verdict == UNSETTLED]
    if unsettled:
        arguments.append(
            f"Unsettled, a check that came out neither way (a defect to look at): {_ids(unsettled, link)}."
        )
    beyond = [pair for pair in apart if pair[1].verdict in FALSE]
    tally = counts(found.verdict for _, found in apart)
    suite = (
        f"The suite adds {len(apart)} entries of its own (questions, aggregates, claims beyond the documents)"
    )
    suite += f": {tally}" + (f"; {' or '.join(FALSE)}: {_ids(beyond, link)}." if beyond else ".")
    paragraphs = (totals, false, arguments, [suite])
    return [line for sentences in paragraphs if sentences for line in (" ".join(sentences), "")]


def _ids(claims: Sequence[tuple[Claim, Assessment]], link: Link) -> str:
    return ", ".join(link(item.id) for item, _ in claims)
