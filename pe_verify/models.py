"""`analyse_model`: the suite's answers for one real model's positional setup, from its Hugging Face config.

`analyse_model(source, context=None)` takes a parsed config (a dict), a path to a ``config.json`` or to a
folder holding one, a GGUF file (recognised by its magic, read as llama.cpp reads it:
`gguf_metadata.gguf_config`), or the name of a bundled model (`bundled_names`), and returns the record
``pe-verify model --json`` prints: the setup read, the keys used and ignored, every answer with its evidence
kind, the findings, and the cross-check against transformers (skipped, saying so, when transformers is not
installed). A file that is no JSON object, a folder without ``config.json`` or a context out of range is a
`ModelInputError`; a key with an unusable value is listed under ``problems`` and only the answers that need
it are skipped. With `gguf` (a GGUF file), the config's conversion into that file is audited as well
(`gguf_conversion.audit`): its findings join the record's, and the record's ``gguf`` part says what was read.
"""

from __future__ import annotations

import collections
import contextlib
import difflib
import itertools
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

#: Largest config file read: real configs are a few kilobytes (LongRoPE's factor lists included).
MAX_CONFIG_BYTES = 16 * 2**20


class ModelInputError(ValueError):
    """A config that cannot be read, or a context out of range: one line naming what is wrong."""


def bundled_names() -> list[str]:
    """The names of the bundled models' configs."""
    from pe_verify.properties.encodings.model_config import bundled_models

    return list(bundled_models())


#: Deepest nesting a config may have: real ones nest three or four levels (``text_config.rope_scaling``).
MAX_CONFIG_DEPTH = 64

#: Digits of the largest float (about 1.8e308): an integer with more is beyond every float.
_FLOAT_DIGITS = 309
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class _OutOfRange:
    """A JSON number no float holds, parsed in its place and refused with its key path."""

    def __init__(self, described: str) -> None:
        self.described = described


def _parse_int(text: str) -> int | _OutOfRange:
    digits = len(text.lstrip("-"))
    if digits <= _FLOAT_DIGITS:
        value = int(text)
        with contextlib.suppress(OverflowError):
            float(value)
            return value
    return _OutOfRange(f"an integer of {digits} digits")


def _parse_float(text: str) -> float | _OutOfRange:
    value = float(text)
    if math.isfinite(value):
        return value
    shown = text if len(text) <= 24 else f"{text[:12]}…{text[-8:]} ({len(text)} characters)"
    return _OutOfRange(shown)


