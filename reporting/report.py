"""Markdown proof reports of the catalog: a dashboard, one page per document, and the figures they show.

`write_reports(out_dir)` writes `README.md` (counts per verdict and one row per claim), `document-NNN.md` for
each source document (NNN = the number its file name starts with), `beyond-the-documents.md` for the other
entries, and `figures/*.png`. Regeneration gives identical bytes: nothing depends on the time, the order is
the catalog's, and the PNGs carry no stamps (their bytes do depend on the matplotlib version, which the
dashboard's last line records). Figures already in the folder that another matplotlib version drew with the
same content digest are kept as they are, with the version they record (`kept_figures`), so that a report
at another matplotlib version changes nothing that did not change. The folder is replaced all at once, and
a file this module did not write (pages carry its marker line, figures a marker chunk) is never replaced or
removed: see `is_ours` and `publish`. Its only folder is figures/: a symbolic link, a mount point or any
other folder inside the output folder is refused, like a file of the user's where a page or figure goes,
before anything is assessed (`check_output`, from `output_names`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import matplotlib

from pe_verify.claims import catalog, numbers
from pe_verify.claims.evidence import derivation
from pe_verify.claims.model import (
    AGGREGATE,
    ARGUMENT_VERDICTS,
    BACKGROUND,
    BEYOND_DOMAIN,
    CAVEAT,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    CORROBORATES,
    FACTUAL_VERDICTS,
    FINITE,
    FLAWED,
    KINDS,
    LIMITS,
    MATHEMATICAL_VERDICTS,
    NOT_CHECKABLE,
    NUMERIC,
    PROVED,
    QUESTION,
    REFUTED,
    REFUTES,
    SOUND,
    SOURCES_DISAGREE,
    STEP_CHECKED,
    STEP_FAILS,
    SUPPORTS,
    UNSETTLED,
    WEAK,
    Assessment,
    Claim,
    Evidence,
    Reproduction,
)

from . import derivations, figures, korean, libraries, models, publish, summaries
from .markdown import cell, code, folded, github_slug, heading_anchors, short_statement
from .summaries import NONE, argument_label

DASHBOARD = "README.md"
MODELS = models.PAGE
LIBRARIES = libraries.PAGE
DERIVATIONS = derivations.PAGE
BEYOND = "beyond-the-documents.md"
FIGURES = "figures"

#: First line of every page; a page is removed as stale only when it starts with this line.
MARKER = "<!-- pe-verify proof report: written by `pe-verify report`; edits are overwritten -->"

#: The dashboard's last line; a staleness check compares PNG bytes only when this version matches its own.
FOOTER = "figures drawn with matplotlib {version}"

VERDICT_MEANINGS = {
    PROVED: "holds exactly for every case it speaks of: every supporting check is symbolic, an exact "
    "decision or an interval certificate, and covers all those cases",
    REFUTED: "false as stated: the suite computed a counterexample",
    CAVEAT: "holds only under a condition the document does not state (a counterexample outside it is "
    "shown), or a cited source contradicts part of it",
    FINITE: "checked exactly, but only on a stated finite set of the cases it speaks of: not proved",
    NUMERIC: "checked over a stated finite range at a stated precision, not proved",
    CONFIRMED_BY_SOURCES: "a matter of fact, not of mathematics: the cited primary sources confirm it",
    CONTRADICTED_BY_SOURCES: "a matter of fact: the cited primary sources contradict it",
    SOURCES_DISAGREE: "a matter of fact: some cited sources confirm part of it and others contradict part",
    NOT_CHECKABLE: "a matter of fact that no cited source decides",
    UNSETTLED: "a check that should have confirmed the claim did not: a defect to look at",
}
ARGUMENT_MEANINGS = {
    SOUND: "every step of the document's argument checks",
    CONDITIONS: "the steps hold only under a condition the document leaves unstated",
    FLAWED: "a step of the document's argument fails",
    UNSETTLED: "a step the suite checks did not come out either way",
    NONE: "the document gives no argument for the claim",
}
BEARING_MEANINGS = {
    SUPPORTS: "a true outcome confirms the claim as stated",
    REFUTES: "a true outcome is a counterexample to the claim",
    LIMITS: "a true outcome is a counterexample outside a condition the document does not state",
    CORROBORATES: "a measurement cross-checking what exact evidence shows: it must come out true",
    BEYOND_DOMAIN: "a true outcome is a counterexample outside the domain the document speaks of: a note, "
    "the verdict judges the claim on its own domain",
    BACKGROUND: "a cited fact that informs the claim but decides it neither way",
    STEP_CHECKED: "a true outcome means the argument's step holds as written",
    STEP_FAILS: "a true outcome is a counterexample to a step of the argument",
    CONDITION_MISSING: "a true outcome means a step holds only under an unstated condition",
}

_DOCUMENT_FILE = re.compile(r"^(\d+)_")
_DOCUMENT_PAGE = re.compile(r"^document-\d+\.md$")


@dataclass(frozen=True)
class Entry:
    """A claim with what its checks computed this run and the page it is shown on."""

    claim: Claim
    assessment: Assessment
    page: str


# ------------------------------------------------------------------------------------------ small pieces


def page_name(document: str) -> str:
    """`document-NNN.md` for a document file named `NNN_….txt`; the page of general entries otherwise."""
    match = _DOCUMENT_FILE.match(document)
    return f"document-{match.group(1)}.md" if match else BEYOND


def _page_order(page: str) -> tuple[int, int]:
    """Document pages by number, then the page of general entries."""
    return (1, 0) if page == BEYOND else (0, int(re.sub(r"\D", "", page)))


def deciding_evidence(assessment: Assessment) -> list[Evidence]:
    """The evidence a verdict rests on: the computed counterexamples of a refuted claim, the failed checks of
    an unsettled one, the citations of a claim with a factual verdict, the computed support otherwise."""
    evidence, verdict = assessment.evidence, assessment.verdict
    computed = [e for e in evidence if e.kind != CITATION]
    if verdict == REFUTED:
        return [e for e in computed if e.bearing == REFUTES and e.holds]
    if verdict == UNSETTLED:
        failed = [e for e in evidence if e.bearing in (SUPPORTS, CORROBORATES) and not e.holds]
        return failed or list(evidence)
    if verdict in FACTUAL_VERDICTS:
        return [e for e in evidence if e.kind == CITATION]
    return [e for e in computed if e.bearing == SUPPORTS]


def strongest_kind(assessment: Assessment) -> str:
    """The strongest kind (in `KINDS` order) among the evidence the verdict rests on; a dash if none."""
    kinds = {e.kind for e in deciding_evidence(assessment)}
    return next((kind for kind in KINDS if kind in kinds), NONE)


# -------------------------------------------------------------------------------------------- a claim


Links = Callable[[str], str]

#: The heading of a page's table of its claims.
CLAIMS_TABLE = "Claims at a glance"


def claim_anchor(claim_id: str) -> str:
    """The anchor of a claim's section: its id as GitHub would slug a heading of the id alone, set as an
    explicit anchor so that it stays the same whatever the heading says besides."""
    return github_slug(claim_id)


def claim_heading(claim: Claim) -> list[str]:
    """A claim's heading, its explicit anchor first: its id and its section as the document names it."""
    section = korean.section(claim.source.section)
    return [f'## <a id="{claim_anchor(claim.id)}"></a>{claim.id} · {section}', ""]


