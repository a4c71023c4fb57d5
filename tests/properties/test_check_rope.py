"""The RoPE battery on a corpus: the common public implementations pass and are identified; each bug class
fails or is flagged with its label and a concrete counterexample.

The implementations are numpy re-expressions written here, independently of `properties/encodings/rope.py`:
Hugging Face's ``rotate_half`` with a cos/sin cache, Meta's complex interleaved multiply, GPT-NeoX's partial
rotary, and the shipped bugs (positions cast to bfloat16 or float16, q and k in different layouts).
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
from implementations.rope import hf_rotate_half, meta_complex

from pe_verify.properties.battery import Backend, Report, Settings, properties_of, run_battery
from pe_verify.properties.battery.families import rope as battery_rope

SETTINGS = Settings(examples=10, max_pos=65536)


def neox_partial(x: np.ndarray, positions: np.ndarray, rotary_pct: float = 0.25) -> np.ndarray:
    """GPT-NeoX: rotate the first int(d·rotary_pct) dims half-split, pass the rest through."""
    r = int(x.shape[-1] * rotary_pct)
    return np.concatenate([hf_rotate_half(x[:, :r], positions), x[:, r:]], axis=-1)


def run(function, settings: Settings = SETTINGS) -> Report:
    return run_battery("rope", function, settings, target=getattr(function, "__name__", "f"))


def labels(report: Report) -> set[str]:
    return {f.label for f in report.findings}


def failed(report: Report) -> dict[str, dict]:
    return {o.name: o.counterexample for o in report.properties if not o.passed}


# ------------------------------------------------------------------------------- correct implementations


@pytest.mark.slow
def test_hugging_face_rotate_half_passes_and_is_half_split() -> None:
    report = run(hf_rotate_half)
    assert report.passed, failed(report)
    assert report.identified.variant == "rope half_split" and report.identified.matches
    assert report.identified.parameters["base"] == 10000.0
    assert "half-split-layout" in labels(report) and "wrong-base" not in labels(report)


@pytest.mark.slow
def test_meta_complex_interleaved_passes_and_is_interleaved() -> None:
    report = run(meta_complex)
    assert report.passed, failed(report)
    assert report.identified.parameters["layout"] == "interleaved" and "interleaved-layout" in labels(report)


@pytest.mark.slow
def test_gpt_neox_partial_rotary_is_named() -> None:
    report = run(neox_partial, Settings(examples=25, max_pos=65536, ds=(64, 128)))
    assert report.passed, failed(report)
    assert report.identified.parameters["rotary_fraction"] == 0.25 and "partial-rotary" in labels(report)


@pytest.mark.slow
def test_float32_rope_at_position_65535_is_not_a_bug() -> None:
    report = run(lambda x, positions: hf_rotate_half(x, positions, dtype=np.float32))
    assert report.passed, failed(report)
    assert report.identified.matches and "low-precision" not in labels(report)
    assert "float32" in next(o.tolerance for o in report.properties if o.name == "relative")


@pytest.mark.slow
def test_conventions_are_findings_not_failures() -> None:
    for function, label in [
        (lambda x, positions: hf_rotate_half(x, positions, base=500000.0), "wrong-base"),
        (lambda x, positions: hf_rotate_half(x, positions + 1), "position-offset"),
        (lambda x, positions: hf_rotate_half(x, -positions), "reversed-rotation"),
        (lambda x, positions: hf_rotate_half(x, positions / 4), "scaling-linear"),
    ]:
        report = run(function)
        assert report.passed, (label, failed(report))
        assert label in labels(report) and report.identified.matches, label


@pytest.mark.slow
def test_the_apply_form_with_one_layout_passes() -> None:
    report = run(lambda q, k, positions: (hf_rotate_half(q, positions), hf_rotate_half(k, positions)))
    assert report.passed and "mixed-layout" not in labels(report)


# ---------------------------------------------------------------------------------------------- bugs


def test_positions_in_bfloat16_collide_at_256_gpt_neox_1016() -> None:
    def bf16_positions(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return hf_rotate_half(x, positions.astype(ml_dtypes.bfloat16).astype(np.float64))

    report = run(bf16_positions)
    assert not report.passed
    counterexample = failed(report)["relative"]
    assert {counterexample["m2"], counterexample["n2"]} == {256, 257}
    held = "positions 256 and 257 rotate alike, as when positions are held in bfloat16 (no odd integer above "
    held += "256 is)"
    assert held in {f.message.split(": ")[-1] for f in report.findings}


@pytest.mark.slow
def test_positions_in_float16_megatron_535() -> None:
    report = run(lambda x, positions: hf_rotate_half(x, positions.astype(np.float16).astype(np.float64)))
    assert not report.passed and "low-precision" in labels(report)


def test_q_and_k_in_different_layouts_transformers_25199() -> None:
    def mixed(q: np.ndarray, k: np.ndarray, positions: np.ndarray):
        return meta_complex(q, positions), hf_rotate_half(k, positions)

    report = run(mixed)
    assert "relative" in failed(report) and "mixed-layout" in labels(report)


@pytest.mark.slow
def test_query_positions_shifted_against_keys() -> None:
    report = run(lambda q, k, positions: (hf_rotate_half(q, positions + 1), hf_rotate_half(k, positions)))
    assert "equal-positions" in failed(report) and "position-offset" in labels(report)


@pytest.mark.slow
def test_exponent_of_the_dimension_index_is_named() -> None:
    def by_dimension(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return hf_rotate_half(x, positions, base=100.0)  # 10000^(−2i/d) with i counted over dims: √10000

    assert "wrong-exponent" in labels(run(by_dimension))


def test_an_amplitude_that_changes_with_the_position_fails() -> None:
    def growing(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return (1.0 + 1e-3 * (positions[:, None] > 0)) * meta_complex(x, positions)

    report = run(growing)
    assert {"norm", "equal-positions"} <= set(failed(report)) and "not-norm-preserving" in labels(report)


def test_an_amplitude_that_differs_per_pair_fails_norm() -> None:
    def uneven(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return meta_complex(x, positions) * np.where(np.arange(x.shape[1]) < 2, 1.001, 1.0)

    report = run(uneven, dataclasses.replace(SETTINGS, ds=(8,)))
    counterexample = failed(report)["norm"]
    assert counterexample["message"] == "the amplitude differs between rotating dims"
    assert counterexample["dim"] in (0, 1) and "not-norm-preserving" in labels(report)


def test_one_constant_amplitude_is_an_attention_factor_not_a_failure() -> None:
    report = run(
        lambda x, positions: 1.001 * meta_complex(x, positions), dataclasses.replace(SETTINGS, ds=(8,))
    )
    assert report.passed, failed(report)
    assert report.identified.matches and report.identified.parameters["attention_factor"] == 1.001
    assert "attention-factor" in labels(report)


@pytest.mark.slow
def test_a_nonlinear_rotation_fails() -> None:
    def normalised(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(x, axis=-1, keepdims=True)
        return meta_complex(x / np.where(norms == 0, 1, norms), positions)

    report = run(normalised)
    assert "linear" in failed(report) and "not-linear" in labels(report)


@pytest.mark.slow
def test_ignoring_the_positions_for_the_row_index_fails() -> None:
    report = run(lambda x, positions: meta_complex(x, np.arange(len(x))))
    assert "batch" in failed(report) and "not-batch-consistent" in labels(report)


def test_noise_between_calls_fails() -> None:
    generator = np.random.default_rng(0)
    report = run(lambda x, positions: meta_complex(x, positions) + 1e-9 * generator.standard_normal(x.shape))
    assert failed(report)["deterministic"] is not None and "nondeterministic" in labels(report)


def widened_float32(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The rotation computed in float32 and returned as float64."""
    return hf_rotate_half(x, positions, dtype=np.float32).astype(np.float64)


