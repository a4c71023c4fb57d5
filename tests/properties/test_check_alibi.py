"""The ALiBi battery of `pe-verify check` on a regression corpus.

Numpy re-expressions of the public implementations (fairseq/ofirpress ``get_slopes``, BLOOM's
``build_alibi_tensor``, MPT's ``gen_slopes`` + ``build_alibi_bias``, the paper's causal bias) pass and are
identified as the reference rule, with their bias layout (BLOOM's one row per head, [n, 1, L], too, checked
at lengths beyond 256); each bug class fails the property it breaks (or is flagged) under its label, with the
counterexample the search found; contract errors are usage errors or `Broken` labels, and a head count the
implementation rejects fails alone. That BLOOM and MPT reproduce the reference rule for every head count is
checked numerically.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from implementations.alibi import (
    bfloat16_positions,
    bloom_bias,
    bloom_raw,
    bloom_raw_batched,
    bloom_slopes,
    buffered_bias,
    fairseq_get_slopes,
    mpt_gen_slopes,
    paper_bias,
    powers_of_two_only,
)

from pe_verify.properties.battery import Backend, Report, Settings, properties_of, run_battery, unit_roundoff
from pe_verify.properties.battery.families import alibi as battery_alibi
from pe_verify.properties.encodings.alibi import alibi_bias, alibi_slopes, slope_tolerance

SETTINGS = Settings(examples=10, max_pos=24, heads=(1, 2, 3, 4, 8, 12))
SMALLEST_HEADS = min(SETTINGS.heads)


def run(function: Callable[..., Any]) -> Report:
    return run_battery("alibi", function, SETTINGS)


def failed(report: Report) -> dict[str, Any]:
    """The failed properties of a report, by name, with their outcomes."""
    return {o.name: o for o in report.properties if not o.passed}


def labels(report: Report) -> set[str]:
    return {f.label for f in report.findings}


# ------------------------------------------------------------------------------ public implementations


def fairseq_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """fairseq's buffer: m·j along every row (``slopes * arange(maxpos)``) plus the −inf future mask."""
    slopes = np.asarray(fairseq_get_slopes(n_heads))
    alibi = slopes[:, None, None] * np.arange(seq_len)[None, None, :]
    future = np.triu(np.full((seq_len, seq_len), -np.inf), 1)
    return future[None, :, :] + alibi


def mpt_build_alibi_bias(n_heads: int, seq_len: int, full: bool = False) -> np.ndarray:
    """MPT ``build_alibi_bias``: m·(j − (L − 1)) on every row, or −m|i − j| with ``full``."""
    alibi_bias = np.arange(1 - seq_len, 1, dtype=np.int32)[None, None, :]
    if full:
        alibi_bias = alibi_bias - np.arange(1 - seq_len, 1, dtype=np.int32)[None, :, None]
        alibi_bias = -np.abs(alibi_bias)
    bias = alibi_bias.astype(np.float32) * mpt_gen_slopes(n_heads)[:, None, None]
    return np.broadcast_to(bias, (n_heads, seq_len, seq_len))


def mpt_full_bias(n_heads: int, seq_len: int) -> np.ndarray:
    return mpt_build_alibi_bias(n_heads, seq_len, full=True)


@pytest.mark.parametrize(
    ("rule", "dtype"),
    [(fairseq_get_slopes, "float64"), (bloom_slopes, "float32"), (mpt_gen_slopes, "float32")],
    ids=["fairseq", "bloom", "mpt"],
)
def test_public_slope_rules_are_the_reference_rule_for_every_head_count(
    rule: Callable[[int], Any], dtype: str
) -> None:
    scale = unit_roundoff(dtype) / unit_roundoff("float64")
    for n in range(1, 97):
        got = np.asarray(rule(n), dtype=np.float64)
        want = alibi_slopes(n)
        assert got.shape == (n,)
        assert np.max(np.abs(got / want - 1.0)) <= slope_tolerance(n) * scale, n


