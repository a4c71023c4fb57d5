"""`claims.evidence.from_battery`: evidence from `pe-verify check` holds only when every property holds
and the code is identified as expected; otherwise it names what failed."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

from pe_verify.claims.evidence import from_battery
from pe_verify.claims.model import HYPOTHESIS
from pe_verify.properties.battery import Finding, Settings, run_battery
from pe_verify.properties.encodings.rope import apply_rope

SETTINGS = Settings(examples=10, ds=(8,), max_pos=4096)


def half_split(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    return apply_rope(x, positions, layout="half_split")


def test_a_passing_battery_of_the_expected_variant_holds() -> None:
    evidence = from_battery(run_battery("rope", half_split, SETTINGS), "the module", "half_split")
    assert evidence.holds and evidence.kind == HYPOTHESIS
    detail = dict(evidence.detail)
    assert detail["properties"].endswith(": all hold") and detail["findings"] == "half-split-layout"
    # entries against the rotation by the θ_i read off the angles: float64 rounding of the angles read
    assert dict(evidence.measured)["largest deviation"] <= 1e-12


@pytest.mark.slow
def test_another_variant_than_expected_does_not_hold() -> None:
    evidence = from_battery(run_battery("rope", half_split, SETTINGS), "the module", "interleaved")
    assert not evidence.holds
    assert (
        "expect interleaved: fails at expected=interleaved, identified=rope half_split"
        in dict(evidence.detail)["properties"]
    )


def test_a_failing_property_does_not_hold_and_is_named() -> None:
    def bf16(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return half_split(x, positions.astype(ml_dtypes.bfloat16).astype(np.float64))

    evidence = from_battery(run_battery("rope", bf16, SETTINGS), "the module", "half_split")
    assert not evidence.holds and "relative: fails at" in dict(evidence.detail)["properties"]


def test_an_error_finding_with_every_property_holding_does_not_hold() -> None:
    report = run_battery("rope", half_split, SETTINGS)
    assert from_battery(report, "the module", "half_split").holds
    stateful = Finding("stateful", "the result depends on earlier calls")
    evidence = from_battery(dataclasses.replace(report, findings=(stateful,)), "the module", "half_split")
    detail = dict(evidence.detail)
    assert not evidence.holds and detail["properties"].endswith(": all hold")
    assert detail["findings"] == "stateful"
