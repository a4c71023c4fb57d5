"""`pe-verify model FILE.gguf` and `pe-verify model CONFIG --gguf FILE.gguf`: a GGUF file (known by its magic)
answered through the normal audit, a conversion's findings where the model's findings go, and bad GGUF input
refused in one line with exit status 2."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import jsonschema
import numpy as np
from gguf_files import write_gguf
from refusals import refused

from pe_verify import cli
from pe_verify.properties.encodings import gguf_metadata

FAST = ("--quiet", "--no-cross-check", "--context", "64")
CONFIG = {
    "model_type": "llama",
    "num_attention_heads": 4,
    "hidden_size": 64,
    "head_dim": 16,
    "num_hidden_layers": 4,
    "max_position_embeddings": 4096,
    "rope_theta": 500000.0,
}


def _model(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["--quiet", "model", *argv, *FAST[1:]])
    return code, capsys.readouterr().out


def _schema() -> dict:
    folder = Path(cli.__file__).parent / "schemas"
    store = {
        json.loads(p.read_text())["$id"]: json.loads(p.read_text()) for p in folder.glob("*.schema.json")
    }
    return store


def test_a_gguf_file_is_answered_by_its_magic_whatever_its_name(tmp_path: Path, capsys) -> None:
    path = write_gguf(tmp_path / "weights.bin", rope={"freq_base": 500000.0, "dimension_count": 16})
    code, out = _model(capsys, str(path), "--json")
    assert code == 0
    document = json.loads(out)
    record = document["model"]
    assert record["gguf"]["read_from"] == "gguf" and record["gguf"]["architecture"] == "llama"
    assert record["gguf"]["absent"] == ["llama.rope.scaling.type"]
    assert record["gguf"]["sources"]["rope_theta"] == "llama.rope.freq_base"
    assert record["groups"][0]["position"]["base"] == 500000.0
    store = _schema()
    schema = store["https://pe-verify.invalid/schemas/model.schema.json"]
    from referencing import Registry, Resource

    resources = [(uri, Resource.from_contents(doc)) for uri, doc in store.items()]
    registry = Registry().with_resources(resources)
    jsonschema.Draft202012Validator(schema, registry=registry).validate(document)
    code, out = _model(capsys, str(path))
    assert "read from GGUF: " in out and "GGUF keys absent (llama.cpp's default taken): llama.rope" in out


def test_a_conversion_audit_reports_where_the_models_findings_go(tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG), encoding="utf-8")
    right = write_gguf(tmp_path / "r.gguf", rope={"freq_base": 500000.0, "dimension_count": 16})
    code, out = _model(capsys, str(config), "--gguf", str(right), "--json")
    record = json.loads(out)["model"]
    assert code == 0 and record["gguf"]["read_from"] == "audit"
    assert not [f for f in record["findings"] if f["label"].startswith("gguf-")]
    wrong = write_gguf(tmp_path / "w.gguf", rope={"freq_base": 10000.0, "dimension_count": 16})
    code, out = _model(capsys, str(config), "--gguf", str(wrong))
    assert code == cli.EXIT_CHANGED
    assert "finding [error] gguf-key-different" in out and "llama.rope.freq_base is 10000" in out
    code, out = _model(capsys, str(config), "--gguf", str(wrong), "--markdown")
    assert "**gguf-key-different** (error" in out and "Conversion audited against GGUF" in out


def test_bad_gguf_input_is_one_line(tmp_path: Path, capsys) -> None:
    good = write_gguf(tmp_path / "good.gguf", rope={"freq_base": 500000.0})
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(good.read_bytes()[:150])
    assert "is truncated" in refused(capsys, str(truncated))
    other = tmp_path / "not.gguf"
    other.write_bytes(b"PK\x03\x04 not a gguf file at all")
    assert "is not a GGUF file" in refused(capsys, str(other))
    keys = tmp_path / "keys.gguf"
    keys.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 2**40))
    assert f"at most {gguf_metadata.MAX_KEYS} are read" in refused(capsys, str(keys))
    items = tmp_path / "items.gguf"
    name = b"tokenizer.ggml.tokens"
    items.write_bytes(
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", len(name))
        + name
        + struct.pack("<IIQ", 9, 8, 2**40)
    )
    assert f"at most {gguf_metadata.MAX_ELEMENTS} array items" in refused(capsys, str(items))
    typed = write_gguf(tmp_path / "typed.gguf", rope={"freq_base": "500000"})
    assert "llama.rope.freq_base is STRING" in refused(capsys, str(typed))


def _one_key(path: Path, key: str, kind: int, tail: bytes) -> Path:
    """A GGUF 3 file with no tensors and one key `key` of GGUF type `kind`, its value's bytes `tail`."""
    name = key.encode()
    path.write_bytes(
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", len(name))
        + name
        + struct.pack("<I", kind)
        + tail
    )
    return path


