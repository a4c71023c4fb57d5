"""The derivation machinery: a step's check decides; a failing or crashing step fails the derivation."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.proofs.derivation import (
    derivation,
    fact,
    identity,
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
