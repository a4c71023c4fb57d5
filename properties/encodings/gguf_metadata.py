"""A GGUF file's positional metadata, and the Hugging Face-style config it amounts to as llama.cpp reads it.

`read_gguf(path)` reads the metadata of a GGUF file into a frozen `GgufMetadata`: the architecture, every
``{arch}.rope.*`` key with its GGUF type, the head counts and lengths, the context length, the sliding window,
and the values of the three small per-pair tensors ``rope_freqs``, ``rope_factors_long`` and
``rope_factors_short`` when present (F32, n_rot/2 values each, as llama.cpp's loader requires). The format's
vocabulary (value and tensor types, key names, magic, default alignment) is the ``gguf`` package's; the
reading is the module's own, in one pass: the header (magic, version 2 or 3, little-endian, the counts),
then each key, whose value is decoded only when the suite reads the key (``general.architecture``,
``general.name``, ``general.alignment``, the ``{arch}.*`` keys above) and otherwise stepped over by its size,
never decoded: a string by its length, an array of numbers by item size × count at once, an array of strings
item by item by their lengths; then the tensor infos, of which only the per-pair tensors' are kept, and
those tensors' data at the data section's start (the infos' end, aligned to ``general.alignment``, 32 when
absent) plus their offsets. No other tensor is read, and the file is neither mapped nor held whole: it is
read through a window of at most `WINDOW_BYTES` (1 MiB).

So the memory a file takes is bounded by the window and the kept keys, not by the file: at most
`MAX_KEPT_KEYS` keys are kept, each a name of at most `MAX_NAME_BYTES` and a value of at most
`MAX_VALUE_BYTES` in the file, which gives `MEMORY_BOUND`, about 9 MiB beyond the interpreter, whatever the
vocabulary (measured, as tracemalloc's peak: about 5 KiB for a small file, read whole, and the 1 MiB window
and the same 5 KiB for one with a million strings). The time is that of the strings walked, a fraction
of a microsecond each: well under a second for a million. The walk stops at
`MAX_KEYS` keys, `MAX_TENSORS` tensor infos, `MAX_ELEMENTS` array items in all the metadata and
`MAX_METADATA_BYTES` bytes before the tensor data. A truncated file, one that is not GGUF (no ``GGUF``
magic), a big-endian or version-1 file, one past a bound, a key read of the wrong type, and a per-pair
tensor of another type or size are a `GgufError` in one line.

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

import dataclasses
import math
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import BinaryIO

import numpy as np
from gguf import GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GGMLQuantizationType, GGUFValueType, Keys

from .model_config import MAX_HEAD_DIM, Note
from .rope_rules import BY_KIND, RULES
from .scaling import RopeScaling

#: The llama.cpp commit the interpretation follows.
LLAMA_CPP = "llama.cpp 0c1e5709"
#: What a GGUF file's findings concern.
CONCERNS = "llama.cpp's reading of the GGUF file"
#: The file's first four bytes (`gguf.GGUF_MAGIC`, little-endian: b"GGUF").
MAGIC = GGUF_MAGIC.to_bytes(4, "little")
#: The GGUF versions read (2 and 3 share one layout; 1 had 32-bit counts).
VERSIONS = (2, 3)
#: The most metadata keys read (real files have 30 to 60).
MAX_KEYS = 2**16
#: The most tensor infos read (real models have up to a few thousand).
MAX_TENSORS = 2**16
#: The most array items walked in all the metadata (a 128k-token vocabulary with its scores, types and 280k
#: merges holds about 0.7 million; a 262k-token one with as many merges about 1 million). Arrays of numbers
#: are stepped over at once; strings one by one, by their lengths, so this bounds the time a file takes.
MAX_ELEMENTS = 2**23
#: The most bytes before the tensor data (header, metadata and tensor infos; real files hold 5 to 20 MiB).
MAX_METADATA_BYTES = 2**28
#: The longest key or tensor name read (the GGUF specification's bound on a key).
MAX_NAME_BYTES = 2**16 - 1
#: The most keys kept: those the suite reads (``general.*``, ``{arch}.rope.*``, `OTHER_KEY_TYPES`); real
#: files have 10 to 30.
MAX_KEPT_KEYS = 64
#: The most bytes a kept key's value takes in the file (M-RoPE's sections take 16, a per-layer array of a
#: thousand layers 4096).
MAX_VALUE_BYTES = 2**12
#: The most bytes of the file held at once by the reader's window (one read).
WINDOW_BYTES = 2**20
#: A value's decoded form takes at most this many times its bytes in the file (a Python int or float and
#: its tuple slot for a 4-byte item, a str for a string and its 8-byte length).
DECODED_BYTES_PER_BYTE = 16
#: The deepest nesting of arrays in arrays read.
MAX_DEPTH = 4
#: GGML's most tensor dimensions (``GGML_MAX_DIMS``).
MAX_DIMS = 4
#: The most values a per-pair tensor may hold (MAX_HEAD_DIM / 2 pairs).
MAX_PAIR_VALUES = MAX_HEAD_DIM // 2
#: The per-pair tensors read, by their name in the file.
PAIR_TENSORS = ("rope_freqs", "rope_factors_long", "rope_factors_short")
#: The bound on the memory a file's reading takes beyond the interpreter's (see the module): the window, the
#: kept keys, each a name and a decoded value, and the per-pair tensors' values, whatever the file's size.
MEMORY_BOUND = (
    WINDOW_BYTES
    + MAX_KEPT_KEYS * (MAX_NAME_BYTES + DECODED_BYTES_PER_BYTE * MAX_VALUE_BYTES)
    + len(PAIR_TENSORS) * MAX_PAIR_VALUES * 4 * DECODED_BYTES_PER_BYTE
)
#: llama.cpp's loader defaults (``src/llama-hparams.h``, ``load_hparams``).
DEFAULT_BASE = 10000.0
DEFAULT_BETA_FAST = 32.0
DEFAULT_BETA_SLOW = 1.0

#: The general keys read (the architecture, the name, the tensor data's alignment).
_GENERAL_KEYS = frozenset({Keys.General.ARCHITECTURE, Keys.General.NAME, Keys.General.ALIGNMENT})
_T = GGUFValueType
#: The fixed-size GGUF value types, with their little-endian layout.
_FIXED = {
    kind: struct.Struct("<" + fmt)
    for kind, fmt in (
        (_T.UINT8, "B"),
        (_T.INT8, "b"),
        (_T.UINT16, "H"),
        (_T.INT16, "h"),
        (_T.UINT32, "I"),
        (_T.INT32, "i"),
        (_T.FLOAT32, "f"),
        (_T.BOOL, "?"),
        (_T.UINT64, "Q"),
        (_T.INT64, "q"),
        (_T.FLOAT64, "d"),
    )
}
_VALUE_TYPES = frozenset(int(t) for t in GGUFValueType)
_U32, _U64 = _FIXED[_T.UINT32], _FIXED[_T.UINT64]
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
    """A file's header as read: the version, the counts, the array items walked and the bytes before the
    tensor data (before its alignment)."""

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
    """Reads a little-endian GGUF file through a window of at most `WINDOW_BYTES` (more only for one read
    larger than that), refusing reads past its end: the file is never held whole, nor mapped."""

    def __init__(self, handle: BinaryIO, size: int, where: str) -> None:
        self.handle = handle
        self.size = size
        self.where = where
        self.offset = 0
        self.window = b""
        self.start = 0

    def truncated(self, what: str) -> GgufError:
        return GgufError(f"{self.where} is truncated: {what} runs past the end of the file")

    def need(self, size: int, what: str) -> None:
        if size < 0 or self.offset + size > self.size:
            raise self.truncated(what)

    def fill(self, offset: int, size: int, what: str) -> None:
        """Moves the window to start at `offset`, holding at least `size` bytes (the old window let go
        first, so that two are never held)."""
        self.window = b""
        self.handle.seek(offset)
        self.window = self.handle.read(min(max(size, WINDOW_BYTES), self.size - offset))
        self.start = offset
        if len(self.window) < size:
            raise self.truncated(what)

    def view(self, size: int, what: str) -> int:
        """The window's index of the next `size` bytes (they lie in the file)."""
        self.need(size, what)
        at = self.offset - self.start
        if at < 0 or at + size > len(self.window):
            self.fill(self.offset, size, what)
            at = 0
        return at

    def take(self, packed: struct.Struct, what: str) -> int | float | bool:
        at = self.view(packed.size, what)
        (value,) = packed.unpack_from(self.window, at)
        self.offset += packed.size
        return value

    def bytes(self, size: int, what: str) -> bytes:
        at = self.view(size, what)
        self.offset += size
        return self.window[at : at + size]

    def skip(self, size: int, what: str) -> None:
        self.need(size, what)
        self.offset += size

    def string(self, what: str, limit: int) -> bytes:
        length = self.take(_U64, what)
        if length > limit:
            raise GgufError(f"{self.where}: {what} claims {length} bytes, more than the {limit} read")
        return self.bytes(length, what)

    def skip_strings(self, count: int, what: str) -> None:
        """Steps over `count` strings, reading only their lengths (the hot loop of a vocabulary)."""
        unpack = _U64.unpack_from
        offset, size = self.offset, self.size
        window, start = self.window, self.start
        end = start + len(window)
        for _ in range(count):
            if offset + 8 > end:
                if offset + 8 > size:
                    raise self.truncated(what)
                window = b""  # let the old window go before the next is read
                self.fill(offset, 8, what)
                window, start = self.window, self.start
                end = start + len(window)
            (length,) = unpack(window, offset - start)
            offset += 8 + length
        if offset > size:
            raise self.truncated(what)
        self.offset = offset


