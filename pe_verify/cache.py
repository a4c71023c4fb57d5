"""What `pe-verify list` and `show` computed, kept between runs so that they answer at once.

The results depend only on the code and on the libraries that run it, so they are stored under a key: the
SHA-256 of every Python source file of the package, of the name and version of each dependency, and of the
Python version. Any change of either gives a new key, and the old results are never read again (they are
removed when the new ones are stored). The results are kept in `$PE_VERIFY_CACHE` if set, else in the
user's cache folder (`$XDG_CACHE_HOME/pe-verify` or `~/.cache/pe-verify` on Linux, from `platformdirs`),
as one JSON file per key. A file that cannot be read, parsed or checked counts as empty and is rebuilt; a
failure to store is ignored: the cache can make a run faster, never make it fail. `report` never uses it.
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
import tempfile
from pathlib import Path

import platformdirs

ENVIRONMENT = "PE_VERIFY_CACHE"
PACKAGES = ("pe_verify", "pe_verify.proofs", "pe_verify.properties", "pe_verify.claims")
DISTRIBUTION = "pe-verify"

#: The fields of every stored claim record (the command line's own rendering of one claim).
FIELDS = ("row", "line", "show", "text", "changed")


def directory() -> Path:
    """Where the results are kept: $PE_VERIFY_CACHE, else the user's cache folder for pe-verify."""
    chosen = os.environ.get(ENVIRONMENT)
    return Path(chosen) if chosen else Path(platformdirs.user_cache_dir(DISTRIBUTION))


def source_files() -> list[Path]:
    """Every Python source file of the package's folders, in a fixed order."""
    files = set()
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in spec.submodule_search_locations or ():
            files.update(Path(folder).glob("*.py"))
    return sorted(files)


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
    for path in source_files():
        digest.update(f"{path.parent.name}/{path.name}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for line in [*dependencies(), f"python=={platform.python_version()}"]:
        digest.update(f"{line}\0".encode())
    return digest.hexdigest()


def _path(current: str) -> Path:
    return directory() / f"results-{current[:32]}.json"


def load(current: str) -> dict:
    """The stored results for key `current`: {"ids": list of every claim id or None, "claims": {id: record}};
    empty when nothing valid is stored."""
    empty: dict = {"ids": None, "claims": {}}
    try:
        data = json.loads(_path(current).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return empty
    if not isinstance(data, dict) or data.get("key") != current or not isinstance(data.get("claims"), dict):
        return empty
    ids = data.get("ids")
    if not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
        ids = None
    claims = {
        claim_id: record
        for claim_id, record in data["claims"].items()
        if isinstance(record, dict) and all(field in record for field in FIELDS)
    }
    return {"ids": ids, "claims": claims}


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