def _printable(text: str) -> str:
    """`text` with each unprintable character (a surrogate, a line break) as its escape."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode() for c in text
    )


def _key_path(path: str, key: object) -> str:
    step = _printable(key) if isinstance(key, str) else repr(key)
    return f"{path}.{step}" if path else step


def _children(value: object, path: str) -> list[tuple[str, object, object]]:
    """The (path, key, child) of each entry of a JSON object or array (key None for an array's)."""
    if isinstance(value, Mapping):
        return [(_key_path(path, key), key, child) for key, child in value.items()]
    if isinstance(value, (list, tuple)):
        return [(f"{path}[{index}]", None, child) for index, child in enumerate(value)]
    return []


def _text_depth(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest (strings skipped)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    steps = map({"[": 1, "{": 1, "]": -1, "}": -1}.__getitem__, brackets)
    return max(itertools.accumulate(steps, initial=0))


def _refuse_deep(config: Mapping, where: str, *, finite: bool) -> None:
    """A `ModelInputError` naming the depth, and the top-level key holding it, when `config` nests deeper than
    MAX_CONFIG_DEPTH; a config that may hold itself (not `finite`: not parsed from text) is followed no
    deeper than that."""
    deepest, deepest_under = 1, ""
    stack: list[tuple[str, object, int]] = [(_key_path("", key), child, 2) for key, child in config.items()]
    while stack:
        top, value, depth = stack.pop()
        if not isinstance(value, (Mapping, list, tuple)):
            continue
        if depth > deepest:
            deepest, deepest_under = depth, top
        if finite or depth <= MAX_CONFIG_DEPTH:
            stack.extend((top, child, depth + 1) for _, _, child in _children(value, ""))
    if deepest > MAX_CONFIG_DEPTH:
        levels = f"{deepest} levels" if finite else f"more than {MAX_CONFIG_DEPTH} levels"
        raise ModelInputError(
            f"{where} nests {levels} deep (under config key {deepest_under}); a config nests at most "
            f"{MAX_CONFIG_DEPTH}"
        )


def _refuse_unusable(config: Mapping, where: str, repeated: dict[int, tuple[dict, list[str]]]) -> list[str]:
    """A `ModelInputError` naming the key path of the first key or value that no text can print (a lone
    surrogate), of a key that is no string, and of a number no float holds; else the key paths given more
    than once (`repeated`: the keys repeated in each object parsed, by the object's id)."""
    duplicates: list[str] = []
    stack: list[tuple[str, object, object]] = [("", None, config)]
    while stack:
        path, key, value = stack.pop()
        if key is not None and not isinstance(key, str):
            raise ModelInputError(f"{where}: config key {path} is of type {type(key).__name__}, not a string")
        for text, part in ((key, "name"), (value, "value")):
            if isinstance(text, str) and (lone := _SURROGATE.search(text)) is not None:
                raise ModelInputError(
                    f"{where}: config key {path} holds a lone surrogate ({_printable(lone.group())}) in its "
                    f"{part}: half of a UTF-16 pair, no character"
                )
        if isinstance(value, _OutOfRange):
            raise ModelInputError(
                f"{where}: config key {path} is {value.described}, beyond the largest float (about 1.8e308)"
            )
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                float(value)
            except OverflowError:
                digits = int(value.bit_length() * math.log10(2)) + 1
                raise ModelInputError(
                    f"{where}: config key {path} is an integer of about {digits} digits, beyond the largest "
                    "float (about 1.8e308)"
                ) from None
        entry = repeated.get(id(value))
        if entry is not None and entry[0] is value:
            duplicates.extend(_key_path(path, name) for name in entry[1])
        stack.extend(reversed(_children(value, path)))
    return duplicates


def _json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's words: JSON null, true or false, a JSON number, string or
    array (never Python's type names)."""
    if value is None or isinstance(value, bool):
        return f"JSON {json.dumps(value)}"
    if isinstance(value, (int, float, _OutOfRange)):
        return "a JSON number"
    return "a JSON string" if isinstance(value, str) else "a JSON array"


def _parse(text: str, where: str) -> tuple[dict, list[str]]:
    """The JSON object `text` and the key paths it gives more than once (the last value kept, as transformers
    keeps it); a `ModelInputError` for what `read_config_file` refuses."""
    repeated: dict[int, tuple[dict, list[str]]] = {}

    def pairs(items: list[tuple[str, object]]) -> dict:
        parsed = dict(items)
        if len(parsed) < len(items):
            counts = collections.Counter(key for key, _ in items)
            repeated[id(parsed)] = (parsed, [key for key in parsed if counts[key] > 1])
        return parsed

    try:
        config = json.loads(
            text,
            object_pairs_hook=pairs,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except RecursionError:
        raise ModelInputError(
            f"{where} nests {_text_depth(text)} levels deep; a config nests at most {MAX_CONFIG_DEPTH}"
        ) from None
    except ValueError as exc:
        raise ModelInputError(f"{where} is not JSON: {_printable(str(exc))}") from None
    if not isinstance(config, dict):
        raise ModelInputError(f"{where} holds {_json_kind(config)}, not an object")
    _refuse_deep(config, where, finite=True)
    return config, _refuse_unusable(config, where, repeated)


def duplicate_keys(text: str) -> list[str]:
    """The key paths (``rope_scaling.factor``, ``a[2].b``) that the JSON object `text` gives more than once.
    JSON allows them, and `read_config_file` keeps the last value as transformers does, without saying so:
    this is how a caller tells the user."""
    return _parse(text, "the config")[1]


def check_config(config: Mapping, where: str = "the given config") -> None:
    """A `ModelInputError` in one line for a config (a Mapping, not parsed from text) that no analysis can
    use: nested deeper than MAX_CONFIG_DEPTH (or holding itself), a key that is no string, a lone surrogate
    in a key or a string, an integer beyond every float."""
    _refuse_deep(config, where, finite=False)
    _refuse_unusable(config, where, {})


def read_config_file(path: str | os.PathLike[str]) -> tuple[dict, str]:
    """The parsed config at `path` (a file, or a folder holding ``config.json``) and the file read.

    A `ModelInputError` in one line, before any analysis, for an empty name (not the current folder), a file
    that cannot be read, is too large, is no UTF-8 JSON object, nests deeper than MAX_CONFIG_DEPTH, holds NaN
    or Infinity, a number beyond every float or a lone surrogate (a JSON ``"\\ud800"`` without its pair: no
    character, and no text prints it). A key given more than once keeps its last value, as transformers reads
    it; `duplicate_keys` lists them, to report.
    """
    if os.fspath(path) == "":  # Path("") is the current folder: an empty name names no config
        raise ModelInputError(
            "the config's name is empty: name a config.json, a folder holding one, a hub id or a bundled "
            "model"
        )
    target = Path(path)
    named = _printable(str(path))  # a name from the command line may hold a line break or a surrogate
    try:
        if target.is_dir():
            target = target / "config.json"
            if not target.is_file():
                raise ModelInputError(f"{named} is a folder without a config.json")
        elif not target.is_file():
            close = difflib.get_close_matches(str(path), bundled_names(), n=1)
            hint = f"; did you mean the bundled {close[0]!r}?" if close else ""
            neither = "is neither a file nor a folder (nor a bundled model's name)"
            raise ModelInputError(f"{named} {neither}{hint}")
        named = _printable(str(target))
        size = target.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ModelInputError(f"{named} has {size} bytes; a config has at most {MAX_CONFIG_BYTES}")
        text = target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ModelInputError(f"{named} is not UTF-8 text") from None
    except OSError as exc:
        raise ModelInputError(f"{named} cannot be read: {exc.strerror or exc}") from None
    config, _ = _parse(text, named)
    return config, str(target)


class FromGguf(dict):
    """The config a GGUF file amounts to as llama.cpp reads it (`gguf_metadata.gguf_config`), with what was
    read: `metadata` (`gguf_metadata.GgufMetadata`) and `reading` (`gguf_metadata.GgufConfig`)."""

    def __init__(self, metadata: object, reading: object) -> None:
        super().__init__(reading.config)
        self.metadata = metadata
        self.reading = reading

    def record(self) -> dict:
        """The record's ``gguf`` part: the file, its architecture, the keys and tensors read, the keys absent
        (their defaults taken) and the GGUF key each config key came from."""
        return {
            "read_from": "gguf",
            **self.metadata.as_json(),
            "absent": list(self.reading.absent),
            "sources": dict(self.reading.sources),
        }


def read_gguf_file(path: str | os.PathLike[str]) -> FromGguf:
    """The config of the GGUF file at `path` as llama.cpp reads it; a `ModelInputError` in one line for a file
    that cannot be read (truncated, not GGUF, past the metadata bounds, a key of the wrong type)."""
    from pe_verify.properties.encodings.gguf_metadata import GgufError, gguf_config, read_gguf

    try:
        metadata = read_gguf(path)
    except GgufError as exc:
        raise ModelInputError(_printable(str(exc))) from None
    return FromGguf(metadata, gguf_config(metadata))


def _gguf_path(source: object) -> bool:
    """Whether `source` names a regular file that starts with GGUF's magic (whatever its suffix); a
    ``.gguf`` name that is a file without it is read as GGUF, to be refused as not GGUF."""
    from pe_verify.properties.encodings.gguf_metadata import is_gguf

    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "":
        return False
    try:
        if not Path(source).is_file():
            return False
    except (OSError, ValueError):
        return False
    return is_gguf(source) or os.fspath(source).lower().endswith(".gguf")


def _exists(path: str | os.PathLike[str]) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def resolve(source: Mapping | str | os.PathLike[str]) -> tuple[Mapping, str, dict | None]:
    """The config, a name for it, and the bundled record's citation (None for a user's config).

    `source` is, in this order: a Mapping; a bundled model's name (unless a path of that name exists); a GGUF
    file (by its magic ``GGUF``, or a ``.gguf`` name), answered as a `FromGguf` config; a file or a folder;
    a Hugging Face hub id, ``owner/name`` or ``owner/name@revision`` (`pe_verify.hub`: the local hub cache,
    else a download of its ``config.json``), named ``owner/name@commit``.
    """
    from pe_verify.properties.encodings.model_config import bundled_models

    if isinstance(source, Mapping):
        check_config(source)
        return source, "the given config", None
    bundled = bundled_models()
    if isinstance(source, str) and source in bundled and not _exists(source):
        model = bundled[source]
        cited = {"model": model.model, "repository": model.repository, "source": model.source}
        if model.note:
            cited["note"] = model.note
        if model.context is not None:
            cited["context"] = model.context
        return model.config, source, cited
    if _gguf_path(source):
        return read_gguf_file(source), _printable(os.fspath(source)), None
    if isinstance(source, str) and not _exists(source):
        from pe_verify import hub

        hub_id = hub.parse_hub_id(source)
        if hub_id is not None:
            try:
                found = hub.hub_config(*hub_id)
            except hub.HubError as exc:
                raise ModelInputError(str(exc)) from None
            config, _ = read_config_file(found.path)
            return config, found.name, None
    config, name = read_config_file(source)
    return config, name, None


def analyse_model(
    source: Mapping | str | os.PathLike[str],
    context: int | None = None,
    *,
    cross_check: bool = True,
    on_answer: Callable[[str], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    max_seconds: float = math.inf,
    max_bytes: float = math.inf,
    runtimes: Sequence[str] | None = None,
    gguf: str | os.PathLike[str] | None = None,
) -> dict:
    """The record of one model (see the module): `context` is the length planned (default: the bundled
    model's documented context, else ``max_position_embeddings``); `on_total` and `on_answer` hear of the
    progress (`model_setup.analyse`). Work estimated (`model_setup.analysis_cost`) to take more than
    `max_seconds` or to hold more than `max_bytes` is refused, a `ModelInputError`, before it starts.
    `runtimes` names the runtime profiles to compare (`encodings.runtimes`; empty: every one; None: none).
    `gguf` names a GGUF file converted from the config, to audit (a `ModelInputError` with a bundled model,
    whose config is an excerpt, or a GGUF file as the source)."""
    from pe_verify.properties.analyses.model_setup import ContextError, analyse, analysis_cost
    from pe_verify.properties.analyses.runtime_divergence import profiles_named, runtimes_record
    from pe_verify.properties.battery.transformers_rope import compare
    from pe_verify.properties.encodings.model_config import ConfigError, read_config

    try:
        profiles = None if runtimes is None else profiles_named(runtimes)
    except ValueError as exc:
        raise ModelInputError(str(exc)) from None
    config, name, cited = resolve(source)
    converted = None
    if gguf is not None:
        if cited is not None:
            raise ModelInputError(
                f"--gguf audits a conversion from a full config.json; {name} is a bundled excerpt of one"
            )
        if isinstance(config, FromGguf):
            raise ModelInputError(
                f"--gguf audits a conversion from a config.json; {name} is itself a GGUF file"
            )
        if not _gguf_path(gguf):
            raise ModelInputError(f"--gguf {_printable(os.fspath(gguf))} is not a file")
        converted = read_gguf_file(gguf)
    if context is None and cited is not None:
        context = cited.get("context")
    try:
        setup = read_config(config)
        seconds, needed = analysis_cost(setup, context)
        if needed > max_bytes:
            raise ModelInputError(
                f"the answers need about {needed / 2**30:.3g} GiB and the limit is {max_bytes / 2**30:g} GiB "
                "(lower --context or raise --max-memory)"
            )
        if seconds > max_seconds:
            raise ModelInputError(
                f"the answers would take about {seconds / 60:.3g} minutes (a rough estimate) and the limit "
                f"is {max_seconds / 60:g} minutes (lower --context or raise --max-minutes)"
            )
        found = analyse(setup, context, on_answer, on_total)
    except (ConfigError, ContextError) as exc:
        raise ModelInputError(str(exc)) from None
    record = {"config": name, "bundled": cited, **found.as_json()}
    if isinstance(config, FromGguf):
        record["gguf"] = config.record()
        record["findings"] += [_finding(note) for note in config.reading.notes]
    if converted is not None:
        from pe_verify.properties.encodings.gguf_conversion import audit

        record["gguf"] = {**converted.record(), "read_from": "audit"}
        record["findings"] += [_finding(note) for note in audit(config, converted.metadata)]
    record["cross_check"] = compare(config, found) if cross_check else {"skipped": "not asked for"}
    record["runtimes"] = (
        {"skipped": "not asked for"} if profiles is None else runtimes_record(found, config, profiles)
    )
    return record


def _finding(note: object) -> dict[str, str]:
    return {
        "label": note.label,
        "severity": note.severity,
        "concerns": note.concerns,
        "message": note.message,
    }


def findings(record: dict) -> list[dict]:
    """Every finding of a record: the model's, then each layer group's (a finding shared by groups once)."""
    from pe_verify.reporting.models import record_findings

    return record_findings(record)