def _source(claim: Claim) -> str:
    path, line = catalog.location(claim)
    return (
        f"**Source:** {code(claim.source.document)}, section “{claim.source.section}” · "
        f"**Entry:** [{path}, line {line}](../{path}#L{line})"
    )


def _weak(claim: Claim, links: Links, verdicts: Mapping[str, str]) -> list[str]:
    """A warning naming each direct dependency whose verdict is refuted or unsettled (none: no lines)."""
    weak = [name for name in claim.depends_on if verdicts.get(name) in WEAK]
    if not weak:
        return []
    named = ", ".join(f"{links(name)} ({verdicts[name]})" for name in weak)
    return [f"**Warning:** this claim depends on {named}.", ""]


def _verdicts(entry: Entry) -> list[str]:
    claim, assessment = entry.claim, entry.assessment
    verdict = f"**Verdict:** {assessment.verdict}"
    if assessment.verdict != claim.expected:
        verdict += f" (the entry expects *{claim.expected}*: the computed verdict has changed)"
    argument = f"**Argument:** {argument_label(assessment)}"
    if assessment.argument_issue:
        argument += f" — {assessment.argument_issue}"
    if assessment.argument_verdict != claim.expected_argument:
        argument += f" (the entry expects *{claim.expected_argument or NONE}*)"
    return [f"{verdict} · {argument}\\", f"**판정:** {korean.verdict_line(claim, assessment)}", ""]


