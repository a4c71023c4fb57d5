"""One root cause for a failing check (`battery.root_cause`): the defect that explains the other failures is
named with its evidence, and the symptoms are listed under it. Each of a newcomer's bugs
(`implementations.rope_newcomer`, the naive ALiBi slopes) gives its own cause and fails the check (exit 1);
correct code, and a narrow precision that breaks nothing, give none."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from implementations import rope, rope_newcomer

from pe_verify import cli
from pe_verify.properties.battery import (
    UNIDENTIFIED,
    Backend,
    Cause,
    Finding,
    Identification,
    Outcome,
    Settings,
    root_cause,
    run_battery,
)

SETTINGS = Settings(ds=(8, 64), examples=10)


@pytest.mark.parametrize(
    ("implementation", "cause", "explained"),
    [
        (rope_newcomer.interleaved_table_rotate_half, "layout-mismatch", "norm (not-norm-preserving)"),
        (rope_newcomer.half_table_rotate_every_two, "layout-mismatch", "relative (not-relative)"),
        (rope_newcomer.integer_division, "equal-frequencies", "identification: unidentified"),
        (rope_newcomer.constant, "equal-frequencies", "identification: unidentified"),
        (rope_newcomer.bfloat16_cache, "low-precision", "norm (not-norm-preserving)"),
        (rope_newcomer.make_kept_dynamic_ntk, "stateful", "batch (not-batch-consistent)"),
    ],
)
def test_each_newcomer_bug_fails_with_one_root_cause(
    implementation: Callable, cause: str, explained: str
) -> None:
    report = run_battery("rope", implementation, SETTINGS)
    assert not report.passed
    assert report.cause is not None and report.cause.finding.label == cause
    assert explained in report.cause.explains and not report.cause.unexplained


def test_the_layout_mismatch_names_both_layouts_and_a_pair_that_turns_two_ways() -> None:
    report = run_battery("rope", rope_newcomer.interleaved_table_rotate_half, SETTINGS)
    message = report.cause.finding.message
    assert "pairs rotate as half_split" in message and "laid out interleaved" in message
    assert "dims 0 and 32 at 1.0 and 0.01 rad per position (d = 64" in message


def test_a_bfloat16_cache_is_told_from_a_bfloat16_result() -> None:
    report = run_battery("rope", rope_newcomer.bfloat16_cache, SETTINGS)
    assert (
        report.identified.matches and report.identified.parameters["computed_in"] == "bfloat16 (cos and sin)"
    )
    assert (
        "cos and sin held in bfloat16 (a table or cache), applied in float64" in report.cause.finding.message
    )


def test_inv_freq_held_in_bfloat16_is_read_as_such_and_breaks_nothing() -> None:
    report = run_battery("rope", rope_newcomer.bfloat16_inv_freq, SETTINGS)
    assert report.passed and report.cause is None
    assert report.identified.matches and report.identified.parameters["scaling"] == "none"
    held = next(f for f in report.findings if f.label == "low-precision")
    assert held.message.endswith(
        "inv_freq held in bfloat16: every θ_i read is within 1e-06 (relative) of a bfloat16 number, and "
        "those numbers follow the none rule at bfloat16's tolerance"
    )


@pytest.mark.parametrize("implementation", [rope.hf_rotate_half, rope.meta_complex])
def test_correct_rotations_have_no_cause_and_no_state(implementation: Callable) -> None:
    report = run_battery("rope", implementation, SETTINGS)
    assert report.passed and report.cause is None
    assert {"stateful", "layout-mismatch"}.isdisjoint(f.label for f in report.findings)


def test_a_rotation_that_resets_its_dynamic_scaling_for_a_short_call_is_not_stateful() -> None:
    report = run_battery("rope", rope_newcomer.make_reset_dynamic_ntk, SETTINGS)
    stateless = next(o for o in report.properties if o.name == "stateless")
    assert stateless.passed and "stateful" not in {f.label for f in report.findings}


def test_naive_alibi_slopes_fail_with_their_rule_as_the_cause() -> None:
    def naive(n: int) -> np.ndarray:
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)

    report = run_battery("alibi", naive, Settings(examples=10, heads=(3, 8)))
    assert not report.passed and report.cause.finding.label == "wrong-slopes"


def _failed(name: str, label: str) -> Outcome:
    return Outcome(name, False, "", "", {}, label)


def test_a_cause_is_named_only_when_present_and_explaining_or_an_error_itself() -> None:
    causes = (
        Cause("low-precision", frozenset({"not-relative"})),
        Cause("stateful", frozenset({"nondeterministic"})),
    )
    narrow = Finding("low-precision", "narrow")
    failed = [_failed("relative", "not-relative"), _failed("linear", "not-linear")]
    named = root_cause(causes, failed, None, [narrow])
    assert named.finding == narrow and named.explains == ("relative (not-relative)",)
    assert named.unexplained == ("linear (not-linear)",)
    # a narrow precision that explains no symptom, and a cause whose finding is absent, name nothing
    assert root_cause(causes, [_failed("linear", "not-linear")], None, [narrow]) is None
    assert root_cause(causes[1:], failed, None, [narrow]) is None
    # an error finding is a cause by itself; an unmatched identification is a symptom
    unmatched = Identification("unidentified", {}, 1.0, False)
    state = root_cause(causes, [], unmatched, [Finding("stateful", "kept")])
    assert state.explains == () and state.unexplained == (f"identification: {UNIDENTIFIED}",)


def test_the_command_prints_the_cause_under_the_findings_and_exits_1(capsys, monkeypatch) -> None:
    monkeypatch.chdir(Path(__file__).parents[1])
    target = "implementations.rope_newcomer:interleaved_table_rotate_half"
    argv = ["--quiet", "check", target, "--family", "rope", "--d", "8", "--d", "64", "--examples", "5"]
    assert cli.main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    cause = lines.index("root cause: [layout-mismatch] (its finding above is the evidence)")
    assert lines[cause - 1].startswith("finding [layout-mismatch] cos and sin are laid out for one pairing")
    assert lines[cause + 1].startswith("  explains: relative (not-relative); equal-positions (not-relative)")
    assert lines[-1] == "result: 3 of 7 properties fail; root cause: layout-mismatch"


@pytest.mark.parametrize(
    ("spec", "cause"),
    [
        # cos and sin right, pairs wrong (labscommunity/cascadia #69, NVIDIA-NeMo/Megatron-Bridge #4195)
        ("pairs_wrong:apply_rotary_pos_emb", "layout-mismatch"),
        # cos and sin taken for angles (NVIDIA/Megatron-LM #7465)
        ("cos_sin_as_angles:apply_rotary_pos_emb", "cos-sin-as-angles"),
        # input_pos ignored: rows turned by their place in the call
        ("input_pos:IgnoresInputPos", "positions-ignored"),
    ],
)
def test_the_real_bugs_of_real_conventions_are_named_as_their_cause(spec: str, cause: str) -> None:
    pytest.importorskip("torch")
    module, _, name = spec.partition(":")
    implementation = getattr(importlib.import_module(f"implementations.rope_conventions.{module}"), name)
    report = run_battery("rope", implementation, SETTINGS, Backend("torch"))
    assert not report.passed and report.cause.finding.label == cause
    assert not report.cause.unexplained


def test_positions_ignored_is_told_from_positions_rounded() -> None:
    report = run_battery("rope", lambda x, p: rope.hf_rotate_half(x, np.zeros_like(p)), SETTINGS)
    assert report.cause.finding.label == "positions-ignored"
    assert "low-precision" not in {f.label for f in report.findings}
    rounded = run_battery("rope", lambda x, p: rope.hf_rotate_half(x, p.astype(ml_dtypes.bfloat16)), SETTINGS)
    assert rounded.cause.finding.label == "low-precision"
    assert "positions-ignored" not in {f.label for f in rounded.findings}


def test_a_rotation_scaled_by_another_amplitude_at_position_0_is_not_cos_and_sin_taken_for_angles() -> None:
    report = run_battery("rope", lambda x, p: 0.5 * rope.hf_rotate_half(x, p), SETTINGS)
    assert "cos-sin-as-angles" not in {f.label for f in report.findings}


def test_a_dynamic_scaling_is_read_at_one_length_and_named_length_dependent() -> None:
    settings = Settings(ds=(8, 64), examples=10, max_pos=8192)
    report = run_battery("rope", rope_newcomer.make_reset_dynamic_ntk, settings)
    assert report.cause.finding.label == "length-dependent"
    assert "batch (not-batch-consistent)" in report.cause.explains
    # NTK at the length every identification call reaches: s·L/L₀ − (s − 1) = 2·8192/2048 − 1 = 7
    assert report.identified.matches and report.identified.parameters["scaling"] == "ntk"
    assert report.identified.parameters["factor"] == pytest.approx(7.0, rel=1e-6)
    plain = run_battery("rope", rope.hf_rotate_half, SETTINGS)
    assert "length-dependent" not in {f.label for f in plain.findings}


def test_a_bfloat16_cache_in_a_float32_model_is_read_as_such() -> None:
    torch = pytest.importorskip("torch")

    def cached(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        inv_freq = 1.0 / 10000.0 ** (torch.arange(0, 2 * half, 2, dtype=torch.float32) / (2 * half))
        angles = positions.to(torch.float32)[:, None] * inv_freq[None, :]
        emb = torch.cat((angles, angles), dim=-1)
        cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
        turned = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos.to(x.dtype) + turned * sin.to(x.dtype)

    report = run_battery("rope", cached, SETTINGS, Backend("torch"))
    assert report.identified.parameters["computed_in"] == "bfloat16 (cos and sin)"
    assert not report.passed and report.cause.finding.label == "low-precision"


def test_state_at_one_size_is_found_past_a_raise_at_another() -> None:
    class RaisesAtTwo(rope_newcomer.KeptDynamicNTK):
        def __call__(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
            if self.d == 2 and positions.max() > self.original:
                raise ZeroDivisionError("division by zero")
            return super().__call__(x, positions)

    def make(d: int) -> RaisesAtTwo:
        return RaisesAtTwo(d)

    report = run_battery("rope", make, Settings(ds=(2, 8), examples=5))
    assert report.cause.finding.label == "stateful"
    assert "d=8" in report.cause.finding.message


def test_a_rotation_of_the_trailing_dims_is_not_taken_for_positions_ignored() -> None:
    def trailing(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        half = x.shape[1] // 2
        return np.concatenate([x[:, :half], rope.hf_rotate_half(x[:, half:], positions)], axis=1)

    report = run_battery("rope", trailing, Settings(ds=(64,), examples=10))
    assert report.passed and "positions-ignored" not in {f.label for f in report.findings}


def test_an_apply_function_alone_gets_a_float32_angle_table_in_a_bfloat16_run() -> None:
    pytest.importorskip("torch")
    library = pytest.importorskip("rotary_embedding_torch.rotary_embedding_torch")
    settings = Settings(ds=(8, 64), examples=10, dtype="bfloat16")
    report = run_battery("rope", library.apply_rotary_emb, settings, Backend("torch", "bfloat16"))
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified.matches and report.identified.parameters["layout"] == "interleaved"
