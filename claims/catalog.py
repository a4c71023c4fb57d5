"""The catalog: every claim of every document module, looked up by id, assessed once per process."""

from __future__ import annotations

import difflib
import functools
import importlib

from .model import Assessment, Claim

MODULES = ("document_000", "document_001", "document_003", "general")


class UnknownClaim(LookupError):
    """An id that is not in the catalog; `suggestions` are the closest ids."""

    def __init__(self, claim_id: str, suggestions: list[str]) -> None:
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no claim with id {claim_id!r}{hint}")
        self.suggestions = suggestions


@functools.cache
def all_claims() -> tuple[Claim, ...]:
    """Every claim, module by module in definition order."""
    found: list[Claim] = []
    for name in MODULES:
        module = importlib.import_module(f".{name}", __package__)
        found += [value for value in vars(module).values() if isinstance(value, Claim)]
    return tuple(found)


def get(claim_id: str) -> Claim:
    """The claim with that id, or `UnknownClaim` suggesting the closest ids."""
    by_id = {item.id: item for item in all_claims()}
    if claim_id in by_id:
        return by_id[claim_id]
    upper = {key.upper(): key for key in by_id}
    if claim_id.upper() in upper:
        return by_id[upper[claim_id.upper()]]
    raise UnknownClaim(claim_id, difflib.get_close_matches(claim_id, list(by_id), n=3, cutoff=0.5))


@functools.cache
def assessment(claim_id: str) -> Assessment:
    """Run a claim's checks (once per process) and return what they computed."""
    return get(claim_id).assess()
