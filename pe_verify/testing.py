"""Assertions for your own test suite, the way `numpy.testing` is used: each runs a family's battery
(`pe-verify check`) on a callable (for rope, a precomputed table too) and raises AssertionError that says
first, for each failed property, what was compared and within what tolerance, then its shrunk
counterexample; it fails too on a finding that is an error and, with `expect`, on a variant other than the
one expected. Every family has one, `assert_<name>` (a `-` in the name is a `_`): it takes the callable and,
as keywords, the family's `options` (`battery.Family`) and `seed`, `examples`, `expect` and `backend` (as
`pe-verify check --backend` takes it: "auto" by default, torch tensors when the callable's module imports
torch). The suite's families have theirs written out below; a family another module defines gets one made
from its record (`helper`).

    from pe_verify.testing import assert_rope
    def test_my_rope():
        assert_rope(my_rotate, d=[64, 128], max_pos=8192)

The battery runs in the calling process, so that the callable may be any function of the test (a closure, a
lambda). What it raises (SystemExit too), a changed input and a result that is not real numbers fail a
property as with `pe-verify check`; what only a separate process can contain is not guarded against here:
`os._exit` or a crash ends the test run, a hang or a leak stalls it, a KeyboardInterrupt it raises stops it
as a Ctrl-C does, and its prints reach the test's captured output. `pe-verify check` guards against those.

The Hypothesis searches run as `pe-verify check` runs them, whatever your session loaded: their settings
are built here (`own_settings`: every phase, the helper's `examples`, no database, no deadline, no health
check, quiet), never inherited from a profile, so a profile that replays stored examples only
(`phases=[Phase.explicit]`), a tiny `max_examples`, `derandomize`, a deadline or a verbose profile changes
neither what is searched nor the verdict. A helper may be called inside your own `@given` test: its searches
run as a Hypothesis run of their own, not a nested one (that test's own `deadline` still counts the time the
battery takes; `deadline=None` suits such a test). Should Hypothesis skip a search all the same, the helper
fails with an AssertionError saying so: a skipped check never reads as a pass. The files Hypothesis keeps
while the battery runs go to `hypothesis/` of pe-verify's cache folder (`pe_verify.cache.directory`), not
to a `.hypothesis` folder of the current directory, unless HYPOTHESIS_STORAGE_DIRECTORY or
`hypothesis.configuration.set_hypothesis_home_dir` chose another folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import unittest
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, configuration, control
from hypothesis.errors import InvalidArgument

from pe_verify import cache, check
from pe_verify.properties import battery
from pe_verify.properties.battery import Report, Settings, expected, run_battery
from pe_verify.properties.battery.rope_conventions import table_form

#: Every keyword a helper may take, with its default; a family's `options` choose among the first four.
DEFAULTS: dict[str, Any] = {
    "d": None,
    "base": 10000.0,
    "max_pos": 65536,
    "heads": None,
    "seed": 0,
    "examples": 60,
    "expect": None,
    "backend": "auto",
}
COMMON = ("seed", "examples", "expect", "backend")


def _named(function: Any) -> str:
    """How a failure names the implementation: its qualified name, a precomputed table by its kind, else the
    first line of its repr (a module's repr runs over many)."""
    name = getattr(function, "__qualname__", None)
    if name is not None:
        return name
    form = table_form(function)
    return f"the {form} table" if form is not None else repr(function).splitlines()[0]


def assert_family(family: str, function: Callable, **options: Any) -> Report:
    """Run the battery of `family` on `function` in this process; AssertionError (`failure`) naming every
    failed property, a finding that is an error and an `expect`ed variant not identified; TypeError for a
    keyword the family does not take.
    Its frame, and its helper's, are hidden from pytest's traceback: a failure shows the test's line and
    the message, not the suite's source."""
    __tracebackhide__ = True
    spec = check.family_record(family)
    unknown = sorted(set(options) - {*spec.options, *COMMON})
    if unknown:
        raise TypeError(f"{spec.helper}() got unexpected keyword arguments: {', '.join(unknown)}")
    values = {**DEFAULTS, **options}
    d, heads, expect, examples = values["d"], values["heads"], values["expect"], values["examples"]
    if expect is not None:
        check.require_expectable(family, expect)
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ValueError(f"{spec.helper}() examples must be a whole number of at least 1; got {examples!r}")
    ds = () if d is None else (d,) if isinstance(d, int) else tuple(d)
    settings = Settings(
        ds=ds,
        base=values["base"],
        max_pos=values["max_pos"],
        seed=values["seed"],
        examples=values["examples"],
    )
    if heads is not None:
        settings = dataclasses.replace(settings, heads=tuple(heads))
    name = _named(function)
    try:
        with own_hypothesis_run():
            report = run_battery(family, function, settings, check.backend(values["backend"], function), name)
    except _skips() as skipped:
        raise AssertionError(
            f"{name} was not checked: Hypothesis skipped the {family} battery's search ({skipped}). The "
            "Hypothesis settings in effect disabled it (a profile without the generate phase, say); a "
            "skipped check is reported as a failure, never as a pass."
        ) from skipped
    if not report.passed or (expect is not None and not expected(report, expect).passed):
        raise AssertionError(failure(name, report, expect))
    return report


def failure(name: str, report: Report, expect: str | None = None) -> str:
    """Why `report` fails (or, with `expect`, does not identify that variant), as a helper says it: the
    settings the battery ran at; for each failed property what was compared within what tolerance, then
    where it fails; the findings and the root cause; and, when every property holds, the error findings."""
    spec = check.family_record(report.family)
    ran = report.settings or Settings()
    where = ", ".join(f"{key}={value}" for key, value in check.read_options(spec, ran).items())
    compared = {p.name: p.statement for p in battery.properties_of(report.family)}
    outcomes = list(report.properties)
    if expect is not None:
        outcomes.append(expected(report, expect))
        compared[outcomes[-1].name] = f"the implementation is identified as {expect}"
    lines = [f"{name} fails the {report.family} battery at {where}:"]
    for o in (o for o in outcomes if not o.passed):
        if o.tolerance in (battery.NOT_RUN, battery.NOT_REACHED):
            lines.append(f"  {o.name}: {o.failure}")
            continue
        what = f"{compared[o.name]} — tolerance " if o.name in compared else ""
        lines += [f"  {o.name}: {what}{o.tolerance}; {o.budget}", f"    {o.failure}"]
    lines += [f"  finding [{f.label}] {f.message}" for f in report.findings]
    lines += [f"  {line}" for line in check.cause_lines(report.cause)]
    errors = sorted(f.label for f in report.findings if f.label in battery.ERRORS)
    if all(o.passed for o in report.properties) and errors:
        lines.append(f"  every property holds, but {', '.join(errors)} is an error")
    return "\n".join(lines)


def own_settings() -> hypothesis.settings:
    """The Hypothesis settings every search of a helper starts from, each one set here rather than taken
    from the profile the session loaded: every phase (those that replay stored or explicit examples find
    none), no database, no deadline, no health check, quiet, the default generation backend; the battery
    sets the number of examples (the helper's `examples`) and the seed on top."""
    fixed: dict[str, Any] = {
        "max_examples": DEFAULTS["examples"],
        "phases": tuple(Phase),
        "database": None,
        "deadline": None,
        "derandomize": False,
        "suppress_health_check": list(HealthCheck),
        "verbosity": Verbosity.quiet,
        "report_multiple_bugs": False,
        "print_blob": False,
        "stateful_step_count": 50,
    }
    try:
        return hypothesis.settings(backend="hypothesis", **fixed)
    except (TypeError, InvalidArgument):  # a Hypothesis without alternative backends
        return hypothesis.settings(**fixed)


@contextlib.contextmanager
def own_hypothesis_run() -> Iterator[None]:
    """Within it, a Hypothesis search (`hypothesis.find`, as the battery runs) is a run of its own: its
    settings start from `own_settings()` instead of the loaded profile, it runs outside any `@given` test
    in progress (Hypothesis refuses a nested @given: `HealthCheck.nested_given`), and Hypothesis keeps its
    files in pe-verify's cache folder unless the user chose where (`_storage_in_cache`). Everything is
    restored on leaving, also when what runs inside raises."""
    with _storage_in_cache(), _outside_given(), _default_settings(own_settings()):
        yield


@contextlib.contextmanager
def _default_settings(chosen: hypothesis.settings) -> Iterator[None]:
    """`chosen` as the settings a new `hypothesis.settings(...)` inherits from (`settings.default`), in this
    thread only; Hypothesis' own `local_settings` does that for the test it runs."""
    local = getattr(getattr(hypothesis, "_settings", None), "local_settings", None)
    with local(chosen) if local is not None else contextlib.nullcontext():
        yield


@contextlib.contextmanager
def _outside_given() -> Iterator[None]:
    """No Hypothesis test in progress, as far as Hypothesis can tell in this thread, until the block ends:
    inside a `@given` test, Hypothesis would fail the battery's own searches as nested @given tests."""
    variable = getattr(control, "_current_build_context", None)
    if variable is None or not control.currently_in_test_context():
        yield
        return
    with variable.with_value(None):
        yield


@contextlib.contextmanager
def _storage_in_cache() -> Iterator[None]:
    """Hypothesis' storage folder (one per process) moved from `.hypothesis` of the current directory to
    `hypothesis/` of pe-verify's cache folder until the block ends, and then put back as it was: what a
    search writes there (the constants it collects from your modules) stays out of your project. Left
    alone when the user chose a folder (HYPOTHESIS_STORAGE_DIRECTORY, or `set_hypothesis_home_dir` to
    another one)."""
    home = getattr(configuration, "__hypothesis_home_directory", None)
    default = getattr(configuration, "__hypothesis_home_directory_default", None)
    chosen = bool(os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")) or (home is not None and home != default)
    move = getattr(configuration, "set_hypothesis_home_dir", None)
    if chosen or move is None:
        yield
        return
    move(cache.directory() / "hypothesis")
    try:
        yield
    finally:
        move(home)


def _skips() -> tuple[type[BaseException], ...]:
    """The exceptions by which Hypothesis skips a test: unittest's, and pytest's when pytest is loaded."""
    outcomes = sys.modules.get("_pytest.outcomes")
    skipped = getattr(outcomes, "Skipped", None)
    return (unittest.SkipTest,) if skipped is None else (unittest.SkipTest, skipped)


def helper(family: str) -> Callable[..., Report]:
    """The assert helper of a family another module defines (`battery.define`): `assert_family` with the
    family fixed, named and documented from its record. The suite's own families have theirs written out."""
    spec = check.family_record(family)

    def assert_(function: Callable, **options: Any) -> Report:
        __tracebackhide__ = True
        return assert_family(family, function, **options)

    assert_.__name__ = assert_.__qualname__ = spec.helper
    keywords = ", ".join(f"{key}={DEFAULTS[key]!r}" for key in (*spec.options, *COMMON))
    expectable = ", ".join(repr(variant) for variant in spec.expectable)
    assert_.__doc__ = f"`{spec.contract}` passes the {family} battery. Keywords: {keywords}; `expect` one of "
    assert_.__doc__ += f"{expectable}."
    return assert_


def _helpers() -> dict[str, str]:
    """The helper name of every family known, to its family."""
    return {battery.family_spec(name).helper: name for name in battery.family_names()}


def __getattr__(name: str) -> Callable[..., Report]:
    families = _helpers() if name.startswith("assert_") else {}
    if name not in families:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return helper(families[name])


def __dir__() -> list[str]:
    return sorted({*globals(), *_helpers()})


# ------------------------------------------------------------------- the suite's families' helpers


def assert_rope(
    function: Callable,
    *,
    d: int | Sequence[int] | None = None,
    base: float = 10000.0,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "auto",
) -> Report:
    """Assert that `function` passes the rope battery. Its contract: `rotate(x, positions) -> like x, x
    [n, d]; apply(q, k, positions) -> (q_rot, k_rot); or real code's conventions (pe-verify check
    --convention)`; a precomputed cos/sin table is checked too.

    Keywords: `d=None` the dimensions (an int or several; None: the family's, 2, 8, 64 and 128),
    `base=10000.0` the base declared, `max_pos=65536` positions 0 … max_pos − 1, `seed=0`, `examples=60`
    Hypothesis examples per property, `expect=None` the layout that must be identified: 'interleaved' or
    'half_split', `backend="auto"` as `pe-verify check --backend`.

    Returns the `Report`; AssertionError saying what each failed property compared within what tolerance
    and where it fails; ValueError for an `expect` the family cannot identify or `examples` below 1.
    """
    __tracebackhide__ = True
    return assert_family(
        "rope",
        function,
        d=d,
        base=base,
        max_pos=max_pos,
        seed=seed,
        examples=examples,
        expect=expect,
        backend=backend,
    )


def assert_rope_frequencies(
    function: Callable,
    *,
    d: int | Sequence[int] | None = None,
    base: float = 10000.0,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "auto",
) -> Report:
    """Assert that `function` passes the rope-frequencies battery. Its contract: `inv_freq(d) -> [d // 2]
    or (inv_freq, attention_factor); init(config) likewise`.

    Keywords: `d=None` the dimensions (an int or several; None: the family's, 64, 128 and 256),
    `base=10000.0` the base declared, `seed=0`, `examples=60` Hypothesis examples per property,
    `expect=None` the scaling rule that must be identified: 'none', 'linear', 'ntk', 'yarn', 'llama3' or
    'longrope', `backend="auto"` as `pe-verify check --backend`.

    Returns the `Report`; AssertionError saying what each failed property compared within what tolerance
    and where it fails; ValueError for an `expect` the family cannot identify or `examples` below 1.
    """
    __tracebackhide__ = True
    return assert_family(
        "rope-frequencies",
        function,
        d=d,
        base=base,
        seed=seed,
        examples=examples,
        expect=expect,
        backend=backend,
    )


def assert_sinusoidal(
    function: Callable,
    *,
    d: int | Sequence[int] | None = None,
    base: float = 10000.0,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "auto",
) -> Report:
    """Assert that `function` passes the sinusoidal battery. Its contract: `encode(positions, d) ->
    [len(positions), d]`.

    Keywords: `d=None` the dimensions (an int or several; None: the family's, 8, 64, 128 and 512),
    `base=10000.0` the base declared, `max_pos=65536` positions 0 … max_pos − 1, `seed=0`, `examples=60`
    Hypothesis examples per property, `expect=None` the layout that must be identified: 'interleaved' or
    'concatenated', `backend="auto"` as `pe-verify check --backend`.

    Returns the `Report`; AssertionError saying what each failed property compared within what tolerance
    and where it fails; ValueError for an `expect` the family cannot identify or `examples` below 1.
    """
    __tracebackhide__ = True
    return assert_family(
        "sinusoidal",
        function,
        d=d,
        base=base,
        max_pos=max_pos,
        seed=seed,
        examples=examples,
        expect=expect,
        backend=backend,
    )


def assert_alibi(
    function: Callable,
    *,
    heads: Sequence[int] | None = None,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "auto",
) -> Report:
    """Assert that `function` passes the alibi battery. Its contract: `slopes(n_heads) -> [n_heads]; or
    bias(n_heads, seq_len) -> [n_heads, seq_len, seq_len] or [n_heads, 1, seq_len]`.

    Keywords: `heads=None` the head counts (None: the family's, 1, 2, 3, 8, 12, 16 and 64),
    `max_pos=65536` the bound on the sequence lengths tried, `seed=0`, `examples=60` Hypothesis examples
    per property, `expect=None` the slope rule that must be identified: 'reference', 'naive' or
    'reversed', `backend="auto"` as `pe-verify check --backend`.

    Returns the `Report`; AssertionError saying what each failed property compared within what tolerance
    and where it fails; ValueError for an `expect` the family cannot identify or `examples` below 1.
    """
    __tracebackhide__ = True
    return assert_family(
        "alibi",
        function,
        heads=heads,
        max_pos=max_pos,
        seed=seed,
        examples=examples,
        expect=expect,
        backend=backend,
    )
