"""The batteries with `--backend torch` on torch implementations (float32 by default, bfloat16 results too);
skipped when torch, an optional extra, is not installed."""

from __future__ import annotations

import math

import pytest

from pe_verify.properties.battery import Backend, Settings, run_battery

torch = pytest.importorskip("torch")

TORCH = Backend("torch")
SETTINGS = Settings(examples=20)


def hf_rotate_half(x, positions, dtype=torch.float32):
    d = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    freqs = positions[:, None].to(dtype).float() * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    half = d // 2
    rotated = torch.cat([-x[:, half:], x[:, :half]], dim=-1)
    return x * emb.cos() + rotated * emb.sin()


def test_hugging_face_rope_in_float32_passes_on_the_torch_backend() -> None:
    report = run_battery("rope", hf_rotate_half, SETTINGS, TORCH)
    assert report.passed, [o.message for o in report.properties if not o.passed]
    assert report.identified.parameters["layout"] == "half_split"
    assert "float32" in next(o.tolerance for o in report.properties if o.name == "relative")


def test_bfloat16_positions_gpt_neox_1016_on_the_torch_backend() -> None:
    report = run_battery("rope", lambda x, p: hf_rotate_half(x, p, torch.bfloat16), SETTINGS, TORCH)
    assert not report.passed and "low-precision" in {f.label for f in report.findings}


def test_a_bfloat16_result_gets_the_bfloat16_tolerance() -> None:
    report = run_battery(
        "rope", lambda x, p: hf_rotate_half(x, p).to(torch.bfloat16), Settings(examples=20, max_pos=64), TORCH
    )
    assert "bfloat16" in next(o.tolerance for o in report.properties if o.name == "relative")


def test_torch_sinusoidal_alibi_and_frequencies() -> None:
    def encode(positions, d):
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
        pe = torch.zeros(len(positions), d)
        pe[:, 0::2] = torch.sin(positions[:, None].float() * div)
        pe[:, 1::2] = torch.cos(positions[:, None].float() * div)
        return pe

    assert run_battery("sinusoidal", encode, SETTINGS, TORCH).passed
    slopes = lambda n: torch.tensor([2.0 ** (-8.0 * h / n) for h in range(1, n + 1)])  # noqa: E731
    assert run_battery("alibi", slopes, Settings(examples=20, heads=(8, 16)), TORCH).passed
    inv_freq = lambda d: 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))  # noqa: E731
    report = run_battery("rope-frequencies", inv_freq, SETTINGS, TORCH)
    assert report.passed and report.identified.variant == "none"
