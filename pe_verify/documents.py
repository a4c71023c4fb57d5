"""The JSON document every `--json` prints, and the JSON Schema each command's document validates against.

Every document is one object: ``schema_version`` (`SCHEMA_VERSION`), ``pe_verify`` (the version that wrote
it), ``command``, ``settings`` (every option it ran with, under the option's name, so that the same command
can run again) and the command's result under a key named for it (`PAYLOADS`). The schemas are published
as ``pe_verify/schemas/<command>.schema.json`` (JSON Schema draft 2020-12).
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Mapping
from typing import Any

from pe_verify import __version__
from pe_verify.records import plain

#: The version of the documents' layout: it changes when a field of any command's document is removed or
#: changes meaning (fields may be added within a version). 1 was `check`'s first layout, its report at the
#: top level.
SCHEMA_VERSION = 2

#: The key each command's result is printed under.
PAYLOADS = {
    "check": "report",
    "collisions": "collisions",
    "list": "claims",
    "model": "model",
    "proofs": "derivations",
    "reproduce": "reproductions",
    "separation": "separation",
    "show": "claim",
}


def document(command: str, settings: Mapping[str, object], result: object) -> dict[str, Any]:
    """The document of one run of `command` with `settings`: its result (a record, or a list of records, in
    `records.plain`'s form) under the command's key."""
    return {
        "schema_version": SCHEMA_VERSION,
        "pe_verify": __version__,
        "command": command,
        "settings": dict(settings),
        PAYLOADS[command]: plain(result),
    }


def dumps(found: Mapping[str, object], ascii_only: bool) -> str:
    """A document as the indented JSON text `--json` prints (only ASCII, non-ASCII escaped, when asked); a
    value JSON has no type for (a numpy scalar in a counterexample) is printed as its text."""
    return json.dumps(found, indent=2, ensure_ascii=ascii_only, default=str)


def schema(command: str) -> dict[str, Any]:
    """The published JSON Schema of `command`'s document."""
    path = importlib.resources.files("pe_verify").joinpath(f"schemas/{command}.schema.json")
    return json.loads(path.read_text("utf-8"))