@pytest.mark.slow
def test_float32_work_in_a_float64_result_is_low_precision() -> None:
    report = run(widened_float32)
    assert "relative" in failed(report) and "low-precision" in labels(report)


def test_float32_work_in_a_float64_result_is_the_rotation_computed_in_float32() -> None:
    adapter = battery_rope.adapt(widened_float32, "rotate", Backend(), SETTINGS)
    identified, found = battery_rope.identify(adapter, dataclasses.replace(SETTINGS, ds=(64,)))
    assert identified is not None and identified.matches and identified.variant == "rope half_split"
    assert identified.parameters["computed_in"] == "float32"
    assert any(f.label == "low-precision" and "computed in float32" in f.message for f in found)


def test_a_widened_rotation_one_float64_ulp_off_is_not_the_rotation_computed_in_float32() -> None:
    def one_ulp_off(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        rotated = widened_float32(x, positions)
        return np.nextafter(rotated, np.inf)

    adapter = battery_rope.adapt(one_ulp_off, "rotate", Backend(), SETTINGS)
    identified, _ = battery_rope.identify(adapter, dataclasses.replace(SETTINGS, ds=(64,)))
    assert identified is not None and not identified.matches
    assert "computed_in" not in identified.parameters


@pytest.mark.parametrize(
    ("function", "label"),
    [
        (lambda x, positions: meta_complex(x, positions)[:, :-1], "wrong-shape"),
        (
            lambda x, positions: np.where(positions[:, None] >= 0, np.nan, meta_complex(x, positions)),
            "not-finite",
        ),
        (lambda x, positions: 1 / 0, "raises"),
        (lambda q, k, positions: q, "wrong-shape"),
    ],
)
def test_contract_failures_are_labelled(function, label: str) -> None:
    report = run(function)
    assert not report.passed and label in labels(report)


def test_a_function_of_the_wrong_arity_is_a_usage_error() -> None:
    with pytest.raises(ValueError, match="must fit one of the conventions rotate, apply, cos-sin"):
        run(lambda x: x)
    with pytest.raises(ValueError, match="d must be even"):
        run(meta_complex, Settings(ds=(7,)))


def test_every_property_of_the_family_is_registered_once() -> None:
    names = [p.name for p in properties_of("rope")]
    assert names == ["stateless", "relative", "equal-positions", "norm", "linear", "batch", "deterministic"]
