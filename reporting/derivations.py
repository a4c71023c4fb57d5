"""The derivations page: each derivation the report's claims cite, in full exactly once.

Grouped by the module that proves it, each with its statement, hypotheses, its steps marked as SymPy checked
them, and the claims that cite it. A claim's section shows only the statement and links here
(`citation_lines`).
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from pe_verify.claims.evidence import derivation, verification
from pe_verify.claims.model import Assessment, Evidence
from pe_verify.proofs import all_derivations, render_markdown
from pe_verify.proofs.derivation import VerificationResult

from .display_math import wrapped_displays
from .markdown import cell, heading_anchors

PAGE = "derivations.md"

#: The heading `render_markdown` gives a derivation ends with its id in a code span.
_DERIVATION_HEADING = re.compile(r"^### .*\(`([^`]+)`\)$")


@functools.cache
def derivation_markdown(derivation_id: str) -> str:
    """The derivation's statement and steps, each marked as SymPy checked it (run once per process), its
    display formulas wrapped to the page's width (`display_math.wrapped`)."""
    return wrapped_displays(render_markdown(derivation(derivation_id), verification(derivation_id)))


def derivation_ids(evidence: Iterable[Evidence]) -> list[str]:
    """The derivations that evidence names in its detail, first mention first."""
    named = [value for e in evidence for label, value in e.detail if label == "derivation"]
    return list(dict.fromkeys(named))


def cited(assessment: Assessment) -> list[str]:
    """The derivations an assessment cites, on the claim or on the document's argument."""
    return derivation_ids(assessment.evidence + assessment.argument_evidence)


def citations(cited_by_claim: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Derivation id → the claims citing it (in the order given), in the order of `all_derivations`."""
    found: dict[str, list[str]] = {}
    for claim_id, ids in cited_by_claim.items():
        for derivation_id in ids:
            found.setdefault(derivation_id, []).append(claim_id)
    order = [item.id for item in all_derivations()]
    return {name: found[name] for name in sorted(found, key=order.index)}


def _module(derivation_id: str) -> str:
    return derivation_id.split(".", 1)[0]


def _module_summary(module: str) -> str:
    doc = importlib.import_module(f"pe_verify.proofs.{module}").__doc__ or ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def result_text(derivation_id: str) -> str:
    """'verified (3/3 steps checked by SymPy)', or NOT verified, with the cases when only some are checked."""
    result, item = verification(derivation_id), derivation(derivation_id)
    text = f"{'verified' if result.verified else 'NOT verified'} ({result.summary})"
    return text if item.instances is None else f"{text}, checked only on: {item.instances}"


def _verdict(result: VerificationResult) -> str:
    """'verified', 'verified on samples' (some step of the chain checked only on samples) or NOT verified."""
    if not result.verified:
        return "**NOT verified**"
    return "verified" if result.universal else "verified on samples"


def derivations_page(
    cited_by: Mapping[str, Sequence[str]], marker: str, dashboard: str, links: Callable[[str], str]
) -> str:
    """The page: a table of the derivations, then each in full under its module; `links(claim id)` is the
    markdown link to a claim's section."""
    anchors = derivation_anchors(_page(cited_by, marker, dashboard, links, {}))
    return _page(cited_by, marker, dashboard, links, anchors)


def _page(
    cited_by: Mapping[str, Sequence[str]],
    marker: str,
    dashboard: str,
    links: Callable[[str], str],
    anchors: Mapping[str, str],
) -> str:
    verified = sum(verification(name).verified for name in cited_by)
    universal = sum(verification(name).verified and verification(name).universal for name in cited_by)
    lines = [marker, "", "# Derivations", ""]
    lines += [
        f"[All claims]({dashboard}) · {len(cited_by)} derivations cited by the claims, {verified} of them "
        f"verified: every step checked, by SymPy for every case it states ({universal} derivations) or on "
        "the samples it names.",
        "",
        "Each derivation stands here once: its statement, its hypotheses, its steps (✓ where SymPy checked "
        "the step, ✗ where it did not) and the claims that cite it. A derivation whose steps are checked "
        "only on stated cases says which; the others hold for the symbolic parameters of their statement.",
        "",
        "| module | derivation | result | cited by |",
        "|---|---|---|---|",
    ]
    for name, claims in cited_by.items():
        title = cell(derivation(name).title)
        result = _verdict(verification(name))
        cells = (f"`{_module(name)}`", f"[{title}](#{anchors.get(name, '')})", result)
        lines.append("| " + " | ".join(cells) + " | " + ", ".join(map(links, claims)) + " |")
    lines.append("")
    modules = list(dict.fromkeys(map(_module, cited_by)))
    for module in modules:
        lines += [f"## {module}", "", f"`pe_verify.proofs.{module}`: {_module_summary(module)}", ""]
        for name in (name for name in cited_by if _module(name) == module):
            lines += [derivation_markdown(name).rstrip("\n"), ""]
            lines += ["**Cited by:** " + ", ".join(map(links, cited_by[name])), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def derivation_anchors(page: str) -> dict[str, str]:
    """Derivation id → the anchor of its heading on the derivations page."""
    found = {}
    for heading, anchor in heading_anchors(page):
        match = _DERIVATION_HEADING.match(heading)
        if match:
            found[match.group(1)] = anchor
    return found


def citation_lines(ids: Sequence[str], anchors: Mapping[str, str]) -> list[str]:
    """A claim section's derivations: each title linked to its full form, its result and its statement."""
    if not ids:
        return []
    lines = [f"**Derivations** (in full on the [derivations page]({PAGE})):", ""]
    for name in ids:
        item = derivation(name)
        lines.append(
            f"- [{item.title}]({PAGE}#{anchors.get(name, '')}) (`{name}`), {result_text(name)}: "
            f"$`{item.statement}`$"
        )
    return [*lines, ""]
