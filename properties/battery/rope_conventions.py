"""The calling conventions of real RoPE code, each one record that turns an implementation into R_p.

The RoPE battery reads an implementation as a rotation R_p of rows x [n, d] to positions p [n], of queries or
of keys. Real code is shaped otherwise: an apply function that takes cos and sin from a rotary module built
from a config (Hugging Face transformers), complex ``freqs_cis`` (Meta's Llama), a module called with
``input_pos`` on [batch, seq, heads, d] (torchtune), a module that rotates ``arange(seq) + offset``
(rotary-embedding-torch), an angle table and its apply function (x-transformers), a (cos, sin) pair from a
table function (diffusers), a factory that builds one of these per head size, or no code at all: a
precomputed table of cos and sin (``freqs_cis``, a cache), which holds one head size and one length. Each
`Convention` names such a shape, recognises it from the object (its parameters' names, its methods, a
table's type and shape), and builds for a head size d the rotation it computes; the implementation's code
runs as it is, with no adapter.

An apply function given alone is paired with its module's own producer (the ``*RotaryEmbedding`` class beside
transformers' ``apply_rotary_pos_emb``, ``precompute_freqs_cis`` beside Meta's ``apply_rotary_emb``), so
that the check covers what the model computes; without one, it gets the suite's table at the declared base,
computed in float64 and handed in the backend's dtype, in the layout under which the function rotates
(`Pairing`): which table it was given is part of the identification. A module class is built for each d by
its own parameters (``dim``/``head_dim``…, ``base``/``theta``…, ``max_seq_len``…; a transformers class from
its own config class), once, and kept across calls as a model keeps it.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..encodings.rope import rope_angles
from ..numerics.dtypes import DTYPES
from . import Backend, Broken, Settings, as_array, call, unit_roundoff

#: What a built convention computes: (x [n, d] float64, positions [n] int64, side "q" or "k") → the rotated
#: rows as float64 [n, d] and the dtype they came in.
Rotation = Callable[[np.ndarray, np.ndarray, str], tuple[np.ndarray, str]]

#: Parameter names that carry the head size, the base and the longest sequence, when a class is built.
DIM_NAMES = ("dim", "head_dim", "d", "rotary_dim", "dims", "d_head", "embed_dim", "n_dim")
BASE_NAMES = ("base", "theta", "rope_theta", "base_freq")
LENGTH_NAMES = ("max_seq_len", "max_position_embeddings", "max_len", "max_seq_length", "end", "seq_len")


@dataclass(frozen=True)
class Convention:
    """One way real RoPE code is called: its name (what ``--convention`` takes), its contract in a line, a
    real library that uses it, whether its arrays are torch tensors, whether queries and keys go through
    separate paths (they are then identified separately), how it is recognised, how it is built for one
    head size, and, for an object that holds its own head size and length (a precomputed table), `sizes`:
    (d, length); None for code, which is built for any d and position."""

    name: str
    contract: str
    example: str
    torch: bool
    two_sided: bool
    recognise: Callable[[Any], bool]
    build: Callable[[Any, int, Backend, Settings], Rotation]
    sizes: Callable[[Any], tuple[int, int]] | None = None


# ------------------------------------------------------------------------------------ reading the object


def call_signature(target: Any) -> inspect.Signature | None:
    """The parameters a call of `target` takes: a function's own, a module instance's ``forward``, a
    class's constructor; None when they cannot be read."""
    try:
        if inspect.isclass(target):
            return inspect.signature(target.__init__)
        forward = getattr(target, "forward", None)
        if forward is not None and _is_torch_module(target):
            return inspect.signature(forward)
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _forward_signature(target: Any) -> inspect.Signature | None:
    forward = getattr(target, "forward", None)
    if forward is None:
        return None
    try:
        return inspect.signature(forward)
    except (TypeError, ValueError):
        return None


def _names(signature: inspect.Signature | None, drop_self: bool = True) -> list[str]:
    if signature is None:
        return []
    names = list(signature.parameters)
    return names[1:] if drop_self and names[:1] == ["self"] else names


def _required(signature: inspect.Signature | None) -> list[str]:
    if signature is None:
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [
        name
        for name, p in signature.parameters.items()
        if name != "self" and p.kind in kinds and p.default is inspect.Parameter.empty
    ]


def _is_torch_module(target: Any) -> bool:
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    kind = target if inspect.isclass(target) else type(target)
    return issubclass(kind, torch.nn.Module)


def _module_of(target: Any) -> Any:
    name = getattr(target, "__module__", None) or getattr(type(target), "__module__", None)
    return sys.modules.get(name) if name else None


def _is_function(target: Any) -> bool:
    """Whether `target` is called as it is (a function, a callable object, a module instance), not built."""
    return not inspect.isclass(target)


def _function_names(target: Any) -> list[str]:
    return _names(call_signature(target)) if _is_function(target) else []


# --------------------------------------------------------------------------------- tensors and results


def _torch() -> Any:
    import torch

    return torch


def _tensor(values: np.ndarray, backend: Backend) -> Any:
    """A float array as a torch tensor of the backend's dtype (float32 by default)."""
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float64)).to(
        getattr(torch, backend.torch_dtype)
    )


def _positions(positions: np.ndarray) -> Any:
    return _torch().from_numpy(np.ascontiguousarray(positions, dtype=np.int64))


def _rows(result: Any, what: str, n: int, d: int) -> tuple[np.ndarray, str]:
    """The result of a call on n rows held in a [1, 1, n, d] or [1, n, 1, d] tensor, as float64 [n, d]."""
    array, dtype = as_array(result, what)
    if array.size != n * d or array.shape[-1:] != (d,) or sorted(array.shape)[:-2] != [1] * (array.ndim - 2):
        raise Broken("wrong-shape", f"{what} returned shape {array.shape}, expected {n} rows of {d}")
    return array.reshape(n, d), dtype


