"""The battery `pe-verify check` runs against anyone's implementation of a positional-encoding family.

A property is a statement every correct implementation of a family satisfies (RoPE: the score of a rotated
query and key depends on their offset only). `register` files each under its family, with a check that
searches for a counterexample: fixed probes first (the inputs where known bugs show), then Hypothesis, whose
shrinking turns the first failing input into a small one. A check reports its tolerance, derived from the
dtype the implementation returns and the range of positions, and the budget it searched with.

Beside pass or fail, each family identifies what the code computes (layout, base, scaling rule) and reports
findings under fixed labels (`LABELS`): a convention such as a layout is a finding, a broken property a
failure; `expected` is the property that the variant identified is the one expected (`--expect`). The
implementation is called through a family's adapter, which calls it with `call` and reads its result with
`as_array`: whatever it raises (`BaseException`s such as `SystemExit` too), a changed input, a result that is
not real numbers, a wrong shape or a non-finite value becomes `Broken` with its label.

In-process (`run_battery`, `pe_verify.testing`) nothing guards against what ends or stalls the process
itself: `os._exit`, a crash, a hang, exhausting memory, a KeyboardInterrupt the implementation raises (it is
let through, as a Ctrl-C would be) and its writes to stdout. `pe-verify check` runs the battery in a child
process (`pe_verify.isolated`), which installs a `CallGuard` and turns those into findings.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import math
import random
import signal
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from hypothesis import HealthCheck, find
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Flaky, NoSuchExample, Unsatisfiable
from hypothesis.strategies import SearchStrategy

from ..family_index import DEFINED, PACKAGE, builtin_families, family_names, module_of
from ..numerics.dtypes import DTYPES

#: Every finding label, with what it means; messages always start with the label's meaning in context.
LABELS = {
    "raises": "the implementation raised an exception",
    "wrong-shape": "the result does not have the contract's shape",
    "not-finite": "the result holds NaN or infinity",
    "nondeterministic": "two calls with the same input gave different results",
    "stateful": "the result depends on earlier calls: the implementation keeps state between them (a dynamic "
    "scaling that grows its frequencies for a long call and keeps them)",
    "not-relative": "the result depends on absolute positions, not only on their offset",
    "not-norm-preserving": "the rotation changes the length of a vector",
    "not-linear": "the rotation is not linear in the vector",
    "not-batch-consistent": "a row's result depends on the other rows or on how many there are",
    "mixed-layout": "queries and keys are rotated with different layouts",
    "layout-mismatch": "cos and sin are laid out for one pairing of dims and applied with another",
    "positions-ignored": "the rotation does not turn with the position passed",
    "length-dependent": "a row's rotation depends on the farthest position in its call (a dynamic scaling)",
    "cos-sin-as-angles": "cos and sin are taken for angles: their cosine and sine are taken again",
    "position-offset": "positions are shifted by a constant (e.g. counted from 1)",
    "wrong-base": "the frequencies follow another base than the one declared",
    "wrong-exponent": "the frequency exponent is not −2i/d of the pair index i",
    "low-precision": "the results carry the error of a narrower dtype than the one they come in (positions, "
    "angles or tables held in bfloat16, float16 or float32)",
    "sin-cos-swapped": "cos takes the place of sin in each pair",
    "concatenated-layout": "all sines first, then all cosines ([sin | cos])",
    "interleaved-layout": "sines and cosines (or rotated pairs) interleaved: dims 2i and 2i+1",
    "half-split-layout": "rotated pairs are dims i and i + d/2 (rotate_half)",
    "partial-rotary": "only the first dimensions are rotated, the rest pass through",
    "odd-d": "how an odd d is handled (accepted with the last dimension unpaired, or rejected)",
    "fast-pair-above-one": "the fastest pair turns by more than one radian per position (θ_0 > 1)",
    "equal-frequencies": "several pairs turn at the same frequency",
    "attention-factor": "cos and sin carry a constant factor m (YaRN's and LongRoPE's attention factor): "
    "R_p x is m times a rotation",
    "wrong-slopes": "the ALiBi slopes are not the reference rule for this head count",
    "bias-sign": "the bias rewards distance instead of penalising it",
    "not-monotone": "the bias does not fall with distance",
    "not-decreasing": "the values are not strictly decreasing",
    "not-positive": "values that must be positive are not",
    "reversed-rotation": "pairs turn the other way: by −p·θ_i instead of p·θ_i",
    "exponent-d-2": "the exponent is −2i/(d − 2), so the last pair reaches 1/base (tensor2tensor, fairseq)",
    "not-constant-norm": "the encoding's norm changes with the position",
    "duplicate-rows": "two different positions get the same encoding",
    "scaling-none": "unscaled frequencies base^(−2i/d)",
    "scaling-linear": "position interpolation: every frequency divided by the factor",
    "scaling-ntk": "NTK-aware scaling: the frequencies of a larger base",
    "scaling-dynamic-ntk": "dynamic NTK scaling: the NTK base grows with the sequence length",
    "scaling-yarn": "YaRN (NTK-by-parts): fast frequencies kept, slow ones divided, a ramp between",
    "scaling-llama3": "the Llama 3 rule: short wavelengths kept, long ones divided, a blend between",
    "scaling-longrope": "LongRoPE (Phi-3): each pair's frequency divided by its own factor",
    "unknown-scaling": "the frequencies match no known scaling rule",
    "wrong-dtype": "the result is not real numbers (complex, bool, object or text values)",
    "mutates-input": "the implementation changed an input array in place",
    "target-exited": "the implementation ended its process (sys.exit, os._exit)",
    "target-crashed": "the implementation's process was killed by a signal (a crash such as a segmentation "
    "fault, or the system running out of memory)",
    "timeout": "a call of the implementation ran past the time limit (`pe-verify check --timeout`)",
    "memory-limit": "the implementation ran out of memory (`pe-verify check --target-memory` limits it)",
    "writes-stdout": "the implementation wrote to stdout, which `pe-verify check` kept out of its own output "
    "(a finding only: no property fails for it)",
}

#: Labels of a call that did not finish: the property's search stops at it (no shrinking, no retries), and
#: the report fails when one stops the identification.
FATAL = frozenset({"target-exited", "target-crashed", "timeout", "memory-limit"})

#: Labels of findings that fail the report (`Report.passed`) even when every property holds: each says the
#: implementation computes something no correct implementation does (or gives no result). Conventions are
#: not errors: a layout, a scaling rule, another base or exponent convention (`wrong-base`, `exponent-d-2`,
#: `wrong-exponent`, which equals another base), partial rotary, odd d, a position offset, the direction of
#: rotation, and precision (`low-precision`: the properties judge it by the returned dtype) depend on what
#: the user declared; `unknown-scaling` may be a rule not known here, `writes-stdout` fails nothing.
ERRORS = frozenset(
    {
        "raises",
        "wrong-shape",
        "wrong-dtype",
        "not-finite",
        "nondeterministic",
        "stateful",
        "mutates-input",
        "not-relative",
        "not-norm-preserving",
        "not-linear",
        "not-batch-consistent",
        "mixed-layout",
        "layout-mismatch",
        "positions-ignored",
        "cos-sin-as-angles",
        "fast-pair-above-one",
        "equal-frequencies",
        "wrong-slopes",
        "bias-sign",
        "not-monotone",
        "not-decreasing",
        "not-positive",
        "not-constant-norm",
        "duplicate-rows",
        *FATAL,
    }
)

#: Labels of a screening call (`screen`) that leave nothing to check at that size: the call raised, returned
#: the wrong shape, or did not finish. Other defects (a non-finite value, a changed input) are left to the
#: properties.
UNUSABLE = frozenset({"raises", "wrong-shape", *FATAL})


class Broken(Exception):
    """The implementation failed its contract on one input: raised, returned a wrong shape or non-finite
    values. Carries the finding label and a one-line message."""

    def __init__(self, label: str, message: str) -> None:
        super().__init__(message)
        self.label = label
        self.message = message


@dataclass(frozen=True)
class Settings:
    """What a battery checks: the dimensions (empty: the family's defaults), the declared base, positions
    0 … max_pos − 1, head counts, the seed, the number of Hypothesis examples per property, the calling
    convention of the implementation where its family has several (empty: detected), and the dtype of the
    torch tensors a RoPE implementation is handed (empty: the backend's, float32)."""

    ds: tuple[int, ...] = ()
    base: float = 10000.0
    max_pos: int = 65536
    heads: tuple[int, ...] = (1, 2, 3, 8, 12, 16, 64)
    seed: int = 0
    examples: int = 60
    convention: str = ""
    dtype: str = ""


@dataclass(frozen=True)
class Finding:
    label: str
    message: str


@dataclass(frozen=True)
class Outcome:
    """One property checked: whether it held, the tolerance and budget, and a counterexample if it failed.
    A property that does not apply to the implementation's form or dimensions returns `not_applicable`,
    which the report leaves out."""

    name: str
    passed: bool
    tolerance: str
    budget: str
    counterexample: dict[str, Any] | None = None
    label: str | None = None
    applies: bool = True

    @property
    def message(self) -> str:
        """One line: the property and, when it failed, the counterexample."""
        if self.passed:
            return f"{self.name}: holds ({self.budget}; tolerance {self.tolerance})"
        return f"{self.name}: {self.failure}"

    @property
    def failure(self) -> str:
        """What a failed property found, without its name: what went wrong and where it fails."""
        found = dict(self.counterexample or {})
        found.pop("label", None)
        said = found.pop("message", None)
        shown = ", ".join(f"{key}={value}" for key, value in found.items())
        return "; ".join(part for part in (said, shown and f"fails at {shown}") if part)


#: The tolerance of a failed outcome whose property compared nothing: not run (the implementation failed its
#: contract at every size) or not reached (a call ended the run first).
NOT_RUN, NOT_REACHED = "not run", "not reached"


def not_applicable(name: str) -> Outcome:
    """The outcome of a property that does not apply here; `run_battery` drops it from the report."""
    return Outcome(name, True, "not applicable", "not run", applies=False)


@dataclass(frozen=True)
class Identification:
    """The reference variant closest to what the implementation computes."""

    variant: str
    parameters: dict[str, Any]
    max_abs_deviation: float
    matches: bool


#: The symptom an identification that matches no known variant is, for a `Cause` to explain.
UNIDENTIFIED = "unidentified"


@dataclass(frozen=True)
class Cause:
    """A defect that explains others when its finding is present: the finding's label and the labels of the
    symptoms it can explain (failed properties' labels, error findings, `UNIDENTIFIED`)."""

    label: str
    explains: frozenset[str]


@dataclass(frozen=True)
class RootCause:
    """The one defect named for a report: its finding (the evidence is its message), the symptoms it
    explains and those it does not (each "property (label)", "[label]" or "identification: …")."""

    finding: Finding
    explains: tuple[str, ...]
    unexplained: tuple[str, ...]


@dataclass(frozen=True)
class Report:
    """A battery's answer for one target, with the backend its implementation was called with (None for a
    family that hands it no arrays), the root cause of its failures when one is found, and the settings the
    battery ran with (`Prepared.settings` before screening: the family's defaults and the sizes the
    implementation holds filled in)."""

    target: str
    family: str
    properties: tuple[Outcome, ...]
    identified: Identification | None
    findings: tuple[Finding, ...]
    backend: Backend | None = None
    cause: RootCause | None = None
    settings: Settings | None = None

    @property
    def passed(self) -> bool:
        """Every property holds and no finding is an error (`ERRORS`: the wrong ALiBi slopes, say, with
        every property holding)."""
        return all(outcome.passed for outcome in self.properties) and not any(
            f.label in ERRORS for f in self.findings
        )

    def as_json(self) -> dict[str, Any]:
        """The `--json` form: target, family, passed, backend, properties, identified, findings."""
        return {
            "target": self.target,
            "family": self.family,
            "passed": self.passed,
            "backend": None
            if self.backend is None
            else {"name": self.backend.name, "statement": self.backend.statement},
            "properties": [
                {
                    "name": o.name,
                    "passed": o.passed,
                    "tolerance": o.tolerance,
                    "budget": o.budget,
                    "counterexample": o.counterexample,
                }
                for o in self.properties
            ],
            "identified": None
            if self.identified is None
            else {
                "variant": self.identified.variant,
                "parameters": self.identified.parameters,
                "max_abs_deviation": self.identified.max_abs_deviation,
            },
            "findings": [{"label": f.label, "message": f.message} for f in self.findings],
            "cause": None
            if self.cause is None
            else {
                "label": self.cause.finding.label,
                "message": self.cause.finding.message,
                "explains": list(self.cause.explains),
                "unexplained": list(self.cause.unexplained),
            },
        }


@dataclass(frozen=True)
class Property:
    """A property of a family: its name, a one-line statement, the check that searches for a
    counterexample (target adapter, settings → Outcome), and the contract forms it applies to (all when
    empty)."""

    family: str
    name: str
    statement: str
    check: Callable[[Any, Settings], Outcome]
    forms: tuple[str, ...] = ()


REGISTRY: list[Property] = []


@dataclass(frozen=True)
class Family:
    """A family: everything the battery, `pe-verify check`, `pe_verify.testing` and the registry read of it.

    `name` is what `--family` takes; `contract` the callable's contract as one line; `forms` maps the number
    of required positional parameters of the implementation to the form's name (RoPE: 2 → ``rotate(x,
    positions)``, 3 → ``apply(q, k, positions)``); `adapt(function, form, backend, settings)` wraps the
    implementation for the checks; `identify(adapter, settings)` returns the closest reference variant and
    the findings it implies; `expectable` the variants `--expect` may name; `ds` the default dimensions;
    `module` the module that defines it (imported to file its properties, in a `check` child too);
    `options` the settings its assert helper (`pe_verify.testing.assert_<name>`) takes beside the callable;
    `detect(implementation, settings)`, where a family's implementations come in more shapes than counts of
    parameters tell apart, names the form in place of `forms` (a ValueError when it cannot);
    `screen(adapter, size)` calls the implementation once, plainly, at one size (raising `Broken` when it
    does not keep the contract there), where `sizes` names the `Settings` field the sizes come from and what
    one is called: ``("ds", "d")``, ALiBi's ``("heads", "n_heads")``. The battery screens every size first
    and checks the properties at those left (see `screen`); a family without `screen` is not screened.
    `causes`, most fundamental first, are the defects that explain others (`root_cause`).
    `fixed(implementation, settings)`, for an implementation that holds its own sizes (a precomputed RoPE
    table: one d, one length), narrows the settings to them before the family's defaults apply (a
    ValueError when the settings ask for others).
    `handed(backend, form, settings)` is the backend the implementation of `form` is called with when
    `--backend` chose `backend` (a form that takes only torch tensors, say), None for a family that hands it
    no arrays (Python ints only); by default the one chosen.
    """

    name: str
    contract: str
    forms: dict[int, str]
    adapt: Callable[[Callable, str, Backend, Settings], Any]
    identify: Callable[[Any, Settings], tuple[Identification | None, list[Finding]]]
    expectable: tuple[str, ...]
    module: str
    ds: tuple[int, ...] = ()
    options: tuple[str, ...] = ("d", "base", "max_pos")
    detect: Callable[[Any, Settings], str] | None = None
    screen: Callable[[Any, int], object] | None = None
    sizes: tuple[str, str] = ("ds", "d")
    causes: tuple[Cause, ...] = ()
    fixed: Callable[[Any, Settings], Settings] | None = None
    handed: Callable[[Backend, str, Settings], Backend | None] = lambda backend, form, settings: backend

    @property
    def helper(self) -> str:
        """The name of its assert helper in `pe_verify.testing`."""
        return "assert_" + self.name.replace("-", "_")


SPECS: dict[str, Family] = {}


def family_spec(family: str) -> Family:
    """The family's definition, importing its module (which files its properties) the first time; a
    ValueError naming the families for an unknown one."""
    if family not in SPECS and family in builtin_families():
        importlib.import_module(module_of(family))
    if family not in SPECS:
        raise ValueError(f"unknown family {family!r}: one of {', '.join(family_names())}")
    return SPECS[family]


def define(family: Family) -> Family:
    """Make `family` known to `run_battery`, `check` and `pe_verify.testing`; a suite family's name must be
    the one its module's name gives."""
    if family.module.startswith(f"{PACKAGE}.") and family.module != module_of(family.name):
        raise ValueError(f"the family defined in {family.module} must be named after it, not {family.name!r}")
    if family.name in SPECS and SPECS[family.name].module != family.module:
        raise ValueError(
            f"family {family.name!r} is defined twice ({SPECS[family.name].module}, {family.module})"
        )
    SPECS[family.name] = family
    DEFINED[family.name] = family.module
    return family


def register(
    family: str, name: str, statement: str, forms: tuple[str, ...] = ()
) -> Callable[[Callable], Callable]:
    """File the decorated check under `family` as property `name`, for the contract `forms` given (every
    form of the family when none is); the family's module defines the family itself (`define`)."""

    def decorate(check: Callable[[Any, Settings], Outcome]) -> Callable[[Any, Settings], Outcome]:
        if any(p.family == family and p.name == name for p in REGISTRY):
            raise ValueError(f"property {name!r} of {family} is registered twice")
        REGISTRY.append(Property(family, name, statement, check, forms))
        return check

    return decorate


def properties_of(family: str) -> list[Property]:
    """The registered properties of `family`, in registration order."""
    family_spec(family)
    return [p for p in REGISTRY if p.family == family]


def finding(label: str, detail: str) -> Finding:
    """A finding under `label` (one of `LABELS`) with its detail."""
    if label not in LABELS:
        raise ValueError(f"unknown finding label {label!r}")
    return Finding(label, f"{LABELS[label]}: {detail}")


def required_parameters(function: Callable) -> int:
    """How many positional parameters `function` requires (those without a default)."""
    if not callable(function):
        raise ValueError(f"a {type(function).__name__} is no callable (the rope family takes tables)")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        raise ValueError(f"cannot read the parameters of {function!r}") from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(
        p.kind in kinds and p.default is inspect.Parameter.empty for p in signature.parameters.values()
    )


def form_of(family: Family, function: Callable, settings: Settings | None = None) -> str:
    """The contract form `function` implements: the family's `detect` where it has one, else told apart by
    its number of required parameters."""
    if family.detect is not None:
        return family.detect(function, settings or Settings())
    count = required_parameters(function)
    if count not in family.forms:
        accepted = " or ".join(f"{n} ({form})" for n, form in sorted(family.forms.items()))
        raise ValueError(
            f"a {family.name} implementation takes {accepted} required parameters; this one takes {count}"
        )
    return family.forms[count]


@dataclass(frozen=True)
class Prepared:
    """A battery ready to run on one implementation: its family, the contract form it implements, the
    adapter the checks call it through, the settings (with the family's default dimensions; once
    `screened`, only the sizes the implementation keeps its contract at), the properties, in order, the
    failed outcome of each size screened out (`contract`), and the backend it is called with (`handed`;
    None for a family that hands it no arrays)."""

    spec: Family
    form: str
    adapter: Any
    settings: Settings
    properties: tuple[Property, ...]
    contract: tuple[Outcome, ...] = ()
    handed: Backend | None = None

    @property
    def exhausted(self) -> bool:
        """Every size was screened out: no property can run."""
        return bool(self.contract) and not getattr(self.settings, self.spec.sizes[0])


def no_arrays(backend: Backend, form: str, settings: Settings) -> None:
    """`Family.handed` of a family whose implementations are called with Python ints only."""
    return None


def with_defaults(spec: Family, settings: Settings) -> Settings:
    """`settings` with the family's default dimensions when they name none."""
    if not settings.ds and spec.ds:
        return dataclasses.replace(settings, ds=spec.ds)
    return settings


def prepare(family: str, function: Callable, settings: Settings, backend: Backend | None = None) -> Prepared:
    """The battery of `family` for `function`, not yet screened (nothing is called); a ValueError when it
    does not fit the family's contract or the settings do not suit the family (a usage error)."""
    spec = family_spec(family)
    if spec.fixed is not None:
        settings = spec.fixed(function, settings)
    settings = with_defaults(spec, settings)
    form = form_of(spec, function, settings)
    chosen = backend or Backend()
    handed = spec.handed(chosen, form, settings)
    adapter = spec.adapt(function, form, handed or chosen, settings)
    return Prepared(spec, form, adapter, settings, tuple(properties_of(family)), handed=handed)


# ------------------------------------------------------------------------------------------ screening
#
# Before the properties, the implementation is called once, plainly, at each size of the settings (each d;
# each head count for ALiBi) through its family's `screen`. A size where that call raises, returns the wrong
# shape or does not finish (`UNUSABLE`) becomes one failed outcome, "contract at d=2", and the properties
# and the identification run at the sizes left: one size the implementation rejects hides nothing learned at
# the others. `run_battery` screens every size in turn; `pe-verify check`'s child process runs each screen
# as a step of its own (`pe_verify.isolated`), so that a crash at one size fails that size only.


def screen_sizes(spec: Family, settings: Settings) -> tuple[int, ...]:
    """The sizes the implementation is screened at, in the order given, each once (none without a
    `screen`)."""
    if spec.screen is None:
        return ()
    return tuple(dict.fromkeys(getattr(with_defaults(spec, settings), spec.sizes[0])))


def contract_outcome(spec: Family, size: int, label: str, message: str) -> Outcome:
    """The failed outcome of size `size`, screened out under `label`: "contract at d=2"."""
    shown = spec.sizes[1]
    return Outcome(
        f"contract at {shown}={size}",
        False,
        f"one plain call at {shown} = {size}: a result, of the contract's shape",
        "1 call",
        {shown: size, "label": label, "message": message},
        label,
    )


def screen(prepared: Prepared, size: int) -> Outcome | None:
    """One plain call at `size`: None when it gives a result of the contract's shape (or fails otherwise,
    which the properties find), the failed `contract_outcome` when it raises, returns the wrong shape or
    does not finish (`UNUSABLE`)."""
    call_at = prepared.spec.screen
    if call_at is None:
        return None
    try:
        call_at(prepared.adapter, size)
    except Broken as broken:
        if broken.label in UNUSABLE:
            return contract_outcome(prepared.spec, size, broken.label, broken.message)
    except MemoryError as exc:
        return contract_outcome(prepared.spec, size, "memory-limit", _out_of_memory(exc))
    return None


def screened(prepared: Prepared, failed: Iterable[Outcome]) -> Prepared:
    """`prepared` with the sizes of the `failed` screens (`contract_outcome`s) taken out of its settings
    and their outcomes kept in `contract`."""
    failed = tuple(failed)
    field_name, shown = prepared.spec.sizes
    out = {(o.counterexample or {}).get(shown) for o in failed}
    left = tuple(size for size in getattr(prepared.settings, field_name) if size not in out)
    settings = dataclasses.replace(prepared.settings, **{field_name: left})
    return dataclasses.replace(prepared, settings=settings, contract=failed)


def _not_run(prepared: Prepared, name: str) -> Outcome:
    """The failed outcome of a property when every size was screened out."""
    first, shown = prepared.contract[0], prepared.spec.sizes[1]
    sizes = ", ".join(str((o.counterexample or {}).get(shown)) for o in prepared.contract)
    detail = f"not run: the implementation fails its contract at every {shown} ({sizes})"
    return Outcome(name, False, NOT_RUN, "not run", {"label": first.label, "message": detail}, first.label)


def check_property(prepared: Prepared, index: int) -> Outcome:
    """Property `index` checked (`not_applicable` when it is for another contract form, failed as not run
    when every size was screened out); checks that run out of memory fail it (`memory-limit`)."""
    p = prepared.properties[index]
    if p.forms and prepared.form not in p.forms:
        return not_applicable(p.name)
    if prepared.exhausted:
        return _not_run(prepared, p.name)
    try:
        return p.check(prepared.adapter, prepared.settings)
    except MemoryError as exc:
        return cut_short(p.name, "memory-limit", _out_of_memory(exc))


def identification(prepared: Prepared) -> tuple[Identification | None, list[Finding]]:
    """The closest reference variant and the findings it implies (none when every size was screened
    out); a `Broken` call, or running out of memory, becomes its finding."""
    if prepared.exhausted:
        return None, []
    try:
        return prepared.spec.identify(prepared.adapter, prepared.settings)
    except Broken as broken:
        return None, [finding(broken.label, broken.message)]
    except MemoryError as exc:
        return None, [finding("memory-limit", _out_of_memory(exc))]


def _out_of_memory(exc: MemoryError) -> str:
    return f"the checks of its results ran out of memory (MemoryError: {exc})"


def cut_short(name: str, label: str, detail: str) -> Outcome:
    """The failed outcome of a step that a call of the implementation, or running out of memory, ended (a
    `FATAL` label)."""
    return Outcome(name, False, NOT_REACHED, "until that call", {"label": label, "message": detail}, label)


def assemble(
    target: str,
    family: str,
    outcomes: Iterable[Outcome],
    identified: Identification | None,
    found: Iterable[Finding],
    backend: Backend | None = None,
    settings: Settings | None = None,
) -> Report:
    """The report of the properties' outcomes and the identification (the implementation called with
    `backend`, the battery run with `settings`): a finding for each failed property's label and each of the
    identification's, once per label; an identification that a `FATAL` call stopped is a failed step of its
    own."""
    outcomes = tuple(o for o in outcomes if o.applies)
    found = list(found)
    stopped = next((f for f in found if f.label in FATAL), None)
    if stopped is not None:
        detail = stopped.message.removeprefix(f"{LABELS[stopped.label]}: ")
        outcomes += (cut_short("identification", stopped.label, detail),)
    collected = Collected()
    for o in outcomes:
        if not o.passed:
            collected.add(o.label or "raises", o.message)
    for f in found:
        if all(f.label != seen.label for seen in collected.findings):
            collected.findings.append(f)
    findings = tuple(collected.findings)
    cause = root_cause(family_spec(family).causes, outcomes, identified, findings)
    return Report(target, family, outcomes, identified, findings, backend, cause, settings)


def root_cause(
    causes: Iterable[Cause],
    outcomes: Iterable[Outcome],
    identified: Identification | None,
    findings: Iterable[Finding],
) -> RootCause | None:
    """The first of the family's `causes` whose finding is present and that is an error itself or explains
    a symptom: a failed property, an error finding, an identification that matches no known variant. Its
    own property and finding are its evidence, not symptoms. None when no cause applies."""
    findings = tuple(findings)
    symptoms = [(f"{o.name} ({o.label})", o.label or "raises") for o in outcomes if not o.passed]
    from_properties = {label for _, label in symptoms}
    symptoms += [(f"[{f.label}]", f.label) for f in findings if f.label in ERRORS - from_properties]
    if identified is not None and not identified.matches:
        symptoms.append((f"identification: {identified.variant}", UNIDENTIFIED))
    for cause in causes:
        evidence = next((f for f in findings if f.label == cause.label), None)
        if evidence is None:
            continue
        rest = [(text, label) for text, label in symptoms if label != cause.label]
        explained = tuple(text for text, label in rest if label in cause.explains)
        if explained or cause.label in ERRORS:
            unexplained = tuple(text for text, label in rest if label not in cause.explains)
            return RootCause(evidence, explained, unexplained)
    return None


def run_battery(
    family: str,
    function: Callable,
    settings: Settings,
    backend: Backend | None = None,
    target: str = "",
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Every size of the settings screened (`screen`), then every registered property of `family`
    checked on `function` in this process at the sizes left, then its identification; `progress(step)` is
    called after each property and after the identification.

    A ValueError says the function does not fit the family's contract (a usage error, nothing was run).
    """
    prepared = prepare(family, function, settings, backend)
    ran_with = prepared.settings
    failed = [screen(prepared, size) for size in screen_sizes(prepared.spec, prepared.settings)]
    prepared = screened(prepared, [o for o in failed if o is not None])
    outcomes = list(prepared.contract)
    for index, p in enumerate(prepared.properties):
        outcomes.append(check_property(prepared, index))
        if progress is not None:
            progress(p.name)
    identified, found = identification(prepared)
    if progress is not None:
        progress("identification")
    return assemble(target, family, outcomes, identified, found, prepared.handed, ran_with)


def _words(variant: str) -> set[str]:
    """The first and last words of a variant's name ("rope half_split", "naive 2^(−8h/n)")."""
    words = variant.replace(",", " ").split()
    return {words[0], words[-1]} if words else set()


def expected(report: Report, expect: str) -> Outcome:
    """A property that holds when the identified variant is `expect` (a rule, a layout or a variant name)."""
    found = report.identified
    names = (
        set()
        if found is None
        else {found.variant, *_words(found.variant), str(found.parameters.get("layout"))}
    )
    shown = "nothing" if found is None else found.variant
    if found is not None and not found.matches:
        names = set()
    passed = expect in names
    counterexample = None if passed else {"expected": expect, "identified": shown}
    return Outcome(
        f"expect {expect}",
        passed,
        "exact: the name of the identified variant",
        "the identification",
        counterexample,
    )


# ------------------------------------------------------------------------------------------ search


def search(
    strategy: SearchStrategy,
    fails: Callable[[Any], dict[str, Any] | None],
    settings: Settings,
    probes: Iterable[Any] = (),
) -> tuple[dict[str, Any] | None, str]:
    """A counterexample and the budget searched: the first probe `fails` returns one for, else the
    shrunk example Hypothesis finds within `settings.examples` (seeded by `settings.seed`), else None.

    `fails(example)` returns the counterexample's description, or None when the property holds there; a
    `Broken` it raises counts as a failure described by its label and message, and one with a `FATAL` label
    ends the search there, unshrunk.
    """
    probes = list(probes)

    def described(example: Any) -> dict[str, Any] | None:
        try:
            return fails(example)
        except Broken as broken:
            return {"label": broken.label, "message": broken.message}

    probe_text = f"{len(probes)} fixed probe{'' if len(probes) == 1 else 's'}"
    budget = f"{probe_text} and {settings.examples} Hypothesis examples (seed {settings.seed})"
    for probe in probes:
        found = described(probe)
        if found is not None:
            return found, budget
    chosen = hypothesis_settings(
        max_examples=settings.examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=False,
    )
    stopped: list[dict[str, Any]] = []
    first: list[dict[str, Any]] = []

    def failing(example: Any) -> bool:
        found = described(example)
        if found is not None and found.get("label") in FATAL:
            stopped.append(found)
            raise _Stopped
        if found is not None and not first:
            first.append(found)
        return found is not None

    try:
        shrunk = find(strategy, failing, settings=chosen, random=random.Random(settings.seed))
    except _Stopped:
        return stopped[0], budget
    except (NoSuchExample, Unsatisfiable):
        return None, budget
    except Flaky:
        return _unrepeated(first[0]), budget
    return described(shrunk) or _unrepeated(first[0]), budget


def _unrepeated(found: dict[str, Any]) -> dict[str, Any]:
    """The first failure of a search whose failing example held when called again: the implementation's
    results changed between calls (state kept between them, or nondeterminism), and the failure stands."""
    said = "; ".join(part for part in (found.get("message"), UNREPEATED) if part)
    return {**found, "message": said}


#: What a failure that did not repeat says of itself.
UNREPEATED = "failed once, then held when the same example was called again: the results change between calls"


class _Stopped(Exception):
    """Ends a Hypothesis search at a call that did not finish (`FATAL`): shrinking would repeat it."""


def outcome(name: str, tolerance: str, found: tuple[dict[str, Any] | None, str], label: str) -> Outcome:
    """The Outcome of a `search`: failed with the counterexample (labelled by `Broken`'s label, else
    `label`) or passed."""
    counterexample, budget = found
    if counterexample is None:
        return Outcome(name, True, tolerance, budget)
    return Outcome(name, False, tolerance, budget, counterexample, counterexample.get("label", label))


# --------------------------------------------------------------------------------- calling the target


@dataclass(frozen=True)
class Backend:
    """How inputs are handed to the implementation: numpy float64 (and int64 positions), or torch tensors
    of `torch_dtype` (int64 positions); `reason` says why this one was chosen."""

    name: str = "numpy"
    torch_dtype: str = "float32"
    reason: str = ""

    @property
    def statement(self) -> str:
        """What the implementation is called with, and why: "torch tensors, float32 (its module imports
        torch)"."""
        kind = f"torch tensors, {self.torch_dtype}" if self.name == "torch" else "numpy arrays, float64"
        return f"{kind} ({self.reason})" if self.reason else kind

    def positions(self, positions: np.ndarray) -> Any:
        array = np.asarray(positions, dtype=np.int64)
        if self.name == "numpy":
            return array
        import torch

        return torch.from_numpy(array.copy())

    def vectors(self, x: np.ndarray) -> Any:
        array = np.asarray(x, dtype=np.float64)
        if self.name == "numpy":
            return array
        import torch

        return torch.from_numpy(array.copy()).to(getattr(torch, self.torch_dtype))


def unit_roundoff(dtype: np.dtype | str) -> float:
    """u = 2^−(m+1) of a float dtype with m explicit mantissa bits (float64 for anything else)."""
    spec = DTYPES.get(str(dtype), DTYPES["float64"])
    return 2.0 ** -(spec.nmant + 1)


class CallTimeout(BaseException):
    """Raised inside a call of the implementation that ran past its time limit (by a `CallGuard`)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"ran past the time limit of {seconds:g} s")
        self.seconds = seconds


#: What every call of the implementation and every reading of its result runs inside: `guard(what)` is a
#: context manager; none in-process, a time limit and a heartbeat in `pe-verify check`'s child process.
CallGuard = Callable[[str], AbstractContextManager[object]]


def _unguarded(what: str) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


_guard: CallGuard = _unguarded


def guard_calls(guard: CallGuard) -> None:
    """Run every later call of an implementation inside `guard(what)`."""
    global _guard
    _guard = guard


T = TypeVar("T")


def _guarded(run: Callable[[], T], what: str, label: str) -> T:
    """run() inside the call guard, whatever it raises becoming `Broken`: `label` for an Exception, and
    `timeout`, `target-exited` (SystemExit) and `memory-limit` for what they mean. A KeyboardInterrupt
    passes, since it may be a Ctrl-C, unless SIGINT is ignored (as in `pe-verify check`'s child process,
    where only the implementation can raise it)."""
    try:
        with _guard(what):
            return run()
    except Broken:
        raise
    except CallTimeout as timeout:
        raise Broken("timeout", f"{what} {timeout}") from None
    except SystemExit as exc:
        raise Broken("target-exited", f"{what} called sys.exit({exc.code!r})"[:300]) from None
    except MemoryError as exc:
        raise Broken("memory-limit", f"{what} raised MemoryError: {_first_line(exc)}"[:300]) from None
    except KeyboardInterrupt:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            raise
        raise Broken("raises", f"{what} raised KeyboardInterrupt") from None
    except BaseException as exc:
        raise Broken(label, f"{what} raised {type(exc).__name__}: {_first_line(exc)}"[:300]) from None


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else ""


def as_array(result: Any, what: str) -> tuple[np.ndarray, str]:
    """A result as a float64 array and the name of the dtype it came in (torch tensors, numpy arrays and
    anything `numpy.asarray` takes); `Broken('wrong-dtype')` unless its values are real numbers (floats,
    including bfloat16, or integers: bool, complex, object and text values are not), `Broken('wrong-shape')`
    when it is no array at all."""
    return _guarded(lambda: _real_array(result, what), f"reading what {what} returned", "wrong-dtype")


def _real_array(result: Any, what: str) -> tuple[np.ndarray, str]:
    dtype = getattr(result, "dtype", None)
    name = str(dtype).removeprefix("torch.") if dtype is not None else "float64"
    if hasattr(result, "detach"):  # a torch tensor: .numpy() cannot hold bfloat16, .double() can
        if dtype.is_complex or name == "bool":
            raise Broken("wrong-dtype", f"{what} returned {name} values, not real numbers")
        result = result.detach().cpu().double().numpy()
    try:
        array = np.asarray(result)
    except (TypeError, ValueError) as exc:
        raise Broken("wrong-shape", f"{what} returned {type(result).__name__}, not an array: {exc}") from None
    kind = array.dtype.kind
    if not (kind in "fiu" or (kind == "V" and np.can_cast(array.dtype, np.float64))):
        raise Broken("wrong-dtype", f"{what} returned {array.dtype} values, not real numbers")
    if name not in DTYPES:
        name = "float64"
    return array.astype(np.float64, copy=False), name


def call(function: Callable, args: Sequence[Any], what: str) -> Any:
    """function(*args) on copies of the array arguments, inside the call guard: what it raises becomes
    `Broken` (`raises` for an exception, see `_guarded` for the rest), and a copy that it changed
    `Broken('mutates-input')`. The caller's arrays are never handed over, so they stay as they were."""
    given = [_copy(arg) for arg in args]
    result = _guarded(lambda: function(*given), what, "raises")
    for position, (kept, passed) in enumerate(zip(args, given, strict=True), start=1):
        if _changed(kept, passed):
            raise Broken("mutates-input", f"{what} changed its argument {position} in place")
    return result


def _copy(arg: Any) -> Any:
    """A copy of an array argument (numpy or torch) to hand over; anything else (an int) as it is."""
    if isinstance(arg, np.ndarray):
        return arg.copy()
    return arg.clone() if hasattr(arg, "clone") else arg  # a torch tensor, or an int


def _changed(kept: Any, passed: Any) -> bool:
    """Whether the copy `passed` of `kept` was changed (values compared NaN-aware, shape and dtype)."""
    if passed is kept:
        return False
    if passed.shape != kept.shape or passed.dtype != kept.dtype:
        return True
    if isinstance(kept, np.ndarray):  # NaN-aware only when needed: that is 8 times slower
        return not np.array_equal(passed, kept) and not np.array_equal(passed, kept, equal_nan=True)
    return not passed.equal(kept) and not bool(((passed == kept) | (passed.isnan() & kept.isnan())).all())


def require_result(array: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    """`array` when it has `shape` and only finite values; `Broken` otherwise."""
    if array.shape != shape:
        raise Broken("wrong-shape", f"{what} returned shape {array.shape}, expected {shape}")
    if not np.all(np.isfinite(array)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise Broken("not-finite", f"{what} returned {array[bad]} at index {bad}")
    return array


#: The precisions a rule may be computed in before its result is widened, widest mantissa first.
NARROWER = ("float32", "float16", "bfloat16")


def computed_in(arrays: Iterable[np.ndarray], dtype: str) -> list[str]:
    """The narrowest precision narrower than `dtype` (of `NARROWER`) that holds every value of `arrays`
    exactly, as a list of at most one: where a rule computed in that precision and returned widened was
    computed. A value that fits a mantissa fits every wider one (bfloat16 values within float16's exponent
    range are float16 numbers too), so only the narrowest mantissa that holds them all is evidence: values a
    float64 computation gives are rarely all float32 numbers, and those of a float16 computation rarely all
    fit bfloat16's 8 bits. Identification asks for it before it tries a rule at that precision's tolerance."""
    arrays = list(arrays)
    width = DTYPES[dtype].nmant if dtype in DTYPES else DTYPES["float64"].nmant
    holding = [
        name
        for name in NARROWER
        if DTYPES[name].nmant < width
        and all(np.array_equal(DTYPES[name].cast(a).astype(np.float64), a) for a in arrays)
    ]
    return sorted(holding, key=lambda name: DTYPES[name].nmant)[:1]


def short(value: float) -> float:
    """A float for a counterexample or a deviation: 6 significant digits (raw floats are noise beyond)."""
    return float(f"{value:.6g}") if math.isfinite(value) else value


@dataclass
class Collected:
    """Findings gathered while a battery runs, without duplicates, in the order they were first seen."""

    findings: list[Finding] = field(default_factory=list)

    def add(self, label: str, detail: str) -> None:
        if all(f.label != label for f in self.findings):
            self.findings.append(finding(label, detail))
