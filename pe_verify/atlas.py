"""`pe-verify atlas`: the `check` battery run on the real RoPE and ALiBi code of the libraries the `libraries`
extra pins, recorded as JSON that `pe-verify report` renders as the library atlas (`reports/libraries.md`).

Each implementation (`IMPLEMENTATIONS`) is a library's own object, named as `pe-verify check` takes it, or a
configuration of one made here from the library's own code (a transformers rotary class built from a
config with a scaled ``rope_type``, an ALiBi bias built and called as the library's model does): the
functions below, which `check` takes too (``pe_verify.atlas:NAME``).
The battery runs in this process at fixed settings (its defaults, seed 0), some implementations again on
bfloat16 tensors. The record keeps only what no machine can change (`record_entry`): the library and its
version, the target, the settings, each property's pass or fail, the identified variant with the parameters
that are rules and labels (`platform_free`), and each finding's label, never a deviation or a counterexample's
values; its JSON is written with sorted keys, so that a run anywhere gives the same bytes.

A finding that fails a property or is an error (`battery.ERRORS`) is a defect of the library only where
`CITATIONS` names the line of its code that causes it, read in the installed source at the pinned version
(the tests hold each citation to the installed file); any other defect is recorded as not confirmed.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pe_verify.properties.battery import (
    ERRORS,
    Backend,
    Report,
    Settings,
    family_spec,
    run_battery,
    with_defaults,
)
from pe_verify.reporting.libraries import FORMAT

#: The distribution whose `libraries` extra pins the libraries' versions.
DISTRIBUTION = "pe-verify"
EXTRA = "libraries"


@dataclass(frozen=True)
class Implementation:
    """One implementation the atlas checks: the library (its distribution name), the target as `check`
    takes it, the family, the dtype of the tensors a RoPE implementation is handed (empty for ALiBi), and,
    for a configuration made here, what it is."""

    library: str
    target: str
    family: str = "rope"
    dtype: str = "float32"
    configuration: str = ""

    @property
    def settings(self) -> Settings:
        """The battery's default settings (seed 0) at this implementation's dtype."""
        return Settings(dtype=self.dtype)


@dataclass(frozen=True)
class Citation:
    """The line of a library's code that causes one of its findings: the finding's label, a text its message
    holds (`cause`, so that another cause under the same label is not cited), the file relative to the
    folder the library is installed in, the line number, the text that line holds and why it causes the
    finding."""

    library: str
    label: str
    cause: str
    path: str
    line: int
    snippet: str
    why: str


def _llama_rotary(head_dim: int, rope_parameters: dict[str, Any], context: int = 65536) -> Any:
    """transformers' LlamaRotaryEmbedding built from a LlamaConfig of one head of `head_dim` dims with
    these rope parameters (base 10000) and max_position_embeddings `context` (by default the battery's
    positions, below 65 536)."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig(
        head_dim=head_dim,
        hidden_size=head_dim,
        num_attention_heads=1,
        num_key_value_heads=1,
        max_position_embeddings=context,
        rope_parameters={"rope_theta": 10000.0, **rope_parameters},
    )
    return LlamaRotaryEmbedding(config)


def llama_yarn(head_dim: int) -> Any:
    """LlamaRotaryEmbedding with rope_type yarn, factor 4 from an original context of 16 384."""
    return _llama_rotary(
        head_dim, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16384}
    )


def llama_llama3(head_dim: int) -> Any:
    """LlamaRotaryEmbedding with rope_type llama3 as Llama 3.1 sets it: factor 8, low and high frequency
    factors 1 and 4, original context 8192."""
    rope = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    return _llama_rotary(head_dim, {**rope, "original_max_position_embeddings": 8192})


def llama_linear(head_dim: int) -> Any:
    """LlamaRotaryEmbedding with rope_type linear, factor 4."""
    return _llama_rotary(head_dim, {"rope_type": "linear", "factor": 4.0})


def llama_dynamic(head_dim: int) -> Any:
    """LlamaRotaryEmbedding with rope_type dynamic, factor 4 (unscaled up to its context of 65 536)."""
    return _llama_rotary(head_dim, {"rope_type": "dynamic", "factor": 4.0})