def _type_name(kind: int, inner: int | None = None) -> str:
    """A GGUF type's name (``FLOAT32``, ``ARRAY[INT32]``)."""
    if kind != GGUFValueType.ARRAY:
        return GGUFValueType(kind).name
    return f"ARRAY[{GGUFValueType(inner).name}]"


def _known_type(cursor: _Cursor, kind: int, name: str) -> int:
    if kind not in _VALUE_TYPES:
        raise GgufError(f"{cursor.where}: metadata key {name} has type {kind}, which GGUF does not define")
    return kind


def _skip_value(cursor: _Cursor, kind: int, name: str, room: int, depth: int = 0) -> int:
    """Steps over one value of GGUF type `kind` without decoding it; the array items it holds (at most
    `room`)."""
    what = f"the value of {name}"
    if kind in _FIXED:
        cursor.skip(_FIXED[kind].size, what)
        return 0
    if kind == GGUFValueType.STRING:
        cursor.skip(cursor.take(_U64, what), what)
        return 0
    if depth > MAX_DEPTH:
        raise GgufError(f"{cursor.where}: metadata key {name} nests arrays more than {MAX_DEPTH} deep")
    inner = _known_type(cursor, cursor.take(_U32, f"the item type of {name}"), name)
    count = cursor.take(_U64, f"the length of {name}")
    if count > room:
        raise GgufError(
            f"{cursor.where}: metadata key {name} claims {count} items; at most {MAX_ELEMENTS} array items "
            "are read in all"
        )
    if inner in _FIXED:
        cursor.skip(count * _FIXED[inner].size, f"the items of {name}")
    elif inner == GGUFValueType.STRING:
        cursor.skip_strings(count, f"the items of {name}")
    else:
        held = count
        for _ in range(count):
            held += _skip_value(cursor, inner, name, room - held, depth + 1)
        return held
    return count


