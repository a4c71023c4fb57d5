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
    """One link of a chain: `claim` (LaTeX) holds because of `justification`; `check` decides it.

    `scope` is None when the check decides the claim for every case the claim states, else the finite cases
    it checks ("d ≤ 128, E ≤ 8"): the claim is then shown on those samples only. `implementation` marks a
    step that ties the statement's formulas to the suite's own code rather than a link of the theorem's chain.
    """

    claim: str
    justification: str
    check: Checker
    scope: str | None = None
    implementation: bool = False


@dataclass(frozen=True)
class StepResult:
    """What running one step's check gave."""

    claim: str
    justification: str
    holds: bool
    seconds: float
    error: str | None = None
    scope: str | None = None
    implementation: bool = False


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
    def universal(self) -> bool:
        """Whether every step of the theorem's chain is checked for every case it states (a step that ties
        the formulas to the implementation does not count)."""
        return all(step.scope is None for step in self.steps if not step.implementation)

    @property
    def sampled(self) -> str | None:
        """The cases the chain's steps checked only on samples are checked on (None when there are none)."""
        scopes = _scopes(step for step in self.steps if not step.implementation)
        return "; ".join(dict.fromkeys(scopes)) or None

    @property
    def summary(self) -> str:
        """'k/n steps checked by SymPy', or, when some are checked on samples only, how many and on what."""
        held, count = sum(step.holds for step in self.steps), len(self.steps)
        sampled = _scopes(step for step in self.steps if not step.implementation)
        tied = _scopes(step for step in self.steps if step.implementation)
        text = f"{held}/{count} steps checked by SymPy"
        if sampled:
            text = f"{held}/{count} steps checked, {len(sampled)} of them only on samples: {self.sampled}"
        if tied:
            verb, cases = "ties" if len(tied) == 1 else "tie", " and ".join(dict.fromkeys(tied))
            text += f"; {len(tied)} {verb} the formulas to the implementation, on {cases}"
        return text


def _scopes(steps: Iterable[StepResult]) -> list[str]:
    return [step.scope for step in steps if step.scope is not None]


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
    seconds = time.perf_counter() - start
    return StepResult(step.claim, step.justification, holds, seconds, error, step.scope, step.implementation)


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


def fact(claim: str, justification: str, check: Checker, scope: str | None = None) -> Step:
    """A step whose check is a custom exact computation (e.g. a SymPy solve or a sign argument); `scope` names
    the finite cases it checks when that is not every case the claim states."""
    return Step(claim, justification, check, scope)


def implementation_link(claim: str, justification: str, check: Checker, scope: str) -> Step:
    """A step tying the statement's formulas to the suite's own implementation, checked on `scope`."""
    return Step(claim, justification, check, scope, implementation=True)


def _scope_note(step: Step | StepResult) -> str:
    if step.implementation:
        return f" (ties the formulas to the implementation, checked on {step.scope})"
    return "" if step.scope is None else f" (checked on samples only: {step.scope})"


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
        lines += [f"{number}. $${step.claim}$$", "", f"    {step.justification}{_scope_note(step)}{mark}", ""]
    if result is not None:
        verdict = "verified" if result.verified else "NOT verified"
        lines += [f"**Result:** {verdict} ({result.summary}).", ""]
    return "\n".join(lines)