def evidence_table(prefix: str, evidence: Sequence[Evidence]) -> list[str]:
    """One row per piece of evidence: label, kind, outcome of the check, bearing, summary."""
    rows = ["| | kind | outcome | bearing | summary |", "|---|---|---|---|---|"]
    for number, e in enumerate(evidence, start=1):
        outcome = "true" if e.holds else "false"
        rows.append(f"| {prefix}{number} | {e.kind} | {outcome} | {e.bearing} | {cell(e.summary)} |")
    return [*rows, ""]


def reproduction_table(reproduction: Reproduction) -> list[str]:
    """The paper's published values beside the computed ones, row by row, with the source and precision."""
    lines = [
        f"**Reproduction `{reproduction.name}`.** {reproduction.source}. Computed: {reproduction.precision}.",
        "",
        "| parameter | published | computed | agrees | note |",
        "|---|---|---|---|---|",
    ]
    for row in reproduction.rows:
        agrees = "yes" if row.agrees else "**no**"
        cells = (row.parameter, row.published, row.computed, agrees, row.note)
        lines.append("| " + " | ".join(cell(text) for text in cells) + " |")
    return [*lines, ""]


def _folded_reproduction(reproduction: Reproduction) -> list[str]:
    rows, differ = len(reproduction.rows), len(reproduction.discrepancies)
    agree = f"{rows - differ} of {rows} rows agree with the published values"
    return folded(f"Reproduction {reproduction.name}: {agree}", reproduction_table(reproduction))


def details(prefix: str, evidence: Sequence[Evidence]) -> dict[str, list[str]]:
    """The concrete values each piece of evidence carries (witnesses, digits, ranges), derivations aside, by
    the evidence's label (only those that carry any)."""
    found = {}
    for number, e in enumerate(evidence, start=1):
        values = [(label, value) for label, value in e.detail if label != "derivation"]
        if e.instances is not None:
            values.append(("checked only on", e.instances))
        if values:
            found[f"{prefix}{number}"] = [
                f"  - {label}: {code(' '.join(value.split()))}" for label, value in values
            ]
    return found


def _folded_details(assessment: Assessment) -> list[str]:
    values = details("E", assessment.evidence) | details("A", assessment.argument_evidence)
    if not values:
        return []
    lines = [line for label, rows in values.items() for line in (f"- **{label}**", *rows)]
    return folded(f"Values the checks computed ({', '.join(values)})", lines)


def _figure(plot: figures.Plot) -> list[str]:
    return [f"![{plot.title}]({FIGURES}/{plot.name})", "", f"*{plot.title}.* {plot.caption}", ""]


def claim_section(
    entry: Entry,
    links: Links,
    plots: Sequence[figures.Plot],
    verdicts: Mapping[str, str],
    derivation_anchors: Mapping[str, str],
) -> list[str]:
    """One claim, read as claim → verdict → why → evidence: source and entry, a warning when a dependency is
    refuted or unsettled (`verdicts`: each claim's verdict by id), statement, verdicts, explanation, the
    evidence tables; then the computed values and any reproduction folded, the derivations it cites (linked
    to their one full form on the derivations page, at `derivation_anchors`), figures, dependencies."""
    claim, assessment = entry.claim, entry.assessment
    lines = [*claim_heading(claim), _source(claim), "", *_weak(claim, links, verdicts)]
    lines += [f"**Claim.** {claim.statement}", ""]
    lines += [f"$${' '.join(claim.formal.split())}$$", "", *_verdicts(entry), assessment.explanation, ""]
    lines += ["**Evidence on the claim.**", "", *evidence_table("E", assessment.evidence)]
    if assessment.argument_evidence:
        lines += ["**Evidence on the document's argument.**", ""]
        lines += evidence_table("A", assessment.argument_evidence)
    lines += _folded_details(assessment)
    if assessment.reproduction is not None:
        lines += _folded_reproduction(assessment.reproduction)
    lines += derivations.citation_lines(derivations.cited(assessment), derivation_anchors)
    for plot in plots:
        lines += _figure(plot)
    if claim.depends_on:
        lines += ["**Depends on:** " + ", ".join(links(item) for item in claim.depends_on), ""]
    return lines


# ------------------------------------------------------------------------------------------------ pages


def _claims(count: int) -> str:
    return f"{count} claim" if count == 1 else f"{count} claims"


def _count_line(entries: Sequence[Entry]) -> str:
    found = summaries.counts(entry.assessment.verdict for entry in entries)
    return f"{_claims(len(entries))}: {found}" if found else _claims(len(entries))


