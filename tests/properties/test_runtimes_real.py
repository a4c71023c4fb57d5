"""The runtime profiles held against the runtimes' own code, where it installs on these machines.

transformers: for the bundled models with RoPE and a crafted config for each rule a transformers profile
names, the installed transformers' rotary module (or ``ROPE_INIT_FUNCTIONS[rope_type]`` at the sequence
length, for a rule that depends on it), built by `battery.transformers_rope`, gives the inv_freq and the
factor on cos and sin that `runtime_divergence.read` says the profile covering the installed version
computes: inv_freq to float32's rounding, the factor to 1e-9. Each comparison has a twin that reads the same
config through a profile of other versions and sees the comparison fail.

These tests call the runtimes' own code (`-m runtime`): the default run leaves them out; .ci/run's runtime
steps run them at the versions the profiles' `tested` fields name.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from pe_verify.properties.analyses.runtime_divergence import read
from pe_verify.properties.battery import transformers_rope
from pe_verify.properties.encodings.model_config import bundled_models, read_config
from pe_verify.properties.encodings.runtimes import BY_NAME, PROFILES, Profile, profile_for

pytestmark = pytest.mark.runtime

_LLAMA = {
    "model_type": "llama",
    "hidden_size": 512,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "num_hidden_layers": 2,
    "intermediate_size": 1024,
    "vocab_size": 1000,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
}
_SHORT = [1.0 + 0.05 * i for i in range(32)]
_LONG = [1.0 + 0.5 * i for i in range(32)]


def _llama(**keys: object) -> dict[str, object]:
    return {**_LLAMA, **keys}


def _fifth_layout(scaling: dict[str, object]) -> dict[str, object]:
    """A Llama config as transformers 5 writes it: the base and the scaling inside rope_parameters only."""
    config = {k: v for k, v in _LLAMA.items() if k != "rope_theta"}
    return {**config, "rope_parameters": {"rope_theta": 500000.0, **scaling}}


#: Crafted configs, each with the sequence lengths it is read at: one for each rule a transformers profile
#: names, and the YaRN and LongRoPE keys the profiles of other runtimes read differently.
def _frequencies_differ(theirs: np.ndarray, ours: np.ndarray, reading, name: str) -> str | None:
    """How a runtime's frequencies differ from a reading's beyond float32 rounding (None: they agree)."""
    if theirs.shape != ours.shape:
        return f"the runtime turns {theirs.size} pairs, the profile {ours.size}"
    relative = float(np.max(np.abs(theirs - ours) / ours))
    scaling = reading.scaling
    tolerance = transformers_rope.float32_frequency_tolerance(
        reading.base, max(scaling.factor, *(scaling.long_factor or (1,)))
    )
    if relative > tolerance:
        return f"{name} differs by {relative:.2e} relative (tolerance {tolerance:.2e})"
    return None


#: A YaRN block over an original context of 32768 tokens, which the crafted YaRN configs add keys to.
YARN_32K = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}

CRAFTED: dict[str, tuple[dict[str, object], tuple[int, ...]]] = {
    # huggingface/transformers#38224: original_max_position_embeddings ≠ max_position_embeddings / factor.
    "yarn-38224": (
        _llama(rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}),
        (4096,),
    ),
    # The original context stated once, in the block or at the top level, or not at all: transformers 4 reads
    # YaRN's from the block only (and the ratio replaces the factor only then), LongRoPE's from the top level
    # only; 5 reads either.
    "yarn-no-original": (_llama(rope_scaling={"rope_type": "yarn", "factor": 4.0}), (4096,)),
    "yarn-top-level-original": (
        _llama(original_max_position_embeddings=8192, rope_scaling={"rope_type": "yarn", "factor": 4.0}),
        (4096,),
    ),
    # Stated twice, and differently: transformers 5 takes the top level's (standardize_rope_params assigns it
    # over a single block's), 4.x's YaRN the block's.
    "yarn-original-twice": (
        _llama(
            original_max_position_embeddings=8192,
            rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        ),
        (4096,),
    ),
    "longrope-block-original": (
        _llama(
            rope_scaling={
                "rope_type": "longrope",
                "short_factor": _SHORT,
                "long_factor": _LONG,
                "factor": 2.0,
                "original_max_position_embeddings": 4096,
            },
        ),
        (4096, 4097),
    ),
    "yarn-attention-factor": (_llama(rope_scaling=YARN_32K | {"attention_factor": 1.5}), (4096,)),
    "yarn-mscale-only": (_llama(rope_scaling=YARN_32K | {"mscale": 0.707}), (4096,)),
    "yarn-mscale-ratio": (_llama(rope_scaling=YARN_32K | {"mscale": 0.707, "mscale_all_dim": 1.0}), (4096,)),
    "yarn-no-truncate": (_llama(rope_scaling=YARN_32K | {"truncate": False}), (4096,)),
    # A top-level original_max_position_embeddings and an explicit factor: transformers 4 replaces the factor
    # by max_position_embeddings / original, 5 keeps it.
    "longrope-top-level": (
        _llama(
            original_max_position_embeddings=4096,
            rope_scaling={
                "rope_type": "longrope",
                "short_factor": _SHORT,
                "long_factor": _LONG,
                "factor": 2.0,
            },
        ),
        (4096, 4097),
    ),
    "longrope-phi3": (
        {
            **{k: v for k, v in _LLAMA.items() if k != "rope_theta"},
            "model_type": "phi3",
            "max_position_embeddings": 65536,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"type": "longrope", "short_factor": _SHORT, "long_factor": _LONG},
        },
        (4096, 4097),
    ),
    "dynamic": (
        _llama(max_position_embeddings=4096, rope_scaling={"rope_type": "dynamic", "factor": 2.0}),
        (4096, 8192),
    ),
    # transformers 5's layout, which transformers 4 does not read.
    "fifth-layout-default": (_fifth_layout({"rope_type": "default"}), (4096,)),
    "fifth-layout-yarn": (
        _fifth_layout({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}),
        (4096,),
    ),
}


def _rope_models() -> dict[str, tuple[dict[str, object], tuple[int, ...]]]:
    """The bundled models with RoPE, each read at 4096 tokens, and LongRoPE's at L₀ and L₀ + 1 (short and
    long factors)."""
    found = {}
    for name, model in bundled_models().items():
        groups = [g.position for g in read_config(model.config).groups if g.position.scheme == "rope"]
        if not groups or any(p.scaling is None for p in groups):
            continue
        longrope = [p.scaling.original_context for p in groups if p.rule.kind == "longrope"]
        found[name] = (model.config, (longrope[0], longrope[0] + 1) if longrope else (4096,))
    return found


BUNDLED = _rope_models()
#: The bundled models the brief of these tests names; each must be among those compared.
NAMED = (
    "llama-3.1-8b",
    "qwen2.5-7b-instruct-yarn",
    "phi-3-mini-128k-instruct",
    "gemma-3-27b-it",
    "deepseek-v3",
    "ministral-3-3b-instruct-2512",
)


def transformers_differences(profile: Profile, config: dict[str, object], length: int) -> list[str]:
    """Every layer group on which the installed transformers and `profile`'s reading differ, in words:
    inv_freq beyond float32's rounding, the factor on cos and sin beyond 1e-9."""
    model = read_config(config)
    found = []
    for group in model.groups:
        setup = group.position
        if setup.scheme != "rope" or setup.scaling is None:
            continue
        theirs, factor = transformers_rope.layer_rope(config, group, length)
        reading = read(profile, model, group, config, length, length)
        ours = np.array([float(theta) for theta in reading.frequencies()])
        if theirs.size > ours.size and not np.any(theirs[ours.size :]):
            theirs = theirs[: ours.size]  # the unrotated pairs' zeros (proportional)
        where = f"{group.layer_type} at {length} tokens"
        problem = _frequencies_differ(theirs, ours, reading, "inv_freq")
        if problem:
            found.append(f"{where}: {problem}")
            if theirs.shape != ours.shape:
                continue
        if not math.isclose(factor, float(reading.cos_sin), rel_tol=transformers_rope.FACTOR_TOLERANCE):
            found.append(f"{where}: cos/sin factor {factor!r}, {profile.name} {float(reading.cos_sin)!r}")
    return found


