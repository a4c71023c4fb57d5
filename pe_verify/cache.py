"""What `pe-verify list` and `show` computed, kept between runs so that they answer at once.

The results depend only on the code and on the libraries that run it, so they are stored under a key: the
SHA-256 of every Python source file of the package, of the name and version of each dependency, and of the
Python version. Any change of either gives a new key, and the old results are never read again (they are
removed when the new ones are stored). The results are kept in `$PE_VERIFY_CACHE` if set, else in the
user's cache folder (`$XDG_CACHE_HOME/pe-verify` or `~/.cache/pe-verify` on Linux, from `platformdirs`),
as one JSON file per key. A failure to store is ignored: the cache can make a run faster, never make it fail
or lie. `report` never uses it.

A stored file is trusted only as far as it is checked: it is opened only if it is a regular file (never a
FIFO or a device, which could block or never end), read up to `MAX_BYTES`, parsed (a nesting too deep to
parse counts as unparsable), and validated against `RECORD`: every claim record has exactly the fields of
`RECORD` with their types and a verdict the catalog's vocabulary knows, its parts agree (the id it is
filed under, the same verdicts in its row and in its details, a change noted exactly when a computed verdict
differs from the recorded one), and every filed id is in the list of ids, which holds each id once; a list
of ids that is not the catalog's is caught when the catalog is next read. A file that fails any of this
counts as corrupt: nothing of it is read, and the results are computed anew and stored over it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

from pe_verify.claims.model import BY_SOURCES, ArgumentVerdict, Verdict

ENVIRONMENT = "PE_VERIFY_CACHE"
PACKAGES = (
    "pe_verify",
    "pe_verify.proofs",
    "pe_verify.properties",
    "pe_verify.claims",
    "pe_verify.reporting",
)
DISTRIBUTION = "pe-verify"

#: Largest cache file read (the whole catalog takes under 1 MB).
MAX_BYTES = 64 * 2**20

_TEXT, _MAYBE_TEXT = (str,), (str, type(None))
_VERDICT, _ARGUMENT = ("verdict",), ("argument verdict", type(None))
_POINT = ("sources point", type(None))

#: One piece of evidence as `show --json` prints it.
EVIDENCE = {
    "kind": _TEXT,
    "summary": _TEXT,
    "holds": (bool,),
    "bearing": _TEXT,
    "instances": _MAYBE_TEXT,
    "detail": (dict,),
    "measured": (dict,),
}

#: Every stored claim record (the command line's own rendering of one claim): each field's allowed types,
#: a nested dict for a JSON object of exactly those fields, or a one-item list for a list of such items.
RECORD: dict[str, Any] = {
    "row": {
        "id": _TEXT,
        "role": _TEXT,
        "document": _TEXT,
        "statement": _TEXT,
        "verdict": _VERDICT,
        "sources_point": _POINT,
        "argument_verdict": _ARGUMENT,
    },
    "line": _TEXT,
    "show": {
        "id": _TEXT,
        "role": _TEXT,
        "document": _TEXT,
        "section": _TEXT,
        "statement": _TEXT,
        "formal": _TEXT,
        "verdict": _VERDICT,
        "sources_point": _POINT,
        "recorded_verdict": _VERDICT,
        "argument_verdict": _ARGUMENT,
        "recorded_argument_verdict": _ARGUMENT,
        "argument_issue": _MAYBE_TEXT,
        "explanation": _TEXT,
        "evidence": [EVIDENCE],
        "argument_evidence": [EVIDENCE],
        "depends_on": [_TEXT],
        "weak_dependencies": [{"id": _TEXT, "verdict": _VERDICT}],
    },
    "text": _TEXT,
    "changed": _MAYBE_TEXT,
}

#: The values a field marked by one of these names may hold.
_VOCABULARY = {
    "verdict": frozenset(Verdict),
    "argument verdict": frozenset(ArgumentVerdict),
    "sources point": frozenset(point for point in BY_SOURCES if point is not None),
}


def directory() -> Path:
    """Where the results are kept: $PE_VERIFY_CACHE, else the user's cache folder for pe-verify."""
    chosen = os.environ.get(ENVIRONMENT)
    return Path(chosen) if chosen else Path(platformdirs.user_cache_dir(DISTRIBUTION))