def _decode_value(cursor: _Cursor, kind: int, name: str, stop: int, depth: int = 0) -> tuple[object, str]:
    """One value of GGUF type `kind` decoded, with its type's name; a `GgufError` when it runs past `stop`
    (at most `MAX_VALUE_BYTES` from its start)."""
    too_long = f"{cursor.where}: metadata key {name} holds more than the {MAX_VALUE_BYTES} bytes read for it"
    what = f"the value of {name}"
    if kind in _FIXED:
        return cursor.take(_FIXED[kind], what), _type_name(kind)
    if kind == GGUFValueType.STRING:
        length = cursor.take(_U64, what)
        if cursor.offset + length > stop:
            cursor.need(length, what)
            raise GgufError(too_long)
        text = cursor.bytes(length, what)
        try:
            return text.decode("utf-8"), "STRING"
        except UnicodeDecodeError as exc:
            raise GgufError(f"{cursor.where}: metadata key {name} cannot be decoded: {exc}") from None
    if depth > MAX_DEPTH:
        raise GgufError(f"{cursor.where}: metadata key {name} nests arrays more than {MAX_DEPTH} deep")
    inner = _known_type(cursor, cursor.take(_U32, f"the item type of {name}"), name)
    count = cursor.take(_U64, f"the length of {name}")
    if inner in _FIXED:
        packed = _FIXED[inner]
        if count * packed.size > stop - cursor.offset:
            cursor.need(count * packed.size, f"the items of {name}")
            raise GgufError(too_long)
        raw = cursor.bytes(count * packed.size, f"the items of {name}")
        values = tuple(v for (v,) in packed.iter_unpack(raw))
    else:
        values = []
        for _ in range(count):
            if cursor.offset >= stop:
                raise GgufError(too_long)
            values.append(_decode_value(cursor, inner, name, stop, depth + 1)[0])
        values = tuple(values)
    return values, _type_name(kind, inner)


def _kept(name: str, architecture: str | None) -> bool:
    """Whether the key `name` is one the suite reads: the general keys, and ``{arch}.rope.*`` and the other
    ``{arch}.*`` keys of `OTHER_KEY_TYPES` (of any one-word prefix while the architecture is not yet
    known)."""
    if name in _GENERAL_KEYS:
        return True
    prefix, dot, tail = name.partition(".")
    if not dot or (architecture is not None and prefix != architecture):
        return False
    return tail.startswith("rope.") or tail in OTHER_KEY_TYPES