def _side(pair: Any, side: str, what: str) -> Any:
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise Broken("wrong-shape", f"{what} returned {type(pair).__name__}, not (q_rot, k_rot)")
    return pair[0 if side == "q" else 1]


def _shown(positions: np.ndarray) -> str:
    values = positions.tolist()
    return str(values) if len(values) <= 4 else f"[{values[0]}, …, {values[-1]}] ({len(values)})"


# ------------------------------------------------------------------------------------- the suite's tables


#: How a table's d columns hold the angles of the d/2 pairs: ``half`` as cat(θ, θ) (pairs i and i + d/2,
#: transformers' rotate_half), ``interleaved`` as θ repeated in place (pairs 2i and 2i + 1).
LAYOUTS = ("half", "interleaved")


def reference_angles(positions: np.ndarray, d: int, base: float, layout: str) -> np.ndarray:
    """The angles p·θ_i of the suite's reference at `base`, float64 [n, d], in `layout`."""
    angles = rope_angles(np.asarray(positions, dtype=np.float64), d, base)
    if layout == "half":
        return np.concatenate([angles, angles], axis=1)
    return np.repeat(angles, 2, axis=1)


# ---------------------------------------------------------------------------------------- building classes


def build_module(target: Any, d: int, settings: Settings, what: str) -> Any:
    """`target` itself when it is an instance; a class built for head size d from its own parameters (a
    transformers class from a config of its own config class)."""
    if not inspect.isclass(target):
        return target
    parameters = _names(call_signature(target))
    if "config" in parameters:
        config = call(lambda: transformers_config(target, d, settings), (), f"building a config for {what}")
        module = call(lambda: target(config), (), f"{target.__name__}(config with head_dim={d})")
        sections = _mrope_sections(module)
        if sections is None:
            return module
        config.rope_parameters = {**config.rope_parameters, "mrope_section": sections}
        return call(lambda: target(config), (), f"{target.__name__}(config with mrope_section={sections})")
    given: dict[str, Any] = {}
    for names, value in ((DIM_NAMES, d), (BASE_NAMES, settings.base), (LENGTH_NAMES, settings.max_pos)):
        name = next((n for n in names if n in parameters), None)
        if name is not None:
            given[name] = value
    if not any(n in given for n in DIM_NAMES):
        required = _required(call_signature(target))
        if len(required) != 1:
            raise Broken("raises", f"{target.__name__}: no parameter for the head size among {parameters}")
        given[required[0]] = d
    shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in given.items())
    return call(lambda: target(**given), (), f"{target.__name__}({shown})")


def _mrope_sections(module: Any) -> list[int] | None:
    """M-RoPE sections (a module's ``mrope_section``: how many pairs follow time, height and width) scaled
    to the pairs it rotates at this head size, when they do not sum to them (Qwen2-VL's [16, 24, 24] are
    for a head of 128); the largest remainders get the pairs rounding leaves. None when the module has no
    sections or they fit. Token positions give every axis the same position, so the sections only choose
    which axis a pair reads, and any split is the same rotation."""
    sections, inv_freq = getattr(module, "mrope_section", None), getattr(module, "inv_freq", None)
    if not isinstance(sections, list | tuple) or inv_freq is None or not sections or sum(sections) <= 0:
        return None
    pairs = int(inv_freq.shape[-1])
    if sum(sections) == pairs:
        return None
    exact = np.array(sections, dtype=np.float64) * pairs / sum(sections)
    scaled = np.floor(exact).astype(int)
    for index in np.argsort(scaled - exact)[: pairs - int(scaled.sum())]:
        scaled[index] += 1
    return [int(v) for v in scaled]


def transformers_config(owner: Callable, d: int, settings: Settings) -> Any:
    """A config of the class `owner` takes as ``config`` (transformers: a rotary class, its constructor's;
    an init function, its own), with head size d on one head, the declared base and context, and the
    class's own defaults for everything else. A composite config (a vision-language model's) that holds no
    rope parameters gives way to the config of its text part, which the model builds its rotary module
    from. A field that is a read-only property (Falcon's head_dim, computed from the hidden size and the
    heads) is not given; a config whose validators tie the hidden size or the head counts to other parts of
    the model (a TTS model's flow head) is built with its own, and then, failing that, with its own base
    too (`_built_config`)."""
    given = {
        "head_dim": d,
        "hidden_size": d,
        "num_attention_heads": 1,
        "num_key_value_heads": 1,
        "rope_theta": settings.base,
        "max_position_embeddings": settings.max_pos,
    }
    kind = config_class(owner)
    source = _source(kind)
    # the head a rotary class rotates where head_dim is not it: Gemma 4's full-attention layers rotate
    # global_head_dim (head_dim is the sliding layers'), GPT-J's and CodeGen's rotate rotary_dim
    given |= {name: d for name in ROTATED_HEAD_NAMES if name in source}
    given = {name: value for name, value in given.items() if not _read_only(kind, name)}
    config = _built_config(kind, given)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    if text is not config and not getattr(config, "rope_parameters", None):
        return _built_config(type(text), given)
    return config


#: What a config is built without when its validators refuse the whole of `transformers_config`'s fields,
#: in turn: the model's own hidden size and head counts, then its own base too.
OWN_FIELDS = (("hidden_size", "num_attention_heads", "num_key_value_heads"), ("rope_theta",))


def _built_config(kind: type, given: dict[str, Any]) -> Any:
    """`kind(**given)`, else with fewer of its fields (`OWN_FIELDS`); the first refusal when every try is
    refused."""
    tries, dropped = [given], set()
    for names in OWN_FIELDS:
        dropped |= set(names)
        tries.append({name: value for name, value in given.items() if name not in dropped})
    refused = None
    for fields in tries:
        try:
            return kind(**fields)
        except Exception as exc:  # a library's validators raise what they like
            refused = refused or exc
    raise refused