def _installed() -> str:
    transformers = pytest.importorskip("transformers")
    return transformers.__version__


def _installed_profile() -> Profile:
    return profile_for("transformers", _installed())


def _compared(config: dict[str, object]) -> None:
    """Skip a model type the installed transformers does not have (it came later)."""
    try:
        transformers_rope._build(config)
    except transformers_rope.NotNative as reason:
        pytest.skip(str(reason))


def test_every_profile_with_a_release_range_covers_its_own_versions() -> None:
    assert profile_for("transformers", "5.25.0").name == "transformers-5"
    assert profile_for("transformers", "5.3.1").name == "transformers-5"
    assert profile_for("transformers", "4.57.6").name == "transformers-4.56"
    assert profile_for("transformers", "4.55.4").name == "transformers-4.55"
    assert profile_for("transformers", "4.53.3").name == "transformers-4.51"
    assert profile_for("mlx-lm", "0.32.2").name == "mlx-lm"
    for version in ("5.26.0", "4.50.3", "6.0.0", "4.5"):
        with pytest.raises(LookupError):
            profile_for("transformers", version)
    assert not BY_NAME["llama.cpp"].covers("0.3.36")
    for profile in PROFILES:
        if profile.releases is not None:
            first, last = profile.releases
            assert first <= last, profile.name
            assert profile.covers(".".join(map(str, first))), profile.name


