"""A GGUF file's positional metadata, and the Hugging Face-style config it amounts to as llama.cpp reads it.

`read_gguf(path)` reads the metadata of a GGUF file with the ``gguf`` package (`gguf.GGUFReader`) into a
frozen `GgufMetadata`: the architecture, every ``{arch}.rope.*`` key with its GGUF type, the head counts and
lengths, the context length, the sliding window, and the values of the three small per-pair tensors
``rope_freqs``, ``rope_factors_long`` and ``rope_factors_short`` when present (F32, n_rot/2 values each). No
other tensor is read: `GGUFReader` maps the file and the weights stay unread.

Before `GGUFReader` parses anything, `scan_header` walks the header, the metadata and the tensor infos itself
(reading only their bytes) and refuses a file whose counts or sizes pass the stated bounds: at most
`MAX_KEYS` metadata keys, `MAX_TENSORS` tensor infos, `MAX_ELEMENTS` array items in all the metadata and
`MAX_METADATA_BYTES` bytes before the tensor data. `GGUFReader` (gguf 0.19.0) parses every key, and holds a
few numpy views per key, tensor info and array item, about `READER_BYTES_PER_ITEM` bytes each (measured: 1.0
KiB an item, and 21 µs), so the memory the metadata takes is bounded by about (`MAX_KEYS` + `MAX_TENSORS` +
`MAX_ELEMENTS`) · `READER_BYTES_PER_ITEM`, some 1.3 GiB at the limits; a real model's metadata (a
128k-token vocabulary with its scores, types and merges, about 0.7 million items) takes about 0.7 GiB and
15 s. The weights are mapped, never read. A truncated file, one that is not GGUF (no ``GGUF`` magic), one past
a bound and a key of the wrong type are a `GgufError` in one line.

`gguf_config(metadata)` returns the config the suite's reader (`model_config.read_config`) understands, *as
llama.cpp's loader interprets the file* (llama.cpp vendor commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f,
``src/llama-model.cpp::llama_model::load_hparams``, ``src/llama-context.cpp`` (the context parameters),
``ggml/src/ggml.c`` and ``ggml/src/ggml-cpu/ops.cpp`` (the rope kernel)):

* ``rope.freq_base`` is the base, 10000 when absent (``hparams.rope_freq_base_train = 10000.0f``);
* ``rope.scaling.type`` selects the rule (`rope_rules.RopeRule.gguf`); absent, it is ``linear``
  (``std::string rope_scaling("linear")``) with ``rope.scaling.factor`` (absent or 0: factor 1, unscaled);
* ``rope.scaling.original_context_length`` is YaRN's and LongRoPE's L₀, ``context_length`` when absent
  (``hparams.n_ctx_orig_yarn = hparams.n_ctx_train``);
* ``rope.dimension_count`` below the head's ``attention.key_length`` (else ``embedding_length /
  attention.head_count``) rotates part of the head (``partial_rotary_factor``);
* ``rope.freq_base_swa`` is the sliding layers' base: absent, the generic loader gives them the global base
  ("by default assume that the sliding-window layers use the same scaling type as the non-sliding-window
  layers"), Gemma 3's loader 10000 (``rope_freq_base_train_swa = 10000.0f``, its sliding layers unscaled);
* ``rope.dimension_sections`` are M-RoPE's sections, laid out by the architecture (Qwen2-VL blocked,
  Qwen3-VL interleaved: ``llama_model_rope_type``), never by a key;
* the ``rope_freqs`` tensor holds Llama 3's per-pair divisors: the reader has no per-pair form of its own,
  so they are matched against the Llama 3 rule (`llama3_divisors`, the suite's computation) and given as its
  parameters; divisors that follow no Llama 3 rule are given as LongRoPE with equal short and long factors
  (the reader's form of per-pair divisors) and reported;
* LongRoPE's ``rope_factors_long``/``rope_factors_short`` are its long and short factors, with
  ``rope.scaling.attn_factor`` (default 1) its cos/sin factor;
* YaRN's cos/sin factor is recomputed from ``rope.scaling.factor`` (0.1·ln s + 1, or DeepSeek's ratio with
  ``rope.scaling.yarn_log_multiplier``) times ``rope.scaling.attn_factor``: a ``yarn_attn_factor`` in the
  file is overwritten whenever ``yarn_ext_factor`` ≠ 0 (``llama_context::llama_context`` in
  ``src/llama-context.cpp``); the correction range is always truncated (``ggml_rope_yarn_corr_dims``); beta
  32 and 1 unless the architecture reads the keys.

Every produced config key is mapped to the GGUF key it came from (`GgufConfig.sources`), so a finding names
the GGUF key, and each reading that differs from transformers' is a note (`GgufConfig.notes`).
"""

from __future__ import annotations

import math
import mmap
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .model_config import MAX_HEAD_DIM, Note
from .rope_rules import BY_KIND, RULES
from .scaling import RopeScaling

#: The llama.cpp commit the interpretation follows.
LLAMA_CPP = "llama.cpp 0c1e5709"
#: What a GGUF file's findings concern.
CONCERNS = "llama.cpp's reading of the GGUF file"
#: The file's first four bytes.
MAGIC = b"GGUF"
#: The GGUF versions read (those `gguf.GGUFReader` reads).
VERSIONS = (2, 3)
#: The most metadata keys read (real files have 30 to 60).
MAX_KEYS = 2**16
#: The most tensor infos read (real models have up to a few thousand).
MAX_TENSORS = 2**16
#: The most array items in all the metadata (a 128k-token vocabulary with its scores, types and 280k merges
#: holds about 0.7 million; a 262k-token one without merges 0.8 million).
MAX_ELEMENTS = 2**20
#: The most bytes before the tensor data (header, metadata and tensor infos; real files hold 5 to 20 MiB).
MAX_METADATA_BYTES = 2**28
#: About how many bytes `gguf.GGUFReader` 0.19.0 holds per key, tensor info and array item (numpy views).
READER_BYTES_PER_ITEM = 1100
#: The bound on the memory the metadata takes while read (see the module).
MEMORY_BOUND = (MAX_KEYS + MAX_TENSORS + MAX_ELEMENTS) * READER_BYTES_PER_ITEM
#: The most values a per-pair tensor may hold (MAX_HEAD_DIM / 2 pairs).
MAX_PAIR_VALUES = MAX_HEAD_DIM // 2
#: The per-pair tensors read, by their name in the file.
PAIR_TENSORS = ("rope_freqs", "rope_factors_long", "rope_factors_short")
#: llama.cpp's loader defaults (``src/llama-hparams.h``, ``load_hparams``).
DEFAULT_BASE = 10000.0
DEFAULT_BETA_FAST = 32.0
DEFAULT_BETA_SLOW = 1.0