PASSING = {
    "fairseq get_slopes": (fairseq_get_slopes, None),
    "mpt gen_slopes": (mpt_gen_slopes, None),
    "fairseq bias (m·j + mask)": (fairseq_bias, {"causal_masked": True, "row_constant_shifted": True}),
    "bloom build_alibi_tensor": (bloom_bias, {"causal_masked": False, "row_constant_shifted": True}),
    "mpt build_alibi_bias": (mpt_build_alibi_bias, {"symmetric": False, "row_constant_shifted": True}),
    "mpt build_alibi_bias full": (mpt_full_bias, {"symmetric": True, "row_constant_shifted": False}),
    "paper −m(i − j), causal": (paper_bias, {"causal_masked": True, "row_constant_shifted": False}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PASSING))
def test_public_implementations_pass_and_are_the_reference(name: str) -> None:
    function, layout = PASSING[name]
    report = run(function)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.findings == ()
    identified = report.identified
    assert identified is not None
    assert identified.variant == "reference"
    assert identified.matches
    assert identified.parameters["rule"] == battery_alibi.REFERENCE_RULE
    assert identified.parameters["heads"] == sorted(SETTINGS.heads)
    for key, value in (layout or {}).items():
        assert identified.parameters[key] is value, (key, identified.parameters)
    if layout is not None:
        assert identified.parameters["linear_in_distance"] is True


def test_float32_bias_states_its_tolerance_in_float32() -> None:
    report = run(bloom_bias)
    assert report.identified is not None and report.identified.parameters["dtype"] == "float32"
    relative = next(o for o in report.properties if o.name == "relative")
    assert "float32" in relative.tolerance and "max|b[h, i, j]|" in relative.tolerance


def bloom_slopes_widened(num_heads: int) -> np.ndarray:
    """BLOOM's float32 slopes returned as float64, as ``build_alibi_tensor(…, dtype=torch.float64)`` does."""
    return bloom_slopes(num_heads).astype(np.float64)


def one_ulp_off(num_heads: int) -> np.ndarray:
    """The widened BLOOM slopes with the last slope one float64 ulp up: no longer a float32 number."""
    slopes = bloom_slopes_widened(num_heads)
    slopes[-1] = np.nextafter(slopes[-1], 1.0)
    return slopes


@pytest.mark.slow
def test_slopes_computed_in_float32_and_returned_in_float64_are_the_reference_computed_in_float32() -> None:
    for function in (bloom_slopes_widened, lambda n, length: bloom_bias(n, length).astype(np.float64)):
        report = run(function)  # the widened bias fails `relative` at float64: m·j was rounded in float32
        identified = report.identified
        assert identified is not None and identified.variant == "reference" and identified.matches
        assert identified.parameters["dtype"] == "float64"
        assert identified.parameters["computed_in"] == "float32"
        assert "wrong-slopes" not in labels(report)
        [low] = [f for f in report.findings if f.label == "low-precision"]
        assert "reference rule, computed in float32" in low.message
    assert run(bloom_slopes_widened).passed


def test_widened_slopes_that_are_not_float32_numbers_are_no_known_rule() -> None:
    report = run(one_ulp_off)
    identified = report.identified
    assert identified is not None and not identified.matches and "computed_in" not in identified.parameters
    assert "wrong-slopes" in labels(report) and "low-precision" not in labels(report)


def test_float32_slopes_off_by_more_than_float32_rounding_are_no_known_rule() -> None:
    report = run(lambda n: (bloom_slopes(n) * np.float32(1 + 2**-12)).astype(np.float64))
    assert report.identified is not None and not report.identified.matches
    assert "wrong-slopes" in labels(report) and "low-precision" not in labels(report)


def test_reference_slopes_exact_in_every_precision_are_not_called_low_precision() -> None:
    report = run_battery("alibi", fairseq_get_slopes, Settings(examples=10, heads=(1, 2, 4, 8)))
    assert report.identified is not None and "computed_in" not in report.identified.parameters
    assert report.findings == ()


