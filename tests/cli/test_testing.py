"""`pe_verify.testing`: the assertions pass on correct implementations and raise AssertionError with the
failed property, its counterexample and the findings on broken ones, also for what `battery.call` guards
against in-process (SystemExit, changed inputs, results that are not real numbers)."""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import unittest
from collections.abc import Callable
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

    with pytest.raises(AssertionError, match=r"relative: fails at d=2, .*m2=256, n2=257") as raised:
        assert_rope(bf16, **FAST)
    assert "finding [low-precision]" in str(raised.value)


def test_the_llama3_rule_returning_unscaled_frequencies_fails_expect_llama3() -> None:
    with pytest.raises(AssertionError, match="expect llama3: fails at expected=llama3, identified=none"):
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

    with pytest.raises(AssertionError, match=r"contract at d=64: .*inv_freq\(64\) called sys.exit\(0\)"):
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
    with pytest.raises(
        AssertionError, match=r"(?s)_sin_for_cos fails the sinusoidal battery:.*constant-norm: fails at d="
    ):
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


def test_a_failure_shows_the_user_s_test_and_the_message_not_the_suite_s_source(tmp_path: Path) -> None:
    test_file = tmp_path / "test_users_rope.py"
    test_file.write_text(
        "import numpy as np\n"
        "from pe_verify.testing import assert_rope\n\n"
        "def test_rope():\n"
        "    assert_rope(lambda x, p: x * (p[:, None] + 1.0), d=[8], examples=3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "assert_rope(lambda x, p: x * (p[:, None] + 1.0), d=[8], examples=3)" in done.stdout
    assert "fails the rope battery" in done.stdout and "root cause: [" not in done.stdout
    assert "def assert_family" not in done.stdout and "testing.py" not in done.stdout


def test_a_failure_names_its_root_cause() -> None:
    from implementations.rope_newcomer import interleaved_table_rotate_half

    with pytest.raises(AssertionError, match=r"root cause: \[layout-mismatch\]") as failed:
        assert_rope(interleaved_table_rotate_half, d=[8, 64], **FAST)
    assert "  explains: relative (not-relative)" in str(failed.value)
