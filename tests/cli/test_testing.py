"""`pe_verify.testing`: the assertions pass on correct implementations and raise AssertionError with the
failed property, its counterexample and the findings on broken ones, also for what `battery.call` guards
against in-process (SystemExit, changed inputs, results that are not real numbers)."""

from __future__ import annotations

import dataclasses
import inspect
import os
import signal
import subprocess
import sys
import unittest
from collections.abc import Callable, Mapping
from pathlib import Path

import hypothesis
import ml_dtypes
import numpy as np
import pytest
from hypothesis import configuration
from hypothesis import strategies as st

from pe_verify import testing
from pe_verify.properties import battery
from pe_verify.properties.battery import Broken, Settings, as_array, call, run_battery
from pe_verify.properties.encodings.rope import apply_rope
from pe_verify.properties.encodings.scaling import llama3_frequencies, rope_frequencies
from pe_verify.properties.encodings.sinusoidal import sinusoidal_encoding
from pe_verify.properties.family_index import builtin_families
from pe_verify.testing import assert_alibi, assert_rope, assert_rope_frequencies, assert_sinusoidal

FAST = {"examples": 15}


@pytest.mark.slow
def test_correct_implementations_pass() -> None:
    assert assert_rope(lambda x, p: apply_rope(x, p, layout="half_split"), expect="half_split", **FAST).passed
    assert assert_sinusoidal(lambda p, d: sinusoidal_encoding(p, d), d=[8, 64], **FAST).passed
    assert assert_alibi(lambda n: 2.0 ** (-8.0 * np.arange(1, n + 1) / n), heads=[8, 16], **FAST).passed
    llama3 = lambda d: llama3_frequencies(d, 500000.0, 8.0, 1.0, 4.0, 8192)  # noqa: E731
    assert assert_rope_frequencies(llama3, expect="llama3", base=500000.0, **FAST).passed