@pytest.mark.slow
def test_layout_names_the_bloom_shift_and_the_mask() -> None:
    layouts = {
        name: run(PASSING[name][0]).identified
        for name in ("bloom build_alibi_tensor", "paper −m(i − j), causal")
    }
    bloom, paper = layouts["bloom build_alibi_tensor"], layouts["paper −m(i − j), causal"]
    assert bloom is not None and "row-constant-shifted" in bloom.parameters["layout"]
    assert paper is not None and paper.parameters["layout"].startswith("causal-masked")


def test_anything_above_the_diagonal_is_accepted() -> None:
    def nan_above(n_heads: int, seq_len: int) -> np.ndarray:
        bias = alibi_bias(seq_len, seq_len, alibi_slopes(n_heads), causal=False)
        return np.where(np.triu(np.ones((seq_len, seq_len), dtype=bool), 1), np.nan, bias)

    report = run(nan_above)
    assert report.passed
    assert report.identified is not None and report.identified.variant == "reference"
    assert report.identified.parameters["causal_masked"] is False


# ------------------------------------------------------------------------------------------ bug classes


def naive_slopes(n: int) -> np.ndarray:
    """Broken for n not a power of two: 2^(−8h/n) for every n."""
    return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)


def test_naive_slopes_are_flagged_wrong_slopes_at_a_non_power_of_two() -> None:
    report = run(naive_slopes)
    assert all(o.passed for o in report.properties)  # every property holds; the rule is what is wrong,
    assert not report.passed  # and wrong-slopes is an error
    assert report.identified is not None
    assert report.identified.variant == "naive 2^(−8h/n)"
    assert report.identified.matches
    [wrong] = [f for f in report.findings if f.label == "wrong-slopes"]
    assert "(not a power of two)" in wrong.message
    n = int(wrong.message.split("at n = ")[1].split(" ")[0])
    assert n & (n - 1) != 0


def test_naive_slopes_in_a_bias_are_flagged_too() -> None:
    report = run(lambda n, length: alibi_bias(length, length, naive_slopes(n)))
    assert all(o.passed for o in report.properties) and not report.passed
    assert report.identified is not None and report.identified.variant == "naive 2^(−8h/n)"
    assert "wrong-slopes" in labels(report)


def test_power_of_two_heads_only_cannot_tell_naive_from_reference() -> None:
    report = run_battery("alibi", naive_slopes, Settings(examples=10, heads=(1, 2, 8)))
    assert report.identified is not None and report.identified.variant == "reference"
    assert report.findings == ()


def test_increasing_slopes_fail_decreasing() -> None:
    report = run(lambda n: alibi_slopes(n)[::-1].copy())
    outcome = failed(report)["decreasing"]
    assert outcome.label == "not-decreasing"
    example = outcome.counterexample
    assert example is not None and example["next slope"] >= example["slope"]
    assert example["n_heads"] & (example["n_heads"] - 1) == 0
    assert report.identified is not None and report.identified.variant == "reversed order"
    assert {"not-decreasing", "wrong-slopes"} <= labels(report)


def test_increasing_slopes_in_a_bias_fail_decreasing() -> None:
    report = run(lambda n, length: alibi_bias(length, length, alibi_slopes(n)[::-1].copy()))
    assert set(failed(report)) == {"decreasing"}
    assert failed(report)["decreasing"].label == "not-decreasing"


def test_slopes_reaching_zero_fail_positive() -> None:
    report = run(lambda n: 1.0 - np.arange(1, n + 1) / n)  # linear slopes 1 − h/n: the last head gets 0
    outcome = failed(report)["positive"]
    assert outcome.label == "not-positive"
    assert outcome.counterexample is not None and outcome.counterexample["slope"] <= 0
    assert outcome.counterexample["n_heads"] == SMALLEST_HEADS  # shrunk to the smallest head count


@pytest.mark.slow
def test_positive_bias_fails_bias_sign() -> None:
    report = run(lambda n, length: -alibi_bias(length, length, alibi_slopes(n), causal=False))  # +m(i − j)
    outcome = failed(report)["penalises-distance"]
    assert outcome.label == "bias-sign"
    example = outcome.counterexample
    assert example is not None
    assert example["b[i, j] − b[i, i]"] > example["tolerance"]
    assert (example["n_heads"], example["seq_len"]) == (SMALLEST_HEADS, 2)  # shrunk
    assert "bias-sign" in labels(report)
    assert report.identified is not None and not report.identified.matches


