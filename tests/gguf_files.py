"""Tiny GGUF files written with `gguf.GGUFWriter`: a handful of metadata keys and the small per-pair tensors,
no weights, shared by the test modules of GGUF input (a test module imports none of the others)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np


def write_gguf(
    path: Path,
    arch: str = "llama",
    *,
    heads: int = 4,
    head_dim: int = 16,
    layers: int = 4,
    context: int = 4096,
    rope: Mapping[str, object] | None = None,
    tensors: Mapping[str, Sequence[float]] | None = None,
    extra: Mapping[str, object] | None = None,
    arrays: Mapping[str, Sequence[object]] | None = None,
    big_endian: bool = False,
) -> Path:
    """A GGUF file at `path`: `arch`'s heads, width, layers and context, the ``{arch}.rope.*`` keys of `rope`
    (by their tail, e.g. ``freq_base``, written with the writer's type for them; a str where a number is
    expected is written as a string), the tensors of `tensors` (``rope_freqs``, …: float32, unless given as
    a numpy array of a type other than float64), the `extra` keys (full names, value types inferred) and
    the `arrays` (full names: a tokenizer's tokens, scores, …); big-endian when `big_endian`."""
    import gguf

    endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
    writer = gguf.GGUFWriter(str(path), arch, endianess=endian)
    writer.add_context_length(context)
    writer.add_embedding_length(heads * head_dim)
    writer.add_block_count(layers)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_key_length(head_dim)
    for tail, value in (rope or {}).items():
        key = f"{arch}.rope.{tail}"
        if isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, (list, tuple)):
            writer.add_array(key, list(value))
        elif tail in ("dimension_count", "dimension_count_swa", "scaling.original_context_length"):
            writer.add_uint32(key, int(value))
        else:
            writer.add_float32(key, float(value))
    for key, value in (extra or {}).items():
        if isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, float):
            writer.add_float32(key, value)
        else:
            writer.add_uint32(key, int(value))
    for key, values in (arrays or {}).items():
        writer.add_array(key, values)
    for name, values in (tensors or {}).items():
        typed = isinstance(values, np.ndarray) and values.dtype != np.float64
        data = values if typed else np.asarray(values, dtype=np.float32)
        writer.add_tensor(f"{name}.weight", data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