def test_the_tested_profiles_name_versions_they_cover() -> None:
    for profile in PROFILES:
        for version in profile.tested.split(", ") if profile.tested else ():
            assert profile.covers(version.split(" ")[0]), (profile.name, version)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_models_read_as_the_installed_transformers_computes(name: str) -> None:
    profile = _installed_profile()
    config, lengths = BUNDLED[name]
    _compared(config)
    for length in lengths:
        assert transformers_differences(profile, config, length) == [], (profile.name, length)


def test_the_named_models_are_compared() -> None:
    assert set(NAMED) <= set(BUNDLED)


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_configs_read_as_the_installed_transformers_computes(name: str) -> None:
    profile = _installed_profile()
    config, lengths = CRAFTED[name]
    for length in lengths:
        assert transformers_differences(profile, config, length) == [], (profile.name, length)


#: Per transformers profile, configs on which a profile of other versions reads differently (the twins).
TWINS = {
    "transformers-5": [
        ("transformers-4.51", "yarn-38224"),
        ("transformers-4.56", "longrope-top-level"),
        ("transformers-4.56", "fifth-layout-yarn"),
        ("transformers-4.56", "yarn-top-level-original"),
        ("transformers-4.56", "longrope-block-original"),
    ],
    "transformers-4.56": [
        ("transformers-4.51", "yarn-38224"),
        ("transformers-5", "longrope-top-level"),
        ("transformers-5", "fifth-layout-default"),
        ("transformers-5", "fifth-layout-yarn"),
        ("transformers-5", "yarn-top-level-original"),
        ("transformers-5", "longrope-block-original"),
    ],
    "transformers-4.55": [
        ("transformers-4.56", "yarn-38224"),
        ("transformers-5", "longrope-top-level"),
        ("transformers-5", "fifth-layout-yarn"),
        ("transformers-5", "yarn-top-level-original"),
        ("transformers-5", "longrope-block-original"),
    ],
}


def test_twin_a_profile_of_other_versions_is_caught() -> None:
    installed = _installed_profile()
    for other, name in TWINS[installed.name]:
        config, lengths = CRAFTED[name]
        assert transformers_differences(BY_NAME[other], config, lengths[-1]), (other, name)


def test_twin_a_bundled_model_read_through_another_runtime_is_caught() -> None:
    _installed()
    config, lengths = BUNDLED["phi-3-mini-128k-instruct"]
    # mlx-lm takes the long factors for the short sequence too.
    assert transformers_differences(BY_NAME["mlx-lm"], config, lengths[0])


# mlx-lm: the model's own attention module, built (lazily, no weights) from the config as mlx-lm's loader
# builds the model, and its rope applied to a tiny array.