def _read_only(kind: type, name: str) -> bool:
    """Whether `name` is a property of `kind` without a setter."""
    found = inspect.getattr_static(kind, name, None)
    return isinstance(found, property) and found.fset is None


#: Config fields that name the head a rotary class rotates, where its config has them.
ROTATED_HEAD_NAMES = ("global_head_dim", "rotary_dim")


def _source(kind: type) -> str:
    """A class's source text, empty when Python cannot read it."""
    try:
        return inspect.getsource(kind)
    except (OSError, TypeError):
        return ""


def axial(target: Any) -> bool:
    """Whether `target` is a transformers rotary class whose config's rope type is ``axial`` by default (a
    vision or video model's 2-D/3-D rotation over patch coordinates, not over token positions)."""
    kind = target if inspect.isclass(target) else type(target)
    try:
        config = config_class(kind)
    except Exception:  # no config class to read: not a transformers rotary class
        return False
    declared = getattr(config, "__dataclass_fields__", {}).get("rope_parameters")
    parameters = getattr(declared, "default", None)
    kind_of = parameters.get("rope_type") if isinstance(parameters, dict) else None
    return "axial" in (getattr(config, "default_rope_type", None), kind_of)


def config_class(owner: Callable) -> type:
    """The config class `owner` takes as ``config``: the type its parameter names (a class's constructor's),
    else, for a rotary class, the config class beside it, else transformers' ``PretrainedConfig`` (an init
    function of ``modeling_rope_utils``, whose hint is only a name)."""
    try:
        function = owner.__init__ if inspect.isclass(owner) else owner
        hint = typing.get_type_hints(function, vars(sys.modules[owner.__module__])).get("config")
    except NameError:
        hint = None
    if inspect.isclass(hint):
        return hint
    if inspect.isclass(owner):
        return _config_class_beside(owner)
    return importlib.import_module("transformers").PretrainedConfig


def _config_class_beside(rotary: type) -> type:
    """The config class of the package a transformers rotary class lives in (``modeling_x`` →
    ``configuration_x``)."""
    package, _, module = rotary.__module__.rpartition(".")
    configuration = importlib.import_module(f"{package}.{module.replace('modeling_', 'configuration_', 1)}")
    base = importlib.import_module("transformers").PretrainedConfig
    found = [
        c
        for c in vars(configuration).values()
        if inspect.isclass(c) and issubclass(c, base) and c is not base
    ]
    if not found:
        raise LookupError(f"no config class beside {rotary.__name__}")
    return found[0]


def companion(target: Any, recognise: Callable[[Any], bool]) -> Any | None:
    """The first object of `target`'s own module that `recognise` accepts (a producer beside an apply
    function, an apply function beside a producer), defined in that module."""
    module = _module_of(target)
    if module is None:
        return None
    for value in vars(module).values():
        if value is target or getattr(value, "__module__", None) != module.__name__:
            continue
        if recognise(value):
            return value
    return None


# ------------------------------------------------------------------------------------------ conventions


def _rotate_recognise(target: Any) -> bool:
    return _is_function(target) and len(_required(call_signature(target))) == 2 and not _angle_apply(target)


def _rotate_build(target: Any, d: int, backend: Backend, settings: Settings) -> Rotation:
    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        what = f"rotate(x of shape {x.shape}, positions {_shown(positions)})"
        result = call(target, (backend.vectors(x), backend.positions(positions)), what)
        return as_array(result, what)

    return rotate


def _apply_recognise(target: Any) -> bool:
    names = _function_names(target)
    return len(_required(call_signature(target))) == 3 and not any("freqs" in n or "cis" in n for n in names)


def _apply_build(target: Any, d: int, backend: Backend, settings: Settings) -> Rotation:
    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        what = f"apply(q, k of shape {x.shape}, positions {_shown(positions)})"
        vectors, zeros = backend.vectors(x), backend.vectors(np.zeros_like(x))
        args = (vectors, zeros) if side == "q" else (zeros, vectors)
        pair = call(target, (*args, backend.positions(positions)), what)
        return as_array(_side(pair, side, what), what)

    return rotate


def _cos_sin_recognise(target: Any) -> bool:
    names = _function_names(target)
    return "cos" in names and "sin" in names


def _cos_sin_producer(value: Any) -> bool:
    """A transformers-style rotary module: a class whose ``forward(x, position_ids)`` gives (cos, sin)
    (``position_ids`` required or not, as in Phimoe's)."""
    return inspect.isclass(value) and _names(_forward_signature(value))[:2] == ["x", "position_ids"]


def _apply_cos_sin(
    apply: Callable, q: Any, k: Any, cos: Any, sin: Any, side: str, what: str, n: int, d: int
) -> tuple[np.ndarray, str]:
    """apply(q, k, cos, sin) on [1, 1, n, d] tensors and cos, sin [1, n, d]: one side's rows (an apply
    function of one tensor, cos and sin is given that side's rows alone). When cos is narrower than the rows
    (a partial rotary factor) and the apply function raises on the whole rows, it is called as
    transformers' attention calls it (Phi, Persimmon, StableLM): on the first cos-width dims, the rest
    passed through."""
    required = _required(call_signature(apply))
    if len(required) == 3 and {"cos", "sin"} <= set(required):
        # one tensor at a time, cos and sin where its parameters name them (Gemma 3n's apply(x, cos, sin),
        # GPT-J's apply(tensor, sin, cos)); rows [1, 1, n, d], or [1, n, 1, d] (GPT-J's [b, s, h, d])
        rows = q if side == "q" else k
        given = {"cos": cos, "sin": sin}
        try:
            return _rows(call(apply, tuple(given.get(name, rows) for name in required), what), what, n, d)
        except Broken as broken:
            if broken.label not in ("raises", "wrong-shape") or n == 1:
                raise
            rows = rows.transpose(1, 2)
            result = call(
                apply, tuple(given.get(name, rows) for name in required), f"{what}, rows [1, n, 1, d]"
            )
            return _rows(result, what, n, d)
    width = cos.shape[-1]
    try:
        pair = call(apply, (q, k, cos, sin), what)
    except Broken as broken:
        if broken.label != "raises" or width >= d:
            raise
        pair = call(apply, (q[..., :width], k[..., :width], cos, sin), f"{what} on its first {width} dims")
        rest = q if side == "q" else k
        rotated = _torch().cat((_side(pair, side, what), rest[..., width:]), dim=-1)
        return _rows(rotated, what, n, d)
    return _rows(_side(pair, side, what), what, n, d)