@pytest.mark.slow
def test_a_broken_rope_raises_with_the_counterexample() -> None:
    def bf16(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return apply_rope(x, positions.astype(ml_dtypes.bfloat16).astype(np.float64))

    relative = r"(?s)relative: .*\n    fails at d=2, .*m2=256, n2=257"
    with pytest.raises(AssertionError, match=relative) as raised:
        assert_rope(bf16, **FAST)
    assert "finding [low-precision]" in str(raised.value)


def test_the_llama3_rule_returning_unscaled_frequencies_fails_expect_llama3() -> None:
    compared = "expect llama3: the implementation is identified as llama3 — tolerance exact"
    failed = rf"{compared}.*\n    fails at expected=llama3, identified=none"
    with pytest.raises(AssertionError, match=failed):
        assert_rope_frequencies(
            lambda d: rope_frequencies(d, 500000.0), expect="llama3", base=500000.0, **FAST
        )


@pytest.mark.slow
def test_broken_sinusoidal_and_alibi_raise() -> None:
    with pytest.raises(AssertionError, match="nondeterministic"):
        rng = np.random.default_rng(0)
        assert_sinusoidal(lambda p, d: sinusoidal_encoding(p, d) + 1e-6 * rng.random(), d=8, **FAST)

    def rewarding(n: int, length: int) -> np.ndarray:  # −m·j: after the row constant, +m·(i − j)
        slopes = 2.0 ** (-8.0 * np.arange(1, n + 1) / n)
        return np.broadcast_to(-slopes[:, None, None] * np.arange(length)[None, None, :], (n, length, length))

    with pytest.raises(AssertionError, match="bias-sign"):
        assert_alibi(rewarding, **FAST)


def test_an_expectation_no_identification_can_meet_is_refused_before_any_work() -> None:
    def never_called(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        raise AssertionError("the battery ran")

    with pytest.raises(ValueError, match="--expect for rope must be one of interleaved, half_split"):
        assert_rope(never_called, expect="llama3")


def test_an_exit_a_changed_input_and_complex_results_fail_in_process() -> None:
    def exits(d: int) -> np.ndarray:
        sys.exit(0)

    contract = r"\n  contract at d=64: one plain call .*; 1 call\n    inv_freq\(64\) called sys.exit\(0\)"
    with pytest.raises(AssertionError, match=contract):
        assert_rope_frequencies(exits, **FAST)
    report = run_battery("rope-frequencies", lambda d: np.zeros(d // 2, complex), Settings(examples=3))
    assert not report.passed and {f.label for f in report.findings} == {"wrong-dtype"}
    array, dtype = as_array(np.arange(3), "f()")
    assert array.dtype == np.float64 and dtype == "float64"  # integers are numbers

    def changes(x: np.ndarray) -> np.ndarray:
        x[0] = 1.0
        return x

    kept = np.zeros(3)
    with pytest.raises(Broken, match=r"f\(x\) changed its argument 1 in place") as raised:
        call(changes, (kept,), "f(x)")
    assert raised.value.label == "mutates-input" and not kept.any()


def test_a_keyboard_interrupt_passes_in_process_as_a_ctrl_c_would() -> None:
    """With SIGINT handled (an interactive run) it may be a Ctrl-C and passes; with SIGINT ignored (a
    background job) only the implementation can have raised it, and it fails the check. The test sets the
    disposition itself: how it was started must not decide it."""

    def interrupted(d: int) -> np.ndarray:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            assert_rope_frequencies(interrupted, **FAST)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with pytest.raises(AssertionError, match="raised KeyboardInterrupt"):
            assert_rope_frequencies(interrupted, **FAST)
    finally:
        signal.signal(signal.SIGINT, before)


def test_checks_that_run_out_of_memory_fail_their_property_and_the_identification(monkeypatch) -> None:
    def hungry(*_: object) -> None:
        raise MemoryError("no room")

    family = "rope-frequencies"
    spec = dataclasses.replace(battery.family_spec(family), identify=hungry)
    registry = [
        dataclasses.replace(p, check=hungry) if (p.family, p.name) == (family, "finite") else p
        for p in battery.REGISTRY
    ]
    monkeypatch.setattr(battery, "REGISTRY", registry)
    monkeypatch.setitem(battery.SPECS, family, spec)
    report = run_battery(family, rope_frequencies, Settings(examples=3))
    assert {o.name: o.label for o in report.properties if not o.passed} == {
        "finite": "memory-limit",
        "identification": "memory-limit",
    }


def _sin_for_cos(positions: np.ndarray, d: int) -> np.ndarray:
    """The sinusoidal encoding with sin typed for cos: its norm changes with the position."""
    angles = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-2.0 * (np.arange(d) // 2) / d)
    return np.sin(angles)


def test_a_helper_inside_a_given_test_runs_its_own_search() -> None:
    """Inside a @given test, where Hypothesis refuses a nested @given, a helper still runs its searches: a
    broken implementation fails with its counterexample and a correct one passes."""

    @hypothesis.settings(max_examples=2, deadline=None, database=None)
    @hypothesis.given(d=st.sampled_from([6, 8]))
    def checks(d: int, function: Callable[[np.ndarray, int], np.ndarray]) -> None:
        assert_sinusoidal(function, d=d, examples=5)

    checks(function=sinusoidal_encoding)
    failed = r"(?s)_sin_for_cos fails the sinusoidal battery at d=.*constant-norm: .*fails at d="
    with pytest.raises(AssertionError, match=failed):
        checks(function=_sin_for_cos)


@pytest.mark.parametrize("skip", [unittest.SkipTest, pytest.skip.Exception])
def test_a_search_hypothesis_skips_fails_the_helper(monkeypatch: pytest.MonkeyPatch, skip: type) -> None:
    """Should Hypothesis skip the battery all the same, the helper fails saying so: a skip is no pass."""

    def skipped(*_: object) -> None:
        raise skip("Hypothesis has been told to run no test cases for this test.")

    monkeypatch.setattr(testing, "run_battery", skipped)
    try:
        with pytest.raises(AssertionError, match=r"sinusoidal_encoding was not checked: Hypothesis skipped"):
            assert_sinusoidal(sinusoidal_encoding, d=8)
    except skip as let_through:  # caught here, or this test would be reported as skipped, not failed
        pytest.fail(f"the helper let Hypothesis' skip through: {let_through}")


@pytest.mark.parametrize("examples", [0, -1, 2.5, True])
def test_a_budget_of_no_examples_is_refused_before_any_work(examples: object) -> None:
    with pytest.raises(
        ValueError, match=r"assert_sinusoidal\(\) examples must be a whole number of at least 1"
    ):
        assert_sinusoidal(sinusoidal_encoding, d=8, examples=examples)


def test_a_helper_run_uses_its_own_settings_and_storage_and_puts_both_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Within a helper's run, new Hypothesis settings start from `own_settings()` whatever was loaded, and
    Hypothesis stores its files in pe-verify's cache folder; afterwards both are as they were, also after
    an error."""
    monkeypatch.setenv("PE_VERIFY_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setattr(configuration, "__hypothesis_home_directory", None)
    before = hypothesis.settings()

    def home() -> Path:
        found = configuration.storage_directory("constants", intent_to_write=False)
        return Path(getattr(found, "path", found))

    with pytest.raises(KeyError), testing.own_hypothesis_run():
        inside = hypothesis.settings()
        assert home() == tmp_path / "cache" / "hypothesis" / "constants"
        raise KeyError("stop")
    assert (inside.phases, inside.database, inside.deadline) == (tuple(hypothesis.Phase), None, None)
    assert (inside.derandomize, inside.verbosity) == (False, hypothesis.Verbosity.quiet)
    assert set(inside.suppress_health_check) == set(hypothesis.HealthCheck)
    assert getattr(configuration, "__hypothesis_home_directory") is None
    assert repr(hypothesis.settings()) == repr(before)


def test_a_failure_shows_the_helper_s_message_first_no_suite_frames_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    """A user's failing test run by pytest: the failure shows the user's line, then the helper's message as
    its first error line (what was compared, within what tolerance, before where it fails), no frame of
    pe_verify's; and the user's folder holds nothing but the test file afterwards (no .hypothesis)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "test_users_rope.py").write_text(
        "import numpy as np\n"
        "from pe_verify.testing import assert_rope\n\n"
        "def test_rope():\n"
        "    assert_rope(lambda x, p: x * (p[:, None] + 1.0), d=[8], examples=3)\n"
    )
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    environment.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    environment |= {"PE_VERIFY_CACHE": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    environment |= {"PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_users_rope.py"],
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        cwd=folder,
        env=environment,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    failure = done.stdout[done.stdout.index("_ test_rope _") : done.stdout.index("short test summary")]
    errors = [line[1:].strip() for line in failure.splitlines() if line.startswith("E ")]
    header = "test_rope.<locals>.<lambda> fails the rope battery at d=[8], base=10000.0, max_pos=65536:"
    assert errors[0] == f"AssertionError: {header}"
    assert errors[1].startswith("relative: ") and " — tolerance " in errors[1]
    assert errors[2].startswith("fails at d=8, ")
    assert "assert_rope(lambda x, p: x * (p[:, None] + 1.0), d=[8], examples=3)" in failure
    assert "pe_verify" not in failure and "testing.py" not in failure and "def assert_" not in failure
    assert [path.name for path in folder.iterdir()] == ["test_users_rope.py"]


def test_a_failure_names_its_root_cause() -> None:
    from implementations.rope_newcomer import interleaved_table_rotate_half

    with pytest.raises(AssertionError, match=r"root cause: \[layout-mismatch\]") as failed:
        assert_rope(interleaved_table_rotate_half, d=[8, 64], **FAST)
    assert "  explains: relative (not-relative)" in str(failed.value)


def test_an_error_finding_fails_the_helper_even_when_every_property_holds() -> None:
    """Slopes 2^(−4h/n): every ALiBi property holds, but the slopes are no known rule (`wrong-slopes`, an
    error for `pe-verify check`): the helper fails too."""
    with pytest.raises(
        AssertionError, match=r"(?s)finding \[wrong-slopes\].*every property holds, but wrong"
    ):
        assert_alibi(lambda n: 2.0 ** (-4.0 * np.arange(1, n + 1) / n), heads=[8], **FAST)


def _drift(namespace: Mapping[str, object]) -> list[str]:
    """Where the helpers written out in `namespace` (a module's globals) part from the suite's families'
    records: a family without its helper; a helper whose keywords (names, order, defaults) are not the
    family's `options` and the common ones; a docstring without the contract or an `expect` value; a helper
    that does not hide its frame."""
    drift = []
    for family in builtin_families():
        spec = battery.family_spec(family)
        function = namespace.get(spec.helper)
        if not inspect.isfunction(function):
            drift.append(f"{spec.helper}: not written out")
            continue
        parameters = inspect.signature(function).parameters.values()
        keywords = [(p.name, p.default) for p in parameters if p.kind is p.KEYWORD_ONLY]
        wanted = [(key, testing.DEFAULTS[key]) for key in (*spec.options, *testing.COMMON)]
        if keywords != wanted:
            drift.append(f"{spec.helper}: keywords {keywords}, its family's {wanted}")
        doc = " ".join((function.__doc__ or "").split())
        missing = [text for text in (spec.contract, *map(repr, spec.expectable)) if text not in doc]
        if missing:
            drift.append(f"{spec.helper}: its docstring misses {missing}")
        if "__tracebackhide__" not in function.__code__.co_varnames:
            drift.append(f"{spec.helper}: shows its frame")
    return drift


def _twin_without_max_pos(
    function: Callable, *, d=None, base=10000.0, seed=0, examples=60, expect=None, backend="auto"
) -> None:
    """Broken: the rope helper without max_pos. `rotate(x, positions) -> like x, x [n, d]; apply(q, k,
    positions) -> (q_rot, k_rot); or real code's conventions (pe-verify check --convention)` 'interleaved'
    'half_split'."""
    __tracebackhide__ = True


def _twin_with_another_default(
    function: Callable, *, heads=None, max_pos=4096, seed=0, examples=60, expect=None, backend="auto"
) -> None:
    """Broken: the alibi helper with another max_pos default."""
    __tracebackhide__ = True


def _twin_showing_its_frame(
    function: Callable,
    *,
    d=None,
    base=10000.0,
    max_pos=65536,
    seed=0,
    examples=60,
    expect=None,
    backend="auto",
) -> None:
    """Broken: the sinusoidal helper, its docstring right (`encode(positions, d) -> [len(positions), d]`,
    'interleaved', 'concatenated'), its frame shown."""


def test_each_family_of_the_suite_has_its_helper_written_out_as_its_record_says() -> None:
    assert _drift(vars(testing)) == []
    assert testing.assert_rope.__module__ == "pe_verify.testing"
    without = {key: value for key, value in vars(testing).items() if key != "assert_rope_frequencies"}
    assert _drift(without) == ["assert_rope_frequencies: not written out"]
    twins = {
        "assert_rope": _twin_without_max_pos,
        "assert_alibi": _twin_with_another_default,
        "assert_sinusoidal": _twin_showing_its_frame,
    }
    drift = _drift({**vars(testing), **twins})
    assert len(drift) == 4 and drift[2].startswith("assert_rope: keywords")
    assert drift[0].startswith("assert_alibi: keywords") and "('max_pos', 4096)" in drift[0]
    assert "misses" in drift[1] and "'reference'" in drift[1]
    assert drift[3] == "assert_sinusoidal: shows its frame"