def llama_dynamic_4096(head_dim: int) -> Any:
    """LlamaRotaryEmbedding with rope_type dynamic, factor 4, for a model of context 4096: scaled for
    every call that reaches beyond it, as the battery's do; read at position 65 535, where it is NTK
    scaling by 4·65 536/4096 − 3 = 61."""
    return _llama_rotary(head_dim, {"rope_type": "dynamic", "factor": 4.0}, context=4096)


def bloom_alibi(n_heads: int, seq_len: int) -> Any:
    """transformers' BLOOM build_alibi_tensor for one sequence of seq_len tokens (a mask of ones) and n_heads
    heads, in float32: one row per head, [n_heads, 1, seq_len]."""
    return _bloom_alibi(n_heads, seq_len, "float32")


def bloom_alibi_bfloat16(n_heads: int, seq_len: int) -> Any:
    """transformers' BLOOM build_alibi_tensor as for a bfloat16 model: the same, returned in bfloat16."""
    return _bloom_alibi(n_heads, seq_len, "bfloat16")


def _bloom_alibi(n_heads: int, seq_len: int, dtype: str) -> Any:
    """BLOOM's build_alibi_tensor for a mask of ones [1, seq_len] and n_heads heads, returned in `dtype`."""
    import torch
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    mask = torch.ones(1, seq_len, dtype=torch.long)
    return build_alibi_tensor(mask, n_heads, getattr(torch, dtype))


def x_transformers_alibi(n_heads: int, seq_len: int) -> Any:
    """x-transformers' AlibiPositionalBias built for n_heads heads and called as its attention calls it,
    forward(i, j) with i = j = seq_len: [n_heads, seq_len, seq_len]."""
    from x_transformers.x_transformers import AlibiPositionalBias

    return AlibiPositionalBias(n_heads)(seq_len, seq_len)


def _configured(library: str, make: Callable[..., Any], family: str = "rope") -> Implementation:
    """A configuration made here of `library`'s own code, named as `check` takes it, described by its
    docstring (ALiBi's with no dtype setting: its dtype is the configuration's)."""
    return Implementation(
        library,
        f"{__name__}:{make.__name__}",
        family,
        "float32" if family == "rope" else "",
        make.__doc__ or "",
    )


_LLAMA = "transformers.models.llama.modeling_llama"
_ROTARY = "rotary_embedding_torch"
_X = "x_transformers.x_transformers"

#: What the atlas checks, in the order of its page.
IMPLEMENTATIONS = (
    Implementation("transformers", f"{_LLAMA}:apply_rotary_pos_emb"),
    Implementation("transformers", f"{_LLAMA}:LlamaRotaryEmbedding"),
    Implementation("transformers", f"{_LLAMA}:LlamaRotaryEmbedding", dtype="bfloat16"),
    Implementation("transformers", "transformers.models.gemma3.modeling_gemma3:apply_rotary_pos_emb"),
    Implementation("transformers", "transformers.models.gpt_neox.modeling_gpt_neox:GPTNeoXRotaryEmbedding"),
    *(
        _configured("transformers", make)
        for make in (llama_linear, llama_dynamic, llama_dynamic_4096, llama_yarn, llama_llama3)
    ),
    Implementation(
        "transformers", "transformers.models.mpt.modeling_mpt:build_mpt_alibi_tensor", "alibi", dtype=""
    ),
    _configured("transformers", bloom_alibi, "alibi"),
    _configured("transformers", bloom_alibi_bfloat16, "alibi"),
    Implementation("torchtune", "torchtune.modules:RotaryPositionalEmbeddings"),
    Implementation("torchtune", "torchtune.modules:RotaryPositionalEmbeddings", dtype="bfloat16"),
    Implementation("torchtune", "torchtune.models.llama3_1:Llama3ScaledRoPE"),
    Implementation("rotary-embedding-torch", f"{_ROTARY}:RotaryEmbedding"),
    Implementation("rotary-embedding-torch", f"{_ROTARY}:RotaryEmbedding", dtype="bfloat16"),
    Implementation("rotary-embedding-torch", f"{_ROTARY}.rotary_embedding_torch:apply_rotary_emb"),
    Implementation("x-transformers", f"{_X}:apply_rotary_pos_emb"),
    Implementation("x-transformers", f"{_X}:RotaryEmbedding"),
    Implementation("x-transformers", f"{_X}:RotaryEmbedding", dtype="bfloat16"),
    Implementation("x-transformers", f"{_X}:AlibiPositionalBias._get_slopes", family="alibi", dtype=""),
    _configured("x-transformers", x_transformers_alibi, "alibi"),
    Implementation("diffusers", "diffusers.models.embeddings:apply_rotary_emb"),
    Implementation("diffusers", "diffusers.models.embeddings:apply_rotary_emb", dtype="bfloat16"),
)

