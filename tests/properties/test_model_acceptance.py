"""Published configs of real models, most of 2024–2026 (`tests/model_configs/`, each a public copy of the hub
file, cited by repository, path and commit in its `found_in`): every one is read without a problem, and its
layer groups say what the config itself states (its `layer_types`, its `no_rope_layers`, its nested text
model, its `position_embedding_type`); with transformers installed, every RoPE layer type agrees with the
model's own rotary module and the layer schedule with the one transformers derives, or the comparison says why
it could not run (a model type whose code is not in that transformers version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pe_verify.models import analyse_model, findings
from pe_verify.properties.encodings import layer_schedule
from pe_verify.properties.encodings.model_config import read_config

FOLDER = Path(__file__).resolve().parents[1] / "model_configs"
RECORDS = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(FOLDER.glob("*.json"))}


def _text(config: dict) -> dict:
    return config.get("text_config") or config


def _layer_type(name: str) -> str:
    return layer_schedule.LEGACY_NAMES.get(name, name)


def test_the_collection_is_cited() -> None:
    assert len(RECORDS) >= 70
    for name, record in RECORDS.items():
        assert record["found_in"] and all(len(f["commit"]) == 40 for f in record["found_in"]), name


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_published_config_is_read_as_it_states(name: str) -> None:
    config = RECORDS[name]["config"]
    model = read_config(config)
    assert not model.problems, model.problems
    assert model.scheme != "unknown", name
    text = _text(config)
    layers = {i: g for g in model.groups for i in g.layers}
    if isinstance(text.get("layer_types"), list):
        count = model.layers or len(text["layer_types"])  # beyond it, a multi-token prediction layer's entry
        assert [_layer_type(layers[i].layer_type) for i in range(count)] == [
            _layer_type(t) for t in text["layer_types"][:count]
        ]
    if isinstance(text.get("no_rope_layers"), list):
        assert [layers[i].position.scheme == "rope" for i in range(model.layers)] == [
            bool(flag) for flag in text["no_rope_layers"]
        ]
    if text.get("position_embedding_type") == "nope":
        assert all(g.position.scheme != "rope" for g in model.groups)
    if "text_config" in config:
        assert model.nested == "text_config"


def test_twin_a_flipped_no_rope_flag_is_seen() -> None:
    config = json.loads(json.dumps(RECORDS["smollm3-3b"]["config"]))
    config["no_rope_layers"][0] = 0
    model = read_config(config)
    assert [g.position.scheme for g in model.groups if 0 in g.layers] == ["nope"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_agrees_with_transformers(name: str) -> None:
    """At the installed transformers: every RoPE layer type agrees, or could not run because the model type's
    code is not in that version (or, for a config that lists a multi-token prediction layer's type, because
    transformers refuses it too); the schedule never differs; no finding is an error at 4096 positions
    within the context each config states."""
    transformers = pytest.importorskip("transformers")
    config = RECORDS[name]["config"]
    record = analyse_model(config, 4096)
    cross = record["cross_check"]
    refused = {"mtp-layer-types"} & {f["label"] for f in findings(record)}  # transformers refuses it too
    reasons = [f"is not native to transformers {transformers.__version__}"]
    reasons += ["must be equal to the number of `layer_types`"] if refused else []
    for entry in cross.get("layer_types", []):
        if entry["outcome"] != "agree":
            assert entry["outcome"] == "could not run", entry
            assert any(reason in entry["reason"] for reason in reasons), entry
    assert cross.get("schedule", {}).get("outcome") != "differ", cross["schedule"]
    stated = record["setup"]["max_position_embeddings"]
    if stated is None or stated >= 4096:
        assert not [f for f in findings(record) if f["severity"] == "error"]
