"""A derivation is data: a statement, its hypotheses and a chain of steps, each of which SymPy checks."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import sympy as sp

Checker = Callable[[], bool]
Expr = sp.Basic | sp.MatrixBase


@dataclass(frozen=True)
class Step:
    """One link of a chain: `claim` (LaTeX) holds because of `justification`; `check` decides it."""

    claim: str
    justification: str
    check: Checker


@dataclass(frozen=True)
class StepResult:
    """What running one step's check gave."""

    claim: str
    justification: str
    holds: bool
    seconds: float
    error: str | None = None


@dataclass(frozen=True)
class VerificationResult:
    """What `Derivation.verify` checked, whether every step held, and how long it took."""

    derivation_id: str
    steps: tuple[StepResult, ...]
    seconds: float

    @property
    def verified(self) -> bool:
        return bool(self.steps) and all(step.holds for step in self.steps)

    @property
    def summary(self) -> str:
        held = sum(step.holds for step in self.steps)
        return f"{held}/{len(self.steps)} steps checked by SymPy"


@dataclass(frozen=True)
class Derivation:
    """A theorem with a machine-checked chain of steps; `build` yields the steps."""

    id: str
    title: str
    statement: str
    hypotheses: tuple[str, ...]
    build: Callable[[], Iterable[Step]]
    #: None when the steps are checked for symbolic parameters (every case of the statement); else the finite
    #: set of cases they are checked for ("d = 2, 4, 6, 8").
    instances: str | None = None

    def steps(self) -> tuple[Step, ...]:
        return tuple(self.build())

    def verify(self) -> VerificationResult:
        start = time.perf_counter()
        results = tuple(_run(step) for step in self.steps())
        return VerificationResult(self.id, results, time.perf_counter() - start)


def derivation(
    id: str, title: str, statement: str, hypotheses: Iterable[str] = (), instances: str | None = None
) -> Callable[[Callable[[], Iterable[Step]]], Derivation]:
    """Decorator turning a generator of steps into a `Derivation` (checked on `instances` only, if given)."""

    def wrap(build: Callable[[], Iterable[Step]]) -> Derivation:
        return Derivation(id, title, statement, tuple(hypotheses), build, instances)

    return wrap


def _run(step: Step) -> StepResult:
    start = time.perf_counter()
    try:
        holds, error = bool(step.check()), None
    except Exception as exc:  # a step whose check crashes has not been shown
        holds, error = False, f"{type(exc).__name__}: {exc}"
    return StepResult(step.claim, step.justification, holds, time.perf_counter() - start, error)


def is_zero(expr: Expr) -> bool:
    """True when SymPy reduces `expr` (a scalar or every entry of a matrix) exactly to 0."""
    if isinstance(expr, sp.MatrixBase):
        return all(is_zero(entry) for entry in expr)
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    return sp.simplify(sp.expand_trig(sp.expand(expr))) == 0


def is_nonzero(expr: Expr) -> bool:
    """True when SymPy proves `expr` (a scalar, or some entry of a matrix) different from 0."""
    if isinstance(expr, sp.MatrixBase):
        return any(is_nonzero(entry) for entry in expr)
    return sp.simplify(sp.sympify(expr)).is_zero is False


def identity(lhs: Expr, rhs: Expr, justification: str, claim: str | None = None) -> Step:
    """A step asserting lhs = rhs, checked by SymPy reducing lhs − rhs to zero."""
    text = claim or f"{sp.latex(lhs)} = {sp.latex(rhs)}"
    return Step(text, justification, lambda: is_zero(lhs - rhs))


def inequality(lhs: Expr, rhs: Expr, justification: str, claim: str | None = None) -> Step:
    """A step asserting lhs ≠ rhs exactly (a counterexample), checked by SymPy proving lhs − rhs ≠ 0."""
    text = claim or f"{sp.latex(lhs)} \\neq {sp.latex(rhs)}"
    return Step(text, justification, lambda: is_nonzero(lhs - rhs))


def fact(claim: str, justification: str, check: Checker) -> Step:
    """A step whose check is a custom exact computation (e.g. a SymPy solve or a sign argument)."""
    return Step(claim, justification, check)


def render_markdown(derivation: Derivation, result: VerificationResult | None = None) -> str:
    """The derivation as GitHub markdown; with `result`, each step is marked checked or failed."""
    lines = [f"### {derivation.title} (`{derivation.id}`)", "", f"$${derivation.statement}$$", ""]
    if derivation.hypotheses:
        lines += ["**Hypotheses.**", ""] + [f"- {h}" for h in derivation.hypotheses] + [""]
    if result is not None and result.derivation_id != derivation.id:
        raise ValueError(f"the result of {result.derivation_id} is not one of {derivation.id}")
    # A result carries each step's claim and justification: the steps are not built a second time.
    steps = derivation.steps() if result is None else result.steps
    for number, step in enumerate(steps, start=1):
        mark = "" if result is None else (" ✓" if result.steps[number - 1].holds else " ✗")
        lines += [f"{number}. $${step.claim}$$", "", f"    {step.justification}{mark}", ""]
    if result is not None:
        verdict = "verified" if result.verified else "NOT verified"
        lines += [f"**Result:** {verdict} ({result.summary}).", ""]
    return "\n".join(lines)
