"""The `sinusoidal` battery of `pe-verify check` on a regression corpus of numpy re-expressions.

* Public implementations that must pass every property and be identified: Vaswani et al. / Hugging Face
  (interleaved, base 10000), tensor2tensor ``get_timing_signal_1d`` ([sin | cos], exponent −2i/(d−2)),
  fairseq ``SinusoidalPositionalEmbedding`` (the same, positions from padding_idx + 1), the PyTorch-tutorial
  table in float32 at positions up to 65536, a cos-first layout and a base other than the declared one.
* Each property fed a broken implementation (its twin) that must fail it with a concrete counterexample.
* The bug classes with their labels: exponent by dimension (attention-is-all-you-need-pytorch #32), positions
  in float16 / bfloat16, a clamped table, noise, NaN, raising, wrong shape, odd d, and a wrong arity.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest
from implementations.sinusoidal import (
    TABLE,
    by_dimension,
    clamped,
    fairseq,
    fairseq_table,
    float16_positions,
    noisy,
    tensor2tensor,
    tutorial_float32,
    unpadded,
    vaswani,
)

from pe_verify.properties.battery import (
    Outcome,
    Report,
    Settings,
    identification,
    prepare,
    properties_of,
    run_battery,
)
from pe_verify.properties.battery.families.sinusoidal import FAMILY_NAME, ODD_D

SMALL = Settings(examples=10, max_pos=4096, ds=(8, 64))


# ------------------------------------------------------------------------ public implementations


def cos_first(positions: np.ndarray, d: int) -> np.ndarray:
    """cos at the even dims, sin at the odd ones."""
    pe = vaswani(positions, d)
    return np.stack([pe[:, 1::2], pe[:, 0::2]], axis=-1).reshape(len(positions), d)


def base_500000(positions: np.ndarray, d: int) -> np.ndarray:
    """Vaswani's formula with base 500000 (the battery declares 10000)."""
    angle = positions[:, None] / np.power(500000, 2 * (np.arange(d) // 2) / d)
    pe = np.empty_like(angle)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])
    return pe


# ------------------------------------------------------------------------------------- bug classes


def bfloat16_positions(positions: np.ndarray, d: int) -> np.ndarray:
    return vaswani(positions.astype(ml_dtypes.bfloat16).astype(np.float64), d)


def nan_at_777(positions: np.ndarray, d: int) -> np.ndarray:
    pe = vaswani(positions, d)
    pe[positions == 777] = np.nan
    return pe


def raises_beyond_table(positions: np.ndarray, d: int) -> np.ndarray:
    if positions.max() >= TABLE:
        raise IndexError("index out of range in self")
    return vaswani(positions, d)


def batched(positions: np.ndarray, d: int) -> np.ndarray:
    """Shape [1, n, d] instead of [n, d]."""
    return vaswani(positions, d)[None]


def wrapped(positions: np.ndarray, d: int) -> np.ndarray:
    """A table of 3000 rows indexed modulo its length."""
    return vaswani(positions % 3000, d)


# ----------------------------------------------------------------------------------------- helpers


def check(function: Callable, settings: Settings = SMALL) -> Report:
    return run_battery(FAMILY_NAME, function, settings)


def labels(report: Report) -> set[str]:
    return {f.label for f in report.findings}


def outcome(report: Report, name: str) -> Outcome:
    return next(o for o in report.properties if o.name == name)


def first_collision(dtype: type) -> int:
    """The first integer p whose successor rounds onto it in `dtype` (computed, not typed in)."""
    return next(p for p in range(1, 2**16) if np.asarray(p + 1).astype(dtype) == np.asarray(p).astype(dtype))


# ------------------------------------------------------------------------------------------- tests


