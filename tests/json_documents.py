"""The published JSON Schemas of `--json` (`pe_verify/schemas`) as validators: each command's schema with the
envelope it refers to (`document.schema.json`) resolved from the package, not from the network (jsonschema
is in the test extra)."""

from __future__ import annotations

import functools
import importlib.resources
import json

import jsonschema
import referencing


def schemas() -> dict[str, dict]:
    """Every published schema by file name."""
    folder = importlib.resources.files("pe_verify").joinpath("schemas")
    return {path.name: json.loads(path.read_text("utf-8")) for path in folder.iterdir()}


@functools.cache
def validator(command: str) -> object:
    """The Draft 2020-12 validator of `command`'s document."""
    from pe_verify import documents

    registry = referencing.Registry().with_resources(
        (schema["$id"], referencing.Resource.from_contents(schema)) for schema in schemas().values()
    )
    return jsonschema.Draft202012Validator(documents.schema(command), registry=registry)


def validated(command: str, text: str) -> dict:
    """The document `text` holds, once it validates against `command`'s schema."""
    found = json.loads(text)
    validator(command).validate(found)
    return found