#: How far, in units of the result dtype's roundoff, a norm may move under the layout a function rotates
#: with (each entry rounded once, a few terms a dim); a table of the other layout moves it by the cosine of
#: the difference of two pairs' angles, far more.
PAIRING_ROUNDING = 16.0


def _pairing(rotate: Callable[[str], Rotation], d: int) -> tuple[str, Rotation]:
    """The layout of the suite's table under which a function given a table rotates (each candidate's
    rotation tried on one vector at positions 1 and 1000: the norm kept within PAIRING_ROUNDING roundoffs of
    the dtype it returns, float32's 1e-4 at least; the closest when both are), and its rotation; the first
    layout when neither keeps it, so that the battery shows what the function does."""
    x = np.random.default_rng(0).standard_normal((2, d))
    positions = np.array([1, 1000])
    kept = {}
    for layout in LAYOUTS:
        candidate = rotate(layout)
        rotated, dtype = candidate(x, positions, "q")
        moved = float(np.abs(np.linalg.norm(rotated, axis=1) / np.linalg.norm(x, axis=1) - 1).max())
        if moved <= max(1e-4, PAIRING_ROUNDING * unit_roundoff(dtype)):
            kept[layout] = (moved, candidate)
    if not kept:
        return LAYOUTS[0], rotate(LAYOUTS[0])
    layout = min(kept, key=lambda name: kept[name][0])
    return layout, kept[layout][1]


@dataclass
class Built:
    """A rotation and what it was built from (shown with the identification)."""

    rotation: Rotation
    source: str


def _cos_sin_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    producer = companion(target, _cos_sin_producer)
    if producer is not None:
        module = build_module(producer, d, settings, producer.__name__)
        rotation = _module_rotation(module, producer, target, backend)
        return Built(rotation, f"cos, sin from {producer.__name__}")

    def table(layout: str) -> Rotation:
        def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
            what = f"apply(q, k, cos, sin) at positions {_shown(positions)}"
            angles = reference_angles(positions, x.shape[1], settings.base, layout)
            cos, sin = (_tensor(f(angles), backend)[None] for f in (np.cos, np.sin))
            q = _tensor(x, backend)[None, None]
            zeros = q * 0
            q, k = (q, zeros) if side == "q" else (zeros, q)
            return _apply_cos_sin(target, q, k, cos, sin, side, what, *x.shape)

        return rotate

    layout, rotation = _pairing(table, d)
    return Built(rotation, f"the suite's cos, sin table ({layout} layout, base {settings.base:g})")


#: The layer type a rotary module that has one per layer type (Gemma 3) is asked for.
LAYER_TYPE = "full_attention"


def _layer_type(module: Any) -> str | None:
    """The layer type a rotary module's forward is asked for: `LAYER_TYPE`, else the first of the module's
    own ``layer_types`` that rotate (Beam's, Zaya's) when it lacks that one; None when its forward takes
    none, or takes one optionally and the module keeps no layer types."""
    signature = _forward_signature(module)
    if "layer_type" not in _names(signature):
        return None
    kinds = list(getattr(module, "layer_types", None) or [])
    rotated = getattr(module, "rope_type", None)
    if isinstance(rotated, dict) and rotated:
        # a layer type whose rope parameters are None has no rotation (Beam's full attention: NoPE)
        kinds = [k for k in kinds if k in rotated] or list(rotated)
    if kinds:
        return LAYER_TYPE if LAYER_TYPE in kinds else str(kinds[0])
    return LAYER_TYPE if "layer_type" in _required(signature) else None


def _produce(module: Any, q: Any, positions: np.ndarray, what: str) -> tuple[Any, Any]:
    """(cos, sin) of a transformers-style rotary module for rows q [1, 1, n, d] at `positions`; a module
    with one rotation per layer type gives that of its `_layer_type`."""
    where = _positions(positions)[None]
    layer_type = _layer_type(module)
    if layer_type is not None:
        result = call(lambda x, p: module(x, p, layer_type=layer_type), (q, where), what)
    else:
        result = call(module, (q, where), what)
    return _pair_of(result, what)


def _sin_first(module: Any, q: Any, what: str) -> bool:
    """Whether a rotary module gives (sin, cos) rather than (cos, sin) (GPT-J's, CodeGen's): at position 0
    its first output is all zero and its second is not (cos 0 = 1, sin 0 = 0)."""
    first, second = (as_array(v, what)[0] for v in _produce(module, q, np.zeros(1, dtype=np.int64), what))
    return not np.any(first) and bool(np.any(second))


def _pair_of(result: Any, what: str) -> tuple[Any, Any]:
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise Broken("wrong-shape", f"{what}: the producer returned {type(result).__name__}, not (cos, sin)")
    return result[0], result[1]


def _rotary_module_recognise(target: Any) -> bool:
    return _cos_sin_producer(target if inspect.isclass(target) else type(target))


def _rotary_module_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    kind = target if inspect.isclass(target) else type(target)
    apply = _apply_beside(kind)
    if apply is None:
        raise Broken("raises", f"{kind.__name__} gives cos and sin, and its module has no apply function")
    module = build_module(target, d, settings, kind.__name__)
    rotation = _module_rotation(module, kind, apply, backend)
    return Built(rotation, f"cos, sin from {kind.__name__}, applied by its module's apply function")