def test_every_property_is_registered() -> None:
    names = [p.name for p in properties_of(FAMILY_NAME)]
    assert names == [
        "deterministic",
        "dot-relative",
        "distance-relative",
        "constant-norm",
        "fixed-rotation",
        "distinct-rows",
        "odd-d",
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "parameters", "expected_labels"),
    [
        (
            vaswani,
            {
                "layout": "interleaved",
                "sin_first": True,
                "exponent": "2i/d",
                "base": 10000.0,
                "position_offset": 0,
            },
            {"interleaved-layout"},
        ),
        (
            tensor2tensor,
            {
                "layout": "concatenated",
                "sin_first": True,
                "exponent": "2i/(d-2)",
                "base": 10000.0,
                "position_offset": 0,
            },
            {"concatenated-layout", "exponent-d-2"},
        ),
        (
            fairseq,
            {"layout": "concatenated", "exponent": "2i/(d-2)", "base": 10000.0, "position_offset": 2},
            {"concatenated-layout", "exponent-d-2", "position-offset"},
        ),
        (
            cos_first,
            {"layout": "interleaved", "sin_first": False, "exponent": "2i/d", "position_offset": 0},
            {"interleaved-layout", "sin-cos-swapped"},
        ),
        (
            base_500000,
            {"layout": "interleaved", "exponent": "2i/d", "base": 500000.0},
            {"interleaved-layout", "wrong-base"},
        ),
    ],
    ids=["vaswani-hf", "tensor2tensor", "fairseq", "cos-first", "base-500000"],
)
def test_public_implementations_pass_and_are_identified(
    function: Callable, parameters: dict, expected_labels: set[str]
) -> None:
    report = check(function)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified is not None and report.identified.matches
    assert report.identified.parameters.items() >= parameters.items()
    assert report.identified.parameters["positions_dtype"] is None
    assert expected_labels <= labels(report)
    conventions = {
        "interleaved-layout",
        "concatenated-layout",
        "sin-cos-swapped",
        "exponent-d-2",
        "position-offset",
        "wrong-base",
        "wrong-exponent",
        "low-precision",
    }
    assert labels(report) & conventions == expected_labels


@pytest.mark.slow
def test_float32_table_passes_with_float32_tolerance_up_to_65536() -> None:
    settings = Settings(examples=20)  # the default max_pos (65536) and the family's default ds
    report = check(tutorial_float32, settings)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified is not None and report.identified.matches
    assert report.identified.parameters["d"] == [512, 128, 64, 8]
    assert report.identified.max_abs_deviation > 1e-6  # float32 error, inside the float32 tolerance
    tolerance = outcome(report, "dot-relative").tolerance
    assert "2·u·(2.4·p + 2)" in tolerance and "float32" in tolerance and f"{2.0**-24:.3g}" in tolerance


def tutorial_widened(positions: np.ndarray, d: int) -> np.ndarray:
    """The float32 tutorial table returned as float64 (``pe.double()``)."""
    return tutorial_float32(positions, d).astype(np.float64)


def identified_only(function: Callable, settings: Settings = SMALL):
    """The identification of `function` and its findings, without the properties."""
    return identification(prepare(FAMILY_NAME, function, settings))


def test_a_float32_table_returned_as_float64_is_the_variant_computed_in_float32() -> None:
    identified, found = identified_only(tutorial_widened)
    assert identified is not None and identified.matches
    assert identified.variant == "interleaved, sin at even dims, ω = 10000^(−2i/d)"
    assert identified.parameters["computed_in"] == "float32"
    [low] = [f for f in found if f.label == "low-precision"]
    assert "computed in float32" in low.message and "returned as float64" in low.message


def test_a_widened_table_one_float64_ulp_off_at_one_entry_matches_no_known_variant() -> None:
    def one_ulp_off(positions: np.ndarray, d: int) -> np.ndarray:
        table = tutorial_widened(positions, d)
        table[positions == 1, 0] = np.nextafter(table[positions == 1, 0], 2.0)
        return table

    identified, found = identified_only(one_ulp_off)
    assert identified is not None and not identified.matches
    assert "computed_in" not in identified.parameters
    assert "low-precision" not in {f.label for f in found}