def _legend() -> list[str]:
    bearings = [f"- *{bearing}*: {meaning}" for bearing, meaning in BEARING_MEANINGS.items()]
    lines = ["*Outcome* is what a check computed; *bearing* says what a true outcome means:", "", *bearings]
    return folded("How to read the evidence tables: outcome and bearing", lines)


def page_label(page: str) -> str:
    """What the pages call a page's document: Document NNN, or Beyond the documents."""
    if page == BEYOND:
        return "Beyond the documents"
    return f"Document {page.removeprefix('document-').removesuffix('.md')}"


def page_title(page: str, entries: Sequence[Entry]) -> str:
    """The page's heading: its document's own title (`catalog.TITLES`), else its label and file names."""
    documents = sorted({entry.claim.source.document for entry in entries})
    titles = [catalog.TITLES[name].text for name in documents if name in catalog.TITLES]
    if page == BEYOND or len(titles) != 1:
        files = f": {', '.join(map(code, documents))}" if page != BEYOND else ""
        return page_label(page) + files
    return titles[0]


def _page_head(page: str, entries: Sequence[Entry]) -> list[str]:
    """The page's title, then its label, file name and links, and how a title the document lacks was
    chosen."""
    documents = sorted({entry.claim.source.document for entry in entries})
    label = page_label(page)
    if page != BEYOND:
        label += " · " + ", ".join(map(code, documents))
    lines = [
        f"# {page_title(page, entries)}",
        "",
        f"{label} · [All claims]({DASHBOARD}) · [Derivations]({DERIVATIONS})",
        "",
    ]
    for name in documents:
        title = catalog.TITLES.get(name)
        if title is not None and title.chosen_en:
            lines += [f"*{title.chosen_ko}*", "", f"*{title.chosen_en}*", ""]
    return lines


def _proofs(entries: Sequence[Entry], links: Links, derivation_anchors: Mapping[str, str]) -> list[str]:
    """The page's document proofs (`catalog.document_proofs` of its claims) one by one, under a heading."""
    judged = {entry.claim.id: (entry.claim, entry.assessment) for entry in entries}
    proofs = [proof for proof in catalog.document_proofs() if proof.claim in judged]
    if not proofs:
        return []

    def derivation_link(name: str) -> str:
        return f"[{derivation(name).title}]({DERIVATIONS}#{derivation_anchors.get(name, '')})"

    lines = [
        "## The document's proofs",
        "",
        f"The document's {len(proofs)} proofs one by one: whether each conclusion holds (the claim's "
        "verdict), whether its argument holds, the steps that fail or need an unstated condition, and the "
        "theorems the suite proves in its place (in full on the derivations page).",
        "",
    ]
    return lines + summaries.proofs_list(proofs, judged, links, derivation_link)


def render_page(
    page: str,
    entries: Sequence[Entry],
    links: Links,
    plots: Sequence[figures.Plot],
    verdicts: Mapping[str, str],
    derivation_anchors: Mapping[str, str],
) -> str:
    """A document's page under the document's own title: its summary in Korean, then in English (both from
    the verdicts; the page of claims beyond the documents has none), the document's own proofs side by side
    (where the catalog sets them), a table of its claims with their Korean one-line verdicts, then each claim
    in catalog order under a heading that is its id and its section."""
    pairs = [(entry.claim, entry.assessment) for entry in entries]
    proofs = catalog.document_proofs()
    lines = [MARKER, "", *_page_head(page, entries)]
    for words in (summaries.KOREAN, summaries.ENGLISH) if page != BEYOND else ():
        lines += summaries.page_summary(pairs, proofs, links, words)
    lines += _proofs(entries, links, derivation_anchors)
    lines += [f"## {CLAIMS_TABLE}", "", *summaries.summary_table(pairs, links), *_legend()]
    for entry in entries:
        shown = [plot for plot in plots if entry.claim.id in plot.claims]
        lines += claim_section(entry, links, shown, verdicts, derivation_anchors)
    return "\n".join(lines).rstrip("\n") + "\n"


@dataclass(frozen=True)
class Anchors:
    """Where links point: each claim's heading on its page, each derivation's on the derivations page."""

    claims: Mapping[str, str]
    derivations: Mapping[str, str]