def unbuildable(target: Any, d: int, settings: Settings) -> str | None:
    """Why a transformers-style rotary class cannot be checked as it is, or None when it can: its module
    has no apply function for its (cos, sin), or it cannot be built at head size d (the largest the battery
    checks) from its config class (a class its model builds from another config, or whose config needs
    what its defaults lack). Said before anything runs, as a usage error naming what failed: a construction
    the suite makes up is not the library's own."""
    kind = target if inspect.isclass(target) else type(target)
    factory = "check a factory make(d) that builds it, or its apply function"
    if _apply_beside(kind) is None:
        return f"{kind.__name__} gives cos and sin (or freqs_cis), its module no apply function: {factory}"
    if not inspect.isclass(target):
        return None
    try:
        build_module(target, d, settings, kind.__name__)
    except Broken as broken:
        return (
            f"{kind.__name__} cannot be built from its config class at d = {d} ({broken.message}): {factory}"
        )
    return None


#: The name of the function transformers' attention applies a rotary module's (cos, sin) with.
APPLY_NAME = "apply_rotary_pos_emb"


def _apply_beside(kind: type) -> Callable | None:
    """The apply function beside a rotary module: the one its module defines under `APPLY_NAME` (also when
    wrapped so that its signature is ``(*args, **kwargs)``, as a kernel from the hub is), else among its
    module's functions taking cos and sin the first whose leading parameters are (q, k, cos, sin), else the
    first (a module may define a vision apply or a helper that stacks cos and sin before the text apply)."""
    module = _module_of(kind)
    if module is None:
        return None
    own = vars(module).get(APPLY_NAME)
    if callable(own) and getattr(own, "__module__", None) == module.__name__:
        return own
    found = [
        value
        for value in vars(module).values()
        if getattr(value, "__module__", None) == module.__name__ and _cos_sin_recognise(value)
    ]
    leading = [f for f in found if _function_names(f)[2:4] == ["cos", "sin"]]
    return next(iter(leading + found), None)


def _module_rotation(module: Any, kind: type, apply: Callable, backend: Backend) -> Rotation:
    """The rotation of a built rotary module's (cos, sin), applied by `apply(q, k, cos, sin)`."""

    order: list[bool] = []

    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        what = f"{kind.__name__} and {getattr(apply, '__name__', 'apply')} at positions {_shown(positions)}"
        q = _tensor(x, backend)[None, None]
        if not order:
            order.append(_sin_first(module, q[:, :, :1], what))
        cos, sin = _produce(module, q, positions, what)
        cos, sin = (sin, cos) if order[0] else (cos, sin)
        zeros = q * 0
        q, k = (q, zeros) if side == "q" else (zeros, q)
        return _apply_cos_sin(apply, q, k, cos, sin, side, what, *x.shape)

    return rotate


def _freqs_cis_recognise(target: Any) -> bool:
    names = _function_names(target)
    return len(_required(call_signature(target))) in (2, 3) and any("freqs_cis" in n for n in names)


def _freqs_cis_producer(value: Any) -> bool:
    """Meta's ``precompute_freqs_cis(dim, end, theta)`` or diffusers' ``get_1d_rotary_pos_embed(dim, pos,
    theta)``: a function of the head size and the positions (or their count)."""
    names = _names(call_signature(value)) if callable(value) and not inspect.isclass(value) else []
    return len(names) >= 3 and names[0] == "dim" and names[1] in ("end", "pos") and "theta" in names


def _real_pair(target: Any) -> bool:
    """Whether a ``freqs_cis`` apply function takes a (cos, sin) pair by default (diffusers' use_real)."""
    signature = call_signature(target)
    use_real = None if signature is None else signature.parameters.get("use_real")
    return use_real is not None and use_real.default is True


def _freqs_cis_table(positions: np.ndarray, d: int, backend: Backend, real: bool, base: float) -> Any:
    """The suite's freqs_cis at `positions`: complex e^(i·p·θ) [n, d/2] (complex64 from float32), or the
    real pair (cos, sin) [n, d] in the interleaved layout."""
    torch = _torch()
    if real:
        angles = reference_angles(positions, d, base, "interleaved")
        return _tensor(np.cos(angles), backend), _tensor(np.sin(angles), backend)
    angles = rope_angles(np.asarray(positions, dtype=np.float64), d, base)
    return torch.complex(_tensor(np.cos(angles), backend), _tensor(np.sin(angles), backend))


def _freqs_cis_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    two = len(_required(call_signature(target))) == 3
    real = _real_pair(target)
    producer = companion(target, _freqs_cis_producer)

    def table(positions: np.ndarray, what: str) -> Any:
        if producer is None:
            return _freqs_cis_table(positions, d, backend, real, settings.base)
        names = _names(call_signature(producer))
        if names[1] == "end":  # a table for 0 … end − 1, read at the positions
            full = call(lambda: producer(d, int(positions.max()) + 1, theta=settings.base), (), what)
            index = _positions(positions)
            return full[index]
        extra = {"use_real": True} if real and "use_real" in names else {}
        return call(lambda: producer(d, positions.astype(np.float64), theta=settings.base, **extra), (), what)

    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        what = f"{getattr(target, '__name__', 'apply')}(x, freqs_cis) at positions {_shown(positions)}"
        freqs = table(positions, what)
        # diffusers: x [B, H, S, D] with sequence_dim=2; Meta: x [bsz, seqlen, n_heads, head_dim]
        rows = _tensor(x, backend)[None, None] if real else _tensor(x, backend)[None, :, None]
        if not two:
            return _rows(call(target, (rows, freqs), what), what, *x.shape)
        zeros = rows * 0
        q, k = (rows, zeros) if side == "q" else (zeros, rows)
        return _rows(_side(call(target, (q, k, freqs), what), side, what), what, *x.shape)

    form = "a (cos, sin) pair" if real else "complex freqs_cis"
    source = (
        f"{producer.__name__}" if producer is not None else f"the suite's {form} at base {settings.base:g}"
    )
    return Built(rotate, source)


