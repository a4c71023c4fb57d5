"""The catalog: every claim of every document module, looked up by id, assessed once per process.

An unknown id is answered with the closest ids; the id is echoed cut to `SHOWN_ID` characters, and ids far
longer than any in the catalog are not compared at all. `broken_links` lists every id the catalog cites that
resolves to nothing (and, given the documents, every section heading they lack), in the spirit of
leanblueprint's ``checkdecls``.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pe_verify.proofs import all_derivations

from .model import WEAK, Assessment, Claim, DocumentProof

MODULES = (
    "document_000",
    "document_001",
    "document_003",
    "general",
    "reproduce_base_bound",
    "reproduce_decay",
    "reproduce_interpolation",
    "reproduce_yarn_precision",
)

#: Characters of an unknown id echoed in the error; longer ids are cut and their length stated.
SHOWN_ID = 40

#: The documents the entries speak of, by file name, with the SHA-256 of the text they were written against.
DOCUMENTS = {
    "000_76efdfd3f753ef97.txt": "5e1150bfd7566dea02f171d6cd1045ddd498b11f1f9e16696ffc05605989ca61",
    "001_8f1b66f67cfe018c.txt": "d06d11eb796a1e3a5c452f1ed59ef3fc37738df775ad880fc33402830f4edf4b",
    "003_4499b221b36b9134.txt": "447b2e91320ce0be57bd4e6a4cd47d8d70c51c7c9b1d95aacc4ff6b4e8118ce9",
}


@dataclass(frozen=True)
class Title:
    """What a document's page is titled: the document's own title line, or, for a document that has none, a
    phrase of its text that names its subject, with how that phrase was chosen in English and Korean."""

    text: str
    chosen_en: str = ""
    chosen_ko: str = ""


#: Each document's title, by file name (with the documents at hand `broken_links` checks that an own title
#: is the document's first line and that a chosen one is a phrase of its text).
TITLES = {
    "000_76efdfd3f753ef97.txt": Title(
        "sinusoidal positional encoding",
        "The document has no title line; its opening paragraphs name its subject: "
        "“이 방식이 sinusoidal positional encoding이다.”",
        "제목 줄이 없는 글이라, 첫머리에서 글이 다루는 방식을 이름 짓는 말"
        "(“이 방식이 sinusoidal positional encoding이다.”)을 제목으로 삼았습니다.",
    ),
    "001_8f1b66f67cfe018c.txt": Title(
        "포지셔널 인코딩(Positional Encoding)",
        "The document has no title line; its first sentence defines this term.",
        "제목 줄이 없는 글이라, 첫 문장이 정의하는 용어를 제목으로 삼았습니다.",
    ),
    "003_4499b221b36b9134.txt": Title("Attention Is All You Need: Position Encoding과 추가 기법들"),
}
#: The claims each figure illustrates, by file name (the report shows a figure in those claims' sections).
ILLUSTRATES: dict[str, tuple[str, ...]] = {
    "encoding-heatmap.png": ("D0.3", "D0.6"),
    "wavelengths.png": ("D0.4", "D3.1"),
    "distance-by-offset.png": ("D0.7",),
    "near-collision-gap.png": ("D3.5",),
    "dtype-thresholds.png": ("D3.3", "D3.4"),
    "roformer-decay.png": ("G.roformer_decay", "G.rope_long_term_decay"),
    "model-wavelengths.png": ("D0.18",),
}

#: The folder holding the documents, when they are at hand (`broken_links` then checks them too).
DOCUMENTS_ENVIRONMENT = "PE_VERIFY_DOCUMENTS"
#: A section name for the text before a document's first heading.
INTRODUCTION = "(introduction)"
#: How an entry's code cites a derivation: `from_derivation("id")`, `verification("id")`, `_steps("id")`.
CITED_DERIVATION = re.compile(
    r"""\b(?:from_derivation|verification|derivation|_steps)\(\s*["']([^"']+)["']"""
)


class UnknownClaim(LookupError):
    """An id that is not in the catalog; `suggestions` are the closest ids."""

    def __init__(self, claim_id: str, suggestions: list[str]) -> None:
        several = "one of " if len(suggestions) > 1 else ""
        hint = f"; did you mean {several}{', '.join(suggestions)}?" if suggestions else ""
        shown = (
            repr(claim_id)
            if len(claim_id) <= SHOWN_ID
            else f"{claim_id[:SHOWN_ID]!r}… ({len(claim_id)} characters)"
        )
        super().__init__(f"no claim with id {shown}{hint}")
        self.suggestions = suggestions


@functools.cache
def all_claims() -> tuple[Claim, ...]:
    """Every claim, module by module in definition order."""
    found: list[Claim] = []
    for name in MODULES:
        module = importlib.import_module(f".{name}", __package__)
        found += [value for value in vars(module).values() if isinstance(value, Claim)]
    return tuple(found)


@functools.cache
def document_proofs() -> tuple[DocumentProof, ...]:
    """The documents' own proofs that the catalog sets beside the theorems proved in their place
    (each catalog module's `PROOFS`), in module order."""
    return tuple(
        proof
        for name in MODULES
        for proof in getattr(importlib.import_module(f".{name}", __package__), "PROOFS", ())
    )


def reproductions() -> dict[str, Claim]:
    """The entries that recompute a paper's published result, by the name of the reproduction."""
    return {item.reproduces: item for item in all_claims() if item.reproduces is not None}


def resolve(claim_id: str, ids: Sequence[str]) -> str:
    """The id among `ids` that `claim_id` names (exactly, else ignoring case), or `UnknownClaim` suggesting
    the closest ids (none for an id more than twice as long as the longest)."""
    if claim_id in ids:
        return claim_id
    upper = {key.upper(): key for key in ids}
    if claim_id.upper() in upper:
        return upper[claim_id.upper()]
    comparable = len(claim_id) <= 2 * max(map(len, ids), default=0)
    close = difflib.get_close_matches(claim_id, list(ids), n=3, cutoff=0.5) if comparable else []
    raise UnknownClaim(claim_id, close)


def get(claim_id: str) -> Claim:
    """The claim with that id, or `UnknownClaim` suggesting the closest ids."""
    by_id = {item.id: item for item in all_claims()}
    return by_id[resolve(claim_id, list(by_id))]


#: The catalog's one cache: each claim's assessment, computed once per process (entries and their helpers
#: cache nothing themselves). Tests that substitute a broken twin set it aside and restore it afterwards.
ASSESSMENTS: dict[str, Assessment] = {}


def assessment(claim_id: str) -> Assessment:
    """Run a claim's checks (once per process) and return what they computed."""
    item = get(claim_id)
    if item.id not in ASSESSMENTS:
        ASSESSMENTS[item.id] = item.assess()
    return ASSESSMENTS[item.id]


def broken_links(documents: Path | None = None) -> list[str]:
    """Every citation in the catalog that resolves to nothing, one line each (empty when all resolve).

    Checked: each claim's `depends_on` ids, the derivation ids the catalog modules cite, the claim and
    derivation ids of each document proof (`PROOFS`), the claim ids of every figure (`ILLUSTRATES`), a title
    for each document (`TITLES`); with `documents` (a folder holding the files of `DOCUMENTS`), each
    document's SHA-256, its title, and each claim's section heading, which must be a line of its document.
    """
    claims = all_claims()
    ids = {item.id for item in claims}
    derivations = {item.id for item in all_derivations()}
    broken = [
        f"{item.id}: depends on {dependency!r}, which is no claim"
        for item in claims
        for dependency in item.depends_on
        if dependency not in ids
    ]
    for name in MODULES:
        module = importlib.import_module(f".{name}", __package__)
        for cited in sorted(set(CITED_DERIVATION.findall(inspect.getsource(module)))):
            if cited not in derivations:
                broken.append(f"{name}.py: cites derivation {cited!r}, which is no derivation")
    for proof in document_proofs():
        if proof.claim not in ids:
            broken.append(f"{proof.name}: judged by {proof.claim!r}, which is no claim")
        broken += [
            f"{proof.name}: proved instead by {cited!r}, which is no derivation"
            for cited in proof.proved_instead
            if cited not in derivations
        ]
    broken += [
        f"figure {figure}: illustrates {claim_id!r}, which is no claim"
        for figure, claim_ids in ILLUSTRATES.items()
        for claim_id in claim_ids
        if claim_id not in ids
    ]
    broken += [f"{name}: has no title in TITLES" for name in DOCUMENTS if name not in TITLES]
    if documents is not None:
        broken += _broken_sections(claims, documents)
    return broken


def _broken_sections(claims: Sequence[Claim], documents: Path) -> list[str]:
    broken, headings = [], {}
    for name, digest in DOCUMENTS.items():
        path = documents / name
        if not path.is_file():
            broken.append(f"{name}: not in {documents}")
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            broken.append(f"{name}: its SHA-256 is not the one the entries were written against")
        text = data.decode("utf-8")
        headings[name] = {line.strip() for line in text.splitlines()} | {INTRODUCTION}
        broken += _broken_title(name, text)
    for item in claims:
        document, section = item.source.document, item.source.section
        if document in headings and section not in headings[document]:
            broken.append(f"{item.id}: section {section!r} is not a line of {document}")
    return broken


def _broken_title(name: str, text: str) -> list[str]:
    title = TITLES[name]
    if not title.chosen_en and text.splitlines()[:1] != [title.text]:
        return [f"{name}: its first line is not its title {title.text!r}"]
    if title.chosen_en and title.text not in text:
        return [f"{name}: its chosen title {title.text!r} is not a phrase of its text"]
    return []


def location(item: Claim) -> tuple[str, int]:
    """Where an entry is written: its file under the project's root (``claims/….py``) and the line of its
    ``@claim`` decorator (of the `cited` call for a record)."""
    if item.defined_at is not None:
        module, line = item.defined_at
        return f"claims/{module.rsplit('.', 1)[-1]}.py", line
    function = inspect.unwrap(item.assess)
    _, line = inspect.getsourcelines(function)
    return f"claims/{function.__module__.rsplit('.', 1)[-1]}.py", line


def weak_dependencies(item: Claim) -> list[tuple[str, str]]:
    """The claims `item` depends on directly whose verdict is refuted or unsettled, with that verdict."""
    verdicts = [(name, assessment(name).verdict) for name in item.depends_on]
    return [(name, verdict) for name, verdict in verdicts if verdict in WEAK]