def _claim_links(pages: Mapping[str, Sequence[Entry]], anchors: Mapping[str, str]) -> Links:
    where = {entry.claim.id: page for page, entries in pages.items() for entry in entries}

    def links(claim_id: str) -> str:
        if claim_id not in where:
            return f"{claim_id} (not in the catalog)"
        return f"[{claim_id}]({where[claim_id]}#{anchors.get(claim_id, '')})"

    return links


def _render_pages(
    pages: dict[str, list[Entry]], anchors: Anchors, plots: Sequence[figures.Plot]
) -> dict[str, str]:
    """The document pages and the derivations page, their links pointing at `anchors`."""
    verdicts = {entry.claim.id: entry.assessment.verdict for entries in pages.values() for entry in entries}
    links = _claim_links(pages, anchors.claims)
    texts = {
        page: render_page(page, entries, links, plots, verdicts, anchors.derivations)
        for page, entries in pages.items()
    }
    cited = {
        entry.claim.id: derivations.cited(entry.assessment) for items in pages.values() for entry in items
    }
    texts[DERIVATIONS] = derivations.derivations_page(derivations.citations(cited), MARKER, DASHBOARD, links)
    return texts


def claim_anchors(pages: dict[str, list[Entry]], texts: dict[str, str]) -> dict[str, str]:
    """The explicit anchor of each claim's section on its page (`claim_anchor`); ValueError when one is not
    unique on its page, among its headings' anchors and the other claims'."""
    anchors = {}
    for page, entries in pages.items():
        taken = Counter(slug for _, slug in heading_anchors(texts[page]))
        taken.update(claim_anchor(entry.claim.id) for entry in entries)
        for entry in entries:
            anchor = claim_anchor(entry.claim.id)
            if taken[anchor] > 1:
                raise ValueError(f"{page}: the anchor #{anchor} of {entry.claim.id} is not unique")
            anchors[entry.claim.id] = anchor
    return anchors


def page_anchors(pages: dict[str, list[Entry]], texts: dict[str, str]) -> Anchors:
    """The anchors of rendered pages' claims and derivations (which do not depend on where links point)."""
    return Anchors(claim_anchors(pages, texts), derivations.derivation_anchors(texts[DERIVATIONS]))


# -------------------------------------------------------------------------------------------- dashboard


def _counts_table(title: str, values: Sequence[str], found: Counter, meanings: dict[str, str]) -> list[str]:
    rows = [f"| {title} | claims | meaning |", "|---|---|---|"]
    rows += [f"| {value} | {found[value]} | {meanings[value]} |" for value in values]
    return [*rows, ""]


OWN = "claims the documents make"
BEYOND_GROUP = "claims beyond the documents"
#: The group of each role other than a plain claim (whose group is its page's: a document's or beyond).
ROLE_GROUPS = {
    QUESTION: "questions the catalog adds to a document's section",
    AGGREGATE: "aggregates of other entries",
}
GROUPS = (OWN, *ROLE_GROUPS.values(), BEYOND_GROUP)


def entry_groups(entries: Sequence[Entry]) -> dict[str, list[Entry]]:
    """The entries by what they are (`GROUPS`): the documents' own claims, the catalog's questions, the
    aggregates, the claims beyond the documents; each entry in exactly one group."""
    groups: dict[str, list[Entry]] = {name: [] for name in GROUPS}
    for entry in entries:
        plain = BEYOND_GROUP if entry.page == BEYOND else OWN
        groups[ROLE_GROUPS.get(entry.claim.role, plain)].append(entry)
    return groups


def _claim_row(entry: Entry, anchors: dict[str, str]) -> str:
    claim, assessment = entry.claim, entry.assessment
    cells = (
        f"[{claim.id}]({entry.page}#{anchors[claim.id]})",
        cell(short_statement(claim.statement, summaries.STATEMENT_LIMIT)),
        assessment.verdict,
        argument_label(assessment),
        strongest_kind(assessment),
    )
    return "| " + " | ".join(cells) + " |"


def _changed(entries: Sequence[Entry]) -> list[str]:
    changed = [
        f"{entry.claim.id} (expected {entry.claim.expected} / {entry.claim.expected_argument or NONE}, "
        f"computed {entry.assessment.verdict} / {argument_label(entry.assessment)})"
        for entry in entries
        if (entry.assessment.verdict, entry.assessment.argument_verdict)
        != (entry.claim.expected, entry.claim.expected_argument)
    ]
    if not changed:
        return ["Every computed verdict is the one its entry records.", ""]
    return [f"**Computed verdicts that differ from the recorded ones:** {'; '.join(changed)}.", ""]