def source_files() -> list[tuple[str, Path]]:
    """Every file of the package's folders and their subfolders — sources and data such as the committed
    certificates, not bytecode — as (folder/relative path, path), in a fixed order."""
    files = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in map(Path, spec.submodule_search_locations or ()):
            for path in folder.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                    files[f"{folder.name}/{path.relative_to(folder).as_posix()}"] = path
    return sorted(files.items())


def dependencies() -> list[str]:
    """name==version of every dependency the package requires (not the optional extras)."""
    found = []
    for requirement in importlib.metadata.requires(DISTRIBUTION) or ():
        if "extra ==" in requirement:
            continue
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)[0]
        try:
            found.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return sorted(found)


def key() -> str:
    """The hash of the package's sources, its dependencies' versions and the Python version."""
    digest = hashlib.sha256()
    for label, path in source_files():
        digest.update(f"{label}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for line in [*dependencies(), f"python=={platform.python_version()}"]:
        digest.update(f"{line}\0".encode())
    return digest.hexdigest()


def _path(current: str) -> Path:
    return directory() / f"results-{current[:32]}.json"


def conforms(value: object, schema: Any) -> bool:
    """Whether a parsed JSON value has the shape `schema` describes (see `RECORD`)."""
    if isinstance(schema, dict):
        return (
            isinstance(value, dict)
            and value.keys() == schema.keys()
            and all(conforms(value[name], inner) for name, inner in schema.items())
        )
    if isinstance(schema, list):
        return isinstance(value, list) and all(conforms(item, schema[0]) for item in value)
    if value is None or isinstance(value, bool):
        return type(value) in schema
    for allowed in schema:
        if isinstance(allowed, str):
            if type(value) is str and value in _VOCABULARY[allowed]:
                return True
        elif type(value) is allowed:
            return True
    return False


def valid(data: object, current: str) -> bool:
    """Whether `data` is a results file for key `current` whose every record validates (module docstring)."""
    if not isinstance(data, dict) or data.keys() != {"key", "ids", "claims"} or data["key"] != current:
        return False
    ids, claims = data["ids"], data["claims"]
    if not (isinstance(ids, list) and all(type(i) is str for i in ids) and len(set(ids)) == len(ids)):
        return False
    return (
        isinstance(claims, dict)
        and claims.keys() <= set(ids)
        and all(conforms(record, RECORD) and _consistent(name, record) for name, record in claims.items())
    )


def _consistent(claim_id: str, record: dict) -> bool:
    """Whether a conforming record's parts agree: filed under its id, `row` and `show` saying the same, and
    `changed` set exactly when a computed verdict differs from the recorded one."""
    row, show = record["row"], record["show"]
    same = all(row[name] == show[name] for name in row)
    differs = (show["verdict"], show["argument_verdict"]) != (
        show["recorded_verdict"],
        show["recorded_argument_verdict"],
    )
    return row["id"] == claim_id and same and differs == (record["changed"] is not None)


def _read(path: Path) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most MAX_BYTES, else None (never blocks)."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(MAX_BYTES + 1)
        return data if len(data) <= MAX_BYTES else None
    except OSError:
        return None
    finally:
        os.close(handle)


def load(current: str) -> dict:
    """The stored results for key `current`: {"ids": list of every claim id or None, "claims": {id: record}};
    empty when nothing is stored or the file does not validate."""
    empty: dict = {"ids": None, "claims": {}}
    raw = _read(_path(current))
    if raw is None:
        return empty
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return empty
    if not valid(data, current):
        return empty
    return {"ids": data["ids"], "claims": data["claims"]}


def store(current: str, results: dict) -> None:
    """Keep `results` under key `current` (atomically), and remove the results of other keys."""
    folder = directory()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".results-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({"key": current, **results}, stream, ensure_ascii=False)
            os.replace(temporary, _path(current))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        for old in folder.glob("results-*.json"):
            if old != _path(current):
                old.unlink()