@pytest.mark.slow
def test_bias_minus_m_j_without_the_row_constant_rewards_distance() -> None:
    def minus_m_j(n_heads: int, seq_len: int) -> np.ndarray:
        slopes = alibi_slopes(n_heads)
        return np.broadcast_to(-slopes[:, None, None] * np.arange(seq_len), (n_heads, seq_len, seq_len))

    report = run(minus_m_j)
    assert failed(report)["penalises-distance"].label == "bias-sign"
    assert "relative" not in failed(report)  # it is relative: the row shift is not the problem, the sign is
    assert report.identified is not None
    assert report.identified.variant == "matches no known variant"
    assert report.identified.parameters["row_constant_shifted"] is True


def test_bias_sign_finding_of_identification_names_the_negated_rule() -> None:
    adapter = battery_alibi.adapt(
        lambda n, length: -alibi_bias(length, length, alibi_slopes(n), causal=False),
        "bias",
        Backend(),
        SETTINGS,
    )
    identified, findings = battery_alibi.identify(adapter, SETTINGS)
    assert identified is not None and identified.variant == "matches no known variant"
    [sign] = findings
    assert sign.label == "bias-sign" and "the negated slopes follow the reference rule" in sign.message


@pytest.mark.slow
def test_bias_depending_on_the_query_fails_relative() -> None:
    def scaled_by_query(n_heads: int, seq_len: int) -> np.ndarray:
        i = np.arange(seq_len)[:, None]
        return alibi_bias(seq_len, seq_len, alibi_slopes(n_heads)) * (i + 1)  # −m(i − j)(i + 1)

    report = run(scaled_by_query)
    assert set(failed(report)) == {"relative"}
    outcome = failed(report)["relative"]
    assert outcome.label == "not-relative"
    example = outcome.counterexample
    assert example is not None
    gap = abs(example["b[i+1, j+1] − b[i+1, i+1]"] - example["b[i, j] − b[i, i]"])
    assert gap > example["tolerance"]
    assert (example["n_heads"], example["seq_len"]) == (SMALLEST_HEADS, 3)  # shrunk


def test_wrapping_distance_fails_monotone() -> None:
    def wrapped(n_heads: int, seq_len: int) -> np.ndarray:
        distance = (np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]) % 4  # a 2-bit distance
        return -alibi_slopes(n_heads)[:, None, None] * distance

    report = run(wrapped)
    outcome = failed(report)["monotone"]
    assert outcome.label == "not-monotone"
    example = outcome.counterexample
    assert example is not None and example["b[i, j] − b[i, i]"] > example["b[i, j+1] − b[i, i]"]
    assert "penalises-distance" not in failed(report)  # ≤ 0 everywhere: only the monotony breaks


@pytest.mark.slow
def test_nondeterministic_slopes_and_bias_fail_deterministic() -> None:
    calls = itertools.count()

    def jittered_slopes(n: int) -> np.ndarray:
        return alibi_slopes(n) * (1.0 + 1e-3 * next(calls))

    def drifting_bias(n_heads: int, seq_len: int) -> np.ndarray:
        return alibi_bias(seq_len, seq_len, alibi_slopes(n_heads)) + next(
            calls
        )  # a shift the softmax ignores

    for function in (jittered_slopes, drifting_bias):
        report = run(function)
        assert set(failed(report)) == {"deterministic"}
        outcome = failed(report)["deterministic"]
        assert outcome.label == "nondeterministic"
        example = outcome.counterexample
        assert example is not None and example["first call"] != example["second call"]


# ------------------------------------------------------------------------------------------ contract


def test_nan_slope_is_not_finite() -> None:
    report = run(lambda n: np.where(np.arange(n) == n - 1, np.nan, alibi_slopes(n)))
    assert "not-finite" in labels(report)
    outcome = failed(report)["shape"]
    assert outcome.label == "not-finite" and "nan" in outcome.counterexample["message"]


