"""The catalog as a whole: every inventory id present, ids unique, dependencies resolvable, and every entry's
computed verdicts equal to the ones it records."""

from __future__ import annotations

import pytest

from pe_verify.claims.catalog import UnknownClaim, all_claims, assessment, get
from pe_verify.claims.model import ARGUMENT_VERDICTS, VERDICTS

INVENTORY = (
    [f"D0.{n}" for n in range(1, 19)] + [f"D1.{n}" for n in range(1, 9)] + [f"D3.{n}" for n in range(1, 13)]
)
CLAIMS = all_claims()
IDS = [item.id for item in CLAIMS]


def test_every_inventory_id_has_an_entry() -> None:
    assert sorted(set(INVENTORY) - set(IDS)) == []


def test_ids_are_unique() -> None:
    assert len(IDS) == len(set(IDS))


def test_every_dependency_exists_and_is_not_the_claim_itself() -> None:
    for item in CLAIMS:
        assert set(item.depends_on) <= set(IDS), item.id
        assert item.id not in item.depends_on


def test_dependencies_have_no_cycle() -> None:
    graph = {item.id: item.depends_on for item in CLAIMS}
    state: dict[str, str] = {}

    def visit(node: str) -> None:
        assert state.get(node) != "open", f"cycle through {node}"
        if state.get(node) == "done":
            return
        state[node] = "open"
        for child in graph[node]:
            visit(child)
        state[node] = "done"

    for node in graph:
        visit(node)


def test_recorded_verdicts_use_the_vocabulary() -> None:
    for item in CLAIMS:
        assert item.expected in VERDICTS, item.id
        assert item.expected_argument is None or item.expected_argument in ARGUMENT_VERDICTS, item.id


@pytest.mark.parametrize("claim_id", IDS)
def test_computed_verdicts_are_the_recorded_ones(claim_id: str) -> None:
    item, found = get(claim_id), assessment(claim_id)
    everything = found.evidence + found.argument_evidence
    outcomes = "\n".join(f"{e.kind}, {e.bearing}, holds={e.holds}: {e.summary}" for e in everything)
    assert found.evidence, "every entry runs at least one check"
    assert found.explanation.strip()
    assert all(isinstance(e.holds, bool) for e in everything)
    assert (found.verdict, found.argument_verdict) == (item.expected, item.expected_argument), outcomes


def test_unknown_ids_suggest_the_closest() -> None:
    with pytest.raises(UnknownClaim, match=r"closest: .*D3\.5"):
        get("D3.55")
    assert get("d3.5").id == "D3.5"


def test_a_failing_derivation_unsettles_the_claim_that_cites_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from pe_verify.claims import evidence
    from pe_verify.claims.model import UNSETTLED

    cited = "sinusoidal.offset_matrix"
    real = evidence.verification
    failed = replace(real(cited), steps=tuple(replace(s, holds=False) for s in real(cited).steps))
    monkeypatch.setattr(evidence, "verification", lambda name: failed if name == cited else real(name))
    assert get("D0.8").assess().verdict == UNSETTLED