def test_a_float64_table_is_not_called_computed_in_a_narrower_precision() -> None:
    identified, _ = identified_only(vaswani)
    assert identified is not None and identified.matches and "computed_in" not in identified.parameters


@pytest.mark.slow
def test_the_declared_base_is_sought_with_either_exponent_at_every_d() -> None:
    """[cos | sin] with exponent −2i/(d−2) and base 500000: as −2i/d its base would change with d."""

    def concatenated_500000(positions: np.ndarray, d: int) -> np.ndarray:
        scaled = positions[:, None] * np.exp(np.arange(d // 2) * -(math.log(500000.0) / (d // 2 - 1)))
        return np.pad(np.concatenate([np.cos(scaled), np.sin(scaled)], axis=1), [[0, 0], [0, d % 2]])

    report = check(concatenated_500000, Settings(examples=5, max_pos=4096, ds=(8, 64, 512)))
    assert report.passed
    assert report.identified is not None and report.identified.matches
    assert report.identified.parameters["exponent"] == "2i/(d-2)"
    assert report.identified.parameters["base"] == 500000.0
    assert {"concatenated-layout", "sin-cos-swapped", "exponent-d-2", "wrong-base"} <= labels(report)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "function", "label", "keys"),
    [
        ("deterministic", noisy, "nondeterministic", {"d", "positions", "position", "dim", "first call"}),
        (
            "dot-relative",
            by_dimension,
            "not-relative",
            {"d", "p", "q", "t", "PE(p)·PE(q)", "PE(p+t)·PE(q+t)"},
        ),
        ("distance-relative", float16_positions, "not-relative", {"d", "p", "q", "t", "difference"}),
        ("constant-norm", fairseq_table, "not-constant-norm", {"d", "p", "‖PE(0)‖", "‖PE(p)‖"}),
        ("fixed-rotation", by_dimension, "not-relative", {"d", "p", "k", "dims (cos, sin)"}),
        ("fixed-rotation", float16_positions, "not-relative", {"d", "p", "k", "M_k·PE(p)[dims]"}),
        ("distinct-rows", clamped, "duplicate-rows", {"d", "p1", "p2", "PE(p1)[:4]", "PE(p2)[:4]"}),
        ("odd-d", unpadded, "wrong-shape", {"label", "message"}),
    ],
)
def test_each_property_fails_on_its_broken_twin(name: str, function: Callable, label: str, keys: set) -> None:
    report = check(function)
    failed = outcome(report, name)
    assert not failed.passed and failed.label == label
    assert failed.counterexample is not None and keys <= failed.counterexample.keys()
    assert label in labels(report)
    assert not report.passed


@pytest.mark.slow
def test_exponent_by_dimension_index_is_wrong_exponent() -> None:
    report = check(by_dimension)
    assert report.identified is not None and report.identified.parameters["exponent"] == "2j/d"
    assert "wrong-exponent" in labels(report)
    found = outcome(report, "dot-relative").counterexample or {}
    assert abs(found["PE(p)·PE(q)"] - found["PE(p+t)·PE(q+t)"]) > found["tolerance"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "dtype"), [(float16_positions, np.float16), (bfloat16_positions, ml_dtypes.bfloat16)]
)
def test_positions_in_a_narrow_dtype_give_duplicate_rows(function: Callable, dtype: type) -> None:
    report = check(function)
    p = first_collision(dtype)
    duplicate = outcome(report, "distinct-rows").counterexample or {}
    assert (duplicate["p1"], duplicate["p2"]) == (p, p + 1)
    assert duplicate["PE(p1)[:4]"] == duplicate["PE(p2)[:4]"]
    assert {"low-precision", "duplicate-rows", "not-relative"} <= labels(report)
    assert (
        report.identified is not None
        and report.identified.parameters["positions_dtype"] == np.dtype(dtype).name
    )