_DIVIDES = "divides by dim − 2 when it builds its frequencies, so building it at head size 2 raises"

#: Each defect found in a library, with the line of its code that causes it (confirmed in the source).
CITATIONS = (
    Citation(
        "transformers",
        "raises",
        "ZeroDivisionError",
        "transformers/modeling_rope_utils.py",
        341,
        "- (factor - 1)) ** (dim / (dim - 2))",
        f"the dynamic rope_type's NTK base {_DIVIDES} ZeroDivisionError",
    ),
    *(
        Citation(
            "transformers",
            label,
            cause,
            "transformers/modeling_rope_utils.py",
            113,
            "if seq_len < self.original_max_seq_len and max_seq_len_cached > self.original_max_seq_len:",
            "the dynamic rope_type's dynamic_frequency_update recomputes inv_freq when a call reaches beyond "
            "the longest one so far and resets it only for a call within the original context: a call "
            "between the two keeps the frequencies an earlier, longer call grew, so its result depends on "
            "the calls before it",
        )
        for label, cause in (
            ("stateful", "after a call at position"),
            ("not-batch-consistent", "between calls"),
        )
    ),
    Citation(
        "rotary-embedding-torch",
        "raises",
        "ZeroDivisionError",
        "rotary_embedding_torch/rotary_embedding_torch.py",
        112,
        "theta *= theta_rescale_factor ** (dim / (dim - 2))",
        f"RotaryEmbedding {_DIVIDES} ZeroDivisionError, even with theta_rescale_factor 1",
    ),
    Citation(
        "rotary-embedding-torch",
        "low-precision",
        "bfloat16",
        "rotary_embedding_torch/rotary_embedding_torch.py",
        175,
        "torch.arange(seq_len, device = device, dtype = dtype)",
        "get_seq_pos builds the positions in the dtype of the tensor it rotates (rotate_queries_or_keys "
        "passes t.dtype): in bfloat16, positions from 256 on are rounded (256 and 257 are one number)",
    ),
    Citation(
        "x-transformers",
        "raises",
        "ZeroDivisionError",
        "x_transformers/x_transformers.py",
        849,
        "base *= base_rescale_factor ** (dim / (dim - 2))",
        f"RotaryEmbedding {_DIVIDES} ZeroDivisionError, even with base_rescale_factor 1",
    ),
)


class AtlasError(ValueError):
    """The atlas cannot run as recorded: a library missing or at another version than the extra pins, or
    pe-verify itself not installed (its metadata holds the pins)."""


def pinned_versions() -> dict[str, str]:
    """The version the `libraries` extra pins for each library (``name==version``), from pe-verify's
    installed metadata; `AtlasError` when pe-verify is not installed."""
    requirement = re.compile(rf'^([A-Za-z0-9_.-]+)==([^;\s]+)\s*;\s*extra\s*==\s*"{EXTRA}"')
    try:
        requires = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise AtlasError(f'{DISTRIBUTION} is not installed: pip install -e ".[{EXTRA}]"') from None
    found = {}
    for line in requires:
        match = requirement.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def library_versions() -> dict[str, str]:
    """Each atlas library's installed version, which must be the pinned one; `AtlasError` naming every
    library that is missing or at another version."""
    pins, problems, found = pinned_versions(), [], {}
    for library in dict.fromkeys(i.library for i in IMPLEMENTATIONS):
        try:
            found[library] = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{library} is not installed")
            continue
        if found[library] != pins.get(library):
            problems.append(f"{library} {found[library]} is installed, the extra pins {pins.get(library)}")
    if problems:
        raise AtlasError(
            f"the atlas runs at the versions the {EXTRA} extra pins: {'; '.join(problems)} "
            f'(pip install -e ".[{EXTRA}]")'
        )
    return found


#: Identification parameters that are measurements, left out of the record whatever the identification.
MEASURED = frozenset({"attention_factor", "reason", "k"})
#: Float parameters that are exact whether or not the identification matches: r/d of two whole numbers.
EXACT = frozenset({"rotary_fraction"})