#: Keys mlx-lm's model arguments require that no rope reads (a bundled config may leave them out).
_MLX_FILLER = {"intermediate_size": 1024, "rms_norm_eps": 1e-6, "vocab_size": 1000, "num_hidden_layers": 2}

#: Crafted configs for mlx-lm, beyond those above: GLM, whose attention rotates the whole head whatever
#: partial_rotary_factor says (ml-explore/mlx-lm#1698).
MLX_CRAFTED: dict[str, tuple[dict[str, object], tuple[int, ...]]] = {
    "glm-partial": (
        {
            **{k: v for k, v in _LLAMA.items() if k != "rope_theta"},
            "model_type": "glm",
            "head_dim": 64,
            "rope_theta": 10000.0,
            "partial_rotary_factor": 0.5,
            "max_position_embeddings": 8192,
        },
        (4096,),
    ),
}
#: The crafted configs mlx-lm refuses (its longrope reads original_max_position_embeddings from the scaling
#: block only, a KeyError for a config that states it at the top level), with the error.
MLX_REFUSES = {"longrope-top-level": KeyError}


def _mlx():
    pytest.importorskip("mlx.core")
    return pytest.importorskip("mlx_lm")


def _mlx_model(config: dict[str, object]):
    """mlx-lm's model for `config`, as its loader builds it (`utils._get_classes`, `ModelArgs.from_dict`)."""
    from mlx_lm.utils import _get_classes

    config = json.loads(json.dumps(config))
    text = config.get("text_config", config)
    for key, value in _MLX_FILLER.items():
        text.setdefault(key, value)
    model_class, args_class = _get_classes(config)
    return model_class(args_class.from_dict(config))


def _mlx_ropes(model) -> dict[int, object]:
    """Each layer's rope module of an mlx-lm model, by layer index."""
    found = {}
    for name, module in model.named_modules():
        layer = re.search(r"layers\.(\d+)\.\w+\.rope$", name)
        if layer:
            found[int(layer[1])] = module
    return found


def _mlx_frequencies(rope, length: int) -> np.ndarray:
    """θ_i of an mlx-lm rope module in float64 for a sequence of `length` tokens: 1/period where it keeps
    periods (`_freqs`); its base and position scale (``nn.RoPE``); for dynamic NTK the base its
    ``__call__`` grows for that length (the one line of its code repeated here; the angle check of
    `mlx_differences` runs the call itself)."""
    periods = getattr(rope, "_freqs", None)
    if periods is not None:
        return 1.0 / np.array(periods, dtype=np.float64)
    dims, base, scale = rope.dims, float(rope.base), getattr(rope, "scale", 1.0)
    if hasattr(rope, "factor"):  # DynamicNTKScalingRoPE
        grown = max(length, rope.max_position_embeddings)
        growth = rope.factor * grown / rope.max_position_embeddings - (rope.factor - 1)
        base *= growth ** (dims / (dims - 2))
    return scale * base ** (-np.arange(0, dims, 2, dtype=np.float64) / dims)