def _input_pos_recognise(target: Any) -> bool:
    return _is_torch_module(target) and "input_pos" in _names(_forward_signature(target))


def _input_pos_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    kind = target if inspect.isclass(target) else type(target)
    module = build_module(target, d, settings, kind.__name__)

    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        what = f"{kind.__name__}(x of shape [1, {len(x)}, 1, {d}], input_pos={_shown(positions)})"
        rows, where = _tensor(x, backend)[None, :, None], _positions(positions)[None]
        return _rows(call(lambda r, p: module(r, input_pos=p), (rows, where), what), what, *x.shape)

    return Built(rotate, f"{kind.__name__} built for d = {d}")


def _offset_recognise(target: Any) -> bool:
    return hasattr(target, "rotate_queries_or_keys")


def _offset_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    kind = target if inspect.isclass(target) else type(target)
    module = build_module(target, d, settings, kind.__name__)

    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        """Rows at one position at a time: [rows, 1, 1, d] (batch, heads, seq) at offset p."""
        out = np.empty_like(x)
        dtype = "float64"
        for p in np.unique(positions):
            rows = positions == p
            what = f"{kind.__name__}.rotate_queries_or_keys(t of shape [{rows.sum()}, 1, 1, {d}], offset={p})"
            t = _tensor(x[rows], backend)[:, None, None]
            result = call(lambda t, at=int(p): module.rotate_queries_or_keys(t, offset=at), (t,), what)
            out[rows], dtype = _rows(result, what, int(rows.sum()), d)
        return out, dtype

    return Built(rotate, f"{kind.__name__} built for d = {d}, rotating arange(seq) + offset")


def _angle_apply(target: Any) -> bool:
    """An apply function of an angle table: x-transformers' ``apply_rotary_pos_emb(t, freqs)``,
    rotary-embedding-torch's ``apply_rotary_emb(freqs, t)``."""
    required = _required(call_signature(target)) if _is_function(target) else []
    return len(required) == 2 and "freqs" in required


def _angle_producer(value: Any) -> bool:
    """x-transformers' ``RotaryEmbedding``: a class whose ``forward(t, offset)`` gives the angle table."""
    return inspect.isclass(value) and _names(_forward_signature(value))[:2] == ["t", "offset"]


def _angles_recognise(target: Any) -> bool:
    return _angle_apply(target) or (_angle_producer(target) and companion(target, _angle_apply) is not None)


def _angles_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    if _angle_producer(target):
        producer, apply_function = target, companion(target, _angle_apply)
    else:
        producer, apply_function = companion(target, _angle_producer), target
    freqs_first = _required(call_signature(apply_function))[0] == "freqs"
    module = None if producer is None else build_module(producer, d, settings, producer.__name__)
    name = getattr(apply_function, "__name__", "apply")

    def apply(x: np.ndarray, freqs: Any, what: str) -> tuple[np.ndarray, str]:
        t = _tensor(x, backend)[None, None]
        args = (freqs, t) if freqs_first else (t, freqs)
        return _rows(call(apply_function, args, what), what, *x.shape)

    if module is not None:

        def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
            what = f"{producer.__name__} and {name} at positions {_shown(positions)}"
            freqs = call(module, (_positions(positions),), what)
            if isinstance(freqs, tuple | list):  # (freqs, scale)
                freqs = freqs[0]
            return apply(x, freqs, what)

        return Built(rotate, f"angles from {producer.__name__}")

    def table(layout: str) -> Rotation:
        def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
            what = f"{name}(t, freqs) at positions {_shown(positions)}"
            # angles in float32 at least, as a producer computes them: in bfloat16, 257·θ_0 is 256·θ_0
            held = backend if backend.torch_dtype == "float64" else replace(backend, torch_dtype="float32")
            angles = _tensor(reference_angles(positions, x.shape[1], settings.base, layout), held)
            return apply(x, angles if freqs_first else angles[None], what)

        return rotate

    layout, rotation = _pairing(table, d)
    return Built(rotation, f"the suite's angle table ({layout} layout, base {settings.base:g})")


# ------------------------------------------------------------------------------------ precomputed tables


def _is_array(value: Any) -> bool:
    """A numpy array or a torch tensor."""
    return isinstance(value, np.ndarray) or (hasattr(value, "detach") and hasattr(value, "shape"))


def _core_shape(value: Any) -> tuple[int, ...]:
    """The shape of an array without its leading singleton dims ([1, 1, L, d] is [L, d])."""
    shape = tuple(int(n) for n in value.shape)
    while len(shape) > 2 and shape[0] == 1:
        shape = shape[1:]
    return shape


def _is_complex(value: Any) -> bool:
    dtype = value.dtype
    return bool(dtype.is_complex) if hasattr(value, "detach") else np.issubdtype(dtype, np.complexfloating)


def table_form(target: Any) -> str | None:
    """What kind of precomputed table `target` is, from its type and shape alone (no values read): a
    ``(cos, sin)`` pair of equal [L, c] arrays, complex ``freqs_cis`` [L, d/2], a real [L, d/2, 2] stack of
    cos and sin, or a real [L, d] cat(cos, sin) cache; None for anything else."""
    if isinstance(target, tuple | list) and len(target) == 2 and all(_is_array(t) for t in target):
        shapes = [_core_shape(t) for t in target]
        return "(cos, sin) pair" if shapes[0] == shapes[1] and len(shapes[0]) == 2 else None
    if not _is_array(target):
        return None
    shape = _core_shape(target)
    if _is_complex(target):
        return "complex freqs_cis" if len(shape) == 2 else None
    if len(shape) == 3 and shape[2] == 2:
        return "cos and sin stacked"
    return "cat(cos, sin) cache" if len(shape) == 2 and shape[1] % 2 == 0 else None