def render_dashboard(
    entries: Sequence[Entry],
    pages: Sequence[str],
    anchors: dict[str, str],
    plots: Sequence[figures.Plot],
    drawn_with: str,
) -> str:
    """Counts per verdict and per argument verdict, one row per claim, the pages, the figures, and the
    matplotlib version `drawn_with` that drew them."""
    groups = entry_groups(entries)
    own = groups[OWN]
    verdicts = Counter(entry.assessment.verdict for entry in own)
    arguments = Counter(argument_label(entry.assessment) for entry in own)
    lines = [MARKER, "", "# Claims about positional encodings, checked", ""]
    lines += [
        f"{_claims(len(entries))}. Each verdict is computed from the evidence of the suite's own checks; "
        "a claim's argument (where the document gives one) gets a verdict of its own.",
        "",
        "## What the suite found",
        "",
        *_findings(groups, anchors),
        "## Verdicts",
        "",
        f"Of the {len(own)} claims the documents make:",
        "",
    ]
    lines += _counts_table("verdict", MATHEMATICAL_VERDICTS, verdicts, VERDICT_MEANINGS)
    lines += _counts_table("factual verdict", FACTUAL_VERDICTS, verdicts, VERDICT_MEANINGS)
    lines += _counts_table("argument", (*ARGUMENT_VERDICTS, UNSETTLED, NONE), arguments, ARGUMENT_MEANINGS)
    others = [f"- {name}: {_count_line(group)}" for name, group in groups.items() if name != OWN and group]
    if others:
        lines += ["Counted apart:", "", *others, ""]
    lines += _changed(entries)
    lines += [
        "## Claims",
        "",
        "Each id links to its section on its document's page.",
        "",
        "| id | statement | verdict | argument | strongest evidence |",
    ]
    lines += ["|---|---|---|---|---|", *(_claim_row(entry, anchors) for entry in entries), ""]
    lines += dependency_graph(entries)
    lines += ["## Pages", ""]
    for page in pages:
        if page == DERIVATIONS:
            lines.append(f"- [Derivations]({page}): each derivation the claims cite, in full once")
            continue
        if page == MODELS:
            lines.append(
                f"- [Well-known models' positional setups]({page}): `pe-verify model` on {_models()}"
            )
            continue
        if page == LIBRARIES:
            lines.append(
                f"- [Real libraries' RoPE and ALiBi code]({page}): `pe-verify check` on the code of the "
                "libraries the `libraries` extra pins, from the record `pe-verify atlas` writes"
            )
            continue
        shown = [entry for entry in entries if entry.page == page]
        title = page_title(page, shown)
        named = title if title.startswith(page_label(page)) else f"{page_label(page)} · {title}"
        lines.append(f"- [{named}]({page}): {_count_line(shown)}")
    lines += ["", "## Figures", ""]
    for plot in plots:
        lines += [f"### {plot.title}", "", *_figure(plot)]
    lines += ["---", "", numbers.RULE, "", FOOTER.format(version=drawn_with), ""]
    return "\n".join(lines)


def _findings(groups: Mapping[str, Sequence[Entry]], anchors: Mapping[str, str]) -> list[str]:
    """What the suite found, in a few sentences generated from the verdicts (`summaries.findings`)."""
    documents: dict[str, list[tuple[Claim, Assessment]]] = {}
    for entry in groups[OWN]:
        documents.setdefault(page_label(entry.page), []).append((entry.claim, entry.assessment))
    apart = [
        (entry.claim, entry.assessment) for name, group in groups.items() if name != OWN for entry in group
    ]
    page = {entry.claim.id: entry.page for group in groups.values() for entry in group}

    def link(claim_id: str) -> str:
        return f"[{claim_id}]({page[claim_id]}#{anchors[claim_id]})"

    return summaries.findings(documents, apart, link)


def _models() -> str:
    return f"{len(models.bundled_models())} public models' configs"