# GGUF value types (gguf.GGUFValueType), with the struct format of the fixed-size ones.
_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_INTEGER_TYPES = frozenset({"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "UINT64", "INT64"})
_FLOAT_TYPES = frozenset({"FLOAT32", "FLOAT64"})

#: The GGUF type llama.cpp's converter writes for each rope key (``gguf_writer.py``), by the key's tail.
ROPE_KEY_TYPES = {
    "rope.dimension_count": "UINT32",
    "rope.dimension_count_swa": "UINT32",
    "rope.dimension_sections": "ARRAY[INT32]",
    "rope.freq_base": "FLOAT32",
    "rope.freq_base_swa": "FLOAT32",
    "rope.scaling.type": "STRING",
    "rope.scaling.factor": "FLOAT32",
    "rope.scaling.alpha": "FLOAT32",
    "rope.scaling.attn_factor": "FLOAT32",
    "rope.scaling.original_context_length": "UINT32",
    "rope.scaling.finetuned": "BOOL",
    "rope.scaling.yarn_log_multiplier": "FLOAT32",
    "rope.scaling.yarn_ext_factor": "FLOAT32",
    "rope.scaling.yarn_attn_factor": "FLOAT32",
    "rope.scaling.yarn_beta_fast": "FLOAT32",
    "rope.scaling.yarn_beta_slow": "FLOAT32",
}
#: The other keys read, by their tail after ``{arch}.``, with their types.
OTHER_KEY_TYPES = {
    "context_length": "UINT32",
    "embedding_length": "UINT32",
    "block_count": "UINT32",
    "attention.head_count": "UINT32",
    "attention.head_count_kv": "UINT32",
    "attention.key_length": "UINT32",
    "attention.value_length": "UINT32",
    "attention.sliding_window": "UINT32",
}

#: The transformers model type of each llama.cpp architecture read (``conversion/*.py``'s model classes).
MODEL_TYPES = {
    "llama": "llama",
    "mistral3": "ministral3",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "qwen2moe": "qwen2_moe",
    "qwen3moe": "qwen3_moe",
    "qwen2vl": "qwen2_vl",
    "qwen3vl": "qwen3_vl",
    "qwen3vlmoe": "qwen3_vl_moe",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "gemma3": "gemma3_text",
    "phi2": "phi",
    "phi3": "phi3",
    "smollm3": "smollm3",
    "llama4": "llama4_text",
    "deepseek2": "deepseek_v3",
    "gptneox": "gpt_neox",
    "falcon": "falcon",
    "stablelm": "stablelm",
    "starcoder2": "starcoder2",
    "olmo2": "olmo2",
    "granite": "granite",
    "cohere2": "cohere2",
    "exaone4": "exaone4",
}
#: Architectures whose loader fixes a NoPE step with no key: every step-th layer is unrotated
#: (``hparams.n_no_rope_layer_step = 4`` for SmolLM3 and Llama 4 in ``load_hparams``; the graph skips
#: ``ggml_rope_ext`` where ``(il + 1) % n_no_rope_layer_step == 0``).
NO_ROPE_STEP = {"smollm3": 4, "llama4": 4}
#: Architectures whose loader fixes the sliding pattern with no key (``hparams.set_swa_pattern(6)``), and
#: gives their sliding layers base 10000, unscaled, whatever ``rope.freq_base_swa`` says.
FIXED_SWA = {"gemma3": (6, 10000.0)}
#: Architectures whose M-RoPE sections are laid out interleaved (IMROPE), not blocked (MROPE).
INTERLEAVED_MROPE = frozenset({"qwen3vl", "qwen3vlmoe"})
#: Architectures whose loader reads the YaRN keys beyond the factor (E.2 of the research notes:
#: ``src/models/grok.cpp`` all four, ``mistral3`` the betas and the log multiplier, ``deepseek2`` the log
#: multiplier).
READS_YARN = {
    "grok": ("yarn_ext_factor", "yarn_attn_factor", "yarn_beta_fast", "yarn_beta_slow"),
    "mistral3": ("yarn_beta_fast", "yarn_beta_slow", "yarn_log_multiplier"),
    "deepseek2": ("yarn_log_multiplier",),
}
#: The factor llama.cpp's DeepSeek converter prescales ``mscale_all_dim`` by in
#: ``rope.scaling.yarn_log_multiplier``; the loader divides it back.
LOG_MULTIPLIER_SCALE = 0.1


class GgufError(ValueError):
    """A GGUF file that cannot be read: one line naming what is wrong."""


@dataclass(frozen=True)
class GgufField:
    """One metadata key: its full name, its value (a number, a string, a tuple) and its GGUF type
    (``FLOAT32``, ``ARRAY[INT32]``)."""

    key: str
    value: object
    type: str


@dataclass(frozen=True)
class Header:
    """What `scan_header` found: the version, the counts, the array items and the bytes before the tensor
    data."""

    version: int
    tensors: int
    keys: int
    elements: int
    metadata_bytes: int


@dataclass(frozen=True)
class GgufMetadata:
    """A GGUF file's positional metadata (see the module): `rope` every ``{arch}.rope.*`` key, `fields` the
    other keys read (head counts and lengths, context, layers, sliding window), by their full names;
    `tensors` the per-pair tensors' values by name (``rope_freqs``, …)."""

    path: str
    architecture: str
    name: str | None
    header: Header
    rope: Mapping[str, GgufField]
    fields: Mapping[str, GgufField]
    tensors: Mapping[str, tuple[float, ...]]

    def key(self, tail: str) -> str:
        """The full name of a key: ``{arch}.`` + `tail`."""
        return f"{self.architecture}.{tail}"

    def get(self, tail: str) -> GgufField | None:
        """The field ``{arch}.{tail}``, None when the file lacks it."""
        name = self.key(tail)
        return self.rope.get(name) or self.fields.get(name)

    def value(self, tail: str, default: object = None) -> object:
        found = self.get(tail)
        return default if found is None else found.value

    def as_json(self) -> dict:
        return {
            "path": self.path,
            "version": self.header.version,
            "architecture": self.architecture,
            "name": self.name,
            "keys": {
                name: {"type": f.type, "value": _jsonable(f.value)}
                for name, f in (*self.rope.items(), *self.fields.items())
            },
            "tensors": {name: list(values) for name, values in self.tensors.items()},
        }


def _jsonable(value: object) -> object:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


# ------------------------------------------------------------------------------------------------ reading


def is_gguf(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a regular file starting with the GGUF magic (whatever its name)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == MAGIC
    except (OSError, ValueError):
        return False


class _Cursor:
    """Reads little- or big-endian GGUF values from a mapped file, refusing reads past its end."""

    def __init__(self, data: mmap.mmap | bytes, order: str, where: str) -> None:
        self.data = data
        self.order = order
        self.offset = 0
        self.where = where

    def need(self, size: int, what: str) -> None:
        if size < 0 or self.offset + size > len(self.data):
            raise GgufError(f"{self.where} is truncated: {what} runs past the end of the file")

    def take(self, fmt: str, what: str) -> int | float | bool:
        size = struct.calcsize(fmt)
        self.need(size, what)
        (value,) = struct.unpack_from(self.order + fmt, self.data, self.offset)
        self.offset += size
        return value

    def string(self, what: str, limit: int) -> bytes:
        length = self.take("Q", what)
        if length > limit:
            raise GgufError(f"{self.where}: {what} claims {length} bytes, more than the {limit} read")
        self.need(length, what)
        text = bytes(self.data[self.offset : self.offset + length])
        self.offset += length
        return text


def scan_header(path: str | os.PathLike[str]) -> Header:
    """The header, metadata and tensor infos of a GGUF file walked without keeping them, so that a file is
    refused before `GGUFReader` allocates for it: a `GgufError` for a file that is not GGUF, a version other
    than `VERSIONS`, a truncated file, or one past `MAX_KEYS`, `MAX_TENSORS`, `MAX_ELEMENTS` or
    `MAX_METADATA_BYTES`."""
    where = os.fspath(path)
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as handle:
            head = handle.read(4)
            if head != MAGIC:
                shown = "an empty file" if not head else f"it starts with {head!r}"
                raise GgufError(f"{where} is not a GGUF file ({shown}, not the magic b'GGUF')")
            if size < 24:
                raise GgufError(f"{where} is truncated: {size} bytes, fewer than a GGUF header's 24")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise GgufError(f"{where} cannot be read: {exc.strerror or exc}") from None
    try:
        return _scan(data, where, size)
    finally:
        data.close()


def _scan(data: mmap.mmap, where: str, size: int) -> Header:
    (version,) = struct.unpack_from("<I", data, 4)
    order = "<"
    if version & 0xFFFF == 0:
        order = ">"
        (version,) = struct.unpack_from(">I", data, 4)
    if version not in VERSIONS:
        raise GgufError(
            f"{where} is GGUF version {version}; versions {VERSIONS[0]} and {VERSIONS[1]} are read"
        )
    cursor = _Cursor(data, order, where)
    cursor.offset = 8
    tensors = cursor.take("Q", "the tensor count")
    keys = cursor.take("Q", "the key count")
    if keys > MAX_KEYS:
        raise GgufError(f"{where} claims {keys} metadata keys; at most {MAX_KEYS} are read")
    if tensors > MAX_TENSORS:
        raise GgufError(f"{where} claims {tensors} tensors; at most {MAX_TENSORS} are read")
    elements = 0
    limit = min(size, MAX_METADATA_BYTES)
    for index in range(keys):
        name = cursor.string(f"the name of metadata key {index}", limit)
        shown = name.decode("utf-8", "replace")
        kind = cursor.take("I", f"the type of {shown}")
        elements += _skip_value(cursor, kind, shown, MAX_ELEMENTS - elements, limit)
        if cursor.offset > MAX_METADATA_BYTES:
            break
    else:
        for index in range(tensors):
            cursor.string(f"the name of tensor {index}", limit)
            dims = cursor.take("I", f"the dimension count of tensor {index}")
            if dims > 8:
                raise GgufError(f"{where}: tensor {index} claims {dims} dimensions; GGML has at most 4")
            cursor.need(8 * dims + 12, f"the shape of tensor {index}")
            cursor.offset += 8 * dims + 12
            if cursor.offset > MAX_METADATA_BYTES:
                break
    if cursor.offset > MAX_METADATA_BYTES:
        raise GgufError(
            f"{where}'s metadata runs past {MAX_METADATA_BYTES} bytes; at most {MAX_METADATA_BYTES} are read"
        )
    return Header(version, tensors, keys, elements, cursor.offset)


def _skip_value(cursor: _Cursor, kind: int, name: str, room: int, limit: int, depth: int = 0) -> int:
    """Steps over one value of GGUF type `kind`; the array items it holds."""
    if kind in _FIXED:
        cursor.need(struct.calcsize(_FIXED[kind]), f"the value of {name}")
        cursor.offset += struct.calcsize(_FIXED[kind])
        return 0
    if kind == _STRING:
        cursor.string(f"the value of {name}", limit)
        return 0
    if kind != _ARRAY:
        raise GgufError(f"{cursor.where}: metadata key {name} has type {kind}, which GGUF does not define")
    if depth > 4:
        raise GgufError(f"{cursor.where}: metadata key {name} nests arrays more than 4 deep")
    inner = cursor.take("I", f"the item type of {name}")
    count = cursor.take("Q", f"the length of {name}")
    if count > room:
        raise GgufError(
            f"{cursor.where}: metadata key {name} claims {count} items; at most {MAX_ELEMENTS} array items "
            "are read in all"
        )
    if inner in _FIXED:
        cursor.need(count * struct.calcsize(_FIXED[inner]), f"the items of {name}")
        cursor.offset += count * struct.calcsize(_FIXED[inner])
        return count
    held = count
    for _ in range(count):
        held += _skip_value(cursor, inner, name, room - held, limit, depth + 1)
        if held > room:
            raise GgufError(f"{cursor.where}: metadata key {name} holds more than {MAX_ELEMENTS} array items")
    return held


def read_gguf(path: str | os.PathLike[str]) -> GgufMetadata:
    """The positional metadata of the GGUF file at `path` (see the module); a `GgufError` in one line for a
    file that cannot be read, and for a key read whose type is not a number, string or array as expected."""
    header = scan_header(path)
    where = os.fspath(path)
    try:
        from gguf import GGUFReader
    except ImportError:  # pragma: no cover - gguf is a dependency
        raise GgufError("reading a GGUF file needs the gguf package (pip install gguf)") from None
    try:
        reader = GGUFReader(path)
    except (ValueError, IndexError, KeyError, OverflowError, struct.error, OSError) as exc:
        raise GgufError(f"{where} cannot be read as GGUF: {exc}") from None
    arch_field = reader.get_field("general.architecture")
    if arch_field is None:
        raise GgufError(f"{where} has no general.architecture key")
    architecture = _field(arch_field, where).value
    if not isinstance(architecture, str):
        raise GgufError(f"{where}: general.architecture must be a string, got {_type_name(arch_field)}")
    name_field = reader.get_field("general.name")
    name = _field(name_field, where).value if name_field is not None else None
    rope: dict[str, GgufField] = {}
    fields: dict[str, GgufField] = {}
    prefix = f"{architecture}.rope."
    for key, found in reader.fields.items():
        if key.startswith(prefix):
            rope[key] = _checked(
                _field(found, where), ROPE_KEY_TYPES.get(key[len(architecture) + 1 :]), where
            )
    for tail, expected in OTHER_KEY_TYPES.items():
        found = reader.get_field(f"{architecture}.{tail}")
        if found is not None:
            fields[found.name] = _checked(_field(found, where), expected, where)
    tensors = {}
    for tensor in reader.tensors:
        base = tensor.name.removesuffix(".weight")
        if base in PAIR_TENSORS:
            tensors[base] = _pair_values(tensor, where)
    return GgufMetadata(
        where,
        architecture,
        name if isinstance(name, str) else None,
        header,
        MappingProxyType(rope),
        MappingProxyType(fields),
        MappingProxyType(tensors),
    )


def _type_name(found: object) -> str:
    types = [t.name for t in found.types]
    if not types:
        return "UNKNOWN"
    if types[0] == "ARRAY":
        return f"ARRAY[{types[1] if len(types) > 1 else 'EMPTY'}]"
    return types[0]


def _field(found: object, where: str) -> GgufField:
    kind = _type_name(found)
    try:
        value = found.contents()
    except (ValueError, IndexError, UnicodeDecodeError) as exc:
        raise GgufError(f"{where}: metadata key {found.name} cannot be decoded: {exc}") from None
    if isinstance(value, list):
        value = tuple(value)
    elif isinstance(value, np.generic):
        value = value.item()
    return GgufField(found.name, value, kind)


def _checked(found: GgufField, expected: str | None, where: str) -> GgufField:
    """`found` when its type is of the kind `expected` names (an integer, a float, a string, a bool, an
    array): a width other than the expected one is kept (llama.cpp's loader refuses it: a finding says so);
    another kind is a `GgufError`."""
    if expected is None:
        return found
    if _kind(found.type) != _kind(expected):
        raise GgufError(
            f"{where}: metadata key {found.key} is {found.type} ({_shown(found.value)}); llama.cpp reads it "
            f"as {expected}"
        )
    return found


def _kind(type_name: str) -> str:
    if type_name in _INTEGER_TYPES:
        return "integer"
    if type_name in _FLOAT_TYPES:
        return "number"
    if type_name.startswith("ARRAY["):
        return "array of " + _kind(type_name[6:-1])
    return type_name.lower()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _pair_values(tensor: object, where: str) -> tuple[float, ...]:
    name = tensor.name
    if tensor.tensor_type.name != "F32":
        raise GgufError(f"{where}: tensor {name} is {tensor.tensor_type.name}; llama.cpp reads it as F32")
    count = int(tensor.n_elements)
    if count > MAX_PAIR_VALUES or len([d for d in tensor.shape if d != 1]) > 1:
        shape = "×".join(str(int(d)) for d in tensor.shape)
        raise GgufError(f"{where}: tensor {name} has shape {shape}; one value per rotated pair is read")
    values = np.asarray(tensor.data, dtype=np.float64).reshape(-1)
    if values.size != count:
        raise GgufError(f"{where} is truncated: tensor {name}'s data runs past the end of the file")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise GgufError(f"{where}: tensor {name} holds a value that is not a positive finite number")
    return tuple(float(v) for v in values)


# ---------------------------------------------------------------------------------------------- the config


@dataclass
class GgufConfig:
    """The config a GGUF file amounts to as llama.cpp reads it (see the module): `sources` maps each produced
    config key (``rope_scaling.factor``) to the GGUF key or tensor it came from (or the loader default it
    took); `absent` lists the rope keys the file lacks whose default was taken; `notes` are the readings
    that differ from transformers'."""

    config: dict
    sources: dict[str, str] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def note(self, label: str, message: str, severity: str = "note") -> None:
        self.notes.append(Note(label, message, severity, CONCERNS))


def llama3_divisors(d: int, base: float, factor: float, low: float, high: float, original: int) -> np.ndarray:
    """The d/2 divisors θ_i/θ'_i of Llama 3's rule, as the suite computes it (`scaling.RopeScaling`), which
    ``conversion/llama.py::LlamaModel.generate_extra_tensors`` writes as ``rope_freqs``."""
    scaling = RopeScaling(
        "llama3", factor, original_context=original, low_freq_factor=low, high_freq_factor=high
    )
    plain = RopeScaling().frequencies(d, base)
    return plain / scaling.frequencies(d, base)


def same_float32(a: float, b: float) -> bool:
    """Whether two values are one float32 (GGUF's float metadata is float32)."""
    return bool(np.float32(a) == np.float32(b))


def divisors_agree(a: object, b: object) -> bool:
    """Whether two lists of per-pair divisors agree to float32 (a ulp or two of the converter's float32
    arithmetic)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=4e-7 * 8, atol=0.0))


def fit_llama3(
    divisors: tuple[float, ...], d: int, base: float, original: int | None
) -> tuple[float, float, float, int] | None:
    """Llama 3's (factor, low_freq_factor, high_freq_factor, original context) under which the suite's rule
    gives `divisors`, None when none does: the factor is the largest divisor; the converter's defaults (low 1,
    high 4, L₀ = `original` or 8192) are tried first, then the line the blended pairs lie on (their blend is
    linear in L₀/λ) with low 1 or the file's L₀."""
    values = np.asarray(divisors, dtype=np.float64)
    factor = float(values.max())
    if factor < 1.0 or not math.isfinite(factor):
        return None
    context = original or 8192
    candidates = [(factor, 1.0, 4.0, context)]
    theta = RopeScaling().frequencies(d, base)
    blended = (values > 1.0 + 1e-6) & (values < factor * (1 - 1e-6))
    if factor > 1 and blended.sum() >= 2:
        smooth = (1 / values[blended] - 1 / factor) / (1 - 1 / factor)
        inverse_wave = theta[blended] / (2 * math.pi)
        slope, intercept = np.polyfit(inverse_wave, smooth, 1)
        if slope > 0 and intercept < 0:
            span = 1 / -intercept  # low / (high − low) = −intercept with low = 1
            low, high = 1.0, 1.0 + span
            candidates.append((factor, low, high, round(slope * span)))
            spread = context / slope
            candidates.append((factor, -intercept * spread, -intercept * spread + spread, context))
    for factor_, low, high, original_ in candidates:
        if not (0 < low < high) or original_ <= 0:
            continue
        try:
            computed = llama3_divisors(d, base, factor_, low, high, original_)
        except ValueError:
            continue
        if divisors_agree(computed, values):
            return factor_, low, high, original_
    return None


def _float(metadata: GgufMetadata, tail: str) -> float | None:
    value = metadata.value(tail)
    return None if value is None else float(value)


def _int(metadata: GgufMetadata, tail: str) -> int | None:
    value = metadata.value(tail)
    if isinstance(value, tuple):  # a per-layer array (head counts): the first layer's
        value = value[0] if value else None
    return None if value is None else int(value)


def head_dim(metadata: GgufMetadata) -> int | None:
    """The head width llama.cpp reads: ``attention.key_length``, else ``embedding_length /
    attention.head_count``."""
    width = _int(metadata, "attention.key_length")
    if width is not None:
        return width
    embedding, heads = _int(metadata, "embedding_length"), _int(metadata, "attention.head_count")
    return embedding // heads if embedding and heads else None


def gguf_config(metadata: GgufMetadata) -> GgufConfig:
    """The config `metadata` amounts to as llama.cpp reads it (see the module)."""
    arch = metadata.architecture
    model_type = MODEL_TYPES.get(arch, arch)
    out = GgufConfig({"model_type": model_type}, {"model_type": "general.architecture"})
    config, sources = out.config, out.sources
    if arch not in MODEL_TYPES:
        out.note(
            "gguf-architecture",
            f"general.architecture {arch!r} is not one the suite maps to a transformers model type: read as "
            "model_type of that name",
            "warning",
        )
    for config_key, tail in (
        ("num_attention_heads", "attention.head_count"),
        ("num_key_value_heads", "attention.head_count_kv"),
        ("hidden_size", "embedding_length"),
        ("num_hidden_layers", "block_count"),
        ("max_position_embeddings", "context_length"),
        ("head_dim", "attention.key_length"),
    ):
        value = _int(metadata, tail)
        if value is not None:
            config[config_key] = value
            sources[config_key] = metadata.key(tail)
    for found in metadata.rope.values():
        tail = found.key[len(arch) + 1 :]
        expected = ROPE_KEY_TYPES.get(tail)
        if expected is not None and found.type != expected:
            out.note(
                "gguf-key-type",
                f"{found.key} is {found.type}; llama.cpp's loader reads it as {expected} and refuses another "
                "type (src/llama-model-loader.cpp: 'key … has wrong type')",
                "error",
            )
    _base(metadata, out)
    _rotary(metadata, out)
    _window(metadata, out)
    _sections(metadata, out)
    _scaling(metadata, out)
    step = NO_ROPE_STEP.get(arch)
    if step is not None:
        config["no_rope_layer_interval"] = step
        sources["no_rope_layer_interval"] = "no key: llama.cpp's loader fixes n_no_rope_layer_step"
        out.note(
            "gguf-nope-schedule",
            f"no GGUF key holds the NoPE schedule: llama.cpp's {arch} loader fixes n_no_rope_layer_step = "
            f"{step} (every {step}th layer unrotated, (il + 1) % {step} == 0), whatever the model was "
            "trained with",
        )
    for tail in ROPE_KEY_TYPES:
        if metadata.get(tail) is None and tail in ("rope.freq_base", "rope.scaling.type"):
            out.absent.append(metadata.key(tail))
    return out


def _base(metadata: GgufMetadata, out: GgufConfig) -> None:
    base = _float(metadata, "rope.freq_base")
    if base is None:
        base = DEFAULT_BASE
        out.sources["rope_theta"] = "no rope.freq_base: llama.cpp's default 10000"
        out.note(
            "gguf-default-base",
            f"{metadata.key('rope.freq_base')} is absent: llama.cpp takes 10000 "
            "(load_hparams: rope_freq_base_train = 10000.0f), whatever transformers' class default is",
        )
    else:
        out.sources["rope_theta"] = metadata.key("rope.freq_base")
    out.config["rope_theta"] = base


def _rotary(metadata: GgufMetadata, out: GgufConfig) -> None:
    count = _int(metadata, "rope.dimension_count")
    width = head_dim(metadata)
    if count is None or width is None or count == width:
        return
    if metadata.architecture in ("llama", "deci", "falcon"):
        out.note(
            "gguf-rotary-dims",
            f"{metadata.key('rope.dimension_count')} = {count} is not the head's {width} dims: llama.cpp's "
            f"loader refuses a {metadata.architecture} file whose n_rot differs from its head dim",
            "error",
        )
    out.config["partial_rotary_factor"] = count / width
    out.sources["partial_rotary_factor"] = metadata.key("rope.dimension_count")


def _window(metadata: GgufMetadata, out: GgufConfig) -> None:
    window = _int(metadata, "attention.sliding_window")
    arch = metadata.architecture
    if not window:
        return
    out.config["sliding_window"] = window
    out.sources["sliding_window"] = metadata.key("attention.sliding_window")
    fixed = FIXED_SWA.get(arch)
    swa = _float(metadata, "rope.freq_base_swa")
    if fixed is not None:
        pattern, base = fixed
        out.config["sliding_window_pattern"] = pattern
        out.sources["sliding_window_pattern"] = "no key: llama.cpp's loader fixes set_swa_pattern"
        if swa is not None and not same_float32(swa, base):
            out.note(
                "gguf-sliding-base",
                f"{metadata.key('rope.freq_base_swa')} = {swa:g}, but llama.cpp's {arch} loader sets the "
                f"sliding layers' base to {base:g} (rope_freq_base_train_swa = {base:g}f)",
                "warning",
            )
        out.config["rope_local_base_freq"] = base
        out.sources["rope_local_base_freq"] = (
            metadata.key("rope.freq_base_swa") if swa is not None else f"no key: llama.cpp's {arch} default"
        )
    elif swa is not None:
        out.config["rope_local_base_freq"] = swa
        out.sources["rope_local_base_freq"] = metadata.key("rope.freq_base_swa")


def _sections(metadata: GgufMetadata, out: GgufConfig) -> None:
    sections = metadata.value("rope.dimension_sections")
    if sections is None:
        return
    key = metadata.key("rope.dimension_sections")
    values = [int(v) for v in sections]
    trimmed = values[:3]
    if len(values) > 3 and any(values[3:]):
        out.note(
            "gguf-mrope-sections",
            f"{key} = {values}: the fourth section takes llama.cpp's fourth position row, 0 for text tokens; "
            "transformers has three",
            "warning",
        )
    out.config["rope_scaling"] = {"rope_type": "default", "mrope_section": trimmed}
    out.sources["rope_scaling.mrope_section"] = key
    interleaved = metadata.architecture in INTERLEAVED_MROPE
    pairs = None
    count = _int(metadata, "rope.dimension_count") or head_dim(metadata)
    if count:
        pairs = count // 2
    lost = _lanes_left_unrotated(trimmed, pairs, interleaved) if pairs else []
    if lost:
        out.note(
            "gguf-mrope-leftover",
            f"{key} = {values} lays {len(lost)} of {pairs} pairs (pairs {', '.join(map(str, lost))}) on no "
            "temporal, height or width section: ggml's mrope cache gives them the fourth position row, 0 for "
            "text tokens (src/llama-graph.cpp: '4th dim is 0'), so they do not turn, where transformers "
            "turns them with the temporal position (ggml-cpu/ops.cpp::ggml_mrope_cache_init)",
            "warning",
        )


def _lanes_left_unrotated(sections: list[int], pairs: int, interleaved: bool) -> list[int]:
    """The pairs ggml's M-RoPE cache gives the fourth position row (``ggml_mrope_cache_init``)."""
    s0, s1, s2 = [*sections, 0, 0, 0][:3]
    lost = []
    for sector in range(pairs):
        if interleaved:
            covered = (
                (sector % 3 == 1 and sector < 3 * s1)
                or (sector % 3 == 2 and sector < 3 * s2)
                or (sector % 3 == 0 and sector < 3 * s0)
            )
        else:
            covered = sector < s0 + s1 + s2
        if not covered:
            lost.append(sector)
    return lost


def _scaling(metadata: GgufMetadata, out: GgufConfig) -> None:
    config, sources = out.config, out.sources
    kind_field = metadata.get("rope.scaling.type")
    kind = "linear" if kind_field is None else str(kind_field.value)
    factor = _float(metadata, "rope.scaling.factor")
    factor = factor or 1.0
    context = _int(metadata, "context_length")
    original = _int(metadata, "rope.scaling.original_context_length")
    original_from = metadata.key("rope.scaling.original_context_length")
    if original is None:
        original, original_from = (
            context,
            f"no {original_from}: {metadata.key('context_length')} (n_ctx_train)",
        )
    attn = _float(metadata, "rope.scaling.attn_factor")
    tensors = metadata.tensors
    block: dict[str, object] = dict(config.get("rope_scaling") or {})
    prefix = "rope_scaling."
    type_key = metadata.key("rope.scaling.type")
    if kind_field is None and factor != 1.0:
        out.note(
            "gguf-default-scaling-type",
            f"{type_key} is absent: llama.cpp reads the scaling as linear "
            f"('std::string rope_scaling(\"linear\")') with {metadata.key('rope.scaling.factor')} = "
            f"{factor:g}",
        )
    if "rope_freqs" in tensors:
        _rope_freqs(metadata, out, block, kind)
    elif kind in ("linear", "none"):
        if kind == "linear" and factor != 1.0:
            block.update(rope_type="linear", factor=factor)
            sources[prefix + "rope_type"] = type_key if kind_field is not None else "no key: linear"
            sources[prefix + "factor"] = metadata.key("rope.scaling.factor")
    elif kind == "yarn":
        _yarn(metadata, out, block, factor, original, original_from, attn)
    elif kind == "longrope":
        long, short = tensors.get("rope_factors_long"), tensors.get("rope_factors_short")
        if long is None or short is None:
            out.note(
                "gguf-longrope-factors",
                f"{type_key} is longrope but the file holds no rope_factors_long/rope_factors_short tensors: "
                "llama.cpp rotates with no per-pair factors (llama_model::get_rope_factors returns none)",
                "warning",
            )
        else:
            block.update(
                rope_type="longrope",
                long_factor=list(long),
                short_factor=list(short),
                original_max_position_embeddings=original,
                attention_factor=1.0 if attn is None else attn,
            )
            if context and original:
                block["factor"] = context / original
                ratio = (metadata.key("context_length"), metadata.key("rope.scaling.original_context_length"))
                sources[prefix + "factor"] = " / ".join(ratio)
            sources.update(
                {
                    prefix + "rope_type": type_key,
                    prefix + "long_factor": "tensor rope_factors_long",
                    prefix + "short_factor": "tensor rope_factors_short",
                    prefix + "original_max_position_embeddings": original_from,
                    prefix + "attention_factor": metadata.key("rope.scaling.attn_factor")
                    if attn is not None
                    else f"no {metadata.key('rope.scaling.attn_factor')}: llama.cpp's rope_attn_factor 1",
                }
            )
            out.note(
                "gguf-longrope-switch",
                "llama.cpp picks rope_factors_long when the allocated per-sequence context (n_ctx_seq, "
                f"padded to 256) is beyond {original} (strict >), fixed for the context's life "
                "(llama_model::get_rope_factors; ggml-org/llama.cpp#24823); transformers switches per "
                "sequence on its length",
                "warning",
            )
            if attn is None:
                out.note(
                    "gguf-longrope-attention",
                    f"{metadata.key('rope.scaling.attn_factor')} is absent: llama.cpp multiplies cos and sin "
                    "by 1, not LongRoPE's √(1 + ln s/ln L₀)",
                    "warning",
                )
    else:
        out.note(
            "gguf-scaling-type",
            f"{type_key} = {kind!r} is not one llama.cpp's loader knows (none, linear, yarn, longrope): it "
            "refuses the file (GGML_ASSERT rope_scaling_type_train != UNSPECIFIED)",
            "error",
        )
    if block:
        config["rope_scaling"] = block


def _rope_freqs(metadata: GgufMetadata, out: GgufConfig, block: dict, kind: str) -> None:
    divisors = metadata.tensors["rope_freqs"]
    base = out.config["rope_theta"]
    count = _int(metadata, "rope.dimension_count") or head_dim(metadata)
    original = _int(metadata, "rope.scaling.original_context_length")
    prefix = "rope_scaling."
    if count is None or len(divisors) != count // 2:
        out.note(
            "gguf-rope-freqs",
            f"tensor rope_freqs has {len(divisors)} values; the {count} rotated dims make "
            f"{None if count is None else count // 2} pairs: the divisors are not used",
            "error",
        )
        return
    fitted = fit_llama3(divisors, count, base, original)
    if kind not in ("none", "linear") or (_float(metadata, "rope.scaling.factor") or 1.0) != 1.0:
        out.note(
            "gguf-rope-freqs",
            f"the file holds rope_freqs and {metadata.key('rope.scaling.type')} {kind!r} with factor "
            f"{_float(metadata, 'rope.scaling.factor')}: llama.cpp applies both; read as the divisors alone",
            "warning",
        )
    if fitted is not None:
        factor, low, high, context = fitted
        block.update(
            rope_type="llama3",
            factor=factor,
            low_freq_factor=low,
            high_freq_factor=high,
            original_max_position_embeddings=context,
        )
        for key in ("rope_type", "factor", "low_freq_factor", "high_freq_factor"):
            out.sources[prefix + key] = "tensor rope_freqs (Llama 3's rule fitted)"
        out.sources[prefix + "original_max_position_embeddings"] = (
            metadata.key("rope.scaling.original_context_length")
            if original is not None
            else "tensor rope_freqs (Llama 3's rule fitted)"
        )
        out.note(
            "gguf-rope-freqs-llama3",
            f"tensor rope_freqs follows Llama 3's rule at factor {factor:g}, low_freq_factor {low:g}, "
            f"high_freq_factor {high:g}, original context {context} (the suite's computation, to float32): "
            "answered as that rule",
        )
        return
    block.update(
        rope_type="longrope",
        factor=1.0,
        long_factor=list(divisors),
        short_factor=list(divisors),
        original_max_position_embeddings=_int(metadata, "context_length") or 8192,
        attention_factor=1.0,
    )
    for key in ("rope_type", "factor", "long_factor", "short_factor", "original_max_position_embeddings"):
        out.sources[prefix + key] = "tensor rope_freqs (its divisors as given)"
    out.sources[prefix + "attention_factor"] = "no key: llama.cpp's rope_attn_factor 1"
    out.note(
        "gguf-rope-freqs",
        "tensor rope_freqs follows no Llama 3 rule the suite finds: its divisors are answered as given (as "
        "LongRoPE with equal short and long factors, no attention factor)",
        "warning",
    )


def yarn_attention(factor: float, log_multiplier: float | None, attn: float | None, arch: str) -> float:
    """YaRN's cos/sin factor as llama.cpp computes it (``llama_context::llama_context``): get_mscale(s), or
    with a log multiplier m get_mscale(s, mscale)/get_mscale(s, m) (mscale = m for DeepSeek 2 when m ≠ 1,
    else 1), times ``rope.scaling.attn_factor``; in float32, as there."""
    f32 = np.float32
    s = f32(factor)

    def mscale(value: float) -> np.float32:
        return f32(1.0) if s <= 1 else f32(0.1) * f32(value) * f32(np.log(s)) + f32(1.0)

    if log_multiplier:
        m = f32(log_multiplier)
        first = m if arch == "deepseek2" and m != 1 else f32(1.0)
        value = mscale(first) / mscale(m)
    else:
        value = mscale(1.0)
    return float(f32(value) * f32(1.0 if attn is None else attn))


def _yarn(
    metadata: GgufMetadata,
    out: GgufConfig,
    block: dict,
    factor: float,
    original: int | None,
    original_from: str,
    attn: float | None,
) -> None:
    arch = metadata.architecture
    reads = READS_YARN.get(arch, ())
    prefix = "rope_scaling."
    key = metadata.key
    log_key = key("rope.scaling.yarn_log_multiplier")
    log_mul = _float(metadata, "rope.scaling.yarn_log_multiplier") if "yarn_log_multiplier" in reads else None
    if log_mul is not None:
        log_mul = log_mul / LOG_MULTIPLIER_SCALE
    value = yarn_attention(factor, log_mul, attn, arch)
    block.update(rope_type="yarn", factor=factor, original_max_position_embeddings=original, truncate=True)
    if log_mul is not None:
        # DeepSeek's pair: the loader's mscale_all_dims is the log multiplier (its softmax scale too), and
        # its mscale the same for DeepSeek 2 when not 1 (llama_context::llama_context)
        block["mscale_all_dim"] = log_mul
        block["mscale"] = log_mul if arch == "deepseek2" and log_mul != 1 else 1.0
        out.sources[prefix + "mscale_all_dim"] = f"{log_key} (÷ 0.1)"
        out.sources[prefix + "mscale"] = f"{log_key} (÷ 0.1; DeepSeek 2 when not 1, else 1)"
    if log_mul is None or attn is not None:
        block["attention_factor"] = value
    out.sources.update(
        {
            prefix + "rope_type": key("rope.scaling.type"),
            prefix + "factor": key("rope.scaling.factor"),
            prefix + "original_max_position_embeddings": original_from,
            prefix + "attention_factor": f"{key('rope.scaling.factor')} (get_mscale)"
            + (f", {log_key}" if log_mul is not None else "")
            + (f", {key('rope.scaling.attn_factor')}" if attn is not None else ""),
            prefix + "truncate": "no key: ggml_rope_yarn_corr_dims always truncates",
        }
    )
    for name, default in (("yarn_beta_fast", DEFAULT_BETA_FAST), ("yarn_beta_slow", DEFAULT_BETA_SLOW)):
        config_key = name.removeprefix("yarn_")
        written = _float(metadata, f"rope.scaling.{name}")
        if name in reads and written is not None:
            block[config_key] = written
            out.sources[prefix + config_key] = key(f"rope.scaling.{name}")
        else:
            block[config_key] = default
            out.sources[prefix + config_key] = f"no key read: llama.cpp's {default:g}"
            if written is not None and not same_float32(written, default):
                out.note(
                    "gguf-yarn-key-unread",
                    f"{key(f'rope.scaling.{name}')} = {written:g} is not read by llama.cpp's {arch} loader: "
                    f"it takes {default:g}",
                    "warning",
                )
    yarn_attn = _float(metadata, "rope.scaling.yarn_attn_factor")
    if yarn_attn is not None and not same_float32(yarn_attn, value):
        out.note(
            "gguf-yarn-attn-factor",
            f"{key('rope.scaling.yarn_attn_factor')} = {yarn_attn:g} is overwritten: llama.cpp recomputes "
            f"YaRN's cos/sin factor from {key('rope.scaling.factor')} as {value:.6g} whenever "
            "yarn_ext_factor ≠ 0 (src/llama-context.cpp, llama_context::llama_context)",
            "warning",
        )
    ext = _float(metadata, "rope.scaling.yarn_ext_factor")
    if ext is not None and not same_float32(ext, 1.0):
        reads_ext = "yarn_ext_factor" in reads
        like = (
            " (the value of rope.scaling.factor: a converter that writes the factor there, "
            "ikawrakow/ik_llama.cpp#2003)"
            if same_float32(ext, factor)
            else ""
        )
        out.note(
            "gguf-yarn-ext-factor",
            f"{key('rope.scaling.yarn_ext_factor')} = {ext:g}{like}: a runtime that reads it mixes "
            f"extrapolated and interpolated angles by ramp · {ext:g} (ggml-cpu/ops.cpp::rope_yarn), where "
            "transformers' YaRN has 1; "
            + (
                f"llama.cpp's {arch} loader reads it"
                if reads_ext
                else f"llama.cpp's {arch} loader does not read it (ik_llama.cpp does)"
            ),
            "error" if reads_ext else "warning",
        )
    if metadata.get("rope.scaling.yarn_log_multiplier") is not None and "yarn_log_multiplier" not in reads:
        out.note(
            "gguf-yarn-key-unread",
            f"{log_key} is not read by llama.cpp's {arch} loader: YaRN's cos/sin factor is 0.1·ln s + 1",
            "warning",
        )
    out.note(
        "gguf-yarn-truncated",
        "llama.cpp always truncates YaRN's correction range to whole dims, in float32 "
        "(ggml.c::ggml_rope_yarn_corr_dims); transformers' truncate = false is not representable",
    )


#: Every rule whose ``rope.scaling.type`` the converter writes, by that value.
BY_GGUF_TYPE = {rule.gguf: rule for rule in RULES if rule.gguf}
#: Llama 3's rule (its divisors go to the ``rope_freqs`` tensor).
LLAMA3 = BY_KIND["llama3"]