@dataclass(frozen=True)
class Table:
    """A precomputed table read as cos and sin of each pair at each position (float64 [L, d/2] each), the
    pairing it is applied under (`LAYOUTS`), the dtype it holds and what it was, in words."""

    cos: np.ndarray
    sin: np.ndarray
    layout: str
    dtype: str
    form: str

    @property
    def d(self) -> int:
        return 2 * self.cos.shape[1]

    @property
    def length(self) -> int:
        return self.cos.shape[0]


def _values(value: Any, what: str) -> tuple[np.ndarray, str]:
    """A real or complex array as float64 (complex as [..., 2]: real, imaginary) without its leading
    singleton dims, and the real dtype it holds (float64 for one the suite does not know)."""
    shape = _core_shape(value)
    if not _is_complex(value):
        array, dtype = as_array(value, what)
        return array.reshape(shape), dtype
    if hasattr(value, "detach"):
        torch = _torch()
        parts = torch.view_as_real(value.detach().cpu()).double().numpy()
        dtype = str(value.real.dtype).removeprefix("torch.")
    else:
        parts = np.stack([value.real, value.imag], axis=-1).astype(np.float64)
        dtype = str(value.real.dtype)
    return parts.reshape(*shape, 2), dtype if dtype in DTYPES else "float64"


def _repeated(cos: np.ndarray, sin: np.ndarray) -> tuple[str, np.ndarray, np.ndarray] | None:
    """The layout in which a (cos, sin) pair of [L, d] tables repeats each pair's column (half: columns i
    and i + d/2, transformers' cat(freqs, freqs); interleaved: 2i and 2i + 1, repeat_interleave), with the
    per-pair columns; None when it repeats in neither."""
    half = cos.shape[1] // 2
    if cos.shape[1] % 2 == 0:
        if np.array_equal(cos[:, :half], cos[:, half:]) and np.array_equal(sin[:, :half], sin[:, half:]):
            return "half", cos[:, :half], sin[:, :half]
        if np.array_equal(cos[:, 0::2], cos[:, 1::2]) and np.array_equal(sin[:, 0::2], sin[:, 1::2]):
            return "interleaved", cos[:, 0::2], sin[:, 0::2]
    return None


def read_table(target: Any) -> Table:
    """The cos and sin a precomputed table holds per pair, and how it pairs the dims: complex
    ``freqs_cis`` and a [L, d/2, 2] stack apply to pairs (2i, 2i + 1) (Meta's view_as_complex, torchtune);
    a cat(cos, sin) cache [L, d] is cos of d/2 pairs then their sin, applied to pairs (i, i + d/2); a
    (cos, sin) pair [L, d] in the layout in which it repeats each pair's column, else one column per pair
    of 2·c dims, applied to pairs (i, i + c). A ValueError for an object that is no table."""
    form = table_form(target)
    what = f"the {form or type(target).__name__} table"
    if form is None:
        raise ValueError(
            f"a {type(target).__name__} is no precomputed RoPE table (complex freqs_cis [L, d/2], a (cos, "
            "sin) pair [L, d] or [L, d/2], a cat(cos, sin) cache [L, d] or cos and sin stacked [L, d/2, 2])"
        )
    if form == "(cos, sin) pair":
        (cos, dtype), (sin, _) = (_values(t, what) for t in target)
        shown = f"{form} {list(cos.shape)}"
        repeated = _repeated(cos, sin)
        if repeated is None:
            return Table(cos, sin, "half", dtype, f"{shown}, one column per pair")
        layout, cos, sin = repeated
        return Table(cos, sin, layout, dtype, shown)
    values, dtype = _values(target, what)
    shown = f"{form} {list(_core_shape(target))}"
    if form == "cat(cos, sin) cache":
        half = values.shape[1] // 2
        return Table(values[:, :half], values[:, half:], "half", dtype, shown)
    return Table(values[..., 0], values[..., 1], "interleaved", dtype, shown)


#: How each layout applies a table, in words.
APPLIED = {"half": "to dims i and i + d/2 (rotate_half)", "interleaved": "to dims 2i and 2i + 1"}


def _table_recognise(target: Any) -> bool:
    return table_form(target) is not None


def _table_sizes(target: Any) -> tuple[int, int]:
    table = read_table(target)
    return table.d, table.length


def _table_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    table = read_table(target)
    if d != table.d:
        raise Broken("wrong-shape", f"the table holds d = {table.d}, not {d}")
    k, cast = d // 2, DTYPES[table.dtype].cast

    def rotate(x: np.ndarray, positions: np.ndarray, side: str) -> tuple[np.ndarray, str]:
        """x turned by the table's rows at `positions`, each entry a·cos − b·sin or b·cos + a·sin rounded to
        the table's dtype, as a model computing in it rounds."""
        beyond = positions[(positions < 0) | (positions >= table.length)]
        if beyond.size:
            raise Broken("wrong-shape", f"position {beyond[0]} is beyond the table's {table.length} rows")
        cos, sin = table.cos[positions], table.sin[positions]
        first, second = (x[:, :k], x[:, k:]) if table.layout == "half" else (x[:, 0::2], x[:, 1::2])
        turned = (first * cos - second * sin, second * cos + first * sin)
        out = np.empty_like(x)
        if table.layout == "half":
            out[:, :k], out[:, k:] = turned
        else:
            out[:, 0::2], out[:, 1::2] = turned
        return cast(out).astype(np.float64), table.dtype

    source = (
        f"a precomputed table, {table.form} in {table.dtype}, applied {APPLIED[table.layout]}: it holds d = "
        f"{table.d} and positions 0 … {table.length - 1} only, so positions beyond its length cannot be "
        "checked"
    )
    return Built(rotate, source)


def _factory_recognise(target: Any) -> bool:
    """A function of one parameter named for the head size (``make(d)``, ``build(head_dim)``)."""
    required = _required(call_signature(target)) if _is_function(target) else []
    return not _is_torch_module(target) and len(required) == 1 and required[0] in DIM_NAMES