def dependency_graph(entries: Sequence[Entry]) -> list[str]:
    """The claims that depend on others as a Mermaid graph (an arrow from a claim to what it depends on),
    each node labelled with its id and verdict, the weak verdicts' nodes outlined."""
    verdicts = {entry.claim.id: entry.assessment.verdict for entry in entries}
    edges = [(entry.claim.id, name) for entry in entries for name in entry.claim.depends_on]
    if not edges:
        return []
    nodes = sorted({name for edge in edges for name in edge} & set(verdicts), key=list(verdicts).index)

    def node(name: str) -> str:
        return "n_" + re.sub(r"[^0-9A-Za-z]", "_", name)

    lines = [
        "## Dependencies",
        "",
        f"An arrow leads from a claim to a claim it depends on ({len(edges)}).",
        "",
    ]
    lines += ["```mermaid", "graph LR", "  classDef weak stroke:#c00,stroke-width:3px"]
    lines += [f'  {node(name)}["{name} · {verdicts[name]}"]' for name in nodes]
    lines += [f"  {node(a)} --> {node(b)}" for a, b in edges if a in verdicts and b in verdicts]
    weak = [node(name) for name in nodes if verdicts[name] in WEAK]
    if weak:
        lines.append(f"  class {','.join(weak)} weak")
    return [*lines, "```", ""]


def recorded_matplotlib_version(dashboard: str) -> str | None:
    """The matplotlib version a dashboard's footer records (None when there is no such footer)."""
    pattern = re.escape(FOOTER).replace(re.escape("{version}"), r"(\S+)")
    match = re.search(rf"^{pattern}$", dashboard, flags=re.MULTILINE)
    return match.group(1) if match else None


# -------------------------------------------------------------------------------------------- writing


def is_ours(relative: PurePosixPath, path: Path) -> bool:
    """Whether an existing entry of the output folder was written by `write_reports`: the dashboard, a
    document page or the beyond page whose first line is MARKER, or a PNG in figures/ with the figures'
    marker chunk. Nothing else is ever replaced or removed."""
    if path.is_symlink() or not path.is_file():
        return False
    page = relative.name in (DASHBOARD, BEYOND, MODELS, LIBRARIES, DERIVATIONS) or _DOCUMENT_PAGE.match(
        relative.name
    )
    if len(relative.parts) == 1 and page:
        with path.open("rb") as stream:
            return stream.readline().rstrip(b"\r\n") == MARKER.encode()
    if relative.parent == PurePosixPath(FIGURES) and relative.suffix == ".png":
        return figures.is_ours(path.read_bytes())
    return False


def page_names(claims: Sequence[Claim] | None = None) -> list[str]:
    """The pages a report of these claims (default: the catalog, and then the models and library atlas pages
    too) writes, known before anything is assessed."""
    chosen = catalog.all_claims() if claims is None else claims
    pages = [DASHBOARD, *sorted({page_name(item.source.document) for item in chosen}, key=_page_order)]
    return [*pages, DERIVATIONS] if claims is not None else [*pages, DERIVATIONS, MODELS, LIBRARIES]


def output_names(claims: Sequence[Claim] | None = None) -> list[str]:
    """Every file a report of these claims (default: the catalog) writes, pages and figures, known before
    anything is assessed or drawn (the figures are those `figures.ILLUSTRATES` names, which drawing uses)."""
    return [*page_names(claims), *(f"{FIGURES}/{name}" for name in figures.ILLUSTRATES)]


def check_output(out_dir: Path, claims: Sequence[Claim] | None = None, extras: Iterable[Path] = ()) -> None:
    """Refuse before any work what `write_reports` would refuse: a page or figure of ours where a file of the
    user's is (`publish.ForeignFile`), a folder that may not be published, or holds a link, a mount point or
    a folder the report did not create (`publish.Refused`), a folder or extra file that cannot be written
    (PermissionError)."""
    publish.check(Path(out_dir), output_names(claims), is_ours, extras)


def assessed(
    claims: Sequence[Claim] | None = None, progress: Callable[[str], None] | None = None
) -> list[Entry]:
    """Each claim with its assessment and page: the catalog's (assessed once per process) by default, else
    the given claims, assessed now. `progress(id)` is called as each claim is done."""
    entries = []
    for item in catalog.all_claims() if claims is None else claims:
        found = catalog.assessment(item.id) if claims is None else item.assess()
        entries.append(Entry(item, found, page_name(item.source.document)))
        if progress is not None:
            progress(item.id)
    return entries


def kept_figures(folder: Path, plots: Sequence[figures.Plot]) -> tuple[str, list[figures.Plot]] | None:
    """The figures of a report in `folder` and the matplotlib version its dashboard records, when that version
    is not this one and every plot is there, ours, with its content digest: the same figures, drawn by
    another matplotlib version. None otherwise (then the figures are drawn anew)."""
    dashboard = folder / DASHBOARD
    if not is_ours(PurePosixPath(DASHBOARD), dashboard):
        return None
    recorded = recorded_matplotlib_version(dashboard.read_text(encoding="utf-8", errors="replace"))
    if recorded is None or recorded == matplotlib.__version__:
        return None
    kept = []
    for plot in plots:
        path = folder / FIGURES / plot.name
        if not is_ours(PurePosixPath(FIGURES, plot.name), path):
            return None
        png = path.read_bytes()
        if figures.png_text(png).get(figures.CONTENT) != plot.content:
            return None
        kept.append(dataclasses.replace(plot, draw=lambda png=png: png))
    return recorded, kept


