"""`analyse_model`: the suite's answers for one real model's positional setup, from its Hugging Face config.

`analyse_model(source, context=None)` takes a parsed config (a dict), a path to a ``config.json`` or to a
folder holding one, or the name of a bundled model (`bundled_names`), and returns the record
``pe-verify model --json`` prints: the setup read, the keys used and ignored, every answer with its evidence
kind, the findings, and the cross-check against transformers (skipped, saying so, when transformers is not
installed). A file that is no JSON object, a folder without ``config.json`` or a context out of range is a
`ModelInputError`; a key with an unusable value is listed under ``problems`` and only the answers that need
it are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

#: Largest config file read: real configs are a few kilobytes (LongRoPE's factor lists included).
MAX_CONFIG_BYTES = 16 * 2**20


class ModelInputError(ValueError):
    """A config that cannot be read, or a context out of range: one line naming what is wrong."""


def bundled_names() -> list[str]:
    """The names of the bundled models' configs."""
    from pe_verify.properties.encodings.model_config import bundled_models

    return list(bundled_models())


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def read_config_file(path: str | os.PathLike[str]) -> tuple[dict, str]:
    """The parsed config at `path` (a file, or a folder holding ``config.json``) and the file read."""
    target = Path(path)
    if target.is_dir():
        target = target / "config.json"
        if not target.is_file():
            raise ModelInputError(f"{path} is a folder without a config.json")
    elif not target.is_file():
        raise ModelInputError(f"{path} is neither a file nor a folder (nor a bundled model's name)")
    size = target.stat().st_size
    if size > MAX_CONFIG_BYTES:
        raise ModelInputError(f"{target} has {size} bytes; a config has at most {MAX_CONFIG_BYTES}")
    try:
        text = target.read_text(encoding="utf-8")
        config = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise ModelInputError(f"{target} is not UTF-8 text") from None
    except ValueError as exc:
        raise ModelInputError(f"{target} is not JSON: {exc}") from None
    if not isinstance(config, dict):
        raise ModelInputError(f"{target} holds a JSON {type(config).__name__}, not an object")
    return config, str(target)


def resolve(source: Mapping | str | os.PathLike[str]) -> tuple[Mapping, str, dict | None]:
    """The config, a name for it, and the bundled record's citation (None for a user's config)."""
    from pe_verify.properties.encodings.model_config import bundled_models

    if isinstance(source, Mapping):
        return source, "the given config", None
    bundled = bundled_models()
    if isinstance(source, str) and source in bundled and not Path(source).exists():
        model = bundled[source]
        cited = {"model": model.model, "repository": model.repository, "source": model.source}
        if model.note:
            cited["note"] = model.note
        if model.context is not None:
            cited["context"] = model.context
        return model.config, source, cited
    config, name = read_config_file(source)
    return config, name, None


def analyse_model(
    source: Mapping | str | os.PathLike[str],
    context: int | None = None,
    *,
    cross_check: bool = True,
    on_answer: Callable[[str], None] | None = None,
) -> dict:
    """The record of one model (see the module): `context` is the length planned (default: the bundled
    model's documented context, else ``max_position_embeddings``)."""
    from pe_verify.properties.analyses.model_setup import ContextError, analyse
    from pe_verify.properties.battery.transformers_rope import compare
    from pe_verify.properties.encodings.model_config import ConfigError, read_config

    config, name, cited = resolve(source)
    if context is None and cited is not None:
        context = cited.get("context")
    try:
        setup = read_config(config)
        found = analyse(setup, context, on_answer)
    except (ConfigError, ContextError) as exc:
        raise ModelInputError(str(exc)) from None
    record = {"config": name, "bundled": cited, **found.as_json()}
    record["cross_check"] = compare(config, found) if cross_check else {"skipped": "not asked for"}
    return record
