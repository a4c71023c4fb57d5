"""Every bundled model's inv_freq and attention factor as transformers computes them, beside the suite's: no
difference beyond the stated tolerances that the models page does not explain; a twin whose frequencies are
off is caught; without transformers the comparison says it was skipped."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pe_verify.models import analyse_model
from pe_verify.properties.analyses import model_setup
from pe_verify.properties.battery import transformers_rope
from pe_verify.properties.encodings.model_config import bundled_models
from pe_verify.reporting.models import CROSS_CHECKED, EXPLAINED

ROPE_MODELS = [
    name for name, m in bundled_models().items() if m.config.get("model_type") not in ("bloom", "gpt2")
]


def test_without_transformers_the_comparison_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transformers_rope, "transformers_version", lambda: None)
    record = analyse_model(bundled_models()["phi-2"].config, 64)
    assert record["cross_check"]["skipped"].startswith("transformers is not installed")


@pytest.mark.slow
@pytest.mark.parametrize("name", ROPE_MODELS)
def test_bundled_models_agree_with_transformers(name: str) -> None:
    pytest.importorskip("transformers")
    record = analyse_model(name, 4096)
    cross = record["cross_check"]
    assert "skipped" not in cross, cross
    assert cross["differences"] == [] or name in EXPLAINED, cross["differences"]
    assert float(cross["inv_freq"]["largest_relative_difference"]) <= float(cross["inv_freq"]["tolerance"])


@pytest.mark.slow
def test_twin_frequencies_off_by_a_part_in_ten_thousand_are_a_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("transformers")
    true = model_setup.model_frequencies

    def off(setup, context):
        found = true(setup, context)
        return model_setup.Frequencies(
            found.theta, found.scaled, found.float64 * (1 + 1e-4 * (np.arange(found.float64.size) == 3))
        )

    monkeypatch.setattr(transformers_rope, "model_frequencies", off)
    record = analyse_model("llama-3.1-8b", 4096)
    assert [d["quantity"] for d in record["cross_check"]["differences"]] == ["inv_freq[3]"]


@pytest.mark.slow
def test_twin_a_config_transformers_refuses_is_named() -> None:
    pytest.importorskip("transformers")
    config = dict(bundled_models()["phi-2"].config, model_type="not-a-model-type")
    record = analyse_model(config, 64)
    assert [d["quantity"] for d in record["cross_check"]["differences"]] == ["config"]


def test_ci_compares_at_the_versions_the_models_page_names() -> None:
    script = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    versions = re.search(r"for version in ([^;]+); do", script)
    assert versions is not None and tuple(versions[1].split()) == CROSS_CHECKED
