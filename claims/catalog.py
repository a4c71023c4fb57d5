"""The catalog: every claim of every document module, looked up by id, assessed once per process.

An unknown id is answered with the closest ids; the id is echoed cut to `SHOWN_ID` characters, and ids far
longer than any in the catalog are not compared at all.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Sequence

from .model import Assessment, Claim

MODULES = ("document_000", "document_001", "document_003", "general")

#: Characters of an unknown id echoed in the error; longer ids are cut and their length stated.
SHOWN_ID = 40


class UnknownClaim(LookupError):
    """An id that is not in the catalog; `suggestions` are the closest ids."""

    def __init__(self, claim_id: str, suggestions: list[str]) -> None:
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
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


@functools.cache
def assessment(claim_id: str) -> Assessment:
    """Run a claim's checks (once per process) and return what they computed."""
    return get(claim_id).assess()
