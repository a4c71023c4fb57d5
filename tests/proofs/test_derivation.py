"""The derivation machinery: a step's check decides; a failing or crashing step fails the derivation."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.claims import evidence
from pe_verify.claims.model import EXACT, FINITE, PROVED, SYMBOLIC, claim_verdict
from pe_verify.proofs.derivation import (
    derivation,
    fact,
    identity,
    implementation_link,
    inequality,
    is_nonzero,
    is_zero,
    render_markdown,
)

x, y = sp.symbols("x y", real=True)


def test_is_zero_decides_trig_identities_both_ways() -> None:
    assert is_zero(sp.sin(x + y) - (sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)))
    assert not is_zero(sp.sin(x + y) - (sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y)))


def test_is_zero_and_is_nonzero_on_matrices() -> None:
    assert is_zero(sp.Matrix([[sp.cos(x) ** 2 + sp.sin(x) ** 2 - 1, 0]]))
    assert not is_zero(sp.Matrix([[0, x]]))
    assert is_nonzero(sp.Matrix([[0, sp.Rational(1, 3)]]))
    assert not is_nonzero(sp.Matrix([[0, 0]]))


def test_is_nonzero_needs_a_proof_not_a_guess() -> None:
    assert is_nonzero(sp.pi - sp.Rational(22, 7))
    assert not is_nonzero(x)  # could be zero: not proved different from zero


def _example(second_step_holds: bool):
    @derivation(
        id="meta.example", title="Example", statement=r"\sin^2 x + \cos^2 x = 1", hypotheses=("x real",)
    )
    def example():
        yield identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), "Pythagoras")
        yield inequality(sp.Integer(1), sp.Integer(2 if second_step_holds else 1), "a difference")

    return example


def test_verify_passes_only_when_every_step_holds() -> None:
    assert _example(second_step_holds=True).verify().verified
    assert not _example(second_step_holds=False).verify().verified


def test_a_crashing_check_fails_its_step_and_reports_the_error() -> None:
    @derivation(id="meta.crash", title="Crash", statement="1 = 1")
    def crash():
        yield fact("1 = 1", "division", lambda: 1 / 0 == 1)

    result = crash.verify()
    assert not result.verified
    assert "ZeroDivisionError" in (result.steps[0].error or "")


def test_a_derivation_without_steps_is_not_verified() -> None:
    @derivation(id="meta.empty", title="Empty", statement="")
    def empty():
        yield from ()

    assert not empty.verify().verified


def test_markdown_shows_statement_hypotheses_steps_and_marks() -> None:
    item = _example(second_step_holds=True)
    text = render_markdown(item, item.verify())
    assert r"$$\sin^2 x + \cos^2 x = 1$$" in text
    assert "- x real" in text
    assert "Pythagoras ✓" in text
    assert "**Result:** verified (2/2 steps checked by SymPy)." in text


def test_markdown_of_a_result_reads_its_steps_and_refuses_another_derivations_result() -> None:
    """The marks come from the result, whose steps carry their claims: a failed step shows ✗, and the
    derivation's steps are not built again."""
    failing = _example(second_step_holds=False)
    result = failing.verify()
    built = []

    @derivation(id="meta.example", title="Example", statement=r"\sin^2 x + \cos^2 x = 1")
    def counted():
        built.append(True)
        yield from failing.steps()

    text = render_markdown(counted, result)
    assert "a difference ✗" in text and "Pythagoras ✓" in text and not built
    assert "**Result:** NOT verified (1/2 steps checked by SymPy)." in text
    other = derivation(id="meta.other", title="Other", statement="")(lambda: iter(()))
    with pytest.raises(ValueError, match=r"the result of meta\.example is not one of meta\.other"):
        render_markdown(other, result)


def _sampled(scope: str | None, link: bool = False):
    """Pythagoras, then a rule checked on n ≤ 20 (scope given) or stated only for those n (scope None); with
    `link`, a step tying the formulas to the implementation on samples."""
    n = range(1, 21)

    @derivation(id="meta.sampled", title="Sampled", statement=r"n^2 \ge n")
    def sampled():
        yield identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), "Pythagoras")
        yield fact(r"n^2 \ge n", "compared for n ≤ 20", lambda: all(k * k >= k for k in n), scope)
        if link:
            yield implementation_link("f = f", "the code agrees", lambda: True, "n = 1, 2")

    return sampled


def test_a_step_checked_on_samples_is_labelled_so_and_the_chain_is_not_universal() -> None:
    result = _sampled("n ≤ 20").verify()
    assert result.verified and not result.universal and result.sampled == "n ≤ 20"
    assert result.summary == "2/2 steps checked, 1 of them only on samples: n ≤ 20"
    assert "compared for n ≤ 20 (checked on samples only: n ≤ 20) ✓" in render_markdown(
        _sampled("n ≤ 20"), result
    )
    # the twin: the same check with no scope claims every case
    whole = _sampled(None).verify()
    assert whole.universal and whole.sampled is None and whole.summary == "2/2 steps checked by SymPy"


def test_a_step_tying_the_formulas_to_the_implementation_leaves_the_chain_universal() -> None:
    result = _sampled(None, link=True).verify()
    assert result.universal
    assert (
        result.summary == "3/3 steps checked by SymPy; 1 ties the formulas to the implementation, on n = 1, 2"
    )


@pytest.mark.parametrize(("scope", "kind", "verdict"), [(None, SYMBOLIC, PROVED), ("n ≤ 20", EXACT, FINITE)])
def test_evidence_from_a_derivation_checked_on_samples_is_exact_on_its_cases(
    monkeypatch: pytest.MonkeyPatch, scope, kind, verdict
) -> None:
    """A derivation with a sampled step is an exact argument on the cases it names, so a claim it alone
    supports is verified on a finite range, not proved; without the scope it is a symbolic identity."""
    item = _sampled(scope)
    monkeypatch.setattr(evidence, "_derivations", lambda: {item.id: item})
    monkeypatch.setattr(evidence, "verification", lambda name: item.verify())
    found = evidence.from_derivation(item.id)
    assert (found.kind, found.instances) == (kind, scope)
    assert claim_verdict([found]) == verdict