def test_a_value_running_past_the_end_is_one_line_whether_kept_or_stepped_over(
    tmp_path: Path, capsys
) -> None:
    for key in ("general.name", "tokenizer.ggml.pre"):
        cut = _one_key(tmp_path / f"{key}.gguf", key, 8, struct.pack("<Q", 2**20) + b"llama")
        assert f"is truncated: the value of {key} runs past the end of the file" in refused(capsys, str(cut))
    strings = _one_key(tmp_path / "tokens.gguf", "tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 3))
    assert "the items of tokenizer.ggml.tokens runs past the end" in refused(capsys, str(strings))
    name = tmp_path / "name.gguf"
    name.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 2**40) + b"general")
    assert "the name of metadata key 0 claims 1099511627776 bytes" in refused(capsys, str(name))


def test_a_big_endian_or_version_1_file_is_one_line(tmp_path: Path, capsys) -> None:
    big = write_gguf(tmp_path / "big.gguf", rope={"freq_base": 500000.0}, big_endian=True)
    assert "is a big-endian GGUF file; llama.cpp" in refused(capsys, str(big))
    old = tmp_path / "v1.gguf"
    old.write_bytes(b"GGUF" + struct.pack("<IQQ", 1, 0, 0))
    assert "is GGUF version 1; versions 2 and 3 are read" in refused(capsys, str(old))


def test_a_pair_tensor_of_another_type_or_shape_is_one_line(tmp_path: Path, capsys) -> None:
    rope = {"freq_base": 500000.0, "dimension_count": 16}
    half = write_gguf(tmp_path / "f16.gguf", rope=rope, tensors={"rope_freqs": np.ones(8, dtype=np.float16)})
    assert "tensor rope_freqs.weight is F16; llama.cpp reads it as F32" in refused(capsys, str(half))
    short = write_gguf(tmp_path / "short.gguf", rope=rope, tensors={"rope_factors_long": [1.0] * 5})
    line = refused(capsys, str(short))
    assert (
        "tensor rope_factors_long.weight has shape 5; llama.cpp reads 8, one value per rotated pair" in line
    )
    square = write_gguf(tmp_path / "2d.gguf", rope=rope, tensors={"rope_freqs": np.ones((2, 4), np.float32)})
    assert "tensor rope_freqs.weight has shape 4×2" in refused(capsys, str(square))
    good = write_gguf(tmp_path / "good.gguf", rope=rope, tensors={"rope_freqs": [1.0] * 8})
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(good.read_bytes()[:-4])
    assert "tensor rope_freqs.weight's data runs past the end of the file" in refused(capsys, str(cut))
    # its tensor info: the name, n_dims (u32), one dim (u64), the type (u32), then the offset (u64)
    data = bytearray(good.read_bytes())
    at = data.index(b"rope_freqs.weight") + len(b"rope_freqs.weight") + 4 + 8 + 4
    assert struct.unpack_from("<Q", data, at) == (0,)
    struct.pack_into("<Q", data, at, 4)
    shifted = tmp_path / "shifted.gguf"
    shifted.write_bytes(bytes(data))
    line = refused(capsys, str(shifted))
    assert "tensor rope_freqs.weight's offset 4 is not a multiple of the alignment 32" in line


def test_gguf_is_refused_with_a_bundled_model_or_a_gguf_source(tmp_path: Path, capsys) -> None:
    path = write_gguf(tmp_path / "m.gguf", rope={"freq_base": 500000.0})
    assert "bundled excerpt" in refused(capsys, "llama-3.1-8b", "--gguf", str(path), *FAST[1:])
    assert "is itself a GGUF file" in refused(capsys, str(path), "--gguf", str(path), *FAST[1:])
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG), encoding="utf-8")
    assert "is not a file" in refused(capsys, str(config), "--gguf", str(tmp_path / "none.gguf"))