def _mlx_applied(rope, width: int, pairs: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """The rope applied to one token, a unit vector on each pair's first lane, at position `offset`: each
    pair's magnitude (the factor on cos and sin) and angle."""
    import mlx.core as mx

    interleaved = bool(getattr(rope, "traditional", False))
    first = np.arange(pairs) * 2 if interleaved else np.arange(pairs)
    second = first + 1 if interleaved else first + pairs
    x = np.zeros((1, 1, 1, width), dtype=np.float32)
    x[..., first] = 1.0
    out = np.array(rope(mx.array(x), offset=offset), dtype=np.float64)[0, 0, 0]
    return np.hypot(out[first], out[second]), np.arctan2(out[second], out[first])


def mlx_differences(profile: Profile, config: dict[str, object], length: int) -> list[str]:
    """Every layer group on which mlx-lm's own rope and `profile`'s reading differ, in words: θ_i beyond
    float32's rounding, the angle the rope turns the sequence's last position by beyond float32's (1e-5 +
    1e-6·mθ), the pairs it rotates, the factor on cos and sin beyond 1e-6 relative."""
    model = read_config(config)
    ropes = _mlx_ropes(_mlx_model(config))
    found = []
    for group in model.groups:
        setup = group.position
        if setup.scheme != "rope" or setup.scaling is None:
            continue
        rope = ropes[group.layers[0] if group.layers else min(ropes)]
        reading = read(profile, model, group, config, length, length)
        ours = np.array([float(theta) for theta in reading.frequencies()])
        theirs = _mlx_frequencies(rope, length)
        where = f"{group.layer_type} at {length} tokens"
        problem = _frequencies_differ(theirs, ours, reading, "θ")
        if problem:
            found.append(f"{where}: {problem}")
            if theirs.shape != ours.shape:
                continue
        width = max(reading.head_dim, 2 * ours.size)
        magnitude, _ = _mlx_applied(rope, width, ours.size, 0)
        # The last position of the sequence (its offset decides dynamic NTK's base); float32 angles.
        position = length - 1
        _, angle = _mlx_applied(rope, width, ours.size, position)
        turned = np.abs(np.angle(np.exp(1j * (angle - position * ours))))
        if np.any(turned > 1e-5 + 1e-6 * position * ours):
            found.append(f"{where}: the rope turns position {position} by other angles than mθ")
        factor = float(reading.cos_sin)
        if np.max(np.abs(magnitude - factor)) > 1e-6 * factor:
            found.append(f"{where}: cos/sin factor {float(magnitude[0])!r}, {profile.name} {factor!r}")
    return found


def _mlx_profile() -> Profile:
    return profile_for("mlx-lm", _mlx().__version__)


@pytest.mark.parametrize("name", (*NAMED, "phi-3.5-mini-instruct"))
def test_mlx_bundled_models_read_as_mlx_lm_computes(name: str) -> None:
    profile = _mlx_profile()
    config, lengths = BUNDLED[name]
    for length in lengths:
        assert mlx_differences(profile, config, length) == [], (profile.name, length)


@pytest.mark.parametrize("name", sorted(set(CRAFTED) | set(MLX_CRAFTED)))
def test_mlx_crafted_configs_read_as_mlx_lm_computes(name: str) -> None:
    profile = _mlx_profile()
    config, lengths = {**CRAFTED, **MLX_CRAFTED}[name]
    if name in MLX_REFUSES:
        with pytest.raises(MLX_REFUSES[name]):
            _mlx_model(config)
        return
    for length in lengths:
        assert mlx_differences(profile, config, length) == [], (profile.name, length)


#: Configs on which the reference (transformers 5) reads differently from mlx-lm: the twins of the above.
MLX_TWINS = (
    ("phi-3-mini-128k-instruct", "long factors for a short sequence"),
    ("yarn-mscale-only", "mscale alone taken over 0.1·ln s + 1"),
    ("glm-partial", "the whole head turning"),
    ("fifth-layout-yarn", "the scaling inside rope_parameters dropped"),
    ("yarn-no-original", "YaRN's original context 4096 when the block states none"),
)


@pytest.mark.parametrize(("name", "why"), MLX_TWINS)
def test_twin_mlx_lm_read_as_transformers_5_is_caught(name: str, why: str) -> None:
    _mlx()
    config, lengths = {**BUNDLED, **CRAFTED, **MLX_CRAFTED}[name]
    assert mlx_differences(BY_NAME["transformers-5"], config, lengths[0]), why


def test_twin_frequencies_the_rope_does_not_apply_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dynamic NTK's base read at the trained context instead of the running length: the frequencies then
    agree with a profile whose dynamic rule is plain, and the rope's own call at that length shows they are
    not the ones it turns by."""
    _mlx()
    config, lengths = CRAFTED["dynamic"]
    true = _mlx_frequencies
    at_trained = lambda rope, n: true(rope, rope.max_position_embeddings)  # noqa: E731
    monkeypatch.setitem(globals(), "_mlx_frequencies", at_trained)
    found = mlx_differences(BY_NAME["vllm-0.34"], config, lengths[-1])
    assert found and all("by other angles" in line for line in found), found
