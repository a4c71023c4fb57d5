"""Every bundled model's inv_freq and attention factor, layer type by layer type, as transformers computes
them, beside the suite's: no difference beyond the stated tolerances that the models page does not explain,
and the layer schedule as transformers derives it; a twin whose frequencies are off is caught; a config
transformers refuses and a model type it does not know are "could not run", named; without transformers the
comparison says it was skipped."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pe_verify.models import analyse_model
from pe_verify.properties.analyses import model_setup
from pe_verify.properties.battery import transformers_rope
from pe_verify.properties.encodings.model_config import bundled_models, read_config
from pe_verify.reporting.models import CROSS_CHECKED, EXPLAINED, NEWER_THAN

ROPE_MODELS = [
    name
    for name, m in bundled_models().items()
    if any(g.position.scheme == "rope" for g in read_config(m.config).groups)
]


def _outcomes(record: dict) -> list[str]:
    return [entry["outcome"] for entry in record["cross_check"]["layer_types"]]


def test_without_transformers_the_comparison_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transformers_rope, "transformers_version", lambda: None)
    record = analyse_model(bundled_models()["phi-2"].config, 64)
    assert record["cross_check"]["skipped"].startswith("transformers is not installed")


@pytest.mark.slow
@pytest.mark.parametrize("name", ROPE_MODELS)
def test_bundled_models_agree_with_transformers(name: str) -> None:
    transformers = pytest.importorskip("transformers")
    record = analyse_model(name, 4096)
    cross = record["cross_check"]
    assert "skipped" not in cross, cross
    entries = cross["layer_types"]
    older = name in NEWER_THAN and int(transformers.__version__.split(".")[0]) < int(NEWER_THAN[name][0])
    if older:
        assert {e["outcome"] for e in entries} == {"could not run"}, entries
        assert all("is not native to transformers" in e["reason"] for e in entries)
        return
    rotating = [g["layer_type"] for g in record["groups"] if g["position"]["scheme"] == "rope"]
    assert [entry["layer_type"] for entry in entries] == rotating
    for entry in entries:
        assert entry["outcome"] == "agree" or name in EXPLAINED, entry
        found = entry["inv_freq"]
        assert float(found["largest_relative_difference"]) <= float(found["tolerance"])
    assert cross["schedule"]["outcome"] in ("agree", "could not run"), cross["schedule"]


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
    (entry,) = record["cross_check"]["layer_types"]
    assert entry["outcome"] == "differ" and [d["quantity"] for d in entry["differences"]] == ["inv_freq[3]"]


@pytest.mark.slow
def test_twin_a_config_transformers_refuses_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers = pytest.importorskip("transformers")
    config = dict(bundled_models()["phi-2"].config, model_type="not-a-model-type")
    record = analyse_model(config, 64)
    (entry,) = record["cross_check"]["layer_types"]
    assert entry["outcome"] == "could not run" and "not native to transformers" in entry["reason"]

    def refuse(*args, **kwargs):
        raise ValueError("refused")

    monkeypatch.setattr(transformers.AutoConfig, "for_model", refuse)
    record = analyse_model("phi-2", 64)
    (entry,) = record["cross_check"]["layer_types"]
    assert entry["outcome"] == "could not run" and entry["reason"].endswith("ValueError: refused")


@pytest.mark.slow
def test_a_config_without_a_model_type_is_not_compared_as_a_llama() -> None:
    """jina-embeddings-v3's remote config names no model_type and a rotary_emb_base of 20000: transformers'
    AutoConfig would build a LlamaConfig (base 10000) from it, so the comparison says it could not run; the
    twin, a llama config with the same base as rope_theta, is compared and agrees."""
    pytest.importorskip("transformers")
    config = {
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "num_hidden_layers": 2,
        "rotary_emb_base": 20000,
    }
    config["max_position_embeddings"] = 8194
    entry = analyse_model(config, 4096)["cross_check"]["layer_types"][0]
    assert entry["outcome"] == "could not run" and "names no model_type" in entry["reason"]
    llama = {key: value for key, value in config.items() if key != "rotary_emb_base"}
    twin = analyse_model(dict(llama, model_type="llama", rope_theta=20000), 4096)["cross_check"][
        "layer_types"
    ][0]
    assert twin["outcome"] == "agree"


def test_ci_compares_at_the_versions_the_models_page_names() -> None:
    script = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    versions = re.search(r"for version in ([^;]+); do", script)
    assert versions is not None and tuple(versions[1].split()) == CROSS_CHECKED