@dataclass(frozen=True)
class _TensorInfo:
    name: str
    shape: tuple[int, ...]
    type: int
    offset: int


def read_gguf(path: str | os.PathLike[str]) -> GgufMetadata:
    """The positional metadata of the GGUF file at `path` (see the module); a `GgufError` in one line for a
    file that cannot be read, and for a key read whose type is not a number, string or array as expected."""
    where = os.fspath(path)
    try:
        size = os.stat(path).st_size
        with open(path, "rb", buffering=0) as handle:
            return _read(_Cursor(handle, size, where))
    except OSError as exc:
        raise GgufError(f"{where} cannot be read: {exc.strerror or exc}") from None


def _read(cursor: _Cursor) -> GgufMetadata:
    where, size = cursor.where, cursor.size
    head = cursor.bytes(min(size, 4), "the magic")
    if head != MAGIC:
        shown = "an empty file" if not head else f"it starts with {head!r}"
        raise GgufError(f"{where} is not a GGUF file ({shown}, not the magic {MAGIC!r})")
    if size < 24:
        raise GgufError(f"{where} is truncated: {size} bytes, fewer than a GGUF header's 24")
    version = cursor.take(_U32, "the version")
    if version & 0xFFFF == 0 and struct.unpack(">I", struct.pack("<I", version))[0] in VERSIONS:
        raise GgufError(
            f"{where} is a big-endian GGUF file; llama.cpp, on the little-endian machines it runs on, reads "
            "little-endian files only"
        )
    if version not in VERSIONS:
        raise GgufError(
            f"{where} is GGUF version {version}; versions {VERSIONS[0]} and {VERSIONS[1]} are read"
        )
    tensors = cursor.take(_U64, "the tensor count")
    keys = cursor.take(_U64, "the key count")
    if keys > MAX_KEYS:
        raise GgufError(f"{where} claims {keys} metadata keys; at most {MAX_KEYS} are read")
    if tensors > MAX_TENSORS:
        raise GgufError(f"{where} claims {tensors} tensors; at most {MAX_TENSORS} are read")
    kept: dict[str, GgufField] = {}
    architecture = None
    elements = 0
    for index in range(keys):
        name = cursor.string(f"the name of metadata key {index}", MAX_NAME_BYTES).decode("utf-8", "replace")
        kind = _known_type(cursor, cursor.take(_U32, f"the type of {name}"), name)
        if not _kept(name, architecture):
            elements += _skip_value(cursor, kind, name, MAX_ELEMENTS - elements)
        else:
            start = cursor.offset
            try:
                value, type_name = _decode_value(cursor, kind, name, start + MAX_VALUE_BYTES)
            except GgufError:
                if name != Keys.General.NAME:
                    raise
                cursor.offset = start  # an overlong name is not needed: stepped over
                elements += _skip_value(cursor, kind, name, MAX_ELEMENTS - elements)
                continue
            kept[name] = GgufField(name, value, type_name)
            elements += len(value) if isinstance(value, tuple) else 0
            if name == Keys.General.ARCHITECTURE and isinstance(value, str):
                architecture = value
                kept = {k: f for k, f in kept.items() if _kept(k, architecture)}
            if len(kept) > MAX_KEPT_KEYS:
                raise GgufError(f"{where} holds more than {MAX_KEPT_KEYS} keys of the kinds read")
        if cursor.offset > MAX_METADATA_BYTES:
            raise _past_metadata_bound(where)
    infos: dict[str, _TensorInfo] = {}
    for index in range(tensors):
        name = cursor.string(f"the name of tensor {index}", MAX_NAME_BYTES).decode("utf-8", "replace")
        dims = cursor.take(_U32, f"the dimension count of tensor {name}")
        if dims > MAX_DIMS:
            raise GgufError(f"{where}: tensor {name} claims {dims} dimensions; GGML has at most {MAX_DIMS}")
        base = name.removesuffix(".weight")
        if base not in PAIR_TENSORS:
            cursor.skip(8 * dims + 12, f"the shape of tensor {name}")
        else:
            shape = tuple(cursor.take(_U64, f"the shape of tensor {name}") for _ in range(dims))
            kind = cursor.take(_U32, f"the type of tensor {name}")
            offset = cursor.take(_U64, f"the offset of tensor {name}")
            if base in infos:
                raise GgufError(f"{where}: tensor {name} appears twice")
            infos[base] = _TensorInfo(name, shape, kind, offset)
        if cursor.offset > MAX_METADATA_BYTES:
            raise _past_metadata_bound(where)
    header = Header(version, tensors, keys, elements, cursor.offset)
    alignment = _alignment(kept, where)
    data_start = -(-cursor.offset // alignment) * alignment
    metadata = _metadata(kept, where, header)
    pairs = _pairs(metadata)
    for info in infos.values():
        if info.offset % alignment:
            raise GgufError(
                f"{where}: tensor {info.name}'s offset {info.offset} is not a multiple of the alignment "
                f"{alignment}; llama.cpp refuses it (ggml/src/gguf.cpp)"
            )
    values = {base: _pair_values(cursor, info, data_start, pairs) for base, info in infos.items()}
    return dataclasses.replace(metadata, tensors=MappingProxyType(values))


def _past_metadata_bound(where: str) -> GgufError:
    return GgufError(
        f"{where}'s metadata runs past {MAX_METADATA_BYTES} bytes; at most {MAX_METADATA_BYTES} are read"
    )


def _alignment(kept: Mapping[str, GgufField], where: str) -> int:
    """The file's ``general.alignment`` (`GGUF_DEFAULT_ALIGNMENT` when absent): a power of two."""
    found = kept.get(Keys.General.ALIGNMENT)
    if found is None:
        return GGUF_DEFAULT_ALIGNMENT
    value = found.value
    if found.type not in _INTEGER_TYPES or value <= 0 or value & (value - 1):
        raise GgufError(
            f"{where}: {Keys.General.ALIGNMENT} is {found.type} {_shown(value)}; llama.cpp reads a power "
            "of two"
        )
    return value


def _metadata(kept: Mapping[str, GgufField], where: str, header: Header) -> GgufMetadata:
    arch_field = kept.get(Keys.General.ARCHITECTURE)
    if arch_field is None:
        raise GgufError(f"{where} has no {Keys.General.ARCHITECTURE} key")
    architecture = arch_field.value
    if not isinstance(architecture, str):
        raise GgufError(f"{where}: {Keys.General.ARCHITECTURE} must be a string, got {arch_field.type}")
    name_field = kept.get(Keys.General.NAME)
    name = name_field.value if name_field is not None else None
    prefix = f"{architecture}.rope."
    rope = {
        key: _checked(found, ROPE_KEY_TYPES.get(key[len(architecture) + 1 :]), where)
        for key, found in kept.items()
        if key.startswith(prefix)
    }
    fields = {}
    for tail, expected in OTHER_KEY_TYPES.items():
        found = kept.get(f"{architecture}.{tail}")
        if found is not None:
            fields[found.key] = _checked(found, expected, where)
    return GgufMetadata(
        where,
        architecture,
        name if isinstance(name, str) else None,
        header,
        MappingProxyType(rope),
        MappingProxyType(fields),
        MappingProxyType({}),
    )


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


def _pairs(metadata: GgufMetadata) -> int | None:
    """The rotated pairs llama.cpp sizes the per-pair tensors by: n_rot/2 (``rope.dimension_count``, else the
    head's width); None when the file says neither."""
    rotated = _int(metadata, "rope.dimension_count") or head_dim(metadata)
    return rotated // 2 if rotated else None


def _pair_values(cursor: _Cursor, info: _TensorInfo, data_start: int, pairs: int | None) -> tuple[float, ...]:
    """A per-pair tensor's values, read at its offset past the tensor infos: F32, n_rot/2 of them (llama.cpp's
    loader refuses another type or shape, ``create_tensor(…, {n_rot/2})``)."""
    where, name = cursor.where, info.name
    if info.type != GGMLQuantizationType.F32:
        try:
            shown = GGMLQuantizationType(info.type).name
        except ValueError:
            shown = f"of type {info.type}, which GGML does not define"
        raise GgufError(f"{where}: tensor {name} is {shown}; llama.cpp reads it as F32")
    count = math.prod(info.shape)
    shape = "×".join(str(d) for d in info.shape) or "scalar"
    if len([d for d in info.shape if d != 1]) > 1 or count > MAX_PAIR_VALUES or (pairs and count != pairs):
        wanted = f"{pairs}, one value per rotated pair (n_rot/2)" if pairs else "one value per rotated pair"
        raise GgufError(f"{where}: tensor {name} has shape {shape}; llama.cpp reads {wanted}")
    cursor.offset = data_start + info.offset
    raw = cursor.bytes(4 * count, f"tensor {name}'s data")
    values = np.frombuffer(raw, dtype="<f4").astype(np.float64)
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
