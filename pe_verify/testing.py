"""Assertions for your own test suite, the way `numpy.testing` is used: each runs a family's battery
(`pe-verify check`) on a callable and raises AssertionError naming the failed properties with their shrunk
counterexamples, or, with `expect`, a variant other than the one expected.

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
from collections.abc import Callable, Iterable

from pe_verify import check
from pe_verify.properties.battery import Report, Settings, expected, run_battery


def _assert(
    family: str,
    function: Callable,
    d: int | Iterable[int] | None,
    base: float,
    max_pos: int,
    heads: Iterable[int] | None,
    seed: int,
    examples: int,
    expect: str | None,
    backend: str,
) -> Report:
    if expect is not None:
        check.require_expectable(family, expect)
    ds = () if d is None else (d,) if isinstance(d, int) else tuple(d)
    settings = Settings(ds=ds, base=base, max_pos=max_pos, seed=seed, examples=examples)
    if heads is not None:
        settings = dataclasses.replace(settings, heads=tuple(heads))
    name = getattr(function, "__qualname__", repr(function))
    report = run_battery(family, function, settings, check.backend(backend), name)
    outcomes = list(report.properties)
    if expect is not None:
        outcomes.append(expected(report, expect))
    failed = [o for o in outcomes if not o.passed]
    if failed:
        lines = [f"{name} fails the {family} battery:", *(f"  {o.message}" for o in failed)]
        lines += [f"  finding [{f.label}] {f.message}" for f in report.findings]
        raise AssertionError("\n".join(lines))
    return report


def assert_rope(
    rotate: Callable,
    *,
    d: int | Iterable[int] | None = None,
    base: float = 10000.0,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "numpy",
) -> Report:
    """`rotate(x, positions)` or `apply(q, k, positions)` is a RoPE; `expect` a layout ("half_split")."""
    return _assert("rope", rotate, d, base, max_pos, None, seed, examples, expect, backend)


def assert_sinusoidal(
    encode: Callable,
    *,
    d: int | Iterable[int] | None = None,
    base: float = 10000.0,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "numpy",
) -> Report:
    """`encode(positions, d)` is a sinusoidal encoding table."""
    return _assert("sinusoidal", encode, d, base, max_pos, None, seed, examples, expect, backend)


def assert_alibi(
    function: Callable,
    *,
    heads: Iterable[int] | None = None,
    max_pos: int = 65536,
    seed: int = 0,
    examples: int = 60,
    expect: str | None = None,
    backend: str = "numpy",
) -> Report:
    """`slopes(n_heads)` or `bias(n_heads, seq_len)` is ALiBi; `expect` a slope rule ("reference")."""
    return _assert("alibi", function, None, 10000.0, max_pos, heads, seed, examples, expect, backend)


def assert_rope_frequencies(
    inv_freq: Callable,
    *,
    expect: str | None = None,
    d: int | Iterable[int] | None = None,
    base: float = 10000.0,
    seed: int = 0,
    examples: int = 60,
    backend: str = "numpy",
) -> Report:
    """`inv_freq(d)` gives valid RoPE frequencies; `expect` the scaling rule ("none", "linear", "ntk",
    "yarn", "llama3", "longrope")."""
    return _assert("rope-frequencies", inv_freq, d, base, 65536, None, seed, examples, expect, backend)