def _kept_model_figure(folder: Path, plot: figures.Plot) -> figures.Plot:
    """The models figure as `folder` holds it when it carries the same content digest, else to be drawn."""
    path = folder / FIGURES / plot.name
    if is_ours(PurePosixPath(FIGURES, plot.name), path):
        png = path.read_bytes()
        if figures.png_text(png).get(figures.CONTENT) == plot.content:
            return dataclasses.replace(plot, draw=lambda png=png: png)
    return plot


def render_pages(
    claims: Sequence[Claim] | None = None,
    progress: Callable[[str], None] | None = None,
    keep: Path | None = None,
    models_page: bool = True,
) -> tuple[dict[str, str], tuple[figures.Plot, ...]]:
    """The report's pages, relative path → text, and its figures (not yet drawn: `figures.Plot.png` draws
    one when asked).

    `claims` defaults to the whole catalog (assessed once per process); given claims are assessed here.
    `progress(step)` is called as each claim is done. With `keep`, the figures of the report in that folder
    are reused when `kept_figures` finds them the same. The models page and its figure are part of the whole
    catalog's report (`claims` None) unless `models_page` is False; the library atlas page, rendered from its
    committed record (`libraries.RECORD`), is part of it always.
    """
    entries = assessed(claims, progress)
    plots = figures.draw_figures(figures.SCALES)
    records = models.bundled_records() if claims is None and models_page else ()
    drawn_with, found = matplotlib.__version__, None if keep is None else kept_figures(keep, plots)
    if found is not None:
        drawn_with, plots = found
    pages: dict[str, list[Entry]] = {}
    for entry in entries:
        pages.setdefault(entry.page, []).append(entry)
    pages = dict(sorted(pages.items(), key=lambda item: _page_order(item[0])))
    anchors = page_anchors(pages, _render_pages(pages, Anchors({}, {}), plots))  # headings have no links
    texts = _render_pages(pages, anchors, plots)
    # The models page is the whole catalog's, listed also when it is rendered apart (`models_page` False).
    listed = [*pages, DERIVATIONS]
    listed += [MODELS] if claims is None and (records or not models_page) else []
    listed += [LIBRARIES] if claims is None else []
    texts[DASHBOARD] = render_dashboard(entries, listed, anchors.claims, plots, drawn_with)
    if claims is None:
        texts[LIBRARIES] = libraries.libraries_page(libraries.read_record(), MARKER, DASHBOARD)
    if records:
        model_plot = models.wavelength_figure(records)
        if found is not None:
            model_plot = _kept_model_figure(keep, model_plot)
        link = f"{FIGURES}/{model_plot.name}"
        texts[MODELS] = models.models_page(records, MARKER, model_plot, link, github_slug)
        plots = (*plots, model_plot)
    return texts, tuple(plots)


def render_reports(
    claims: Sequence[Claim] | None = None,
    progress: Callable[[str], None] | None = None,
    keep: Path | None = None,
) -> dict[str, bytes]:
    """Every file of the report, relative path → bytes: the dashboard, the document pages (`render_pages`,
    with the same arguments) and the figures, drawn here (`progress("figures")` once they are)."""
    texts, plots = render_pages(claims, progress, keep)
    files = {f"{FIGURES}/{plot.name}": plot.png for plot in plots}
    if progress is not None:
        progress("figures")
    return files | {name: text.encode("utf-8") for name, text in texts.items()}


def write_reports(
    out_dir: Path,
    claims: Sequence[Claim] | None = None,
    extras: Mapping[Path, bytes] | None = None,
    redraw: bool = False,
) -> list[Path]:
    """Write the report into `out_dir` (created if missing) and each extra file, all at once; pages and
    figures written there before that are no longer produced are dropped, every other file is kept
    (`publish` says how); figures another matplotlib version drew the same are kept unless `redraw`.
    Returns the files written in `out_dir`."""
    files = render_reports(claims, keep=None if redraw else Path(out_dir))
    return publish.publish(Path(out_dir), files, is_ours, extras)