def test_float16_positions_beyond_its_range_are_not_finite_yet_identified() -> None:
    report = check(float16_positions, Settings(examples=10, ds=(8, 64)))  # 65520 and up become inf
    assert "not-finite" in labels(report) and "low-precision" in labels(report)
    assert report.identified is not None and report.identified.parameters["positions_dtype"] == "float16"
    assert report.identified.parameters["unusable_positions"]


def test_a_clamped_table_repeats_its_last_row() -> None:
    report = check(clamped)
    duplicate = outcome(report, "distinct-rows").counterexample or {}
    assert (duplicate["p1"], duplicate["p2"]) == (TABLE - 1, TABLE)
    assert duplicate["repeated rows"] == SMALL.max_pos - TABLE
    assert "low-precision" not in labels(report)  # not the pattern of a narrow dtype
    assert report.identified is not None and report.identified.variant == "matches no known variant"


@pytest.mark.slow
def test_hypothesis_finds_and_shrinks_what_the_probes_miss() -> None:
    """Rows indexed modulo 3000: the probes' pairs of neighbours never straddle the wrap."""
    report = check(wrapped, dataclasses.replace(SMALL, examples=40))
    found = outcome(report, "dot-relative").counterexample or {}
    positions = [found["p"], found["q"], found["p"] + found["t"], found["q"] + found["t"]]
    assert found["t"] != 0 and any(p >= 3000 for p in positions)
    assert (outcome(report, "distinct-rows").counterexample or {})["p2"] == 3000


def test_noise_is_nondeterministic_and_identifies_nothing() -> None:
    report = check(noisy)
    assert "nondeterministic" in labels(report)
    found = outcome(report, "deterministic").counterexample or {}
    assert found["first call"] != found["second call"]
    assert report.identified is not None and not report.identified.matches


def test_nan_is_not_finite_with_its_position() -> None:
    report = check(nan_at_777)
    failed = outcome(report, "distinct-rows")
    assert failed.label == "not-finite" and "position 777" in (failed.counterexample or {})["message"]
    assert "not-finite" in labels(report)


def test_raising_for_large_positions_is_raises() -> None:
    report = check(raises_beyond_table)
    assert {o.label for o in report.properties if not o.passed} == {"raises"}
    assert "IndexError" in (outcome(report, "deterministic").counterexample or {})["message"]
    assert outcome(report, "odd-d").passed


def test_wrong_shape_is_wrong_shape() -> None:
    report = check(batched)
    assert all(not o.passed and o.label == "wrong-shape" for o in report.properties)
    assert report.identified is None and labels(report) == {"wrong-shape"}


@pytest.mark.slow
def test_odd_d_rejected_is_a_finding_not_a_failure() -> None:
    def even_only(positions: np.ndarray, d: int) -> np.ndarray:
        if d % 2:
            raise ValueError(f"d must be even, got {d}")
        return vaswani(positions, d)

    report = check(even_only)
    assert report.passed
    odd = next(f for f in report.findings if f.label == "odd-d")
    assert "rejected" in odd.message and f"d must be even, got {ODD_D}" in odd.message


@pytest.mark.slow
def test_odd_d_accepted_with_its_shape() -> None:
    report = check(tensor2tensor)
    odd = next(f for f in report.findings if f.label == "odd-d")
    assert f"shape (4, {ODD_D})" in odd.message


def test_garbage_matches_no_known_variant() -> None:
    def garbage(positions: np.ndarray, d: int) -> np.ndarray:
        return np.sin(positions[:, None] * 1.7 + np.arange(d) ** 2 * 0.37)

    report = check(garbage)
    assert not report.passed
    assert report.identified is not None and report.identified.variant == "matches no known variant"
    assert "closest" in report.identified.parameters


@pytest.mark.parametrize("function", [lambda positions: positions, lambda positions, d, base: positions])
def test_wrong_arity_is_a_usage_error(function: Callable) -> None:
    with pytest.raises(ValueError, match="required parameters"):
        check(function)