def platform_free(parameters: dict[str, Any], matches: bool) -> dict[str, Any]:
    """The identification's parameters that no machine changes: its labels and whole numbers, and the
    rule's float parameters (base, factor …) when the identification matches (then they are the rule's;
    otherwise they are the closest fit's, a measurement); never a measurement (`MEASURED`)."""
    return {
        key: value
        for key, value in parameters.items()
        if key not in MEASURED and (matches or key in EXACT or not isinstance(value, float))
    }


def defects(report: Report) -> set[str]:
    """The labels of the report's findings that are defects: errors (`battery.ERRORS`) and those of a
    failed property."""
    failed = {o.label for o in report.properties if not o.passed}
    return {f.label for f in report.findings if f.label in ERRORS or f.label in failed}


#: What the record keeps of a citation (its library and label are the finding's).
CITED = ("path", "line", "snippet", "why")


def citation(library: str, label: str, message: str) -> Citation | None:
    """The citation of a finding of `library` under `label` whose message names the citation's cause."""
    return next(
        (c for c in CITATIONS if (c.library, c.label) == (library, label) and c.cause in message), None
    )


def record_entry(implementation: Implementation, version: str, report: Report) -> dict[str, Any]:
    """One implementation's record: library, version, target, family, settings, whether it passed, each
    property's outcome, the identification (`platform_free`) and each finding's label, with, for a defect,
    its citation or None (not confirmed)."""
    spec = family_spec(implementation.family)
    settings = {k: v for k, v in asdict(with_defaults(spec, implementation.settings)).items() if v != ""}
    settings.pop("heads" if spec.sizes[0] == "ds" else "ds", None)
    identified = report.identified
    found = []
    for f in report.findings:
        entry: dict[str, Any] = {"label": f.label, "defect": f.label in defects(report)}
        if entry["defect"]:
            cited = citation(implementation.library, f.label, f.message)
            entry["citation"] = None if cited is None else {k: getattr(cited, k) for k in CITED}
        found.append(entry)
    return {
        "library": implementation.library,
        "version": version,
        "target": implementation.target,
        "family": implementation.family,
        "configuration": " ".join(implementation.configuration.split()),
        "settings": settings,
        "passed": report.passed,
        "properties": [{"name": o.name, "passed": o.passed} for o in report.properties],
        "identified": None
        if identified is None
        else {
            "variant": identified.variant,
            "matches": identified.matches,
            "parameters": platform_free(identified.parameters, identified.matches),
        },
        "findings": found,
    }


def run_atlas(
    load: Callable[[str], Callable], progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The atlas record: every implementation of `IMPLEMENTATIONS` loaded by `load` (``module:name`` → the
    callable) and checked in this process on torch tensors, with the libraries' warnings ignored (a warning
    filter that turns them into errors would change what they compute); `progress(target)` after each.
    `AtlasError` before anything runs when a library is missing or not at its pinned version."""
    versions = library_versions()
    entries = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for implementation in IMPLEMENTATIONS:
            report = run_battery(
                implementation.family,
                load(implementation.target),
                implementation.settings,
                Backend("torch"),
                target=implementation.target,
            )
            entries.append(record_entry(implementation, versions[implementation.library], report))
            if progress is not None:
                progress(implementation.target)
    return {"format": FORMAT, "libraries": versions, "implementations": entries}


def record_text(record: dict[str, Any], ascii_only: bool = False) -> str:
    """The record as its file holds it: JSON with sorted keys, indented by 2, one final newline (non-ASCII
    characters escaped when `ascii_only`)."""
    return json.dumps(record, indent=2, sort_keys=True, ensure_ascii=ascii_only) + "\n"


def replaceable(path: Path) -> bool:
    """Whether `path` may be written as a record: nothing is there, or an atlas record (a JSON object whose
    "format" is `FORMAT`) that a new run replaces. A folder, a link or any other file is the user's."""
    if not path.exists() and not path.is_symlink():
        return True
    if path.is_symlink() or not path.is_file():
        return False
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(held, dict) and held.get("format") == FORMAT


def write_record(path: Path, text: str) -> None:
    """Write `text` to `path` all at once: a file beside it, flushed to disk, given the mode the record had
    (a new one the mode the umask leaves), then renamed over it."""
    if path.is_file():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(name, mode)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
