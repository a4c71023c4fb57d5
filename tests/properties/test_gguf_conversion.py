"""GGUF metadata read as llama.cpp reads it (`gguf_metadata`), and the audit of a conversion
(`gguf_conversion.audit`): for each report, a tiny GGUF file written with `gguf.GGUFWriter` that triggers it
is named as a finding, and the file the converter writes shows none."""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from gguf_files import write_gguf

from pe_verify.properties.encodings import gguf_metadata as g
from pe_verify.properties.encodings.gguf_conversion import audit
from pe_verify.properties.encodings.rope_rules import RULES

HEAD = {"num_attention_heads": 4, "hidden_size": 64, "head_dim": 16, "num_hidden_layers": 4}


def _audit(path: Path, config: dict) -> list:
    return audit(config, g.read_gguf(path))


def _labels(found: list, *severities: str) -> set[str]:
    return {f.label for f in found if not severities or f.severity in severities}


def _one(found: list, label: str):
    (hit,) = [f for f in found if f.label == label]
    return hit


def test_every_rule_says_what_the_converter_writes_for_it() -> None:
    by_kind = {rule.kind: rule for rule in RULES}
    assert by_kind["yarn"].gguf == "yarn" and by_kind["linear"].gguf == "linear"
    assert by_kind["llama3"].gguf == "" and by_kind["llama3"].gguf_tensors == ("rope_freqs",)
    assert by_kind["longrope"].gguf_tensors == ("rope_factors_long", "rope_factors_short")
    assert by_kind["dynamic-ntk"].gguf is None and by_kind["none"].gguf == ""


# -------------------------------------------------------------------------------------------- plain Llama

LLAMA = {"model_type": "llama", **HEAD, "max_position_embeddings": 4096, "rope_theta": 500000.0}