@pytest.mark.slow
def test_nan_on_the_visible_part_of_a_bias_is_not_finite() -> None:
    def mask_by_product(n_heads: int, seq_len: int) -> np.ndarray:
        future = np.triu(np.ones((seq_len, seq_len)), 1)
        with np.errstate(invalid="ignore"):
            mask = -np.inf * future  # 0 · inf = NaN where the keys are visible
        return alibi_bias(seq_len, seq_len, alibi_slopes(n_heads), causal=False) + mask

    report = run(mask_by_product)
    assert "not-finite" in labels(report)
    assert all(o.label == "not-finite" for o in failed(report).values())


def test_raising_is_raises() -> None:
    def broken(n: int) -> np.ndarray:
        raise RuntimeError("no slopes today")

    report = run(broken)
    assert not report.passed and "raises" in labels(report)
    assert "no slopes today" in failed(report)["contract at n_heads=1"].counterexample["message"]
    assert "not run" in failed(report)["shape"].message and report.identified is None


def test_a_head_count_that_raises_fails_alone_and_the_others_are_identified() -> None:
    report = run(powers_of_two_only)
    assert list(failed(report)) == ["contract at n_heads=3", "contract at n_heads=12"]
    assert "n_heads = 3 is not a power of two" in failed(report)["contract at n_heads=3"].message
    assert report.identified is not None and report.identified.variant == "reference"
    assert report.identified.parameters["heads"] == [1, 2, 4, 8]


@pytest.mark.slow
@pytest.mark.parametrize(
    "function",
    [lambda n: mpt_gen_slopes(n).reshape(1, n, 1, 1), lambda n, length: bloom_raw(n, length)[:, 0, :]],
    ids=["mpt (1, n, 1, 1) view", "bloom (heads, L)"],
)
def test_wrong_shape_is_wrong_shape(function: Callable[..., Any]) -> None:
    report = run(function)
    outcome = failed(report)[f"contract at n_heads={SMALLEST_HEADS}"]  # at every head count
    assert outcome.label == "wrong-shape" and "expected" in outcome.counterexample["message"]
    assert labels(report) == {"wrong-shape"}


def test_a_bias_from_a_buffer_too_short_fails_shape_beyond_it() -> None:
    outcome = failed(run(buffered_bias))["shape"]
    assert outcome.label == "wrong-shape" and outcome.counterexample["message"].startswith("bias(")


LONG = Settings(examples=5, max_pos=4096, heads=(1, 2, 3))


@pytest.mark.parametrize("function", [bloom_raw, bloom_raw_batched], ids=["(n, 1, L)", "(1, n, 1, L)"])
def test_one_row_per_head_is_a_bias_and_is_checked_at_long_lengths(function: Callable[..., Any]) -> None:
    report = run_battery("alibi", function, LONG)
    assert report.passed and report.findings == (), [o.message for o in report.properties]
    relative = next(o for o in report.properties if o.name == "relative")
    assert relative.budget.startswith("2 fixed probes")
    identified = report.identified
    assert identified is not None and identified.variant == "reference"
    assert identified.parameters["row_per_head"] is True
    assert identified.parameters["layout"].startswith("one row per head")


def test_positions_held_in_bfloat16_fail_relative_beyond_256() -> None:
    outcome = failed(run_battery("alibi", bfloat16_positions, LONG))["relative"]
    assert outcome.label == "not-relative" and outcome.counterexample["seq_len"] == 300
    assert outcome.counterexample["i"] == 256


@pytest.mark.parametrize("function", [lambda: alibi_slopes(8), lambda n, q, k: paper_bias(n, q)])
def test_wrong_arity_is_a_usage_error(function: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match="required parameters"):
        run(function)


def test_every_property_has_a_failing_twin_above() -> None:
    names = {p.name for p in properties_of("alibi")}
    assert names == {
        "shape",
        "positive",
        "decreasing",
        "relative",
        "penalises-distance",
        "monotone",
        "deterministic",
    }


def test_slopes_form_leaves_out_the_bias_properties() -> None:
    report = run(fairseq_get_slopes)
    assert {o.name for o in report.properties} == {"shape", "positive", "decreasing", "deterministic"}
