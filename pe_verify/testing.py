"""Assertions for your own test suite, the way `numpy.testing` is used: each runs a family's battery
(`pe-verify check`) on a callable and raises AssertionError naming the failed properties with their shrunk
counterexamples, or, with `expect`, a variant other than the one expected. Every family has one,
`assert_<name>` (a `-` in the name is a `_`), made from its record (`battery.Family`): it takes the callable
and, as keywords, the family's `options` and `seed`, `examples`, `expect` and `backend`.

    from pe_verify.testing import assert_rope
    def test_my_rope():
        assert_rope(my_rotate, d=[64, 128], max_pos=8192)

The battery runs in the calling process, so that the callable may be any function of the test (a closure, a
lambda). What it raises (SystemExit too), a changed input and a result that is not real numbers fail a
property as with `pe-verify check`; what only a separate process can contain is not guarded against here:
`os._exit` or a crash ends the test run, a hang or a leak stalls it, a KeyboardInterrupt it raises stops it
as a Ctrl-C does, and its prints reach the test's captured output. `pe-verify check` guards against those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from pe_verify import check
from pe_verify.properties import battery
from pe_verify.properties.battery import Report, Settings, expected, run_battery

#: Every keyword a helper may take, with its default; a family's `options` choose among the first four.
DEFAULTS: dict[str, Any] = {
    "d": None,
    "base": 10000.0,
    "max_pos": 65536,
    "heads": None,
    "seed": 0,
    "examples": 60,
    "expect": None,
    "backend": "numpy",
}
COMMON = ("seed", "examples", "expect", "backend")


def assert_family(family: str, function: Callable, **options: Any) -> Report:
    """Run the battery of `family` on `function` in this process; AssertionError naming every failed
    property (and an `expect`ed variant not identified), TypeError for a keyword the family does not take."""
    spec = check.family_record(family)
    unknown = sorted(set(options) - {*spec.options, *COMMON})
    if unknown:
        raise TypeError(f"{spec.helper}() got unexpected keyword arguments: {', '.join(unknown)}")
    values = {**DEFAULTS, **options}
    d, heads, expect = values["d"], values["heads"], values["expect"]
    if expect is not None:
        check.require_expectable(family, expect)
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
    name = getattr(function, "__qualname__", repr(function))
    report = run_battery(family, function, settings, check.backend(values["backend"]), name)
    outcomes = list(report.properties)
    if expect is not None:
        outcomes.append(expected(report, expect))
    failed = [o for o in outcomes if not o.passed]
    if failed:
        lines = [f"{name} fails the {family} battery:", *(f"  {o.message}" for o in failed)]
        lines += [f"  finding [{f.label}] {f.message}" for f in report.findings]
        raise AssertionError("\n".join(lines))
    return report


def helper(family: str) -> Callable[..., Report]:
    """The family's assert helper: `assert_family` with the family fixed, documented by its contract."""
    spec = check.family_record(family)

    def assert_(function: Callable, **options: Any) -> Report:
        return assert_family(family, function, **options)

    assert_.__name__ = assert_.__qualname__ = spec.helper
    keywords = ", ".join(f"{key}={DEFAULTS[key]!r}" for key in (*spec.options, *COMMON))
    expectable = ", ".join(repr(variant) for variant in spec.expectable)
    assert_.__doc__ = f"`{spec.contract}` passes the {family} battery. Keywords: {keywords}; `expect` one of "
    assert_.__doc__ += f"{expectable}."
    return assert_


def _helpers() -> dict[str, str]:
    return {battery.family_spec(name).helper: name for name in battery.family_names()}


def __getattr__(name: str) -> Callable[..., Report]:
    families = _helpers() if name.startswith("assert_") else {}
    if name not in families:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return helper(families[name])


def __dir__() -> list[str]:
    return sorted({*globals(), *_helpers()})