def test_plain_llama_converted_right_shows_nothing(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": 500000.0, "dimension_count": 16})
    assert _audit(path, LLAMA) == []
    reading = g.gguf_config(g.read_gguf(path))
    assert reading.config["rope_theta"] == 500000.0 and "rope_scaling" not in reading.config
    assert reading.sources["rope_theta"] == "llama.rope.freq_base"
    assert reading.absent == ["llama.rope.scaling.type"]


def test_a_missing_base_is_llama_cpps_10000(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", rope={"dimension_count": 16})
    found = _audit(path, LLAMA)
    missing = _one(found, "gguf-key-missing")
    assert missing.severity == "error"
    assert "llama.rope.freq_base is absent" in missing.message and "rope_theta" in missing.message
    assert "500000" in missing.message
    assert "gguf-default-base" in {n.label for n in g.gguf_config(g.read_gguf(path)).notes}
    assert "gguf-computes-otherwise" in _labels(found, "error")


def test_a_float64_value_rounded_to_float32_is_no_difference(tmp_path: Path) -> None:
    config = dict(LLAMA, rope_theta=10000.1)
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": 10000.1, "dimension_count": 16})
    found = _audit(path, config)
    assert _labels(found) == {"gguf-float32"}
    assert "not a difference" in found[0].message and "llama.rope.freq_base" in found[0].message


# --------------------------------------------------------------------------------------------- Llama 3

LLAMA3 = dict(
    LLAMA,
    max_position_embeddings=131072,
    rope_scaling={
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
)


def _llama3_divisors() -> np.ndarray:
    return g.llama3_divisors(16, 500000.0, 8.0, 1.0, 4.0, 8192)


def test_llama3_rope_freqs_right_shows_nothing_and_reads_as_the_rule(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "m.gguf",
        context=131072,
        rope={"freq_base": 500000.0, "dimension_count": 16},
        tensors={"rope_freqs": _llama3_divisors()},
    )
    assert _audit(path, LLAMA3) == []
    reading = g.gguf_config(g.read_gguf(path))
    assert reading.config["rope_scaling"] == LLAMA3["rope_scaling"]
    assert "rope_freqs" in reading.sources["rope_scaling.factor"]


def test_llama3_rope_freqs_wrong_is_named_with_its_pair(tmp_path: Path) -> None:
    wrong = _llama3_divisors()
    wrong[5] *= 1.5
    path = write_gguf(
        tmp_path / "m.gguf",
        context=131072,
        rope={"freq_base": 500000.0, "dimension_count": 16},
        tensors={"rope_freqs": wrong},
    )
    found = _audit(path, LLAMA3)
    hit = _one(found, "gguf-key-different")
    assert hit.severity == "error" and "tensor rope_freqs" in hit.message and "pair 5" in hit.message
    assert "Llama 3 rule" in hit.message
    notes = g.gguf_config(g.read_gguf(path)).notes
    assert "gguf-rope-freqs" in {n.label for n in notes}


def test_llama3_fitted_at_other_parameters() -> None:
    divisors = g.llama3_divisors(128, 500000.0, 32.0, 1.0, 4.0, 8192)
    assert g.fit_llama3(tuple(divisors), 128, 500000.0, None) == (32.0, 1.0, 4.0, 8192)
    assert g.fit_llama3(tuple(np.linspace(1, 3, 64)), 128, 500000.0, None) is None


# ------------------------------------------------------------------------------------------------- YaRN

YARN = dict(
    LLAMA,
    model_type="qwen2",
    max_position_embeddings=16384,
    rope_theta=1000000.0,
    rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
)
YARN_KEYS = {
    "freq_base": 1000000.0,
    "dimension_count": 16,
    "scaling.type": "yarn",
    "scaling.factor": 4.0,
    "scaling.original_context_length": 4096,
}


def test_yarn_right_shows_nothing(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", "qwen2", context=16384, rope=YARN_KEYS)
    assert _audit(path, YARN) == []
    scaling = g.gguf_config(g.read_gguf(path)).config["rope_scaling"]
    assert scaling["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1, rel=1e-6)
    assert scaling["truncate"] is True


def test_yarn_factor_written_as_the_ext_factor(tmp_path: Path) -> None:
    """ikawrakow/ik_llama.cpp#2003: the converter wrote factor into rope.scaling.yarn_ext_factor."""
    path = write_gguf(
        tmp_path / "m.gguf", "qwen2", context=16384, rope={**YARN_KEYS, "scaling.yarn_ext_factor": 4.0}
    )
    hit = _one(_audit(path, YARN), "gguf-key-extra")
    assert hit.severity == "warning"
    assert "qwen2.rope.scaling.yarn_ext_factor = 4" in hit.message and "ik_llama.cpp#2003" in hit.message
    note = _one(g.gguf_config(g.read_gguf(path)).notes, "gguf-yarn-ext-factor")
    assert "ramp · 4" in note.message
    # the config's extrapolation_factor written where it belongs is no difference
    config = dict(YARN, rope_scaling={**YARN["rope_scaling"], "extrapolation_factor": 1.0})
    path = write_gguf(
        tmp_path / "r.gguf", "qwen2", context=16384, rope={**YARN_KEYS, "scaling.yarn_ext_factor": 1.0}
    )
    assert _audit(path, config) == []


def test_yarn_attention_factor_is_recomputed_by_llama_cpp(tmp_path: Path) -> None:
    config = dict(YARN, rope_scaling={**YARN["rope_scaling"], "attention_factor": 1.0})
    path = write_gguf(
        tmp_path / "m.gguf", "qwen2", context=16384, rope={**YARN_KEYS, "scaling.yarn_attn_factor": 1.0}
    )
    found = _audit(path, config)
    hit = _one(found, "gguf-computes-otherwise")
    assert hit.severity == "warning" and "cos/sin factor 1 → 1.13862944" in hit.message
    assert "converter writes" in hit.message
    assert "gguf-yarn-attn-factor" in {n.label for n in g.gguf_config(g.read_gguf(path)).notes}


def test_deepseek_log_multiplier_is_prescaled_by_a_tenth(tmp_path: Path) -> None:
    config = {
        "model_type": "deepseek_v3",
        "num_attention_heads": 4,
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "qk_rope_head_dim": 16,
        "qk_nope_head_dim": 16,
        "max_position_embeddings": 16384,
        "rope_theta": 10000.0,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 4096,
            "mscale": 0.707,
            "mscale_all_dim": 0.707,
        },
    }
    keys = {**YARN_KEYS, "freq_base": 10000.0}
    right = write_gguf(
        tmp_path / "r.gguf",
        "deepseek2",
        head_dim=32,
        layers=2,
        context=16384,
        rope={**keys, "scaling.yarn_log_multiplier": 0.0707},
    )
    assert not _labels(_audit(right, config), "error")
    wrong = write_gguf(
        tmp_path / "w.gguf",
        "deepseek2",
        head_dim=32,
        layers=2,
        context=16384,
        rope={**keys, "scaling.yarn_log_multiplier": 0.707},
    )
    found = _audit(wrong, config)
    hit = _one(found, "gguf-key-different")
    assert hit.severity == "error" and "yarn_log_multiplier is 0.707" in hit.message
    assert "mscale_all_dim (· 0.1)" in hit.message


# --------------------------------------------------------------------------------------------- LongRoPE

SHORT = [1.0, 1.0, 1.1, 1.3, 1.6, 2.0, 2.5, 3.0]
LONG = [1.0, 1.2, 1.6, 2.4, 3.5, 5.0, 7.0, 9.0]
PHI3 = dict(
    LLAMA,
    model_type="phi3",
    max_position_embeddings=131072,
    rope_theta=10000.0,
    original_max_position_embeddings=4096,
    rope_scaling={"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG},
)
LONGROPE_KEYS = {
    "freq_base": 10000.0,
    "dimension_count": 16,
    "scaling.type": "longrope",
    "scaling.original_context_length": 4096,
    "scaling.attn_factor": math.sqrt(1 + math.log(32) / math.log(4096)),
}


def _phi3_file(path: Path, rope: dict, *, long: list[float], short: list[float]) -> Path:
    """A Phi-3 GGUF file at 131072 tokens with these rope keys and LongRoPE factor tensors."""
    tensors = {"rope_factors_long": long, "rope_factors_short": short}
    return write_gguf(path, "phi3", context=131072, rope=rope, tensors=tensors)


def test_longrope_right_shows_nothing(tmp_path: Path) -> None:
    path = _phi3_file(tmp_path / "m.gguf", LONGROPE_KEYS, long=LONG, short=SHORT)
    assert _labels(_audit(path, PHI3)) <= {"gguf-float32"}
    reading = g.gguf_config(g.read_gguf(path))
    assert reading.config["rope_scaling"]["long_factor"] == pytest.approx(LONG)
    assert reading.sources["rope_scaling.short_factor"] == "tensor rope_factors_short"
    assert "gguf-longrope-switch" in {n.label for n in reading.notes}


def test_longrope_factors_swapped_or_attention_missing(tmp_path: Path) -> None:
    swapped = _phi3_file(tmp_path / "s.gguf", LONGROPE_KEYS, long=SHORT, short=LONG)
    found = _audit(swapped, PHI3)
    assert {f.message.split(" is ")[0] for f in found if f.label == "gguf-key-different"} == {
        "tensor rope_factors_long",
        "tensor rope_factors_short",
    }
    assert all(f.severity == "error" for f in found if f.label == "gguf-key-different")
    keys = {k: v for k, v in LONGROPE_KEYS.items() if k != "scaling.attn_factor"}
    bare = _phi3_file(tmp_path / "a.gguf", keys, long=LONG, short=SHORT)
    hit = _one(_audit(bare, PHI3), "gguf-key-missing")
    assert hit.severity == "error" and "phi3.rope.scaling.attn_factor is absent" in hit.message


# ---------------------------------------------------------------------------------------------- Gemma 3

GEMMA3 = {
    "model_type": "gemma3_text",
    **HEAD,
    "num_hidden_layers": 6,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "sliding_window": 512,
    "sliding_window_pattern": 6,
    "rope_scaling": {"rope_type": "linear", "factor": 8.0},
}
GEMMA3_KEYS = {
    "freq_base": 1000000.0,
    "freq_base_swa": 10000.0,
    "dimension_count": 16,
    "scaling.type": "linear",
    "scaling.factor": 8.0,
}


def test_gemma3_right_shows_nothing(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "m.gguf",
        "gemma3",
        layers=6,
        context=131072,
        rope=GEMMA3_KEYS,
        extra={"gemma3.attention.sliding_window": 512},
    )
    assert _audit(path, GEMMA3) == []
    reading = g.gguf_config(g.read_gguf(path))
    assert reading.config["rope_local_base_freq"] == 10000.0
    assert reading.sources["rope_local_base_freq"] == "gemma3.rope.freq_base_swa"


def test_gemma3_without_its_sliding_base(tmp_path: Path) -> None:
    keys = {k: v for k, v in GEMMA3_KEYS.items() if k != "freq_base_swa"}
    path = write_gguf(
        tmp_path / "m.gguf",
        "gemma3",
        layers=6,
        context=131072,
        rope=keys,
        extra={"gemma3.attention.sliding_window": 512},
    )
    hit = _one(_audit(path, GEMMA3), "gguf-key-missing")
    assert "gemma3.rope.freq_base_swa is absent" in hit.message and "rope_local_base_freq" in hit.message
    assert hit.severity == "warning"


# ------------------------------------------------------------------------------------------------ M-RoPE


def test_qwen2_vl_sections_padded_to_four(tmp_path: Path) -> None:
    config = dict(
        LLAMA,
        model_type="qwen2_vl",
        rope_theta=1000000.0,
        rope_scaling={"rope_type": "mrope", "mrope_section": [2, 3, 3]},
    )
    keys = {"freq_base": 1000000.0, "dimension_count": 16, "dimension_sections": [2, 3, 3, 0]}
    right = write_gguf(tmp_path / "r.gguf", "qwen2vl", rope=keys)
    assert _audit(right, config) == []
    wrong = write_gguf(tmp_path / "w.gguf", "qwen2vl", rope={**keys, "dimension_sections": [3, 3, 2, 0]})
    hit = _one(_audit(wrong, config), "gguf-key-different")
    assert hit.severity == "error" and "qwen2vl.rope.dimension_sections is [3, 3, 2, 0]" in hit.message
    assert "[2, 3, 3, 0]" in hit.message and "mrope_section" in hit.message


def test_qwen3_vl_interleaved_leaves_pairs_to_the_fourth_row(tmp_path: Path) -> None:
    config = {
        "model_type": "qwen3_vl",
        "text_config": dict(
            LLAMA,
            head_dim=128,
            hidden_size=512,
            rope_theta=5000000.0,
            rope_scaling={"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True},
        ),
    }
    keys = {"freq_base": 5000000.0, "dimension_count": 128, "dimension_sections": [24, 20, 20, 0]}
    path = write_gguf(tmp_path / "m.gguf", "qwen3vl", head_dim=128, rope=keys)
    assert not _labels(_audit(path, config), "error")
    note = _one(g.gguf_config(g.read_gguf(path)).notes, "gguf-mrope-leftover")
    assert "pairs 61, 62" in note.message
    blocked = write_gguf(tmp_path / "b.gguf", "qwen2vl", head_dim=128, rope=keys)
    assert "gguf-mrope-leftover" not in {n.label for n in g.gguf_config(g.read_gguf(blocked)).notes}


# ------------------------------------------------------------------------------------------------- NoPE

SMOLLM3 = dict(
    LLAMA,
    model_type="smollm3",
    num_hidden_layers=8,
    rope_theta=2000000.0,
    no_rope_layers=[1, 1, 1, 0, 1, 1, 1, 0],
)


def test_smollm3_nope_schedule_has_no_key(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "m.gguf", "smollm3", layers=8, rope={"freq_base": 2000000.0, "dimension_count": 16}
    )
    assert _audit(path, SMOLLM3) == []
    other = dict(SMOLLM3, no_rope_layers=[1, 1, 0, 1, 1, 1, 0, 1])
    hits = [f for f in _audit(path, other) if f.label == "gguf-nope-schedule"]
    assert {f.severity for f in hits} == {"error"} and len(hits) == 2
    assert "layers 2, 6: rotates False → True" in hits[0].message
    assert "layers 3, 7: rotates True → False" in hits[1].message
    assert "no GGUF key" in hits[0].message and "n_no_rope_layer_step = 4" in hits[0].message
    assert "gguf-nope-schedule" in {n.label for n in g.gguf_config(g.read_gguf(path)).notes}


# ----------------------------------------------------------------------------------------- bounded reading


def test_the_header_is_read_within_its_bounds(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": 500000.0})
    header = g.read_gguf(path).header
    assert header.version == 3 and header.tensors == 0 and header.keys == 8 and header.elements == 0
    assert g.MEMORY_BOUND < 16 * 2**20


def _tokenizer(count: int) -> dict[str, list]:
    return {
        "tokenizer.ggml.tokens": [f"token{i}" for i in range(count)],
        "tokenizer.ggml.scores": [0.5] * count,
        "tokenizer.ggml.token_type": [1] * count,
    }


def test_a_256k_vocabulary_is_stepped_over_without_being_decoded(tmp_path: Path, monkeypatch) -> None:
    count = 2**18
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": 500000.0}, arrays=_tokenizer(count))
    decoded: list[str] = []
    decode = g._decode_value

    def counted(cursor, kind, name, *rest):
        decoded.append(name)
        return decode(cursor, kind, name, *rest)

    monkeypatch.setattr(g, "_decode_value", counted)
    metadata = g.read_gguf(path)
    assert metadata.header.elements == 3 * count and metadata.value("rope.freq_base") == 500000.0
    assert decoded and not [name for name in decoded if name.startswith("tokenizer.")]
    assert "general.architecture" in decoded and "llama.rope.freq_base" in decoded


def _peak(path: Path) -> int:
    tracemalloc.start()
    try:
        g.read_gguf(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_million_strings_are_stepped_over_in_bounded_memory(tmp_path: Path) -> None:
    count = 10**6
    tokens = [f"t{i}" for i in range(count)]
    small = write_gguf(tmp_path / "s.gguf", arrays={"tokenizer.ggml.tokens": tokens[:16]})
    big = write_gguf(tmp_path / "b.gguf", arrays={"tokenizer.ggml.tokens": tokens})
    assert g.read_gguf(big).header.elements == count
    small_peak, big_peak = _peak(small), _peak(big)
    # the big file fills the reader's window (the small one is read whole): nothing else grows
    assert big_peak < small_peak + g.WINDOW_BYTES + 2**16, (small_peak, big_peak)
    assert big_peak < g.MEMORY_BOUND


def test_a_key_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": "500000"})
    with pytest.raises(g.GgufError, match=r"llama\.rope\.freq_base is STRING .* reads it as FLOAT32"):
        g.read_gguf(path)