def _factory_build(target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    made = call(lambda: target(d), (), f"{getattr(target, '__name__', 'factory')}({d})")
    convention = detect(made, factory=False)
    if convention is None:
        raise Broken(
            "wrong-shape",
            f"{getattr(target, '__name__', 'factory')}({d}) built a {type(made).__name__}, "
            "which fits no RoPE convention",
        )
    built = _as_built(convention.build(made, d, backend, settings))
    return Built(
        built.rotation, f"{getattr(target, '__name__', 'factory')}({d}), {convention.name}: {built.source}"
    )


def _as_built(built: Built | Rotation) -> Built:
    return built if isinstance(built, Built) else Built(built, "the implementation")


CONVENTIONS = (
    Convention(
        "rotate",
        "rotate(x, positions) -> like x, x [n, d] (row j at positions[j])",
        "the documents' own code",
        False,
        False,
        _rotate_recognise,
        _rotate_build,
    ),
    Convention(
        "apply",
        "apply(q, k, positions) -> (q_rot, k_rot), q and k [n, d]",
        "the documents' own code",
        False,
        True,
        _apply_recognise,
        _apply_build,
    ),
    Convention(
        "cos-sin",
        "apply(q, k, cos, sin[, position_ids, unsqueeze_dim]) on [batch, heads, seq, d], cos and sin "
        "[batch, seq, d] from the module's rotary class or the suite's table",
        "transformers, models/llama/modeling_llama.py: apply_rotary_pos_emb",
        True,
        True,
        _cos_sin_recognise,
        _cos_sin_build,
    ),
    Convention(
        "rotary-module",
        "a module class built from a config or a head size, forward(x, position_ids) -> (cos, sin), with its "
        "module's apply(q, k, cos, sin)",
        "transformers, models/llama/modeling_llama.py: LlamaRotaryEmbedding",
        True,
        True,
        _rotary_module_recognise,
        _rotary_module_build,
    ),
    Convention(
        "freqs-cis",
        "apply(xq, xk, freqs_cis) or apply(x, freqs_cis): complex freqs_cis [seq, d/2] on [batch, seq, "
        "heads, d], or a (cos, sin) pair [seq, d] on [batch, heads, seq, d] where use_real is the default",
        "Meta's llama, llama/model.py: apply_rotary_emb; diffusers, models/embeddings.py: apply_rotary_emb",
        True,
        True,
        _freqs_cis_recognise,
        _freqs_cis_build,
    ),
    Convention(
        "input-pos",
        "a module class built from a head size, module(x, input_pos=None) on [batch, seq, heads, d]",
        "torchtune, modules/position_embeddings.py: RotaryPositionalEmbeddings",
        True,
        False,
        _input_pos_recognise,
        _input_pos_build,
    ),
    Convention(
        "offset",
        "a module class built from a head size, rotate_queries_or_keys(t, offset=0) rotating arange(seq) + "
        "offset of t [batch, heads, seq, d]",
        "rotary-embedding-torch, rotary_embedding_torch.py: RotaryEmbedding",
        True,
        False,
        _offset_recognise,
        _offset_build,
    ),
    Convention(
        "angles",
        "apply(t, freqs) or apply(freqs, t) with an angle table freqs [seq, d] (not cos and sin), from the "
        "module's rotary class or the suite's table",
        "x-transformers, x_transformers.py: apply_rotary_pos_emb and RotaryEmbedding",
        True,
        False,
        _angles_recognise,
        _angles_build,
    ),
    Convention(
        "table",
        "a precomputed table, not a function: complex freqs_cis [L, d/2], a (cos, sin) pair [L, d] or "
        "[L, d/2], a cat(cos, sin) cache [L, d] or cos and sin stacked [L, d/2, 2]; checked at its own d and "
        "positions 0 … L − 1",
        "Meta's llama, llama/model.py: the freqs_cis precompute_freqs_cis returns; torchtune, "
        "modules/position_embeddings.py: RotaryPositionalEmbeddings.cache",
        False,
        False,
        _table_recognise,
        _table_build,
        _table_sizes,
    ),
    Convention(
        "factory",
        "make(d) -> an implementation of one of these conventions for head size d",
        "a model's attention block built per head size",
        False,
        False,
        _factory_recognise,
        _factory_build,
    ),
)

BY_NAME = {c.name: c for c in CONVENTIONS}

#: The order detection tries them: the specific shapes before the generic counts of parameters.
DETECTION = (
    "table",
    "offset",
    "input-pos",
    "rotary-module",
    "cos-sin",
    "freqs-cis",
    "angles",
    "apply",
    "rotate",
    "factory",
)


def detect(target: Any, factory: bool = True) -> Convention | None:
    """The first convention (in `DETECTION` order) that recognises `target`; None for none."""
    for name in DETECTION:
        if name == "factory" and not factory:
            continue
        convention = BY_NAME[name]
        if convention.recognise(target):
            return convention
    return None


def handed(backend: Backend, name: str, settings: Settings) -> Backend | None:
    """The backend convention `name` is called with when `backend` was chosen: torch tensors for the
    conventions of real code whatever was chosen, of `settings.dtype` where it is set; None for a
    precomputed table (`Convention.sizes`), which is read, never called."""
    if BY_NAME[name].sizes is not None:
        return None
    if BY_NAME[name].torch and backend.name != "torch":
        backend = Backend("torch", reason=f"the {name} convention takes torch tensors")
    if settings.dtype and backend.name == "torch":
        backend = replace(backend, torch_dtype=settings.dtype)
    return backend


def build(convention: Convention, target: Any, d: int, backend: Backend, settings: Settings) -> Built:
    """The rotation `target` computes at head size d under `convention`, called with the backend it is
    `handed`."""
    chosen = handed(backend, convention.name, settings) or backend
    return _as_built(convention.build(target, d, chosen, settings))
